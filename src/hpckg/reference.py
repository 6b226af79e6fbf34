"""Reference data for importers: which entity of the curated files a dataset's name means.

Imported datasets name countries, manufacturers and chips in their own words ("Korea, South", "Hewlett-
Packard", "Cray/HPE", "NVIDIA H100 SXM5 80GB"). Which entity each of those strings means is data, not code:
the curated files under data/ttl/ give every country, organisation, site and part model its names as
`rdfs:label`, `skos:altLabel` (other names), `skos:hiddenLabel` (spellings a dataset uses that a page should
not show, such as the misspelt "Saudia Arabia") and `skos:notation` (codes, "US"). `Reference` reads those
once and answers `find(kind, name)` case-, accent- and punctuation-insensitively (hpckg.names.name_key).

Some names meant different organisations at different times: the TOP500 lists say "SGI" for Silicon Graphics
until 2009 and for SGI International (the former Rackable Systems) after, and "Cray Inc." for Cray Research
machines of the 1990s. Such names are `hpc:nameInUse` claims with `hpc:startTime`/`hpc:endTime`;
`find(kind, name, when=date)` answers with the organisation whose claim is in force on that date (today when
`when` is None) and falls back to the labels when no claim of that name is in force. Deprecated and
machine-generated claims never count.

`digest` is the SHA-256 of what an importer can see through this object (the name index and the dated names),
which importers record with each graph they write: a change to the names (a new alias, a new organisation)
makes the next import redo the graphs, as a changed input file does; a change to anything else in data/ttl/ (a
new system, a claim about an imported record, a source, a comment) does not, so a contributor's `hpckg build`
re-reads no dataset (issue 36: every curated edit re-imported all 67 files, 3 min 24 s).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from hpckg.lineage import date_key
from hpckg.names import name_key
from hpckg.namespaces import VOCAB, hpc
from hpckg.project import Project

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
# Separators of joint names ("Appro International / Cray Inc.", "NEC & HP", "Dell-Cray") when the whole name
# is not known, tried in this order; a part that is not known either is split by the separators after it
# ("Raytheon-Aspen Systems/Appro"). The hyphen comes last: "Hewlett-Packard" and "T-Platforms" are whole names.
JOINT_SEPARATORS = (" / ", "/", "\\", " & ", " and ", ", ", "-")
# Claim fields that date a name (hpc:nameInUse claims).
NAME_IN_USE = hpc("nameInUse")
CLAIM_FIELDS = {hpc(f): f for f in ("about", "property", "value", "startTime", "endTime", "rank", "basis")}
NOT_COUNTED = {VOCAB + "rank/deprecated", VOCAB + "basis/machine-generated"}
When = dt.date | str | None


@dataclass(frozen=True)
class DatedName:
    """An hpc:nameInUse claim: `iri` bore the name from `start` (inclusive) until `end` (exclusive), as
    yyyy-mm-dd keys; None is open."""

    iri: str
    start: str | None = None
    end: str | None = None

    def in_force(self, day: str) -> bool:
        return (self.start is None or self.start <= day) and (self.end is None or day < self.end)


_CACHE: dict[str, tuple[tuple, Reference]] = {}


@dataclass
class Reference:
    """Names -> IRIs per kind, read from the curated data files."""

    by_kind: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    dated: dict[str, dict[str, list[DatedName]]] = field(default_factory=dict)
    digest: str = ""

    @classmethod
    def from_files(cls, files: Iterable[Path]) -> Reference:
        files = sorted(files)
        classes: dict[str, set[str]] = {}
        names: dict[str, set[str]] = {}
        claims: dict[str, dict[str, str]] = {}
        for path in files:
            data = path.read_bytes()
            for triple in ox.parse(data, format=ox.RdfFormat.TURTLE, base_iri=path.as_uri()):
                subject, predicate = triple.subject, triple.predicate.value
                if not isinstance(subject, ox.NamedNode):
                    continue
                if predicate == RDF_TYPE:
                    classes.setdefault(subject.value, set()).add(triple.object.value)
                elif predicate in NAME_PROPERTIES and isinstance(triple.object, ox.Literal):
                    names.setdefault(subject.value, set()).add(triple.object.value)
                if predicate in CLAIM_FIELDS:
                    claims.setdefault(subject.value, {})[CLAIM_FIELDS[predicate]] = triple.object.value
        reference = cls()
        for kind, klass in KINDS.items():
            index = reference.by_kind.setdefault(kind, {})
            for iri, types in classes.items():
                if klass in types:
                    for name in names.get(iri, ()):
                        key = name_key(name)
                        if key:
                            index.setdefault(key, set()).add(iri)
            dated = reference.dated.setdefault(kind, {})
            for claim in claims.values():
                if claim.get("property") != NAME_IN_USE or klass not in classes.get(claim.get("about", ""), ()) \
                        or not name_key(claim.get("value", "")) or NOT_COUNTED & set(claim.values()):
                    continue
                start, end = claim.get("startTime"), claim.get("endTime")
                dated.setdefault(name_key(claim["value"]), []).append(DatedName(
                    claim["about"], date_key(start) if start else None, date_key(end) if end else None))
        reference.digest = reference._digest()
        return reference

    def _digest(self) -> str:
        """SHA-256 of the name index and dated names in a canonical order: what importers can read here."""
        canonical = {kind: {key: sorted(iris) for key, iris in sorted(index.items())}
                     for kind, index in sorted(self.by_kind.items())}
        dated = {kind: {key: sorted((d.iri, d.start or "", d.end or "") for d in names)
                        for key, names in sorted(index.items())} for kind, index in sorted(self.dated.items())}
        text = json.dumps({"names": canonical, "dated": dated}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    @classmethod
    def of_project(cls, project: Project) -> Reference:
        """The reference data of a project: every Turtle file in its data folders (read again only when a
        file was added, removed or changed, so importers may ask once per file they read)."""
        files = sorted(p for folder in project.data for p in folder.rglob("*.ttl") if p.is_file())
        stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
        cached = _CACHE.get(str(project.root))
        if cached is None or cached[0] != stamp:
            cached = _CACHE[str(project.root)] = (stamp, cls.from_files(files))
        return cached[1]

    def find(self, kind: str, name: str | None, *, when: When = None) -> str | None:
        """The one entity of `kind` that `name` names on `when` (a date, "2005" or "2005-06"; None is today),
        or None (unknown, or ambiguous). A dated name (hpc:nameInUse) in force on that date wins over labels."""
        if not name:
            return None
        key = name_key(name)
        day = date_key(when if when is not None else dt.date.today())
        found = {d.iri for d in self.dated.get(kind, {}).get(key, ()) if d.in_force(day)}
        if not found:
            found = self.by_kind.get(kind, {}).get(key, set())
        return next(iter(found)) if len(found) == 1 else None

    def find_all(self, kind: str, name: str | None, *, when: When = None) -> list[str]:
        """The entities a name means on `when` (None: today): the whole name's, else each part's of a joint
        name ("A / B", "A, B, C", "A-B"), in order. Empty when the whole name or any part is unknown, so a
        half-known joint name is never half-mapped."""
        whole = self.find(kind, name, when=when)
        if whole or not name:
            return [whole] if whole else []
        return self._parts(kind, name, when, JOINT_SEPARATORS)

    def _parts(self, kind: str, name: str, when: When, separators: tuple[str, ...]) -> list[str]:
        for index, separator in enumerate(separators):
            parts = [p.strip() for p in name.split(separator) if p.strip()]
            if len(parts) < 2:
                continue
            found: list[str] = []
            for part in parts:
                one = self.find(kind, part, when=when)
                inner = [one] if one else self._parts(kind, part, when, separators[index + 1:])
                if not inner:
                    break
                found.extend(inner)
            else:
                return list(dict.fromkeys(found))
        return []
