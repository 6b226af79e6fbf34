"""Rule 05 streamed (queries/rules/05-site-operator.rq): a derived hpc:operator claim on a system for each
claim that it is at a site and each claim of that site's operator, one site at a time; a system with an
operator claim of its own outside a list edition gets none."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pyoxigraph as ox

from hpckg.namespaces import ID, PREFIXES, hpc
from hpckg.rules.reading import TYPE, claims_of, derived_claim, distinct, live, once, tier_ranks
from hpckg.store import Store
from hpckg.terms import PROV_USED, PROV_WAS_DERIVED_FROM, RDFS_LABEL, SKOS_NOTE

SITE = ox.NamedNode(hpc("Site"))
OPERATOR = ox.NamedNode(hpc("operator"))
SITE_PROPERTY = ox.NamedNode(hpc("site"))
VALUE = ox.NamedNode(hpc("value"))
ACTIVITY = ox.NamedNode(ID + "activity/derive-05-site-operator")
NORMAL = ox.NamedNode(PREFIXES["rank"] + "normal")
FIELDS = {hpc(name): name for name in ("property", "about", "value", "tier", "rank", "basis", "edition")}
# Systems with an operator claim of their own outside a list edition (stated, or some-value): one read of the
# operator claims, few beside the site claims (bound per system, Oxigraph started from every operator claim).
STATED_TEXT = """SELECT DISTINCT ?system WHERE {
  ?stated hpc:property hpc:operator ; hpc:about ?system FILTER NOT EXISTS { ?stated hpc:edition ?edition } }"""
NOTE = ("The system is at {site}, and that site is run by this organisation: the operator is derived from "
        "the site.")


def site_operator_triples(store: Store) -> Iterator[ox.Triple]:
    """The triples rule 05 constructs, site by site (each site's triples once)."""
    rank_of = tier_ranks(store)
    stated = {row["system"] for row in store.query(STATED_TEXT)}
    for site in distinct(store, TYPE, SITE):
        operators = [(claim, fields) for claim, fields in claims_of(store, site, FIELDS).items()
                     if OPERATOR in fields.get("property", ())]
        if not operators:
            continue
        at_site = [(claim, fields) for claim, fields in claims_of(store, site, FIELDS, link=VALUE).items()
                   if SITE_PROPERTY in fields.get("property", ())]
        labels = [q.object.value for q in store.quads_for_pattern(site, ox.NamedNode(RDFS_LABEL), None)]
        notes = [ox.Literal(NOTE.format(site=label)) for label in labels] or [ox.Literal(NOTE.format(site=site.value))]
        yield from once(triple for (site_claim, site_fields), (operator_claim, operator_fields)
                        in itertools.product(at_site, operators)
                        for triple in derived_claims(site_claim, site_fields, operator_claim, operator_fields,
                                                     rank_of, notes, stated))


def derived_claims(site_claim, site_fields: dict, operator_claim, operator_fields: dict, rank_of: dict,
                   notes: list, stated: set) -> Iterator[ox.Triple]:
    if not (live(site_fields) and live(operator_fields)):
        return
    site_tiers = [(t, rank_of[t]) for t in site_fields.get("tier", ()) if t in rank_of]
    operator_tiers = [(t, rank_of[t]) for t in operator_fields.get("tier", ()) if t in rank_of]
    for system, organisation, (site_tier, site_rank), (operator_tier, operator_rank) in itertools.product(
            site_fields.get("about", ()), operator_fields.get("value", ()), site_tiers, operator_tiers):
        if system in stated:
            continue
        yield ox.Triple(ACTIVITY, ox.NamedNode(PROV_USED), site_claim)
        yield ox.Triple(ACTIVITY, ox.NamedNode(PROV_USED), operator_claim)
        if isinstance(site_claim, ox.BlankNode) or isinstance(system, ox.Literal):
            continue  # the rule's STR() fails, or a literal cannot be a subject: no derived claim
        derived = ox.NamedNode(site_claim.value + "-operator-derived")
        tier = site_tier if site_rank <= operator_rank else operator_tier
        yield from derived_claim(derived, about=system, property=OPERATOR, tier=tier, rank=NORMAL, activity=ACTIVITY)
        yield from (ox.Triple(derived, VALUE, organisation),
                    ox.Triple(derived, ox.NamedNode(PROV_WAS_DERIVED_FROM), site_claim),
                    ox.Triple(derived, ox.NamedNode(PROV_WAS_DERIVED_FROM), operator_claim))
        yield from (ox.Triple(derived, ox.NamedNode(hpc("edition")), e) for e in site_fields.get("edition", ()))
        yield from (ox.Triple(derived, ox.NamedNode(SKOS_NOTE), note) for note in notes)

