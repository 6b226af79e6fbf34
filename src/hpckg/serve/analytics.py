"""Whole-list TOP500 figures (the charts page's), computed once per store generation from four flat reads of the
claims (every edition's Rmax, country and supplierAtBuild claims, and the editions), about 15 s on the full
graph, instead of each chart's canned query (25 to 80 s there, over the endpoint's 30 s limit).

Each figure is keyed by the canned query whose answer it equals row for row (the tests compare them on real
imports): that query is its definition and its provenance, linked from the chart as "the SPARQL behind this";
the endpoint still answers it, within its limits. The arithmetic follows the queries': sums of xsd:decimal
values in Decimal, shares rounded as SPARQL's ROUND (half up) to two places.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

import pyoxigraph as ox

from hpckg.serve.editions import python_value, select, values

if TYPE_CHECKING:
    from hpckg.store import GraphStore

DEVELOPMENT = "performance-development"
BY_COUNTRY = "performance-share-by-country"
BY_VENDOR = "rmax-by-vendor-parent"
QUERIES = (DEVELOPMENT, BY_COUNTRY, BY_VENDOR)

Rows = list[dict[str, object]]


def number(term: ox.Literal) -> Decimal:
    return Decimal(term.value)


def as_python(value: Decimal, *, whole: bool = False) -> int | float:
    return int(value) if whole else float(value)


def share(part: Decimal, total: Decimal) -> float:
    """ROUND(part / total * 10000) / 100, as the share queries compute it."""
    return float((part / total * 10000).quantize(Decimal(1), rounding=ROUND_HALF_UP) / 100) if total else 0.0


def top500_figures(store: GraphStore) -> dict[str, Rows]:
    """The rows of performance-development, performance-share-by-country and rmax-by-vendor-parent."""
    editions = {row["e"].value: row["issued"].value for row in select(store, """
        SELECT ?e ?issued WHERE { ?e hpc:editionOf ds:top500 ; dcterms:issued ?issued }""")}
    rmax = [(row["e"].value, row["system"].value, number(row["value"])) for row in select(store, """
        SELECT ?e ?system ?value WHERE {
          ?e hpc:editionOf ds:top500 .
          ?figure hpc:edition ?e ; hpc:property hpc:rmax ; hpc:about ?system ; hpc:value ?value }""")]
    countries: dict[tuple[str, str], list[ox.NamedNode | ox.Literal]] = defaultdict(list)
    for row in select(store, """SELECT ?e ?system ?country WHERE {
            ?where hpc:property hpc:country ; hpc:edition ?e ; hpc:about ?system ; hpc:value ?country }"""):
        countries[row["e"].value, row["system"].value].append(row["country"])
    made = [(row["e"].value, row["system"].value, row["vendor"].value) for row in select(store, """
        SELECT ?e ?system ?vendor WHERE {
          ?made hpc:property hpc:supplierAtBuild ; hpc:edition ?e ; hpc:about ?integrator ; hpc:value ?vendor .
          ?integrator hpc:role role:integrator ; hpc:componentOf ?system }""")]
    parents: dict[str, list[str]] = defaultdict(list)
    for row in select(store, "SELECT ?vendor ?parent WHERE { ?vendor hpc:rollsUpTo ?parent }"):
        parents[row["vendor"].value].append(row["parent"].value)
    named = {c.value for found in countries.values() for c in found if isinstance(c, ox.NamedNode)}
    named |= {parent for found in parents.values() for parent in found}
    labels: dict[str, list[str]] = defaultdict(list)
    for row in select(store, f"SELECT ?x ?label WHERE {{ VALUES ?x {{ {values(named)} }} ?x rdfs:label ?label }}"):
        labels[row["x"].value].append(row["label"].value)
    totals: dict[str, Decimal] = defaultdict(Decimal)
    for edition, _, value in rmax:
        totals[edition] += value
    return {DEVELOPMENT: _development(editions, rmax),
            BY_COUNTRY: _by_country(editions, rmax, countries, labels, totals),
            BY_VENDOR: _by_vendor(editions, rmax, made, parents, labels, totals)}


def _development(editions: dict[str, str], rmax: list[tuple[str, str, Decimal]]) -> Rows:
    per: dict[str, list[Decimal]] = defaultdict(list)
    for edition, _, value in rmax:
        per[edition].append(value)
    rows = [{"edition": editions[e], "entries": len(values), "sumTflops": float(sum(values)),
             "firstTflops": float(max(values)), "lastTflops": float(min(values))}
            for e, values in per.items() if e in editions]
    return sorted(rows, key=lambda row: str(row["edition"]))


def _by_country(editions, rmax, countries, labels, totals) -> Rows:
    sums: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    systems: dict[tuple[str, str], set[str]] = defaultdict(set)
    keys: dict[str, ox.NamedNode | ox.Literal] = {}
    for edition, system, value in rmax:
        for country in countries.get((edition, system)) or [ox.Literal("unknown")]:
            key = country.value
            keys[key] = country
            sums[edition, key] += value
            systems[edition, key].add(system)
    rows = []
    for (edition, key), value in sums.items():
        if edition not in editions:
            continue
        base = {"edition": editions[edition], "country": python_value(keys[key])}
        figures = {"systems": len(systems[edition, key]), "rmaxTflops": float(value),
                   "sharePercent": share(value, totals[edition])}
        names = labels.get(key, []) if isinstance(keys[key], ox.NamedNode) else []
        rows += [{**base, "countryLabel": name, **figures} for name in names] or [{**base, **figures}]
    return sorted(rows, key=lambda row: (str(row["edition"]), -float(row["rmaxTflops"])))  # type: ignore[arg-type]


def _by_vendor(editions, rmax, made, parents, labels, totals) -> Rows:
    figure = {(edition, system): value for edition, system, value in rmax}
    vendors: dict[tuple[str, str], list[str]] = defaultdict(list)
    for edition, system, vendor in made:
        vendors[edition, system].append(vendor)
    sums: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    for (edition, system), named in vendors.items():
        value = figure.get((edition, system))
        if value is None:
            continue
        part = value / len(set(named))
        for vendor in named:
            for parent in parents.get(vendor, ()):
                sums[edition, parent] += part
    rows = []
    for (edition, parent), value in sums.items():
        if edition not in editions:
            continue
        row: dict[str, object] = {"edition": editions[edition], "parent": parent}
        names = labels.get(parent) if parent in parents.get(parent, ()) else None
        if names:
            row["parentLabel"] = min(names)
        row.update({"rmaxTflops": float(value), "sharePercent": share(value, totals[edition])})
        rows.append(row)
    return sorted(rows, key=lambda row: (str(row["edition"]), -float(row["rmaxTflops"])))  # type: ignore[arg-type]
