"""The fast engine (SPARQL on Oxigraph) finds exactly what pySHACL, the reference, finds.

The parity tests run pySHACL and are marked slow: `pytest -m "not slow"` skips them locally, CI runs them.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib

from hpckg.errors import UnknownNameError, UnsupportedShapeError
from hpckg.store import Store
from hpckg.validate import ValidationReport, validate
from hpckg.validate.shapes import load_shapes
from hpckg.validate.sparql_engine import WHOLE_GRAPH_SELECT, compile_shapes
from test_shapes import CONTEXT, INVALID, VALID, fixture_store, report_for

from conftest import session_project

Key = tuple[str, str, str | None, str | None]


def keys(report: ValidationReport) -> set[Key]:
    return {(v.rule, v.focus, v.path, v.value) for v in report.violations}


def assert_same(fast: ValidationReport, reference: ValidationReport) -> None:
    assert keys(fast) == keys(reference), (
        f"only pySHACL: {sorted(keys(reference) - keys(fast))}\n"
        f"only fast path: {sorted(keys(fast) - keys(reference))}\n"
        f"pySHACL report:\n{reference.to_text()}\nfast report:\n{fast.to_text()}")
    assert fast.conforms == reference.conforms
    # Same messages and the same file:line, so either report reads the same to a contributor.
    assert ({(v.rule, v.focus, v.message, v.file, v.line) for v in fast.violations}
            == {(v.rule, v.focus, v.message, v.file, v.line) for v in reference.violations})


Triple = tuple[ox.NamedNode | ox.BlankNode | ox.Literal | None, ...]


def triples(store: Store) -> set[Triple]:
    """The store's triples, every blank node read as one (two loads of a file name their blank nodes apart)."""
    def named(term):
        return None if isinstance(term, ox.BlankNode) else term
    return {(named(q.subject), q.predicate, named(q.object)) for q in store.quads()}


@cache
def background() -> set[Triple]:
    """What every fixture's store holds before its fixture: the ontology, the shapes and the minimal world."""
    return triples(fixture_store(CONTEXT))


def touched_by(store: Store) -> set[str]:
    """The IRIs in the triples a fixture adds to the background (its own and those the rules derive from it)."""
    return {term.value for triple in triples(store) - background() for term in (triple[0], triple[2])
            if isinstance(term, ox.NamedNode)}


@pytest.mark.slow
def test_the_background_of_every_fixture_same_as_pyshacl() -> None:
    """The ontology, shapes and minimal world every fixture sits in, validated whole by both engines once;
    each fixture's reference run below then validates only the nodes the fixture touches (about 95% of a
    whole run was this background, the same 95 times)."""
    store = fixture_store(CONTEXT)
    assert_same(report_for(CONTEXT), validate(store, "pyshacl", project=session_project()))


@pytest.mark.slow
@pytest.mark.parametrize("fixture", INVALID + [f for f in VALID if f != CONTEXT],
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_same_as_pyshacl(fixture: Path) -> None:
    # The fast engine's whole report against pySHACL's over the fixture's nodes: a violation the fast engine
    # finds anywhere else (the background conforms) is one pySHACL did not, and fails the test.
    store = fixture_store(fixture)
    focus = touched_by(store)
    assert focus, f"{fixture.name} adds nothing to the background"
    assert_same(report_for(fixture), validate(store, "pyshacl", project=session_project(), focus=focus))


def test_every_shape_is_translated() -> None:
    shapes = load_shapes(session_project().shapes_dir)
    checks = compile_shapes(shapes)
    named = {str(o) for o in shapes.objects(None, rdflib.namespace.SH.name)}
    assert {c.rule for c in checks} == named


def test_untranslatable_shape_is_refused(tmp_path: Path) -> None:
    (tmp_path / "or.ttl").write_text("""
        @prefix sh: <http://www.w3.org/ns/shacl#> .
        @prefix hpc: <https://w3id.org/hpckg/ontology#> .
        <urn:shape> a sh:PropertyShape ; sh:name "either" ; sh:targetClass hpc:Claim ; sh:path hpc:value ;
            sh:or ( [ sh:datatype <urn:a> ] [ sh:datatype <urn:b> ] ) .
    """)
    with pytest.raises(UnsupportedShapeError, match="shacl#or"):
        validate(Store(None), shapes_dir=tmp_path, project=session_project())


def test_unknown_engine_is_named() -> None:
    with pytest.raises(UnknownNameError, match="valid engines: fast, pyshacl"):
        validate(Store(None), "rdfunit", project=session_project())


@pytest.mark.slow
def test_core_datatype_and_pattern_match_pyshacl(tmp_path: Path) -> None:
    """sh:datatype (ill-typed literals included) and sh:pattern, which shapes/ does not use yet."""
    (tmp_path / "core.ttl").write_text("""
        @prefix sh: <http://www.w3.org/ns/shacl#> .
        @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
        @prefix hpc: <https://w3id.org/hpckg/ontology#> .
        <urn:slug> a sh:PropertyShape ; sh:name "slug" ; sh:targetClass hpc:System ; sh:path hpc:slug ;
            sh:datatype xsd:string ; sh:pattern "^[a-z0-9-]+$" ; sh:message "slug" .
        <urn:count> a sh:PropertyShape ; sh:name "count" ; sh:targetSubjectsOf hpc:countFound ;
            sh:path hpc:countFound ; sh:datatype xsd:integer ; sh:hasValue 7 ; sh:message "count" .
    """)
    store = Store(None)
    store.update("""INSERT DATA { GRAPH <urn:g> {
        <urn:a> a hpc:System ; hpc:slug "ok-slug" .
        <urn:b> a hpc:System ; hpc:slug "Not OK" .
        <urn:c> a hpc:System ; hpc:slug 12 .
        <urn:d> hpc:countFound 7, "x"^^xsd:integer, "3.5" .
    } }""")
    reference = validate(store, "pyshacl", shapes_dir=tmp_path, project=session_project())
    fast = validate(store, shapes_dir=tmp_path, project=session_project())
    assert keys(fast) == keys(reference)
    assert ("count", "urn:d", "https://w3id.org/hpckg/ontology#countFound", "x") in keys(fast)
    assert ("slug", "urn:b", "https://w3id.org/hpckg/ontology#slug", "Not OK") in keys(fast)


TIMESERIES_PARTS = 4


@cache
def timeseries_store() -> Store:
    """The TOP500-style and Epoch-style fixtures of issue 9 with the curated data beside them, built once a
    process (each xdist worker builds its own: 2 s)."""
    from hpckg.build import populate

    store = Store(None)
    folder = Path(__file__).parent / "fixtures" / "timeseries"
    populate(store, session_project(), extra=[folder / "top500-style.ttl", folder / "epoch-style.ttl"])
    return store


@pytest.mark.slow
@pytest.mark.parametrize("part", range(TIMESERIES_PARTS), ids=lambda n: f"part-{n + 1}-of-{TIMESERIES_PARTS}")
def test_timeseries_fixtures_same_as_pyshacl(part: int) -> None:
    """The time-series fixtures and every node of the curated data, compared with pySHACL a quarter of the
    nodes at a time: a whole run took 70-130 s on one worker; pySHACL's time is linear in its focus nodes
    (measured: 68 s whole, 33 s for each half), so the quarters share the two workers. The quarters together
    name every IRI of the store (the blank nodes are the shapes' own internals, no shape targets them)."""
    store = timeseries_store()
    fast = validate(store, project=session_project())
    assert fast.conforms
    iris = sorted({term.value for q in store.quads() for term in (q.subject, q.object)
                   if isinstance(term, ox.NamedNode)})
    focus = set(iris[part::TIMESERIES_PARTS])
    fast_here = ValidationReport(conforms=fast.conforms, triples=fast.triples,
                                 violations=[v for v in fast.violations if v.focus in focus])
    assert_same(fast_here, validate(store, "pyshacl", project=session_project(), focus=focus))


def test_every_whole_graph_text_sits_beside_a_reference_and_fixtures() -> None:
    """shape:wholeGraphSelect is the fast engine's text of a rule pySHACL runs as sh:select: both must exist,
    and the rule must have fixtures on both sides, which test_fixture_same_as_pyshacl runs through each text."""
    shapes = load_shapes(session_project().shapes_dir)
    owners = {}
    for constraint in shapes.subjects(WHOLE_GRAPH_SELECT, None):
        assert shapes.value(constraint, rdflib.namespace.SH.select) is not None, constraint
        owners[str(shapes.value(None, rdflib.namespace.SH.sparql, constraint)).rsplit("#", 1)[-1]] = constraint
    assert len(owners) >= 8
    for shape in owners:
        assert any(f.stem.split("-", 1)[0] == shape for f in INVALID), f"{shape}: no invalid fixture"
        assert any(f.stem.split("-", 1)[0] == shape for f in VALID), f"{shape}: no valid fixture"
