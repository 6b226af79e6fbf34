"""What changed between two releases: systems added and removed, claims added, changed, deprecated and
removed, by tier and source; found by comparing the graph with the previous release's N-Quads dump.

A claim is known by its IRI. It changed when what it states changed (value, bounds, tier, sources, dates,
basis, precision); it was deprecated when its rank became deprecated. The change log is written in words
(Markdown) and as data (RDF): one hpc:ChangeEntry per change, typed as:Create, as:Update or as:Delete.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pyoxigraph as ox

from hpckg.claims import Claim, labels, read_claims, shorten
from hpckg.namespaces import BASE
from hpckg.store import AnyStore
from hpckg.terms import DCTERMS, PROV, RANK_DEPRECATED, RDF_TYPE

HPC = "https://w3id.org/hpckg/ontology#"
AS = "https://www.w3.org/ns/activitystreams#"
KINDS = {"system added": "Create", "system removed": "Delete", "claim added": "Create",
         "claim changed": "Update", "claim deprecated": "Update", "claim removed": "Delete"}
UNSOURCED = "(no source)"


@dataclass(frozen=True)
class Change:
    kind: str  # one of KINDS
    entity: str  # the system or claim IRI
    tier: str | None = None
    sources: tuple[str, ...] = ()
    about: str | None = None  # a claim's subject
    property: str | None = None
    fields: tuple[str, ...] = ()  # what changed in a changed claim


@dataclass
class ChangeLog:
    version: str
    previous: str | None
    changes: list[Change] = field(default_factory=list)

    def count(self, kind: str) -> int:
        return sum(1 for c in self.changes if c.kind == kind)

    def by_tier_and_source(self) -> Counter:
        """(kind, tier, source) -> claims, each source of a claim counted."""
        counts: Counter = Counter()
        for change in self.changes:
            if change.kind.startswith("claim"):
                for source in change.sources or (UNSOURCED,):
                    counts[(change.kind, change.tier or "", source)] += 1
        return counts


def _systems(store: AnyStore) -> set[str]:
    return {row["s"].value for row in store.query("SELECT DISTINCT ?s WHERE { ?s a hpc:System }")}


STATED = ("value", "bounds", "tier", "sources", "as_of", "basis", "precision", "start", "end", "point_in_time",
          "edition", "unknown", "about", "property")


def _stated(claim: Claim) -> dict[str, str]:
    return {name: repr(getattr(claim, name)) for name in STATED}


def compare(before: AnyStore | None, after: AnyStore, *, version: str, previous: str | None) -> ChangeLog:
    """The changes from `before` (the previous release's graph; None for a first release) to `after`."""
    log = ChangeLog(version, previous)
    if before is None:
        return log
    old_systems, new_systems = _systems(before), _systems(after)
    log.changes += [Change("system added", s) for s in sorted(new_systems - old_systems)]
    log.changes += [Change("system removed", s) for s in sorted(old_systems - new_systems)]
    old = {c.iri: c for c in read_claims(before) if not c.derived}
    new = {c.iri: c for c in read_claims(after) if not c.derived}

    def change(kind: str, claim: Claim, fields: tuple[str, ...] = ()) -> Change:
        return Change(kind, claim.iri, claim.tier, tuple(sorted(claim.sources)), claim.about, claim.property, fields)

    for iri in sorted(new.keys() - old.keys()):
        log.changes.append(change("claim added", new[iri]))
    for iri in sorted(old.keys() - new.keys()):
        log.changes.append(change("claim removed", old[iri]))
    for iri in sorted(old.keys() & new.keys()):
        a, b = old[iri], new[iri]
        if a.rank != RANK_DEPRECATED and b.rank == RANK_DEPRECATED:
            log.changes.append(change("claim deprecated", b))
            continue
        before_stated, after_stated = _stated(a), _stated(b)
        fields = tuple(name for name in STATED if before_stated[name] != after_stated[name])
        if fields:
            log.changes.append(change("claim changed", b, fields))
    return log


def markdown(log: ChangeLog, store: AnyStore) -> str:
    """The change log in words."""
    names = labels(store, [c.entity for c in log.changes if c.kind.startswith("system")]
                   + [c.about for c in log.changes if c.about])
    lines = [f"# hpckg {log.version}: what changed", ""]
    if log.previous is None:
        lines += ["The first release: there is no earlier one to compare with.", ""]
        return "\n".join(lines)
    lines += [f"Since hpckg {log.previous}:", ""]
    for kind in KINDS:
        lines.append(f"- {log.count(kind)} {kind.split()[0]}s {kind.split()[1]}")
    lines.append("")
    counts = log.by_tier_and_source()
    if counts:
        lines += ["## Claims by tier and source", "", "| change | tier | source | claims |", "|---|---|---|---|"]
        for (kind, tier, source), n in sorted(counts.items()):
            lines.append(f"| {kind} | {shorten(tier) if tier else ''} | {shorten(source)} | {n} |")
        lines.append("")
    if log.changes:
        lines += ["## Every change", ""]
        for c in log.changes:
            if c.kind.startswith("system"):
                lines.append(f"- {c.kind}: {names.get(c.entity, shorten(c.entity))} <{c.entity}>")
            else:
                what = f" ({', '.join(c.fields)})" if c.fields else ""
                subject = names.get(c.about or "", shorten(c.about or ""))
                lines.append(f"- {c.kind}{what}: {subject}, {shorten(c.property or '')} <{c.entity}>")
        lines.append("")
    return "\n".join(lines)


def triples(log: ChangeLog) -> list[ox.Triple]:
    """The change log as data: one hpc:ChangeEntry per change, part of the release's change set."""
    changeset = ox.NamedNode(f"{BASE}release/{log.version}/changes")
    out = [ox.Triple(changeset, ox.NamedNode(RDF_TYPE), ox.NamedNode(PROV + "Collection")),
           ox.Triple(changeset, ox.NamedNode(DCTERMS + "title"),
                     ox.Literal(f"Changes in hpckg {log.version}", language="en"))]
    if log.previous:
        out.append(ox.Triple(changeset, ox.NamedNode(PROV + "wasDerivedFrom"),
                             ox.NamedNode(f"{BASE}release/{log.previous}")))
    for number, c in enumerate(log.changes, start=1):
        entry = ox.NamedNode(f"{BASE}release/{log.version}/changes#{number}")
        out += [ox.Triple(changeset, ox.NamedNode(PROV + "hadMember"), entry),
                ox.Triple(entry, ox.NamedNode(RDF_TYPE), ox.NamedNode(HPC + "ChangeEntry")),
                ox.Triple(entry, ox.NamedNode(RDF_TYPE), ox.NamedNode(AS + KINDS[c.kind])),
                ox.Triple(entry, ox.NamedNode(HPC + "changedEntity"), ox.NamedNode(c.entity)),
                ox.Triple(entry, ox.NamedNode(DCTERMS + "description"), ox.Literal(
                    c.kind + (f" ({', '.join(c.fields)})" if c.fields else ""), language="en"))]
        if c.tier:
            out.append(ox.Triple(entry, ox.NamedNode(HPC + "tier"), ox.NamedNode(c.tier)))
        out += [ox.Triple(entry, ox.NamedNode(DCTERMS + "source"), ox.NamedNode(s)) for s in c.sources]
    return out
