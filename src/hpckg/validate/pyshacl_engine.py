"""The reference engine: pySHACL over an rdflib copy of the store.

Slow on big graphs (it runs each SPARQL-based rule once per focus node with rdflib's engine), so the build
uses the SPARQL engine; this one is what the SPARQL engine is held to (tests/test_fastvalidate.py).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import rdflib
from pyshacl import validate as pyshacl_validate
from rdflib.namespace import SH
from rdflib.plugins.sparql.parser import parseQuery
from rdflib.plugins.sparql.processor import SPARQLProcessor, translateQuery

from hpckg.store import AnyStore
from hpckg.validate.locate import locate
from hpckg.validate.report import ValidationReport, Violation, sort_violations
from hpckg.validate.shapes import load_shapes, rule_name


def validate_store(store: AnyStore, *, shapes_dir: Path, root: Path,
                   focus: Collection[str] | None = None) -> ValidationReport:
    """Validate everything in the store (ontology, data, derived facts) against the shapes in `shapes_dir`,
    or only the nodes named in `focus` (IRIs; pySHACL's focus_nodes); `root` is the project root the graphs'
    file names are relative to (where a result is located)."""
    data = store_to_rdflib(store)
    if focus is not None and not focus:  # pySHACL reads an empty focus_nodes as "every node"
        return ValidationReport(conforms=True, violations=[], triples=len(data))
    shapes = load_shapes(shapes_dir)
    with cached_sparql_parsing():
        _, report_graph, _ = pyshacl_validate(
            data, shacl_graph=shapes, inference="none", advanced=True, allow_warnings=True,
            focus_nodes=sorted(focus) if focus is not None else None)
    violations = results_from_report(report_graph, shapes)
    locate(violations, store, root)
    blocking = [v for v in violations if v.severity == "Violation"]
    return ValidationReport(conforms=not blocking, violations=violations, triples=len(data))


def store_to_rdflib(store: AnyStore) -> rdflib.Graph:
    """The union of all named graphs as one rdflib graph, for pySHACL."""
    graph = rdflib.Graph()
    graph.parse(data=ox.serialize((q.triple for q in store.quads()), format=ox.RdfFormat.N_TRIPLES),
                format="nt")
    return graph


def _term(node: rdflib.term.Node | None) -> str | None:
    return None if node is None else str(node)


def results_from_report(report: rdflib.Graph, shapes: rdflib.Graph) -> list[Violation]:
    violations = []
    for result in report.subjects(rdflib.RDF.type, SH.ValidationResult):
        severity = report.value(result, SH.resultSeverity)
        violations.append(Violation(
            rule=rule_name(report.value(result, SH.sourceShape), shapes),
            message=str(report.value(result, SH.resultMessage) or "does not conform"),
            focus=_term(report.value(result, SH.focusNode)) or "",
            path=_term(report.value(result, SH.resultPath)),
            value=_term(report.value(result, SH.value)),
            severity=str(severity).rsplit("#", 1)[-1] if severity else "Violation",
        ))
    return sort_violations(violations)


# Parsed and translated SPARQL by (text, base, prefixes): the shapes' few dozen queries, kept for the process
# so a second validation (the parity tests run one per fixture) parses nothing.
_PARSED: dict[tuple, Any] = {}


@contextmanager
def cached_sparql_parsing() -> Iterator[None]:
    """Parse each SPARQL text once while the block runs (for pySHACL).

    pySHACL re-parses a sh:sparql constraint's query for every focus node, and rdflib's parser takes about
    15 ms a query, so parsing dominates validation (evaluation is ~0.1 ms). Within this block rdflib keeps
    each parsed query by its text (for the whole process): the same results, many times faster. Not
    thread-safe.
    """
    original = SPARQLProcessor.query
    cache = _PARSED

    def query(self, strOrQuery, initBindings=None, initNs=None, base=None, DEBUG=False):  # noqa: N803
        if isinstance(strOrQuery, str):
            key = (_prefixes_sorted(strOrQuery), base,
                   tuple(sorted((k, str(v)) for k, v in (initNs or {}).items())))
            if key not in cache:
                cache[key] = translateQuery(parseQuery(strOrQuery), base, initNs)
            strOrQuery = cache[key]
        return original(self, strOrQuery, initBindings, initNs, base, DEBUG)

    SPARQLProcessor.query = query  # type: ignore[method-assign]
    try:
        yield
    finally:
        SPARQLProcessor.query = original  # type: ignore[method-assign]


def _prefixes_sorted(query: str) -> str:
    """The query with its leading PREFIX lines sorted: pySHACL writes them in set order, which differs
    between validations, and the order does not change what the query means."""
    lines = query.split("\n")
    count = next((i for i, line in enumerate(lines) if not line.startswith("PREFIX ")), len(lines))
    return "\n".join(sorted(lines[:count]) + lines[count:])
