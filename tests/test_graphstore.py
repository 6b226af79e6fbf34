"""Store and RemoteStore both are a GraphStore: the protocol in hpckg.store that code taking "the store" is
written against. Held here for real: an in-memory Store and a RemoteStore pass isinstance, every member of the
protocol is on both classes with the protocol's signature, whatever one class alone has is named below (so a
method added to one kind only is a decision, not an accident), and generation_id() names the build a reader
sees the way the index of system names is filed by `hpckg build`.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import socket
from pathlib import Path

import pytest

from hpckg.build import build
from hpckg.store import AnyStore, GraphStore, RemoteStore, Store, current_generation, generations_dir
from hpckg.systemnames import cache_folder, index_path, store_identity

from conftest import session_project

MEMBERS = {"location", "generation_id", "query", "update", "load_quads", "load", "named_graphs", "drop_graph",
           "quads", "dump", "triple_count", "flush", "close"}
# What one kind alone offers; callers reach these after isinstance() or by taking that kind.
# optimize: RocksDB compaction, a server keeps its own; load_quads_in_batches, quads_for_pattern, query_bound: a build's
# staging store and the rules streamed over its indexes (hpckg.rules), which a server's build runs as queries
STORE_ONLY = {"reading", "bulk_load", "copy_from", "optimize", "load_quads_in_batches", "quads_for_pattern",
              "query_bound"}
REMOTE_ONLY = {"generation", "live_graphs", "default_graph", "follow", "request_text", "call", "server_graphs",
               "clear"}
UNREACHABLE = "http://127.0.0.1:1/sparql"  # nothing listens on port 1


def protocol_members() -> set[str]:
    return {name for name in vars(GraphStore) if not name.startswith("_")}


def public_members(cls: type) -> set[str]:
    return {name for name in vars(cls) if not name.startswith("_")}


@pytest.fixture
def no_network(monkeypatch):
    """Any connection attempt fails the test: making a RemoteStore must not talk to the server."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"a network connection was attempted: {args}")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)


def test_both_kinds_of_store_are_graph_stores(no_network):
    assert AnyStore is GraphStore
    memory = Store(None)
    remote = RemoteStore(UNREACHABLE)
    assert isinstance(memory, GraphStore)
    assert isinstance(remote, GraphStore)
    assert memory.location == "memory" and remote.location == UNREACHABLE
    assert memory.generation_id() == "memory"
    memory.close()


def test_the_protocol_declares_what_callers_use():
    assert protocol_members() == MEMBERS


def _shape(function) -> tuple:
    """A signature as comparable values: each parameter's name, kind, default and annotation (as written,
    whitespace aside: the modules use postponed annotations), and the return annotation."""
    def written(annotation) -> str:
        return "" if annotation is inspect.Parameter.empty else " ".join(str(annotation).split())

    signature = inspect.signature(function)
    return (tuple((p.name, p.kind, p.default, written(p.annotation)) for p in signature.parameters.values()),
            written(signature.return_annotation))


@pytest.mark.parametrize("cls", [Store, RemoteStore], ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("name", sorted(MEMBERS))
def test_each_member_of_the_protocol_is_on_both_classes_with_its_signature(cls, name):
    declared = inspect.getattr_static(GraphStore, name)
    found = inspect.getattr_static(cls, name, None)
    assert found is not None, f"{cls.__name__} has no {name}, which GraphStore declares"
    if isinstance(declared, property):
        assert isinstance(found, property), f"{cls.__name__}.{name} must be a property, as in GraphStore"
        assert _shape(found.fget) == _shape(declared.fget), f"{cls.__name__}.{name}"
        return
    assert inspect.isfunction(found), f"{cls.__name__}.{name} must be a method, as in GraphStore"
    assert _shape(found) == _shape(declared), (
        f"{cls.__name__}.{name}{inspect.signature(found)} differs from "
        f"GraphStore.{name}{inspect.signature(declared)}")


@pytest.mark.parametrize(("cls", "own"), [(Store, STORE_ONLY), (RemoteStore, REMOTE_ONLY)],
                         ids=["Store", "RemoteStore"])
def test_what_one_kind_alone_offers_is_named(cls, own):
    """A public method added to one class only fails here: add it to GraphStore and the other class, or
    name it in STORE_ONLY / REMOTE_ONLY when it makes sense for one kind alone."""
    assert public_members(cls) - MEMBERS == own
    assert not (STORE_ONLY & REMOTE_ONLY), "a member both kinds have belongs in GraphStore"


def test_a_remote_generation_id_is_the_url_and_the_number(monkeypatch, no_network):
    monkeypatch.setattr(RemoteStore, "generation", lambda self: 7)
    remote = RemoteStore(UNREACHABLE)
    assert remote.generation_id() == f"{UNREACHABLE}#7"
    assert store_identity(remote) == f"{UNREACHABLE}#7"


def test_generation_id_names_the_generation_a_reader_opened(tmp_path):
    path = tmp_path / "store"
    (tmp_path / "graphs").mkdir()
    # The session's in-process project, with graphs (and so the cache of system names) of this test's own.
    here = dataclasses.replace(session_project(), graphs=tmp_path / "graphs", store=path)
    build(here, store_path=path, validate=False)
    reader = Store(path, read_only=True)
    try:
        opened = reader.generation_id()
        assert opened == str(current_generation(path).resolve())
        assert Path(opened).parent == generations_dir(path).resolve()
        assert re.fullmatch(r"\d{6}-\d{8}T\d{6}Z", Path(opened).name), opened
        assert reader.generation_path is not None and reader.generation_path.resolve() == Path(opened)
        # the build filed its index of system names under this identity: a check finds it without a scan
        assert store_identity(reader) == opened
        assert index_path(cache_folder(here.graphs), opened).is_file()

        build(here, store_path=path, validate=False)
        assert reader.generation_id() == opened, "an open reader stays on the generation it opened"
        newer = Store(path, read_only=True)
        assert newer.generation_id() == str(current_generation(path).resolve()) != opened
        newer.close()
    finally:
        reader.close()
