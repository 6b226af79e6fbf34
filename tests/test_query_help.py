"""A query that uses a term the ontology does not define (`hpc:Sytem`) parses, runs and matches nothing: the
CLI and the web editor warn, with the nearest defined term. A syntax error says line, column and a short
message, not the parser's list of every token and Unicode range it would have accepted."""

from __future__ import annotations

import re

import pytest

from hpckg.querytext import undefined_terms
from hpckg.serve import urls
from serve_live import in_process, serve_store

from conftest import ROOT, run_hpckg, session_project, text

TYPO = "SELECT ?s WHERE { ?s a hpc:Sytem ; hpc:operatr ?o . ?c hpc:tier tier:reproted }"
UNFINISHED = "SELECT ?s WHERE {\n  ?s a hpc:System ;\n     hpc:operator "
PARSER_NOISE = re.compile(r"\\u\{|\[_\]|'\.\.='")


def test_cli_warns_of_undefined_terms_with_did_you_mean(built_store):
    completed = run_hpckg("query", "-e", TYPO, "--store", str(built_store))
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert "(0 rows)" in out
    assert "warning: hpc:Sytem is not defined in the ontology; did you mean hpc:System" in err
    assert "warning: hpc:operatr is not defined in the ontology; did you mean hpc:operator" in err
    assert "warning: tier:reproted is not defined in the ontology; did you mean tier:reported?" in err


def test_defined_terms_strings_comments_and_full_iris_are_read_right():
    query = ('PREFIX o: <https://w3id.org/hpckg/ontology#>\n'
             'SELECT ?s WHERE { ?s a o:System ; <https://w3id.org/hpckg/ontology#slg> "hpc:Nope" } # hpc:Nah')
    assert [w.split(" ")[0] for w in undefined_terms(query, session_project().ontology_dir)] == ["hpc:slg"]


@pytest.mark.parametrize("path", sorted((ROOT / "queries").glob("*.rq"))
                         + sorted((ROOT / "queries" / "rules").glob("*.rq")),
                         ids=lambda p: p.name)
def test_no_canned_query_or_rule_uses_an_undefined_term(path):
    assert undefined_terms(path.read_text(encoding="utf-8"), session_project().ontology_dir) == []


def test_cli_syntax_error_is_line_column_and_a_short_message(built_store):
    completed = run_hpckg("query", "-e", UNFINISHED, "--store", str(built_store))
    err = text(completed)[1]
    assert completed.returncode == 2
    assert "SPARQL syntax error at line 3, column" in err and "the query ends too early" in err, err
    assert not PARSER_NOISE.search(err), err
    undeclared = run_hpckg("query", "-e", "SELECT ?s WHERE { ?s a nope:Thing }", "--store", str(built_store))
    assert "the prefix nope: is not declared" in text(undeclared)[1]


@pytest.fixture(scope="module")
def web():
    with in_process(serve_store(), workers=1, rate_limit=0) as client:
        yield client


def test_editor_warns_of_undefined_terms(web):
    page = web.get(urls.query_editor(TYPO))
    assert page.status_code == 200
    warnings = re.search(r'(?s)<div class="warning" id="warnings">(.*?)</div>', page.text).group(1)
    assert "hpc:Sytem is not defined in the ontology; did you mean hpc:System" in warnings
    assert "tier:reproted" in warnings
    assert 'id="warnings"' not in web.get(urls.query_editor("SELECT ?s WHERE { ?s a hpc:System }")).text


def test_editor_and_endpoint_syntax_errors_say_line_column_and_a_short_message(web):
    page = web.get(urls.query_editor("SELECT ?s WHERE {\n ?s ?p ?o FILTER(?x = 'é' "))
    assert page.status_code == 400
    error = re.search(r'(?s)<div class="error">(.*?)</div>', page.text).group(1)
    assert "line 2, column" in error and "the query ends too early" in error
    assert not PARSER_NOISE.search(error) and len(error) < 300, error
    answer = web.get(urls.sparql("SELECT ?s WHERE { ?s ?p ?o } LIMIT x")).json()["error"]
    assert answer["line"] == 1 and answer["column"] and "unexpected 'x'" in answer["message"], answer
