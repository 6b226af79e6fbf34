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
from hpckg.claims import EVERY_CLAIM_TYPE, Claim, labels
from hpckg.claims import read_claims as read_all_claims
from hpckg.namespaces import ONTOLOGY, hpc
from hpckg.page.model import ABSENT, Figure, Link, SourceLink, Tier
from hpckg.terms import (
    BASIS_MACHINE_GENERATED,
    BOUNDS,
    PRECISION_EXACT,
    PROV_WAS_DERIVED_FROM,
    RANK_PREFERRED,
    XSD,
    XSD_BOOLEAN,
    XSD_DECIMAL,
    XSD_DOUBLE,
)
from hpckg.values import INTEGER_TYPES, Text

if TYPE_CHECKING:
    from hpckg.store import GraphStore

DECIMAL_TYPES = {XSD_DECIMAL, XSD_DOUBLE, XSD + "float"}
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


def page_order(claim: Claim) -> tuple:
    """Best claim first (the one the truthy triple and page header show), then preferred, then the current
    one (no end time), then the newest date; oldest last."""
    return (not claim.best, claim.rank != RANK_PREFERRED, claim.end is not None, descending(claim.date), claim.iri)


def descending(text: str) -> tuple:
    """A sort key that orders texts (dates) newest first."""
    return (*(-ord(ch) for ch in text), 1)


def source_link(iri: str, url: str | None, title: str | None) -> SourceLink:
    host = ""
    if url:
        host = (urlsplit(url).hostname or "").removeprefix("www.")
    return SourceLink(iri=iri, url=url, host=host or title or iri.rsplit("/", 1)[-1], title=title)


def read_claims(store: GraphStore, entities: Iterable[str]) -> tuple[dict[str, list[Claim]],
                                                                     dict[str, tuple[SourceLink, ...]]]:
    """Every claim about the given entities (hpckg.claims.read_claims; derived, some-value and best claims
    included), grouped by entity in page order, and the sources a page cites for each claim (by claim IRI).

    A derived claim has no primary source of its own: its sources are those of the claims it was derived
    from, followed through prov:wasDerivedFrom (successors)."""
    about = [iri for iri in dict.fromkeys(entities) if iri_list([iri])]
    if not about:
        return {}, {}
    claims = [claim for claim in read_all_claims(store, about=about, types=EVERY_CLAIM_TYPE) if claim.property]
    cited = {claim.iri: set(claim.sources) for claim in claims}
    derived = {claim.iri for claim in claims if claim.derived_from}
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
    sources = {iri: tuple(source_link(source, described.get(source, {}).get("url"),
                                      described.get(source, {}).get("title")) for source in sorted(found))
               for iri, found in cited.items()}
    grouped: dict[str, list[Claim]] = {}
    for claim in sorted(claims, key=page_order):
        grouped.setdefault(claim.about, []).append(claim)
    return grouped, sources


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


class Formatter:
    """Turns claims into Figures using the ontology's units and labels and the labels of entity values."""

    def __init__(self, ontology: Ontology, names: dict[str, str],
                 sources: dict[str, tuple[SourceLink, ...]] | None = None):
        self.ontology = ontology
        self.names = names
        self.sources = sources if sources is not None else {}  # claim IRI -> what a figure of it cites

    def name(self, iri: str | None) -> str:
        if not iri:
            return ABSENT
        return self.names.get(iri) or iri.rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1]

    def link(self, iri: str | None) -> Link | None:
        return Link(self.name(iri), iri) if iri else None

    def text(self, claim: Claim, unit: str, scale: numbers.Scale | None = None) -> str:
        """The claim's value (and bounds) as text; numbers in `scale`'s unit (display_scale) when given."""
        value = claim.value.text if isinstance(claim.value, Text) else claim.value

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
            note=claim.note or None, sources=self.sources.get(claim.iri, ()),
            lead=machine or (tier is not None and tier.rank <= self.ontology.lead_rank),
            machine_generated=machine, value=claim.value,
            url=(info.formatter_url.replace("$1", quote(str(claim.value), safe=""))
                 if info.formatter_url and claim.value is not None and not value_is_entity else None))


def weakest(tiers: Iterable[Tier | None]) -> Tier | None:
    present = [tier for tier in tiers if tier is not None]
    return min(present, key=lambda tier: tier.rank) if present else None
