"""SHACL validation of the graph against shapes/, with results a contributor can act on.

pySHACL is the reference validator. Each result is reported with the rule's message, the focus node, the
property path, the offending value and the file (named graph) the focus node's triples came from, plus the
line where the focus node is first written when it can be found.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pyoxigraph as ox
import rdflib
from pyshacl import validate as pyshacl_validate
from rdflib.namespace import SH

from hpckg import paths
from hpckg.errors import RdfSyntaxError, UnknownNameError
from hpckg.namespaces import GRAPH, PREFIXES
from hpckg.store import AnyStore, parse_file


@dataclass
class Violation:
    """One SHACL result, in the words a contributor needs."""

    rule: str  # the shape's local name, e.g. "ClaimSourceShape"
    message: str
    focus: str
    path: str | None = None
    value: str | None = None
    severity: str = "Violation"
    file: str | None = None
    line: int | None = None

    def location(self) -> str:
        if self.file and self.line:
            return f"{self.file}:{self.line}"
        return self.file or "<graph>"


@dataclass
class ValidationReport:
    conforms: bool
    violations: list[Violation] = field(default_factory=list)
    syntax_errors: list[RdfSyntaxError] = field(default_factory=list)
    triples: int = 0

    @property
    def usable(self) -> bool:
        return not self.syntax_errors

    def to_json(self) -> str:
        return json.dumps({
            "conforms": self.conforms and self.usable,
            "triples": self.triples,
            "syntax_errors": [{"file": e.path, "line": e.line, "column": e.column, "message": e.message}
                              for e in self.syntax_errors],
            "violations": [asdict(v) for v in self.violations],
        }, indent=2)

    def to_text(self) -> str:
        lines = [str(e) for e in self.syntax_errors]
        by_focus: dict[str, list[Violation]] = {}
        for v in self.violations:
            by_focus.setdefault(v.focus, []).append(v)
        for focus, results in by_focus.items():
            lines.append(f"{results[0].location()}: {shorten(focus)}")
            for v in results:
                detail = []
                if v.path:
                    detail.append(f"property {shorten(v.path)}")
                if v.value is not None:
                    detail.append(f"value {shorten(v.value)}")
                suffix = f" ({', '.join(detail)})" if detail else ""
                lines.append(f"  [{v.rule}] {v.message}{suffix}")
        if self.usable:
            n = len(self.violations)
            lines.append("conforms: the graph follows every sourcing rule" if self.conforms
                         else f"{n} violation{'s' if n != 1 else ''} in {len(by_focus)} "
                              f"node{'s' if len(by_focus) != 1 else ''}")
        return "\n".join(lines)


def shorten(iri: str) -> str:
    """Write an IRI with the project's prefixes (sys:kalos rather than the full IRI)."""
    best = ""
    for prefix, ns in PREFIXES.items():
        if iri.startswith(ns) and len(ns) > len(best):
            best, name = ns, prefix
    return f"{name}:{iri[len(best):]}" if best else iri


def load_shapes(shapes_dir: Path | None = None) -> rdflib.Graph:
    graph = rdflib.Graph()
    for path in sorted((shapes_dir or paths.shapes_dir()).glob("*.ttl")):
        graph.parse(path, format="turtle")
    return graph


def load_ontology() -> rdflib.Graph:
    graph = rdflib.Graph()
    for path in sorted(paths.ontology_dir().glob("*.ttl")):
        graph.parse(path, format="turtle")
    return graph


def store_to_rdflib(store: AnyStore) -> rdflib.Graph:
    """The union of all named graphs as one rdflib graph, for pySHACL."""
    graph = rdflib.Graph()
    graph.parse(data=ox.serialize((q.triple for q in store.quads()), format=ox.RdfFormat.N_TRIPLES),
                format="nt")
    return graph


def _term(node: rdflib.term.Node | None) -> str | None:
    if node is None:
        return None
    return str(node)


def _rule_name(shape: rdflib.term.Node, shapes: rdflib.Graph) -> str:
    # Property shapes are usually blank nodes inside a node shape: name them after the owner's sh:name
    # (or the owner itself) so the message says which rule broke.
    name = shapes.value(shape, SH.name)
    if name is not None:
        return str(name)
    if isinstance(shape, rdflib.BNode):
        owner = shapes.value(None, SH.property, shape)
        if owner is not None:
            return _rule_name(owner, shapes)
    text = str(shape)
    return re.split(r"[#/]", text)[-1]


def results_from_report(report: rdflib.Graph, shapes: rdflib.Graph) -> list[Violation]:
    violations = []
    for result in report.subjects(rdflib.RDF.type, SH.ValidationResult):
        severity = report.value(result, SH.resultSeverity)
        violations.append(Violation(
            rule=_rule_name(report.value(result, SH.sourceShape), shapes),
            message=str(report.value(result, SH.resultMessage) or "does not conform"),
            focus=_term(report.value(result, SH.focusNode)) or "",
            path=_term(report.value(result, SH.resultPath)),
            value=_term(report.value(result, SH.value)),
            severity=str(severity).rsplit("#", 1)[-1] if severity else "Violation",
        ))
    violations.sort(key=lambda v: (v.focus, v.rule, v.path or "", v.value or ""))
    return violations


def locate(violations: list[Violation], store: AnyStore) -> None:
    """Fill in the file (named graph) and line each violation's focus node is written in."""
    cache: dict[str, tuple[str | None, int | None]] = {}
    for v in violations:
        if v.focus not in cache:
            cache[v.focus] = _find_origin(v.focus, store)
        v.file, v.line = cache[v.focus]


def _find_origin(focus: str, store: AnyStore) -> tuple[str | None, int | None]:
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
    return file, line_of(focus, _resolve(file))


def _resolve(file: str) -> Path | None:
    for candidate in (Path(file), paths.resource_root() / file):
        if candidate.is_file():
            return candidate
    return None


def line_of(iri: str, path: Path | None) -> int | None:
    """The first line of a Turtle file that starts a statement about `iri` (full or prefixed form)."""
    if path is None:
        return None
    local = re.split(r"[#/]", iri)[-1]
    patterns = [re.compile(rf"^\s*<{re.escape(iri)}>"), re.compile(rf"^\s*[\w-]*:{re.escape(local)}\b(?!-)")]
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, start=1):
                if any(p.search(text) for p in patterns):
                    return number
    except OSError:
        return None
    return None


def validate_store(store: AnyStore, *, shapes_dir: Path | None = None) -> ValidationReport:
    """Validate everything in the store (ontology, data, derived facts) against the shapes."""
    from hpckg.fastvalidate import cached_sparql_parsing  # pySHACL re-parses each rule per focus node

    data = store_to_rdflib(store)
    shapes = load_shapes(shapes_dir)
    with cached_sparql_parsing():
        conforms, report_graph, _ = pyshacl_validate(
            data, shacl_graph=shapes, inference="none", advanced=True, allow_warnings=True)
    violations = results_from_report(report_graph, shapes)
    locate(violations, store)
    blocking = [v for v in violations if v.severity == "Violation"]
    return ValidationReport(conforms=not blocking, violations=violations, triples=len(data))


def check_syntax(files: list[Path]) -> list[RdfSyntaxError]:
    """Parse every file; return the syntax errors (file:line:column) rather than stopping at the first."""
    errors = []
    for path in files:
        try:
            parse_file(path)
        except RdfSyntaxError as error:
            errors.append(error)
    return errors


ENGINES = ("fast", "pyshacl")


def validate_with(store: AnyStore, engine: str = "fast") -> ValidationReport:
    """Validate with the named engine: "fast" (the shapes as SPARQL on Oxigraph) or "pyshacl" (the reference)."""
    if engine == "pyshacl":
        return validate_store(store)
    if engine == "fast":
        from hpckg.fastvalidate import validate_store_fast

        return validate_store_fast(store)
    raise UnknownNameError(f"unknown validation engine {engine!r}; valid engines: {', '.join(ENGINES)}")
