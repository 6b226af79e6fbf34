"""The front door of `hpckg serve` on the website's store (two TOP500 editions and Epoch AI): a home page a
visitor understands at a glance (search, the newest list's top ten, what the dataset holds, what the build
brought in, where to go next) that stays small, and its figures kept on disk per store generation."""

from __future__ import annotations

import html
import json
import re

import pytest

import stores
from hpckg.query import canned_queries
from hpckg.serve import editions, urls
from hpckg.store import Store

from conftest import session_project

# The website's store is built from real imports (tests/stores.py): with the other website tests, not in the quick loop.
pytestmark = pytest.mark.imports

HTML = {"Accept": "text/html"}


def text(page: str) -> str:
    page = re.sub(r"(?s)<script.*?</script>|<style.*?</style>", " ", page)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def newest_edition(store) -> tuple[str, list[dict]]:
    names = sorted(row["e"].value for row in editions.select(store, """SELECT ?e WHERE {
        ?x hpc:editionOf ds:top500 ; dcterms:issued ?i BIND (STR(?i) AS ?e) }"""))
    return names[-1], editions.edition_rows(store, names[-1])


def test_home_is_small_and_leads_with_the_newest_lists_top_ten(website_client):
    response = website_client.get(urls.home(), headers=HTML)
    assert response.status_code == 200
    assert len(response.content) < 100_000, f"the home page is {len(response.content):,} bytes"
    page, visible = response.text, text(response.text)
    store = Store(stores.website().store, read_only=True)
    try:
        edition, rows = newest_edition(store)
    finally:
        store.close()
    top = re.search(r'<section id="top10".*?</section>', page, re.S)
    assert top, "no top-ten section"
    assert f"TOP500, {edition}" in text(top.group(0))
    linked = re.findall(r'<td><a href="(/page/system/[^"]+)">([^<]+)</a></td>', top.group(0))
    assert linked == [(urls.page_for_iri(str(r["system"])), html.escape(str(r["name"]), quote=False))
                      for r in rows[:10]]
    assert re.search(r"\d Flop/s|[\d.]+ [PET]Flop/s", text(top.group(0)))  # Rmax with its unit
    # Not the old dump: no list of every system and site, no engineering counts.
    assert page.count('href="/page/system/') < 20 and "named graphs" not in visible
    assert re.search(r"[\d,]+ machines at [\d,]+ sites", visible)
    assert re.search(r"2 TOP500 lists \(\d{4}-\d\d to " + edition, visible)
    assert re.search(r"[\d,]+ AI \(GPU\) clusters", visible)
    assert re.search(r"[\d,]+ lead \([\d.]+%\)", visible) and re.search(r"[\d,]+ reported", visible)
    assert "What changed in the latest build" in visible and re.search(r"Newest imports: \d{4}-\d\d-\d\d", visible)
    for target in (urls.lists(), urls.statistics(), urls.charts(), urls.compare(), urls.sparql(), urls.queries(),
                   urls.contribute(), urls.dump("nq"), urls.search()):
        assert f'"{target}"' in page, target


def test_the_ready_made_queries_have_a_page_of_their_own(website_client):
    page = website_client.get(urls.queries(), headers=HTML)
    assert page.status_code == 200
    for query in canned_queries(session_project()):
        assert f'action="{urls.canned(query.name)}"' in page.text  # runnable without JavaScript
        assert html.escape(query.description, quote=False) in page.text or query.description in text(page.text)


def test_the_home_pages_figures_are_kept_on_disk_for_their_generation_only(tmp_path):
    from hpckg.namespaces import BASE
    from hpckg.serve.diskcache import GenerationCache, for_generation
    from hpckg.serve.precompute import Prepared
    from hpckg.serve.views import Views

    store = Store(stores.website().store, read_only=True)
    try:
        cache = GenerationCache(tmp_path, store.generation_id())
        first = Prepared(Views(store, BASE), lambda: 0, session_project(), cache).front()
        assert first.top and cache.read("front") == json.loads(json.dumps(first.to_json()))
        # A restart reads the file back instead of computing: what the file says is what it serves.
        written = cache.path("front")
        kept = json.loads(written.read_text())
        kept["top"][0]["name"] = "Read back from disk"
        written.write_text(json.dumps(kept))
        restarted = GenerationCache(tmp_path, store.generation_id())
        again = Prepared(Views(store, BASE), lambda: 0, session_project(), restarted)
        assert again.front().top[0].name == "Read back from disk"
        # Another generation has a folder of its own; a writable store (SPARQL Update) keeps nothing on disk.
        other = GenerationCache(tmp_path, store.generation_id() + "-another-build")
        assert other.folder != cache.folder and other.read("front") is None
        assert for_generation(tmp_path, store.generation_id(), BASE, writable=True, project=session_project()) is None
        # After an update (revision 1) the figures are computed again, and not written over revision 0's.
        updated = Prepared(Views(store, BASE), lambda: 1, session_project(), cache).front()
        assert updated.top[0].name == first.top[0].name
        assert cache.read("front")["top"][0]["name"] == "Read back from disk"
    finally:
        store.close()


def test_pages_and_twins_are_gzipped_tagged_and_revalidated_with_304(website_client):
    system = urls.entity("system", "top500-180047")
    for path, accept in ((urls.home(), "text/html"), (urls.top500_list("2025-06", "csv"), "text/csv"),
                         (urls.entity("system", "top500-180047", "json"), "application/json"),
                         (urls.canned("accelerators-by-country", "json"), "application/json")):
        first = website_client.get(path, headers={"Accept": accept, "Accept-Encoding": "gzip"})
        assert first.status_code == 200 and first.headers["Content-Encoding"] == "gzip", path
        tag, freshness = first.headers["ETag"], first.headers["Cache-Control"]
        assert tag.startswith('W/"') and "max-age=" in freshness and "Accept" in first.headers["Vary"]
        again = website_client.get(path, headers={"Accept": accept, "If-None-Match": f'"x", {tag}'})
        assert again.status_code == 304 and again.content == b"" and again.headers["ETag"] == tag
        stale = website_client.get(path, headers={"Accept": accept, "If-None-Match": 'W/"another"'})
        assert stale.status_code == 200 and stale.headers["ETag"] == tag and stale.content == first.content
    # The page and its twin are two representations: two tags.
    page = website_client.get(system, headers={"Accept": "text/html"}, follow_redirects=True)
    turtle = website_client.get(system, headers={"Accept": "text/turtle"})
    assert page.headers["ETag"] != turtle.headers["ETag"]
    # A query's answer may differ between two runs (RAND, NOW): the protocol's answers carry no page tag.
    answer = website_client.get(urls.sparql("SELECT (RAND() AS ?r) {}"), headers={"Accept": "application/json"})
    assert answer.status_code == 200 and "ETag" not in answer.headers


def test_a_canned_query_at_its_defaults_is_answered_once_per_build_and_kept_on_disk(website_client):
    prepared = website_client.app.state.service.prepared
    assert prepared.disk is not None  # a read-only store: its figures are kept on disk
    page = website_client.get(urls.canned("acme-total"), headers=HTML)
    download = website_client.get(urls.canned("acme-total", "csv"))
    assert page.status_code == 200 and download.status_code == 200
    kept = prepared.disk.read("canned-answer:acme-total.json")
    assert kept and kept[0].startswith("application/sparql-results+json")
    document = json.loads(kept[2])
    assert document["results"]["bindings"] and '<table class="results">' in page.text
    assert all(name in text(page.text) for name in document["head"]["vars"])
    assert prepared.disk.read("canned-answer:acme-total.csv")[2] == download.text
    # With arguments, a query is the visitor's own: answered, not kept.
    website_client.get(urls.canned("accelerators-by-country", params={"min_tier": "reported"}), headers=HTML)
    prefix = "canned-answer_accelerators-by-country."
    kept_answers = {p.name for p in prepared.disk.folder.iterdir() if p.name.startswith(prefix)}
    assert kept_answers <= {prepared.disk.path("canned-answer:accelerators-by-country.json").name}
