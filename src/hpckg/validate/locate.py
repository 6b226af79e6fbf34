"""Where a violation is: the file (named graph) its focus node's triples came from, and the line there."""

from __future__ import annotations

from pathlib import Path

from hpckg.claims import line_of
from hpckg.namespaces import GRAPH
from hpckg.store import AnyStore
from hpckg.validate.report import Violation


def locate(violations: list[Violation], store: AnyStore, root: Path) -> None:
    """Fill in the file (named graph) and line each violation's focus node is written in; a graph's file name
    is relative to the project root `root`."""
    cache: dict[str, tuple[str | None, int | None]] = {}
    for v in violations:
        if v.focus not in cache:
            cache[v.focus] = _find_origin(v.focus, store, root)
        v.file, v.line = cache[v.focus]


def _find_origin(focus: str, store: AnyStore, root: Path) -> tuple[str | None, int | None]:
    if not focus.startswith(("http://", "https://", "urn:")):
        return None, None
    # A node also appears in the derived graph (truthy triples); the file a person wrote comes first.
    order = f"ORDER BY (STRSTARTS(STR(?g), \"{GRAPH}derived\") || STRSTARTS(STR(?g), \"{GRAPH}meta\")) ?g"
    rows = list(store.query(
        f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ <{focus}> ?p ?o }} }} {order}", union=False))
    if not rows:
        rows = list(store.query(
            f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ ?s ?p <{focus}> }} }} {order}", union=False))
    if not rows:
        return None, None
    graph = rows[0]["g"].value
    if not graph.startswith(GRAPH):
        return graph, None
    file = graph[len(GRAPH):]
    return file, line_of(focus, _resolve(file, root))


def _resolve(file: str, root: Path) -> Path | None:
    for candidate in (Path(file), root / file):
        if candidate.is_file():
            return candidate
    return None
