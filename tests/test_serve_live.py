"""`hpckg serve` as a real process on 127.0.0.1: the SPARQL 1.1 Protocol through SPARQLWrapper (every query
form, GET and both POST forms, datasets, errors), the time limit killing a worker while other clients are
answered, malformed and chunked requests over a raw socket, and SIGTERM. Everything else about the server
is tested in-process (test_serve_protocol.py, test_serve_site.py)."""

from __future__ import annotations

import csv
import io
import json
import re
import signal
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

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

from serve_live import serve_store, start_server

KALOS = "https://w3id.org/hpckg/id/system/kalos"
KALOS_GRAPH = "https://w3id.org/hpckg/graph/data/ttl/systems/kalos.ttl"
SYSTEMS = "SELECT ?s ?label WHERE { ?s a hpc:System ; rdfs:label ?label } ORDER BY ?s"


@pytest.fixture(scope="module")
def server():
    live = start_server(serve_store(), "--timeout", "2", "--workers", "2", "--rate-limit", "0")
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


@pytest.mark.parametrize("fmt", [TURTLE, JSONLD, RDFXML])
@pytest.mark.parametrize("form", ["construct", "describe"])
def test_construct_and_describe_in_every_rdf_format(server, fmt, form):
    query = CONSTRUCT if form == "construct" else f"DESCRIBE <{KALOS}>"
    graph = _graph(client(server, query, fmt).queryAndConvert(), fmt)
    kalos = rdflib.URIRef(KALOS)
    if form == "construct":
        claims = set(graph.subjects(rdflib.URIRef("https://w3id.org/hpckg/ontology#about"), kalos))
        assert rdflib.URIRef("https://w3id.org/hpckg/id/claim/kalos-operator") in claims
    else:
        assert (kalos, rdflib.RDFS.label, rdflib.Literal("Kalos (Shanghai AI Lab)", lang="en")) in graph


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


# ---- errors and limits --------------------------------------------------------------------------------

def test_malformed_query_is_query_bad_formed_with_the_parsers_position(server):
    with pytest.raises(QueryBadFormed) as error:
        client(server, "SELECT * WHERE {\n  ?s ?p \n}").query()
    # the query's own line (no hidden prefix lines shift it), with a short message, not the parser's token list
    assert "syntax error at line 3, column" in str(error.value) and '"line": 3' in str(error.value)


def test_update_through_sparqlwrapper_is_refused(server):
    sparql = client(server, "INSERT DATA { <http://a> <http://b> <http://c> }", method=POST)
    with pytest.raises(urllib.error.HTTPError) as error:
        sparql.query()
    assert error.value.code == 403


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



def test_eight_clients_pages_are_answered_while_slow_queries_hold_every_worker(server):
    # Four clients run queries past the time limit (both workers busy, two more requests waiting for a
    # worker); four others read entity pages, which need no worker and must not queue behind them.
    slow_answers: list[int] = []

    def run_slow() -> None:
        slow_answers.append(http(server.url + "/sparql?" + urllib.parse.urlencode({"query": SLOW}))[0])

    slow = [threading.Thread(target=run_slow) for _ in range(4)]
    for thread in slow:
        thread.start()
    time.sleep(0.3)
    pages: list[int] = []

    def read_pages() -> None:
        for kind, slug in (("system", "kalos"), ("site", "acme"), ("org", "nvidia")):
            pages.append(http(f"{server.url}/page/{kind}/{slug}")[0])

    readers = [threading.Thread(target=read_pages) for _ in range(4)]
    for thread in readers:
        thread.start()
    for thread in readers:
        thread.join(60)
    still_running = any(thread.is_alive() for thread in slow)
    for thread in slow:
        thread.join(60)
    assert pages == [200] * 12
    assert still_running, "the pages should be answered while the slow queries still run"
    assert sorted(slow_answers) == [503] * 4  # time limit, or no worker free within it


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


# ---- stopping ------------------------------------------------------------------------------------------

# abuse: a signal mid-query; it waits out uvicorn's 5 s grace for the open request (make test only)
@pytest.mark.abuse
def test_sigterm_stops_the_server_and_its_query_workers_even_mid_query():
    live = start_server(serve_store(), "--workers", "2", "--rate-limit", "0", "--timeout", "60")
    workers = _children(live.process.pid)
    assert len(workers) >= 2, workers

    def run_slow() -> None:
        try:
            http(live.url + "/sparql?" + urllib.parse.urlencode({"query": SLOW}))
        except OSError:
            pass  # the server closes the connection as it stops

    slow = threading.Thread(target=run_slow, daemon=True)
    slow.start()
    time.sleep(0.5)  # the slow query is running in a worker
    live.process.send_signal(signal.SIGTERM)
    assert live.process.wait(20) == 0  # not the 60 s time limit
    assert "stopping" in live.process.stderr.read().decode()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in workers), "query workers outlived the server"


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listing:
            return [int(child) for child in listing.read().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False
