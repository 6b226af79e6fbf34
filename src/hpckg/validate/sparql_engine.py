"""The fast engine: every shape in shapes/ run as SPARQL directly on the Oxigraph store.

pySHACL (hpckg.validate.pyshacl_engine) is the reference, but it copies the graph into rdflib and runs each
SPARQL-based rule once per focus node with rdflib's engine: 605 s on a 768k-triple graph where the same
rules as SPARQL on Oxigraph took 1.6 s. Here each rule is one query over the whole store:

- a sh:sparql constraint's SELECT runs with $this unbound, joined with a pattern that binds ?this to the
  shape's targets (sh:targetClass with rdfs:subClassOf*, sh:targetNode, sh:targetSubjectsOf,
  sh:targetObjectsOf), so it returns every (focus, path, value) at once;
- the core constraints the shapes use (sh:minCount, sh:maxCount, sh:class, sh:in, sh:hasValue, sh:datatype,
  sh:pattern, on a property shape whose sh:path is an IRI) are translated to SPARQL.

"Has no X" is written as MINUS here, never FILTER NOT EXISTS: Oxigraph evaluates NOT EXISTS with one index
seek per solution (about 35 us each on an on-disk store, so 9 s per NOT EXISTS over the full import's 258k
claims), and MINUS as one scan and a hash anti-join (36 s -> 1.5 s for claim-value). SHACL-SPARQL forbids
MINUS in sh:select, because pySHACL runs it once per focus node with $this pre-bound, so a constraint may
carry a second text, shape:wholeGraphSelect, that says the same rule for every focus node at once; this
engine runs that text when present. A hash join holds every row of its build side, so at 10x the full import
one check over every claim took up to 3.9 GB; where the rows left to test are few (aggregator-only-lead) or
one lookup per row replaces a join with every claim's sources (reference-stated-in), the whole-graph text uses
FILTER NOT EXISTS after all. tests/test_fastvalidate.py holds each to pySHACL on every fixture and
requires valid and invalid fixtures of each rule that has one.

Results are the same `Violation` objects, with the same rule, message, focus, path and value as pySHACL
(tests/test_fastvalidate.py holds the two to that). A shape using anything else raises
UnsupportedShapeError rather than silently skipping the rule.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import rdflib
from rdflib.namespace import RDF, RDFS, SH, XSD

from hpckg.errors import UnsupportedShapeError
from hpckg.memory import release_freed_memory
from hpckg.store import AnyStore
from hpckg.validate.locate import locate
from hpckg.validate.report import ValidationReport, Violation, sort_violations
from hpckg.validate.shapes import load_shapes, rule_name

log = logging.getLogger(__name__)

# Shape triples that are not constraints: targets, annotations and structure.
_NOT_CONSTRAINTS = {
    RDF.type, SH.name, SH.description, SH.message, SH.severity, SH.deactivated, SH.order, SH.group,
    SH.path, SH.property, SH.sparql, SH.targetClass, SH.targetNode, SH.targetSubjectsOf,
    SH.targetObjectsOf, RDFS.label, RDFS.comment,
}
# shape:wholeGraphSelect, defined in shapes/prefixes.ttl.
WHOLE_GRAPH_SELECT = rdflib.URIRef("https://w3id.org/hpckg/shapes#wholeGraphSelect")
_CORE = {SH.minCount, SH.maxCount, SH["class"], SH["in"], SH.hasValue, SH.datatype, SH.pattern, SH.flags}


@dataclass
class Check:
    """One query that finds the violations of one constraint of one shape."""

    rule: str
    message: str
    severity: str
    query: str
    default_path: str | None = None  # the property shape's sh:path, reported when the query binds none
    focus_is_value: bool = False  # node-shape SPARQL constraints report the focus as value when unbound
    datatype: str | None = None  # sh:datatype: the query returns candidate values, checked in Python


def _n3(node: rdflib.term.Node) -> str:
    return node.n3()


def target_pattern(shapes: rdflib.Graph, shape: rdflib.term.Node) -> str | None:
    """A group graph pattern binding ?this to each focus node of `shape`, or None if it has no target."""
    parts = []
    for cls in shapes.objects(shape, SH.targetClass):
        parts.append(f"?this <{RDF.type}>/<{RDFS.subClassOf}>* {_n3(cls)} .")
    for node in shapes.objects(shape, SH.targetNode):
        parts.append(f"VALUES ?this {{ {_n3(node)} }}")
    for prop in shapes.objects(shape, SH.targetSubjectsOf):
        parts.append(f"?this {_n3(prop)} ?targetObject .")
    for prop in shapes.objects(shape, SH.targetObjectsOf):
        parts.append(f"?targetSubject {_n3(prop)} ?this .")
    if not parts:
        return None
    union = " UNION ".join("{ " + part + " }" for part in parts)
    return f"{{ SELECT DISTINCT ?this WHERE {{ {union} }} }}"


def _prefixes(shapes: rdflib.Graph, constraint: rdflib.term.Node) -> str:
    lines = []
    for holder in shapes.objects(constraint, SH.prefixes):
        for declaration in shapes.objects(holder, SH.declare):
            prefix = shapes.value(declaration, SH.prefix)
            namespace = shapes.value(declaration, SH.namespace)
            lines.append(f"PREFIX {prefix}: <{namespace}>")
    return "\n".join(lines) + "\n"


def _inject(select: str, pattern: str, where: str) -> str:
    match = re.search(r"\bWHERE\s*\{", select, re.IGNORECASE)
    if not match:
        raise UnsupportedShapeError(f"{where}: cannot find the WHERE clause of its sh:select")
    return select[:match.end()] + "\n  " + pattern + "\n" + select[match.end():]


def _message(shapes: rdflib.Graph, shape: rdflib.term.Node) -> str:
    message = shapes.value(shape, SH.message)
    return str(message) if message is not None else "does not conform"


def _severity(shapes: rdflib.Graph, shape: rdflib.term.Node) -> str:
    severity = shapes.value(shape, SH.severity)
    return str(severity).rsplit("#", 1)[-1] if severity is not None else "Violation"


def _sparql_checks(shapes: rdflib.Graph, shape: rdflib.term.Node, targets: str, rule: str,
                   path: rdflib.term.Node | None) -> list[Check]:
    checks = []
    for constraint in shapes.objects(shape, SH.sparql):
        if shapes.value(constraint, SH.deactivated) == rdflib.Literal(True):
            continue
        select = str(shapes.value(constraint, WHOLE_GRAPH_SELECT) or shapes.value(constraint, SH.select))
        if path is not None:
            select = select.replace("$PATH", _n3(path))
        query = _prefixes(shapes, constraint) + _inject(select, targets, f"shape {shape}")
        checks.append(Check(rule, _message(shapes, shape), _severity(shapes, shape), query,
                            default_path=str(path) if path is not None else None,
                            focus_is_value=path is None))
    return checks


def _core_checks(shapes: rdflib.Graph, shape: rdflib.term.Node, targets: str, rule: str) -> list[Check]:
    path = shapes.value(shape, SH.path)
    if not isinstance(path, rdflib.URIRef):
        raise UnsupportedShapeError(f"shape {shape}: the fast path supports only IRI sh:path values")
    p = _n3(path)
    message, severity = _message(shapes, shape), _severity(shapes, shape)

    def check(query: str, **kwargs: Any) -> Check:
        return Check(rule, message, severity, query, default_path=str(path), **kwargs)

    checks = []
    for count in shapes.objects(shape, SH.minCount):
        if int(count) == 1:
            checks.append(check(f"SELECT ?this WHERE {{ {targets} MINUS {{ ?this {p} ?v }} }}"))
        elif int(count) > 1:
            checks.append(check(f"SELECT ?this WHERE {{ {targets} OPTIONAL {{ ?this {p} ?v }} }} "
                                f"GROUP BY ?this HAVING (COUNT(DISTINCT ?v) < {int(count)})"))
    for count in shapes.objects(shape, SH.maxCount):
        # The subjects with too many values first, then those of them that are targets: joining every target
        # with its values before counting took twice the memory (claim-about: 302 -> 164 MB, 1.0 -> 0.4 s).
        checks.append(check(f"SELECT ?this WHERE {{ {{ SELECT ?this WHERE {{ ?this {p} ?v }} GROUP BY ?this "
                            f"HAVING (COUNT(DISTINCT ?v) > {int(count)}) }} {targets} }}"))
    for cls in shapes.objects(shape, SH["class"]):
        # MINUS holds every instance of the class; a lookup per value instead (FILTER NOT EXISTS) took 80 s
        # against 6.5 s for a claim's hpc:property at 10x the full import, and distinct values first 12x more.
        checks.append(check(f"SELECT DISTINCT ?this ?value WHERE {{ {targets} ?this {p} ?value . "
                            f"MINUS {{ ?value <{RDF.type}>/<{RDFS.subClassOf}>* {_n3(cls)} }} }}"))
    for members in shapes.objects(shape, SH["in"]):
        allowed = " || ".join(f"sameTerm(?value, {_n3(m)})" for m in rdflib.collection.Collection(shapes, members))
        checks.append(check(f"SELECT DISTINCT ?this ?value WHERE {{ {targets} ?this {p} ?value . "
                            f"FILTER (!({allowed or 'false'})) }}"))
    for required in shapes.objects(shape, SH.hasValue):
        checks.append(check(f"SELECT ?this WHERE {{ {targets} MINUS {{ ?this {p} {_n3(required)} }} }}"))
    for datatype in shapes.objects(shape, SH.datatype):
        checks.append(check(f"SELECT DISTINCT ?this ?value WHERE {{ {targets} ?this {p} ?value }}",
                            datatype=str(datatype)))
    for pattern in shapes.objects(shape, SH.pattern):
        flags = shapes.value(shape, SH.flags)
        regex = f"REGEX(STR(?value), {_n3(pattern)}" + (f", {_n3(flags)})" if flags else ")")
        checks.append(check(f"SELECT DISTINCT ?this ?value WHERE {{ {targets} ?this {p} ?value . "
                            f"FILTER (isBlank(?value) || !{regex}) }}"))
    return checks


def _shape_checks(shapes: rdflib.Graph, shape: rdflib.term.Node, targets: str) -> list[Check]:
    unknown = {p for p in shapes.predicates(shape, None)} - _NOT_CONSTRAINTS - _CORE
    if unknown:
        raise UnsupportedShapeError(
            f"shape {shape} uses {', '.join(sorted(str(u) for u in unknown))}, which the fast path does not "
            "translate; validate with engine=\"pyshacl\" or extend hpckg.validate.sparql_engine")
    rule = rule_name(shape, shapes)
    path = shapes.value(shape, SH.path)
    checks = _sparql_checks(shapes, shape, targets, rule, path)
    if path is not None:
        checks += _core_checks(shapes, shape, targets, rule)
    elif set(shapes.predicates(shape, None)) & _CORE:
        raise UnsupportedShapeError(f"shape {shape}: core constraints on a node shape are not translated")
    for child in shapes.objects(shape, SH.property):
        if shapes.value(child, SH.deactivated) != rdflib.Literal(True):
            checks += _shape_checks(shapes, child, targets)
    return checks


def compile_shapes(shapes: rdflib.Graph) -> list[Check]:
    """Every query the fast path runs for a shapes graph, one or more per shape with a target."""
    checks = []
    for shape in sorted(set(shapes.subjects(None, None)), key=str):
        if shapes.value(shape, SH.deactivated) == rdflib.Literal(True):
            continue
        targets = target_pattern(shapes, shape)
        if targets is not None:
            checks += _shape_checks(shapes, shape, targets)
    return checks


def _bound(solution: ox.QuerySolution, name: str, variables: set[str]) -> Any:
    return solution[name] if name in variables else None


def _datatype_matches(value: ox.Term, datatype: str) -> bool:
    """sh:datatype as pySHACL decides it: the right datatype and a well-formed lexical form."""
    if not isinstance(value, ox.Literal):
        return False
    if value.language:
        return datatype == str(RDF.langString)
    if value.datatype.value != datatype:
        return False
    literal = rdflib.Literal(value.value, datatype=None if datatype == str(XSD.string) else datatype)
    return getattr(literal, "ill_typed", None) is not True


def _format(message: str, bindings: dict[str, str]) -> str:
    for name, text in bindings.items():
        message = re.sub(r"\{[?$]" + re.escape(name) + r"\}", lambda _, text=text: text, message)
    return message


def run_check(store: AnyStore, check: Check) -> list[Violation]:
    result = store.query(check.query, prefixes=False)
    variables = {v.value for v in result.variables}
    found = []
    for solution in result:
        this = solution["this"]
        if this is None:
            continue
        value = _bound(solution, "value", variables)
        if check.datatype is not None:
            if _datatype_matches(value, check.datatype):
                continue
        path = _bound(solution, "path", variables)
        value_text = value.value if value is not None else (this.value if check.focus_is_value else None)
        path_text = path.value if path is not None else check.default_path
        bindings = {v: solution[v].value for v in variables if solution[v] is not None}
        found.append(Violation(rule=check.rule, message=_format(check.message, bindings), focus=this.value,
                               path=path_text, value=value_text, severity=check.severity))
    return found


def validate_store(store: AnyStore, *, shapes_dir: Path, root: Path) -> ValidationReport:
    """Validate the store against the shapes in `shapes_dir` with one SPARQL query per constraint, on the store
    itself; `root` is the project root the graphs' file names are relative to (where a result is located)."""
    shapes = load_shapes(shapes_dir)
    unique: dict[tuple, Violation] = {}
    for check in compile_shapes(shapes):
        started = time.perf_counter()
        found = run_check(store, check)
        release_freed_memory()  # else the process holds every check's leftovers, not the largest one
        # `hpckg --log-level debug build` shows what each rule costs on the graph at hand.
        log.debug("shape %s: %d results in %.2f s", check.rule, len(found), time.perf_counter() - started)
        for v in found:
            unique.setdefault((v.rule, v.focus, v.path, v.value, v.message, v.severity), v)
    violations = sort_violations(list(unique.values()))
    locate(violations, store, root)
    blocking = [v for v in violations if v.severity == "Violation"]
    return ValidationReport(conforms=not blocking, violations=violations, triples=store.triple_count())
