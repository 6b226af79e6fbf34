"""The SPARQL 1.1 Protocol of `hpckg serve`, in-process through Starlette's TestClient (real store, real
query worker processes): formats and content negotiation, GET and both POST forms, datasets, errors,
limits, descriptions and the Graph Store Protocol. SPARQLWrapper, the time limit, raw-socket requests and
SIGTERM need a real server process: test_serve_live.py."""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import json
import socket
import urllib.parse
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import rdflib

import hpckg.serve.service as service_module
from hpckg.serve import urls
from hpckg.serve.sparql import deterministic
from hpckg.serve.workers import Job, WorkerPool
from serve_live import in_process, serve_store

KALOS = "https://w3id.org/hpckg/id/system/kalos"
KALOS_GRAPH = "https://w3id.org/hpckg/graph/data/ttl/systems/kalos.ttl"
SYSTEMS = "SELECT ?s ?label WHERE { ?s a hpc:System ; rdfs:label ?label } ORDER BY ?s"
MAX_RESULTS = 500
JSON_RESULTS = {"Accept": "application/sparql-results+json"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.fixture(scope="module")
def web():
    with in_process(serve_store(), timeout=10, workers=2, rate_limit=0, max_results=MAX_RESULTS) as client:
        yield client


def endpoint(web) -> str:
    return str(web.base_url).rstrip("/") + urls.SPARQL


def ask(web, query: str) -> bool:
    return web.get(urls.sparql(query), headers=JSON_RESULTS).json()["boolean"]


# ---- SELECT and ASK: every request form, every results format -------------------------------------------

@pytest.mark.parametrize("form", ["get", "post-form", "post-direct"])
def test_select_by_every_request_form(web, form):
    if form == "get":
        response = web.get(urls.sparql(SYSTEMS), headers=JSON_RESULTS)
    elif form == "post-form":
        response = web.post(urls.sparql(), content=urllib.parse.urlencode({"query": SYSTEMS}),
                            headers={**FORM, **JSON_RESULTS})
    else:
        response = web.post(urls.sparql(), content=SYSTEMS.encode(),
                            headers={"Content-Type": "application/sparql-query", **JSON_RESULTS})
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/sparql-results+json; charset=utf-8"
    result = response.json()
    systems = {b["s"]["value"]: b["label"]["value"] for b in result["results"]["bindings"]}
    assert systems[KALOS] == "Kalos (Shanghai AI Lab)" and result["head"]["vars"] == ["s", "label"]


@pytest.mark.parametrize("accept,delimiter", [("text/csv", ","), ("text/tab-separated-values", "\t")])
def test_select_csv_and_tsv(web, accept, delimiter):
    response = web.get(urls.sparql(SYSTEMS), headers={"Accept": accept})
    assert response.headers["Content-Type"].startswith(accept)
    if delimiter == ",":
        rows = list(csv.reader(io.StringIO(response.text)))
        assert rows[0] == ["s", "label"] and [KALOS, "Kalos (Shanghai AI Lab)"] in rows
    else:  # TSV terms are in Turtle syntax, quotes included
        rows = [line.split(delimiter) for line in response.text.splitlines()]
        assert rows[0] == ["?s", "?label"] and [f"<{KALOS}>", '"Kalos (Shanghai AI Lab)"@en'] in rows


def test_results_xml_is_well_formed_sparql_xml(web):
    response = web.get(urls.sparql(SYSTEMS), headers={"Accept": "application/sparql-results+xml"})
    root = ET.fromstring(response.content)
    assert root.tag == "{http://www.w3.org/2005/sparql-results#}sparql"
    ns = {"r": "http://www.w3.org/2005/sparql-results#"}
    assert KALOS in [uri.text for uri in root.iterfind(".//r:uri", ns)]


def test_ask(web):
    assert ask(web, f"ASK {{ <{KALOS}> a hpc:System }}") is True
    assert ask(web, "ASK { <https://example.org/nothing> ?p ?o }") is False


def test_format_parameter_overrides_accept(web):
    response = web.get(urls.sparql(SYSTEMS, format="csv"), headers=JSON_RESULTS)
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/csv")
    assert response.content.startswith(b"s,label")


def test_head_answers_headers_without_a_body(web):
    response = web.head(urls.sparql(SYSTEMS), headers=JSON_RESULTS)
    assert response.status_code == 200 and response.content == b""
    assert int(response.headers["Content-Length"]) > 0


# ---- CONSTRUCT and DESCRIBE in every RDF format --------------------------------------------------------

@pytest.mark.parametrize("accept,parser", [("text/turtle", "turtle"), ("application/n-triples", "nt"),
                                            ("application/ld+json", "json-ld"), ("application/rdf+xml", "xml")])
@pytest.mark.parametrize("form", ["construct", "describe"])
def test_construct_and_describe_in_every_rdf_format(web, accept, parser, form):
    query = (f"CONSTRUCT {{ ?c hpc:about <{KALOS}> ; hpc:property ?p }} WHERE {{ ?c hpc:about <{KALOS}> ; "
             "hpc:property ?p }" if form == "construct" else f"DESCRIBE <{KALOS}>")
    response = web.get(urls.sparql(query), headers={"Accept": accept})
    assert response.status_code == 200 and response.headers["Content-Type"].startswith(accept)
    graph = rdflib.Graph().parse(data=response.content, format=parser)
    kalos = rdflib.URIRef(KALOS)
    if form == "construct":
        claims = set(graph.subjects(rdflib.URIRef("https://w3id.org/hpckg/ontology#about"), kalos))
        assert rdflib.URIRef("https://w3id.org/hpckg/id/claim/kalos-operator") in claims
    else:
        assert (kalos, rdflib.RDFS.label, rdflib.Literal("Kalos (Shanghai AI Lab)", lang="en")) in graph


# ---- datasets ------------------------------------------------------------------------------------------

COUNT = "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a hpc:System }"


def test_default_graph_is_the_union_unless_default_graph_uri_given(web):
    def count(response) -> int:
        return int(response.json()["results"]["bindings"][0]["n"]["value"])

    assert count(web.get(urls.sparql(COUNT), headers=JSON_RESULTS)) > 1
    assert count(web.get(urls.sparql(COUNT, **{"default-graph-uri": KALOS_GRAPH}), headers=JSON_RESULTS)) == 1
    posted = web.post(urls.sparql(), content=urllib.parse.urlencode(
        {"query": COUNT, "default-graph-uri": KALOS_GRAPH}), headers={**FORM, **JSON_RESULTS})
    assert count(posted) == 1


def test_named_graph_uri_limits_graph_patterns(web):
    response = web.get(urls.sparql("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }",
                                   **{"named-graph-uri": KALOS_GRAPH}), headers=JSON_RESULTS)
    assert [b["g"]["value"] for b in response.json()["results"]["bindings"]] == [KALOS_GRAPH]


# ---- errors and limits ---------------------------------------------------------------------------------

def test_malformed_query_is_400_with_the_parsers_position(web):
    response = web.get(urls.sparql("SELECT * WHERE { ?s ?p }"))
    error = response.json()["error"]
    assert response.status_code == 400 and error["status"] == 400 and error["code"] == "query-syntax"
    assert (error["line"], error["column"]) == (1, 25) and "SPARQL syntax error" in error["message"]


@pytest.mark.parametrize("body,media", [
    (b"update=INSERT+DATA+%7B%3Chttp%3A%2F%2Fa%3E+%3Chttp%3A%2F%2Fb%3E+%3Chttp%3A%2F%2Fc%3E%7D",
     "application/x-www-form-urlencoded"),
    (b"INSERT DATA { <http://a> <http://b> <http://c> }", "application/sparql-update"),
])
def test_update_is_refused_403(web, body, media):
    response = web.post(urls.sparql(), content=body, headers={"Content-Type": media})
    error = response.json()["error"]
    assert response.status_code == 403 and error["code"] == "read-only" and "read-only" in error["message"]
    assert ask(web, "ASK { <http://a> <http://b> <http://c> }") is False


@pytest.mark.parametrize("body,media", [
    (b"DROP ALL", "application/sparql-query"),
    (b"query=INSERT+DATA+%7B%3Chttp%3A%2F%2Fa%3E+%3Chttp%3A%2F%2Fb%3E+%3Chttp%3A%2F%2Fc%3E%7D", FORM["Content-Type"]),
])
def test_an_update_sent_as_a_query_is_a_query_syntax_error(web, body, media):
    response = web.post(urls.sparql(), content=body, headers={"Content-Type": media})
    assert response.status_code == 400 and response.json()["error"]["code"] == "query-syntax"


@pytest.mark.parametrize("query", [
    "SELECT * WHERE { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }",
    "select * where { service\n\t<http://127.0.0.1:1/sparql>{?s ?p ?o} }",
    "SELECT * WHERE { OPTIONAL { ?s ?p ?o } SeRvIcE SILENT <http://127.0.0.1:1/x> { ?s ?p ?o } }",
])
def test_federated_service_is_refused(web, query):
    response = web.get(urls.sparql(query))
    assert response.status_code == 403 and response.json()["error"]["code"] == "service-refused"


def test_the_word_service_elsewhere_is_not_refused(web):
    query = ('SELECT ?service WHERE { BIND("SERVICE <http://x> {}" AS ?service) '
             "# SERVICE in a comment\n FILTER(?service != <http://example.org/SERVICE>) }")
    result = web.get(urls.sparql(query), headers=JSON_RESULTS).json()
    assert result["results"]["bindings"][0]["service"]["value"].startswith("SERVICE")


def test_result_cap_refuses_with_a_documented_error(web):
    response = web.get(urls.sparql("SELECT * WHERE { ?s ?p ?o }"))
    error = response.json()["error"]
    assert response.status_code == 400 and error["code"] == "result-limit" and "LIMIT" in error["message"]
    capped = web.get(urls.sparql(f"SELECT * WHERE {{ ?s ?p ?o }} LIMIT {MAX_RESULTS}"), headers=JSON_RESULTS)
    assert len(capped.json()["results"]["bindings"]) == MAX_RESULTS


def test_empty_query_and_missing_content_type(web):
    empty = web.post(urls.sparql(), content=b"  ", headers={"Content-Type": "application/sparql-query"})
    assert empty.status_code == 400 and empty.json()["error"]["code"] == "missing-query"
    untyped = web.post(urls.sparql(), content=b"ASK {}", headers={"Content-Type": "text/plain"})
    assert untyped.status_code == 415 and untyped.json()["error"]["code"] == "unsupported-media-type"
    both = web.get(urls.sparql("ASK {}", update="CLEAR ALL"))
    assert both.status_code == 400 and both.json()["error"]["code"] == "query-and-update"


def test_body_over_one_mebibyte_is_413_whether_announced_or_streamed(web):
    query = b"ASK {} #" + b"x" * (1 << 20)
    announced = web.post(urls.sparql(), content=query, headers={"Content-Type": "application/sparql-query"})
    assert announced.status_code == 413 and announced.json()["error"]["code"] == "too-large"
    # A generator body is sent chunked, without Content-Length: the server counts as it reads.
    streamed = web.post(urls.sparql(), content=(query[i:i + 65536] for i in range(0, len(query), 65536)),
                        headers={"Content-Type": "application/sparql-query"})
    assert "content-length" not in streamed.request.headers
    assert streamed.status_code == 413 and streamed.json()["error"]["code"] == "too-large"
    chunked = web.post(urls.sparql(), content=(part for part in (b"ASK ", b"{}")),
                       headers={"Content-Type": "application/sparql-query", **JSON_RESULTS})
    assert chunked.status_code == 200 and chunked.json()["boolean"] is True


def test_methods_other_than_get_head_post_are_405_in_the_error_shape(web):
    response = web.delete(urls.sparql())
    assert response.status_code == 405 and response.json()["error"]["code"] == "method-not-allowed"
    assert "POST" in response.headers["Allow"]


# ---- descriptions and graph store ----------------------------------------------------------------------

def test_service_description_at_sparql_without_query(web):
    response = web.get(urls.sparql(), headers={"Accept": "text/turtle"})
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/turtle")
    graph = rdflib.Graph().parse(data=response.content, format="turtle")
    sd = rdflib.Namespace("http://www.w3.org/ns/sparql-service-description#")
    service = rdflib.URIRef(endpoint(web))
    assert (service, rdflib.RDF.type, sd.Service) in graph
    assert (service, sd.feature, sd.UnionDefaultGraph) in graph
    assert (service, sd.feature, sd.BasicFederatedQuery) not in graph
    assert rdflib.URIRef(KALOS_GRAPH) in set(graph.objects(None, sd.name))


def test_void_description(web):
    response = web.get(urls.void(), headers={"Accept": "text/turtle"})
    graph = rdflib.Graph().parse(data=response.content, format="turtle")
    void = rdflib.Namespace("http://rdfs.org/ns/void#")
    assert response.status_code == 200
    assert (None, void.sparqlEndpoint, rdflib.URIRef(endpoint(web))) in graph
    assert any(int(n) > 1000 for n in graph.objects(None, void.triples))


def test_graph_store_protocol_read(web):
    response = web.get(urls.graph_store(KALOS_GRAPH), headers={"Accept": "application/n-triples"})
    graph = rdflib.Graph().parse(data=response.content, format="nt")
    assert response.status_code == 200 and (rdflib.URIRef(KALOS), rdflib.RDF.type,
                                            rdflib.URIRef("https://w3id.org/hpckg/ontology#System")) in graph
    assert all(str(s) != "https://w3id.org/hpckg/id/system/seren" for s in graph.subjects())
    default = web.get(urls.graph_store(), headers={"Accept": "text/turtle"})
    assert default.status_code == 200 and len(rdflib.Graph().parse(data=default.content, format="turtle")) > len(graph)
    missing = web.get(urls.graph_store("https://example.org/none"))
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "no-such-graph"
    assert web.get(urls.STORE).json()["error"]["code"] == "missing-graph"


def test_the_server_uses_no_private_attributes_of_the_standard_library():
    # The http.server handler wrote headers and body through BaseHTTPRequestHandler._headers_buffer.
    for module in Path(service_module.__file__).parent.glob("*.py"):
        source = module.read_text(encoding="utf-8")
        assert "_headers_buffer" not in source and "http.server" not in source, module.name


def test_a_repeated_query_is_answered_from_the_cache_and_a_volatile_one_never(web):
    service = web.app.state.service

    def hits() -> int:  # answers from the answer cache, or whole responses from the response cache
        return service.cache.hits + service.responses.hits

    query = urls.sparql(f"SELECT ?l WHERE {{ <{KALOS}> rdfs:label ?l }} # cache test")
    before = hits()
    first, again = web.get(query, headers=JSON_RESULTS), web.get(query, headers=JSON_RESULTS)
    assert first.status_code == again.status_code == 200 and first.content == again.content
    # The same response but for its date and Server-Timing, which says the second came from the cache.
    unstamped = {"date": "", "server-timing": ""}
    assert {**first.headers, **unstamped} == {**again.headers, **unstamped}
    assert 'lane;desc="cache"' in again.headers["server-timing"] != first.headers["server-timing"]
    assert hits() == before + 1
    assert web.get(query, headers={"Accept": "text/csv"}).headers["Content-Type"].startswith("text/csv")
    assert hits() == before + 1  # another format is another answer
    for volatile in ("SELECT (NOW() AS ?t) WHERE {}", "SELECT (rand() AS ?r) WHERE {}",
                     "SELECT (STRUUID() AS ?u) WHERE {}", "SELECT (BNODE() AS ?b) WHERE {}"):
        for _ in range(2):
            assert web.get(urls.sparql(volatile), headers=JSON_RESULTS).status_code == 200
    assert hits() == before + 1
    # The same query by POST, or from a browser origin, takes the full path and its answer cache.
    posted = web.post(urls.sparql(), content=f"SELECT ?l WHERE {{ <{KALOS}> rdfs:label ?l }} # cache test",
                      headers={"Content-Type": "application/sparql-query", **JSON_RESULTS})
    assert posted.content == first.content and service.cache.hits >= 1


@pytest.mark.parametrize("query,expected", [
    ("SELECT * WHERE { ?s ?p ?o }", True),
    ('SELECT ?now ?rand WHERE { ?now <http://x/NOW> "RAND()" } # UUID()', True),
    ("SELECT (NOW() AS ?t) {}", False),
    ("SELECT (uuid() AS ?t) {}", False),
    ("SELECT * { SERVICE <http://x/sparql> { ?s ?p ?o } }", False),
])
def test_deterministic(query, expected):
    assert deterministic(query) is expected


def test_one_worker_serves_coroutines_and_threads_in_turn():
    pool = WorkerPool(serve_store(), size=1)

    async def ask_many():
        return await asyncio.gather(*(pool.run_async(Job(f"ASK {{}} # {n}"), timeout=30) for n in range(4)),
                                    *(asyncio.to_thread(pool.run, Job("ASK {}"), timeout=30) for _ in range(2)))

    try:
        answers = asyncio.run(ask_many())
        assert [answer.status for answer in answers] == [200] * 6
        assert all(json.loads(answer.body)["boolean"] is True for answer in answers)
    finally:
        pool.close()


def test_coalescing_transport_joins_head_and_body_and_flushes_a_lone_write_and_on_close():
    from hpckg.serve.protocol import CoalescingTransport

    async def exchange() -> list[bytes]:
        ours, theirs = socket.socketpair()
        theirs.setblocking(False)
        loop = asyncio.get_running_loop()
        transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, ours)
        coalescing = CoalescingTransport(transport, loop)
        received = []
        coalescing.write(b"HEAD\r\n\r\n")
        coalescing.write(b"body")  # joined with the head and written now
        received.append(theirs.recv(100))
        coalescing.write(b"lone head")  # nothing follows: written at the end of this iteration
        await asyncio.sleep(0)
        await asyncio.sleep(0.05)
        received.append(theirs.recv(100))
        coalescing.write(b"last")
        coalescing.close()  # flushes first
        await asyncio.sleep(0.05)
        received.append(theirs.recv(100))
        theirs.close()
        return received

    assert asyncio.run(exchange()) == [b"HEAD\r\n\r\nbody", b"lone head", b"last"]


@pytest.mark.parametrize("query,expected", [
    (f"SELECT ?l WHERE {{ <{KALOS}> rdfs:label ?l }} # 12", True),
    (f"ASK {{ <{KALOS}> a hpc:System }}", True),
    ("SELECT ?p ?o WHERE { <a:b> ?p ?o } LIMIT 10", True),
    ('SELECT ?o { <a:b> <c:d> "x"@en . }', True),
    ("SELECT * WHERE { <a:b> ?p ?o }", False),  # only named variables
    ("SELECT ?s WHERE { ?s ?p ?o }", False),  # the subject must be an IRI
    ("SELECT ?o { <a:b> <c:d> ?o . SERVICE <http://127.0.0.1:1/> { ?a ?b ?c } }", False),
    ("SELECT ?o { <a:b> <c:d> ?o } #x\rSERVICE <http://127.0.0.1:1/> { }", False),  # CR ends a comment
    ("SELECT ?o { <a:b> <c:d>/<e:f> ?o }", False),
    ("SELECT ?o { <a:b> <c:d> ?o FILTER(?o) }", False),
    ('SELECT ?o { <a:b> <c:d> "x\\" } SERVICE" }', False),
    ("SELECT ?o { <a:b> <c:d> ?o } LIMIT 5 OFFSET 3", False),
    ("SELECT ?o { <a:b> <c:d> ?o . <e:f> <g:h> ?p }", False),
    ("SELECT DISTINCT ?p { <a:b> ?p ?o }", False),  # would read the whole range before a row
])
def test_lookups_answered_in_process_are_known_from_their_whole_form(query, expected):
    from hpckg.serve.sparql import is_lookup

    assert is_lookup(query) is expected


def test_a_lookup_is_answered_without_a_worker_and_as_a_worker_would(web):
    from hpckg.serve.workers import run_job

    service = web.app.state.service
    query = f"SELECT ?l WHERE {{ <{KALOS}> rdfs:label ?l }} # in-process"
    answer = service.lookup("test", Job(query), None)
    assert answer is not None and answer.status == 200
    import pyoxigraph as ox

    assert answer.body == run_job(ox.Store.read_only(str(serve_store())), Job(query)).body
    assert web.get(urls.sparql(query), headers=JSON_RESULTS).content == answer.body


def test_lookups_answered_before_the_framework_keep_rate_limits_and_cors():
    lookup = urls.sparql(f"ASK {{ <{KALOS}> a hpc:System }}")
    with in_process(serve_store(), workers=1, rate_limit=0.0001) as http:
        assert http.get(lookup, headers=JSON_RESULTS).json()["boolean"] is True
        http.get(urls.sparql("SELECT * WHERE { ?s ?p ?o } LIMIT 50"))  # spends the tiny budget
        limited = http.get(lookup, headers=JSON_RESULTS)  # repeated (cached) or not, it is refused
        assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate-limited"
    with in_process(serve_store(), workers=1, rate_limit=0) as http:
        for _ in range(2):
            cors = http.get(lookup, headers={**JSON_RESULTS, "Origin": "https://example.org"})
            assert cors.status_code == 200 and cors.headers["Access-Control-Allow-Origin"] == "*"
        plain = [http.get(lookup, headers=JSON_RESULTS) for _ in range(2)]
        assert plain[0].headers["Vary"] == plain[1].headers["Vary"] == "Accept, Origin"
        assert plain[0].content == plain[1].content == cors.content


def test_the_caches_count_long_query_texts_against_their_capacity():
    from hpckg.serve.cache import AnswerCache, ResponseCache
    from hpckg.serve.workers import Answer

    answers, responses = AnswerCache(1 << 20), ResponseCache(1 << 20)
    for n in range(100):  # 100 KiB texts with 10-byte answers: the texts are what fills memory
        text = f"ASK {{}} # {n} " + "x" * 100_000
        answers.put(AnswerCache.key(Job(text), 0), Answer(b"0123456789", "application/json"))
        responses.put((text.encode(), b"", b""), 0, [], b"0123456789")
    for cache in (answers, responses):
        assert cache.size <= 1 << 20 and len(cache._entries) <= 11  # noqa: SLF001


# ---- scheduling: waiting for a worker is free; lockouts are short ----------------------------------------

SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"  # stopped by a 2 s time limit


def test_waiting_for_a_worker_is_not_charged_to_the_rate_limit():
    import threading
    import time

    from hpckg.serve.responses import HttpError

    with in_process(serve_store(), workers=1, slow_slots=1, rate_limit=60, timeout=3, cache_bytes=0) as http:
        service = http.app.state.service

        def hold() -> None:
            with contextlib.suppress(HttpError):  # its 503 timeout is expected
                service.run("slow-client", Job(SLOW))

        holder = threading.Thread(target=hold)
        holder.start()
        time.sleep(0.5)  # the slow query holds the one worker until the time limit stops it
        started = time.monotonic()
        try:
            waited = service.run("waiting-client", Job("SELECT * WHERE { ?s ?p ?o } LIMIT 1 # waits")).waited
        except HttpError as error:
            assert error.code == "busy", error.message
            waited = time.monotonic() - started
        holder.join()
        assert waited > 1.0  # it did wait behind the slow query
        spent = 60 - service.limiter.remaining("waiting-client")
        assert spent < waited / 2, (spent, waited)


def test_a_client_that_lost_workers_is_locked_out_for_a_minute_at_most():
    with in_process(serve_store(), workers=1, rate_limit=0) as http:
        service = http.app.state.service
        for _ in range(service_module.STRIKES):
            service.strike("careless")
        retry = service.struck_out("careless")
        assert retry is not None and retry <= 60
        assert service.struck_out("someone-else") is None
