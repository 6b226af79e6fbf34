"""The SPARQL 1.1 Protocol of `hpckg serve`, exercised through a real server process with SPARQLWrapper:
every query form in every format, GET and both POST forms, datasets, errors, limits, timeouts."""

from __future__ import annotations

import csv
import io
import json
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import rdflib
from SPARQLWrapper import (
    CSV,
    GET,
    JSON,
    JSONLD,
    N3,
    POST,
    POSTDIRECTLY,
    RDFXML,
    TSV,
    TURTLE,
    URLENCODED,
    XML,
    SPARQLWrapper,
)
from SPARQLWrapper.SPARQLExceptions import QueryBadFormed

import hpckg.serve.app as app_module
from serve_live import serve_store, start_server

KALOS = "https://w3id.org/hpckg/id/system/kalos"
KALOS_GRAPH = "https://w3id.org/hpckg/graph/data/ttl/systems/kalos.ttl"
SYSTEMS = "SELECT ?s ?label WHERE { ?s a hpc:System ; rdfs:label ?label } ORDER BY ?s"
MAX_RESULTS = 500


@pytest.fixture(scope="module")
def server():
    live = start_server(serve_store(), "--timeout", "2", "--workers", "2", "--rate-limit", "0",
                        "--max-results", str(MAX_RESULTS))
    yield live
    live.stop()


def client(server, query: str, fmt: str = JSON, method: str = GET, request_method: str = URLENCODED):
    sparql = SPARQLWrapper(server.url + "/sparql")
    sparql.setQuery(query)
    sparql.setReturnFormat(fmt)
    sparql.setMethod(method)
    sparql.setRequestMethod(request_method)
    return sparql


def http(url: str, *, data: bytes | None = None, headers: dict | None = None):
    """(status, headers, body) of a request, errors included."""
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


# ---- SELECT and ASK in every results format, GET and both POST forms ----------------------------------

@pytest.mark.parametrize("method,request_method", [(GET, URLENCODED), (POST, URLENCODED), (POST, POSTDIRECTLY)])
def test_select_json_by_every_request_form(server, method, request_method):
    result = client(server, SYSTEMS, JSON, method, request_method).queryAndConvert()
    systems = {b["s"]["value"]: b["label"]["value"] for b in result["results"]["bindings"]}
    assert systems[KALOS] == "Kalos (Shanghai AI Lab)"
    assert result["head"]["vars"] == ["s", "label"]


def test_select_xml(server):
    document = client(server, SYSTEMS, XML).queryAndConvert()
    uris = [node.firstChild.data for node in document.getElementsByTagName("uri")]
    assert KALOS in uris


@pytest.mark.parametrize("fmt,delimiter", [(CSV, ","), (TSV, "\t")])
def test_select_csv_and_tsv(server, fmt, delimiter):
    data = client(server, SYSTEMS, fmt).queryAndConvert()
    if fmt == CSV:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8")), delimiter=delimiter))
        assert rows[0] == ["s", "label"]
        assert [KALOS, "Kalos (Shanghai AI Lab)"] in rows
    else:  # TSV terms are in Turtle syntax, quotes included
        rows = [line.split(delimiter) for line in data.decode("utf-8").splitlines()]
        assert rows[0] == ["?s", "?label"]
        assert [f"<{KALOS}>", '"Kalos (Shanghai AI Lab)"@en'] in rows


@pytest.mark.parametrize("fmt", [JSON, XML])
def test_ask(server, fmt):
    def answer(query: str) -> bool:
        result = client(server, query, fmt).queryAndConvert()
        return result["boolean"] if fmt == JSON else _xml_boolean(result)

    assert answer(f"ASK {{ <{KALOS}> a hpc:System }}") is True
    assert answer("ASK { <https://example.org/nothing> ?p ?o }") is False


def _xml_boolean(document) -> bool:
    return document.getElementsByTagName("boolean")[0].firstChild.data == "true"


# ---- CONSTRUCT and DESCRIBE in every RDF format -------------------------------------------------------

CONSTRUCT = f"CONSTRUCT {{ ?c hpc:about <{KALOS}> ; hpc:property ?p ; hpc:value ?v }} " \
            f"WHERE {{ ?c hpc:about <{KALOS}> ; hpc:property ?p ; hpc:value ?v }}"


def _graph(result, fmt: str) -> rdflib.Graph:
    if isinstance(result, rdflib.Graph):
        return result
    parser = {TURTLE: "turtle", N3: "turtle", JSONLD: "json-ld", RDFXML: "xml"}.get(fmt, "nt")
    return rdflib.Graph().parse(data=result, format=parser)


@pytest.mark.parametrize("fmt", [TURTLE, JSONLD, RDFXML, "nt"])
@pytest.mark.parametrize("form", ["construct", "describe"])
def test_construct_and_describe_in_every_rdf_format(server, fmt, form):
    query = CONSTRUCT if form == "construct" else f"DESCRIBE <{KALOS}>"
    if fmt == "nt":  # SPARQLWrapper has no N-Triples constant: ask by Accept header
        status, headers, body = http(server.url + "/sparql?" + urllib.parse.urlencode({"query": query}),
                                     headers={"Accept": "application/n-triples"})
        assert status == 200 and headers["Content-Type"].startswith("application/n-triples")
        graph = rdflib.Graph().parse(data=body, format="nt")
    else:
        graph = _graph(client(server, query, fmt).queryAndConvert(), fmt)
    kalos = rdflib.URIRef(KALOS)
    if form == "construct":
        claims = set(graph.subjects(rdflib.URIRef("https://w3id.org/hpckg/ontology#about"), kalos))
        assert rdflib.URIRef("https://w3id.org/hpckg/id/claim/kalos-operator") in claims
    else:
        assert (kalos, rdflib.RDFS.label, rdflib.Literal("Kalos (Shanghai AI Lab)", lang="en")) in graph


def test_format_parameter_overrides_accept(server):
    status, headers, body = http(server.url + "/sparql?" + urllib.parse.urlencode(
        {"query": SYSTEMS, "format": "csv"}), headers={"Accept": "application/sparql-results+json"})
    assert status == 200 and headers["Content-Type"].startswith("text/csv")
    assert body.startswith(b"s,label")


# ---- datasets -----------------------------------------------------------------------------------------

def test_default_graph_is_the_union_unless_default_graph_uri_given(server):
    count = "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a hpc:System }"
    union = client(server, count).queryAndConvert()["results"]["bindings"][0]["n"]["value"]
    assert int(union) > 1
    restricted = client(server, count)
    restricted.addDefaultGraph(KALOS_GRAPH)
    assert restricted.queryAndConvert()["results"]["bindings"][0]["n"]["value"] == "1"


def test_named_graph_uri_limits_graph_patterns(server):
    sparql = client(server, "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }")
    sparql.addNamedGraph(KALOS_GRAPH)
    graphs = [b["g"]["value"] for b in sparql.queryAndConvert()["results"]["bindings"]]
    assert graphs == [KALOS_GRAPH]


# ---- errors -------------------------------------------------------------------------------------------

def test_malformed_query_is_400_with_the_parsers_position(server):
    with pytest.raises(QueryBadFormed) as error:
        client(server, "SELECT * WHERE {\n  ?s ?p \n}").query()
    assert "error at 3:" in str(error.value)  # the query's own line: no hidden prefix lines shift it
    status, _, body = http(server.url + "/sparql?" + urllib.parse.urlencode({"query": "SELECT * WHERE { ?s ?p }"}))
    error = json.loads(body)["error"]
    assert status == 400 and error["status"] == 400 and error["code"] == "query-syntax"
    assert (error["line"], error["column"]) == (1, 25) and "SPARQL syntax error" in error["message"]


@pytest.mark.parametrize("body,media", [
    (b"update=INSERT+DATA+%7B%3Chttp%3A%2F%2Fa%3E+%3Chttp%3A%2F%2Fb%3E+%3Chttp%3A%2F%2Fc%3E%7D",
     "application/x-www-form-urlencoded"),
    (b"INSERT DATA { <http://a> <http://b> <http://c> }", "application/sparql-update"),
    (b"DROP ALL", "application/sparql-query"),
])
def test_update_is_refused_403(server, body, media):
    status, _, answer = http(server.url + "/sparql", data=body, headers={"Content-Type": media})
    error = json.loads(answer)["error"]
    assert status == 403 and error["code"] == "read-only" and "read-only" in error["message"]
    assert client(server, "ASK { <http://a> <http://b> <http://c> }").queryAndConvert()["boolean"] is False


def test_update_through_sparqlwrapper_is_refused(server):
    sparql = client(server, "INSERT DATA { <http://a> <http://b> <http://c> }", method=POST)
    with pytest.raises(urllib.error.HTTPError) as error:
        sparql.query()
    assert error.value.code == 403


@pytest.mark.parametrize("query", [
    "SELECT * WHERE { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }",
    "select * where { service\n\t<http://127.0.0.1:1/sparql>{?s ?p ?o} }",
    "SELECT * WHERE { OPTIONAL { ?s ?p ?o } SeRvIcE SILENT <http://127.0.0.1:1/x> { ?s ?p ?o } }",
])
def test_federated_service_is_refused(server, query):
    status, _, body = http(server.url + "/sparql?" + urllib.parse.urlencode({"query": query}))
    assert status == 403 and json.loads(body)["error"]["code"] == "service-refused"


def test_the_word_service_elsewhere_is_not_refused(server):
    query = ('SELECT ?service WHERE { BIND("SERVICE <http://x> {}" AS ?service) '
             "# SERVICE in a comment\n FILTER(?service != <http://example.org/SERVICE>) }")
    result = client(server, query).queryAndConvert()
    assert result["results"]["bindings"][0]["service"]["value"].startswith("SERVICE")


def test_result_cap_refuses_with_a_documented_error(server):
    status, _, body = http(server.url + "/sparql?" + urllib.parse.urlencode(
        {"query": "SELECT * WHERE { ?s ?p ?o }"}))
    error = json.loads(body)["error"]
    assert status == 400 and error["code"] == "result-limit" and "LIMIT" in error["message"]
    capped = client(server, f"SELECT * WHERE {{ ?s ?p ?o }} LIMIT {MAX_RESULTS}").queryAndConvert()
    assert len(capped["results"]["bindings"]) == MAX_RESULTS


SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


def test_timeout_kills_the_slow_query_while_other_clients_are_answered(server):
    slow: dict = {}

    def run_slow() -> None:
        slow["answer"] = http(server.url + "/sparql?" + urllib.parse.urlencode({"query": SLOW}))

    thread = threading.Thread(target=run_slow)
    thread.start()
    answered = []
    for _ in range(5):
        result = client(server, f"ASK {{ <{KALOS}> a hpc:System }}").queryAndConvert()
        answered.append(result["boolean"])
    still_running = thread.is_alive()
    thread.join(60)
    assert answered == [True] * 5
    assert still_running, "the simple queries should be answered while the slow one still runs"
    status, _, body = slow["answer"]
    error = json.loads(body)["error"]
    assert status == 503 and error["code"] == "timeout" and "time limit of 2 s" in error["message"]
    # The killed worker is replaced: the server keeps answering, twice over (both workers busy in turn).
    for _ in range(4):
        assert client(server, f"ASK {{ <{KALOS}> a hpc:System }}").queryAndConvert()["boolean"] is True


# ---- descriptions and graph store ---------------------------------------------------------------------

def test_service_description_at_sparql_without_query(server):
    status, headers, body = http(server.url + "/sparql", headers={"Accept": "text/turtle"})
    assert status == 200 and headers["Content-Type"].startswith("text/turtle")
    graph = rdflib.Graph().parse(data=body, format="turtle")
    sd = rdflib.Namespace("http://www.w3.org/ns/sparql-service-description#")
    service = rdflib.URIRef(server.url + "/sparql")
    assert (service, rdflib.RDF.type, sd.Service) in graph
    assert (service, sd.feature, sd.UnionDefaultGraph) in graph
    assert (service, sd.feature, sd.BasicFederatedQuery) not in graph
    assert rdflib.URIRef(KALOS_GRAPH) in set(graph.objects(None, sd.name))


def test_void_description(server):
    status, _, body = http(server.url + "/.well-known/void", headers={"Accept": "text/turtle"})
    graph = rdflib.Graph().parse(data=body, format="turtle")
    void = rdflib.Namespace("http://rdfs.org/ns/void#")
    assert status == 200
    assert (None, void.sparqlEndpoint, rdflib.URIRef(server.url + "/sparql")) in graph
    assert any(int(n) > 1000 for n in graph.objects(None, void.triples))


def test_graph_store_protocol_read(server):
    status, headers, body = http(server.url + "/store?" + urllib.parse.urlencode({"graph": KALOS_GRAPH}),
                                 headers={"Accept": "application/n-triples"})
    graph = rdflib.Graph().parse(data=body, format="nt")
    assert status == 200 and (rdflib.URIRef(KALOS), rdflib.RDF.type,
                              rdflib.URIRef("https://w3id.org/hpckg/ontology#System")) in graph
    assert all(str(s) != "https://w3id.org/hpckg/id/system/seren" for s in graph.subjects())
    status, _, body = http(server.url + "/store?default", headers={"Accept": "text/turtle"})
    assert status == 200 and len(rdflib.Graph().parse(data=body, format="turtle")) > len(graph)
    status, _, body = http(server.url + "/store?graph=https%3A%2F%2Fexample.org%2Fnone")
    assert status == 404 and json.loads(body)["error"]["code"] == "no-such-graph"


def test_results_xml_is_well_formed_sparql_xml(server):
    _, _, body = http(server.url + "/sparql?" + urllib.parse.urlencode({"query": SYSTEMS}),
                      headers={"Accept": "application/sparql-results+xml"})
    root = ET.fromstring(body)
    assert root.tag == "{http://www.w3.org/2005/sparql-results#}sparql"


# ---- malformed and chunked requests over a raw socket -------------------------------------------------

def raw(server, request: bytes, *, timeout: float = 10.0) -> tuple[int, dict[str, str], bytes]:
    """Send bytes to the server as they are and read one response: (status, headers, body). Fails if the
    server does not answer within `timeout` seconds (a hung request holds a server thread)."""
    parsed = urllib.parse.urlsplit(server.url)
    with socket.create_connection((parsed.hostname, parsed.port), timeout=timeout) as sock:
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may answer and stop reading before the whole request is sent
        data = b""
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in data or not _complete(data):
            if time.monotonic() > deadline:
                raise AssertionError(f"no complete answer within {timeout} s: {data[:300]!r}")
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                raise AssertionError(f"no answer within {timeout} s: {data[:300]!r}") from None
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head, "the server closed the connection without an answer"
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def _complete(data: bytes) -> bool:
    head, _, body = data.partition(b"\r\n\r\n")
    match = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    return match is not None and len(body) >= int(match.group(1))


def _post(headers: str, body: bytes = b"") -> bytes:
    return (f"POST /sparql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/sparql-query\r\n"
            f"Accept: application/sparql-results+json\r\nConnection: close\r\n{headers}\r\n").encode() + body


def _chunked(body: bytes, size: int = 1000) -> bytes:
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size]) for i in range(0, len(body), size))
    return chunks + b"0\r\n\r\n"


@pytest.mark.parametrize("length", ["abc", "-1", "1, 2"])
def test_malformed_content_length_is_refused_promptly_with_400(server, length):
    # uvicorn's HTTP parser refuses these before the application sees them: a plain-text 400 and a closed
    # connection, at once. (The http.server handler answered "abc" with 500 and Python's ValueError text,
    # and hung on "-1", holding a thread.)
    status, headers, body = raw(server, _post(f"Content-Length: {length}\r\n", b"ASK {}"), timeout=5)
    assert status == 400, body
    assert headers.get("connection") == "close"
    assert b"ValueError" not in body and b"invalid literal" not in body and b"Traceback" not in body
    if headers.get("content-type", "").startswith("application/json"):
        assert json.loads(body)["error"]["status"] == 400


def test_chunked_post_runs_the_query(server):
    query = f"ASK {{ <{KALOS}> a hpc:System }}".encode()
    status, _, body = raw(server, _post("Transfer-Encoding: chunked\r\n", _chunked(query, 7)))
    assert status == 200, body
    assert json.loads(body)["boolean"] is True


def test_chunked_body_over_the_limit_is_413(server):
    query = b"ASK {} #" + b"x" * (1 << 20)
    status, _, body = raw(server, _post("Transfer-Encoding: chunked\r\n", _chunked(query, 65536)))
    assert status == 413 and json.loads(body)["error"]["code"] == "too-large"


def test_the_server_uses_no_private_attributes_of_the_standard_library():
    source = (Path(app_module.__file__)).read_text(encoding="utf-8")
    assert "_headers_buffer" not in source and "http.server" not in source
