"""`hpckg build` computes the website's figures of the new generation before it switches the store to it
(hpckg.serve.prepare), so a server that opens the build, or follows it there, serves its first visitors from disk
instead of computing while they wait. The canned queries' answers are computed behind a visitor's walls: one the
endpoint would refuse is not kept."""

from __future__ import annotations

import pytest

from hpckg.namespaces import BASE
from hpckg.project import discover
from hpckg.serve import urls
from hpckg.serve.diskcache import GenerationCache, for_generation, pages_folder
from hpckg.serve.precompute import AS_IS, Prepared, canned_answer_key, refusal_key
from hpckg.serve.views import Views
from hpckg.serve.workers import BackgroundWorker
from hpckg.store import Store, current_generation

from conftest import copy_project, run_hpckg, text


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A copy of the project built twice: first with --no-pages, then as `make run` builds."""
    project_root = copy_project(tmp_path_factory.mktemp("pages"))
    first = run_hpckg("build", "--no-pages", cwd=project_root)
    assert first.returncode == 0, text(first)
    project = discover(explicit=project_root)
    kept = pages_folder(project, project.graphs.parent / "store")
    without = list(kept.glob("*/*.json")) if kept.exists() else []
    second = run_hpckg("build", cwd=project_root)
    assert second.returncode == 0, text(second)
    return project, without, text(second)[1]


def never(what: str):
    def compute():
        pytest.fail(f"the {what} was computed, not read from what the build kept")
    return compute


def test_a_build_keeps_the_new_generations_figures_for_the_server(built):
    project, without_pages, progress = built
    assert without_pages == [], "--no-pages wrote figures"
    assert "preparing the website's figures" in progress and "website's figures prepared in" in progress
    generation = current_generation(project.graphs.parent / "store")
    disk = for_generation(pages_folder(project, project.graphs.parent / "store"), str(generation.resolve()), BASE,
                          writable=False, project=project)
    # Over an empty store a figure computed here would be empty: equal to the server's, it came from the build.
    from_build = Prepared(Views(Store(None), BASE), lambda: 0, project, disk)
    store = Store(generation, read_only=True)
    try:
        computed = Prepared(Views(store, BASE), lambda: 0, project, None)  # what a server computes itself
        assert from_build.front().to_json() == computed.front().to_json()
        assert from_build.system_index().to_json() == computed.system_index().to_json()
        assert from_build.search_index().to_json() == computed.search_index().to_json()
        assert from_build.charts("lead")[0][0].svg == computed.charts("lead")[0][0].svg
        assert from_build.home_documents() == []  # no publication given here: nothing to read
    finally:
        store.close()
    media_type, form, body = from_build.get(canned_answer_key("acme-total", "json"), never("acme-total answer"),
                                            disk=AS_IS)  # type: ignore[misc]
    assert (media_type, form) == ("application/sparql-results+json", "solutions")
    assert '"4704"' in body  # Seren + Kalos = 2,288 + 2,416 A100s


def test_a_canned_query_edited_after_the_build_is_answered_anew(built):
    """Seen on the full build: after components-by-parent.rq was corrected, its page kept showing the build's
    kept answer (129 rows, HP's enterprise business as a parent) until the next build. The kept figures are
    those of the canned queries they were computed with."""
    project, _, _ = built
    store_path = project.graphs.parent / "store"
    generation = str(current_generation(store_path).resolve())
    kept = for_generation(pages_folder(project, store_path), generation, BASE, writable=False, project=project)
    assert kept is not None and kept.has(canned_answer_key("acme-total", "json"))
    query = project.queries_dir / "acme-total.rq"
    original = query.read_text(encoding="utf-8")
    try:
        query.write_text(original.replace("SELECT", "SELECT DISTINCT", 1), encoding="utf-8")
        edited = for_generation(pages_folder(project, store_path), generation, BASE, writable=False, project=project)
        assert edited is not None and not edited.has(canned_answer_key("acme-total", "json"))
    finally:
        query.write_text(original, encoding="utf-8")
    again = for_generation(pages_folder(project, store_path), generation, BASE, writable=False, project=project)
    assert again is not None and again.folder == kept.folder and again.has(canned_answer_key("acme-total", "json"))


def test_a_servers_background_leaves_what_the_build_kept_on_disk(built):
    """The background of a server opening the build reads the kept figures into memory only where reading
    one back is slow (the indexes: a request reads the others when it needs them), and starts no query worker:
    every canned answer is on disk."""
    project, _, _ = built
    store = Store(current_generation(project.graphs.parent / "store"), read_only=True)
    try:
        disk = for_generation(pages_folder(project, project.graphs.parent / "store"), store.generation_id(), BASE,
                              writable=False, project=project)
        worker = BackgroundWorker(store.generation_path, timeout=30, max_results=10_000)  # type: ignore[arg-type]
        prepared = Prepared(Views(store, BASE), lambda: 0, project, disk, worker=worker)
        prepared.warm()
        assert worker._pool is None, "the background ran a canned query the build had answered"
        for what in ("top500-figures", "charts:lead", canned_answer_key("acme-total", "json")):
            assert prepared.ready(what) is None, f"the background read the kept {what} into memory"
        for what in ("front", "system-index", "search-index", "machines"):
            assert prepared.ready(what) is not None, f"the background left the kept {what} on disk"
        assert prepared.charts("lead")[0][0].svg == Prepared(Views(store, BASE), lambda: 0, project,
                                                             None).charts("lead")[0][0].svg
        assert prepared.ready("charts:lead") is not None  # read on demand, then kept in memory
    finally:
        store.close()


def test_an_answer_the_endpoint_refuses_is_not_kept_and_not_tried_again(built, tmp_path):
    """With a result cap of ten rows, a canned query of more rows is refused, as a visitor's would be; the
    refusal is kept, so the next server's background does not run it again."""
    project, _, _ = built
    store = Store(current_generation(project.graphs.parent / "store"), read_only=True)
    try:
        disk = GenerationCache(tmp_path, store.generation_id())
        worker = BackgroundWorker(store.generation_path, timeout=30, max_results=10)  # type: ignore[arg-type]
        prepared = Prepared(Views(store, BASE), lambda: 0, project, disk, worker=worker)
        prepared.canned_answers()
        assert prepared.ready(canned_answer_key("acme-total", "json")) is not None  # two rows: kept
        assert prepared.ready(canned_answer_key("claims-below-tier", "json")) is None  # the leads: refused
        refusal = prepared.refusal("claims-below-tier")
        assert refusal is not None and (refusal.status, refusal.code) == (400, "result-limit")
        assert "more than 10 rows" in refusal.message and prepared.refusal("acme-total") is None
        again = BackgroundWorker(store.generation_path, timeout=30, max_results=10)  # type: ignore[arg-type]
        restarted = Prepared(Views(store, BASE), lambda: 0, project, disk, worker=again)
        restarted.warm()
        assert again._pool is None, "a refused or kept canned answer was run again"
        # a server that allows more rows does not take the refusal as its own
        wider = BackgroundWorker(store.generation_path, timeout=30, max_results=10_000)  # type: ignore[arg-type]
        assert Prepared(Views(store, BASE), lambda: 0, project, disk, worker=wider).refusal("claims-below-tier") is None
    finally:
        store.close()


def test_a_visitor_is_told_a_kept_refusal_at_once(built):
    """A canned query's page at its defaults, refused when the background answered it, says the refusal it
    kept instead of running the query again into the same wall."""
    from serve_live import in_process

    project, _, _ = built
    base = "https://example.org/refusals/"  # its own page cache: the build's answers were kept under 10,000 rows
    with in_process(project.graphs.parent / "store", project=project, workers=1, rate_limit=0, max_results=10,
                    base_iri=base) as web:
        prepared = web.app.state.service.prepared
        assert prepared.wait(300)
        refusal = prepared.refusal("claims-below-tier")
        assert refusal is not None and refusal.code == "result-limit"
        marker = refusal_key("claims-below-tier")
        kept = prepared.disk.read(marker)
        prepared.disk.write(marker, {**kept, "message": "kept when the server opened this build"})
        page = web.get(urls.canned("claims-below-tier"))
        assert page.status_code == 200 and "kept when the server opened this build" in page.text
        assert web.get(urls.canned("acme-total")).status_code == 200


def test_a_server_that_follows_a_build_serves_the_figures_the_build_kept(built):
    """After a build switches the store, the server's new generation reads back what that build kept (its
    figures were keyed by the pool's generation, which counts followed builds: a followed build's were ignored)."""
    from serve_live import in_process

    project, _, _ = built
    with in_process(project.graphs.parent / "store", project=project, workers=1, rate_limit=0) as web:
        service = web.app.state.service
        assert service.prepared.ready("front") is not None  # read back before the first request
        rebuilt = run_hpckg("build", "--quiet", cwd=project.root)
        assert rebuilt.returncode == 0, text(rebuilt)
        assert web.get(urls.HOME).status_code == 200  # a request finds the new build and switches to it
        following = service.prepared
        assert following.generation == current_generation(project.graphs.parent / "store")
        assert following.revision() == 0
        for what in ("front", "system-index", "search-index", "machines"):
            assert following.ready(what) is not None, f"the {what} the build kept was not read back"


def test_a_server_keeps_its_figures_beside_the_store_it_serves_not_in_its_own_project(built):
    """A server over another project's store (a copy, a test's) read and pruned the figures of the project it
    was started in: its working directory's .hpckg/cache/pages, where that project's own build had kept them,
    so a test run made the next server over the real build compute its charts again (10 s). The figures of a
    store sit beside it, as its generations and dumps do."""
    from serve_live import in_process

    from conftest import session_project

    project, _, _ = built
    store = project.graphs.parent / "store"
    elsewhere = session_project().graphs.parent / "cache" / "pages"
    before = sorted(elsewhere.glob("*")) if elsewhere.exists() else []
    with in_process(store, project=session_project(), workers=1, rate_limit=0) as web:
        prepared = web.app.state.service.prepared
        # what would hold the interpreter while the first visitors wait is done before the server answers
        assert next(iter(prepared.timings)) == "page templates"
        assert web.get(urls.HOME).status_code == 200
        assert prepared.disk is not None and prepared.disk.folder.parent == store.with_name("store.pages")
    assert (sorted(elsewhere.glob("*")) if elsewhere.exists() else []) == before
