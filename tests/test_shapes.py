"""The sourcing rules in shapes/, case by case.

Each fixture under tests/fixtures/{valid,invalid}/ is validated the way the build validates: loaded into a
Store with the ontology, the vocabularies, the shapes and the minimal conforming world
(valid/Context-minimal-world.ttl: one system, its operator, a component, the operator's paper and an
independent article), then `materialise` (the truthy triples some rules read) and `validate` with the fast engine (the
build's; tests/test_fastvalidate.py holds it to pySHACL on every fixture).
A valid fixture must conform; an invalid one opens with `# Breaks <rule>: ...` and must yield violations of
that rule only, with that rule's message.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
import rdflib
from rdflib.namespace import SH

from hpckg.build import load_files, materialise
from hpckg.store import Store
from hpckg.validate import ValidationReport, validate
from hpckg.validate.shapes import load_shapes

from conftest import session_project

FIXTURES = Path(__file__).parent / "fixtures"
VALID = sorted((FIXTURES / "valid").glob("*.ttl"))
INVALID = sorted((FIXTURES / "invalid").glob("*.ttl"))
CONTEXT = FIXTURES / "valid" / "Context-minimal-world.ttl"
BREAKS = re.compile(r"^# Breaks ([a-z0-9-]+): ")


def fixture_store(fixture: Path) -> Store:
    """A store holding what a build of this fixture would hold, truthy triples included."""
    store = Store(None)
    files = sorted(session_project().ontology_dir.glob("*.ttl")) + sorted(session_project().shapes_dir.glob("*.ttl"))
    load_files(store, files + sorted({CONTEXT, fixture}), project=session_project())
    materialise(store, rules_dir=session_project().rules_dir)
    return store


@cache
def report_for(fixture: Path) -> ValidationReport:
    return validate(fixture_store(fixture), project=session_project())


@cache
def shape_rules() -> dict[str, tuple[str, str]]:
    """Each named shape's local name -> (rule id, message)."""
    shapes = load_shapes(session_project().shapes_dir)
    rules = {}
    for shape, name in shapes.subject_objects(SH.name):
        if isinstance(shape, rdflib.URIRef):
            rules[str(shape).rsplit("#", 1)[-1]] = (str(name), str(shapes.value(shape, SH.message) or ""))
    return rules


def broken_rule(fixture: Path) -> str:
    first_line = fixture.read_text(encoding="utf-8").splitlines()[0]
    match = BREAKS.match(first_line)
    assert match, f"{fixture.name} must open with '# Breaks <rule>: <what is wrong>'"
    return match.group(1)


def side_by_side(fixture: Path, report: ValidationReport) -> str:
    """The report of this fixture next to the reports of the valid fixtures of the same shape."""
    shape = fixture.stem.split("-", 1)[0]
    parts = [f"--- {fixture.parent.name}/{fixture.name}\n{report.to_text()}"]
    for valid in (v for v in VALID if v.stem.split("-", 1)[0] == shape and v != fixture):
        parts.append(f"--- valid/{valid.name}\n{report_for(valid).to_text()}")
    return "\n".join(parts)


def test_fixture_folders_are_not_empty() -> None:
    assert VALID, "tests/fixtures/valid/ has no fixtures"
    assert INVALID, "tests/fixtures/invalid/ has no fixtures"


def test_every_shape_has_an_invalid_fixture() -> None:
    covered = {f.stem.split("-", 1)[0] for f in INVALID}
    missing = sorted(set(shape_rules()) - covered)
    assert not missing, f"shapes without an invalid fixture in tests/fixtures/invalid/: {', '.join(missing)}"


def test_every_rule_id_is_unique_and_every_message_says_what_to_do() -> None:
    names = [rule for rule, _ in shape_rules().values()]
    assert len(names) == len(set(names)), f"duplicate sh:name rule ids: {sorted(names)}"
    for shape, (rule, message) in shape_rules().items():
        for text in ([message] if message else []) + sorted(nested_messages(shape)) or [""]:
            assert len(text) > 40, f"{shape} ({rule}) needs sh:messages a first-time contributor can act on"


@pytest.mark.parametrize("fixture", VALID, ids=lambda p: p.stem)
def test_valid_fixture_conforms(fixture: Path) -> None:
    report = report_for(fixture)
    assert report.conforms and not report.violations, side_by_side(fixture, report)


@pytest.mark.parametrize("fixture", INVALID, ids=lambda p: p.stem)
def test_invalid_fixture_breaks_exactly_its_rule(fixture: Path) -> None:
    rule = broken_rule(fixture)
    shape = fixture.stem.split("-", 1)[0]
    assert shape in shape_rules(), f"{fixture.name}: no shape called {shape} in shapes/"
    expected_rule, message = shape_rules()[shape]
    assert rule == expected_rule, f"{fixture.name} says it breaks {rule}, but {shape} is rule {expected_rule}"

    report = report_for(fixture)
    context = side_by_side(fixture, report)
    assert report.violations, context
    # A warning shape (sh:Warning, such as dataset-gives-no-source) is reported but does not block.
    assert report.conforms == all(v.severity == "Warning" for v in report.violations), context
    assert {v.rule for v in report.violations} == {rule}, context
    for v in report.violations:
        # Core constraints inside a node shape carry their own (more specific) message.
        assert v.message == message or v.message in nested_messages(shape), context
        assert v.file, context  # the report says where to look


@cache
def nested_messages(shape: str) -> frozenset[str]:
    shapes = load_shapes(session_project().shapes_dir)
    node = rdflib.URIRef("https://w3id.org/hpckg/shapes#" + shape)
    return frozenset(str(shapes.value(child, SH.message)) for child in shapes.objects(node, SH.property))


def test_report_text_names_rule_node_value_and_file() -> None:
    report = report_for(FIXTURES / "invalid" / "DateShape-month-13.ttl")
    text = report.to_text()
    assert "invalid/DateShape-month-13.ttl" in text
    assert "claim:alpha-purpose" in text
    assert "[valid-date]" in text
    assert "property hpc:asOf, value 2023-13" in text
    assert text.endswith("1 violation in 1 node")
