"""The server's HTML pages rendered in-process: `Views` over a store built in memory, without a server."""

from __future__ import annotations

import re

import pytest

from hpckg.build import populate
from hpckg.namespaces import BASE
from hpckg.serve import urls
from hpckg.serve.views import Views
from hpckg.store import Store

from conftest import session_project

KALOS = BASE + "id/system/kalos"


@pytest.fixture(scope="module")
def store() -> Store:
    store = Store(None)
    populate(store, project=session_project())
    return store


@pytest.fixture(scope="module")
def views(store) -> Views:
    return Views(store, BASE)


def hrefs(page: str) -> list[str]:
    return re.findall(r'<a [^>]*href="([^"]*)"', page)


def test_served_system_page_links_entities_to_the_servers_own_pages(views):
    page = views.entity("system", "kalos", KALOS, b"{}")
    assert page is not None
    links = hrefs(page.render())
    assert urls.page("org", "shanghai-ai-lab") in links
    assert urls.page("part", "nvidia-a100-sxm4-80gb") in links
    assert "https://arxiv.org/abs/2403.07648" in links  # sources with a URL keep it
    off_site = [h for h in links if h.startswith(BASE + "id/")]
    assert not off_site, f"entity links leave the server: {off_site}"


# --- every value is escaped ---------------------------------------------------------------------------

SCRIPT = "<script>alert(1)</script>"
EVIL = f"""
@prefix hpc: <https://w3id.org/hpckg/ontology#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix prov: <http://www.w3.org/ns/prov#> . @prefix schema: <https://schema.org/> .
@prefix dcterms: <http://purl.org/dc/terms/> . @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix sys: <https://w3id.org/hpckg/id/system/> . @prefix claim: <https://w3id.org/hpckg/id/claim/> .
@prefix src: <https://w3id.org/hpckg/id/source/> . @prefix tier: <https://w3id.org/hpckg/vocab/tier/> .
@prefix basis: <https://w3id.org/hpckg/vocab/basis/> . @prefix role: <https://w3id.org/hpckg/vocab/role/> .
@prefix cmp: <https://w3id.org/hpckg/id/component/> . @prefix orgn: <https://w3id.org/hpckg/id/org/> .
@prefix site: <https://w3id.org/hpckg/id/site/> . @prefix part: <https://w3id.org/hpckg/id/part/> .
sys:evil a hpc:System ; rdfs:label "System {SCRIPT}"@en ; hpc:slug "evil" ; skos:altLabel "Alias {SCRIPT}" ;
    hpc:read "Read {SCRIPT}" .
site:evil a hpc:Site ; rdfs:label "Site {SCRIPT}"@en ; hpc:read "Site read {SCRIPT}" .
orgn:evil a hpc:Organisation ; rdfs:label "Org {SCRIPT}"@en .
part:evil a hpc:PartModel ; rdfs:label "Part {SCRIPT}"@en .
src:evil a hpc:Source ; dcterms:title "Source {SCRIPT}" ; schema:url "javascript:alert(1)" .
claim:evil-operator a hpc:Claim ; hpc:about sys:evil ; hpc:property hpc:operator ; hpc:value orgn:evil ;
    hpc:tier tier:reported ; hpc:basis basis:reported ; prov:hadPrimarySource src:evil .
claim:evil-site a hpc:Claim ; hpc:about sys:evil ; hpc:property hpc:site ; hpc:value site:evil ;
    hpc:tier tier:reported ; hpc:basis basis:reported ; prov:hadPrimarySource src:evil .
claim:evil-note a hpc:Claim ; hpc:about site:evil ; hpc:property hpc:acceleratorCount ; hpc:value 8 ;
    hpc:tier tier:reported ; hpc:basis basis:reported ; prov:hadPrimarySource src:evil .
cmp:evil-gpu a hpc:Component ; hpc:componentOf sys:evil ; hpc:role role:accelerator .
claim:evil-gpu-part a hpc:Claim ; hpc:about cmp:evil-gpu ; hpc:property hpc:partModel ; hpc:value part:evil ;
    hpc:tier tier:reported ; hpc:basis basis:reported ; prov:hadPrimarySource src:evil .
claim:evil-gpu-supplier a hpc:Claim ; hpc:about cmp:evil-gpu ; hpc:property hpc:supplierAtBuild ;
    hpc:value orgn:evil ; hpc:tier tier:reported ; hpc:basis basis:reported ; prov:hadPrimarySource src:evil .
"""


@pytest.fixture(scope="module")
def evil() -> Views:
    from hpckg.formats import rdf_format_for_path

    store = Store(None)
    store.load(EVIL, format=rdf_format_for_path("x.ttl"), graph="https://example.org/evil")
    populate(store, project=session_project())
    return Views(store, BASE)


def assert_escaped(page: str, *, expected: int = 1) -> None:
    """No <script> in the page but the layout's own (and the JSON-LD), and each value shown escaped."""
    scripts = re.findall(r"<script[^>]*>", page)
    assert all(s in ('<script type="application/ld+json">', "<script>") for s in scripts), scripts
    assert page.count("alert(1)</script>") == 0
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= expected
    assert 'href="javascript:' not in page


@pytest.mark.parametrize("kind,slug,shown", [
    ("system", "evil", ("System", "Alias", "Read", "Org", "Part", "Source")),
    ("site", "evil", ("Site", "Site read", "System")),
    ("org", "evil", ("Org", "System")),
    ("part", "evil", ("Part", "System")),
    ("source", "evil", ("Source", "System", "Org")),
    ("claim", "evil-operator", ("System", "Org")),
])
def test_labels_with_script_are_escaped_on_every_entity_page(evil, kind, slug, shown):
    iri = f"{BASE}id/{kind}/{slug}"
    page = evil.entity(kind, slug, iri, f'{{"label": "{SCRIPT}"}}'.encode())
    assert page is not None
    document = page.render()
    assert_escaped(document, expected=len(shown))
    for label in shown:
        assert f"{label} &lt;script&gt;alert(1)&lt;/script&gt;" in document, label
    # The JSON-LD keeps its value, escaped as JSON rather than as HTML.
    assert '{"label": "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"}' in document


def test_home_editor_canned_results_and_error_pages_escape_values(evil, tmp_path):
    from hpckg.query import CannedQuery

    path = tmp_path / "evil.rq"
    path.write_text(f"# {SCRIPT}\nSELECT * WHERE {{ ?s ?p ?o }}", encoding="utf-8")
    query = CannedQuery(name=f"q{SCRIPT}", path=path, description=f"Finds {SCRIPT}",
                        ontology_dir=session_project().ontology_dir)
    from hpckg.serve.front import Entry, Event, Front

    front = Front(edition="2025-06", top=[Entry(1, f"System {SCRIPT}", None, site=f"Site {SCRIPT}")],
                  imports=[Event("2025-06-10", f"imported {SCRIPT}")], changes=[Event("2025-06-11", f"edit {SCRIPT}")])
    home = evil.home(front, None).render()
    assert_escaped(home, expected=4)  # the system, its site, the import and the change
    listed = evil.queries_page([query]).render()
    assert_escaped(listed, expected=2)  # the query's name and description
    assert '<section id="other"' in listed  # a project's own query naming no group is listed last, not dropped
    results = evil.results({"head": {"vars": ["s", "label"]}, "results": {"bindings": [
        {"s": {"type": "uri", "value": BASE + "id/system/evil"},
         "label": {"type": "literal", "value": f"Value {SCRIPT}"}},
        {"s": {"type": "uri", "value": "javascript:alert(1)"}}]}})
    assert_escaped(results, expected=2)
    assert urls.page("system", "evil") in results
    editor = evil.editor(f"SELECT * {{ }} # </textarea>{SCRIPT}", results, [query]).render()
    assert_escaped(editor, expected=4)  # the query text, the results, the example's name and description
    assert "&lt;/textarea&gt;" in editor and editor.count("</textarea>") == 1
    canned = evil.canned(query, results).render()
    assert_escaped(canned, expected=4)  # the title, the heading, the query text, the results
    error = evil.error(400, "bad-query", f"line 1: {SCRIPT}").render()
    assert_escaped(error)


def test_results_show_yes_or_no_for_ask(views):
    assert views.results({"head": {}, "boolean": True}) == '<p class="boolean">yes</p>\n'
    assert ">no<" in views.results({"head": {}, "boolean": False})


# --- the templates ------------------------------------------------------------------------------------


def test_templates_load_from_the_installed_package():
    import importlib.resources

    import jinja2

    from hpckg.page.render import environment

    env = environment()
    folder = importlib.resources.files("hpckg") / "templates"
    on_disk = {p.name for p in folder.iterdir() if p.name.endswith((".html", ".md"))}
    listed = set(env.list_templates())
    assert {"layout.html", "system.md", "system_article.html", "home.html", "error.html"} <= listed
    assert listed == on_disk
    for name in listed:
        env.get_template(name)  # every template compiles
    assert isinstance(env.undefined, type) and issubclass(env.undefined, jinja2.StrictUndefined)
    with pytest.raises(jinja2.UndefinedError):
        env.get_template("error.html").render(status=500, code="x")  # no message, no urls


def test_html_templates_autoescape_and_markdown_ones_do_not():
    from hpckg.page.render import environment

    env = environment()
    assert env.from_string("{{ x }}").render(x="<b>") == "&lt;b&gt;"
    assert env.get_template("system_article.html").environment.autoescape("system_article.html")
    assert not env.autoescape("system.md")


# --- issue 9, item 10: datacenters, sites operated, tickers ----------------------------------------------

def test_the_home_page_counts_datacenters_apart_from_sites(views):
    from hpckg.serve import front

    counted = front.read(views.store, [], None).counts
    assert counted.get("data centers", 0) >= 1, counted  # Acme is an hpc:Datacenter, a kind of site


def test_organisation_page_separates_sites_from_systems_and_shows_its_ticker(views):
    lab = views.organisation(BASE + "id/org/shanghai-ai-lab")
    assert sorted(link.text for link in lab["operated"]) == ["Kalos (Shanghai AI Lab)", "Seren (Shanghai AI Lab)"]
    assert "Acme" in " ".join(link.text for link in lab["sites"])
    page = views.entity("org", "nvidia", BASE + "id/org/nvidia", b"{}").render()
    assert "NASDAQ:NVDA" in page and "Ticker" in page
