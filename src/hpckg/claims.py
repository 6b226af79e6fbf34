"""The claims toolkit: read claims, labels and IRI locations from the graph, and write claims as quads.

Every fact in hpckg is an `hpc:Claim` (docs/decisions/20261129-claim-model.md). This module is the one
place that knows what a claim looks like:

- `Claim`, the record, and `read_claims(store, ...)`, its reader (`claim_triples`, the one query the
  pages' readers share);
- `make_claim(...)` and `claim_quads(claim, graph=...)`, the builder importers and the verifier emit
  through: Python values in (hpckg.values), pyoxigraph quads out (never Turtle text), with claim IRIs minted by the
  decision's rule (the claim's slug starts with its entity's slug); `entity_quads`, `source_quads` and
  `source_check_quads` write the entities and sources claims point at and the verifier's checks;
- `shorten` (defined in hpckg.namespaces, with the prefixes; querytext and vocabulary, which the store
  imports, take it from there), `labels`/`label` and `find_iri`/`line_of`, which reports and pages use to show IRIs.

The writing path is plain functions over dataclasses and pyoxigraph terms (no rdflib, no SPARQL), because
importers emit millions of triples through it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import pyoxigraph as ox

from hpckg import terms as t
from hpckg.names import SLUG_RE, slugify
from hpckg.namespaces import ENTITY_KINDS, PREFIXES, entity, hpc
from hpckg.namespaces import shorten as shorten
from hpckg.values import AsOf, Iri, Value, parse_date, term, value_of

if TYPE_CHECKING:
    from hpckg.store import GraphStore

# --- The claim record and its one reader -----------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """Where in one source a claim was read (an hpc:Reference, as a Wikidata reference): the source (an IRI
    or slug), a locator ("row 42", "June 2019 list, rank 7", "p. 3, Table 1"), the date it was retrieved, a
    short quote, and the source's own certainty verbatim ("Likely") next to the tier it was mapped to."""

    source: str
    locator: str | None = None
    retrieved: AsOf | None = None
    quote: str | None = None
    certainty: str | None = None
    key: str | None = None  # names the reference node (ref:<claim>-<key>) instead of its position; a claim
    #                         stated by several graphs (one per list edition) keys each graph's reference apart
    iri: str | None = None  # a reference node shared by many claims (every claim read from one row of a
    #                         list): claim_quads then writes only the link, reference_quads writes the node once


@dataclass(frozen=True)
class Claim:
    """One claim as the graph holds it; IRIs are full IRIs, values Python values (see `term`)."""

    iri: str
    about: str
    property: str
    tier: str
    value: Value | None = None
    bounds: Mapping[str, Value] = field(default_factory=dict)  # "minExclusive" -> 10000
    sources: tuple[str, ...] = ()
    as_of: AsOf | None = None
    basis: str | None = None
    rank: str | None = None  # absent means rank:normal
    precision: str | None = None
    note: str | None = None
    superseded_by: tuple[str, ...] = ()
    derived_from: tuple[str, ...] = ()  # a DerivedClaim's input claims
    derived: bool = False
    start: AsOf | None = None  # hpc:startTime (Wikidata P580)
    end: AsOf | None = None  # hpc:endTime (P582)
    point_in_time: AsOf | None = None  # hpc:pointInTime (P585)
    edition: str | None = None  # hpc:edition, an hpc:ListEdition IRI
    stated_as: str | None = None  # hpc:statedAs: the words the source printed for the value (Wikidata P1932)
    unknown: str | None = None  # "some-value" or "no-value" (hpc:SomeValueClaim / hpc:NoValueClaim)
    deprecation_reason: str | None = None  # a deprecation-reason: concept IRI
    references: tuple[Reference, ...] = ()  # written by claim_quads; read_claims does not read them back
    best: bool = False  # typed hpc:BestClaim by the build (rule 10): the value its entity's truthy triple gives

    @property
    def deprecated(self) -> bool:
        return self.rank == t.RANK_DEPRECATED

    @property
    def date(self) -> str:
        """The date the value refers to, as text: its point in time, else its start, else its as-of date
        ("" when undated)."""
        when = self.point_in_time or self.start or self.as_of
        return "" if when is None else str(when)


_CLAIM_FIELDS = {hpc("about"): "about", hpc("property"): "property", hpc("tier"): "tier",
                 hpc("value"): "value", hpc("asOf"): "as_of", hpc("basis"): "basis", hpc("rank"): "rank",
                 hpc("precision"): "precision", t.SKOS_NOTE: "note", hpc("startTime"): "start",
                 hpc("endTime"): "end", hpc("pointInTime"): "point_in_time", hpc("edition"): "edition",
                 hpc("statedAs"): "stated_as",
                 hpc("deprecationReason"): "deprecation_reason"}
_DATE_FIELDS = ("as_of", "start", "end", "point_in_time")
_CLAIM_LISTS = {t.PROV_HAD_PRIMARY_SOURCE: "sources", hpc("supersededBy"): "superseded_by",
                t.PROV_WAS_DERIVED_FROM: "derived_from"}
_BOUND_IRIS = {hpc(name): name for name in t.BOUNDS}


def read_claims(store: GraphStore, *, about: Iterable[str] | None = None, iris: Iterable[str] | None = None,
                types: Iterable[str] = t.CLAIM_TYPES) -> list[Claim]:
    """The claims about the given entities, or the given claims, or (neither given) every claim in the
    store, sorted by (about, property, IRI). Derived claims are included (`derived=True`); `types` as for
    claim_triples (EVERY_CLAIM_TYPE: a claim typed only as a some-value claim too)."""
    rows = claim_triples(store, about=about, iris=iris, types=types)
    return sorted((claim_from_triples(iri, fields) for iri, fields in rows.items()),
                  key=lambda c: (c.about, c.property, c.iri))


# Every class of claim the ontology has (hpc:Claim and its subclasses): a claim typed only as a some-value
# claim is a claim too. read_claims keeps to the two a claim is stated as (t.CLAIM_TYPES).
EVERY_CLAIM_TYPE = frozenset({t.CLAIM, t.DERIVED_CLAIM, t.SOME_VALUE_CLAIM, t.NO_VALUE_CLAIM, t.BEST_CLAIM})


def claim_triples(store: GraphStore, *, about: Iterable[str] | None = None, iris: Iterable[str] | None = None,
                  types: Iterable[str] = t.CLAIM_TYPES) -> dict[str, dict[str, list[ox.NamedNode | ox.Literal]]]:
    """Every triple of the claims (of one of `types`) about the given entities, or of the given claims, or
    (neither given) of every claim: {claim IRI: {predicate IRI: [objects]}}, the claims' one reading query,
    which `read_claims` makes its records from. One scan of each claim's
    triples: a pattern per field, as OPTIONALs, was one index lookup per field and claim (5x slower)."""
    if about is not None and iris is not None:
        raise ValueError("give about= or iris=, not both")
    selected = about if about is not None else iris
    batches = [None] if selected is None else list(_batches(list(dict.fromkeys(selected)), 500))
    kinds = ", ".join(f"<{kind}>" for kind in sorted(types))
    rows: dict[str, dict[str, list]] = {}
    for batch in batches:
        if batch == []:
            continue
        values = "" if batch is None else (
            f"VALUES ?{'about' if about is not None else 'c'} {{ {' '.join(iri_ref(i) for i in batch)} }}")
        # The claim types as a FILTER, not a VALUES: joined with a VALUES of claims, Oxigraph read every
        # claim's type first (200 claims of a TOP500 edition's source page: 3.9 s, now 0.02 s).
        result = store.query(f"""
            SELECT DISTINCT ?c ?p ?o WHERE {{
              {values} ?c <{hpc('about')}> ?about ; a ?type . FILTER (?type IN ({kinds}))
              ?c ?p ?o }}""", prefixes=False)
        for row in result:
            fields = rows.setdefault(row["c"].value, {})
            fields.setdefault(row["p"].value, []).append(row["o"])
    return rows


def claim_from_triples(iri: str, fields: Mapping[str, Sequence[ox.NamedNode | ox.Literal]]) -> Claim:
    """The Claim stated by these triples of `iri` ({predicate IRI: [objects]}), for callers that gather a
    claim's triples themselves (from one file's quads, say) rather than through `read_claims`."""
    single: dict[str, object] = {}
    for predicate, name in _CLAIM_FIELDS.items():
        found = sorted(fields.get(predicate, []), key=str)
        if not found:
            continue
        if name == "note":
            single[name] = " ".join(sorted(n.value for n in found))
        elif name == "value" or name in _DATE_FIELDS:
            single[name] = value_of(found[0])
        else:
            single[name] = found[0].value
    lists = {name: tuple(sorted({o.value for o in fields.get(predicate, [])}))
             for predicate, name in _CLAIM_LISTS.items()}
    bounds = {name: value_of(fields[p][0]) for p, name in _BOUND_IRIS.items() if p in fields}
    types = {o.value for o in fields.get(t.RDF_TYPE, [])}
    derived = t.DERIVED_CLAIM in types
    unknown = "some-value" if t.SOME_VALUE_CLAIM in types else "no-value" if t.NO_VALUE_CLAIM in types else None
    return Claim(iri=iri, about=str(single.pop("about", "")), property=str(single.pop("property", "")),
                 tier=str(single.pop("tier", "")), bounds=bounds, derived=derived, unknown=unknown,
                 best=t.BEST_CLAIM in types, **single, **lists)


# --- The builder: claims, entities and sources as quads --------------------------------------------


def _ref(ref: str, kind: str) -> str:
    """A full IRI, or the slug of an entity of `kind`."""
    return ref if ref.startswith(("http://", "https://", "urn:")) else entity(kind, ref)


def _concept(ref: str | None, namespace: str) -> str | None:
    """A full IRI, or the name of a concept in the scheme at `namespace` ("reported" -> tier:reported)."""
    if ref is None:
        return None
    return ref if ref.startswith(("http://", "https://")) else namespace + ref


def _property(ref: str) -> str:
    return ref if ref.startswith(("http://", "https://")) else hpc(ref)


def slug_of(iri: str) -> str:
    """The slug an hpckg IRI ends with: .../id/system/kalos -> kalos."""
    return iri.rstrip("/").rsplit("/", 1)[-1]


@lru_cache(maxsize=1024)
def _kebab_property(property: str) -> str:
    """rmaxTflops -> rmax-tflops (a property's part of a claim IRI); cached: importers mint millions."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", _property(property).rsplit("#", 1)[-1].rsplit("/", 1)[-1]).lower()


@lru_cache(maxsize=4096)
def _qualifier_slug(qualifier: str) -> str:
    return slugify(qualifier)


def claim_iri(about: str, property: str, qualifier: str | None = None) -> str:
    """The claim IRI the decision's rule gives: claim:<entity slug>-<property in kebab case>[-<qualifier>],
    such as claim:kalos-accelerator-quantity. The same arguments always mint the same IRI, so re-running
    an import rewrites its claims instead of duplicating them; give a qualifier (a source's slug, a date)
    when one entity has several claims of a property."""
    parts = [slug_of(about).lower(), _kebab_property(property)]
    if qualifier:
        parts.append(_qualifier_slug(qualifier))
    slug = "-".join(parts)
    if not SLUG_RE.match(slug):
        raise ValueError(f"cannot mint a claim IRI from {about!r}, {property!r}, {qualifier!r}: {slug!r} is "
                         "not a slug (lowercase ASCII letters, digits and single hyphens)")
    return entity("claim", slug)


def make_claim(about: str, property: str, value: Value | None = None, *, tier: str,
               sources: str | Sequence[str] = (), bounds: Mapping[str, Value] | None = None,
               as_of: str | AsOf | None = None, basis: str | None = None, rank: str | None = None,
               precision: str | None = None, note: str | None = None, superseded_by: Sequence[str] = (),
               qualifier: str | None = None, iri: str | None = None,
               start: str | AsOf | None = None, end: str | AsOf | None = None,
               point_in_time: str | AsOf | None = None, edition: str | None = None,
               references: Sequence[Reference] = (), unknown: str | None = None,
               deprecation_reason: str | None = None, stated_as: str | None = None) -> Claim:
    """A claim that `about` (an entity IRI) has `property` (an ontology property IRI or its local name,
    "quantity") equal to `value`, or within `bounds` ({"minExclusive": 10000}).

    `tier`, `basis`, `rank` and `precision` are concept IRIs or their names ("reported", "operator-stated",
    "preferred", "approximate"); `sources` are source IRIs or slugs, one or more; `as_of` a date, YearMonth,
    Year or "yyyy[-mm[-dd]]". The IRI is minted by `claim_iri` unless given.

    Qualifiers (docs/decisions/20261130-claims-over-time-identity-references.md): `start`/`end` bound the
    interval the value held (Wikidata P580/P582), `point_in_time` dates a measurement or list entry (P585)
    and `edition` names the hpc:ListEdition it is an entry of (an IRI or a dataset slug). `references`
    detail where in each source the value was read (their sources count as `sources` too); `stated_as` keeps
    the words a source printed for an entity value (Wikidata P1932: a site as one list edition named it). `unknown` is
    "some-value" (a value exists, no source names it) or "no-value" (there is none), with no value or
    bounds. A deprecated claim gives `superseded_by` or a `deprecation_reason` ("refuted", "superseded",
    "unlikely", "duplicate")."""
    sources = (sources,) if isinstance(sources, str) else tuple(sources)
    references = tuple(references)
    sources = tuple(dict.fromkeys((*sources, *(r.source for r in references))))
    if not sources:
        raise ValueError("a claim needs at least one source")
    bounds = dict(bounds or {})
    if unknown is not None:
        if unknown not in ("some-value", "no-value"):
            raise ValueError(f"unknown= is 'some-value' or 'no-value', not {unknown!r}")
        if value is not None or bounds:
            raise ValueError("a some-value or no-value claim has no value and no bounds")
    elif value is None and not bounds:
        raise ValueError("a claim needs a value or a bound (or unknown='some-value' / 'no-value')")
    unknown_bounds = set(bounds) - set(t.BOUNDS)
    if unknown_bounds:
        raise ValueError(f"unknown bound {', '.join(sorted(unknown_bounds))}; bounds are {', '.join(t.BOUNDS)}")
    return Claim(
        iri=iri or claim_iri(about, property, qualifier), about=about, property=_property(property),
        tier=_concept(tier, t.TIER) or "", value=value, bounds=bounds,
        sources=tuple(sorted(_ref(s, "source") for s in sources)),
        as_of=None if as_of is None else parse_date(as_of),
        basis=_concept(basis, t.BASIS), rank=_concept(rank, t.RANK), precision=_concept(precision, t.PRECISION),
        note=note, superseded_by=tuple(sorted(superseded_by)),
        start=None if start is None else parse_date(start), end=None if end is None else parse_date(end),
        point_in_time=None if point_in_time is None else parse_date(point_in_time),
        edition=None if edition is None else _ref(edition, "dataset"), unknown=unknown, stated_as=stated_as,
        deprecation_reason=_concept(deprecation_reason, t.DEPRECATION_REASON),
        references=tuple(Reference(_ref(r.source, "source"), r.locator,
                                   None if r.retrieved is None else parse_date(r.retrieved), r.quote, r.certainty,
                                   r.key, r.iri)
                         for r in references))


def some_value_claim(about: str, property: str, **kwargs) -> Claim:
    """"The operator is not named": a claim that `property` has a value no source names (Wikidata's some
    value). Takes make_claim's keyword arguments (tier, sources, note...)."""
    return make_claim(about, property, None, unknown="some-value", **kwargs)


def no_value_claim(about: str, property: str, **kwargs) -> Claim:
    """"No location given" when the source says there is none: a claim that `property` has no value
    (Wikidata's no value). Takes make_claim's keyword arguments."""
    return make_claim(about, property, None, unknown="no-value", **kwargs)


EXTERNAL_ID_PROPERTIES = {"top500SystemId", "top500SiteId", "epochClusterName", "wikidataId"}


def external_id_claim(about: str, property: str, identifier: str, **kwargs) -> Claim:
    """An external identifier as a sourced claim: `property` is an hpc:ExternalIdProperty ("top500SystemId",
    "top500SiteId", "epochClusterName", "wikidataId" or the IRI of another), `identifier` its text. The
    ontology's hpc:formatterURL turns it into a link. Takes make_claim's keyword arguments; the claim IRI's
    qualifier defaults to the identifier so one entity may carry several."""
    if not property.startswith(("http://", "https://")) and property not in EXTERNAL_ID_PROPERTIES:
        raise ValueError(f"{property!r} is not an external-identifier property "
                         f"({', '.join(sorted(EXTERNAL_ID_PROPERTIES))})")
    kwargs.setdefault("qualifier", identifier)
    return make_claim(about, property, str(identifier), **kwargs)


def same_machine_claim(about: str, other: str, **kwargs) -> Claim:
    """Two system records of one machine (hpc:sameMachineAs), with the evidence as sources and the
    confidence as tier; never an owl:sameAs merge. Takes make_claim's keyword arguments."""
    kwargs.setdefault("qualifier", slug_of(_ref(other, "system")))
    return make_claim(_ref(about, "system"), "sameMachineAs", Iri(_ref(other, "system")), **kwargs)


def list_edition_quads(slug: str, *, label: str, edition_of: str, issued: str | AsOf, graph: str,
                       language: str = "en") -> list[ox.Quad]:
    """An hpc:ListEdition (ds:<slug>), such as the June 2019 TOP500: its label, the list it is an edition
    of (a dataset IRI or slug) and its date. Claims name it with make_claim(..., edition=...)."""
    g, s = ox.NamedNode(graph), ox.NamedNode(entity("dataset", slug))
    return [ox.Quad(s, _P["type"], ox.NamedNode(hpc("ListEdition")), g),
            ox.Quad(s, _P["label"], ox.Literal(label, language=language), g),
            ox.Quad(s, _P["slug"], ox.Literal(slug), g),
            ox.Quad(s, ox.NamedNode(hpc("editionOf")), ox.NamedNode(_ref(edition_of, "dataset")), g),
            ox.Quad(s, _P["issued"], term(parse_date(issued)), g)]


_P = {name: ox.NamedNode(iri) for name, iri in (
    ("type", t.RDF_TYPE), ("label", t.RDFS_LABEL), ("alt", t.SKOS_ALT_LABEL), ("hidden", t.SKOS_HIDDEN_LABEL),
    ("note", t.SKOS_NOTE),
    ("slug", hpc("slug")), ("about", hpc("about")), ("property", hpc("property")), ("value", hpc("value")),
    ("tier", hpc("tier")), ("asOf", hpc("asOf")), ("basis", hpc("basis")), ("rank", hpc("rank")),
    ("precision", hpc("precision")), ("supersededBy", hpc("supersededBy")),
    ("source", t.PROV_HAD_PRIMARY_SOURCE), ("derivedFrom", t.PROV_WAS_DERIVED_FROM),
    ("title", t.DCTERMS_TITLE), ("creator", t.DCTERMS_CREATOR), ("publisher", t.DCTERMS_PUBLISHER),
    ("issued", t.DCTERMS_ISSUED), ("url", t.SCHEMA_URL), ("sourceKind", hpc("sourceKind")),
    ("arxivId", hpc("arxivId")), ("componentOf", hpc("componentOf")), ("role", hpc("role")),
    ("used", t.PROV_USED), ("endedAtTime", t.PROV_ENDED_AT_TIME), ("associatedWith", t.PROV_WAS_ASSOCIATED_WITH),
    ("checkedSystem", hpc("checkedSystem")), ("checkedBy", hpc("checkedBy")),
    ("checkResult", hpc("checkResult")), ("termFound", hpc("termFound")), ("countFound", hpc("countFound")),
    ("startTime", hpc("startTime")), ("endTime", hpc("endTime")), ("pointInTime", hpc("pointInTime")),
    ("edition", hpc("edition")), ("deprecationReason", hpc("deprecationReason")), ("statedAs", hpc("statedAs")),
    ("reference", hpc("reference")), ("statedIn", hpc("statedIn")), ("locator", hpc("locator")),
    ("retrieved", hpc("retrieved")), ("quote", hpc("quote")), ("sourceCertainty", hpc("sourceCertainty")))}
_P.update({name: ox.NamedNode(hpc(name)) for name in t.BOUNDS})
_CLAIM_CLASS, _DERIVED_CLASS = ox.NamedNode(t.CLAIM), ox.NamedNode(t.DERIVED_CLAIM)


@lru_cache(maxsize=65536)
def _node(iri: str) -> ox.NamedNode:
    """The node of an IRI claims keep repeating (a graph, a property, a tier, a source), made once."""
    return ox.NamedNode(iri)


def claim_quads(claim: Claim, *, graph: str, language: str = "en") -> list[ox.Quad]:
    """The quads that state `claim` in the named graph `graph` (its note in `language`)."""
    g, s = _node(graph), ox.NamedNode(claim.iri)
    quads = [ox.Quad(s, _P["type"], _DERIVED_CLASS if claim.derived else _CLAIM_CLASS, g),
             ox.Quad(s, _P["about"], ox.NamedNode(claim.about), g),
             ox.Quad(s, _P["property"], _node(claim.property), g),
             ox.Quad(s, _P["tier"], _node(claim.tier), g)]
    if claim.value is not None:
        quads.append(ox.Quad(s, _P["value"], term(claim.value), g))
    for name, bound in claim.bounds.items():
        quads.append(ox.Quad(s, _P[name], term(bound), g))
    for name, iri in (("basis", claim.basis), ("rank", claim.rank), ("precision", claim.precision)):
        if iri is not None:
            quads.append(ox.Quad(s, _P[name], _node(iri), g))
    for name, date in (("asOf", claim.as_of), ("startTime", claim.start), ("endTime", claim.end),
                       ("pointInTime", claim.point_in_time)):
        if date is not None:
            quads.append(ox.Quad(s, _P[name], term(date), g))
    if claim.edition is not None:
        quads.append(ox.Quad(s, _P["edition"], _node(claim.edition), g))
    if claim.stated_as is not None:
        quads.append(ox.Quad(s, _P["statedAs"], ox.Literal(claim.stated_as), g))
    if claim.deprecation_reason is not None:
        quads.append(ox.Quad(s, _P["deprecationReason"], ox.NamedNode(claim.deprecation_reason), g))
    if claim.unknown is not None:
        kind = t.SOME_VALUE_CLAIM if claim.unknown == "some-value" else t.NO_VALUE_CLAIM
        quads.append(ox.Quad(s, _P["type"], ox.NamedNode(kind), g))
    for number, reference in enumerate(claim.references, start=1):
        if reference.iri is not None:
            quads.append(ox.Quad(s, _P["reference"], ox.NamedNode(reference.iri), g))
        else:
            quads += reference_quads(claim.iri, reference.key or number, reference, graph=graph, language=language)
    if claim.note:
        quads.append(ox.Quad(s, _P["note"], ox.Literal(claim.note, language=language), g))
    for name, iris in (("source", claim.sources), ("supersededBy", claim.superseded_by),
                       ("derivedFrom", claim.derived_from)):
        quads += [ox.Quad(s, _P[name], _node(iri), g) for iri in iris]
    return quads


def reference_iri(claim_iri: str, number: int | str) -> str:
    """ref:<claim slug>-<n>, the IRI of a claim's n-th reference (or of its reference keyed `number`)."""
    return entity("reference", f"{slug_of(claim_iri)}-{number}")


def reference_quads(claim_iri: str | None, number: int | str, reference: Reference, *, graph: str,
                    language: str = "en") -> list[ox.Quad]:
    """The claim's hpc:reference to an hpc:Reference node and that node's details (with claim_iri None and
    reference.iri given: only the node, which claims share)."""
    g = ox.NamedNode(graph)
    s = ox.NamedNode(reference.iri or reference_iri(claim_iri or "", number))
    quads = [] if claim_iri is None else [ox.Quad(ox.NamedNode(claim_iri), _P["reference"], s, g)]
    quads += [ox.Quad(s, _P["type"], ox.NamedNode(t.REFERENCE), g),
             ox.Quad(s, _P["statedIn"], ox.NamedNode(_ref(reference.source, "source")), g)]
    if reference.locator:
        quads.append(ox.Quad(s, _P["locator"], ox.Literal(reference.locator), g))
    if reference.retrieved is not None:
        quads.append(ox.Quad(s, _P["retrieved"], term(parse_date(reference.retrieved)), g))
    if reference.quote:
        quads.append(ox.Quad(s, _P["quote"], ox.Literal(reference.quote, language=language), g))
    if reference.certainty:
        quads.append(ox.Quad(s, _P["sourceCertainty"], ox.Literal(reference.certainty), g))
    return quads


# The class each entity kind's IRIs are typed with (a site may be typed hpc:Datacenter instead).
ENTITY_CLASSES = {"system": hpc("System"), "site": hpc("Site"), "org": hpc("Organisation"),
                  "part": hpc("PartModel"), "component": hpc("Component"), "country": hpc("Country"),
                  "dataset": hpc("Dataset"), "software": hpc("Software"), "source": hpc("Source")}


def entity_quads(kind: str, slug: str, *, label: str | None, graph: str, alt_labels: Iterable[str] = (),
                 hidden_labels: Iterable[str] = (), rdf_type: str | None = None, component_of: str | None = None,
                 role: str | None = None, language: str = "en") -> list[ox.Quad]:
    """The identity triples of an entity: its type, rdfs:label, skos:altLabels, skos:hiddenLabels (names to
    find it by that no page shows, such as "TOP500 system 177232") and hpc:slug (and, for a component,
    hpc:componentOf its system and hpc:role, a role: concept IRI or name). `label` None writes no rdfs:label:
    the build derives it (queries/rules/12-display-label.rq)."""
    if kind not in ENTITY_KINDS:
        raise ValueError(f"unknown entity kind {kind!r}; expected one of {', '.join(ENTITY_KINDS)}")
    g, s = ox.NamedNode(graph), ox.NamedNode(entity(kind, slug))
    quads = [ox.Quad(s, _P["type"], ox.NamedNode(rdf_type or ENTITY_CLASSES[kind]), g),
             ox.Quad(s, _P["slug"], ox.Literal(slug), g)]
    if label is not None:
        quads.append(ox.Quad(s, _P["label"], ox.Literal(label, language=language), g))
    quads += [ox.Quad(s, _P["alt"], ox.Literal(alt, language=language), g) for alt in dict.fromkeys(alt_labels)]
    quads += [ox.Quad(s, _P["hidden"], ox.Literal(name, language=language), g)
              for name in dict.fromkeys(hidden_labels)]
    if component_of is not None:
        quads.append(ox.Quad(s, _P["componentOf"], ox.NamedNode(_ref(component_of, "system")), g))
    if role is not None:
        quads.append(ox.Quad(s, _P["role"], ox.NamedNode(_concept(role, PREFIXES["role"]) or ""), g))
    return quads


def source_quads(slug: str, *, title: str, kind: str, graph: str, url: str | None = None,
                 creators: Iterable[str] = (), publisher: str | None = None,
                 issued: str | AsOf | None = None, arxiv_id: str | None = None,
                 language: str = "en") -> list[ox.Quad]:
    """An hpc:Source: its title, kind (a source-kind: concept IRI or name such as "paper"), where to find it
    (url and/or arxiv_id), its creators and publisher (organisation IRIs or slugs) and when it was issued."""
    g, s = ox.NamedNode(graph), ox.NamedNode(entity("source", slug))
    quads = [ox.Quad(s, _P["type"], ox.NamedNode(ENTITY_CLASSES["source"]), g),
             ox.Quad(s, _P["title"], ox.Literal(title, language=language), g),
             ox.Quad(s, _P["sourceKind"], ox.NamedNode(_concept(kind, t.SOURCE_KIND) or ""), g)]
    if url is not None:
        quads.append(ox.Quad(s, _P["url"], ox.NamedNode(url), g))
    if arxiv_id is not None:
        quads.append(ox.Quad(s, _P["arxivId"], ox.Literal(arxiv_id), g))
    quads += [ox.Quad(s, _P["creator"], ox.NamedNode(_ref(c, "org")), g) for c in dict.fromkeys(creators)]
    if publisher is not None:
        quads.append(ox.Quad(s, _P["publisher"], ox.NamedNode(_ref(publisher, "org")), g))
    if issued is not None:
        quads.append(ox.Quad(s, _P["issued"], term(parse_date(issued)), g))
    return quads


def source_check_quads(slug: str, *, source: str, system: str, result: str, ended: str | AsOf | dt.datetime,
                       software: str, checked_by: str, graph: str, terms_found: Iterable[str] = (),
                       count_found: int | Iterable[int] | None = None, label: str | None = None,
                       language: str = "en") -> list[ox.Quad]:
    """An hpc:SourceCheck, the verifier's record of re-reading `source` for `system` (IRIs or slugs):
    its result (a check-result: concept IRI or name such as "names-system"), when it ended, the software
    that ran it and the command (`checked_by`), and the terms and counts (one or several) it found."""
    g, s = ox.NamedNode(graph), ox.NamedNode(entity("check", slug))
    quads = [ox.Quad(s, _P["type"], ox.NamedNode(hpc("SourceCheck")), g),
             ox.Quad(s, _P["used"], ox.NamedNode(_ref(source, "source")), g),
             ox.Quad(s, _P["checkedSystem"], ox.NamedNode(_ref(system, "system")), g),
             ox.Quad(s, _P["endedAtTime"], term(ended if isinstance(ended, dt.datetime) else parse_date(ended)), g),
             ox.Quad(s, _P["associatedWith"], ox.NamedNode(_ref(software, "software")), g),
             ox.Quad(s, _P["checkedBy"], ox.Literal(checked_by), g),
             ox.Quad(s, _P["checkResult"], ox.NamedNode(_concept(result, PREFIXES["checkresult"]) or ""), g)]
    if label is not None:
        quads.append(ox.Quad(s, _P["label"], ox.Literal(label, language=language), g))
    quads += [ox.Quad(s, _P["termFound"], ox.Literal(found), g) for found in dict.fromkeys(terms_found)]
    counts = [] if count_found is None else [count_found] if isinstance(count_found, int) else count_found
    quads += [ox.Quad(s, _P["countFound"], term(count), g) for count in dict.fromkeys(counts)]
    return quads


# --- Showing IRIs: prefixed names, labels, and where a file writes them ------------------------------


_NOT_IN_IRIREF = frozenset('<>"{}|^`\\ \n\t')


def is_iri_ref(text: str) -> bool:
    """Whether `text` can be written as a SPARQL IRIREF (an absolute http(s) IRI with no escaping characters)."""
    return bool(text) and text.startswith(("http://", "https://")) and not _NOT_IN_IRIREF.intersection(text)


def iri_ref(iri: str) -> str:
    """An IRI as a SPARQL IRIREF, refusing characters that could escape it."""
    if not iri or _NOT_IN_IRIREF.intersection(iri):
        raise ValueError(f"not a usable IRI: {iri!r}")
    return f"<{iri}>"


def _batches(items: list, size: int) -> Iterable[list]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def labels(store: GraphStore, iris: Iterable[str]) -> dict[str, str]:
    """The label of each IRI that has one: its English (or language-less) rdfs:label, else skos:prefLabel,
    else a label in another language, else an alias (skos:altLabel).
    Values that are not IRIs (a claim's text value among them) have no label and are passed over."""
    found: dict[str, str] = {}
    for batch in _batches([i for i in dict.fromkeys(iris) if is_iri_ref(i)], 500):
        # English or untagged rdfs:label, else skos:prefLabel, else a label in any language, else an alias.
        rows = store.query(f"""
            SELECT ?s ?label WHERE {{
              VALUES ?s {{ {' '.join(iri_ref(i) for i in batch)} }}
              {{ ?s <{t.RDFS_LABEL}> ?label BIND(1 AS ?kind) }}
              UNION {{ ?s <{t.SKOS_PREF_LABEL}> ?label BIND(2 AS ?kind) }}
              UNION {{ ?s <{t.SKOS_ALT_LABEL}> ?label BIND(4 AS ?kind) }}
              BIND (IF(lang(?label) = "" || langMatches(lang(?label), "en"), ?kind, 3) AS ?order)
            }} ORDER BY ?s ?order ?kind ?label""", prefixes=False)
        for row in rows:
            found.setdefault(row["s"].value, row["label"].value)
    return found


def label(store: GraphStore, iri: str) -> str:
    """The IRI's label, else the last segment of the IRI."""
    return labels(store, [iri]).get(iri) or iri.rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1]


class IriLines(NamedTuple):
    """Where a Turtle text writes an IRI: the first line starting a statement about it, and the first line
    mentioning it at all (1-based; None when there is none)."""

    statement: int | None
    mention: int | None


def find_iri(iri: str, lines: Iterable[str], *, prefixes: Mapping[str, str] | None = None) -> IriLines:
    """Find `iri` in Turtle lines, written in full (<...>) or prefixed. With the file's `prefixes` only
    those prefixed names count; without, any prefix followed by the IRI's last segment does."""
    forms = [re.escape(f"<{iri}>")]
    if prefixes is None:
        local = re.split(r"[#/]", iri)[-1]
        forms.append(rf"(?<![\w:-])[\w-]*:{re.escape(local)}(?![\w-])")
    else:
        for name, ns in prefixes.items():
            local = iri[len(ns):]
            if iri.startswith(ns) and re.fullmatch(r"[\w.-]*", local):
                forms.append(rf"(?<![\w:-]){re.escape(name)}:{re.escape(local)}(?![\w-])")
    anywhere = re.compile("|".join(forms))
    starts = re.compile(r"^\s*(?:" + "|".join(forms) + ")")
    mention = None
    for number, text in enumerate(lines, start=1):
        if text.lstrip().startswith("#"):
            continue
        if starts.search(text):
            return IriLines(number, mention or number)
        if mention is None and anywhere.search(text):
            mention = number
    return IriLines(None, mention)


def line_of(iri: str, path: Path | None) -> int | None:
    """The first line of a Turtle file that starts a statement about `iri`, or None."""
    if path is None:
        return None
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            return find_iri(iri, handle).statement
    except OSError:
        return None

