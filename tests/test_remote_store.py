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

from conftest import run_hpckg, text


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
    summary = build(store_path=endpoint, validate=True)
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
    build(store_path=endpoint, validate=False)
    completed = run_hpckg("query", "-e", "SELECT ?s WHERE { ?s a hpc:System } ORDER BY ?s", "--format", "csv",
                          "--store", endpoint)
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert "https://w3id.org/hpckg/id/system/kalos" in out


def test_remote_syntax_errors_and_unreachable_servers_are_clean(oxigraph_server):
    with pytest.raises(QuerySyntaxError):
        list(RemoteStore(f"{oxigraph_server}/query").query("SELECT ?s WHERE { ?s ?p }"))
    completed = run_hpckg("query", "-e", "ASK {}", "--store", f"http://127.0.0.1:{_free_port()}/query")
    assert completed.returncode == 2
    assert "cannot reach the SPARQL server" in text(completed)[1]
