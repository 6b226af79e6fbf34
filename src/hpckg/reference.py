"""Reference data for importers: which entity of the curated files a dataset's name means.

Imported datasets name countries, manufacturers and chips in their own words ("Korea, South", "Hewlett-
Packard", "Cray/HPE", "NVIDIA H100 SXM5 80GB"). Which entity each of those strings means is data, not code:
the curated files under data/ttl/ give every country, organisation, site and part model its names as
`rdfs:label`, `skos:altLabel` (other names), `skos:hiddenLabel` (spellings a dataset uses that a page should
not show, such as the misspelt "Saudia Arabia") and `skos:notation` (codes, "US"). `Reference` reads those
once and answers `find(kind, name)` case-, accent- and punctuation-insensitively (hpckg.names.name_key).

`digest` is the SHA-256 of the files read, which importers record with each graph they write: a change to the
names (a new alias) makes the next import redo the graphs that used them, as a changed input file does.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from hpckg import project
from hpckg.names import name_key
from hpckg.namespaces import hpc

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
SKOS = "http://www.w3.org/2004/02/skos/core#"
NAME_PROPERTIES = {
    "http://www.w3.org/2000/01/rdf-schema#label", SKOS + "altLabel", SKOS + "hiddenLabel", SKOS + "notation",
}
# kind -> the class whose instances answer to it.
KINDS = {
    "country": hpc("Country"),
    "org": hpc("Organisation"),
    "site": hpc("Site"),
    "part": hpc("PartModel"),
}
# Separators of joint names ("Appro International / Cray Inc.", "NEC & HP") when the whole name is not known.
JOINT_SEPARATORS = (" / ", "/", " & ", " and ", ", ")


_CACHE: dict[str, tuple[tuple, Reference]] = {}


@dataclass
class Reference:
    """Names -> IRIs per kind, read from the curated data files."""

    by_kind: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    digest: str = ""

    @classmethod
    def from_files(cls, files: Iterable[Path]) -> Reference:
        files = sorted(files)
        digest = hashlib.sha256()
        classes: dict[str, set[str]] = {}
        names: dict[str, set[str]] = {}
        for path in files:
            data = path.read_bytes()
            digest.update(path.name.encode() + b"\0" + data)
            for triple in ox.parse(data, format=ox.RdfFormat.TURTLE, base_iri=path.as_uri()):
                subject, predicate = triple.subject, triple.predicate.value
                if not isinstance(subject, ox.NamedNode):
                    continue
                if predicate == RDF_TYPE:
                    classes.setdefault(subject.value, set()).add(triple.object.value)
                elif predicate in NAME_PROPERTIES and isinstance(triple.object, ox.Literal):
                    names.setdefault(subject.value, set()).add(triple.object.value)
        reference = cls(digest=digest.hexdigest())
        for kind, klass in KINDS.items():
            index = reference.by_kind.setdefault(kind, {})
            for iri, types in classes.items():
                if klass in types:
                    for name in names.get(iri, ()):
                        key = name_key(name)
                        if key:
                            index.setdefault(key, set()).add(iri)
        return reference

    @classmethod
    def of_project(cls) -> Reference:
        """The reference data of the current project: every Turtle file in its data folders (read again only
        when a file was added, removed or changed, so importers may ask once per file they read)."""
        here = project.current()
        files = sorted(p for folder in here.data for p in folder.rglob("*.ttl") if p.is_file())
        stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
        cached = _CACHE.get(str(here.root))
        if cached is None or cached[0] != stamp:
            cached = _CACHE[str(here.root)] = (stamp, cls.from_files(files))
        return cached[1]

    def find(self, kind: str, name: str | None) -> str | None:
        """The one entity of `kind` that `name` names, or None (unknown, or ambiguous)."""
        if not name:
            return None
        found = self.by_kind.get(kind, {}).get(name_key(name), set())
        return next(iter(found)) if len(found) == 1 else None

    def find_all(self, kind: str, name: str | None, when: dt.date | None = None) -> list[str]:
        """The entities a name means: the whole name's, else each part's of a joint name ("A / B"), in order.
        Empty when the whole name or any part is unknown, so a half-known joint name is never half-mapped."""
        whole = self.find(kind, name)
        if whole or not name:
            return [whole] if whole else []
        for separator in JOINT_SEPARATORS:
            if separator in name:
                parts = [p.strip() for p in name.split(separator) if p.strip()]
                found = [self.find(kind, p) for p in parts]
                if len(parts) > 1 and all(found):
                    return list(dict.fromkeys(found))  # type: ignore[arg-type]
        return []
