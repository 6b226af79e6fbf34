"""Rule 27 streamed (queries/rules/27-cluster-peak-compute.rq): a system's peak compute, the sum over its
accelerator rows of quantity × the part's peak dense 16-bit tensor TFLOP/s, only where every accelerator row
with a best quantity has a best part model with a best peak; one system at a time. The rule's rows, sums,
tiers and dates as SPARQL makes them (a claim with two dates makes two rows, dates compare as text)."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation

import pyoxigraph as ox

from hpckg.namespaces import ID, PREFIXES, hpc
from hpckg.rules.reading import (
    BEST_CLAIM,
    COMPONENT_OF,
    ROLE,
    TYPE,
    XSD,
    claims_of,
    derived_claim,
    distinct,
    once,
    optional,
    tier_ranks,
)
from hpckg.store import Store
from hpckg.terms import PROV_USED, PROV_WAS_DERIVED_FROM, SKOS_NOTE

ACCELERATOR = ox.NamedNode(PREFIXES["role"] + "accelerator")
QUANTITY, PART_MODEL, PEAK = (ox.NamedNode(hpc(name)) for name in ("quantity", "partModel", "peakTflopsTensor16"))
PEAK_COMPUTE = ox.NamedNode(hpc("peakComputeTflopsTensor16"))
SLUG = ox.NamedNode(hpc("slug"))
PREFERRED = ox.NamedNode(PREFIXES["rank"] + "preferred")
IN_SCHEME = ox.NamedNode(PREFIXES["skos"] + "inScheme")
TIER_SCHEME = ox.NamedNode(hpc("TierScheme"))
ACTIVITY = ox.NamedNode(ID + "activity/derive-27-cluster-peak-compute")
FIELDS = {hpc(name): name for name in ("property", "value", "tier", "pointInTime", "startTime", "asOf")}
NOTE = ox.Literal("Sum over the accelerator rows of quantity × the part's peak dense 16-bit tensor TFLOP/s.",
                  language="en")
NUMERIC = {XSD + name for name in ("integer", "decimal", "float", "double", "int", "long", "short", "byte",
                                   "nonNegativeInteger", "positiveInteger", "nonPositiveInteger",
                                   "negativeInteger", "unsignedLong", "unsignedInt", "unsignedShort",
                                   "unsignedByte")}


def peak_compute_triples(store: Store) -> Iterator[ox.Triple]:
    """The triples rule 27 constructs, system by system, each once: a part's peak claim is an input of every
    system with that part, and the activity's prov:used of it is given once (as many as the parts' peak
    claims are remembered; the build counts what a rule gives as its triples)."""
    rank_of = tier_ranks(store)
    scheme_tiers = {quad.subject for quad in store.quads_for_pattern(None, IN_SCHEME, TIER_SCHEME)}
    today = dt.datetime.now(dt.UTC).date().isoformat()  # the rule's SUBSTR(STR(NOW()), 1, 10)
    peaks: dict = {}  # part -> its best peak claims, each part read once
    peak_claims: set = set()  # those claims
    used_peaks: set = set()
    for system in distinct(store, COMPONENT_OF):
        components = [q.subject for q in store.quads_for_pattern(None, COMPONENT_OF, system)
                      if any(True for _ in store.quads_for_pattern(q.subject, ROLE, ACCELERATOR))]
        if not components:
            continue
        for triple in once(system_triples(store, system, list(dict.fromkeys(components)), rank_of, scheme_tiers,
                                          today, peaks, peak_claims)):
            if triple.subject == ACTIVITY and triple.object in used_peaks:
                continue
            if triple.subject == ACTIVITY and triple.object in peak_claims:
                used_peaks.add(triple.object)
            yield triple


def best_claims(claims: dict[object, dict[str, set]], property: ox.NamedNode) -> list[tuple[object, dict]]:
    """Of an entity's claims (claims_of), the best ones on a property."""
    return [(claim, fields) for claim, fields in claims.items()
            if BEST_CLAIM in fields.get("type", ()) and property in fields.get("property", ())]


def system_triples(store: Store, system, components: list, rank_of: dict, scheme_tiers: set, today: str,
                   peaks: dict, peak_claims: set) -> Iterator[ox.Triple]:
    rows = 0  # accelerator rows with a best quantity (the rule's second subquery counts rows, not components)
    covered = 0
    products: list[Decimal | float | None] = []
    ranks: list = []
    dates: list[str] = []
    inputs: list = []
    for component in components:
        claims = claims_of(store, component, FIELDS)
        quantities, models = best_claims(claims, QUANTITY), best_claims(claims, PART_MODEL)
        rows += sum(len(f.get("value", ())) for _, f in quantities)
        for (quantity_claim, q), (part_claim, p) in itertools.product(quantities, models):
            for part in p.get("value", ()):
                if part not in peaks:
                    peaks[part] = best_claims(claims_of(store, part, FIELDS), PEAK)
                    peak_claims.update(claim for claim, _ in peaks[part])
                for peak_claim, k in peaks[part]:
                    inputs += [quantity_claim, part_claim, peak_claim] if q.get("value") and k.get("value") else []
                    for quantity, peak, q_tier, p_tier, k_tier, *when in itertools.product(
                            q.get("value", ()), k.get("value", ()), q.get("tier", ()), p.get("tier", ()),
                            k.get("tier", ()), *(optional(q, n) for n in ("pointInTime", "startTime", "asOf")),
                            *(optional(k, n) for n in ("pointInTime", "startTime", "asOf"))):
                        if not all(t in rank_of for t in (q_tier, p_tier, k_tier)):
                            continue
                        covered += 1
                        products.append(product(quantity, peak))
                        ranks.append(min(rank_of[q_tier], rank_of[p_tier], rank_of[k_tier]))
                        texts = ["" if t is None else t.value for t in when]
                        dates.append(max(max(texts[:3]), max(texts[3:])))
    if not covered or covered != rows:
        return
    total = None if any(p is None for p in products) else sum_of(products)
    weakest = min(ranks)
    tiers = [tier for tier in scheme_tiers if rank_of.get(tier) == weakest]
    latest = max(dates)
    as_of = typed_date(latest or today)
    slugs = [q.object.value for q in store.quads_for_pattern(system, SLUG, None)] or [system.value.rsplit("/", 1)[-1]]
    for slug, tier in itertools.product(slugs, tiers):
        try:
            iri = ox.NamedNode(f"{ID}claim/{slug}-peak-compute-derived")
        except ValueError:  # the rule's IRI() fails: only what does not name the claim is made
            yield from ([ox.Triple(system, PEAK_COMPUTE, total)] if total is not None else [])
            yield from (ox.Triple(ACTIVITY, ox.NamedNode(PROV_USED), claim) for claim in inputs)
            continue
        yield from derived_claim(iri, about=system, property=PEAK_COMPUTE, tier=tier, rank=PREFERRED,
                                 activity=ACTIVITY)
        yield from (ox.Triple(iri, TYPE, BEST_CLAIM), ox.Triple(iri, ox.NamedNode(SKOS_NOTE), NOTE))
        if as_of is not None:
            yield ox.Triple(iri, ox.NamedNode(hpc("asOf")), as_of)
        if total is not None:
            yield ox.Triple(iri, ox.NamedNode(hpc("value")), total)
            yield ox.Triple(system, PEAK_COMPUTE, total)
        for claim in inputs:
            yield ox.Triple(iri, ox.NamedNode(PROV_WAS_DERIVED_FROM), claim)
            yield ox.Triple(ACTIVITY, ox.NamedNode(PROV_USED), claim)


def decimal_of(term) -> Decimal | None:
    """xsd:decimal(term) for a numeric literal (None where the cast fails)."""
    if not isinstance(term, ox.Literal) or term.datatype.value not in NUMERIC:
        return None
    try:
        value = Decimal(term.value)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def product(quantity, peak) -> Decimal | None:
    q, k = decimal_of(quantity), decimal_of(peak)
    return None if q is None or k is None else q * k


def sum_of(products: list) -> ox.Literal:
    total = sum(products, Decimal(0))
    text = format(total.normalize(), "f") if total else "0"
    return ox.Literal(text, datatype=ox.NamedNode(XSD + "decimal"))


def typed_date(text: str) -> ox.Literal | None:
    """The rule's asOf: a year, a year and month, else the date of the first ten characters."""
    kind = {4: "gYear", 7: "gYearMonth"}.get(len(text), "date")
    try:
        return ox.Literal(text if kind != "date" else text[:10], datatype=ox.NamedNode(XSD + kind))
    except ValueError:
        return None
