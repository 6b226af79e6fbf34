"""Checks of a contribution in the context of the whole graph: SHACL shapes, entities another file owns,
duplicate systems, conflicting claims and missing change-history entries (tier rules are SHACL shapes).

The graph is built in memory (the curated data plus the contribution, derived facts materialised), so a
check never writes the built store nor touches a running server.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pyoxigraph as ox

from hpckg.build import load_files, materialise, source_files
from hpckg.claims import Claim, claim_from_triples, iri_ref
from hpckg.claims import shorten as short
from hpckg.contribute import duplicates
from hpckg.contribute.neighbourhood import Neighbourhood, SystemNames, cached_system_names, typed_in
from hpckg.datafiles.filecheck import ParsedFile
from hpckg.datafiles.report import CheckReport, ClaimReview
from hpckg.names import NameIndex
from hpckg.namespaces import DERIVED_GRAPH, graph_for, hpc
from hpckg.project import Project
from hpckg.references import KIND_HOMES, is_reference, kind_of, undefined_reference
from hpckg.store import AnyStore, Store
from hpckg.systemnames import cache_folder
from hpckg.terms import (
    CLAIM_TYPES,
    DCTERMS_ISSUED,
    RANK_DEPRECATED,
    RANK_PREFERRED,
    RDF_TYPE,
    RDFS_LABEL,
    SKOS_ALT_LABEL,
    TIER,
)
from hpckg.validate import Violation, validate
from hpckg.values import Iri, Text, Value, Year, YearMonth
from hpckg.vocabulary import vocabulary

# A contribution may point an existing claim at its correction; nothing else about another file's entity.
ALLOWED_ON_OTHERS = {hpc("supersededBy")}


DATES = (dt.date, YearMonth, Year)  # a datetime is a date


def _lexical(value: Value | None) -> str | None:
    if value is None:
        return None
    return value.text if isinstance(value, Text) else str(value)


def _same_value(a: Value, b: Value) -> bool:
    if isinstance(a, Iri) or isinstance(b, Iri):
        return isinstance(a, Iri) and isinstance(b, Iri) and a == b
    try:
        return Decimal(_lexical(a) or "") == Decimal(_lexical(b) or "")
    except InvalidOperation:
        return (_lexical(a) or "").strip().casefold() == (_lexical(b) or "").strip().casefold()


def _tolerance(claim: Claim) -> Decimal:
    """Half the unit of the last digit of an approximate or rounded plain number ("about 24,000": 500), as
    queries/rules/45-disagreements.rq reads hpc:precision; 0 for an exact value."""
    text = _lexical(claim.value) or ""
    if claim.precision is None or claim.precision.endswith("/exact") or not re.fullmatch(r"[0-9]+(\.[0-9]+)?", text):
        return Decimal(0)
    if "." in text:
        return Decimal("0.5") / Decimal(10) ** len(text.split(".", 1)[1])
    return Decimal("0.5") * Decimal(10) ** (len(text) - len(text.rstrip("0")))


def _agrees(claim: Claim, other: Claim) -> bool:
    """Whether two claims' values agree: the same value, numbers within the precision one of them states, or
    a date and the coarser date it falls in."""
    if claim.value is None or other.value is None:
        return False
    if _same_value(claim.value, other.value):
        return True
    if isinstance(claim.value, DATES) and isinstance(other.value, DATES):
        # a date agrees with the coarser date it falls in ("2025" and "2025-06-10"), as rule 45 judges it
        mine, theirs = str(claim.value), str(other.value)
        return mine.startswith(theirs) or theirs.startswith(mine)
    try:
        gap = abs(Decimal(_lexical(claim.value) or "") - Decimal(_lexical(other.value) or ""))
    except (InvalidOperation, ValueError):
        return False
    return gap <= max(_tolerance(claim), _tolerance(other))


def term_files(project: Project) -> list[Path]:
    """The project's ontology and shapes: the terms a review needs whatever store it reads."""
    return [p for folder in (project.ontology_dir, project.shapes_dir) for p in sorted(folder.rglob("*.ttl"))]


class GraphContext:
    """The graph a contribution is reviewed in, with the lookups the checks need: the curated graph (and the
    imports, if asked) read from the files plus the contribution, in memory; or, given a built store
    (embedded or a SPARQL server), only what the contribution touches in it (hpckg.contribute.neighbourhood)
    plus the contribution, so the review costs the same whatever the size of the store. `project`: the
    project whose terms, rules, shapes and files the review reads."""

    def __init__(self, parsed: list[ParsedFile], project: Project, *, built: AnyStore | None = None,
                 imports: bool = False, names: SystemNames | None = None, limit: int | None = None,
                 overlay: dict[str, list[ox.Quad]] | None = None):
        self.parsed = parsed
        self.project = project
        self.names = names
        self.graphs = {graph_for(project.relative_name(p.path)): p for p in parsed}
        self.built = built
        self.store = Store(None)
        self.around: set[ox.Quad] = set()
        self._in_store: dict[str, set[str]] = {}  # namespace -> the store's entities in it (did-you-mean)
        if built is not None:
            seeds = {t.value for p in parsed for q in p.quads for t in (q.subject, q.object)
                     if isinstance(t, ox.NamedNode)}
            self.around = Neighbourhood(built, self.graphs, limit=limit).gather(seeds)
            if overlay:
                # Data files changed since the build (an organisation `hpckg new` appended to a shared file):
                # their text as it is now, in place of their built copy.
                overlaid = {ox.NamedNode(graph) for graph in overlay}
                self.around = {q for q in self.around if q.graph_name not in overlaid}
                self.around |= {ox.Quad(q.subject, q.predicate, q.object, ox.NamedNode(graph))
                                for graph, quads in overlay.items() for q in quads}
            load_files(self.store, term_files(project), project)
            self.store.load_quads(self.around)
        else:
            mine = {p.path.resolve() for p in parsed}
            load_files(self.store, [f for f in source_files(project, imports=imports) if f.resolve() not in mine],
                       project)
        for graph, p in self.graphs.items():
            self.store.load_quads(p.quads, graph=graph)
        materialise(self.store, project.rules_dir)
        self.owner: dict[str, str] = {}  # subject -> the other graph that types it
        self.labels: dict[str, set[str]] = defaultdict(set)
        self.display: dict[str, str] = {}  # entity -> its rdfs:label, the name a review shows
        self.types: dict[str, set[str]] = defaultdict(set)
        self.claims: dict[str, Claim] = {}
        self.claim_graphs: dict[str, str] = {}  # claim IRI -> the graph (file) that states it
        self._index()

    def existing_systems(self) -> NameIndex[str] | _StoreSystems:
        """The systems another file defines, by name (what a new system's name must not match)."""
        if self.built is not None:
            names = self.names or cached_system_names(self.built, cache_folder(self.project.graphs))
            return _StoreSystems(names, set(self.graphs))
        existing: NameIndex[str] = NameIndex()
        system = hpc("System")
        for iri in self.owner:
            if system in self.types[iri]:
                existing.add(iri, self.labels[iri])
        return existing

    def defined(self, iri: str) -> bool:
        return bool(self.types.get(iri))

    def same_kind(self, iri: str) -> set[str]:
        """The defined entities in the namespace of `iri` (the candidates of a did-you-mean)."""
        namespace = iri.rsplit("/", 1)[0] + "/"
        here = {k for k, kinds in self.types.items() if kinds and k.startswith(namespace)}
        if self.built is None or kind_of(iri) not in KIND_HOMES:
            return here
        if namespace not in self._in_store:  # one query per kind, only when something is undefined
            self._in_store[namespace] = typed_in(self.built, namespace, KIND_HOMES[kind_of(iri) or ""][0])
        return self._in_store[namespace] | here

    def baseline(self) -> list[Violation]:
        """Violations of what the contribution touches in the built store, without the contribution."""
        store = Store(None)
        load_files(store, term_files(self.project), self.project)
        store.load_quads(self.around)
        materialise(store, self.project.rules_dir)
        return validate(store, project=self.project).violations

    def _index(self) -> None:
        for quad in self.store.quads():
            graph = quad.graph_name.value if isinstance(quad.graph_name, ox.NamedNode) else ""
            s, p, o = quad.subject, quad.predicate.value, quad.object
            if p == RDFS_LABEL and isinstance(s, ox.NamedNode) and isinstance(o, ox.Literal):
                self.display.setdefault(s.value, o.value)  # a derived display label (12-display-label.rq) too
            if graph == DERIVED_GRAPH:
                continue
            if not isinstance(s, ox.NamedNode):
                continue
            if p == RDF_TYPE:
                self.types[s.value].add(o.value)
                if graph not in self.graphs:
                    self.owner.setdefault(s.value, graph)
                if o.value in CLAIM_TYPES:
                    self.claim_graphs.setdefault(s.value, graph)
            elif p in (RDFS_LABEL, SKOS_ALT_LABEL, hpc("slug")) and isinstance(o, ox.Literal):
                self.labels[s.value].add(o.value)
        # A claim is what the file that states it says: a contribution writing about another file's claim
        # is reported as redefines-entity, not read into that claim.
        triples: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
        for quad in self.store.quads():
            s = quad.subject.value
            if self.claim_graphs.get(s) == quad.graph_name.value:
                triples[s][quad.predicate.value].append(quad.object)
        self.claims = {iri: claim_from_triples(iri, fields) for iri, fields in triples.items()}

    def objects(self, subject: str, predicate: str) -> list[str]:
        return [row["o"].value for row in self.store.query(
            f"SELECT DISTINCT ?o WHERE {{ <{subject}> <{predicate}> ?o }}")]

    def inputs_of(self, derived: str) -> list[str]:
        """The claims a derived claim was derived from, directly or through other derived claims."""
        return [row["i"].value for row in self.store.query(
            f"SELECT DISTINCT ?i WHERE {{ {iri_ref(derived)} prov:wasDerivedFrom+ ?i }}")]

    def file_of(self, graph: str) -> str:
        if graph in self.graphs:
            return self.graphs[graph].display
        return graph.rsplit("graph/", 1)[-1]

    def mine(self, claim: Claim) -> bool:
        return self.claim_graphs[claim.iri] in self.graphs

    def summary(self, claim: Claim) -> dict:
        """A claim as the conflict table shows it."""
        return {"claim": claim.iri, "value": _lexical(claim.value), "tier": claim.tier.removeprefix(TIER),
                "sources": sorted(claim.sources), "as_of": _lexical(claim.as_of),
                "file": self.file_of(self.claim_graphs[claim.iri])}


class _StoreSystems:
    """NameIndex.matches over a built store's SystemNames, leaving out the contribution's own graphs."""

    def __init__(self, names: SystemNames, skip: set[str]):
        self.names, self.skip = names, skip

    def matches(self, names: list[str]) -> set[str]:
        return self.names.matches(names, self.skip)


def check_in_context(context: GraphContext, report: CheckReport, *, baseline_fn=None) -> None:
    """Run every check in context; baseline_fn gives the curated graph's own violations (computed lazily)."""
    for graph, parsed in context.graphs.items():
        _check_ownership(context, parsed, report)
        _check_duplicates(context, graph, parsed, report)
        _check_claims(context, graph, parsed, report)
        _check_change_history(context, graph, parsed, report)
        _check_as_of(context, graph, parsed, report)
    undefined = check_references(context, report)
    _check_shapes(context, report, baseline_fn, undefined)


def _check_ownership(context: GraphContext, parsed: ParsedFile, report: CheckReport) -> None:
    written: dict[str, set[str]] = defaultdict(set)
    for quad in parsed.quads:
        s = quad.subject.value
        if s in context.owner and quad.predicate.value not in ALLOWED_ON_OTHERS:
            written[s].add(quad.predicate.value)
    for subject, predicates in written.items():
        owner_file = context.file_of(context.owner[subject])
        report.add("redefines-entity",
                   f"{short(subject)} is defined in {owner_file}; this file writes "
                   f"{', '.join(sorted(short(p) for p in predicates))} about it",
                   fix=(f"identity triples belong in {owner_file}; to add a fact, write a new claim with "
                        f"hpc:about {short(subject)}; to correct one, add a claim and point the old one at it "
                        "with hpc:supersededBy"),
                   file=parsed.display, line=parsed.line_of_iri(subject), focus=subject)


def _check_duplicates(context: GraphContext, graph: str, parsed: ParsedFile, report: CheckReport) -> None:
    system = hpc("System")
    new_systems = {q.subject.value for q in parsed.quads
                   if q.predicate.value == RDF_TYPE and q.object.value == system
                   and q.subject.value not in context.owner}
    existing = context.existing_systems() if new_systems else NameIndex()
    records = context.built if context.built is not None else context.store  # the existing systems' claims
    for iri in sorted(new_systems):
        for name in sorted(context.labels[iri]):
            matches = existing.matches([name])
            if matches:
                names = ", ".join(duplicates.records_text(records, m) for m in sorted(matches))
                report.add("duplicate-system",
                           f"new system {short(iri)} is named {name!r}, which matches existing {names}",
                           fix=(f"if it is the same machine, add claims about {short(min(matches))} instead of a "
                                f"new system (`hpckg new claim {short(min(matches))} ...`); if it is a different "
                                "one, give it a distinguishing name"),
                           file=parsed.display, line=parsed.line_of_iri(iri), focus=iri,
                           details={"existing": sorted(matches)})
                break
        else:
            _check_possible_duplicates(context, iri, parsed, report, existing, records)


def _check_possible_duplicates(context: GraphContext, iri: str, parsed: ParsedFile, report: CheckReport,
                               existing, records) -> None:
    """A warning when a new system's name, without descriptive words and its own operator's, site's and
    country's words, is an existing system's, and the two agree on its country, operator or site; else when an
    existing system in its country has the same accelerator part model (duplicates.same_parts)."""
    mine = duplicates.attributes(context.store, iri)
    own = duplicates.own_words(label for values in mine.values() for value in values
                               for label in context.labels.get(value, ()))
    for name in sorted(context.labels[iri]):
        for core in sorted(duplicates.core_names(name, own)):
            for candidate in sorted(existing.matches([core])):
                agreed = duplicates.agreements(mine, duplicates.attributes(records, candidate))
                if not agreed:
                    continue
                shown = duplicates.records_text(records, candidate)
                report.add("possible-duplicate",
                           f"new system {short(iri)} ({name!r}) may be {shown}: named {core!r} once the words "
                           f"that describe it or its operator, site and country are left out, with the same "
                           f"{' and '.join(agreed)}",
                           fix=(f"if it is the same machine, delete the new system and add claims about "
                                f"{short(candidate)} (`hpckg new claim {short(candidate)} ...`); if it is another "
                                "one, say in its hpc:read how it differs"),
                           file=parsed.display, line=parsed.line_of_iri(iri), focus=iri,
                           details={"existing": candidate, "agreeing": agreed})
                return
    # Named otherwise ("OLCF-5"): the same accelerator part model in the same country
    parts = duplicates.accelerator_parts(context.store, iri)
    sharers = duplicates.part_sharers(records, parts) - {iri} if parts else set()
    found = duplicates.same_parts(mine, parts, duplicates.accelerator_count(context.store, iri) if parts else None,
                                  {s: (duplicates.attributes(records, s), duplicates.accelerator_count(records, s))
                                   for s in sorted(sharers)})
    if found:
        shown = "; ".join(f"{duplicates.records_text(records, s)} (the same {' and '.join(said)})"
                          for s, said in found.items())
        report.add("possible-duplicate",
                   f"new system {short(iri)} may be a machine the graph has under another name: {shown}",
                   fix=("if it is the same machine, delete the new system and add claims about that record "
                        "(`hpckg new claim SYSTEM ...`; `--property name --value ...` records the other name); "
                        "if it is another one, say in its hpc:read how it differs"),
                   file=parsed.display, line=parsed.line_of_iri(iri), focus=iri,
                   details={"existing": sorted(found), "agreeing": found})


def _system_of(context: GraphContext, entity: str | None) -> str | None:
    if entity is None:
        return None
    if hpc("System") in context.types[entity]:
        return entity
    if hpc("Component") in context.types[entity]:
        parents = context.objects(entity, hpc("componentOf"))
        return parents[0] if parents else None
    return None


def _check_claims(context: GraphContext, graph: str, parsed: ParsedFile, report: CheckReport) -> None:
    """Each claim of the file against the existing claims on its entity and property: a conflict is a
    problem; every claim gets its line in the review (adds, agrees, another value, conflicts)."""
    properties = vocabulary(context.project.ontology_dir).properties

    def multi_valued(prop: str | None) -> bool:
        return prop in properties and properties[prop].multi_valued

    by_key: dict[tuple[str, str], list[Claim]] = defaultdict(list)
    for claim in context.claims.values():
        if not context.mine(claim) and claim.about and claim.property and claim.value is not None:
            by_key[(claim.about, claim.property)].append(claim)
    for claim in sorted((c for c in context.claims.values() if context.claim_graphs[c.iri] == graph),
                        key=lambda c: c.iri):
        existing = [o for o in by_key.get((claim.about or "", claim.property or ""), [])
                    if o.rank != RANK_DEPRECATED and claim.iri not in o.superseded_by]
        agreeing = [o.iri for o in existing if _agrees(claim, o)]
        conflicting = []
        if claim.value is not None and not multi_valued(claim.property) and claim.rank != RANK_DEPRECATED:
            for other in existing:
                if (set(other.sources) & set(claim.sources) or other.iri in claim.superseded_by
                        or _agrees(claim, other)):
                    continue
                conflicting.append(other.iri)
                report.add("conflict",
                           f"{short(claim.iri)} says {short(claim.property)} of {short(claim.about)} is "
                           f"{_lexical(claim.value)}; {short(other.iri)} says {_lexical(other.value)}",
                           fix=_conflict_fix(context, claim, other),
                           file=parsed.display, line=parsed.line_of_iri(claim.iri), focus=claim.iri,
                           details={"contribution": context.summary(claim), "existing": context.summary(other)})
        if claim.about and claim.property:
            verdict, others = (("conflicts", conflicting) if conflicting else ("agrees", agreeing) if agreeing
                               else ("another value", [o.iri for o in existing]) if existing else ("adds", []))
            report.claims.append(ClaimReview(claim.iri, claim.about, context.display.get(claim.about, ""),
                                             claim.property, _lexical(claim.value) or "(bounds only)", verdict,
                                             sorted(others)))


def _conflict_fix(context: GraphContext, claim: Claim, other: Claim) -> str:
    """What to do about a conflict. A claim is corrected without editing it: the contribution's claim ranked
    preferred is what the build takes as the best (queries/rules/10-truthy.rq), and the other stays as its
    file or dataset gives it, so an imported figure is corrected in data/ttl/ alone."""
    imported = context.file_of(context.claim_graphs.get(other.iri, "")).startswith("import/")
    whose = "its dataset" if imported else "its file"
    if claim.rank == RANK_PREFERRED:
        return (f"this claim is rank:preferred, so the build takes its value as the best over {short(other.iri)}, "
                f"which stays as {whose} gives it; say in a skos:note why this source is better")
    tail = ("" if imported else f"; or, if {short(other.iri)} is wrong, ask in the pull request for it to get "
            "rank:deprecated and hpc:supersededBy this claim")
    return (f"review both sources; if this one is better, set hpc:rank rank:preferred here: the build then takes "
            f"its value over {short(other.iri)}, which stays as {whose} gives it{tail}")


def _check_change_history(context: GraphContext, graph: str, parsed: ParsedFile, report: CheckReport) -> None:
    changed: dict[str, str] = {}  # system -> the first IRI in the file that changes it
    for quad in parsed.quads:
        s = quad.subject.value
        if quad.predicate.value == RDF_TYPE and quad.object.value == hpc("System"):
            changed.setdefault(s, s)
        if quad.predicate.value == hpc("about"):
            system = _system_of(context, quad.object.value)
            if system:
                changed.setdefault(system, s)
    entries = {s.value for s in (q.subject for q in parsed.quads)
               if hpc("ChangeEntry") in context.types[s.value]}
    covered = {q.object.value for q in parsed.quads
               if q.subject.value in entries and q.predicate.value == hpc("changedEntity")}
    for system in sorted(set(changed) - covered):
        slug = system.rsplit("/", 1)[-1]
        report.add("missing-change-entry", f"{short(system)} is added or changed but the file has no "
                   f"hpc:ChangeEntry with hpc:changedEntity {short(system)}",
                   fix=(f"add: chg:{slug}-<yyyy-mm-dd> a hpc:ChangeEntry ; hpc:changedEntity {short(system)} ; "
                        'dcterms:date "<yyyy-mm-dd>"^^xsd:date ; rdfs:comment "What changed"@en .'),
                   file=parsed.display, line=parsed.line_of_iri(changed[system]), focus=system)


def _date_text(text: str | None) -> str | None:
    """'2024-06-10', '2024-06' or '2024' from a date, year-month or year (time of day dropped)."""
    return text[:10] if text and text[:4].isdigit() else None


def _check_as_of(context: GraphContext, graph: str, parsed: ParsedFile, report: CheckReport) -> None:
    """A claim's as-of date is when its source says the fact held, so it cannot be after the source's own
    date; one that is was most likely given the date the file was edited."""
    for claim in sorted((c for c in context.claims.values() if context.claim_graphs[c.iri] == graph),
                        key=lambda c: c.iri):
        as_of = _date_text(_lexical(claim.as_of))
        issued = [d for d in (_date_text(o) for s in claim.sources
                              for o in context.objects(s, DCTERMS_ISSUED)) if d]
        if not as_of or not issued or len(issued) < len(claim.sources):
            continue
        latest = max(issued)
        common = min(len(as_of), len(latest))
        if as_of[:common] > latest[:common]:
            report.add("as-of-after-source",
                       f"{short(claim.iri)} is as of {as_of}, after its latest source was published ({latest})",
                       fix=("the as-of date is the date the source gives for the fact (or its publication date), "
                            f"not the date you edited the file: use {latest} or earlier, or drop hpc:asOf"),
                       file=parsed.display, line=parsed.line_of_iri(claim.iri), focus=claim.iri)


def check_references(context: GraphContext, report: CheckReport) -> set[str]:
    """Every entity the contribution refers to that no file defines, once each, with where to add it and the
    nearest defined entity of its kind; returns them, so the shape violations they cause are not repeated."""
    undefined: set[str] = set()
    vocab = vocabulary(context.project.ontology_dir)
    for parsed in context.graphs.values():
        properties = {q.subject.value: q.object.value for q in parsed.quads if q.predicate.value == hpc("property")}
        for quad in parsed.quads:
            iri = quad.object.value
            if not isinstance(quad.object, ox.NamedNode) or iri in undefined or not is_reference(iri) \
                    or context.defined(iri):
                continue
            undefined.add(iri)
            found = undefined_reference(iri, context.same_kind(iri), vocab, predicate=quad.predicate.value,
                                        claim_property=properties.get(quad.subject.value))
            report.add("undefined-entity", found.message(vocab), fix=found.fix(), file=parsed.display,
                       line=parsed.line_of_iri(iri, statement=False), focus=iri,
                       details={"expected": found.expected, "suggestions": list(found.suggestions)})
    return undefined


def _check_shapes(context: GraphContext, report: CheckReport, baseline_fn, undefined: set[str]) -> None:
    mentioned: dict[str, ParsedFile] = {}
    defined: set[str] = set()
    for parsed in context.graphs.values():
        for quad in parsed.quads:
            for term in (quad.subject, quad.object):
                if isinstance(term, ox.NamedNode):
                    mentioned.setdefault(term.value, parsed)
            if quad.subject.value not in context.owner:
                defined.add(quad.subject.value)
    if not any(context.project.shapes_dir.glob("*.ttl")):
        report.notes.append("shapes/ holds no shapes yet, so no SHACL rules were checked.")
        return
    result = validate(context.store, project=context.project)
    # A redefined entity is reported once, as redefines-entity: the violations it causes follow from it.
    redefined = {p.focus for p in report.problems if p.code == "redefines-entity"}
    # A reference to an undefined entity is reported once, as undefined-entity, not as each rule it breaks.
    result.violations = [v for v in result.violations if v.value not in undefined and v.focus not in undefined]
    relevant = [v for v in result.violations if v.focus in mentioned and v.focus not in redefined]
    outside = [v for v in relevant if v.focus not in defined]
    if outside and baseline_fn is not None:
        before = {_key(v) for v in baseline_fn()}
        relevant = [v for v in relevant if v.focus in defined or _key(v) not in before]
    # A value can break a fact the build derives from it (a total over a site): the derived claim is in no
    # file, so it is reported on the contribution's input it was derived from, when it is new with this file.
    derived = [v for v in result.violations if v.focus not in mentioned and v.focus not in redefined]
    if derived and baseline_fn is not None:
        before = {_key(v) for v in baseline_fn()}
        for v in (v for v in derived if _key(v) not in before):
            inputs = [i for i in context.inputs_of(v.focus) if i in mentioned] or list(mentioned)
            parsed = mentioned[inputs[0]]
            report.add("shape-violation", f"{short(v.focus)}, which the build derives from {short(inputs[0])}: "
                       f"[{v.rule}] {v.message}", fix="check the value this file gives; the derived fact "
                       "breaks a rule once it is added", file=parsed.display, line=parsed.line_of_iri(inputs[0]),
                       focus=v.focus, details={"rule": v.rule, "path": v.path, "value": v.value})
    for v in relevant:
        parsed = mentioned[v.focus]
        detail = [f"property {short(v.path)}" if v.path else "", f"value {short(v.value)}" if v.value else ""]
        detail_text = ", ".join(d for d in detail if d)
        report.add("shape-violation" if v.severity == "Violation" else "shape-warning",
                   f"{short(v.focus)}: [{v.rule}] {v.message}" + (f" ({detail_text})" if detail_text else ""),
                   fix="see the rule in shapes/ and the example in CONTRIBUTING.md",
                   file=parsed.display, line=parsed.line_of_iri(v.focus, statement=v.focus in defined),
                   focus=v.focus, details={"rule": v.rule, "path": v.path, "value": v.value})


def _key(v: Violation) -> tuple:
    return (v.rule, v.focus, v.path, v.value, v.message)
