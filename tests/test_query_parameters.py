"""Canned query parameters: declared in the query's header with a default and a type read from the ontology,
given as `hpckg query NAME --param name=value` or `?name=value` on the web, shown in `--list` and on the
home page, checked against the allowed values and bound as RDF terms (never pasted into the query text).
accelerators-by-country can leave out leads: China's 116,992 includes a 100,000-card lead."""

from __future__ import annotations

import csv
import io
import re

import pytest

from hpckg.errors import InputError
from hpckg.query import canned_queries, canned_query
from hpckg.querytext import PAGING
from hpckg.serve import urls
from hpckg.store import Store
from hpckg.vocabulary import vocabulary
from serve_live import in_process, serve_store

from conftest import run_hpckg, session_project, text

TIERS = "https://w3id.org/hpckg/ontology#TierScheme"


def china(store: Store, **params: str) -> dict[str, str]:
    result = store.query(canned_query(session_project(), "accelerators-by-country").bind(params))
    names = [v.value for v in result.variables]
    rows = [{n: row[n].value for n in names if row[n] is not None} for row in result]
    return next(r for r in rows if r.get("code") == "CN")


def test_every_declared_parameter_has_a_valid_default_and_a_values_line():
    declared = [(q, p) for q in canned_queries(session_project()) for p in q.parameters]
    assert {q.name for q, _ in declared} >= {"accelerators-by-country", "accelerators-by-operator",
                                             "claims-below-tier"}
    for query, parameter in declared:
        parameter.terms(parameter.default)
        if parameter.name in PAGING:
            assert re.search(rf"^{PAGING[parameter.name]} {parameter.default}$", query.text, re.M), query.name
        else:
            assert query.text.count(f"VALUES ?{parameter.name} ") >= 1, query.name
        assert parameter.description, f"{query.name}: {parameter.name} says nothing about what it does"
        query.bind()  # the defaults bind


def test_min_tier_leaves_leads_out_of_the_totals(seed_store: Store):
    everything = china(seed_store)
    assert int(everything["accelerators"]) == 116992 and int(everything["lead"]) == 100000
    without_leads = china(seed_store, min_tier="reported")
    assert int(without_leads["accelerators"]) == 116992 - 100000
    assert int(without_leads["lead"]) == 0
    assert without_leads["weakestTier"].endswith("/reported")


def test_allowed_values_come_from_the_ontology():
    here = session_project()
    [min_tier] = [p for p in canned_query(here, "accelerators-by-country").parameters if p.name == "min_tier"]
    assert min_tier.allowed() == [c.notation for c in vocabulary(here.ontology_dir).schemes[TIERS].concepts]


@pytest.mark.parametrize("params,message", [
    ({"min_tier": "reproted"}, "did you mean reported"),
    ({"min_tier": "lead> } ?s ?p ?o {"}, "is one of verified, reported, lead"),
    ({"min_tier": 'tier:lead" . } DROP ALL #'}, "is one of"),
    ({"include_all": "1; DROP"}, "true or false"),
    ({"no_such": "x"}, "has no parameter no_such; it takes min_tier, include_all"),
])
def test_values_are_checked_never_pasted(params, message):
    query = canned_query(session_project(), "accelerators-by-country")
    with pytest.raises(InputError, match=message.replace("?", r"\?")):
        query.bind(params)


def test_bound_values_are_rdf_terms():
    bound = canned_query(session_project(), "accelerators-by-country").bind({"min_tier": "reported",
                                                                             "include_all": "TRUE"})
    assert "VALUES ?min_tier { <https://w3id.org/hpckg/vocab/tier/reported> }" in bound
    assert 'VALUES ?include_all { "true"^^<http://www.w3.org/2001/XMLSchema#boolean> }' in bound


def test_systems_are_bound_as_their_iris_in_one_values_line():
    query = canned_query(session_project(), "compare-systems")
    bound = query.bind({"system": "kalos, seren,bytedance-megascale"})
    assert ("VALUES ?system { <https://w3id.org/hpckg/id/system/kalos> <https://w3id.org/hpckg/id/system/seren> "
            "<https://w3id.org/hpckg/id/system/bytedance-megascale> }") in bound
    for bad in ("", "kalos,> } DROP ALL #", "sys:kalos", "all,kalos"):
        with pytest.raises(InputError, match="one or more system slugs"):
            query.bind({"system": bad})


def test_limit_and_offset_page_an_answer(seed_store: Store):
    query = canned_query(session_project(), "weakest-sourced-systems")
    every = rows(seed_store, query.bind({"limit": "100000"}))
    assert len(every) > 3
    assert rows(seed_store, query.bind({"limit": "2"})) == every[:2]
    assert rows(seed_store, query.bind({"limit": "2", "offset": "2"})) == every[2:4]
    assert rows(seed_store, query.bind({"limit": "0"})) == []
    for bad, message in (("-1", "0 or more"), ("2 } LIMIT 9", "whole number"), ("1e3", "whole number")):
        with pytest.raises(InputError, match=message):
            query.bind({"limit": bad})


def rows(store: Store, text: str) -> list[tuple]:
    return [tuple(row) for row in store.query(text)]


def test_all_systems_is_a_word_bound_as_undef():
    # The per-system queries answer one system by default (a whole-graph answer is past the endpoint's result
    # cap on the full imports); `all` still asks for every system, as UNDEF in the same VALUES line.
    for name in ("system-claims", "system-components", "timeline"):
        query = canned_query(session_project(), name)
        assert "VALUES ?system { <https://w3id.org/hpckg/id/system/kalos> }" in query.bind()
        assert "VALUES ?system { UNDEF }" in query.bind({"system": "all"})
        assert "VALUES ?system { UNDEF }" in query.bind({"system": " ALL "})


def test_cli_param_and_list(built_store):
    completed = run_hpckg("query", "accelerators-by-country", "--param", "min_tier=reported", "--format", "csv",
                          "--store", str(built_store))
    out, err = text(completed)
    assert completed.returncode == 0, err
    [row] = [r for r in csv.DictReader(io.StringIO(out)) if r["code"] == "CN"]
    assert row["accelerators"] == "16992"
    refused = run_hpckg("query", "accelerators-by-country", "--param", "min_tier=reproted", "--store",
                        str(built_store))
    assert refused.returncode != 0 and "did you mean reported" in text(refused)[1]
    listed = text(run_hpckg("query", "--list"))[0]
    assert "--param min_tier=lead (one of verified, reported, lead)" in listed


@pytest.fixture(scope="module")
def web():
    with in_process(serve_store(), workers=1, rate_limit=0) as client:
        yield client


def test_web_parameters_on_the_page_the_downloads_and_the_home_page(web):
    page = web.get(urls.canned("accelerators-by-country", params={"min_tier": "reported"}))
    assert page.status_code == 200
    assert "16,992" in page.text or "16992" in page.text
    assert "116992" not in page.text and "116,992" not in page.text
    assert "<option selected>reported</option>" in page.text
    assert urls.canned("accelerators-by-country", "csv", {"min_tier": "reported"}).replace("&", "&amp;") in page.text
    download = web.get(urls.canned("accelerators-by-country", "csv", {"min_tier": "reported"}))
    assert download.status_code == 200 and "116992" not in download.text and "16992" in download.text
    listed = web.get(urls.queries())
    assert 'name="min_tier"' in listed.text and "the lowest tier counted" in listed.text
    # Issue 35: the list showed each comment's first line, cut mid-sentence ("each of its"), and its code spans
    # as raw backticks; a visitor reads whole sentences and code set as code.
    assert "`" not in listed.text.split("<body", 1)[1], "unrendered Markdown code span"
    assert "<code>hpckg query NAME --param min_tier=reported</code>" in listed.text
    assert "each of its</td>" not in listed.text and "each of its components with its role" in listed.text


def test_web_refuses_a_bad_value_in_the_error_shape(web):
    response = web.get(urls.canned("accelerators-by-country", "json", {"min_tier": "lead> }"}),
                       headers={"Accept": "application/json"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid-parameter" and "verified, reported, lead" in error["message"]


def test_a_parameter_repeated_in_subqueries_is_bound_in_each():
    query = canned_query(session_project(), "top500-list")
    repeated = query.text.count("VALUES ?edition {")
    assert repeated >= 2, "top500-list names the edition in two subqueries"
    bound = query.bind({"edition": "2024-11"})
    assert bound.count("VALUES ?edition { <https://w3id.org/hpckg/id/dataset/top500-2024-11> }") == repeated
    assert "2025-06" not in bound.split("SELECT", 1)[1]
