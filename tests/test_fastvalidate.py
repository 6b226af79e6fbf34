"""The fast path (SPARQL on Oxigraph) finds exactly what pySHACL, the reference, finds."""

from __future__ import annotations

from pathlib import Path

import pytest
import rdflib

from hpckg.build import populate
from hpckg.fastvalidate import UnsupportedShapeError, cached_sparql_parsing, compile_shapes, validate_store_fast
from hpckg.store import Store
from hpckg.validate import ValidationReport, load_shapes, validate_store
from test_shapes import INVALID, VALID, fixture_store

Key = tuple[str, str, str | None, str | None]


def keys(report: ValidationReport) -> set[Key]:
    return {(v.rule, v.focus, v.path, v.value) for v in report.violations}


def compare(store: Store) -> tuple[ValidationReport, ValidationReport]:
    with cached_sparql_parsing():
        reference = validate_store(store)
    fast = validate_store_fast(store)
    assert keys(fast) == keys(reference), (
        f"only pySHACL: {sorted(keys(reference) - keys(fast))}\n"
        f"only fast path: {sorted(keys(fast) - keys(reference))}\n"
        f"pySHACL report:\n{reference.to_text()}\nfast report:\n{fast.to_text()}")
    assert fast.conforms == reference.conforms
    return reference, fast


def test_seed_data_same_as_pyshacl() -> None:
    store = Store(None)
    populate(store)
    compare(store)


@pytest.mark.parametrize("fixture", INVALID, ids=lambda p: p.stem)
def test_invalid_fixture_same_as_pyshacl(fixture: Path) -> None:
    reference, fast = compare(fixture_store(fixture))
    assert fast.violations, "an invalid fixture must give the fast path something to find"
    # Same messages and the same file:line, so either report reads the same to a contributor.
    assert ({(v.rule, v.focus, v.message, v.file, v.line) for v in fast.violations}
            == {(v.rule, v.focus, v.message, v.file, v.line) for v in reference.violations})


@pytest.mark.parametrize("fixture", [v for v in VALID if "Context" not in v.name][:3], ids=lambda p: p.stem)
def test_valid_fixture_conforms_fast(fixture: Path) -> None:
    report = validate_store_fast(fixture_store(fixture))
    assert report.conforms and not report.violations, report.to_text()


def test_every_shape_is_translated() -> None:
    shapes = load_shapes()
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
        validate_store_fast(Store(None), shapes_dir=tmp_path)


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
    with cached_sparql_parsing():
        reference = validate_store(store, shapes_dir=tmp_path)
    fast = validate_store_fast(store, shapes_dir=tmp_path)
    assert keys(fast) == keys(reference)
    assert ("count", "urn:d", "https://w3id.org/hpckg/ontology#countFound", "x") in keys(fast)
    assert ("slug", "urn:b", "https://w3id.org/hpckg/ontology#slug", "Not OK") in keys(fast)
