"""SHACL validation of the graph against shapes/, with results a contributor can act on.

Two engines give the same results (tests/test_fastvalidate.py holds them to it):

- "fast" (`sparql_engine`): each shape compiled to SPARQL and run on the Oxigraph store itself; the default;
- "pyshacl" (`pyshacl_engine`): pySHACL, the reference implementation, far slower on big graphs.

Each result is reported with the rule's name and message, the focus node, the property path, the offending
value and the file (named graph) the focus node came from, with the line where it is first written.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from pathlib import Path

from hpckg.errors import RdfSyntaxError, UnknownNameError
from hpckg.project import Project
from hpckg.store import AnyStore, parse_file
from hpckg.validate.explain import explain_undefined
from hpckg.validate.report import ValidationReport, Violation
from hpckg.vocabulary import vocabulary

ENGINES = ("fast", "pyshacl")


def validate(store: AnyStore, engine: str = "fast", *, project: Project,
             shapes_dir: Path | None = None, focus: Collection[str] | None = None) -> ValidationReport:
    """Validate everything in the store (ontology, data, derived facts) with the named engine, against the
    project's shapes (or those in `shapes_dir`); results are located in the project's files. `focus` (IRIs,
    pySHACL only) validates just those nodes: the parity tests compare a fixture's own nodes without paying
    each time for the ontology's, which every fixture shares."""
    where = {"shapes_dir": shapes_dir or project.shapes_dir, "root": project.root}
    if focus is not None and engine != "pyshacl":
        raise ValueError("only the pyshacl engine validates a given set of focus nodes")
    # The engines are imported on use: pySHACL takes a second to import and most runs never need it.
    if engine == "fast":
        from hpckg.validate import sparql_engine

        report = sparql_engine.validate_store(store, **where)
    elif engine == "pyshacl":
        from hpckg.validate import pyshacl_engine

        report = pyshacl_engine.validate_store(store, **where, focus=focus)
    else:
        raise UnknownNameError(f"unknown validation engine {engine!r}; valid engines: {', '.join(ENGINES)}")
    explain_undefined(report.violations, store, vocabulary(project.ontology_dir))
    return report


def check_syntax(files: Iterable[Path]) -> list[RdfSyntaxError]:
    """Parse every file; return the syntax errors (file:line:column) rather than stopping at the first."""
    errors = []
    for path in files:
        try:
            parse_file(path)
        except RdfSyntaxError as error:
            errors.append(error)
    return errors


__all__ = ["ENGINES", "ValidationReport", "Violation", "check_syntax", "validate"]
