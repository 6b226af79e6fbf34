"""`hpckg verify` against a real HTTP server on 127.0.0.1 serving one fixture page per case.

A copy of the project gets a machine-written graph (made with the claim builder) with one system, Testbed
Alpha, whose accelerator part and count are claimed from one source per fixture page. The verifier runs
for real (httpx, robots.txt, retries, cache), its checks are written as graph files, the project is built
into a store, and every case is asserted on the recorded RDF, the system page and the summaries.
"""

from __future__ import annotations

import json
import shutil

import pyoxigraph as ox
import pytest

from hpckg import machinegraphs, project
from hpckg.build import populate, sourcing_summary
from hpckg.claims import claim_quads, entity_quads, make_claim, source_quads
from hpckg.namespaces import GRAPH, entity
from hpckg.page.read import read_checks
from hpckg.store import Store
from hpckg.validate import validate
from hpckg.values import Iri
from hpckg.verify.fetch import FetchOptions
from hpckg.verify.run import verify
from verify_server import FixtureServer, fixture_routes

from conftest import ROOT, run_hpckg, session_project, text

SYSTEM = entity("system", "testbed-alpha")
PART_LABEL = "Zeta Z900 SXM 96GB"

# source slug suffix -> path on the fixture server (None: a URL that does not resolve)
CASES = {
    "full": "/full.html", "system-only": "/system-only.html", "nothing": "/nothing.html",
    "count-comma": "/count-comma.html", "count-plain": "/count-plain.html", "count-k": "/count-k.html",
    "count-far": "/count-far.html", "redirect": "/moved", "loop": "/loop-a", "to-private": "/to-private",
    "missing": "/missing", "gone": "/gone", "slow": "/slow", "huge": "/huge", "pdf": "/paper.pdf",
    "scan": "/scan.pdf", "robots": "/private/secret.html", "etag": "/etag.html", "busy": "/busy",
    "changing": "/changing.html", "login": "/login.html", "cookies": "/cookies.html", "empty": "/empty",
    "image": "/image.png", "dns": None, "arxiv": "/abs/2611.00001",
    "paywall": "/paywall.html", "always-busy": "/always-busy",
}


def fixture_graph(base: str) -> list[ox.Quad]:
    graph = GRAPH + "import/testbed/testbed"
    quads = entity_quads("system", "testbed-alpha", label="Testbed Alpha (Example Lab)", graph=graph,
                         alt_labels=["Testbed Alpha"])
    quads += entity_quads("component", "testbed-alpha-accelerator", label="Testbed Alpha accelerators",
                          graph=graph, component_of="testbed-alpha", role="accelerator")
    quads += entity_quads("part", "zeta-z900-sxm-96gb", label=PART_LABEL, graph=graph, alt_labels=["Z900 SXM"])
    for case, path in CASES.items():
        url = f"{base}{path}" if path else "http://no-such-host.invalid/page"
        slug = f"fixture-{case}"
        quads += source_quads(slug, title=f"Fixture page: {case}", kind="news-article", url=url, graph=graph)
        component = entity("component", "testbed-alpha-accelerator")
        for prop, value in (("partModel", Iri(entity("part", "zeta-z900-sxm-96gb"))), ("quantity", 2416)):
            claim = make_claim(component, prop, value, tier="reported", sources=slug, qualifier=case)
            quads += claim_quads(claim, graph=graph)
    return quads


def options(**overrides) -> FetchOptions:
    settings = dict(concurrency=8, per_host=8, delay=0.0, connect_timeout=3.0, read_timeout=1.5, total_timeout=30,
                    max_bytes=100_000, retries=2, backoff=0.1, max_retry_after=5, allow_loopback=True)
    settings.update(overrides)
    return FetchOptions(**settings)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The project copy, the server, two runs (the second after one page changed) and a store after each."""
    root = tmp_path_factory.mktemp("verify-project")
    for folder in ("ontology", "shapes", "queries", "data"):
        shutil.copytree(ROOT / folder, root / folder)
    state: dict = {}
    server = FixtureServer(fixture_routes(state))
    copy = project.discover(explicit=root)
    with server:
        machinegraphs.write_graph(machinegraphs.graph_file(copy.graphs, "import", "testbed", "testbed"),
                                  fixture_graph(server.base), {"sha256": "test"}, title="import testbed")
        store = Store(None)
        populate(store, copy)
        first = verify(store, copy, system="testbed-alpha", options=options())
        after_first = Store(None)
        populate(after_first, copy)
        state["version"] = 2
        second = verify(store, copy, system="testbed-alpha", options=options())
        after_second = Store(None)
        populate(after_second, copy)
        yield {"root": root, "project": copy, "server": server, "first": first, "second": second, "store1": after_first,
               "store2": after_second, "base": server.base}


def checks(store: Store, case: str) -> list[dict[str, list[str]]]:
    """The checks of one fixture source for Testbed Alpha, oldest first, each {predicate local name: values}."""
    rows = store.query(f"""
        SELECT ?check ?p ?o ?started WHERE {{
          ?check a hpc:SourceCheck ; prov:used <{entity('source', f'fixture-{case}')}> ;
                 hpc:checkedSystem <{SYSTEM}> ; prov:startedAtTime ?started ; ?p ?o }}""")
    found: dict[str, dict[str, list[str]]] = {}
    for row in rows:
        iri = row["check"].value
        fields = found.setdefault(iri, {"@started": [row["started"].value], "@iri": [iri]})
        fields.setdefault(row["p"].value.rsplit("#", 1)[-1].rsplit("/", 1)[-1], []).append(row["o"].value)
    return sorted(found.values(), key=lambda f: f["@started"][0])


def latest(store: Store, case: str) -> dict[str, list[str]]:
    found = checks(store, case)
    assert found, f"no check recorded for {case}"
    return found[-1]


def result(check: dict[str, list[str]]) -> str:
    return check["checkResult"][0].rsplit("/", 1)[-1]


def findings(store: Store, check_iri: str) -> list[dict[str, str]]:
    rows = store.query(f"""
        SELECT ?kind ?for ?text ?offset ?context WHERE {{
          <{check_iri}> hpc:finding ?f . ?f hpc:findingKind ?kind ; hpc:lookedFor ?for ; hpc:matchedText ?text ;
             hpc:textOffset ?offset ; hpc:textContext ?context }} ORDER BY ?offset""")
    return [{k: row[k].value for k in ("kind", "for", "text", "offset", "context")} for row in rows]


# --- what the page says ------------------------------------------------------------------------------------


def test_a_page_naming_system_part_and_count_records_all_three_and_where(world):
    store = world["store1"]
    check = latest(store, "full")
    assert result(check) == "names-system-part-count"
    assert set(check["termFound"]) == {"Testbed Alpha (Example Lab)", PART_LABEL}
    assert check["countFound"] == ["2416"]
    assert check["httpStatus"] == ["200"]
    assert check["requestedUrl"] == [world["base"] + "/full.html"] == check["finalUrl"]
    assert check["checkedBy"] == ["hpckg verify"]
    assert check["wasAssociatedWith"][0].endswith("/software/hpckg-0-1-0")
    found = {f["kind"]: f for f in findings(store, check["@iri"][0])}
    assert found["system"]["text"] == "Testbed Alpha" and "enters service" in found["system"]["context"]
    assert found["part"]["text"] == "Zeta Z900 SXM 96GB"
    assert found["count"]["text"] == "2,416" and "accelerators" in found["count"]["context"]
    [copy] = check["retrievedCopy"]
    digest = next(iter(store.query(f"SELECT ?sha ?size ?type WHERE {{ <{copy}> hpc:sha256 ?sha ; "
                                   "dcat:byteSize ?size ; dcterms:format ?type }")))
    assert len(digest["sha"].value) == 64 and int(digest["size"].value) > 500
    assert digest["type"].value == "text/html"


def test_a_page_naming_only_the_system(world):
    check = latest(world["store1"], "system-only")
    assert result(check) == "names-system"
    assert check["termFound"] == ["Testbed Alpha (Example Lab)"] and "countFound" not in check


def test_a_page_naming_nothing(world):
    check = latest(world["store1"], "nothing")
    assert result(check) == "does-not-name-system"
    assert "termFound" not in check and "countFound" not in check


@pytest.mark.parametrize("case, written", [("count-comma", "2,416"), ("count-plain", "2416"), ("count-k", "2.4k")])
def test_the_count_written_three_ways(world, case, written):
    check = latest(world["store1"], case)
    assert check["countFound"] == ["2416"]
    [count] = [f for f in findings(world["store1"], check["@iri"][0]) if f["kind"] == "count"]
    assert count["text"] == written


def test_a_count_far_from_any_name_does_not_count(world):
    check = latest(world["store1"], "count-far")
    assert result(check) == "names-system" and "countFound" not in check


def test_an_arxiv_abstract_page_is_read_through_its_abstract(world):
    check = latest(world["store1"], "arxiv")
    assert result(check) == "names-system-part-count" and check["countFound"] == ["2416"]


def test_a_pdf_is_read_through_its_text_layer(world):
    check = latest(world["store1"], "pdf")
    assert result(check) == "names-system-part-count" and check["countFound"] == ["2416"]
    assert result(latest(world["store1"], "scan")) == "pdf-without-text"


# --- redirects, addresses, robots.txt ---------------------------------------------------------------------


def test_a_redirect_is_followed_and_both_urls_are_recorded(world):
    check = latest(world["store1"], "redirect")
    assert result(check) == "names-system-part-count"
    assert check["requestedUrl"] == [world["base"] + "/moved"]
    assert check["finalUrl"] == [world["base"] + "/full.html"]


def test_a_redirect_loop_and_a_redirect_to_a_private_address_are_refused(world):
    assert result(latest(world["store1"], "loop")) == "redirect-loop"
    private = latest(world["store1"], "to-private")
    assert result(private) == "forbidden-address"
    assert "10.20.30.40" in private["checkDetail"][0]


def test_robots_txt_forbidding_the_path_is_obeyed(world):
    check = latest(world["store1"], "robots")
    assert result(check) == "robots-disallowed"
    assert not world["server"].requested("/private/secret.html")
    assert world["server"].requested("/robots.txt")
    agent = world["server"].requested("/full.html")[0]["User-Agent"]
    assert agent.startswith("hpckg-verify/") and "+https://" in agent


def test_loopback_is_refused_unless_allowed(tmp_path):
    import asyncio

    from hpckg.verify.fetch import Fetcher

    async def fetch(allow: bool):
        async with Fetcher(options(allow_loopback=allow, cache_dir=None)) as fetcher:
            return await fetcher.fetch("http://127.0.0.1:9/x")

    refused = asyncio.run(fetch(False))
    assert refused.problem == "forbidden-address"
    assert asyncio.run(fetch(True)).problem == "connection-error"
    unsupported = asyncio.run(_fetch_once("file:///etc/passwd"))
    assert unsupported.problem == "unsupported-url"


def test_the_connection_itself_refuses_a_non_public_address(world):
    """Even a request that skipped the URL check (or a DNS answer that changed since) cannot connect."""
    import asyncio

    import httpx

    from hpckg.verify.fetch import Refused, guarded_transport

    async def get(allow: bool) -> int:
        async with httpx.AsyncClient(transport=guarded_transport(allow_loopback=allow)) as client:
            return (await client.get(world["base"].replace("127.0.0.1", "localhost") + "/full.html")).status_code

    with pytest.raises(Refused) as refused:
        asyncio.run(get(False))
    assert refused.value.problem == "forbidden-address"
    assert asyncio.run(get(True)) == 200


def test_tls_failure_is_its_own_result(world):
    import asyncio

    tls = asyncio.run(_fetch_once(world["base"].replace("http://", "https://") + "/full.html"))
    assert tls.problem == "tls-error", tls.detail


async def _fetch_once(url: str):
    from hpckg.verify.fetch import Fetcher

    async with Fetcher(options(cache_dir=None)) as fetcher:
        return await fetcher.fetch(url)


# --- failures, each its own result ------------------------------------------------------------------------


@pytest.mark.parametrize("case, expected, status", [
    ("missing", "not-found", "404"), ("gone", "gone", "410"), ("slow", "timeout", None),
    ("huge", "too-large", "200"), ("login", "login-wall", "200"), ("cookies", "cookie-wall", "200"),
    ("empty", "empty-body", "200"), ("paywall", "paywall", "200"), ("always-busy", "rate-limited", "429"),
    ("image", "binary-body", "200"), ("dns", "dns-error", None),
])
def test_every_failure_is_recorded_as_its_own_result(world, case, expected, status):
    check = latest(world["store1"], case)
    assert result(check) == expected
    assert check.get("httpStatus", [None])[0] == status
    assert check["checkDetail"]
    assert bool(world["store1"].query(f"ASK {{ <{check['checkResult'][0]}> hpc:passes false ; "
                                      "skos:broader checkresult:unreadable }"))


def test_a_429_is_retried_after_its_retry_after(world):
    check = checks(world["store1"], "busy")[0]
    assert result(check) == "names-system"
    assert check["attempts"] == ["2"] and check["httpStatus"] == ["200"]


# --- re-runs: history, conditional requests, changed pages ------------------------------------------------


def test_a_rerun_keeps_history_and_asks_conditionally(world):
    first, second = checks(world["store2"], "etag")
    assert first["httpStatus"] == ["200"] and second["httpStatus"] == ["304"]
    assert result(second) == "names-system"
    assert second["previousCheck"] == first["@iri"]
    assert second["contentChanged"] == ["false"]
    requests = world["server"].requested("/etag.html")
    assert requests[-1].get("If-None-Match") == '"v1"'
    copy = second["retrievedCopy"][0]
    assert bool(world["store2"].query(f"ASK {{ <{copy}> hpc:fromCache true }}"))
    files = sorted((world["root"] / ".hpckg" / "graphs" / "verify" / "fixture-etag").glob("*.nq"))
    assert len(files) == 2  # never overwritten


def test_a_page_that_changed_since_the_last_check_is_reported(world):
    first, second = checks(world["store2"], "changing")
    assert "contentChanged" not in first
    assert second["contentChanged"] == ["true"] and second["previousCheck"] == first["@iri"]
    assert [o.source.rsplit("/", 1)[-1] for o in world["second"].changed] == ["fixture-changing"]
    unchanged = checks(world["store2"], "full")
    assert unchanged[-1]["contentChanged"] == ["false"]


# --- what the results feed ------------------------------------------------------------------------------


def test_checks_conform_to_the_shapes_and_feed_the_page_and_summaries(world):
    store = world["store2"]
    report = validate(store, project=session_project())
    assert not [v for v in report.violations if "/id/check/" in str(v.focus)], report.to_text()
    rows = read_checks(store, SYSTEM)
    assert len(rows) == len(CASES)  # the latest check of each source, not the whole history
    full = next(r for r in rows if r.source and r.source.iri.endswith("fixture-full"))
    assert full.result == "names system, part and count" and full.passes is True
    assert set(full.terms) == {"Testbed Alpha (Example Lab)", PART_LABEL}
    assert full.counts == ["2416"] and full.command == "hpckg verify"
    missing = next(r for r in rows if r.source and r.source.iri.endswith("fixture-missing"))
    assert missing.result == "not found (404)" and missing.passes is False
    sentence = sourcing_summary(store, session_project().queries_dir)
    assert sentence.endswith("are weakly sourced") and " of " in sentence
    weakest = store.query((ROOT / "queries" / "weakest-sourced-systems.rq").read_text(encoding="utf-8"),
                          prefixes=False)
    testbed = next(r for r in weakest if r["system"].value == SYSTEM)
    assert int(testbed["sources"].value) == len(CASES)
    # full, system-only, four counts, redirect, pdf, etag, busy, changing, arxiv
    assert int(testbed["passing"].value) == 12


def test_a_run_stopped_halfway_keeps_every_check_it_finished(world, monkeypatch):
    class Stop(Exception):
        pass

    done = []

    def progress(outcome) -> None:
        done.append(outcome)
        if len(done) == 3:
            raise Stop

    folder = world["root"] / ".hpckg" / "graphs" / "verify"
    before = set(folder.rglob("*.nq"))
    with pytest.raises(Stop):
        verify(world["store2"], world["project"], system="testbed-alpha", options=options(concurrency=1),
               progress=progress)
    written = set(folder.rglob("*.nq")) - before
    assert len(written) == 3
    assert all(machinegraphs.read_header(path)["result"] for path in written)
    assert not list(folder.rglob("*.tmp"))


def test_the_cli_runs_verify_and_build_shows_the_summary(world, tmp_path):
    root = world["root"]
    completed = run_hpckg("verify", "--memory", "--system", "testbed-alpha", "--allow-loopback", "--delay", "0",
                          "--per-host", "8", "--read-timeout", "1.5", "--max-bytes", "100000",
                          "--stale-after", "2000-01-01", "--format", "json", cwd=root)
    out, err = text(completed)
    assert completed.returncode == 0, err
    data = json.loads(out)
    assert data["checks"] == 0 and data["skipped_recently_checked"] == len(CASES)  # all checked since 2000
    completed = run_hpckg("verify", "--memory", "--system", "testbed-alpha", "--delay", "0", "--format", "json",
                          cwd=root)
    data = json.loads(text(completed)[0])
    assert data["results"].get("forbidden-address", 0) >= len(CASES) - 1  # loopback refused without the option
    built = run_hpckg("build", "--no-pages", "--quiet", "--no-validate", "--store", str(tmp_path / "store"), cwd=root)
    assert built.returncode == 0, text(built)[1]
    summary = run_hpckg("build", "--no-pages", "--no-validate", "--store", str(tmp_path / "store2"), cwd=root)
    assert "systems have a readable citation that names them;" in text(summary)[0]
