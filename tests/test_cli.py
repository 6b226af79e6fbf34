"""The `hpckg` command run for real in a subprocess: build, validate, query, export and their failure paths."""

from __future__ import annotations

import json
import re

import pyoxigraph as ox
import pytest

from hpckg.cli import COMMANDS, make_parser

from conftest import ROOT, curated_root, run_hpckg, text

VIOLATION = """\
@prefix hpc:   <https://w3id.org/hpckg/ontology#> .
@prefix claim: <https://w3id.org/hpckg/id/claim/> .
@prefix sys:   <https://w3id.org/hpckg/id/system/> .
@prefix tier:  <https://w3id.org/hpckg/vocab/tier/> .
# A claim with no source: breaks the rule that every claim cites at least one source.
claim:kalos-sourceless-rmax a hpc:Claim ;
    hpc:about sys:kalos ; hpc:property hpc:rmax ; hpc:value 1.0 ;
    hpc:tier tier:reported .
"""

SYNTAX_ERROR = """\
@prefix hpc: <https://w3id.org/hpckg/ontology#> .

<https://w3id.org/hpckg/id/system/x> hpc:slug "unterminated .
"""


def test_every_command_is_registered_and_documented():
    parser = make_parser()
    registered = set(parser._subparsers._group_actions[0].choices)  # noqa: SLF001 - argparse internals
    assert registered == set(COMMANDS), "every command in the COMMANDS table must be importable"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name, sub in parser._subparsers._group_actions[0].choices.items():  # noqa: SLF001
        help_text = sub.format_help()
        assert "example" in help_text, f"hpckg {name} --help has no example"
        assert f"hpckg {name}" in readme, f"README does not document `hpckg {name}`"


def test_help_runs_for_every_command():
    for name in COMMANDS:
        completed = run_hpckg(name, "--help")
        out, err = text(completed)
        assert completed.returncode == 0, err
        assert f"hpckg {name}" in out


def test_build_prints_summary_and_store_answers(built_store):
    completed = run_hpckg("query", "-e", "SELECT (COUNT(*) AS ?n) WHERE { ?s a hpc:System }",
                          "--format", "csv", "--store", str(built_store))
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert int(out.splitlines()[1]) >= 1


def test_build_summary_counts(tmp_path):
    # The installed console script itself, as a user's shell runs it: the one build of the suite's CLI tests
    # that goes through the entry point, the interpreter's start-up and the exit status the OS reports.
    completed = run_hpckg("build", "--no-pages", "--store", str(tmp_path / "store"), cwd=curated_root(), process=True)
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert re.search(r"^triples: \d+ \(\d+ derived\)$", out, re.M)
    assert re.search(r"^systems: [1-9]\d*$", out, re.M)
    assert "claims by tier:" in out and "reported" in out
    assert "violations: 0" in out
    assert "loaded" in err  # progress lines go to stderr


def _count_systems(store) -> int:
    completed = run_hpckg("query", "-e", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", "--format", "csv",
                          "--store", str(store))
    assert completed.returncode == 0, text(completed)[1]
    return int(text(completed)[0].splitlines()[1])


def test_failed_build_leaves_last_good_store_untouched(tmp_path):
    store = tmp_path / "store"
    assert run_hpckg("build", "--no-pages", "--quiet", "--store", str(store), cwd=curated_root()).returncode == 0
    before = _count_systems(store)
    bad = tmp_path / "bad.ttl"
    bad.write_text(VIOLATION, encoding="utf-8")
    completed = run_hpckg("build", "--no-pages", "--quiet", "--store", str(store), str(bad), cwd=curated_root())
    out, err = text(completed)
    assert completed.returncode == 1, out + err
    assert "last good store was left untouched" in err
    assert "claim:kalos-sourceless-rmax" in err
    assert _count_systems(store) == before
    assert not (tmp_path / "store.building").exists()


def test_syntax_error_reports_file_line_column(tmp_path):
    bad = tmp_path / "broken.ttl"
    bad.write_text(SYNTAX_ERROR, encoding="utf-8")
    for command in (["validate", str(bad)], ["build", "--memory", "--quiet", str(bad)]):
        completed = run_hpckg(*command)
        out, err = text(completed)
        assert completed.returncode == 2, out + err
        assert re.search(rf"{re.escape(str(bad))}:3:\d+: ", out + err), out + err
        assert "Traceback" not in err


def test_validate_conforms_and_reports_violations_as_json(tmp_path):
    completed = run_hpckg("validate")
    out, err = text(completed)
    assert completed.returncode == 0, out + err
    assert "conforms" in out
    bad = tmp_path / "violation.ttl"
    bad.write_text(VIOLATION, encoding="utf-8")
    completed = run_hpckg("validate", str(bad), "--format", "json")
    out, err = text(completed)
    assert completed.returncode == 1, out + err
    report = json.loads(out)
    assert report["conforms"] is False
    mine = [v for v in report["violations"] if v["focus"].endswith("claim/kalos-sourceless-rmax")]
    assert mine, report
    assert all(v["file"] and v["file"].endswith("violation.ttl") for v in mine)
    assert all(v["line"] == 6 for v in mine)
    assert all(v["message"] for v in mine)


KALOS_NEEDS_A_SEE_ALSO = """\
@prefix sh:   <http://www.w3.org/ns/shacl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix ex:   <https://example.org/shapes/> .
ex:KalosSeeAlso a sh:NodeShape ;
    sh:name "kalos-see-also" ;
    sh:targetNode <https://w3id.org/hpckg/id/system/kalos> ;
    sh:property [ sh:path rdfs:seeAlso ; sh:minCount 1 ;
                  sh:message "Kalos needs an rdfs:seeAlso." ] .
"""


def test_validate_store_applies_todays_shapes_to_a_built_store_without_rebuilding_it(built_store, project):
    """The built store as it is, against the project's shapes/ of now: a shape added after the build finds
    what it finds in the stored graph, named by its file; the store is only read."""
    completed = run_hpckg("validate", "--store", str(built_store), "--format", "json", cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0, out + err
    assert json.loads(out)["conforms"] is True
    (project / "shapes" / "kalos-see-also.ttl").write_text(KALOS_NEEDS_A_SEE_ALSO, encoding="utf-8")
    before = sorted(p.stat().st_mtime_ns for p in built_store.resolve().rglob("*") if p.is_file())
    completed = run_hpckg("validate", "--store", str(built_store), "--format", "json", cwd=project)
    out, err = text(completed)
    assert completed.returncode == 1, out + err
    [found] = [v for v in json.loads(out)["violations"] if v["message"] == "Kalos needs an rdfs:seeAlso."]
    assert found["focus"].endswith("/system/kalos") and found["file"].endswith("systems/kalos.ttl"), found
    assert sorted(p.stat().st_mtime_ns for p in built_store.resolve().rglob("*") if p.is_file()) == before


def test_validate_store_refuses_extra_files_a_server_or_no_store(built_store, tmp_path):
    for args, said in ((["--store", str(built_store), "x.ttl"], "--store validates the built store as it is"),
                       (["--store", "http://127.0.0.1:9/sparql"], "validation runs on an embedded store folder"),
                       (["--store", str(tmp_path / "none")], str(tmp_path / "none"))):
        completed = run_hpckg("validate", *args)
        out, err = text(completed)
        assert completed.returncode == 2, out + err
        assert said in err and "Traceback" not in err, err


def test_validate_missing_file_is_unusable_input(tmp_path):
    completed = run_hpckg("validate", str(tmp_path / "nope.ttl"))
    out, err = text(completed)
    assert completed.returncode == 2
    assert "nope.ttl: no such file" in err


@pytest.mark.parametrize("fmt,check", [
    ("table", lambda out: "(1 row)" in out),
    ("csv", lambda out: out.startswith("n\r\n") or out.startswith("n\n")),
    ("tsv", lambda out: out.startswith("?n")),
    ("json", lambda out: json.loads(out)["head"]["vars"] == ["n"]),
    ("xml", lambda out: "<sparql" in out),
])
def test_query_select_formats(built_store, fmt, check):
    completed = run_hpckg("query", "-e", "SELECT (COUNT(*) AS ?n) WHERE { ?c a hpc:Claim }",
                          "--format", fmt, "--store", str(built_store))
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert check(out), out


@pytest.mark.parametrize("fmt", ["ttl", "nt", "jsonld", "xml"])
def test_query_construct_formats_parse_back(built_store, fmt):
    from hpckg.formats import rdf_format

    completed = run_hpckg("query", "-e", "CONSTRUCT { ?s hpc:operator ?o } WHERE { ?s hpc:operator ?o }",
                          "--format", fmt, "--store", str(built_store))
    out, err = text(completed)
    assert completed.returncode == 0, err
    triples = list(ox.parse(completed.stdout, format=rdf_format(fmt).oxigraph))
    assert any(q.subject.value.endswith("/system/kalos") for q in triples)


def test_query_canned_by_name_and_file(built_store, tmp_path):
    listing = run_hpckg("query", "--list")
    out, _ = text(listing)
    assert listing.returncode == 0
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert names, "queries/ has no canned query"
    assert all(len(line.split(maxsplit=1)) == 2 for line in out.splitlines()), "a query has no description"
    query_file = tmp_path / "mine.rq"
    query_file.write_text("# systems\nSELECT ?s WHERE { ?s a hpc:System }\n", encoding="utf-8")
    completed = run_hpckg("query", str(query_file), "--store", str(built_store))
    assert completed.returncode == 0, text(completed)[1]
    assert "sys:kalos" in text(completed)[0]


def test_query_errors_are_clean(built_store, tmp_path):
    completed = run_hpckg("query", "-e", "SELECT ?s WHERE {\n  ?s ?p \n}", "--store", str(built_store))
    out, err = text(completed)
    assert completed.returncode == 2
    assert re.search(r"SPARQL syntax error at line 3, column \d+: the query ends too early, after '\}'", err), err
    assert "Traceback" not in err
    completed = run_hpckg("query", "no-such-query", "--store", str(built_store))
    assert completed.returncode == 2 and "no canned query named 'no-such-query'" in text(completed)[1]
    completed = run_hpckg("query", str(tmp_path / "missing.rq"), "--store", str(built_store))
    assert completed.returncode == 2 and "query file not found" in text(completed)[1]
    completed = run_hpckg("query", "-e", "SELECT * WHERE { ?s ?p ?o }", "--store", str(tmp_path / "none"))
    assert completed.returncode == 2 and "run `hpckg build` first" in text(completed)[1]
    completed = run_hpckg("query", "-e", "ASK { ?s ?p ?o }", "--format", "ttl", "--store", str(built_store))
    assert completed.returncode == 2 and "does not apply to SELECT/ASK" in text(completed)[1]


def test_unwritable_store_path(tmp_path):
    # A regular file where the store's parent folder should be: no user, root included, can write there.
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    completed = run_hpckg("build", "--no-pages", "--quiet", "--store", str(blocker / "store"), cwd=curated_root())
    out, err = text(completed)
    assert completed.returncode == 2, out + err
    assert "cannot write the store" in err
    assert "Traceback" not in err


def _canonical(quads, *, keep_graphs: bool) -> set[str]:
    """Statements with blank nodes canonicalised, so two isomorphic datasets compare equal as sets. The
    export's timestamp (dcterms:modified) differs between two runs and is left out."""
    modified = "http://purl.org/dc/terms/modified"
    kept = [q if keep_graphs else ox.Quad(q.subject, q.predicate, q.object)
            for q in quads if q.predicate.value != modified]
    dataset = ox.Dataset(kept)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return {str(q) for q in dataset}


@pytest.mark.parametrize("fmt", ["ttl", "nt", "nq", "trig", "jsonld", "xml"])
def test_export_round_trips_to_an_isomorphic_graph(built_store, tmp_path, fmt):
    from hpckg.formats import rdf_format

    info = rdf_format(fmt)
    reference = tmp_path / "reference.nq"
    assert run_hpckg("export", "--format", "nq", "--out", str(reference), "--store", str(built_store)).returncode == 0
    exported = tmp_path / f"exported.{info.extension}"
    completed = run_hpckg("export", "--format", fmt, "--out", str(exported), "--store", str(built_store))
    assert completed.returncode == 0, text(completed)[1]
    # Load the export into a fresh store, as a user re-importing the dump would.
    reloaded = ox.Store()
    reloaded.load(path=str(exported), format=info.oxigraph)
    original = list(ox.parse(path=str(reference), format=ox.RdfFormat.N_QUADS))
    assert len(original) > 3000
    assert _canonical(reloaded, keep_graphs=info.is_quad and fmt != "jsonld") == _canonical(
        original, keep_graphs=info.is_quad and fmt != "jsonld")
    if info.is_quad and fmt != "jsonld":
        graphs = {q.graph_name.value for q in reloaded if isinstance(q.graph_name, ox.NamedNode)}
        assert "https://w3id.org/hpckg/graph/derived" in graphs
        assert "https://w3id.org/hpckg/graph/meta" in graphs
        assert any(g.endswith("data/ttl/systems/kalos.ttl") for g in graphs)


def test_export_carries_void_and_dcat_description(built_store):
    completed = run_hpckg("export", "--format", "nt", "--store", str(built_store))
    out, err = text(completed)
    assert completed.returncode == 0, err
    graph = ox.Store()
    graph.load(completed.stdout, format=ox.RdfFormat.N_TRIPLES)
    rows = list(graph.query("""
        PREFIX void: <http://rdfs.org/ns/void#> PREFIX dcat: <http://www.w3.org/ns/dcat#>
        PREFIX dcterms: <http://purl.org/dc/terms/>
        SELECT ?triples ?classes ?licence WHERE {
          <https://w3id.org/hpckg/dataset> a void:Dataset, dcat:Dataset ; void:triples ?triples ;
             void:classes ?classes ; dcterms:license ?licence ; dcat:distribution ?d . }"""))
    assert rows and int(rows[0]["triples"].value) > 1000 and int(rows[0]["classes"].value) > 5
    partitions = list(graph.query("""
        PREFIX void: <http://rdfs.org/ns/void#>
        SELECT ?n WHERE { ?p void:class <https://w3id.org/hpckg/ontology#System> ; void:entities ?n }"""))
    assert partitions and int(partitions[0]["n"].value) >= 1


def test_export_rejects_unknown_format(built_store):
    completed = run_hpckg("export", "--format", "yaml", "--store", str(built_store))
    assert completed.returncode == 2
    assert "invalid choice" in text(completed)[1]


def test_jsonld_context_is_generated_from_the_ontology():
    from hpckg.export import jsonld_context_text

    shipped = (ROOT / "ontology" / "context.jsonld").read_text(encoding="utf-8")
    assert shipped == jsonld_context_text(ROOT / "ontology"), \
        "ontology/context.jsonld is stale: regenerate it (make context)"
    context = json.loads(shipped)["@context"]
    assert context["operator"] == {"@id": "hpc:operator", "@type": "@id"}
    assert context["quantity"] == {"@id": "hpc:quantity"}
