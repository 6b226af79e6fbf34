"""The W3C SPARQL 1.1 Protocol test manifest (w3c/rdf-tests, sparql/sparql11/protocol/manifest.ttl), its 34
tests encoded here from the manifest's description of each request and expected response, and run against
a real `hpckg serve` process with updates enabled on a scratch store. Nothing is fetched.

Two adaptations, both the manifest's own latitude: its requests go to /sparql/, which is this server's
/sparql; and every request carries the server's update token as Authorization: Bearer (the manifest
assumes an open update service). The graphs the manifest's ut:graphData names (data1.nt to data3.nt: each
graph holds one triple, `<graph IRI> a foaf:Document`) are loaded by an update before the tests that use
them.
"""

from __future__ import annotations

import json
import shutil
import urllib.parse
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import httpx
import pytest

from serve_live import serve_store, start_server

TOKEN = "manifest-token"
DATA = "http://kasei.us/2009/09/sparql/data/"
D0, D1, D2, D3 = (f"{DATA}data{n}.rdf" for n in range(4))
FOAF = "http://xmlns.com/foaf/0.1/"
DC = "http://purl.org/dc/terms/"
QUERY = "application/sparql-query"
UPDATE = "application/sparql-update"
FORM = "application/x-www-form-urlencoded"
LOAD_DATA = "INSERT DATA { " + " ".join(f"GRAPH <{g}> {{ <{g}> a <{FOAF}Document> }}" for g in (D1, D2, D3)) + " }"
PROLOGUE = f"PREFIX dc: <{DC}>\nPREFIX foaf: <{FOAF}>\n"


@dataclass
class Step:
    """One request of a test and what its response must be."""

    method: str
    params: list[tuple[str, str]] = field(default_factory=list)  # the URL's query string
    content_type: str | None = None
    body: bytes | None = None
    status: str = "2xx"  # "2xx" means 2xx or 3xx (hts:StatusCode2xx, hts:StatusCode3xx), "4xx" a 4xx
    boolean: bool | None = None  # mf:expectedBoolean
    format: str | None = None  # mf:expectedFormat: boolean, tabular or RDF


def post(body: str, content_type: str, params=(), **expect) -> Step:
    return Step("POST", list(params), content_type, body.encode("utf-8"), **expect)


def ask_true(query: str, params=(), content_type: str = QUERY) -> Step:
    return post(query, content_type, params, boolean=True, format="boolean")


ASK_D1_D2_DEFAULT = f"ASK {{ <{D1}> a ?type . <{D2}> a ?type . }}"
ASK_D1_D2_NAMED = f"ASK {{ GRAPH ?g1 {{ <{D1}> a ?type }} GRAPH ?g2 {{ <{D2}> a ?type }} }}"
LOAD_ALL = ("DROP ALL ;\nINSERT DATA {\n" + "\n".join(
    f"    GRAPH <{g}> {{ <{g}> a foaf:Document }}" for g in (D1, D2, D3)) + "\n} ;\n")


def dataset_update(target: str, where: str) -> str:
    return (PROLOGUE + LOAD_ALL + f"INSERT {{ GRAPH <{target}> {{ ?s a dc:BibliographicResource }} }}\n"
            f"WHERE {{ {where} }}")


def resources_in(target: str, present: tuple[str, ...], absent: str) -> str:
    triples = " ".join(f"<{g}> a <{DC}BibliographicResource> ." for g in present)
    return (f"ASK {{ GRAPH <{target}> {{ {triples} }} FILTER NOT EXISTS {{ GRAPH <{target}> "
            f"{{ <{absent}> a <{DC}BibliographicResource> }} }} }}")


DEFAULT_TEST = "http://example.org/protocol-update-dataset-test/"
GRAPHS_TEST = "http://example.org/protocol-update-dataset-graphs-test/"
NAMED_TEST = "http://example.org/protocol-update-dataset-named-graphs-test/"
FULL_TEST = "http://example.org/protocol-update-dataset-full-test/"
BASE_TEST = "http://example.org/protocol-base-test/"

TESTS: dict[str, tuple[bool, list[Step]]] = {  # name -> (needs the data graphs, requests)
    "query_post_form": (False, [ask_true("query=ASK%20%7B%7D", [("default-graph-uri", D0)], FORM)]),
    "query_dataset_default_graphs_get": (True, [Step(
        "GET", [("query", ASK_D1_D2_DEFAULT), ("default-graph-uri", D1), ("default-graph-uri", D2)],
        boolean=True, format="boolean")]),
    "query_dataset_default_graphs_post": (True, [ask_true(
        ASK_D1_D2_DEFAULT, [("default-graph-uri", D1), ("default-graph-uri", D2)])]),
    "query_dataset_named_graphs_post": (True, [ask_true(
        ASK_D1_D2_NAMED, [("named-graph-uri", D1), ("named-graph-uri", D2)])]),
    "query_dataset_named_graphs_get": (True, [Step(
        "GET", [("query", ASK_D1_D2_NAMED), ("named-graph-uri", D1), ("named-graph-uri", D2)],
        boolean=True, format="boolean")]),
    "query_dataset_full": (True, [ask_true(
        f"ASK {{ <{D3}> a ?type GRAPH ?g1 {{ <{D1}> a ?type }} GRAPH ?g2 {{ <{D2}> a ?type }} }}",
        [("default-graph-uri", D3), ("named-graph-uri", D1), ("named-graph-uri", D2)])]),
    "query_multiple_dataset": (True, [ask_true(
        f"ASK FROM <{D3}> {{ GRAPH ?g1 {{ <{D1}> a ?type }} GRAPH ?g2 {{ <{D2}> a ?type }} }}",
        [("named-graph-uri", D1), ("named-graph-uri", D2)])]),
    "query_get": (False, [Step("GET", [("query", "ASK {}"), ("default-graph-uri", D0)],
                               boolean=True, format="boolean")]),
    "query_content_type_select": (False, [post("SELECT (1 AS ?value) {}", QUERY, [("default-graph-uri", D0)],
                                               format="tabular")]),
    "query_content_type_ask": (False, [post("ASK {}", QUERY, [("default-graph-uri", D0)], format="boolean")]),
    "query_content_type_describe": (False, [post("DESCRIBE <http://example.org/>", QUERY,
                                                 [("default-graph-uri", D0)], format="RDF")]),
    "query_content_type_construct": (False, [post("CONSTRUCT { <s> <p> 1 } WHERE {}", QUERY,
                                                  [("default-graph-uri", D0)], format="RDF")]),
    "update_dataset_default_graph": (False, [
        post(PROLOGUE + f"CLEAR ALL ;\nINSERT DATA {{ GRAPH <{D1}> {{ <{D1}> a foaf:Document }} }} ;\n"
             f"INSERT {{ GRAPH <{DEFAULT_TEST}> {{ ?s a dc:BibliographicResource }} }}\n"
             "WHERE { ?s a foaf:Document }", UPDATE, [("using-graph-uri", D1)]),
        ask_true(f"ASK {{ GRAPH <{DEFAULT_TEST}> {{ <{D1}> a <{DC}BibliographicResource> }} }}")]),
    "update_dataset_default_graphs": (False, [
        post(dataset_update(GRAPHS_TEST, "?s a foaf:Document"), UPDATE,
             [("using-graph-uri", D1), ("using-graph-uri", D2)]),
        ask_true(resources_in(GRAPHS_TEST, (D1, D2), D3))]),
    "update_dataset_named_graphs": (False, [
        post(dataset_update(NAMED_TEST, "GRAPH ?g { ?s a foaf:Document }"), UPDATE,
             [("using-named-graph-uri", D1), ("using-named-graph-uri", D2)]),
        ask_true(resources_in(NAMED_TEST, (D1, D2), D3))]),
    "update_dataset_full": (False, [
        post(PROLOGUE + LOAD_ALL + f"INSERT {{ GRAPH <{FULL_TEST}> {{ ?s <http://example.org/in> ?in }} }}\n"
             "WHERE { { GRAPH ?g { ?s a foaf:Document } BIND(?g AS ?in) } UNION "
             '{ ?s a foaf:Document . BIND("default" AS ?in) } }', UPDATE,
             [("using-graph-uri", D1), ("using-named-graph-uri", D2)]),
        ask_true(f'ASK {{ GRAPH <{FULL_TEST}> {{ <{D1}> <http://example.org/in> "default" . '
                 f"<{D2}> <http://example.org/in> <{D2}> . }} "
                 f"FILTER NOT EXISTS {{ GRAPH <{FULL_TEST}> {{ <{D3}> ?p ?o }} }} }}")]),
    "update_post_form": (False, [post("update=CLEAR+ALL", FORM)]),
    "update_post_direct": (False, [post("CLEAR ALL", UPDATE)]),
    "update_base_uri": (False, [
        post(f"CLEAR SILENT GRAPH <{BASE_TEST}> ;\nINSERT DATA {{ GRAPH <{BASE_TEST}> "
             "{ <http://example.org/s> <http://example.org/p> <test> } }", UPDATE),
        ask_true(f"ASK {{ GRAPH <{BASE_TEST}> {{ <http://example.org/s> <http://example.org/p> ?o "
                 'FILTER (isIRI(?o) && STR(?o) != "test") } }')]),
    "query_post_direct": (False, [ask_true("ASK {}")]),
    "bad_query_method": (False, [Step("PUT", [("query", "ASK {}"), ("default-graph-uri", D0)], FORM,
                                      status="4xx")]),
    "bad_multiple_queries": (False, [Step("GET", [("query", "ASK {}"), ("query", "SELECT * {}")],
                                          status="4xx")]),
    "bad_query_wrong_media_type": (False, [post("ASK {}", "text/plain", status="4xx")]),
    "bad_query_missing_form_type": (False, [post("query=ASK%20%7B%7D", None, status="4xx")]),
    "bad_query_missing_direct_type": (False, [post("ASK {}", None, status="4xx")]),
    "bad_query_non_utf8": (False, [Step("POST", [], "application/sparql-query; charset=UTF-16",
                                        "ASK {}".encode("utf-16"), status="4xx")]),
    "bad_query_syntax": (False, [Step("GET", [("query", "ASK {")], status="4xx")]),
    "bad_update_get": (False, [Step("GET", [("update", "CLEAR ALL")], status="4xx")]),
    "bad_multiple_updates": (False, [post("update=CLEAR%20NAMED&update=CLEAR%20DEFAULT", FORM, status="4xx")]),
    "bad_update_wrong_media_type": (False, [post("CLEAR NAMED", "text/plain", status="4xx")]),
    "bad_update_missing_form_type": (False, [post("update=CLEAR%20NAMED", None, status="4xx")]),
    "bad_update_non_utf8": (False, [Step("POST", [], "application/sparql-update; charset=UTF-16",
                                         "CLEAR NAMED".encode("utf-16"), status="4xx")]),
    "bad_update_syntax": (False, [post("update=CLEAR%20XYZ", FORM, status="4xx")]),
    "bad_update_dataset_conflict": (False, [post(
        "PREFIX foaf: <http://xmlns.com/foaf/0.1/>\nWITH <http://example/addresses>\n"
        "DELETE { ?person foaf:givenName 'Bill' }\nINSERT { ?person foaf:givenName 'William' }\n"
        "WHERE { ?person foaf:givenName 'Bill' }", UPDATE, [("using-named-graph-uri", "http://example/people")],
        status="4xx")]),
}

TABULAR = ("application/sparql-results+xml", "application/sparql-results+json", "text/csv",
           "text/tab-separated-values")
BOOLEAN = ("application/sparql-results+xml", "application/sparql-results+json")
RDF = ("application/rdf+xml", "text/turtle", "application/n-triples", "text/plain", "text/html",
       "application/xhtml+xml")


def test_the_manifest_has_34_tests():
    assert len(TESTS) == 34


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory):
    store = tmp_path_factory.mktemp("manifest") / "store"
    shutil.copytree(serve_store(), store)
    live = start_server(store, "--timeout", "10", "--workers", "1", "--rate-limit", "0",
                        "--allow-update-token", TOKEN)
    with httpx.Client(base_url=live.url, timeout=30, headers={"Authorization": f"Bearer {TOKEN}"}) as http:
        yield http
    live.stop()


def send(http: httpx.Client, step: Step) -> httpx.Response:
    url = "/sparql" + ("?" + urllib.parse.urlencode(step.params, quote_via=urllib.parse.quote)
                       if step.params else "")
    headers = {"Content-Type": step.content_type} if step.content_type else {}
    request = http.build_request(step.method, url, content=step.body, headers=headers)
    if step.content_type is None:
        request.headers.pop("Content-Type", None)
    return http.send(request)


def boolean_of(response: httpx.Response) -> bool:
    media = response.headers["content-type"].split(";")[0].strip()
    if media == "application/sparql-results+json":
        return json.loads(response.content)["boolean"]
    assert media == "application/sparql-results+xml", media
    element = ET.fromstring(response.content).find("{http://www.w3.org/2005/sparql-results#}boolean")
    return element is not None and element.text == "true"


@pytest.mark.parametrize("name", list(TESTS))
def test_protocol_manifest(endpoint, name):
    needs_data, steps = TESTS[name]
    if needs_data:
        loaded = endpoint.post("/sparql", content="DROP ALL ; " + LOAD_DATA, headers={"Content-Type": UPDATE})
        assert loaded.status_code < 300, loaded.text
    for step in steps:
        response = send(endpoint, step)
        if step.status == "4xx":
            assert 400 <= response.status_code < 500, (response.status_code, response.text)
            continue
        assert 200 <= response.status_code < 400, (response.status_code, response.text)
        media = response.headers.get("content-type", "").split(";")[0].strip()
        if step.format == "boolean":
            assert media in BOOLEAN, media
        elif step.format == "tabular":
            assert media in TABULAR, media
        elif step.format == "RDF":
            assert media in RDF, media
        if step.boolean is not None:
            assert boolean_of(response) is step.boolean, response.text
