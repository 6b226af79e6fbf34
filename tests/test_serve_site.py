"""The linked-data website of `hpckg serve`, in-process through Starlette's TestClient (real store, real
query worker processes): 303 redirects, twins and Link headers, HTML pages, canned queries, CORS, errors,
rate limits and authorised updates."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
import urllib.parse

import pytest
import rdflib

from hpckg.query import GROUPS, canned_queries
from hpckg.serve import urls
from serve_live import in_process, serve_store

from conftest import session_project

KALOS = "https://w3id.org/hpckg/id/system/kalos"


@pytest.fixture(scope="module")
def web():
    with in_process(serve_store(), workers=2, rate_limit=0) as client:
        yield client


HTML = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def text(page: str) -> str:
    """The visible text of a page, whitespace collapsed."""
    page = re.sub(r"(?s)<script.*?</script>|<style.*?</style>", " ", page)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def test_browser_is_redirected_303_to_the_page(web):
    response = web.get(urls.entity("system", "kalos"), headers=HTML)
    assert response.status_code == 303 and response.headers["Location"] == urls.page("system", "kalos")


@pytest.mark.parametrize("accept,parser", [("text/turtle", "turtle"), ("application/ld+json", "json-ld"),
                                            ("application/n-triples", "nt"), ("application/rdf+xml", "xml")])
def test_entity_iri_negotiates_its_description(web, accept, parser):
    response = web.get(urls.entity("system", "kalos"), headers={"Accept": accept})
    assert response.status_code == 200 and response.headers["Content-Type"].startswith(accept)
    graph = rdflib.Graph().parse(data=response.content, format=parser)
    hpc = rdflib.Namespace("https://w3id.org/hpckg/ontology#")
    operator = rdflib.URIRef("https://w3id.org/hpckg/id/claim/kalos-operator")
    source = rdflib.URIRef("https://w3id.org/hpckg/id/source/arxiv-2403-07648")
    assert (operator, hpc.about, rdflib.URIRef(KALOS)) in graph  # claims about it
    assert (operator, rdflib.URIRef("http://www.w3.org/ns/prov#hadPrimarySource"), source) in graph
    assert (source, rdflib.URIRef("http://purl.org/dc/terms/title"), None) in graph  # and their sources
    assert 'rel="alternate"' in response.headers["Link"]


@pytest.mark.parametrize("suffix,parser", [("ttl", "turtle"), ("jsonld", "json-ld"), ("nt", "nt"),
                                            ("rdf", "xml")])
def test_suffixes_give_raw_formats(web, suffix, parser):
    response = web.get(urls.entity("site", "acme", suffix), headers=HTML)
    assert response.status_code == 200
    graph = rdflib.Graph().parse(data=response.content, format=parser)
    assert (rdflib.URIRef("https://w3id.org/hpckg/id/site/acme"), None, None) in graph


def test_json_twin_is_a_plain_summary(web):
    summary = web.get(urls.entity("site", "acme", "json")).json()
    assert summary["iri"] == "https://w3id.org/hpckg/id/site/acme" and summary["kind"] == "site"
    totals = [c for c in summary["claims"] if c["property"].endswith("#acceleratorCount")]
    # derived from the two quantities and each system's site and status claim (issue 9, item 3)
    assert totals and totals[0]["value"] == 4704 and len(totals[0]["derivedFrom"]) == 6
    assert summary["links"]["html"] == urls.page("site", "acme")


def test_every_page_announces_its_twins_and_embeds_json_ld(web):
    for kind, slug in (("system", "kalos"), ("site", "acme"), ("org", "nvidia"),
                       ("source", "arxiv-2403-07648"), ("claim", "kalos-operator")):
        response = web.get(urls.page(kind, slug))
        assert response.status_code == 200, (kind, slug)
        for suffix, url in urls.twins(kind, slug).items():
            assert f'href="{url}"' in response.text and f"<{url}>" in response.headers["Link"], suffix
            assert web.get(url).status_code == 200
        embedded = re.search(r'<script type="application/ld\+json">(.*?)</script>', response.text, re.S)
        data = json.loads(embedded.group(1).replace("<\\/", "</"))
        graph = rdflib.Graph().parse(data=json.dumps(data), format="json-ld")
        iri = rdflib.URIRef(f"https://w3id.org/hpckg/id/{kind}/{slug}")
        assert (iri, None, None) in graph or (None, None, iri) in graph



def test_a_page_embeds_its_entitys_own_triples_and_links_its_claims(web):
    # Embedded, the whole description was 215 KB of Summit's 309 KB page on the full graph: the page carries the
    # entity's own triples, its .jsonld twin (linked above) the claims and their sources.
    page = web.get(urls.page("system", "kalos")).text
    embedded = re.search(r'<script type="application/ld\+json">(.*?)</script>', page, re.S).group(1)
    graph = rdflib.Graph().parse(data=embedded.replace("<\\/", "</"), format="json-ld")
    kalos = rdflib.URIRef(KALOS)
    assert set(graph.subjects()) == {kalos} and (kalos, rdflib.RDFS.label, None) in graph
    twin = rdflib.Graph().parse(data=web.get(urls.twins("system", "kalos")["jsonld"]).content, format="json-ld")
    about = rdflib.URIRef("https://w3id.org/hpckg/ontology#about")
    assert set(graph) < set(twin) and len(set(twin.subjects(about, kalos))) > 10

def test_system_page_comes_from_hpckg_page(web):
    served = web.get(urls.page("system", "kalos")).text
    page = text(served)
    assert "Kalos (Shanghai AI Lab)" in page and "Shanghai AI Laboratory" in page and "2,416" in page
    # Its entities link to this server's pages, as on every other page; sources keep their own URLs.
    assert f'href="{urls.page("org", "shanghai-ai-lab")}"' in served
    assert 'href="https://arxiv.org/abs/2403.07648"' in served
    assert 'href="https://w3id.org/hpckg/id/' not in served


def test_site_page_shows_the_derived_total_and_how(web):
    page = text(web.get(urls.page("site", "acme")).text)
    assert "Accelerators: 4,704" in page
    assert "2,416" in page and "2,288" in page  # the input claims
    assert "arXiv 2403.07648" in page  # their sources
    assert "weakest tier of the inputs: reported" in page
    assert "Kalos (Shanghai AI Lab)" in page and "Seren (Shanghai AI Lab)" in page


def test_organisation_page_shows_lineage_and_systems(web):
    page = text(web.get(urls.page("org", "nvidia")).text)
    assert "Mellanox" in page  # acquired by NVIDIA
    assert "Systems supplied" in page and "Kalos (Shanghai AI Lab)" in page
    mellanox = text(web.get(urls.page("org", "mellanox")).text)
    assert re.search(r"Rolls up to \(today\) NVIDIA", mellanox)


def test_part_and_source_pages(web):
    part = text(web.get(urls.page("part", "nvidia-a100-sxm4-80gb")).text)
    assert "Used in" in part and "Kalos (Shanghai AI Lab)" in part
    source = web.get(urls.page("source", "arxiv-2403-07648"))
    assert 'id="source-checks"' in source.text
    assert "pnpm verify" in text(source.text) and "Characterization of Large Language Model" in text(source.text)


def test_the_queries_page_lists_every_canned_query(web):
    listed = web.get(urls.queries())
    page = text(listed.text)
    queries = canned_queries(session_project())
    assert queries, "queries/ has no canned queries"
    assert f'href="{urls.queries()}"' in web.get(urls.home()).text
    for query in queries:
        assert f'action="{urls.canned(query.name)}"' in listed.text  # runnable without JavaScript
        assert query.description in page
    # Issue 35: 52 queries in one table was a long page to find one in: each is in the section of the kind of
    # question it answers (its header's `# group:`), and the page starts with the sections
    assert {query.group for query in queries} == set(GROUPS), "every query in a known group, every group used"
    sections = re.findall(r'<section id="(\w+)"', listed.text)
    assert sections == list(GROUPS)
    for query in queries:
        section = listed.text[listed.text.index(f'<section id="{query.group}"'):]
        assert f'<tr id="query-{query.name}">' in section[:section.index("</section>")], query.name
    assert all(f'<a href="#{key}">{title}</a>' in html.unescape(listed.text) for key, title in GROUPS.items())


def test_canned_query_runs_as_html_csv_and_json(web):
    page = web.get(urls.canned("acme-total"))
    assert page.status_code == 200 and '<table class="results">' in page.text
    assert "4704" in page.text or "4,704" in page.text
    csv_text = web.get(urls.canned("acme-total", "csv"))
    assert csv_text.headers["Content-Type"].startswith("text/csv") and "4704" in csv_text.text
    document = web.get(urls.canned("acme-total", "json")).json()
    assert document["results"]["bindings"]


def test_query_editor_runs_a_query_without_javascript(web):
    editor = web.get(urls.query_editor("SELECT ?s WHERE { ?s a hpc:System } ORDER BY ?s"))
    assert editor.status_code == 200 and "<textarea" in editor.text
    assert f'href="{urls.page("system", "kalos")}"' in editor.text
    assert "Examples" in editor.text


def test_cors_headers_and_preflight(web):
    assert web.get(urls.sparql("ASK {}")).headers["Access-Control-Allow-Origin"] == "*"
    preflight = web.options(urls.sparql(), headers={"Origin": "https://example.org",
                                                    "Access-Control-Request-Method": "POST"})
    assert preflight.status_code == 204 and preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    assert "Content-Type" in preflight.headers["Access-Control-Allow-Headers"]


@pytest.mark.parametrize("path,status,code", [
    ("/no/such/path", 404, "not-found"),
    (urls.entity("system", "no-such-system"), 404, "unknown-entity"),
    (urls.canned("no-such-query"), 404, "unknown-query"),
    (urls.sparql("SELECT * WHERE { ?s ?p }"), 400, "query-syntax"),
])
def test_every_error_has_one_json_shape_and_an_html_page(web, path, status, code):
    response = web.get(path)
    assert response.status_code == status
    assert response.json() == {"error": {"status": status, "code": code,
                                         "message": response.json()["error"]["message"],
                                         **({"line": 1, "column": 25} if code == "query-syntax" else {})}}
    assert response.json()["error"]["message"]
    browser = web.get(path, headers=HTML)
    assert browser.status_code == status and browser.headers["Content-Type"].startswith("text/html")
    assert f"{status}: {code}" in text(browser.text)


def test_writes_are_405(web):
    response = web.put(urls.graph_store(), content=b"<a:a> <a:b> <a:c> .",
                       headers={"Content-Type": "application/n-triples"})
    assert response.status_code == 405 and response.json()["error"]["code"] == "method-not-allowed"


def test_rate_limit_answers_429_with_retry_after():
    with in_process(serve_store(), workers=1, rate_limit=0.0001) as http:
        # The first query spends this client's tiny budget.
        statuses = [http.get(urls.sparql("SELECT * WHERE { ?s ?p ?o } LIMIT 50")) for _ in range(3)]
    assert statuses[0].status_code == 200
    limited = [r for r in statuses if r.status_code == 429]
    assert limited
    assert int(limited[0].headers["Retry-After"]) >= 1
    assert limited[0].json()["error"]["code"] == "rate-limited"


def test_update_with_the_token(tmp_path):
    store = tmp_path / "store"
    shutil.copytree(serve_store(), store)
    update = "INSERT DATA { <https://example.org/x> <https://example.org/p> 42 }"
    ask = urls.sparql("ASK { <https://example.org/x> <https://example.org/p> 42 }")
    with in_process(store, workers=1, update_token="s3cret") as http:
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        wrong = http.post(urls.sparql(), content=urllib.parse.urlencode({"update": update}),
                          headers={**form, "Authorization": "Bearer nope"})
        assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "update-forbidden"
        assert http.get(ask).json()["boolean"] is False
        done = http.post(urls.sparql(), content=update, headers={
            "Content-Type": "application/sparql-update", "Authorization": "Bearer s3cret"})
        assert done.status_code == 204
        answer = http.get(ask).json()
        assert answer.get("boolean") is True, answer  # the workers see the update
        machines = re.compile(r"([\d,]+) machines at")
        before = int(machines.search(text(http.get(urls.home()).text)).group(1).replace(",", ""))
        machine = "INSERT DATA { <https://example.org/m> a <https://w3id.org/hpckg/ontology#System> }"
        assert http.post(urls.sparql(), content=machine, headers={
            "Content-Type": "application/sparql-update", "Authorization": "Bearer s3cret"}).status_code == 204
        after = int(machines.search(text(http.get(urls.home()).text)).group(1).replace(",", ""))
        assert after == before + 1  # the home page's figures computed again after the update


def test_serve_help_documents_every_option_and_an_example():
    from conftest import run_hpckg

    out = run_hpckg("serve", "--help").stdout.decode()
    for option in ("--store", "--host", "--port", "--timeout", "--max-results", "--allow-update-token",
                   "--allow-service", "--workers", "--rate-limit", "--answer-cache", "--query-memory",
                   "--trusted-proxy", "--slow-slots", "--base-iri", "--verbose", "--log-level"):
        assert option in out
    assert "examples:" in out and "hpckg serve" in out


def test_hpckg_help_does_not_import_the_web_stack():
    code = ("import sys\nfrom hpckg.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('starlette', 'uvicorn')))")
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip().splitlines()[-1] == "[]"


def test_every_html_response_carries_a_content_security_policy_that_allows_only_its_own_script(web):
    import base64
    import hashlib

    for path in (urls.home(), urls.QUERY_EDITOR, urls.page("system", "kalos"), urls.page("source", "arxiv-2403-07648"),
                 "/page/system/no-such-system"):
        response = web.get(path, headers=HTML)
        assert response.headers["content-type"].startswith("text/html"), path
        policy = response.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy and "'unsafe-eval'" not in policy
        assert response.headers["x-content-type-options"] == "nosniff"
        # Every script that runs (JSON-LD is data, not run) is allowed by its hash, and nothing else is.
        scripts = re.findall(r"<script>(.*?)</script>", response.text, re.S)
        allowed = set(re.findall(r"'sha256-([^']+)'", policy))
        assert scripts, path
        for script in scripts:
            digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
            assert digest in allowed, path


def test_served_system_pages_carry_the_system_page_stylesheet(web):
    # The standalone page has its own stylesheet; the served one must style the same elements (issue 9,
    # item 10: served system pages dropped it).
    served = web.get(urls.page("system", "kalos"), headers=HTML).text
    style = "".join(re.findall(r"<style>(.*?)</style>", served, re.S))
    assert 'class="system-page"' in served
    for selector in (".system-page .lead", ".system-page .preamble", ".system-page small.detail",
                     ".system-page nav.breadcrumb"):
        assert selector in style, selector
