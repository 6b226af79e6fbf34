"""hpckg against an existing SPARQL 1.1 server: a real `oxigraph serve` process on 127.0.0.1.

A user who outgrows one machine points --store at a server's query URL; hpckg builds and validates locally,
then replaces the server's dataset through the Graph Store Protocol, and queries it over the SPARQL Protocol.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from hpckg.build import build
from hpckg.errors import QuerySyntaxError
from hpckg.store import RemoteStore

from conftest import run_hpckg, session_project, text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def oxigraph_server(tmp_path_factory):
    binary = Path(sys.executable).with_name("oxigraph")
    binary = str(binary) if binary.exists() else shutil.which("oxigraph")
    assert binary, "the oxigraph server (PyPI package `oxigraph`, in the test extra) is not installed"
    port = _free_port()
    folder = tmp_path_factory.mktemp("oxigraph-server")
    process = subprocess.Popen([binary, "serve", "--location", str(folder), "--bind", f"127.0.0.1:{port}",
                                "--union-default-graph"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"{base}/query?query=ASK%7B%7D", timeout=2).read()
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError("oxigraph serve did not start") from None
            time.sleep(0.2)
    yield base
    process.terminate()
    process.wait(timeout=10)


def test_build_pushes_to_a_sparql_server_and_queries_it(oxigraph_server):
    endpoint = f"{oxigraph_server}/query"
    summary = build(session_project(), store_path=endpoint, validate=True)
    remote = RemoteStore(endpoint)
    assert remote.triple_count() == summary.triples
    graphs = remote.named_graphs()
    assert any(g.endswith("data/ttl/systems/kalos.ttl") for g in graphs)
    assert "https://w3id.org/hpckg/graph/derived" in graphs
    rows = list(remote.query("SELECT ?org WHERE { sys:kalos hpc:operator ?org }"))
    assert [r["org"].value for r in rows] == ["https://w3id.org/hpckg/id/org/shanghai-ai-lab"]
    assert bool(remote.query("ASK { ?c a hpc:Claim }"))
    triples = list(remote.query("CONSTRUCT { sys:kalos ?p ?o } WHERE { sys:kalos ?p ?o }"))
    assert len(triples) > 3


def test_cli_reads_a_remote_store(oxigraph_server):
    endpoint = f"{oxigraph_server}/query"
    build(session_project(), store_path=endpoint, validate=False)
    completed = run_hpckg("query", "-e", "SELECT ?s WHERE { ?s a hpc:System } ORDER BY ?s", "--format", "csv",
                          "--store", endpoint)
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert "https://w3id.org/hpckg/id/system/kalos" in out



def test_generation_id_names_the_build_the_server_holds(oxigraph_server):
    """GraphStore.generation_id of a server: its query URL and the number of the build it holds, read on each
    call, so a new build is a new id (what the index of system names is kept per, hpckg.systemnames)."""
    from hpckg.store import GraphStore
    from hpckg.systemnames import store_identity

    endpoint = f"{oxigraph_server}/query"
    build(session_project(), store_path=endpoint, validate=False)
    reader = RemoteStore(endpoint)
    assert isinstance(reader, GraphStore)
    number = reader.generation()
    assert number >= 1
    assert reader.generation_id() == store_identity(reader) == f"{endpoint}#{number}"
    build(session_project(), store_path=endpoint, validate=False)
    assert reader.generation_id() == f"{endpoint}#{number + 1}"

def test_remote_syntax_errors_and_unreachable_servers_are_clean(oxigraph_server):
    with pytest.raises(QuerySyntaxError):
        list(RemoteStore(f"{oxigraph_server}/query").query("SELECT ?s WHERE { ?s ?p }"))
    completed = run_hpckg("query", "-e", "ASK {}", "--store", f"http://127.0.0.1:{_free_port()}/query")
    assert completed.returncode == 2
    assert "cannot reach the SPARQL server" in text(completed)[1]


def test_staging_graphs_are_counted_one_by_one_and_a_short_one_stops_the_switch(oxigraph_server):
    """Before the switch each staging graph's count is checked on the server, one query per graph (one query
    over all of them outran Virtuoso's time limit at 36 M triples), and a graph holding fewer triples than
    were sent stops the publish with its name."""
    import pyoxigraph as ox

    from hpckg.errors import StoreError
    from hpckg.remotebuild import check_staged, staging_graph

    class Recording(RemoteStore):
        def query(self, sparql, **options):
            self.asked.append((sparql, options.get("named_graphs")))
            return super().query(sparql, **options)

    remote = Recording(f"{oxigraph_server}/query")
    remote.asked = []
    full, short = staging_graph(999, "urn:test:full"), staging_graph(999, "urn:test:short")
    quads = [ox.Quad(ox.NamedNode(f"urn:s{i}"), ox.NamedNode("urn:p"), ox.Literal(str(i)), ox.NamedNode(graph))
             for graph, count in ((full, 3), (short, 2)) for i in range(count)]
    remote.load_quads(quads)
    check_staged(remote, {full: 3, short: 2})
    assert [graphs for _, graphs in remote.asked] == [[full], [short]]
    with pytest.raises(StoreError, match=r"holds 2 triples in the loaded graph <.*short> where 3 were sent; "
                                         "the live graphs were left as they were"):
        check_staged(remote, {full: 3, short: 3})
    remote.update(f"DROP SILENT GRAPH <{full}> ; DROP SILENT GRAPH <{short}>")


def test_a_rebuild_keeps_unchanged_graphs_and_publishes_changed_ones(oxigraph_server, tmp_path):
    """A live graph whose content is what the catalogue recorded at its switch is neither loaded nor moved;
    a graph changed locally, or changed on the server by hand since its switch, is published again."""
    import pyoxigraph as ox

    from hpckg.remotebuild import Fingerprint, publish, published_digests
    from hpckg.store import Store

    endpoint = f"{oxigraph_server}/query"
    build(session_project(), store_path=str(tmp_path / "built"), validate=False)
    built = Store(tmp_path / "built", read_only=True)
    local = Store(None)
    local.load_quads(built.quads())
    graphs = local.named_graphs()
    blank = [g for g in graphs if Fingerprint.of(local.quads(graph=g)).digest is None]
    said: list[str] = []
    remote = RemoteStore(endpoint)
    publish(local, remote, progress=said.append)
    said.clear()

    publish(local, RemoteStore(endpoint), progress=said.append)  # the same graphs again
    assert f"({len(graphs)} graphs: {len(graphs) - len(blank)} unchanged, {len(blank)} moved" in said[-1], said
    reader = RemoteStore(endpoint)
    assert reader.triple_count() == local.triple_count()
    assert set(published_digests(reader)) == set(graphs) - set(blank)

    # one graph changed locally, another on the server behind hpckg's back: both published again
    changed, tampered = [g for g in graphs if g not in blank][:2]
    extra = ox.Quad(ox.NamedNode("urn:test:s"), ox.NamedNode("urn:test:p"), ox.Literal("new"), ox.NamedNode(changed))
    local.load_quads([extra])
    victim = next(iter(local.quads(graph=tampered)))
    reader.update(f"DELETE DATA {{ GRAPH <{tampered}> {{ {victim.subject} {victim.predicate} {victim.object} }} }}")
    said.clear()
    publish(local, RemoteStore(endpoint), progress=said.append)
    assert f"{len(graphs) - len(blank) - 2} unchanged, {len(blank) + 2} moved" in said[-1], said
    after = RemoteStore(endpoint)
    assert after.triple_count() == local.triple_count()
    assert bool(after.query(f"ASK {{ GRAPH <{changed}> {{ <urn:test:s> <urn:test:p> \"new\" }} }}"))
    assert bool(after.query(f"ASK {{ GRAPH <{tampered}> {{ {victim.subject} {victim.predicate} {victim.object} }} }}"))
    built.close()


def test_a_graph_digest_does_not_depend_on_how_its_triples_are_batched(monkeypatch):
    import hashlib

    import pyoxigraph as ox

    import hpckg.remotebuild as remotebuild

    quads = [ox.Quad(ox.NamedNode(f"urn:s{i}"), ox.NamedNode("urn:p"), ox.Literal(f"v{i}"), ox.NamedNode("urn:g"))
             for i in range(7)]
    whole = hashlib.sha256(ox.serialize([q.triple for q in quads], format=ox.RdfFormat.N_TRIPLES)).hexdigest()
    monkeypatch.setattr(remotebuild, "DIGEST_BATCH", 3)
    assert remotebuild.Fingerprint.of(quads).digest == whole
    passed = remotebuild.Fingerprint()
    assert list(passed.passing(quads)) == quads and passed.digest == whole and passed.count == 7
    blank = quads + [ox.Quad(ox.BlankNode(), ox.NamedNode("urn:p"), ox.Literal("x"), ox.NamedNode("urn:g"))]
    assert remotebuild.Fingerprint.of(blank).digest is None
