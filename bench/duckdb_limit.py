"""The "limit" beside the canned queries: the same questions asked of DuckDB over flat tables of the same rows.

Issue 38 asks how far the graph's shape is from what a columnar engine does with the same facts. The store's
claims, list entries, derivations, sources and labels are copied once into flat DuckDB tables (not timed: the
tables stand for a warehouse kept beside the graph), and each `bench/limits/NAME.sql` answers the canned
query NAME over them. Only the canned queries with such a file get a limit; each must give as many rows as
the canned query does on the same store (checked, so a limit is never the time of a different question).

    python bench/canned_bench.py --store .hpckg/store --limit      # needs `pip install -e '.[bench]'`
"""

from __future__ import annotations

import csv
import statistics
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

LIMITS = Path(__file__).resolve().parent / "limits"

# Each flat table is one SELECT over the store: its columns, in order, are the table's. Every column but the
# first is a nested SELECT of its own joined by hash, the shape rule 14 reads claims with on the disk store.
TABLES = {
    "claims": """
        SELECT ?claim ?about ?property ?value ?tier ?tierRank ?basis ?derived ?best ?excluded WHERE {
          { SELECT ?claim WHERE { ?claim a hpc:Claim } }
          { SELECT ?claim ?about WHERE { ?claim hpc:about ?about } }
          { SELECT ?claim ?property WHERE { ?claim hpc:property ?property } }
          { SELECT ?claim ?tier WHERE { ?claim hpc:tier ?tier } }
          { SELECT ?tier ?tierRank WHERE { ?tier hpc:tierRank ?tierRank } }
          OPTIONAL { SELECT ?claim ?value WHERE { ?claim hpc:value ?value } }
          OPTIONAL { SELECT ?claim ?basis WHERE { ?claim hpc:basis ?basis } }
          OPTIONAL { SELECT ?claim ?derived WHERE { ?claim a hpc:DerivedClaim BIND (true AS ?derived) } }
          OPTIONAL { SELECT ?claim ?best WHERE { ?claim a hpc:BestClaim BIND (true AS ?best) } }
          OPTIONAL { SELECT ?claim ?excluded WHERE { ?claim hpc:excludedFromTotals ?excluded } }
        }""",
    "components": "SELECT ?component ?system ?role WHERE { ?component hpc:componentOf ?system ; hpc:role ?role }",
    "duplicates": "SELECT ?system ?sameMachine WHERE { ?system hpc:duplicateOf ?sameMachine }",
    "claim_sources": "SELECT ?claim ?source WHERE { ?claim prov:hadPrimarySource ?source }",
    "derivations": "SELECT ?claim ?input WHERE { ?claim a hpc:DerivedClaim ; prov:wasDerivedFrom ?input }",
    "claim_rules": "SELECT ?claim ?rule WHERE { ?claim prov:wasGeneratedBy ?activity . ?activity hpc:rule ?rule }",
    "entries": """
        SELECT ?entry ?edition ?issued ?system ?rank ?rmax ?rpeak ?cores ?country ?name ?description WHERE {
          { SELECT ?entry ?edition WHERE { ?entry hpc:entryIn ?edition } }
          { SELECT ?edition ?issued WHERE { ?edition hpc:editionOf ds:top500 ; dcterms:issued ?issued } }
          { SELECT ?entry ?system WHERE { ?entry hpc:entryOf ?system } }
          OPTIONAL { SELECT ?entry ?rank WHERE { ?entry hpc:entryRank ?rank } }
          OPTIONAL { SELECT ?entry ?rmax WHERE { ?entry hpc:entryRmax ?rmax } }
          OPTIONAL { SELECT ?entry ?rpeak WHERE { ?entry hpc:entryRpeak ?rpeak } }
          OPTIONAL { SELECT ?entry ?cores WHERE { ?entry hpc:entryCores ?cores } }
          OPTIONAL { SELECT ?entry ?country WHERE { ?entry hpc:entryCountry ?country } }
          OPTIONAL { SELECT ?entry ?name WHERE { ?entry hpc:entryName ?name } }
          OPTIONAL { SELECT ?entry ?description WHERE { ?entry hpc:entryDescription ?description } }
        }""",
    "labels": "SELECT ?node ?label WHERE { ?node rdfs:label ?label }",
}
# Columns DuckDB reads as numbers (the rest as text, as the store's lexical forms).
NUMERIC = {"tierRank": "INTEGER", "rank": "INTEGER", "rmax": "DOUBLE", "rpeak": "DOUBLE", "cores": "BIGINT"}


def limit_queries() -> dict[str, str]:
    """Canned query name -> its SQL over the flat tables."""
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(LIMITS.glob("*.sql"))}


def _lexical(term) -> str:
    return "" if term is None else term.value


class FlatTables:
    """The store's facts as DuckDB tables in memory (copied through CSV files in a temporary folder)."""

    def __init__(self, store) -> None:
        import duckdb

        self.connection = duckdb.connect()
        self.rows: dict[str, int] = {}
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            for table, sparql in TABLES.items():
                result = store.query(sparql)
                columns = [variable.value for variable in result.variables]
                path = Path(folder) / f"{table}.csv"
                with path.open("w", newline="", encoding="utf-8") as out:
                    writer = csv.writer(out, lineterminator="\n")
                    writer.writerow(columns)
                    count = 0
                    for solution in result:
                        writer.writerow(_lexical(solution[name]) for name in columns)
                        count += 1
                self.rows[table] = count
                types = {name: NUMERIC.get(name, "VARCHAR") for name in columns}
                self.connection.execute(
                    f"CREATE TABLE {table} AS SELECT * FROM read_csv(?, header = true, quote = '\"', escape = '\"', "
                    f"columns = {types!r})",
                    [str(path)])
        self.copy_seconds = time.perf_counter() - started

    def run(self, sql: str) -> int:
        return len(self.connection.execute(sql).fetchall())

    def timed(self, sql: str, runs: int) -> tuple[float, int]:
        """Median seconds of `runs` runs after one warm-up, and the rows."""
        rows = self.run(sql)
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            self.run(sql)
            times.append(time.perf_counter() - started)
        return statistics.median(times), rows


def describe(tables: FlatTables) -> Iterable[str]:
    yield from (f"{name} {count:,}" for name, count in tables.rows.items())
