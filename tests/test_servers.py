"""The table of SPARQL servers (hpckg.servers): which endpoints and authentication each query URL gets, and
where credentials come from."""

from __future__ import annotations

import pytest

from hpckg.errors import StoreError
from hpckg.query import PLAN_AS_WRITTEN
from hpckg.servers import credentials, profile_for
from hpckg.store import RemoteStore


@pytest.mark.parametrize("url, name, update, graph_store", [
    ("http://h:8890/sparql", "virtuoso", "http://h:8890/sparql-auth", "http://h:8890/sparql-graph-crud-auth"),
    ("http://h:7878/query", "oxigraph", "http://h:7878/update", "http://h:7878/store"),
    ("http://h:3030/hpc/sparql", "fuseki", "http://h:3030/hpc/update", "http://h:3030/hpc/data"),
    ("http://h:7200/repositories/hpc", "graphdb", "http://h:7200/repositories/hpc/statements",
     "http://h:7200/repositories/hpc/rdf-graphs/service"),
])
def test_each_server_is_recognised_from_its_query_url(url, name, update, graph_store, monkeypatch):
    monkeypatch.delenv("HPCKG_STORE_SERVER", raising=False)
    profile = profile_for(url)
    assert (profile.name, *profile.endpoints(url)) == (name, update, graph_store)


def test_the_environment_chooses_a_server_and_names_the_known_ones(monkeypatch):
    monkeypatch.setenv("HPCKG_STORE_SERVER", "fuseki")
    assert profile_for("http://h:8890/sparql").name == "fuseki"
    monkeypatch.setenv("HPCKG_STORE_SERVER", "blazegraph")
    with pytest.raises(StoreError, match="known: fuseki, graphdb, oxigraph, virtuoso"):
        profile_for("http://h:8890/sparql")


def test_only_a_query_whose_header_asks_gets_the_servers_switch_for_the_written_order(monkeypatch):
    monkeypatch.delenv("HPCKG_STORE_SERVER", raising=False)
    query = "SELECT ?s WHERE { ?s ?p ?o }"
    asking = f"# One line on what it answers\n{PLAN_AS_WRITTEN}\n{query}"
    virtuoso, oxigraph = RemoteStore("http://h:8890/sparql"), RemoteStore("http://h:7878/query")
    assert virtuoso.request_text(asking, prefixes=False) == f'DEFINE sql:select-option "order"\n{asking}'
    assert virtuoso.request_text(asking).startswith('DEFINE sql:select-option "order"\nPREFIX ')
    assert virtuoso.request_text(query, prefixes=False) == query
    # the line counts in the header only, not after the query has begun (in a string, say)
    assert virtuoso.request_text(f"{query}\n{PLAN_AS_WRITTEN}", prefixes=False) == f"{query}\n{PLAN_AS_WRITTEN}"
    assert oxigraph.request_text(asking, prefixes=False) == asking  # Oxigraph has no such switch


def test_credentials_come_from_the_environment_before_the_file(tmp_path, monkeypatch):
    file = tmp_path / "store.txt"
    file.write_text("writer:pa:ss\n", encoding="utf-8")
    monkeypatch.delenv("HPCKG_STORE_USER", raising=False)
    monkeypatch.delenv("HPCKG_STORE_PASSWORD", raising=False)
    assert credentials(None) is None
    assert credentials(file) == ("writer", "pa:ss")
    monkeypatch.setenv("HPCKG_STORE_USER", "dba")
    monkeypatch.setenv("HPCKG_STORE_PASSWORD", "secret")
    assert credentials(file) == ("dba", "secret")
    (tmp_path / "bad.txt").write_text("no colon\n", encoding="utf-8")
    monkeypatch.delenv("HPCKG_STORE_USER")
    with pytest.raises(StoreError, match="one line `user:password`"):
        credentials(tmp_path / "bad.txt")
