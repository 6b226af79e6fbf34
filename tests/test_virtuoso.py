"""hpckg against a real Virtuoso 7 (Debian's virtuoso-opensource), started for this module on free loopback
ports with its own ini file and database folder (tests/virtuoso_server.py).

The `hpckg` command builds into it (validated locally, staged, switched), queries and checks against it,
every canned query answers the same as on the embedded store, and a build killed while it loads leaves the
previous graphs answering. tests/test_virtuoso_imports.py holds real imports in a Virtuoso of its own.
"""

from __future__ import annotations

import html
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyoxigraph as ox
import pytest

from answers import answer, concatenations, differences, ordered
from hpckg.errors import StoreError
from hpckg.query import PLAN_AS_WRITTEN, canned_queries
from hpckg.remotebuild import STAGING, graph_group
from hpckg.servers import GROUP_CREATE, GROUP_INSERT, GROUP_VARIABLE
from hpckg.store import CATALOGUE_GRAPH, RemoteStore, Store
from virtuoso_server import Virtuoso, start_virtuoso, stop_virtuoso

from conftest import ROOT, copy_project, hpckg_executable, session_project

pytestmark = pytest.mark.virtuoso

CONTRIBUTIONS = ROOT / "tests" / "contributions"


@pytest.fixture(scope="module")
def virtuoso(tmp_path_factory) -> Virtuoso:
    server = start_virtuoso(tmp_path_factory.mktemp("virtuoso"))
    yield server
    stop_virtuoso(server)


def hpckg(*args: str, env: dict[str, str], cwd: Path = ROOT, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([hpckg_executable(), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


@contextmanager
def build_paused_while_loading(server: Virtuoso, project: Path) -> Iterator[None]:
    """`hpckg build --store` into `server`, held once it has loaded its first graph, and SIGKILLed after the
    block."""
    env = {**server.env(), "HPCKG_TEST_PAUSE_AT": "remote-loading"}
    process = subprocess.Popen([hpckg_executable(), "build", "--store", server.sparql], cwd=project, env=env,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        for line in process.stderr:
            if "paused at remote-loading" in line or time.monotonic() > deadline:
                break
        assert process.poll() is None, "the build ended before it was killed"
        yield
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)


def reader(server: Virtuoso) -> RemoteStore:
    """A fresh reader: it reads the catalogue of live graphs once, on its first query."""
    return RemoteStore(server.sparql)


@pytest.fixture(scope="module")
def seed(tmp_path_factory) -> Path:
    """A copy of the project's seed data (no machine-written graphs a checkout may hold), built into its
    embedded store by the real command."""
    project = copy_project(tmp_path_factory.mktemp("seed-project"))
    completed = hpckg("build", "--quiet", "--no-pages", env=os.environ.copy(), cwd=project)
    assert completed.returncode == 0, completed.stderr
    return project


@pytest.fixture(scope="module")
def built(virtuoso, seed) -> Virtuoso:
    """The same graph built into Virtuoso by the real command, credentials in the environment."""
    completed = hpckg("build", "--store", virtuoso.sparql, env=virtuoso.env(), cwd=seed)
    assert completed.returncode == 0, completed.stderr
    assert f"switched {virtuoso.sparql} to generation" in completed.stderr
    return virtuoso


@pytest.fixture(scope="module")
def embedded(seed) -> Store:
    return Store(seed / ".hpckg" / "store", read_only=True)


def test_build_query_and_check_through_the_command(built, embedded, seed):
    remote = reader(built)
    assert remote.triple_count() == embedded.triple_count()
    assert remote.named_graphs() == embedded.named_graphs()
    # Virtuoso's own graphs exist on the server but are no part of hpckg's dataset
    assert "http://www.openlinksw.com/schemas/virtrdf#" in remote.server_graphs()
    assert not [g for g in remote.named_graphs() if "openlinksw" in g]
    types = {row["t"].value for row in remote.query("SELECT DISTINCT ?t WHERE { ?x a ?t }")}
    assert types == {row["t"].value for row in embedded.query("SELECT DISTINCT ?t WHERE { ?x a ?t }")}

    completed = hpckg("query", "acme-total", "--format", "csv", "--store", built.sparql, env=os.environ.copy(),
                      cwd=seed)
    assert completed.returncode == 0, completed.stderr
    assert "https://w3id.org/hpckg/id/system/kalos" in completed.stdout
    completed = hpckg("check", "--store", built.sparql, "data/ttl/systems/kalos.ttl", env=os.environ.copy(),
                      cwd=seed)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "passes every check" in completed.stdout


def test_writes_without_credentials_are_refused_and_change_nothing(built, seed):
    before = reader(built).generation()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HPCKG_STORE_")}
    completed = hpckg("build", "--store", built.sparql, env=env, cwd=seed)
    assert completed.returncode != 0
    assert "401" in completed.stderr and "HPCKG_STORE_USER" in completed.stderr
    assert reader(built).generation() == before


def test_the_configuration_names_the_server_and_a_credentials_file(built, tmp_path):
    project = copy_project(tmp_path / "project")
    secret = tmp_path / "store-credentials.txt"
    secret.write_text(f"{built.user}:{built.password}\n", encoding="utf-8")
    (project / "hpckg.toml").write_text(f'store = "{built.sparql}"\nstore_credentials = "{secret}"\n',
                                        encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HPCKG_")}
    before = reader(built).generation()
    completed = hpckg("build", "--no-pages", env=env, cwd=project)
    assert completed.returncode == 0, completed.stderr
    assert reader(built).generation() == before + 1
    completed = hpckg("query", "acme-total", "--format", "csv", env=env, cwd=project)
    assert completed.returncode == 0, completed.stderr
    assert "https://w3id.org/hpckg/id/site/acme" in completed.stdout


@pytest.mark.parametrize("graph_group_wanted", [False, True], ids=["graphs-listed", "graph-group"])
def test_every_canned_query_answers_the_same_on_virtuoso(built, embedded, graph_group_wanted):
    remote = RemoteStore(built.sparql, graph_group=graph_group_wanted)
    group = graph_group(remote.generation())
    assert remote.default_graph() == ([group] if graph_group_wanted else embedded.named_graphs())
    answered, failures = [], []
    for query in canned_queries(session_project()):
        text = query.bind()
        concatenated = concatenations(text)
        expected = answer(embedded.query(text, prefixes=False), concatenated)
        found = answer(remote.query(text, prefixes=False), concatenated)
        problem = differences(expected, found, in_order=ordered(text))
        if problem:
            failures.append(f"{query.name}: {problem}")
        if expected[1]:
            answered.append(query.name)
    assert not failures, "\n".join(failures)
    # not a comparison of empty answers: every query the seed data can answer (no `# needs:` an import) has rows
    assert {q.name for q in canned_queries(session_project()) if not q.needs} <= set(answered), answered


def test_a_build_killed_while_it_loads_leaves_the_previous_graphs(built, embedded, seed):
    before = reader(built)
    generation, graphs, triples = before.generation(), before.named_graphs(), before.triple_count()
    acme = sorted(answer(before.query(canned("acme-total"), prefixes=False))[1])
    with build_paused_while_loading(built, seed):
        # it has loaded a staging graph: the server holds it, readers do not see it
        assert [g for g in reader(built).server_graphs() if g.startswith(STAGING)]
    after = reader(built)
    assert after.generation() == generation
    assert after.named_graphs() == graphs
    assert after.triple_count() == triples == embedded.triple_count()
    assert sorted(answer(after.query(canned("acme-total"), prefixes=False))[1]) == acme
    assert not [g for g in after.named_graphs() if g.startswith(STAGING)]

    # the next build drops what the killed one left and switches
    completed = hpckg("build", "--store", built.sparql, env=built.env(), cwd=seed)
    assert completed.returncode == 0, completed.stderr
    final = reader(built)
    assert final.generation() == generation + 1
    assert not [g for g in final.server_graphs() if g.startswith(STAGING)]
    assert final.triple_count() == triples
    assert CATALOGUE_GRAPH not in final.named_graphs()


def test_a_dataset_of_hundreds_of_graphs_is_answered(built):
    # Virtuoso echoes each graph of the dataset as a response header: hundreds, as a large build has
    graphs = [f"https://w3id.org/hpckg/graph/test/{i}" for i in range(300)]
    remote = reader(built)
    empty = remote.query("ASK { ?s ?p ?o }", default_graph=graphs, named_graphs=graphs)
    found = remote.query("ASK { sys:kalos ?p ?o }", default_graph=graphs + remote.named_graphs())
    assert isinstance(empty, ox.QueryBoolean) and isinstance(found, ox.QueryBoolean)
    assert (bool(empty), bool(found)) == (False, True)


def test_readers_may_name_the_build_by_one_graph_group(built, embedded, seed, monkeypatch):
    # Virtuoso answers a per-entity query that lists hundreds of graphs as its default graph many times slower
    # than one that names a graph group of them (docs/benchmarks.md), so each build makes a group of its graphs
    # and the catalogue names it. Readers use it when asked (Virtuoso plans some other queries far worse
    # through it), and still list the graphs as the named graphs (a group cannot be one).
    generation = reader(built).generation()
    group = graph_group(generation)
    assert reader(built).default_graph() == embedded.named_graphs()
    monkeypatch.setenv(GROUP_VARIABLE, "1")
    remote = reader(built)
    assert remote.default_graph() == [group]
    monkeypatch.setenv(GROUP_VARIABLE, "perhaps")
    with pytest.raises(StoreError, match=GROUP_VARIABLE):
        reader(built)
    monkeypatch.delenv(GROUP_VARIABLE)
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    by_group = int(next(iter(remote.query(count, prefixes=False)))["n"].value)
    by_list = int(next(iter(remote.query(count, prefixes=False, default_graph=embedded.named_graphs())))["n"].value)
    assert by_group == by_list == int(next(iter(embedded.query(count, prefixes=False)))["n"].value)

    # A killed build may have made the next generation's group, with other members: the next build makes it
    # again. The group the previous switch replaced stays for readers who have not followed yet; the one
    # before it is dropped.
    writer = RemoteStore(built.sparql, credentials=(built.user, built.password))
    stray = "https://w3id.org/hpckg/graph/test/stray"
    writer.update(f"INSERT DATA {{ GRAPH <{stray}> {{ sys:kalos rdfs:comment \"left by a killed build\" }} }}")
    writer.call(GROUP_CREATE.format(group=graph_group(generation + 1)))
    writer.call(GROUP_INSERT.format(group=graph_group(generation + 1), members=f'"{stray}"'))
    try:
        for _ in range(2):
            completed = hpckg("build", "--store", built.sparql, env=built.env(), cwd=seed)
            assert completed.returncode == 0, completed.stderr
        final = RemoteStore(built.sparql, graph_group=True)
        assert final.generation() == generation + 2
        assert final.default_graph() == [graph_group(generation + 2)]
        left = 'ASK { sys:kalos rdfs:comment "left by a killed build" }'
        for number, holds in ((generation, False), (generation + 1, True), (generation + 2, True)):
            assert bool(final.query("ASK { ?s ?p ?o }", default_graph=[graph_group(number)])) is holds, number
            assert not final.query(left, default_graph=[graph_group(number)])  # the stray graph is in none
        assert final.query(left, default_graph=[stray])
    finally:
        writer.drop_graph(stray)


def test_a_query_that_asks_is_joined_in_the_order_written_on_virtuoso(built):
    # `# plan: as written` in a query's header makes Virtuoso take the joins as written (top500-list through
    # the graph group: no answer in 120 s on the full import, 7 s so). Seen here by what the switch changes: a
    # path whose start the written order binds only later is refused, where Virtuoso's own plan starts it
    # from the label.
    text = ("SELECT ?organisation ?parent WHERE { ?organisation hpc:rollsUpTo+ ?parent . "
            "?organisation rdfs:label ?name }")
    remote = reader(built)
    assert len(list(remote.query(text))) > 0
    with pytest.raises(StoreError, match="transitive start not given"):
        list(remote.query(f"{PLAN_AS_WRITTEN}\n{text}"))


def canned(name: str) -> str:
    return next(q for q in canned_queries(session_project()) if q.name == name).bind()


def test_serve_reads_pages_queries_and_data_from_virtuoso(built, embedded, seed, tmp_path):
    import httpx

    from serve_live import start_server

    server = start_server(built.sparql)
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            home = client.get("/", headers={"Accept": "text/html"})
            assert home.status_code == 200, home.text[:500]
            page = client.get("/page/system/kalos", headers={"Accept": "text/html"})
            assert page.status_code == 200, page.text[:500]
            assert "<title>Kalos (Shanghai AI Lab)" in page.text
            # the sites an organisation runs, a datacenter among them (a subclass of hpc:Site): Virtuoso 7 answered
            # `a/rdfs:subClassOf* hpc:Site` without the subclass's instances
            org = client.get("/page/org/shanghai-ai-lab", headers={"Accept": "text/html"})
            assert org.status_code == 200 and 'href="/page/site/acme"' in org.text, org.text[:500]

            text = "SELECT ?org WHERE { sys:kalos hpc:operator ?org }"
            found = client.post("/sparql", data={"query": text},
                                headers={"Accept": "application/sparql-results+json"})
            assert found.status_code == 200, found.text[:500]
            assert [b["org"]["value"] for b in found.json()["results"]["bindings"]] == [
                row["org"].value for row in embedded.query(text)]

            # a canned query through the server answers what the embedded store answers
            csv = client.get("/queries/acme-total.csv")
            assert csv.status_code == 200, csv.text[:500]
            systems = {row["system"].value for row in embedded.query(canned("acme-total"), prefixes=False)}
            assert systems and all(system in csv.text for system in systems)

            # CONSTRUCT comes back as a graph, and the Graph Store read access lists the build's graphs only
            graph = client.post("/sparql", data={"query": "CONSTRUCT { sys:kalos ?p ?o } WHERE { sys:kalos ?p ?o }"},
                                headers={"Accept": "application/n-triples"})
            assert graph.status_code == 200 and "<https://w3id.org/hpckg/id/system/kalos>" in graph.text
            derived = client.get("/store", params={"graph": "https://w3id.org/hpckg/graph/derived"},
                                 headers={"Accept": "application/n-triples"})
            assert derived.status_code == 200
            assert len(derived.text.strip().splitlines()) == len(list(
                embedded.quads(graph="https://w3id.org/hpckg/graph/derived")))
            assert client.get("/store", params={"graph": CATALOGUE_GRAPH}).status_code == 404

            # a build published while the server runs is followed: its new graph is answered within seconds,
            # even when the same question was answered (and cached) before the build
            ask = {"query": "ASK { <https://w3id.org/hpckg/id/test/published> ?p ?o }"}
            before = client.post("/sparql", data=ask, headers={"Accept": "application/sparql-results+json"})
            assert before.json()["boolean"] is False
            extra = tmp_path / "extra.nt"
            extra.write_text("<https://w3id.org/hpckg/id/test/published> <http://www.w3.org/2000/01/rdf-schema#label>"
                             ' "published while serving" .\n', encoding="utf-8")
            completed = hpckg("build", "--no-validate", "--store", built.sparql, str(extra), env=built.env(),
                              cwd=seed)
            assert completed.returncode == 0, completed.stderr
            deadline = time.monotonic() + 20
            while not client.post("/sparql", data=ask, headers={"Accept": "application/sparql-results+json"}
                                  ).json()["boolean"]:
                assert time.monotonic() < deadline, "the server did not follow the new build"
                time.sleep(0.5)
    finally:
        server.stop()
        hpckg("build", "--store", built.sparql, env=built.env(), cwd=seed)  # the seed graph again



def test_names_with_two_labels_answer_the_same_on_virtuoso(built, seed, tmp_path):
    # The full import names some parts, sites and list entries twice (a curated label and an imported one);
    # Virtuoso's MIN over language-tagged strings then picked another name than Oxigraph's. The lists take
    # MIN(STR(...)): the same name on both engines.
    project = copy_project(tmp_path / "two-labels")
    parts = project / "data" / "ttl" / "parts.ttl"
    text = parts.read_text(encoding="utf-8")
    single = '    rdfs:label "NVIDIA A100 SXM4 80GB"@en ;\n'
    assert single in text
    parts.write_text(text.replace(single, single + '    rdfs:label "NVIDIA A100 SXM4 80 GB"@en ;\n'), encoding="utf-8")
    completed = hpckg("build", "--quiet", "--no-pages", env=os.environ.copy(), cwd=project)
    assert completed.returncode == 0, completed.stderr
    try:
        completed = hpckg("build", "--store", built.sparql, env=built.env(), cwd=project)
        assert completed.returncode == 0, completed.stderr
        local = Store(project / ".hpckg" / "store", read_only=True)
        remote = reader(built)
        for name in ("parts-list", "organisations-list", "sites-list"):
            text = canned(name)
            concatenated = concatenations(text)
            expected = answer(local.query(text, prefixes=False), concatenated)
            found = answer(remote.query(text, prefixes=False), concatenated)
            assert not differences(expected, found, in_order=ordered(text)), name
        names = {row["part"].value: row["name"].value for row in local.query(canned("parts-list"), prefixes=False)}
        assert names["https://w3id.org/hpckg/id/part/nvidia-a100-sxm4-80gb"] == "NVIDIA A100 SXM4 80 GB"
    finally:
        hpckg("build", "--store", built.sparql, env=built.env(), cwd=seed)  # the seed graph again


def test_a_first_build_moves_nothing_a_killed_one_is_dropped_a_refused_switch_names_the_setting(
        embedded, seed, tmp_path):
    # Readers see only the graphs the catalogue lists, so on a server with no build yet every graph is loaded
    # under its own name: no staging graph, no MOVE, and so no transaction large enough for Virtuoso to refuse.
    # A first build killed while loading leaves graphs the next build drops before it loads its own.
    largest = max(len(list(embedded.quads(graph=graph))) for graph in embedded.named_graphs())
    (tmp_path / "virtuoso").mkdir()
    # Virtuoso logs each MOVE as one transaction and refuses one whose log outgrows TransactionAfterImageLimit
    # (SR325): about 180 bytes per triple of the largest graph lets each graph load (measured: under 145 B a
    # triple) and refuses its MOVE (over 218 B a triple), as the default 50 MB does at the full import's size.
    server = start_virtuoso(tmp_path / "virtuoso", after_image_limit=180 * largest)
    try:
        with build_paused_while_loading(server, seed):
            first = embedded.named_graphs()[0]
            assert first in reader(server).server_graphs()  # loaded under its own name
            assert not [g for g in reader(server).server_graphs() if g.startswith(STAGING)]
            assert reader(server).generation() == 0
            # the catalogue lists what is being loaded and no build yet: readers see an empty dataset, not the
            # whole server (which is what a server with no catalogue at all is queried as)
            assert reader(server).live_graphs() == []
            assert reader(server).triple_count() == 0
            assert not reader(server).query("ASK { ?s ?p ?o }", prefixes=False)

        completed = hpckg("build", "--store", server.sparql, env=server.env(), cwd=seed)
        assert completed.returncode == 0, completed.stderr
        assert f"0 moved from staging graphs, {len(embedded.named_graphs())} loaded under their own names" \
            in completed.stderr
        after = reader(server)
        assert after.generation() == 1
        assert after.named_graphs() == embedded.named_graphs()
        assert after.triple_count() == embedded.triple_count()  # the killed build's triples were dropped

        # A rebuild stages each live graph that changed and MOVEs it, the largest first. The same build changes
        # nothing but its graphs with blank nodes, so the graphs are emptied on the server by hand: then each is
        # staged again, as on a first build before graphs were loaded under their own names, and the switch is
        # refused (measured: with only the changed graphs moved, 10 of 25, the limit was not reached).
        writer = RemoteStore(server.sparql, credentials=(server.user, server.password))
        writer.update(" ;\n".join(f"CLEAR GRAPH <{graph}>" for graph in embedded.named_graphs()))
        completed = hpckg("build", "--store", server.sparql, env=server.env(), cwd=seed)
        assert completed.returncode == 2, completed.stderr
        said = completed.stderr
        assert "refused to move a graph in one transaction" in said and "TransactionAfterImageLimit" in said
        assert f"the largest graph of this build holds {largest:,} triples" in said
        assert "Traceback" not in said
        after = reader(server)
        assert after.generation() == 1  # nothing switched: the first build is still the live one
    finally:
        stop_virtuoso(server)


def test_the_contribute_page_reviews_against_a_sparql_server(built):
    # The Contribute page of `hpckg serve` over this Virtuoso: the draft's review reads its neighbourhood
    # over the protocol and equals `hpckg check` of the same file against the same server, and the draft's
    # pages are rendered. (Here rather than in a module of its own, which started a Virtuoso of its own.)
    import httpx

    from hpckg.contribute.check import check_files
    from serve_live import start_server

    server = start_server(built.sparql, "--rate-limit", "0")
    try:
        for path in (CONTRIBUTIONS / "good" / "frontier.ttl", CONTRIBUTIONS / "bad" / "conflicting-quantity.ttl"):
            answer = httpx.post(server.url + "/contribute", timeout=120,
                                data={"action": "turtle", "turtle": path.read_text(encoding="utf-8")})
            assert answer.status_code == 200, answer.text[:500]
            page = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", answer.text)))
            expected = check_files([path], store_path=built.sparql, project=session_project())
            assert expected.graph_checked
            for problem in expected.problems:
                assert f"[ {problem.code} ]" in page and problem.message in page
            if not expected.problems:
                assert "The draft passes every check." in page
            # the pages of what the draft defines (Frontier's system page; the conflict defines nothing)
            assert ('class="draft-page"' in answer.text) == bool(expected.additions.entities.get("systems"))
    finally:
        server.stop()


def test_a_system_page_reads_the_same_from_virtuoso(built, embedded):
    # The page's claims, components, suppliers and their parents today read through Virtuoso as from the
    # embedded store. Its claim reader once found no component claim there (it tested the class with a
    # property path), which hid that the parents' chain as a `+` path from a VALUES list ended Virtuoso's
    # process; both are plain patterns now (hpckg.claims.claim_triples, hpckg.page.read.today_parents).
    from dataclasses import asdict

    from hpckg.page import system_page

    iri = "https://w3id.org/hpckg/id/system/kalos"
    remote, local = system_page(reader(built), iri), system_page(embedded, iri)
    assert [asdict(row) for row in remote.components] == [asdict(row) for row in local.components]
    assert any((row.supplier and row.supplier.text) == "NVIDIA" for row in local.components)
    assert [asdict(figure) for figure in remote.figures] == [asdict(figure) for figure in local.figures]
    assert remote.sources == local.sources and local.sources
    assert reader(built).query("ASK { ?s ?p ?o }")  # and the server is still there
