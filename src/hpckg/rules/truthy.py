"""Rule 10 streamed (queries/rules/10-truthy.rq): each entity's best claims and truthy triples, one entity
at a time. The score is the rule's, claim by claim (see the rule for what "best" means); an entity's results
are written before the next entity is read."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from decimal import Decimal

import pyoxigraph as ox

from hpckg.namespaces import PREFIXES, hpc
from hpckg.rules.reading import (
    ABOUT,
    BEST_CLAIM,
    CLAIM,
    DEPRECATED,
    MACHINE_GENERATED,
    TRUE,
    TYPE,
    claims_of,
    distinct,
    editions_issued,
    live,
    once,
    optional,
    tier_ranks,
)
from hpckg.store import Store

MULTI_VALUED = ox.NamedNode(hpc("multiValued"))
LATER_VALUES_REPLACE = ox.NamedNode(hpc("laterValuesReplace"))
PREFERRED = ox.NamedNode(PREFIXES["rank"] + "preferred")

# The claim's own triples the score reads, by the names the rule gives their variables.
FIELDS = {hpc(name): name for name in
          ("property", "tier", "rank", "basis", "endTime", "pointInTime", "startTime", "asOf", "edition", "value")}

PREFERRED_SCORE = 100_000_000_000
CURRENT_SCORE = 10_000_000_000
INTEGER = re.compile(r"[+-]?[0-9]+")


def truthy_triples(store: Store) -> Iterator[ox.Triple]:
    """The triples rule 10 constructs: `?claim a hpc:BestClaim` for each best claim and `?entity ?property
    ?value` for each of its values, entity by entity (each entity's triples once)."""
    rank_of = tier_ranks(store)
    multi = multi_valued(store)
    issued: dict[ox.NamedNode, list[str]] = {}
    for entity in distinct(store, ABOUT):
        yield from entity_triples(store, entity, claims_of(store, entity, FIELDS), rank_of, multi, issued)


def entity_triples(store: Store, entity, claims: dict[object, dict[str, set]], rank_of: dict,
                   multi: dict, issued: dict) -> Iterator[ox.Triple]:
    scored: list[tuple[object, object, Decimal | int, list]] = []  # (claim, property, score, values)
    best: dict[object, Decimal | int] = {}
    # A row the rule cannot score (a date whose year is not a number) makes its MAX unbound in Oxigraph, so
    # its entity has no best claim on that property at all. The shapes require dates typed as dates, so a
    # build never keeps such a store; the streamed rule gives the same answer as the query all the same.
    unscored: set = set()
    for claim, fields in claims.items():
        if CLAIM not in fields.get("type", ()):
            continue
        values = list(fields.get("value", ()))
        for property, score in claim_scores(store, fields, rank_of, multi, issued):
            if score is None:
                unscored.add(property)
                continue
            scored.append((claim, property, score, values))
            if property not in best or score > best[property]:
                best[property] = score
    # As the CONSTRUCT: a literal where a subject or predicate goes makes no triple, the claim is best still.
    plain = not isinstance(entity, ox.Literal)
    triples = []
    for claim, property, score, values in scored:
        if score != best[property] or property in unscored:
            continue
        triples.append(ox.Triple(claim, TYPE, BEST_CLAIM))
        if plain and isinstance(property, ox.NamedNode):
            triples += [ox.Triple(entity, property, value) for value in values]
    yield from once(triples)


def claim_scores(store: Store, fields: dict[str, set], rank_of: dict, multi: dict,
                 issued: dict) -> Iterator[tuple[object, Decimal | int | None]]:
    """One score per row of the rule's claim table (one row per combination of the claim's values, as a
    SPARQL join gives them; a claim has one of each almost always), for the rows the rule keeps; None for a
    row it keeps but cannot score."""
    tiers = [rank_of[tier] for tier in fields.get("tier", ()) if tier in rank_of]
    properties = list(fields.get("property", ()))
    if not tiers or not properties:
        return
    if not live(fields):
        return  # every row filtered out
    ranks = optional(fields, "rank")
    bases = optional(fields, "basis")
    editions = editions_issued(store, fields, issued)
    dates = (optional(fields, "pointInTime"), optional(fields, "startTime"), optional(fields, "asOf"))
    ends = optional(fields, "endTime")
    for property, tier_rank, rank, basis, end, point, start, as_of, (_, when) in itertools.product(
            properties, tiers, ranks, bases, ends, *dates, editions):
        if rank == DEPRECATED or basis == MACHINE_GENERATED:
            continue
        rank_score = PREFERRED_SCORE if rank == PREFERRED else 0
        for multi_value in multi.get(property, [False]):
            if multi_value:
                yield property, rank_score
                continue
            first = next((t for t in (point, start, as_of) if t is not None), None)
            date = first.value if first is not None else (when or "")
            key = date_key(date)
            if key is None:
                yield property, None  # the rule's xsd:integer cast fails: the row has no score
                continue
            yield property, rank_score + (0 if end is not None else CURRENT_SCORE) + key * 10 + tier_rank


def date_key(date: str) -> int | None:
    """yyyymmdd from a date's lexical form, as the rule computes it: the year from its first four characters,
    the month and day when the form is that long; None where the rule's integer cast fails."""
    parts = [date[start:end] for start, end, length in ((0, 4, 4), (5, 7, 7), (8, 10, 10)) if len(date) >= length]
    if not all(INTEGER.fullmatch(part) for part in parts):
        return None  # xsd:integer("c. 1") is an error in SPARQL; Python's int() would accept " 1" or "1_0"
    return sum(int(part) * scale for part, scale in zip(parts, (10000, 100, 1), strict=False))


def multi_valued(store: Store) -> dict[ox.NamedNode, list[bool]]:
    """Properties whose claims compete on rank only: hpc:multiValued and not hpc:laterValuesReplace true,
    each with the effective boolean value of its hpc:multiValued values."""
    replaced = {q.subject for q in store.quads_for_pattern(None, LATER_VALUES_REPLACE, TRUE)}
    multi: dict[ox.NamedNode, list[bool]] = {}
    for quad in store.quads_for_pattern(None, MULTI_VALUED, None):
        if quad.subject not in replaced:
            multi.setdefault(quad.subject, []).append(effective_boolean(quad.object))
    return multi


def effective_boolean(term) -> bool:
    if isinstance(term, ox.Literal) and term.datatype.value == PREFIXES["xsd"] + "boolean":
        return term.value in ("true", "1")
    return bool(term.value) if isinstance(term, ox.Literal) else False
