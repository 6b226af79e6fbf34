"""The Contribute page over a real `hpckg serve` process and httpx: a pasted draft gets `hpckg check`'s review
(the same problems, codes, lines and fixes as checking the file) and the pages it defines rendered as the
site renders them; the system form writes the scaffold's Turtle; an oversize body is 413, a client past its
checks 429, a cross-site POST 403; and nothing is kept: the store's generation and files, and the project's
files, are the same after as before. Clients are told apart by X-Forwarded-For from a trusted proxy."""

from __future__ import annotations

import hashlib
import html
import itertools
import re
from pathlib import Path

import httpx
import pytest

from hpckg.contribute.check import check_files
from hpckg.serve import urls
from hpckg.store import current_generation
from serve_live import serve_store, start_server

from conftest import session_project

CORPUS = Path(__file__).parent / "contributions"
FRONTIER = CORPUS / "good" / "frontier.ttl"
_clients = itertools.count(10)


@pytest.fixture(scope="module")
def server():
    live = start_server(serve_store(), "--workers", "1", "--trusted-proxy", "127.0.0.1")
    yield live
    live.stop()


def client_headers() -> dict[str, str]:
    """A new client address (its own token bucket) for each call."""
    return {"X-Forwarded-For": f"127.0.1.{next(_clients)}"}


def post(server, data: dict[str, str], headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(server.url + urls.contribute(), data=data, headers=headers or client_headers(), timeout=120)


def visible(page: str) -> str:
    page = re.sub(r"(?s)<script.*?</script>|<style.*?</style>", " ", page)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def section(page: str, identifier: str) -> str:
    """One of the page's own sections (review, turtle, pages): up to the next of them or the end of <main>
    (the rendered pages hold sections of their own)."""
    match = re.search(rf'(?s)<section id="{identifier}".*?(?=<section id="(?:review|turtle|pages)"|</main>)', page)
    return match.group(0) if match else ""


def expected(path: Path):
    """What `hpckg check` says about the same text in a file (the review the page must repeat)."""
    return check_files([path], full=True, project=session_project())


def test_the_page_is_linked_from_the_navigation_and_the_home_page(server):
    home = httpx.get(server.url + urls.home(), headers={"Accept": "text/html"}, timeout=60)
    assert home.status_code == 200
    assert home.text.count(f'href="{urls.contribute()}"') >= 2  # the navigation and the home page's text
    page = httpx.get(server.url + urls.contribute(), headers={"Accept": "text/html"}, timeout=60)
    assert page.status_code == 200 and '<form method="post"' in page.text
    assert 'name="turtle"' in page.text and 'name="source_url"' in page.text


def test_a_clean_draft_passes_and_shows_its_pages(server):
    response = post(server, {"action": "turtle", "turtle": FRONTIER.read_text(encoding="utf-8")})
    assert response.status_code == 200
    review = visible(section(response.text, "review"))
    assert expected(FRONTIER).exit_code == 0
    assert "The draft passes every check." in review and "draft.ttl passes every check" in review
    pages = section(response.text, "pages")
    assert "Frontier (ORNL)" in visible(pages) and "Oak Ridge National Laboratory" in visible(pages)
    # the system page as the site renders it (its headings two levels down, under the review's h2)
    assert "Measured performance" in visible(pages) and "<h1" not in pages
    assert 'aria-label="system page: Frontier (ORNL)"' in pages
    assert 'aria-label="org page: Oak Ridge National Laboratory"' in pages


def test_an_undefined_part_is_reported_with_the_fix(server, tmp_path):
    body = FRONTIER.read_text(encoding="utf-8")
    component = """
@prefix part: <https://w3id.org/hpckg/id/part/> .
@prefix cmp: <https://w3id.org/hpckg/id/component/> .
@prefix role: <https://w3id.org/hpckg/vocab/role/> .
cmp:frontier-accelerator a hpc:Component ;
    hpc:componentOf sys:frontier ; hpc:role role:accelerator ; rdfs:label "Frontier accelerators"@en .
claim:frontier-accelerator-part a hpc:Claim ;
    hpc:about cmp:frontier-accelerator ; hpc:property hpc:partModel ; hpc:value part:amd-mi250y ;
    hpc:tier tier:reported ; hpc:basis basis:operator-stated ; hpc:rank rank:preferred ;
    prov:hadPrimarySource src:olcf-frontier .
"""
    draft = tmp_path / "frontier.ttl"
    draft.write_text(body + component, encoding="utf-8")
    [problem] = expected(draft).problems
    assert problem.code == "undefined-entity"
    response = post(server, {"action": "turtle", "turtle": draft.read_text(encoding="utf-8")})
    assert response.status_code == 200
    review = visible(section(response.text, "review"))
    assert f"draft.ttl:{problem.line}" in review and "[ undefined-entity ]" in review
    assert problem.message in review and f"fix: {problem.fix}" in review
    assert "`part:amd-mi250y` is not defined (expected a part model)" in review
    assert "`data/ttl/parts.ttl`" in problem.fix and "hpckg new part" in problem.fix


def test_a_syntax_error_points_at_the_line_and_column(server):
    path = CORPUS / "bad" / "syntax-missing-dot.ttl"
    [problem] = expected(path).problems
    assert problem.line and problem.column
    response = post(server, {"action": "turtle", "turtle": path.read_text(encoding="utf-8")})
    assert response.status_code == 200
    review = visible(section(response.text, "review"))
    assert f"draft.ttl:{problem.line}:{problem.column}" in review and "[ syntax-error ]" in review
    assert "fix:" in review
    assert section(response.text, "pages") == ""


def test_the_system_form_writes_the_scaffold_with_tier_and_as_of(server):
    response = post(server, {"action": "form", "name": "Isambard-AI phase 1", "operator": "University of Bristol",
                             "country": "GB", "part": "nvidia-gh200", "nodes": "42", "per_node": "4",
                             "site": "", "source_url": "https://www.bristol.ac.uk/isambard-ai",
                             "tier": "reported", "as_of": "2024-05"})
    assert response.status_code == 200
    turtle = html.unescape(re.search(r"(?s)<section id=\"turtle\".*?<pre>(.*?)</pre>", response.text).group(1))
    assert "sys:isambard-ai-phase-1 a hpc:System" in turtle
    assert "hpc:nodeCount ; hpc:value 42" in turtle and "hpc:perNode ; hpc:value 4" in turtle
    assert "todo:tier" not in turtle and "hpc:tier tier:reported" in turtle
    assert 'hpc:asOf "2024-05"^^xsd:gYearMonth' in turtle
    assert "<https://www.bristol.ac.uk/isambard-ai>" in turtle
    # what the contributor still has to decide is reviewed as `hpckg check` reviews the same text
    review = visible(section(response.text, "review"))
    assert "[ placeholder ]" in review and "todo:basis" in review
    bad = post(server, {"action": "form", "name": "X", "operator": "Y", "country": "GBR"})
    assert bad.status_code == 200 and "is not an ISO 3166-1 alpha-2 code" in visible(bad.text)
    # a count in all, when the source gives no nodes x per node
    counted = post(server, {"action": "form", "name": "Isambard-AI phase 1", "operator": "University of Bristol",
                            "country": "GB", "part": "nvidia-gh200", "quantity": "168"})
    assert "hpc:property hpc:quantity ; hpc:value 168" in html.unescape(counted.text)
    contradicted = post(server, {"action": "form", "name": "X", "operator": "Y", "country": "GB", "part": "p",
                                 "nodes": "42", "per_node": "4", "quantity": "100"})
    assert "is not nodes x per node (168)" in visible(contradicted.text)


def test_the_claim_form_enriches_a_record_the_graph_holds(server):
    # Issue 36: the Contribute page had a form for a new system only; most contributions enrich a record
    # the graph already holds, as `hpckg new claim` does on the command line.
    response = post(server, {"action": "claim", "record": "Kalos", "property": "purpose",
                             "value": "LLM training", "source_url": "https://news.example.org/kalos",
                             "tier": "reported", "as_of": "2024-04"})
    assert response.status_code == 200
    turtle = html.unescape(re.search(r"(?s)<section id=\"turtle\".*?<pre>(.*?)</pre>", response.text).group(1))
    # data/ttl/systems/kalos.ttl has claim:kalos-purpose: the new claim takes the next free name
    assert "claim:kalos-purpose-2 a hpc:Claim" in turtle
    assert 'hpc:about sys:kalos ; hpc:property hpc:purpose ; hpc:value "LLM training"' in turtle
    assert "hpc:tier tier:reported" in turtle and 'hpc:asOf "2024-04"^^xsd:gYearMonth' in turtle
    assert "schema:url <https://news.example.org/kalos>" in turtle
    # what the contributor still decides (the basis, the new source's title, date and kind) is reviewed as
    # `hpckg check` reviews the same text
    review = visible(section(response.text, "review"))
    assert "1 claim (1 reported)" in review and "todo:basis" in review and "todo:source-kind" in review, review
    assert "redefines-entity" not in review, review
    # an entity value is found by its name among the property's range, as `hpckg new claim` finds it
    operator = post(server, {"action": "claim", "record": "sys:kalos", "property": "operator",
                             "value": "Shanghai AI Laboratory"})
    operator_turtle = html.unescape(re.search(r"(?s)<section id=\"turtle\".*?<pre>(.*?)</pre>",
                                              operator.text).group(1))
    assert "hpc:property hpc:operator ; hpc:value orgn:shanghai-ai-lab" in operator_turtle
    for form, said in ((dict(record="Kalos", property="purpos", value="x"), "is not a claim property"),
                       (dict(record="No such machine", property="purpose", value="x"), "is not the name of a record"),
                       # a misspelt name is answered with the records the site's search finds
                       (dict(record="Kalso", property="purpose", value="x"), "did you mean sys:kalos ("),
                       (dict(record="Kalos", property="nodeCount", value="many"), "is a whole number")):
        bad = post(server, {"action": "claim", **form})
        assert bad.status_code == 200 and said in visible(bad.text), form
        assert 'id="form-error"' in bad.text and 'id="review"' not in bad.text


def test_the_claim_form_describes_the_new_source_so_the_draft_checks_clean(server):
    # Issue 36: the claim form wrote the new source's title, date, kind, creator and publisher, the basis and
    # the change entry as TODOs to fill in the text box; asked for on the form, the draft passes as written.
    response = post(server, {"action": "claim", "record": "Kalos", "property": "purpose", "value": "LLM training",
                             "source_url": "https://news.example.org/kalos", "tier": "reported", "as_of": "2024-04",
                             "basis": "reported", "source_title": "Kalos trains language models",
                             "source_issued": "2024-04-02", "source_kind": "news-article",
                             "source_creator": "Shanghai AI Laboratory", "source_publisher": "Shanghai AI Laboratory",
                             "change": "Kalos's purpose, from a news article"})
    assert response.status_code == 200, response.text
    turtle = html.unescape(re.search(r"(?s)<section id=\"turtle\".*?<pre>(.*?)</pre>", response.text).group(1))
    statements = "\n".join(line for line in turtle.splitlines() if not line.startswith(("#", "@prefix")))
    assert "todo:" not in statements and "TODO" not in statements, turtle
    assert 'dcterms:title "Kalos trains language models"@en' in turtle
    assert 'dcterms:issued "2024-04-02"^^xsd:date' in turtle and "hpc:sourceKind sourcekind:news-article" in turtle
    assert "dcterms:creator orgn:shanghai-ai-lab" in turtle and "dcterms:publisher orgn:shanghai-ai-lab" in turtle
    assert "hpc:basis basis:reported" in turtle and "Kalos's purpose, from a news article" in turtle
    review = visible(section(response.text, "review"))
    assert "The draft passes every check." in review, review
    # the form keeps what was typed, and refuses what it cannot write
    assert 'value="Kalos trains language models"' in response.text
    assert '<option value="news-article" selected>' in response.text
    for form, said in ((dict(source_kind="blog"), "is not one of the source kinds"),
                       (dict(source_url="", source_title="A title"), "give its URL"),
                       (dict(basis="imported"), "the basis is one of"),
                       (dict(source_issued="April 2024"), "is not a date"),
                       (dict(source_creator="No such organisation"), "is not the name of a record")):
        bad = post(server, {"action": "claim", "record": "Kalos", "property": "purpose", "value": "x",
                            "source_url": "https://news.example.org/kalos", **form})
        assert bad.status_code == 200 and said in visible(bad.text), (form, visible(bad.text)[-600:])


def test_an_oversize_body_is_refused_with_413(server):
    response = post(server, {"action": "turtle", "turtle": "# " + "x" * (300 * 1024)})
    assert response.status_code == 413


def test_a_client_past_its_checks_is_told_to_wait_with_429(server):
    headers = client_headers()
    draft = (CORPUS / "bad" / "syntax-missing-dot.ttl").read_text(encoding="utf-8")
    statuses = [post(server, {"action": "turtle", "turtle": draft}, headers) for _ in range(8)]
    codes = [r.status_code for r in statuses]
    assert codes[0] == 200 and 429 in codes, codes
    refused = statuses[codes.index(429)]
    assert int(refused.headers["Retry-After"]) >= 1
    # another client is not held back by this one
    assert post(server, {"action": "turtle", "turtle": draft}).status_code == 200


def test_a_post_from_another_site_is_refused(server):
    headers = {**client_headers(), "Origin": "https://elsewhere.example", "Sec-Fetch-Site": "cross-site"}
    response = post(server, {"action": "turtle", "turtle": FRONTIER.read_text(encoding="utf-8")}, headers)
    assert response.status_code == 403
    assert httpx.put(server.url + urls.contribute(), content=b"x", timeout=30).status_code == 405


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its size and modification time (missing folder: nothing)."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()} if folder.is_dir() else {}


def _state(store: Path) -> tuple:
    """The store's generation and files with their digests, and the files of the server's project (its
    working directory: the data, the machine-written graphs and caches under .hpckg)."""
    files = {str(p.relative_to(store.parent)): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in sorted(store.parent.rglob("*")) if p.is_file()}
    here = Path.cwd()
    return current_generation(store), files, _tree(here / "data"), _tree(here / ".hpckg")


def test_nothing_is_stored(server):
    store = serve_store()
    before = _state(store)
    for data in ({"action": "turtle", "turtle": FRONTIER.read_text(encoding="utf-8")},
                 {"action": "form", "name": "Nothing Kept", "operator": "ornl", "country": "US"}):
        assert post(server, data).status_code == 200
    assert _state(store) == before
    # and what was checked is not in the graph the server serves
    answer = httpx.get(server.url + urls.sparql(),
                       params={"query": "ASK { <https://w3id.org/hpckg/id/system/frontier> ?p ?o }"},
                       headers={"Accept": "application/sparql-results+json", **client_headers()}, timeout=30)
    assert answer.json()["boolean"] is False
