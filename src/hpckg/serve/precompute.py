"""What the website computes once per store generation (Prepared.steps): the home page's figures
(hpckg.serve.front) and structured data, the system index of the entity pages' tables (hpckg.page.systemindex),
the search index, the system pages' preamble, the whole-list TOP500 figures of the charts (hpckg.serve.analytics),
the newest TOP500 edition's list (hpckg.serve.editions) and statistics (hpckg.serve.statistics), Epoch AI's
clusters, the sites, organisations and parts lists, the charts page drawn (with and without leads), the canned
queries' answers at their defaults, every older edition's list, and last each older edition's statistics.

`hpckg build` computes all but the last before it switches the store to a new generation (hpckg.serve.prepare)
and keeps them on disk (hpckg.serve.diskcache); a server opening a generation starts the same steps in the
background, which read what the build kept and compute the rest, answering visitors meanwhile.

A request that needs a figure before the background has made it computes it itself (once: the others
wait for it); nothing is computed twice for one generation. On a writable store (SPARQL Update enabled) the
data changes between builds, so every figure is kept with the update revision it was computed at and
computed again after an update.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from markupsafe import Markup

from hpckg.errors import InputError
from hpckg.page.machine import OneMachine, machine_pages
from hpckg.page.render import compile_templates
from hpckg.page.systemindex import SystemIndex
from hpckg.project import Project
from hpckg.query import CannedQuery, canned_queries, canned_query, format_result
from hpckg.serve import analytics, charts, editions, front, lists, statistics, urls
from hpckg.serve.analytics import BY_COUNTRY, BY_VENDOR, DEVELOPMENT
from hpckg.serve.diskcache import GenerationCache
from hpckg.serve.publication import Publication
from hpckg.serve.search import SearchIndex
from hpckg.serve.workers import BackgroundWorker, Job, MemoryLimit, QueryTimeout

if TYPE_CHECKING:
    from hpckg.store import GraphStore

EPOCH_CLUSTERS = "epoch-clusters-list"

logger = logging.getLogger("hpckg.serve")
AS_IS = (lambda value: value, lambda value: value)  # figures that are JSON already (rows of str, int, float)
# Where the server's URL goes in the home page's JSON-LD, kept per generation for every host.
HOST_MARK = "http://hpckg-server.invalid"
# The home page's JSON-LD documents (dicts, or serialized JSON-LD bytes) as JSON and back (Prepared.get).
DOCUMENTS_JSON = (lambda docs: [d.decode("utf-8") if isinstance(d, bytes) else d for d in docs],  # type: ignore[union-attr]
                  lambda data: [d.encode("utf-8") if isinstance(d, str) else d for d in data])  # type: ignore[union-attr]
EDITIONS_KEPT = 120  # edition lists kept per generation (one is ~500 rows, ~1 MB); the TOP500 has 63


@dataclasses.dataclass(frozen=True)
class Step:
    """One figure (or group) the background computes; `at_build`: a build computes it too (False for what
    only warms a process: the chart renderer's runtime, the compiled templates); `figure`: see below."""

    name: str
    run: Callable[[], object]
    at_build: bool = True
    # `figure` is read back into memory when the server opens the generation, before it answers, when it is
    # kept on disk: an index whose JSON takes a second to read (the search index on the full graph) would
    # otherwise be read by a visitor's request, or by the background while the first visitors wait for the
    # interpreter (the newest list's first visit 0.4-0.7 s, 50 ms alone).
    figure: str | None = None
    # Done before the server answers (load_kept), not in the background: pure Python that would hold the
    # interpreter while the first visitors' requests wait for it (the templates: 0.2 s).
    before_serving: bool = False


class Refused(Exception):
    """A canned query's answer the endpoint refuses at its defaults (over the result cap, past the time limit,
    over the memory bound): not kept; the refusal is (hpckg.serve.service answers a visitor with it at once)."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.status, self.code, self.message = status, code, message

    def to_json(self) -> dict[str, object]:
        return {"status": self.status, "code": self.code, "message": self.message}


def walls(worker: BackgroundWorker) -> dict[str, object]:
    """The limits a refusal was met behind (kept with it)."""
    return {"max_results": worker.max_results, "timeout": worker.timeout}


def refusal_key(name: str) -> str:
    """Where a canned query's refusal at its defaults is kept (the same rows in every format)."""
    return f"refused:{canned_answer_key(name, 'json')}"


def canned_answer_key(name: str, fmt: str) -> str:
    """The figure a canned query's answer at its defaults is kept as (a server's own runs use it too)."""
    return f"canned-answer:{name}.{fmt}"


class Prepared:
    """One generation's precomputed figures, keyed by (what, update revision)."""

    def __init__(self, views, revision: Callable[[], int], project: Project,
                 disk: GenerationCache | None = None, publication: Publication | None = None,
                 generation: Path | str | None = None, worker: BackgroundWorker | None = None):
        self.views = views
        self.publication = publication  # the dumps and descriptions the home page's structured data names
        self.generation = generation  # the generation's folder (a server's URL for a SPARQL server)
        self.worker = worker  # where the canned queries' answers are computed (None: they are not)
        self.disk = disk  # where figures are kept across restarts (hpckg.serve.diskcache), None: memory only
        self.project = project  # whose canned queries the charts and lists run
        self.store = views.store
        self.revision = revision
        self._values: OrderedDict[tuple, object] = OrderedDict()
        self._locks: dict[tuple, threading.Lock] = {}
        self._lock = threading.Lock()
        self.timings: dict[str, float] = {}  # what -> seconds the background took (logged)
        # In the server's background (warm, lazy): a figure kept on disk is not read into memory there, only
        # when a request needs it. Reading back every figure a build kept (58 MB of JSON on the full graph) held
        # the page process while the first visitors came (the newest list's first visit 0.5 s, 50 ms idle).
        self._warming = threading.local()
        self._thread: threading.Thread | None = None
        self.closed = False
        # the entity pages' tables of systems read this generation's system index, kept on disk
        views.system_index = self.system_index

    def get(self, what: str, compute: Callable[[], object], *, kept: int | None = None,
            disk: tuple[Callable[[object], object], Callable[[object], object]] | None = None) -> object:
        """The figure `what`, computed once; `disk`: (to JSON, from JSON) to keep it on disk for this
        generation (only before any update: a revision of an updated store has no folder of its own)."""
        key = (what, self.revision())
        with self._lock:
            if key in self._values:
                return self._values[key]
        lazy = getattr(self._warming, "lazy", False)
        if lazy and disk and key[1] == 0 and self.disk is not None and self.disk.has(what):
            return None  # the background leaves a kept figure on disk: a request reads it in milliseconds
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._lock:
                if key in self._values:
                    return self._values[key]
            value = self._from_disk(what, disk) if disk and key[1] == 0 else None
            if value is None:
                self._warming.lazy = False  # a figure's inputs are read, wherever they are
                try:
                    value = compute()
                finally:
                    self._warming.lazy = lazy
                if disk and key[1] == 0 and self.disk is not None:
                    self.disk.write(what, disk[0](value))
            with self._lock:
                self._values[key] = value
                self._locks.pop(key, None)
                if kept is not None:
                    same = [k for k in self._values if k[0].startswith(what.split(":", 1)[0] + ":")]
                    for old in same[:-kept]:
                        del self._values[old]
            return value

    def _from_disk(self, what: str, disk: tuple[Callable[[object], object], Callable[[object], object]]):
        found = self.disk.read(what) if self.disk is not None else None
        if found is None:
            return None
        try:
            return disk[1](found)
        except (KeyError, TypeError, ValueError) as error:  # written by another version of this module
            logger.info("the cached %s does not read back (%s); computing it again", what, error)
            return None

    def ready(self, what: str) -> object | None:
        """A figure if it has been computed for this revision, else None (without computing it)."""
        with self._lock:
            return self._values.get((what, self.revision()))

    def machines(self) -> dict[str, OneMachine]:
        """The records that are one machine with another's (hpckg.page.machine), for the lists' "also in"."""
        return self.get("machines", lambda: machine_pages(self.store), disk=(  # type: ignore[return-value]
            lambda found: {iri: [one.page, one.records] for iri, one in found.items()},  # type: ignore[attr-defined]
            lambda data: {iri: OneMachine(page, records) for iri, (page, records) in data.items()}))  # type: ignore[attr-defined]

    def top500_figures(self) -> dict[str, analytics.Rows]:
        return self.get("top500-figures", lambda: analytics.top500_figures(self.store), disk=AS_IS)  # type: ignore[return-value]

    def edition(self, edition: str) -> list[dict[str, object]]:
        return self.get(f"edition:{edition}", lambda: editions.edition_rows(self.store, edition),
                        kept=EDITIONS_KEPT, disk=AS_IS)  # type: ignore[return-value]

    def charts(self, min_tier: str) -> tuple[list[charts.Chart], list[charts.Chart]]:
        """The charts page's charts drawn (SVG), with the tier switch's choice: the TOP500's over its editions
        and Epoch AI's accelerators over time. Each links to the canned query whose answer it draws."""
        def editor(name: str) -> str:
            return urls.query_editor(canned_query(self.project, name).bind())

        def draw() -> tuple[list[charts.Chart], list[charts.Chart]]:
            figures = self.top500_figures()
            top500 = [
                charts.performance_development(figures[DEVELOPMENT], editor(DEVELOPMENT)),
                charts.performance_share(figures[BY_COUNTRY], "countryLabel", "country", "share-by-country",
                                         "Performance share by country", editor(BY_COUNTRY)),
                charts.performance_share(figures[BY_VENDOR], "parentLabel", "parent", "share-by-vendor",
                                         "Performance share by today's vendor parent", editor(BY_VENDOR))]
            clusters = self.canned_rows(EPOCH_CLUSTERS)
            epoch = [charts.accelerators_over_time(clusters, key, f"accelerators-by-{name}",
                                                   f"AI accelerators by {name} over time (Epoch AI)", heading,
                                                   editor(EPOCH_CLUSTERS), min_tier)
                     for key, name, heading in (("country", "country", "Country"), ("owners", "owner", "Owner"))]
            return top500, epoch
        return self.get(f"charts:{min_tier}", draw, disk=(charts_to_json, charts_from_json))  # type: ignore[return-value]

    def edition_statistics(self, edition: str) -> dict[str, list[dict[str, object]]]:
        """An edition's statistics (hpckg.serve.statistics): table name -> the rows its canned query answers with
        the edition bound, one query per table (a second or less each on the full graph)."""
        def run() -> dict[str, list[dict[str, object]]]:
            found = {}
            for table in statistics.TABLES.values():
                text = canned_query(self.project, table.query).bind({"edition": edition})
                rows = lists.rows_from_results(json.loads(format_result(self.store.query(text, prefixes=False),
                                                                        "json")))
                found[table.name] = statistics.ranked(rows) if table.ranking else rows
            return found
        return self.get(f"statistics:{edition}", run, kept=EDITIONS_KEPT, disk=AS_IS)  # type: ignore[return-value]

    def canned_rows(self, name: str) -> list[dict[str, object]]:
        """A canned query's rows (its defaults bound), run here on the page store: for a list whose query is
        too slow to run on a visitor's request (epoch-clusters-list, 18 s on the full graph)."""
        def run() -> list[dict[str, object]]:
            text = canned_query(self.project, name).bind()
            return lists.rows_from_results(json.loads(format_result(self.store.query(text, prefixes=False), "json")))
        return self.get(f"canned:{name}", run, disk=AS_IS)  # type: ignore[return-value]

    def front(self) -> front.Front:
        """The home page's figures (hpckg.serve.front)."""
        def read() -> front.Front:
            newest = self.edition_names()[:1]
            return front.read(self.store, self.edition(newest[0]) if newest else [], newest[0] if newest else None,
                              self.views.base_iri)
        return self.get("front", read, disk=(lambda f: f.to_json(), front.Front.from_json))  # type: ignore[return-value, arg-type]

    def edition_names(self) -> list[str]:
        """The TOP500 editions in the store, newest first (read even by a lazy background: its steps use them)."""
        lazy = getattr(self._warming, "lazy", False)
        self._warming.lazy = False
        try:
            return self.get("edition-names", self._edition_names, disk=AS_IS)  # type: ignore[return-value]
        finally:
            self._warming.lazy = lazy

    def _edition_names(self) -> list[str]:
        return [row["edition"].value for row in editions.select(self.store, """SELECT ?edition WHERE {
            ?e hpc:editionOf ds:top500 ; dcterms:issued ?issued . BIND (STR(?issued) AS ?edition) }
            ORDER BY DESC(?edition)""")]

    def system_index(self) -> SystemIndex:
        """Every system's facts the entity pages' tables show (hpckg.page.systemindex; 3 s on the full graph)."""
        return self.get("system-index", lambda: SystemIndex.read(self.store), disk=(  # type: ignore[return-value]
            lambda index: index.to_json(), SystemIndex.from_json))  # type: ignore[attr-defined]

    def search_index(self) -> SearchIndex:
        """The search's index of this generation's names (13 s on the full graph: kept on disk)."""
        return self.get("search-index", lambda: SearchIndex.from_store(self.store, self.machines()), disk=(  # type: ignore[return-value]
            lambda index: index.to_json(),  # type: ignore[attr-defined]
            lambda data: SearchIndex.from_json(data, self.machines())))  # type: ignore[arg-type]

    def home_documents(self) -> list[dict | bytes]:
        """The home page's JSON-LD with HOST_MARK where the server's URL goes (a request puts in its own),
        kept per generation and set of releases: it reads the whole store (its time coverage)."""
        if self.publication is None:
            return []
        releases = self.publication.release_names()
        return self.get(f"home-documents:{','.join(releases)}", lambda: self.publication.home_documents(  # type: ignore[union-attr]
            self.store, Path(str(self.generation)), lambda path: HOST_MARK + path), kept=4, disk=DOCUMENTS_JSON)  # type: ignore[return-value]

    def canned_answers(self) -> None:
        """Answer every canned query that runs without arguments, at its defaults, ahead of visitors, on the
        background worker (hpckg.serve.workers.BackgroundWorker: a visitor's walls, not the visitors' pool,
        whose slow lane it held for minutes after a build opened). An answer the endpoint refuses (over the
        result cap, past the time limit) is not kept: a visitor is told why, as for any query."""
        worker = self.worker
        if worker is None:
            return

        lazy = getattr(self._warming, "lazy", False)

        def answer(query: CannedQuery) -> None:
            if self.closed:
                return
            try:
                text = query.bind({})
            except InputError:
                return  # it needs an argument (a system, an edition): no default page to prepare
            if self.refusal(query.name) is not None:
                return  # refused before: a later server's background does not run it again

            def run() -> list[str]:
                try:
                    found = worker.run(Job(text, "json", "ttl"))
                except QueryTimeout as error:  # as hpckg.serve.service tells a visitor
                    raise Refused(503, "timeout", str(error)) from None
                except MemoryLimit as error:
                    raise Refused(503, "memory-limit", str(error)) from None
                if found.status != 200:
                    if found.code in ("result-limit", "memory-limit"):
                        raise Refused(found.status, found.code, found.message)
                    raise RuntimeError(f"{found.code}: {found.message}")
                return [found.media_type, found.form, found.body.decode("utf-8")]
            self._warming.lazy = lazy
            try:
                self.get(canned_answer_key(query.name, "json"), run, disk=AS_IS)
            except Refused as error:
                logger.info("the canned query %s is refused at its defaults: %s", query.name, error)
                if self.revision() == 0 and self.disk is not None:
                    self.disk.write(refusal_key(query.name), {**error.to_json(), **walls(worker)})
            except Exception as error:  # noqa: BLE001 - a query that fails stays a visitor's to run
                logger.info("precomputing the canned query %s failed: %s", query.name, error)
        try:
            with ThreadPoolExecutor(worker.size, thread_name_prefix="hpckg-canned") as running:
                list(running.map(answer, canned_queries(self.project)))
        finally:
            worker.close()

    def refusal(self, name: str) -> Refused | None:
        """How the endpoint refused canned query `name` at its defaults on this generation, if it did behind
        the walls this server's queries have (a server with a higher --max-results or --timeout runs it)."""
        if self.revision() != 0 or self.disk is None or self.worker is None:
            return None
        found = self.disk.read(refusal_key(name))
        if not isinstance(found, dict) or any(found.get(k) != v for k, v in walls(self.worker).items()):
            return None
        try:
            return Refused(int(found["status"]), str(found["code"]), str(found["message"]))
        except (KeyError, TypeError, ValueError):  # written by another version of this module
            return None

    def steps(self) -> list[Step]:
        """What warm() computes, in order. A build computes those with `at_build` before it switches the store
        to the new generation (hpckg.serve.prepare), so a server's first visitors find them on disk."""
        return [
            # The chart renderer's runtime and its first drawings, a second or two once per process (vl-convert
            # draws with the interpreter released: the first visitors' requests go on meanwhile).
            Step("chart renderer", charts.warm_up, at_build=False),
            Step("page templates", compile_templates, at_build=False, before_serving=True),  # once per process
            # first: the front door, a few seconds on the full graph
            Step("home page", self.front, figure="front"),
            # the site, organisation, part and country pages; 0.1 s to read back
            Step("system index", self.system_index, figure="system-index"),
            Step("home page's structured data", self.home_documents),
            Step("records of one machine", self.machines, figure="machines"),
            Step("search index", self.search_index, figure="search-index"),
            Step("preamble", self.views.preamble),
            Step("TOP500 figures", self.top500_figures),
            Step("newest TOP500 edition", lambda: [self.edition(e) for e in self.edition_names()[:1]]),
            Step("newest TOP500 edition's statistics",
                 lambda: [self.edition_statistics(e) for e in self.edition_names()[:1]]),
            Step("Epoch AI clusters", lambda: self.canned_rows(EPOCH_CLUSTERS)),
            Step("sites, organisations and parts lists",
                 lambda: [self.canned_rows(spec.query) for spec in lists.ENTITY_LISTS.values()]),
            Step("charts", lambda: [self.charts(tier) for tier in ("lead", "reported")]),
            Step("ready-made queries' answers", self.canned_answers),
            # A second or two each on the full graph (too slow for a visitor), about 1 MB each in memory.
            Step("older TOP500 editions", lambda: [self.edition(e) for e in self.edition_names()[1:]]),
            # Nine queries of a second or less per edition on the full graph (about seven minutes for all 63,
            # where one query over every edition took over three): last, as only the over-time tables need them.
            Step("older TOP500 editions' statistics",
                 lambda: [self.edition_statistics(e) for e in self.edition_names()[1:]], at_build=False),
        ]

    def load_kept(self) -> None:
        """Before the server answers from this generation: the steps done before serving (Step.before_serving,
        once per process), then the kept figures of the steps that name one (Step.figure; 1.3 s on the full
        graph); a figure not kept is left to the background to compute."""
        for step in self.steps():
            if step.before_serving and step.name not in self.timings:
                started = time.perf_counter()
                step.run()
                self.timings[step.name] = time.perf_counter() - started
        if self.disk is None or self.revision() != 0:
            return
        for step in self.steps():
            if step.figure is not None and self.disk.has(step.figure):
                started = time.perf_counter()
                step.run()
                logger.info("read back the %s in %.1f s", step.name, time.perf_counter() - started)

    def start(self) -> None:
        """Compute everything in a background thread (daemon: a closing server does not wait for it)."""
        self._thread = threading.Thread(target=self.warm, name="hpckg-precompute", daemon=True)
        self._thread.start()

    def warm(self, *, at_build: bool = False, progress: Callable[[str], None] | None = None) -> None:
        """Compute the steps in order (only those a build makes, with `at_build`); a step that fails is left
        to the request that needs it, which says why. A server's background leaves what is kept on disk there."""
        self._warming.lazy = not at_build
        try:
            self._run_steps(at_build, progress)
        finally:
            self._warming.lazy = False  # a caller's own requests in this thread read what they ask for

    def _run_steps(self, at_build: bool, progress: Callable[[str], None] | None) -> None:
        began = time.perf_counter()
        for step in self.steps():
            if self.closed:
                return
            if (at_build and not step.at_build) or (step.before_serving and step.name in self.timings):
                continue
            started = time.perf_counter()
            self._warming.lazy = not at_build and step.figure is None
            try:
                step.run()
            except Exception as error:  # a closed or damaged store: the request that needs it will say so
                logger.info("precomputing the %s failed: %s", step.name, error)
                continue
            self.timings[step.name] = time.perf_counter() - started
            logger.info("precomputed the %s in %.1f s", step.name, self.timings[step.name])
            if progress:
                progress(f"{step.name}: {self.timings[step.name]:.1f} s")
        logger.info("precomputed the website's figures of this store generation in %.1f s",
                    time.perf_counter() - began)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the background to finish (for tests and benchmarks); True when it has."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True


def kept_search_index(store: GraphStore, project: Project, location: str | Path | None) -> SearchIndex:
    """The website's search index of the store's generation, for a command (`hpckg search`, a scaffold's "did
    you mean"): read from what `hpckg build` or a server kept beside the store (hpckg.serve.diskcache; 1-2 s
    on the full graph), else made from the store (4-7 s there) and kept for the next one and the server."""
    from hpckg.namespaces import BASE
    from hpckg.serve.diskcache import for_generation, pages_folder
    from hpckg.serve.views import Views

    folder = None if location is None else pages_folder(project, location)
    disk = for_generation(folder, store.generation_id(), BASE, writable=False, project=project)
    return Prepared(Views(store, BASE), lambda: 0, project, disk).search_index()


def close_names(project: Project, text: str, classes: set[str]) -> str:
    """The records of `classes` (ontology class IRIs) the website's search finds in the project's built store
    for a name no record has (other spellings, typos, words), as "orgn:top500-operator-forschungszentrum-
    juelich (Forschungszentrum Juelich (FZJ)) or ..."; '' without a built store or a hit (a scaffold's
    "did you mean")."""
    from hpckg.store import Store

    if not isinstance(project.store, Path) or not project.store.exists():
        return ""
    try:
        store = Store(project.store, read_only=True)
    except Exception:  # noqa: BLE001 - no usable store: nothing to suggest from
        return ""
    try:
        return kept_search_index(store, project, project.store).close_names(text, classes)
    finally:
        store.close()


def charts_to_json(drawn: tuple[list[charts.Chart], list[charts.Chart]]) -> list[list[dict]]:
    return [[dataclasses.asdict(chart) for chart in group] for group in drawn]


def charts_from_json(data: list[list[dict]]) -> tuple[list[charts.Chart], list[charts.Chart]]:
    top500, epoch = ([charts.Chart(**{**chart, "svg": Markup(chart["svg"])}) for chart in group] for group in data)
    return top500, epoch
