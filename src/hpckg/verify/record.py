"""A source check as RDF, and the history of checks kept on disk.

Each check is one machine-written graph file, `.hpckg/graphs/verify/<source>/<time>-<system>.nq`, never
rewritten: a source's history is the folder. The file's header line carries what the next run needs
(source, system, when, result, SHA-256 of what was read, the check's slug) so reading the history reads
one line per check. The quads come from the claim builder (`hpckg.claims.source_check_quads`) plus what
this check adds: start time, URLs asked and answered, HTTP status, what was read (an entity with its
SHA-256, size and media type), each finding with where it was found, and whether the page changed since
the previous check of the same source.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from hpckg import __version__, machinegraphs
from hpckg import terms as t
from hpckg.claims import slug_of, source_check_quads
from hpckg.namespaces import GRAPH, PREFIXES, entity, hpc, software_slug
from hpckg.verify import SLOT, check_file
from hpckg.verify.extract import media_type
from hpckg.verify.fetch import Fetched
from hpckg.verify.match import Finding

COMMAND = "hpckg verify"
PROV = PREFIXES["prov"]
DCAT = PREFIXES["dcat"]
DCTERMS = PREFIXES["dcterms"]


@dataclass(frozen=True)
class PastCheck:
    """A check recorded by an earlier run, as its file's header says."""

    source: str  # slug
    system: str  # slug
    ended: str  # ISO 8601
    result: str
    sha256: str | None
    check: str  # the check's IRI
    path: Path


def history(graphs: Path) -> list[PastCheck]:
    """Every check recorded in the verify slot of the graphs folder `graphs` (Project.graphs), oldest first."""
    folder = machinegraphs.slot_dir(graphs, SLOT)
    found = []
    for path in sorted(folder.rglob("*.nq")) if folder.is_dir() else []:
        fields = machinegraphs.read_header(path)
        if {"source", "system", "ended", "result", "check"} <= fields.keys():
            found.append(PastCheck(fields["source"], fields["system"], fields["ended"], fields["result"],
                                   None if fields.get("sha256", "-") == "-" else fields["sha256"],
                                   entity("check", fields["check"]), path))
    return sorted(found, key=lambda c: (c.ended, str(c.path)))


def stamp(moment: dt.datetime) -> str:
    """A check's time as a slug part: 2026-11-30t07-01-02-123456z."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dt%H-%M-%S-%fz")


def _when(moment: dt.datetime) -> ox.Literal:
    return ox.Literal(moment.astimezone(dt.UTC).isoformat(timespec="microseconds").replace("+00:00", "Z"),
                      datatype=ox.NamedNode(t.XSD_DATE_TIME))


def _int(value: int) -> ox.Literal:
    return ox.Literal(str(value), datatype=ox.NamedNode(t.XSD_INTEGER))


def _uri(value: str) -> ox.Literal:
    return ox.Literal(value, datatype=ox.NamedNode(t.XSD_ANY_URI))


@dataclass
class CheckRecord:
    """Everything one check says, before it becomes quads."""

    source: str  # IRI
    system: str  # IRI
    system_label: str
    host: str
    fetched: Fetched
    result: str  # a check-result name
    detail: str | None
    findings: list[Finding]
    terms: list[str]
    counts: list[int]
    previous: PastCheck | None = None

    @property
    def slug(self) -> str:
        return f"{slug_of(self.system)}-{slug_of(self.source)}-{stamp(self.fetched.started)}"

    @property
    def graph(self) -> str:
        return f"{GRAPH}{SLOT}/{slug_of(self.source)}/{slug_of(self.system)}/{stamp(self.fetched.started)}"

    @property
    def changed(self) -> bool | None:
        """Whether what was read differs from what the previous check of this source read (None: no
        previous reading to compare with, or nothing read now)."""
        now = self.fetched.sha256
        if now is None or self.previous is None or self.previous.sha256 is None:
            return None
        return now != self.previous.sha256

    def quads(self) -> list[ox.Quad]:
        f = self.fetched
        ended = f.ended or f.started
        check = ox.NamedNode(entity("check", self.slug))
        g = ox.NamedNode(self.graph)
        software = ox.NamedNode(entity("software", software_slug()))
        quads = source_check_quads(
            self.slug, source=self.source, system=self.system, result=self.result, ended=ended,
            software=software.value, checked_by=COMMAND, graph=self.graph, terms_found=self.terms,
            count_found=self.counts,
            label=f"Source check of {self.host or f.url} for {self.system_label}, {ended:%Y-%m-%d %H:%M} UTC")

        def add(s, p: str, o) -> None:
            quads.append(ox.Quad(s, ox.NamedNode(p), o, g))

        add(check, t.RDF_TYPE, ox.NamedNode(PROV + "Activity"))
        add(check, PROV + "startedAtTime", _when(f.started))
        add(check, hpc("requestedUrl"), _uri(f.url))
        if f.final_url:
            add(check, hpc("finalUrl"), _uri(f.final_url))
        if f.status is not None:
            add(check, hpc("httpStatus"), _int(f.status))
        if f.attempts:
            add(check, hpc("attempts"), _int(f.attempts))
        if self.detail:
            add(check, hpc("checkDetail"), ox.Literal(self.detail))
        add(check, PROV + "generated", g)
        add(g, t.PROV_WAS_GENERATED_BY, check)
        if f.body is not None:
            copy = ox.NamedNode(entity("check", f"{self.slug}-copy"))
            add(check, hpc("retrievedCopy"), copy)
            add(copy, t.RDF_TYPE, ox.NamedNode(hpc("RetrievedCopy")))
            add(copy, t.RDF_TYPE, ox.NamedNode(PROV + "Entity"))
            add(copy, hpc("sha256"), ox.Literal(f.sha256 or ""))
            add(copy, DCAT + "byteSize", ox.Literal(str(len(f.body)), datatype=ox.NamedNode(
                PREFIXES["xsd"] + "nonNegativeInteger")))
            if f.content_type:
                add(copy, DCTERMS + "format", ox.Literal(media_type(f.content_type)))
            add(copy, hpc("fromCache"), ox.Literal("true" if f.from_cache else "false",
                                                   datatype=ox.NamedNode(t.XSD_BOOLEAN)))
            add(copy, PROV + "wasDerivedFrom", ox.NamedNode(self.source))
        if self.previous is not None:
            add(check, hpc("previousCheck"), ox.NamedNode(self.previous.check))
        if self.changed is not None:
            add(check, hpc("contentChanged"), ox.Literal("true" if self.changed else "false",
                                                         datatype=ox.NamedNode(t.XSD_BOOLEAN)))
        for number, finding in enumerate(self.findings, start=1):
            node = ox.NamedNode(entity("check", f"{self.slug}-finding-{number}"))
            add(check, hpc("finding"), node)
            add(node, t.RDF_TYPE, ox.NamedNode(hpc("Finding")))
            add(node, hpc("findingKind"), ox.Literal(finding.kind))
            add(node, hpc("lookedFor"), ox.Literal(finding.term))
            add(node, hpc("matchedText"), ox.Literal(finding.matched))
            add(node, hpc("textOffset"), _int(finding.offset))
            add(node, hpc("textContext"), ox.Literal(finding.context))
        quads += [ox.Quad(software, ox.NamedNode(p), o, g) for p, o in (
            (t.RDF_TYPE, ox.NamedNode(hpc("Software"))),
            (t.RDFS_LABEL, ox.Literal(f"hpckg {__version__}")),
            (PROV + "specializationOf", ox.NamedNode(entity("software", "hpckg"))))]
        return quads

    def header(self) -> dict[str, str]:
        return {"source": slug_of(self.source), "system": slug_of(self.system),
                "ended": (self.fetched.ended or self.fetched.started).isoformat(), "result": self.result,
                "sha256": self.fetched.sha256 or "-", "check": self.slug, "hpckg": __version__}

    def write(self, graphs: Path) -> Path:
        """Write this check as a new graph file under `graphs` (an earlier check is never replaced)."""
        path = check_file(graphs, slug_of(self.source), f"{stamp(self.fetched.started)}-{slug_of(self.system)}")
        machinegraphs.write_graph(path, self.quads(), self.header(), title="verify")
        return path
