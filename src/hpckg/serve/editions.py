"""One TOP500 edition as the rows of the canned query top500-list, read the fast way: the edition's claims in
one pattern (every claim carrying hpc:edition <the edition>, about 8,000 on the full graph, a second), pivoted
into one row per entry here, then the few labels the rows name, read for exactly those IRIs (VALUES).

top500-list.rq is the same reading written as one query (the website's "the SPARQL behind this"); the tests
check both give the same rows. The join the query used to be (one OPTIONAL per column) took 38 s on the full
graph, over the endpoint's time limit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

import pyoxigraph as ox

from hpckg.namespaces import ONTOLOGY, PREFIXES

if TYPE_CHECKING:
    from hpckg.store import GraphStore

# The edition's claims the list shows, by property; each entry has at most one of each in an edition.
SHOWN = ("listRank", "name", "systemDescription", "site", "country", "supplierAtBuild", "rmax", "rpeak", "powerKW",
         "cores", "operationalSince")
_COLUMN = {"rmax": "rmaxTflops", "rpeak": "rpeakTflops", "powerKW": "powerKW", "cores": "cores", "listRank": "rank"}
NUMERIC = ("integer", "decimal", "double", "float", "long", "int")


def edition_iri(edition: str) -> str:
    """ds:top500-YYYY-MM for an edition named YYYY-MM (checked by the caller)."""
    return f"{PREFIXES['ds']}top500-{edition}"


def python_value(term: ox.NamedNode | ox.Literal | ox.BlankNode) -> object:
    """A term as the lists show it (lists.rows_from_results): numbers as int or float, others as text."""
    if isinstance(term, ox.Literal):
        kind = term.datatype.value.rsplit("#", 1)[-1]
        if kind in NUMERIC:
            try:
                number = float(term.value)
            except ValueError:
                return term.value
            return int(number) if kind in ("integer", "long", "int") else number
    return term.value


def select(store: GraphStore, sparql: str) -> list[dict[str, ox.NamedNode | ox.Literal]]:
    result = store.query(sparql)
    names = [v.value for v in result.variables]
    return [{n: row[n] for n in names if row[n] is not None} for row in result]


def values(iris: Iterable[str]) -> str:
    return " ".join(f"<{iri}>" for iri in sorted(set(iris)))


def edition_rows(store: GraphStore, edition: str) -> list[dict[str, object]]:
    """The rows top500-list answers for `edition` (YYYY-MM), in rank order."""
    shown = ", ".join(f"hpc:{p}" for p in SHOWN)
    claims = select(store, f"""
        SELECT ?claim ?property ?about ?value ?tier ?statedAs WHERE {{
          ?claim hpc:edition <{edition_iri(edition)}> ; hpc:property ?property .
          FILTER (?property IN ({shown}))
          ?claim hpc:about ?about ; hpc:value ?value ; hpc:tier ?tier
          OPTIONAL {{ ?claim hpc:statedAs ?statedAs }} }}""")
    entries: dict[str, dict[str, object]] = defaultdict(dict)
    made: dict[str, set[str]] = defaultdict(set)  # integrator component -> the vendors the edition names
    for claim in claims:
        prop = claim["property"].value.removeprefix(ONTOLOGY)
        about, value = claim["about"].value, claim["value"]
        if prop == "supplierAtBuild":
            made[about].add(value.value)
            continue
        entry = entries[about]
        if prop in _COLUMN:
            entry[_COLUMN[prop]] = python_value(value)
            if prop == "rmax":
                entry["rmaxTier"] = claim["tier"].value.rsplit("/tier/", 1)[-1]
                entry["rmaxClaim"] = claim["claim"].value
        elif prop == "name":
            entry["editionName"] = value.value
        elif prop == "systemDescription":
            entry["editionDescription"] = value.value
        elif prop == "site":
            entry["site"] = value.value
            if "statedAs" in claim:
                entry["siteStated"] = claim["statedAs"].value
        elif prop == "operationalSince":  # the list's Year (xsd:gYear), as text: a year, not a count ("2,024")
            entry["year"] = value.value[:4]
        elif prop == "country":
            entry["country"] = value.value.rsplit("/country/", 1)[-1] if "/country/" in value.value else ""
    ranked = {iri: entry for iri, entry in entries.items() if "rank" in entry}
    names = _labels(store, ranked, made)
    rows = []
    for iri, entry in ranked.items():
        row: dict[str, object] = {"rank": entry["rank"], "system": iri}
        row["name"] = entry.get("editionName") or entry.get("editionDescription") or names["system"].get(iri)
        site = entry.get("site")
        if site:
            row["site"] = site
            row["siteLabel"] = entry.get("siteStated") or names["site"].get(site)
        vendors = sorted(v for i in names["integrators"].get(iri, ()) for v in made.get(i, ()))
        row["vendors"] = " / ".join(dict.fromkeys(names["vendor"][v] for v in vendors if v in names["vendor"]))
        row["parents"] = " / ".join(dict.fromkeys(p for v in vendors for p in names["parents"].get(v, ())))
        for key in ("country", "year", "rmaxTflops", "rpeakTflops", "powerKW", "cores", "rmaxTier", "rmaxClaim"):
            if key in entry:
                row[key] = entry[key]
        rows.append({k: v for k, v in row.items() if v is not None})
    rows.sort(key=lambda row: row["rank"])
    return rows


def _labels(store: GraphStore, entries: dict[str, dict[str, object]], made: dict[str, set[str]]) -> dict[str, dict]:
    """The labels the rows name: systems' (for entries the edition gives no name or description), sites' (for
    site claims without the edition's words, hpc:statedAs), which integrator is a component of which system,
    vendors' and their parents' today."""
    found: dict[str, dict] = {"system": {}, "site": {}, "vendor": {}, "parents": defaultdict(list),
                              "integrators": defaultdict(list)}
    unnamed = [iri for iri, entry in entries.items()
               if not entry.get("editionName") and not entry.get("editionDescription")]
    if unnamed:
        for row in select(store, f"SELECT ?x (MIN(?l) AS ?label) WHERE {{ VALUES ?x {{ {values(unnamed)} }} "
                                 "?x rdfs:label ?l } GROUP BY ?x"):
            found["system"][row["x"].value] = row["label"].value
    sites = [str(entry["site"]) for entry in entries.values() if entry.get("site") and not entry.get("siteStated")]
    if sites:
        for row in select(store, f"""SELECT ?x (MIN(?l) AS ?label) WHERE {{
                VALUES ?x {{ {values(sites)} }} ?x rdfs:label ?l }} GROUP BY ?x"""):
            if "label" in row:
                found["site"][row["x"].value] = row["label"].value
    if made:
        for row in select(store, f"""SELECT ?i ?system WHERE {{ VALUES ?i {{ {values(made)} }}
                ?i hpc:role <{PREFIXES['role']}integrator> ; hpc:componentOf ?system }}"""):
            found["integrators"][row["system"].value].append(row["i"].value)
        vendors = {v for vs in made.values() for v in vs}
        for row in select(store, f"""SELECT ?v ?label ?parentLabel WHERE {{ VALUES ?v {{ {values(vendors)} }}
                OPTIONAL {{ ?v rdfs:label ?label }} OPTIONAL {{ ?v hpc:rollsUpTo/rdfs:label ?parentLabel }} }}
              ORDER BY ?v ?label ?parentLabel"""):
            if "label" in row:
                found["vendor"].setdefault(row["v"].value, row["label"].value)
            if "parentLabel" in row and row["parentLabel"].value not in found["parents"][row["v"].value]:
                found["parents"][row["v"].value].append(row["parentLabel"].value)
    return found
