"""Search over a store with real TOP500 and Epoch AI imports, in-process through Starlette's TestClient:
any name or alias, whatever the accents, case and punctuation, ranked exact > prefix > word, typed, as a
page and as JSON; and the index on its own over names given to it."""

from __future__ import annotations

import html
import json
import re

import pytest

from hpckg.serve import urls
from hpckg.serve.search import Entity, SearchIndex

pytestmark = pytest.mark.imports

HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def web(website_client):
    return website_client


def found(web, text: str, limit: int = 10) -> list[dict]:
    response = web.get(urls.search(text, "json") + f"&limit={limit}")
    assert response.status_code == 200, response.text
    return response.json()["results"]


def test_a_system_is_found_by_its_name_whatever_the_case_accents_and_punctuation(web):
    for text in ("El Capitan", "el capitan", "ÉL-CAPITAN", "el.capitan"):
        first = found(web, text)[0]
        assert (first["label"], first["type"], first["match"]) == ("El Capitan", "system", "exact"), text
        assert first["page"] == urls.page("system", "top500-180307")


def test_sites_organisations_and_parts_are_found_and_typed(web):
    assert any(r["type"] == "site" and r["matched"] == "DOE/NNSA/LLNL" for r in found(web, "doe nnsa llnl"))
    assert found(web, "nvidia")[0]["type"] == "organisation"
    assert any(r["type"] == "part" for r in found(web, "h100 sxm5", 50))
    assert found(web, "julich")  # Jülich, without its accent


def test_results_are_ranked_exact_then_prefix_then_word(web):
    results = found(web, "jupiter", 50)
    order = {"exact": 0, "prefix": 1, "word": 2}
    assert [order[r["match"]] for r in results] == sorted(order[r["match"]] for r in results)
    assert {r["match"] for r in results} >= {"prefix", "word"}
    assert results[0]["matched"].lower().startswith("jupiter")


def test_the_search_page_links_each_result_and_every_page_has_the_box(web):
    page = web.get(urls.search("frontier"), headers=HTML).text
    assert f'href="{urls.page("system", "top500-180047")}"' in page
    assert 'value="frontier"' in page and 'role="search"' in page
    for url in (urls.home(), urls.lists(), urls.page("system", "top500-180047")):
        assert re.search(r'<form class="search" role="search" method="get" action="/search">',
                         web.get(url, headers=HTML).text), url
    assert "0 results" in html.unescape(web.get(urls.search("zzqqxx"), headers=HTML).text)
    assert web.get(urls.search("x", "json") + "&limit=1000").status_code == 400


def test_the_index_alone_ranks_and_dedupes():
    kalos, other = Entity("sys:kalos", "system", "Kalos"), Entity("sys:k2", "system", "Kalos Two")
    site = Entity("site:k", "site", "Kalos Centre")
    index = SearchIndex([(kalos, "Kalos"), (kalos, "Kalos (Shanghai AI Lab)"), (other, "Kalos Two"),
                         (site, "Centre of Kalos")])
    hits = index.search("KALOS")
    assert [(h.entity.iri, h.match) for h in hits] == [("sys:kalos", "exact"), ("sys:k2", "prefix"),
                                                       ("site:k", "word")]
    assert index.search("") == [] and index.search("!!!") == []
    assert [h.entity.iri for h in index.search("centre kal")] == ["site:k"]


# ---- what people type: typos, words across name, site, country and vendor, countries -------------------


def test_a_typo_finds_the_machine_and_the_page_says_what_it_searched_for(web):
    for typed, meant in (("frontir", "Frontier"), ("fugako", "Supercomputer Fugaku"), ("el capitn", "El Capitan")):
        results = found(web, typed)
        assert results, typed
        assert results[0]["label"] == meant and results[0]["match"] == "close", (typed, results[:2])
    document = web.get(urls.search("frontir", "json")).json()
    assert document["searched"] == "frontier"
    page = html.unescape(web.get(urls.search("frontir"), headers=HTML).text)
    assert re.search(r"Showing results for “<a href=\"/search\?q=frontier\">frontier</a>”", page)
    assert found(web, "zzqqxx") == []  # nothing near it either


def test_words_match_across_a_machines_name_site_operator_country_and_vendor(web):
    frontier = urls.page("system", "top500-180047")
    for text in ("frontier oak ridge", "frontier ornl", "frontier united states", "frontier hpe"):
        results = found(web, text)
        # Epoch AI's record is named "Oak Ridge NL Frontier": every word in its name comes first
        assert [r["match"] for r in results if r["page"] == frontier] == ["context"], (text, results[:3])
        assert all("Frontier" in r["label"] for r in results[:2]), text
    assert found(web, "el capitan llnl")[0]["label"] == "El Capitan"
    # The site itself by its initials
    assert any(r["type"] == "site" and "Oak Ridge" in r["label"] for r in found(web, "ornl", 20))


def test_a_country_is_found_by_its_name(web):
    first = found(web, "germany")[0]
    assert (first["type"], first["label"], first["match"]) == ("country", "Germany", "exact")
    assert first["page"] == urls.page("country", "DE")


def test_the_index_alone_matches_context_words_and_corrects_typos():
    frontier = Entity("sys:frontier", "system", "Frontier")
    kalos = Entity("sys:kalos", "system", "Kalos")
    index = SearchIndex([(frontier, "Frontier"), (kalos, "Kalos")],
                        context=[("sys:frontier", "DOE/SC/Oak Ridge National Laboratory"),
                                 ("sys:kalos", "Shanghai AI Laboratory")])
    assert [(h.entity.iri, h.match) for h in index.search("frontier ornl")] == [("sys:frontier", "context")]
    assert [(h.entity.iri, h.match) for h in index.search("kalos shanghai")] == [("sys:kalos", "context")]
    # a context word alone does not list every machine of a site: a name word is needed
    assert index.search("shanghai") == []
    assert [(h.entity.iri, h.match) for h in index.search("frontiir")] == [("sys:frontier", "close")]
    assert index.suggest("frontiir oak") == "frontier oak"
    assert index.suggest("frontier") is None
    assert index.search("fro") and index.search("xyz") == []


def test_an_umlaut_finds_its_transliteration_and_the_other_way_round():
    # "Jülich" found "Julich Supercomputing Center" only, not TOP500's "Forschungszentrum Juelich (FZJ)" (its
    # site and organisation): German writes ü as ue where the letter is missing.
    fzj = Entity("orgn:fzj", "organisation", "Forschungszentrum Juelich (FZJ)")
    jsc = Entity("orgn:jsc", "organisation", "Julich Supercomputing Center")
    lrz = Entity("orgn:lrz", "organisation", "Leibniz-Rechenzentrum München")
    index = SearchIndex([(fzj, fzj.label), (jsc, jsc.label), (lrz, lrz.label)])
    assert {h.entity.iri for h in index.search("Jülich")} == {"orgn:fzj", "orgn:jsc"}
    assert {h.entity.iri for h in index.search("Forschungszentrum Jülich")} == {"orgn:fzj"}
    assert {h.entity.iri for h in index.search("Juelich")} == {"orgn:fzj", "orgn:jsc"}
    assert {h.entity.iri for h in index.search("Muenchen")} == {"orgn:lrz"}
    assert {h.entity.iri for h in index.search("Munchen")} == {"orgn:lrz"}
    assert index.suggest("Juelich") is None and index.search("Jul")
    # a machine named by its site in a qualifier comes after the organisation whose own name it is
    t3e = Entity("sys:t3e", "system", "T3E")
    index = SearchIndex([(fzj, fzj.label), (t3e, "T3E"), (t3e, "T3E (Forschungszentrum Juelich (FZJ))")])
    assert [(h.entity.iri, h.match) for h in index.search("Jülich")] == [("orgn:fzj", "word"), ("sys:t3e", "context")]
    assert [h.match for h in index.search("t3e juelich")] == ["word"]  # a word of the name itself


def test_hpckg_search_prints_the_name_a_contribution_refers_to_an_imported_record_by(tmp_path):
    # Issue 36: contributors had no way to find an imported record's name for Turtle.
    import stores

    from conftest import run_hpckg, text

    project = stores.website().project
    completed = run_hpckg("search", "frontir", cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert "showing results for 'frontier'" in out
    assert out.splitlines()[1].split()[:2] == ["sys:top500-180047", "system"]
    completed = run_hpckg("search", "el", "capitan", "--format", "json", cwd=project)
    document = json.loads(text(completed)[0])
    assert document["results"][0]["name"] == "sys:top500-180307"
    # the index is the website's, kept beside the store for the next search (and a server): through a link
    # to the store elsewhere, whose folder beside it holds nothing yet
    linked = tmp_path / "store"
    linked.symlink_to(stores.website().store.resolve(), target_is_directory=True)
    assert run_hpckg("search", "frontier", "--store", str(linked), cwd=project).returncode == 0
    assert len(list(tmp_path.glob("store.pages/*/search-index-*.json"))) == 1
    # systems come first among equal matches: a contributor looking for a part asks for parts
    parts = text(run_hpckg("search", "mi250x", "--type", "part", cwd=project))[0].splitlines()
    assert parts and all(line.split()[1] == "part" for line in parts), parts
    wrong = run_hpckg("search", "mi250x", "--type", "parts", cwd=project)
    assert wrong.returncode == 2 and "system, site, organisation, part, country" in text(wrong)[1]
    assert run_hpckg("search", "qqqzzz", cwd=project).returncode == 1
    assert run_hpckg("search", "x", "--limit", "0", cwd=project).returncode == 2


def test_hpckg_new_says_which_imported_records_have_the_name_already(tmp_path):
    # Issue 36: `hpckg new system "Frontier"` scaffolded a second Frontier without a word.
    import stores

    from conftest import run_hpckg, text

    project = stores.website().project
    completed = run_hpckg("new", "system", "FRONTIER", "--operator", "Oak Ridge National Laboratory", "--country",
                          "US", "--out-dir", str(tmp_path), cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert "already has a system named 'FRONTIER': " in err and "sys:top500-180047 (Frontier, top500)" in err
    completed = run_hpckg("new", "system", "Equinox 2031", "--operator", "Argonne National Laboratory",
                          "--country", "US", "--out-dir", str(tmp_path), cwd=project)
    assert completed.returncode == 0 and "already has" not in text(completed)[1]


def test_the_index_is_kept_on_disk_for_its_generation_and_answers_the_same_read_back(tmp_path):
    # The index took 13 s to build on the full graph at every server start: it is kept with the other figures.
    import stores
    from hpckg.namespaces import BASE
    from hpckg.serve.diskcache import GenerationCache
    from hpckg.serve.precompute import Prepared
    from hpckg.serve.views import Views
    from hpckg.store import Store

    from conftest import session_project

    store = Store(stores.website().store, read_only=True)
    try:
        cache = GenerationCache(tmp_path, store.generation_id())
        built = Prepared(Views(store, BASE), lambda: 0, session_project(), cache).search_index()
        assert cache.read("search-index")["named"]
        read_back = Prepared(Views(store, BASE), lambda: 0, session_project(),
                             GenerationCache(tmp_path, store.generation_id())).search_index()
        assert read_back is not built
        for typed in ("frontier", "frontir", "el capitan llnl", "germany", "jupiter"):
            assert read_back.search(typed) == built.search(typed), typed
    finally:
        store.close()
