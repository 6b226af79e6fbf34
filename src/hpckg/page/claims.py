"""Reading claims, labels and ontology metadata with SPARQL, and formatting claimed values as figures.

Everything a page shows about a term (its label, unit, display order, which section it belongs in) comes
from the ontology in the store; nothing here hard-codes a label.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

import pyoxigraph as ox

from hpckg import numbers
from hpckg.claims import EVERY_CLAIM_TYPE, claim_triples, labels
from hpckg.namespaces import ONTOLOGY, hpc
from hpckg.page.model import ABSENT, Figure, Link, SourceLink, Tier
from hpckg.terms import (
    BASIS_MACHINE_GENERATED,
    BEST_CLAIM,
    BOUNDS,
    PRECISION_EXACT,
    PROV_HAD_PRIMARY_SOURCE,
    PROV_WAS_DERIVED_FROM,
    RANK_DEPRECATED,
    RANK_PREFERRED,
    RDF_TYPE,
    SKOS_NOTE,
    XSD,
    XSD_BOOLEAN,
    XSD_DECIMAL,
    XSD_DOUBLE,
)
from hpckg.values import INTEGER_TYPES

if TYPE_CHECKING:
    from hpckg.store import GraphStore

DECIMAL_TYPES = {XSD_DECIMAL, XSD_DOUBLE, XSD + "float"}
SOME_VALUE, NO_VALUE = hpc("SomeValueClaim"), hpc("NoValueClaim")
# A unit the ontology gives as "fraction" (between 0 and 1) is shown as a percentage.
FRACTION_UNIT = "fraction"


def iri_list(iris: Iterable[str]) -> str:
    """A SPARQL VALUES body for IRIs read from the store (never for user input)."""
    return " ".join(f"<{iri}>" for iri in dict.fromkeys(iris)
                    if iri and iri.startswith(("http://", "https://")) and not set(iri) & set('<> "{}|\\^`'))


def term_value(term: object) -> object:
    """A pyoxigraph term as a Python value: IRIs as strings, numbers as int/Decimal, other literals as text."""
    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.Literal):
        datatype = term.datatype.value if term.datatype is not None else ""
        try:
            if datatype in INTEGER_TYPES:
                return int(term.value)
            if datatype in DECIMAL_TYPES:
                return Decimal(term.value)
        except (ValueError, InvalidOperation):
            return term.value
        if datatype == XSD_BOOLEAN:
            return term.value in ("true", "1")
        return term.value
    return getattr(term, "value", None)


def select(store: GraphStore, sparql: str) -> list[dict[str, object]]:
    """Run a SELECT and return each solution as {variable: Python value}, unbound variables left out."""
    result = store.query(sparql)
    names = [variable.value for variable in result.variables]
    rows = []
    for solution in result:
        row = {}
        for name in names:
            term = solution[name]
            if term is not None:
                row[name] = term_value(term)
        rows.append(row)
    return rows


def format_number(value: object, *, unit: str = "") -> str:
    """'2,416' for integers, '58.89' for decimals (four significant digits, hpckg.numbers), '55.2' for a
    fraction 0.552; the number alone, in the unit it is held in."""
    if isinstance(value, Decimal) and unit == FRACTION_UNIT:
        value = value * 100
    return numbers.number(value)


def display_scale(claim: Claim, unit: str) -> numbers.Scale:
    """The unit a claim's figure is shown in: a rate in the prefix of its magnitude (its value's, else its
    first bound's), so that its value and its bounds read in one unit ('1.742 EFlop/s')."""
    magnitude = claim.value if isinstance(claim.value, int | Decimal) else next(iter(claim.bounds.values()), None)
    if unit == FRACTION_UNIT or isinstance(magnitude, bool) or not isinstance(magnitude, int | Decimal):
        return numbers.Scale(numbers.unit_label(unit))
    return numbers.column_unit([magnitude], unit)


@dataclass
class PropertyInfo:
    """What the ontology says about one claim property."""

    iri: str
    label: str
    unit: str = ""
    order: float = 1000.0
    classes: set[str] = field(default_factory=set)
    formatter_url: str | None = None  # hpc:formatterURL of an external-identifier property

    def is_a(self, local: str) -> bool:
        return hpc(local) in self.classes


def subclasses(store: GraphStore, root: str) -> set[str]:
    """`root` and every class below it by rdfs:subClassOf, the closure taken here from the ontology's few
    subclass triples: through Virtuoso 7, `?class rdfs:subClassOf* hpc:ClaimProperty` missed the subclasses,
    so pages read from it showed property names without their labels and units."""
    below: dict[str, set[str]] = {}
    for row in select(store, "SELECT ?sub ?super WHERE { ?sub rdfs:subClassOf ?super FILTER (isIRI(?sub)) }"):
        below.setdefault(str(row["super"]), set()).add(str(row["sub"]))
    found, todo = {root}, [root]
    while todo:
        for sub in below.get(todo.pop(), ()):
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


@dataclass
class Ontology:
    """The ontology terms pages need: claim properties, tiers, bound labels, the citation threshold."""

    properties: dict[str, PropertyInfo]
    tiers: dict[str, Tier]
    bound_labels: dict[str, str]
    threshold: Tier | None

    @property
    def lead_rank(self) -> int:
        return min((tier.rank for tier in self.tiers.values()), default=1)

    def prop(self, iri: str) -> PropertyInfo:
        return self.properties.get(iri) or PropertyInfo(iri, iri.removeprefix(ONTOLOGY))

    @classmethod
    def read(cls, store: GraphStore) -> Ontology:
        properties: dict[str, PropertyInfo] = {}
        for row in select(store, f"""
            SELECT ?p ?class ?label ?unit ?order ?formatter WHERE {{
              VALUES ?class {{ {iri_list(subclasses(store, hpc("ClaimProperty")))} }}
              ?p a ?class .
              OPTIONAL {{ ?p rdfs:label ?label FILTER (lang(?label) = "" || langMatches(lang(?label), "en")) }}
              OPTIONAL {{ ?p hpc:unit ?unit }}
              OPTIONAL {{ ?p hpc:displayOrder ?order }}
              OPTIONAL {{ ?p hpc:formatterURL ?formatter }}
            }}"""):
            iri = str(row["p"])
            info = properties.setdefault(iri, PropertyInfo(iri, str(row.get("label") or iri)))
            info.classes.add(str(row["class"]))
            info.classes.add(hpc("ClaimProperty"))  # an instance of any subclass is a claim property too
            if "unit" in row:
                info.unit = numbers.unit_label(str(row["unit"]))
            if "order" in row:
                info.order = float(row["order"])  # type: ignore[arg-type]
            if "formatter" in row:
                info.formatter_url = str(row["formatter"])
        tiers = {}
        for row in select(store, """
            SELECT ?tier ?label ?rank WHERE {
              ?tier skos:inScheme hpc:TierScheme ; hpc:tierRank ?rank .
              OPTIONAL { ?tier rdfs:label ?label FILTER (lang(?label) = "" || langMatches(lang(?label), "en")) }
            }"""):
            iri = str(row["tier"])
            tiers[iri] = Tier(iri, str(row.get("label") or iri.rsplit("/", 1)[-1]), int(row["rank"]))
        bound_labels = labels(store, [hpc(name) for name in BOUNDS])
        threshold_rows = select(store, "SELECT ?t WHERE { hpc:TierScheme hpc:citationThreshold ?t }")
        threshold = tiers.get(str(threshold_rows[0]["t"])) if threshold_rows else None
        return cls(properties, tiers, bound_labels, threshold)


@dataclass
class Claim:
    """One claim as read from the store, before formatting."""

    iri: str
    about: str
    property: str
    value: object = None
    bounds: dict[str, object] = field(default_factory=dict)
    tier: str | None = None
    basis: str | None = None
    rank: str | None = None
    as_of: str | None = None
    notes: list[str] = field(default_factory=list)
    precision: str | None = None
    sources: list[SourceLink] = field(default_factory=list)
    best: bool = False  # typed hpc:BestClaim by the build: the value of its entity and property
    start: str | None = None
    end: str | None = None
    point_in_time: str | None = None
    edition: str | None = None
    unknown: str | None = None  # "some-value" / "no-value"

    @property
    def deprecated(self) -> bool:
        return self.rank == RANK_DEPRECATED

    @property
    def date(self) -> str:
        """The date the value refers to: its point in time, else its start, else its as-of date."""
        return str(self.point_in_time or self.start or self.as_of or "")

    @property
    def sort_key(self) -> tuple:
        """Best claim first (the one the truthy triple and page header show), then preferred, then the
        current one (no end time), then the newest date; oldest last."""
        return (not self.best, self.rank != RANK_PREFERRED, self.end is not None, _descending(self.date),
                self.iri)


def _descending(text: str) -> tuple:
    return tuple(-ord(ch) for ch in text) + (1,)


def source_link(iri: str, url: str | None, title: str | None) -> SourceLink:
    host = ""
    if url:
        host = (urlsplit(url).hostname or "").removeprefix("www.")
    return SourceLink(iri=iri, url=url, host=host or title or iri.rsplit("/", 1)[-1], title=title)


def read_claims(store: GraphStore, entities: Iterable[str]) -> dict[str, list[Claim]]:
    """Every claim about the given entities (derived claims included), grouped by entity, with sources.

    The claims' triples come from the claims' one reading query (hpckg.claims.claim_triples). A derived
    claim has no primary source of its own: its sources are those of the claims it was derived from,
    followed through prov:wasDerivedFrom (successors)."""
    about = [iri for iri in dict.fromkeys(entities) if iri_list([iri])]
    if not about:
        return {}
    found = claim_triples(store, about=about, types=EVERY_CLAIM_TYPE)
    claims = {iri: claim for iri, fields in found.items() if (claim := _claim(iri, fields)) is not None}
    cited = {iri: {o.value for o in found[iri].get(PROV_HAD_PRIMARY_SOURCE, ())} for iri in claims}
    derived = {iri for iri in claims if found[iri].get(PROV_WAS_DERIVED_FROM)}
    if derived:
        inputs = successors(store, derived, (PROV_WAS_DERIVED_FROM,))
        upstream = {iri: reachable(inputs, iri) for iri in derived}
        primary: dict[str, set[str]] = {}
        for row in select(store, f"""
            SELECT ?claim ?source WHERE {{ VALUES ?claim {{ {iri_list(set().union(*upstream.values()))} }}
              ?claim prov:hadPrimarySource ?source }}"""):
            primary.setdefault(str(row["claim"]), set()).add(str(row["source"]))
        for iri, claims_upstream in upstream.items():
            cited[iri] |= set().union(*(primary.get(c, set()) for c in claims_upstream))
    described: dict[str, dict[str, str]] = {}
    if any(cited.values()):
        for row in select(store, f"""
            SELECT ?source ?url ?title WHERE {{
              VALUES ?source {{ {iri_list(set().union(*cited.values()))} }}
              OPTIONAL {{ ?source schema:url ?url }}
              OPTIONAL {{ ?source dcterms:title ?title }}
            }} ORDER BY ?source ?url ?title"""):
            described.setdefault(str(row["source"]), {k: str(v) for k, v in row.items() if k != "source"})
    for iri, claim in claims.items():
        claim.sources = [source_link(source, described.get(source, {}).get("url"),
                                     described.get(source, {}).get("title")) for source in sorted(cited[iri])]
    grouped: dict[str, list[Claim]] = {}
    for claim in sorted(claims.values(), key=lambda c: c.sort_key):
        grouped.setdefault(claim.about, []).append(claim)
    return grouped


def successors(store: GraphStore, starts: set[str], predicates: tuple[str, ...]) -> dict[str, set[str]]:
    """What each IRI reachable from `starts` through `predicates` points to by them ({iri: {next}}), read one
    step per query (derivations and company lineages are a step or two long), not as a property path: a
    server may evaluate a path from every subject, and Virtuoso 7 did not survive
    `(hpc:acquiredBy|hpc:renamedTo)+` from a VALUES list (its process ended)."""
    found: dict[str, set[str]] = {}
    step, asked = set(starts), set()
    union = " UNION ".join(f"{{ ?s <{predicate}> ?next }}" for predicate in predicates)
    while step:
        asked |= step
        for row in select(store, f"SELECT ?s ?next WHERE {{ VALUES ?s {{ {iri_list(step)} }} {union} }}"):
            found.setdefault(str(row["s"]), set()).add(str(row["next"]))
        step = {n for s in step for n in found.get(s, ())} - asked
    return found


def reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    """The IRIs one or more steps from `start` along `edges` (as `successors` gives them)."""
    seen: set[str] = set()
    todo = list(edges.get(start, ()))
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(edges.get(node, ()))
    return seen


def _claim(iri: str, fields: dict[str, list]) -> Claim | None:
    """The page's record of one claim from its triples (claim_triples); None for one without a property."""
    def first(predicate: str) -> object:
        terms = sorted(fields.get(predicate, ()), key=str)
        return term_value(terms[0]) if terms else None

    about, prop = first(hpc("about")), first(hpc("property"))
    if about is None or prop is None:
        return None
    types = {term.value for term in fields.get(RDF_TYPE, ())}
    return Claim(iri=iri, about=str(about), property=str(prop), value=first(hpc("value")),
                 bounds={name: first(hpc(name)) for name in BOUNDS if fields.get(hpc(name))},
                 tier=_str(first(hpc("tier"))), basis=_str(first(hpc("basis"))), rank=_str(first(hpc("rank"))),
                 as_of=_str(first(hpc("asOf"))), precision=_str(first(hpc("precision"))),
                 notes=sorted({term.value for term in fields.get(SKOS_NOTE, ())}),
                 best=BEST_CLAIM in types, start=_str(first(hpc("startTime"))), end=_str(first(hpc("endTime"))),
                 point_in_time=_str(first(hpc("pointInTime"))), edition=_str(first(hpc("edition"))),
                 unknown="some-value" if SOME_VALUE in types else "no-value" if NO_VALUE in types else None)


def _str(value: object) -> str | None:
    return None if value is None else str(value)


class Formatter:
    """Turns claims into Figures using the ontology's units and labels and the labels of entity values."""

    def __init__(self, ontology: Ontology, names: dict[str, str]):
        self.ontology = ontology
        self.names = names

    def name(self, iri: str | None) -> str:
        if not iri:
            return ABSENT
        return self.names.get(iri) or iri.rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1]

    def link(self, iri: str | None) -> Link | None:
        return Link(self.name(iri), iri) if iri else None

    def text(self, claim: Claim, unit: str, scale: numbers.Scale | None = None) -> str:
        """The claim's value (and bounds) as text; numbers in `scale`'s unit (display_scale) when given."""
        value = claim.value

        def shown_number(number: object) -> str:
            if scale is not None and scale.steps and isinstance(number, int | Decimal):
                return numbers.number(Decimal(number).scaleb(-3 * scale.steps))
            return format_number(number, unit=unit)

        if isinstance(value, str) and value.startswith(("http://", "https://")) and value in self.names:
            shown = self.names[value]
        elif value is not None:
            shown = shown_number(value)
        else:
            shown = ""
        if shown and claim.precision and claim.precision != PRECISION_EXACT:
            shown = f"about {shown}"
        bounds = " and ".join(
            f"{self.ontology.bound_labels.get(hpc(name), name)} {shown_number(bound)}"
            for name, bound in claim.bounds.items())
        if shown and bounds:
            return f"{shown} ({bounds})"
        if not shown and not bounds and claim.unknown:
            return "not named" if claim.unknown == "some-value" else "none"
        return shown or bounds or ABSENT

    def figure(self, claim: Claim) -> Figure:
        info = self.ontology.prop(claim.property)
        scale = display_scale(claim, info.unit)
        unit = "%" if info.unit == FRACTION_UNIT else scale.unit
        tier = self.ontology.tiers.get(claim.tier or "")
        machine = claim.basis == BASIS_MACHINE_GENERATED
        value_is_entity = isinstance(claim.value, str) and claim.value.startswith(("http://", "https://"))
        return Figure(
            text=self.text(claim, info.unit, scale), unit=unit, claim=claim.iri,
            entity=claim.value if value_is_entity else None,  # type: ignore[arg-type]
            tier=tier, basis=self.link(claim.basis), as_of=claim.date or None,
            note=" ".join(claim.notes) or None, sources=tuple(claim.sources),
            lead=machine or (tier is not None and tier.rank <= self.ontology.lead_rank),
            machine_generated=machine, value=claim.value,
            url=(info.formatter_url.replace("$1", quote(str(claim.value), safe=""))
                 if info.formatter_url and claim.value is not None and not value_is_entity else None))


def weakest(tiers: Iterable[Tier | None]) -> Tier | None:
    present = [tier for tier in tiers if tier is not None]
    return min(present, key=lambda tier: tier.rank) if present else None
