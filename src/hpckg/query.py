"""Canned queries (queries/*.rq, the file name is the identifier) and formatting of query results."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from hpckg import paths
from hpckg.claims import shorten
from hpckg.errors import InputError, UnknownNameError
from hpckg.formats import (
    GRAPH_FORMATS,
    QUAD_ONLY_FORMATS,
    RESULTS_FORMATS,
    SELECT_FORMATS,
    TABLE,
    rdf_format,
    results_format,
)
from hpckg.store import QueryResult


@dataclass(frozen=True)
class CannedQuery:
    name: str
    path: Path
    description: str

    @property
    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")


def header_description(text: str) -> str:
    """The first line of a query's header comment: what the query answers."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            description = stripped.lstrip("#").strip()
            if description:
                return description
        elif stripped:
            break
    return ""


def canned_queries(folder: Path | None = None) -> list[CannedQuery]:
    folder = folder or paths.queries_dir()
    return [CannedQuery(p.stem, p, header_description(p.read_text(encoding="utf-8")))
            for p in sorted(folder.glob("*.rq"))]


def canned_query(name: str) -> CannedQuery:
    for query in canned_queries():
        if query.name == name:
            return query
    names = ", ".join(q.name for q in canned_queries())
    raise UnknownNameError(f"no canned query named {name!r}; available: {names}")


def resolve_query(ref: str) -> tuple[str, str]:
    """(label, SPARQL text) for a canned query name or a path to a .rq/.sparql file."""
    path = Path(ref)
    if ref.endswith((".rq", ".sparql")) or path.is_file():
        if not path.is_file():
            raise InputError(f"query file not found: {ref}")
        return str(path), path.read_text(encoding="utf-8")
    query = canned_query(ref)
    return query.name, query.text


def _cell(term: ox.NamedNode | ox.BlankNode | ox.Literal | None) -> str:
    if term is None:
        return ""
    if isinstance(term, ox.NamedNode):
        return shorten(term.value)
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    if isinstance(term, ox.Literal):
        return term.value
    return str(term)


def format_table(result: ox.QuerySolutions) -> str:
    """An aligned text table with prefixed IRIs, as a person reads it in a terminal."""
    names = [v.value for v in result.variables]
    rows = [[_cell(solution[name]) for name in names] for solution in result]
    widths = [max([len(n), *(len(r[i]) for r in rows)]) for i, n in enumerate(names)]
    line = "  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True))
    out = [line.rstrip(), "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out) + "\n"


def format_result(result: QueryResult, format: str | None = None) -> bytes:
    """Serialise a query result: SELECT/ASK as table, csv, tsv, json or xml; CONSTRUCT/DESCRIBE as any RDF
    format (default Turtle)."""
    if isinstance(result, ox.QueryTriples):
        fmt = rdf_format(format or "ttl")
        if fmt.name in QUAD_ONLY_FORMATS:
            raise InputError(f"--format {format} is a dataset format; graph results take one of: "
                             + ", ".join(GRAPH_FORMATS))
        return ox.serialize(list(result), format=fmt.oxigraph) or b""
    name = (format or TABLE).lower()
    if isinstance(result, ox.QueryBoolean):
        if name == TABLE:
            return (b"true\n" if bool(result) else b"false\n")
    elif name == TABLE:
        return format_table(result).encode("utf-8")
    if name not in RESULTS_FORMATS:
        raise InputError(f"--format {format} does not apply to SELECT/ASK results; use one of: "
                         + ", ".join(SELECT_FORMATS))
    buffer = io.BytesIO()
    result.serialize(buffer, format=results_format(name).oxigraph)
    return buffer.getvalue()
