"""The HTTP layer: Starlette routes (run by uvicorn) for the SPARQL 1.1 Protocol, linked data, pages, CORS,
rate limits and errors.

create_app(settings) opens the store, starts the query workers and returns the Starlette application; tests
drive it in-process with Starlette's TestClient, `hpckg serve` runs it under uvicorn. Queries from clients
run in a WorkerPool of processes under a time limit and a result cap; the fixed lookups behind HTML pages
run on the server's own read-only store handle. Both block, so they never run on the event loop: page routes
are sync endpoints (Starlette runs them in its thread pool) and the SPARQL endpoint, which reads request
bodies asynchronously, hands its blocking calls to run_in_threadpool.

Every error is answered in one JSON shape,
{"error": {"status": 400, "code": "query-syntax", "message": "...", "line": 1, "column": 25}},
or as an HTML page when the client is a browser.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import functools
import hashlib
import hmac
import html
import ipaddress
import json
import logging
import math
import re
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio.to_thread
import pyoxigraph as ox
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, QueryParams
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from hpckg.errors import HpckgError, InputError, StoreError, UnknownNameError
from hpckg.formats import RDF_FORMATS, rdf_format_for_media_type
from hpckg.namespaces import BASE, ENTITY_KINDS
from hpckg.project import Project
from hpckg.publish.settings import publisher_settings
from hpckg.query import CannedQuery, canned_queries, format_result
from hpckg.querytext import undefined_terms
from hpckg.serve import analytics, charts, compare, diskcache, lists, statistics, urls
from hpckg.serve.cache import AnswerCache, ResponseCache
from hpckg.serve.caching import PageCaching
from hpckg.serve.contribute import ContributePage
from hpckg.serve.entities import describe, summary
from hpckg.serve.precompute import AS_IS, Prepared
from hpckg.serve.publication import EXTENSIONS, Publication, accepts_gzip, file_response, release_media_type
from hpckg.serve.remote import FOLLOW_SECONDS, is_url
from hpckg.serve.responses import (
    EXPOSED,
    INTERNAL,
    HttpError,
    html_response,
    redirect,
    respond,
)
from hpckg.serve.sparql import (
    MAX_NESTING,
    QueryRequest,
    accepted,
    analyse,
    deterministic,
    escape_problem,
    is_lookup,
    needs_parse,
    negotiate,
    nesting,
    serialize_triples,
    wants_html,
)
from hpckg.serve.updates import UpdateFailed, UpdateRunner, apply, with_using
from hpckg.serve.views import Views, json_dumps
from hpckg.serve.void import service_description
from hpckg.serve.workers import (
    Answer,
    Job,
    MemoryLimit,
    PoolBusy,
    QueryTimeout,
    SlowLaneFull,
    WorkerFailed,
    WorkerPool,
    reopen,
    run_job,
)
from hpckg.store import RemoteStore, Store, current_generation

logger = logging.getLogger(__name__)

# Slugs are ASCII (hpckg.names): a path segment with anything else (NUL, undecodable bytes, IRI-illegal
# characters) names nothing here, and must not reach a query.
SLUG = re.compile(r"[A-Za-z0-9_~-]+")
# Charts drawn while a page reads the rest (vl-convert serialises its drawings in one runtime anyway).
DRAWING = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="hpckg-draw")
COMPARISONS_KEPT = 64  # compare pages (their charts drawn) kept per server
LIST_ROWS_KEPT = 32  # query answers behind lists kept per server (an edition is ~500 rows)
EDITION = re.compile(r"\d{4}-\d{2}")
STRIKES = 2  # workers a client may lose (crash, memory) within STRIKE_SECONDS before it is refused
STRIKE_SECONDS = 60.0  # short: behind a proxy without --trusted-proxy one address is every client
SLOW_TEXTS = 4096  # query texts (and clients) remembered as slow
SLOW_CLIENT_SECONDS = 60.0  # a client whose query ran slowly sends its queries to the slow lane this long
BODY_TIMEOUT = 10.0  # seconds a request body may take to arrive
MAX_BODY = 1 << 20  # 1 MiB of query text is plenty
# Threads for blocking work. A request waiting for a free query worker holds one for up to --timeout
# seconds, so there must be more threads than clients that can wait at once, or page requests queue
# behind them; anyio's default is 40.
THREADS = 64
READ_METHODS = ("GET", "HEAD")
SPARQL_METHODS = ("GET", "HEAD", "POST")


@dataclass
class Settings:
    project: Project  # the project served: its canned queries, ontology, shapes and publisher settings
    store_path: Path | str  # the embedded store's path, or a SPARQL server's query URL
    timeout: float = 30.0
    max_results: int = 10_000
    update_token: str | None = None
    allow_service: bool = False
    workers: int = 2
    rate_limit: float = 60.0  # seconds of query time per client per minute; 0 turns the limit off
    base_iri: str = BASE
    cache_bytes: int = 64 << 20  # answers kept for repeated queries (see cache.py); 0 turns the cache off
    query_memory_mb: int = 2048  # address space of one query worker (RLIMIT_AS); 0 turns the bound off
    trusted_proxies: tuple[str, ...] = ()  # addresses/networks whose X-Forwarded-For names the client
    slow_slots: int | None = None  # queries that may run past the quick budget at once (default workers // 2)
    releases_dir: Path | None = None  # the folder `hpckg release` writes, served at /releases/
    dumps_dir: Path | None = None  # where the current export's dump files go (default <store>.dumps beside it)


class RateLimiter:
    """Per-client budget of query seconds, refilled continuously at rate_limit seconds per minute."""

    def __init__(self, seconds_per_minute: float):
        self.capacity = seconds_per_minute
        self._buckets: dict[str, tuple[float, float]] = {}
        self._running: dict[str, list[float]] = {}  # start times of each client's queries still running
        self._lock = threading.Lock()

    def _level(self, client: str, now: float) -> float:
        level, then = self._buckets.get(client, (self.capacity, now))
        level = min(self.capacity, level + (now - then) * self.capacity / 60)
        # Queries still running are charged as they run: a burst of slow queries is stopped early.
        return level - sum(now - started for started in self._running.get(client, ()))

    def start(self, client: str) -> float:
        now = time.monotonic()
        if self.capacity > 0:
            with self._lock:
                self._running.setdefault(client, []).append(now)
        return now

    def finish(self, client: str, started: float, seconds: float | None = None, waited: float = 0.0) -> None:
        """A query that started at `started` ended: charge its time (or `seconds`, when more), less the
        `waited` seconds it spent waiting for a worker (other clients' queries held them)."""
        if self.capacity <= 0:
            return
        now = time.monotonic()
        with self._lock:
            running = self._running.get(client, [])
            if started in running:
                running.remove(started)
            if not running:
                self._running.pop(client, None)
            spent = max(now - started - waited, seconds or 0.0, 0.0)
            self._buckets[client] = (self._level(client, now) - spent, now)
            if len(self._buckets) > 10_000:  # forget clients whose budget has refilled: a full bucket
                self._buckets = {c: (level, then) for c, (level, then) in self._buckets.items()
                                 if level + (now - then) * self.capacity / 60 < self.capacity or c in self._running}

    def remaining(self, client: str) -> float:
        """Seconds of query time the client has left now."""
        with self._lock:
            return self._level(client, time.monotonic())

    def retry_after(self, client: str) -> int | None:
        """Seconds until the client may query again, or None when it may query now."""
        if self.capacity <= 0:
            return None
        now = time.monotonic()
        with self._lock:
            level = self._level(client, now)
        return None if level > 0 else max(1, math.ceil(-level * 60 / self.capacity))


class Service:
    """What the routes work with: settings, the worker pool, the page store and views. Blocking."""

    def __init__(self, settings: Settings):
        self.settings = settings
        # The store path names one generation of the store at a time (hpckg build switches it atomically);
        # everything here reads the generation it resolved, and refresh() moves to a newer one as a whole.
        self.remote = is_url(settings.store_path)  # a SPARQL server's query URL (hpckg.serve.remote)
        self.generation_path = settings.store_path if self.remote else current_generation(settings.store_path)
        self.store = self._open(self.generation_path)
        # A RemoteStore reads the server's generation live on every call: the one being served is kept here.
        self.served_generation = self.store.generation() if self.remote else 0
        self._followed_at = time.monotonic()
        self._switch_lock = threading.Lock()
        try:
            self.views = Views(self.store, settings.base_iri)
            self.pool = WorkerPool(self.generation_path, size=settings.workers, slow_slots=settings.slow_slots,
                                   allow_network=settings.allow_service or self.remote,
                                   memory_mb=settings.query_memory_mb)
            self.prepared = self._prepare(self.views)
        except BaseException:
            if hasattr(self, "pool"):
                self.pool.close()
            self._close_store()
            raise
        store_path = Path(settings.store_path)
        self.publication = Publication(publisher_settings(settings.project.publisher),
                                       settings.dumps_dir or store_path.with_name(store_path.name + ".dumps"),
                                       settings.releases_dir)
        self.limiter = RateLimiter(settings.rate_limit)
        self.trusted = tuple(ipaddress.ip_network(proxy, strict=False) for proxy in settings.trusted_proxies)
        self.cache = AnswerCache(settings.cache_bytes)
        self.responses = ResponseCache(min(settings.cache_bytes, 16 << 20))
        self.update_lock = threading.Lock()
        # Updates run on a thread of their own without network (hpckg.serve.updates); a store that is a
        # SPARQL server is reached over the network, so its updates cannot be walled that way.
        self.updates = UpdateRunner(allow_network=settings.allow_service or self.remote)
        self._closed = False
        # Queries that ran slowly, and clients whose queries did lately: theirs go to the slow lane at once.
        self._slow_texts: OrderedDict[bytes, None] = OrderedDict()  # SHA-256 of the texts
        self._slow_clients: dict[str, float] = {}
        self._slow_lock = threading.Lock()
        self._strikes: dict[str, list[float]] = {}  # when each client's queries lost a worker
        self._lookup_store: tuple[int, ox.Store] | None = None  # (generation, read-only handle) for lookups
        self._lookup_lock = threading.Lock()

    def lookup(self, client: str, job: Job, key, *, known: bool = False) -> Answer | None:
        """Answer a lookup (sparql.is_lookup: one triple pattern with an IRI subject, known from its form to
        be one index range, with no SERVICE) in this process, without the worker round trip; None when the
        query is no lookup. `known`: the caller has found it is one."""
        if not known and not is_lookup(job.query):
            return None
        generation = self.pool.generation
        handle = self._lookup_store
        if handle is None or handle[0] != generation:
            with self._lookup_lock:
                handle = self._lookup_store
                if handle is None or handle[0] != generation:
                    handle = self._lookup_store = (generation, reopen(self.pool.store_path))
        job.generation = generation
        job.service_checked = True  # a lookup's form has no SERVICE: nothing to parse in this process
        started = self.limiter.start(client)
        try:
            answer = run_job(handle[1], job)
        finally:
            self.limiter.finish(client, started)
        answer.lane, answer.seconds = "lookup", time.monotonic() - started
        return self.checked(answer, key)

    def strike(self, client: str) -> None:
        with self._slow_lock:
            self._strikes.setdefault(client, []).append(time.monotonic())

    def struck_out(self, client: str) -> int | None:
        """Seconds until a client that lost STRIKES workers lately may query again, else None."""
        with self._slow_lock:
            now = time.monotonic()
            recent = [t for t in self._strikes.get(client, ()) if t > now - STRIKE_SECONDS]
            if recent:
                self._strikes[client] = recent
            else:
                self._strikes.pop(client, None)
            return math.ceil(recent[0] + STRIKE_SECONDS - now) if len(recent) >= STRIKES else None

    def known_slow(self, client: str, query: str) -> bool:
        digest = hashlib.sha256(query.encode("utf-8", "surrogatepass")).digest()
        with self._slow_lock:
            until = self._slow_clients.get(client)
            if until is not None and until < time.monotonic():
                del self._slow_clients[client]
                until = None
            return until is not None or digest in self._slow_texts

    def ran_slowly(self, client: str, query: str) -> None:
        digest = hashlib.sha256(query.encode("utf-8", "surrogatepass")).digest()  # texts may be 1 MiB each
        with self._slow_lock:
            self._slow_texts[digest] = None
            self._slow_texts.move_to_end(digest)
            while len(self._slow_texts) > SLOW_TEXTS:
                self._slow_texts.popitem(last=False)
            self._slow_clients[client] = time.monotonic() + SLOW_CLIENT_SECONDS
            if len(self._slow_clients) > SLOW_TEXTS:
                self._slow_clients.pop(next(iter(self._slow_clients)))

    def _prepare(self, views: Views) -> Prepared:
        """This generation's precomputed figures, started in the background (the server answers meanwhile)."""
        disk = diskcache.for_generation(self.settings.project.graphs.parent / "cache" / "pages",
                                        views.store.generation_id(), writable=self.settings.update_token is not None)
        prepared = Prepared(views, lambda: self.pool.generation, self.settings.project, disk)
        prepared.early.append(("home page's structured data", lambda: self.home_documents(prepared)))
        prepared.later.append(("ready-made queries' answers", lambda: self.warm_canned(prepared)))
        prepared.start()
        return prepared

    def _open(self, generation: Path | str) -> Store | RemoteStore:
        if self.remote:
            return RemoteStore(str(generation))
        return Store(generation, read_only=self.settings.update_token is None)

    def _follow_server(self) -> None:
        """Over a SPARQL server: every FOLLOW_SECONDS, when a build has switched the server to a new
        generation, move the pages, statistics and query workers to it together."""
        if time.monotonic() - self._followed_at < FOLLOW_SECONDS:
            return
        self._followed_at = time.monotonic()
        fresh = RemoteStore(self.settings.store_path)
        latest = fresh.generation()
        if latest == self.served_generation:
            return
        with self._switch_lock:
            views = Views(fresh, self.settings.base_iri)
            old = self.prepared
            self.store, self.views, self.prepared = fresh, views, self._prepare(views)
            self.served_generation = latest
            old.closed = True
            self.pool.switch(self.settings.store_path)
            logger.info("switched to generation %d of %s (a new build)", latest, fresh.location)

    def refresh(self) -> None:
        """Between requests: when a build has switched the store path to a newer generation, open it and
        move the page store, the statistics and the query workers to it together (a readlink when
        nothing changed)."""
        if self.remote:
            self._follow_server()
            return
        try:
            latest = current_generation(self.settings.store_path)
        except StoreError:
            return  # mid-migration or removed: keep serving what is open
        if latest == self.generation_path:
            return
        with self._switch_lock:
            if latest == self.generation_path or self._closed:
                return
            store = self._open(latest)
            views = Views(store, self.settings.base_iri)
            old = self.store
            self.prepared.closed = True
            self.store, self.views, self.prepared = store, views, self._prepare(views)
            self.pool.switch(latest)
            self.generation_path = latest
            logger.info("switched to the store generation %s (a new build)", latest.name)
            # Requests still running keep their reference to the old store; it is closed when unreferenced.
            del old

    def canned(self) -> dict[str, CannedQuery]:
        return {q.name: q for q in canned_queries(self.settings.project)}

    def canned_answer(self, client: str, prepared: Prepared, name: str, text: str, fmt: str) -> Answer:
        """A canned query's answer at its defaults (the one every link to it shows), kept with the generation's
        figures, on disk too: 23 s for accelerators-by-country on the full graph, once per build."""
        def run() -> list[str]:
            answer = self.run(client, Job(text, fmt, "ttl"))
            return [answer.media_type, answer.form, answer.body.decode("utf-8")]
        media_type, form, body = prepared.get(f"canned-answer:{name}.{fmt}", run, disk=AS_IS)  # type: ignore[misc]
        return Answer(body.encode("utf-8"), media_type, form, lane="cache")

    def home_documents(self, prepared: Prepared) -> list[dict | bytes]:
        """The home page's JSON-LD with HOST_MARK where this server's URL goes (a request puts in its own),
        kept per generation and set of releases: it reads the whole store (its time coverage)."""
        releases = self.publication.release_names()
        return prepared.get(f"home-documents:{','.join(releases)}", lambda: self.publication.home_documents(
            self.store, self.generation_path, lambda path: HOST_MARK + path), kept=4, disk=DOCUMENTS_JSON)  # type: ignore[return-value]

    def warm_canned(self, prepared: Prepared) -> None:
        """Answer every canned query that runs without arguments, at its defaults, ahead of visitors: in this
        background thread on the page store, as the other figures are (the project's own queries, which make
        no outbound request). Not through the query workers: holding their slow lane for minutes after a
        build opened, it made visitors' slow queries fail with 503 slow-lane-full."""
        import pyoxigraph as ox

        for query in self.canned().values():
            if prepared.closed:
                return
            try:
                text = query.bind({})
            except InputError:
                continue  # it needs an argument (a system, an edition): no default page to prepare
            if needs_parse(text):
                continue  # it may name SERVICE: only a worker, which has no network, may run it

            def run(text: str = text) -> list[str]:
                result = prepared.store.query(text, prefixes=False)
                if isinstance(result, ox.QueryTriples):
                    return ["text/turtle", "triples", format_result(result, "ttl").decode("utf-8")]
                form = "boolean" if isinstance(result, ox.QueryBoolean) else "solutions"
                return ["application/sparql-results+json", form, format_result(result, "json").decode("utf-8")]
            try:
                prepared.get(f"canned-answer:{query.name}.json", run, disk=AS_IS)
            except Exception as error:  # noqa: BLE001 - a query that fails stays a visitor's to run
                logger.info("precomputing the canned query %s failed: %s", query.name, error)

    def page_state(self) -> tuple[str, int, tuple[str, ...], bool]:
        """What the pages' ETags are named by (hpckg.serve.caching): the generation served, its update
        revision, the releases, and whether SPARQL Update may change the data."""
        return (f"{self.generation_path}#{self.served_generation}", self.pool.generation,
                tuple(self.publication.release_names()), self.settings.update_token is not None)

    def close(self) -> None:
        """Stop the query workers and close the store; safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        if hasattr(self, "prepared"):
            self.prepared.closed = True
        logger.info("stopping %d query workers", self.pool.size)
        self.pool.close()
        self.updates.close()
        self._close_store()

    def _close_store(self) -> None:
        try:
            self.store.close()
        except (OSError, RuntimeError):
            pass  # pyoxigraph refuses to flush a read-only store; there is nothing to write anyway

    def check(self, client: str, query: str) -> None:
        """Refuse a query before it runs: rate limit, nesting, escapes the SERVICE check could misread."""
        retry = self.limiter.retry_after(client)
        if retry is not None:
            raise HttpError(429, "rate-limited",
                            f"this client used its {self.settings.rate_limit:g} s of query time per minute; "
                            f"retry in {retry} s", headers={"Retry-After": str(retry)})
        retry = self.struck_out(client)
        if retry is not None:
            raise HttpError(429, "workers-lost",
                            f"this client's queries stopped {STRIKES} query workers (crash or memory limit) in the "
                            f"last {STRIKE_SECONDS:g} s; retry in {retry} s",
                            headers={"Retry-After": str(retry)})
        if nesting(query) > MAX_NESTING:
            raise HttpError(400, "too-nested", f"the query nests brackets more than {MAX_NESTING} deep; "
                                               "this server refuses such queries before parsing them")
        if not self.settings.allow_service:
            # What the worker's parse for SERVICE reads must be what Oxigraph runs (see escape_problem); the
            # parse itself is the worker's, under the query's time limit (see workers.run_job).
            problem = escape_problem(query)
            if problem:
                raise HttpError(400, "escape-refused", problem)

    def run(self, client: str, job: Job):
        """Run a query job for a client under the rate limit, the time limit and the result cap (blocking)."""
        self.check(client, job.query)
        job.service_checked = self.settings.allow_service
        job.max_results = self.settings.max_results
        key = self.cache_key(job)
        if key is not None and (cached := self.cache.get(key)) is not None:
            return dataclasses.replace(cached, lane="cache", waited=0.0)
        if (answer := self.lookup(client, job, key)) is not None:
            return answer
        started = self.limiter.start(client)
        with self.answering(client, job, started) as waited:
            answer = self.pool.run(job, timeout=self.settings.timeout, slow=self.known_slow(client, job.query))
            waited[0] = answer.waited
        if answer.slow:
            self.ran_slowly(client, job.query)
        return self.checked(answer, key)

    async def run_async(self, client: str, job: Job):
        """run() for the event loop: waits for a worker and its answer on the loop, holding no thread."""
        self.check(client, job.query)
        job.service_checked = self.settings.allow_service
        job.max_results = self.settings.max_results
        key = self.cache_key(job)
        if key is not None and (cached := self.cache.get(key)) is not None:
            return dataclasses.replace(cached, lane="cache", waited=0.0)
        if (answer := self.lookup(client, job, key)) is not None:
            return answer  # a few tens of microseconds: answered on the loop
        started = self.limiter.start(client)
        with self.answering(client, job, started) as waited:
            answer = await self.pool.run_async(job, timeout=self.settings.timeout,
                                               slow=self.known_slow(client, job.query))
            waited[0] = answer.waited
        if answer.slow:
            self.ran_slowly(client, job.query)
        return self.checked(answer, key)

    def cache_key(self, job: Job):
        """The answer cache's key for a job at the store's current generation, or None when its answer
        must not be cached. The generation is read before the job is dispatched: the worker then sees
        data at least that new."""
        if self.cache.capacity <= 0 or not deterministic(job.query):
            return None
        if self.settings.allow_service and needs_parse(job.query):
            return None  # it may call SERVICE, whose answers may change (refused outright without the flag)
        return AnswerCache.key(job, self.pool.generation)

    @contextmanager
    def answering(self, client: str, job: Job, started: float):
        """Turn the pool's failures into HTTP errors and charge the client's query time: the time its
        query ran, not the time it waited for a worker (the block sets waited[0] from the answer)."""
        waited = [0.0]
        try:
            yield waited
        except QueryTimeout as error:
            logger.warning("query from %s stopped at the time limit: %.200s", client, job.query)
            self.ran_slowly(client, job.query)
            raise HttpError(503, "timeout", str(error), headers={"Retry-After": "1"}) from None
        except SlowLaneFull as error:
            self.ran_slowly(client, job.query)
            raise HttpError(503, "slow-lane-full", str(error), headers={"Retry-After": "5"}) from None
        except PoolBusy as error:
            waited[0] = time.monotonic() - started  # it never ran
            raise HttpError(503, "busy", f"{error}; try again shortly", headers={"Retry-After": "1"}) from None
        except MemoryLimit as error:
            logger.warning("query from %s stopped at the memory limit: %.200s", client, job.query)
            self.ran_slowly(client, job.query)
            self.strike(client)
            raise HttpError(503, "memory-limit", str(error)) from None
        except WorkerFailed as error:
            logger.error("query worker failed: %s", error)
            self.strike(client)  # a client that keeps crashing workers is stopped
            raise HttpError(500, "worker-failed", str(error)) from None
        finally:
            self.limiter.finish(client, started, waited=waited[0])

    def checked(self, answer, key=None):
        """The answer, kept in the cache under key; an HttpError for a worker's error answer."""
        if answer.status != 200:
            raise HttpError(answer.status, answer.code, answer.message, extra=position(answer.message))
        if key is not None:
            self.cache.put(key, answer)
        return answer

    def update(self, request: QueryRequest, authorization: str | None, base_iri: str | None = None) -> None:
        """Apply an update (blocking): the token, then what a parse of the update says, then the store."""
        token = self.settings.update_token
        if token is None:
            raise HttpError(403, "read-only",
                            "this SPARQL endpoint is read-only: SPARQL Update is refused. Edit the Turtle "
                            "under data/ttl and run `hpckg build`, or start hpckg serve with "
                            "--allow-update-token TOKEN and send Authorization: Bearer TOKEN")
        scheme, _, given = (authorization or "").strip().partition(" ")
        # Both sides hashed first: compare_digest then compares equal lengths, in constant time.
        if scheme.lower() != "bearer" or not hmac.compare_digest(
                hashlib.sha256(given.strip().encode()).digest(), hashlib.sha256(token.encode()).digest()):
            raise HttpError(403, "update-forbidden",
                            "SPARQL Update needs the header Authorization: Bearer <the server's update token>")
        text = request.update or ""
        if nesting(text) > MAX_NESTING:
            raise HttpError(400, "too-nested", f"the update nests brackets more than {MAX_NESTING} deep")
        problem = escape_problem(text)
        if problem:  # the check below would read another update than Oxigraph runs
            raise HttpError(400, "escape-refused", problem)
        with self.update_lock:
            self.updates.call(self._apply_update, request, text, base_iri)
            self.pool.generation += 1
            self.cache.clear()  # every entry is keyed by an older generation now: free the memory
            self.responses.clear()
            # the description counts what the update changed; the statistics are kept per update revision
            self.publication.forget()
        logger.info("applied an update; the query workers reopen the store")

    def _apply_update(self, request: QueryRequest, text: str, base_iri: str | None) -> None:
        """On the update thread (no network): what a parse of the update says, then the store."""
        analysis = analyse(text, update=True)
        if not analysis.parsed:  # only what a parse vouches for runs
            raise HttpError(400, "update-syntax", f"SPARQL syntax error: {analysis.error}")
        if (analysis.service or analysis.load) and not self.settings.allow_service:
            raise HttpError(403, "service-refused",
                            "LOAD and SERVICE make outbound requests, which this server refuses; start hpckg "
                            "serve with --allow-service to allow them")
        if request.using_graphs or request.using_named_graphs:
            if analysis.dataset_clause:
                raise HttpError(400, "dataset-conflict",
                                "using-graph-uri or using-named-graph-uri may not be combined with an update "
                                "that has USING, USING NAMED or WITH")
            text = with_using(text, request.using_graphs, request.using_named_graphs)
        try:
            apply(self.store, text, base_iri)
            self.store.flush()
        except HpckgError as error:
            raise HttpError(400, "update-syntax", str(error), extra=position(str(error))) from None
        except UpdateFailed as error:
            raise HttpError(500, "update-failed", str(error)) from None


def position(message: str) -> dict:
    """{"line": n, "column": m} from a message like 'error at 3:17: ...' or '... at line 3, column 17: ...'."""
    match = re.search(r"at (\d+):(\d+)", message) or re.search(r"at line (\d+), column (\d+)", message)
    return {"line": int(match.group(1)), "column": int(match.group(2))} if match else {}


# ---- responses ------------------------------------------------------------------------------------------




def error_response(views: Views, error: HttpError, accept: str) -> Response:
    if wants_html(accept):
        return html_response(views.error(error.status, error.code, error.message), error.status)
    document = {"error": {"status": error.status, "code": error.code, "message": error.message, **error.extra}}
    return respond(error.status, json_dumps(document), "application/json", error.headers)


def error_box(error: HttpError) -> str:
    return f'<div class="error"><p>{error.status}: {html.escape(error.code)}. {html.escape(error.message)}</p></div>'


def media_for_twin(suffix: str) -> str:
    name = urls.TWIN_SUFFIXES[suffix]
    return "application/json" if name == "json" else RDF_FORMATS[name].media_type


def first(params: QueryParams, name: str) -> str | None:
    """The first value of a query parameter (Starlette's .get gives the last)."""
    values = params.getlist(name)
    return values[0] if values else None


def client_of(request: Request) -> str:
    """The client a request is charged to: the peer address, or, when the peer is a trusted reverse proxy,
    the last address in X-Forwarded-For that is not a trusted proxy itself."""
    peer = request.client.host if request.client else "unknown"
    trusted = request.app.state.trusted if hasattr(request.app.state, "trusted") else ()
    return forwarded_client(peer, request.headers.getlist("x-forwarded-for"), trusted)


def forwarded_client(peer: str, forwarded: list[str], trusted) -> str:
    if not trusted or not _trusted(peer, trusted):
        return peer
    hops = [hop.strip() for value in forwarded for hop in value.split(",")]
    for hop in reversed(hops):
        if hop and not _trusted(hop, trusted):
            return hop
    return peer


def _trusted(address: str, networks) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def guarded(endpoint: Callable) -> Callable:
    """Answer an unexpected exception of a sync endpoint in the error shape (500), logged with its traceback,
    instead of letting it reach Starlette's server-error middleware."""

    @functools.wraps(endpoint)
    def wrapper(routes: Routes, request: Request) -> Response:
        try:
            return endpoint(routes, request)
        except HttpError:
            raise
        except Exception:  # noqa: BLE001 - answer in the error shape instead of a dropped socket
            logger.exception("internal error answering %s %s", request.method, request.url.path)
            raise HttpError(500, "internal", INTERNAL) from None

    return wrapper


# ---- routes ---------------------------------------------------------------------------------------------

class Routes:
    """The endpoints, bound to one Service."""

    def __init__(self, service: Service):
        self.service = service
        self.rows: OrderedDict[tuple, list[dict[str, object]]] = OrderedDict()  # see query_rows
        self.rows_lock = threading.Lock()
        self.comparisons: OrderedDict[tuple, compare.Comparison] = OrderedDict()  # see comparison

    # ---- SPARQL protocol ----------------------------------------------------------------------------

    async def sparql(self, request: Request) -> Response:
        return await self._sparql(request, update_only=False)

    async def update(self, request: Request) -> Response:
        return await self._sparql(request, update_only=True)

    async def _sparql(self, request: Request, *, update_only: bool) -> Response:
        try:
            query_request = await read_request(request)
        except ClientDisconnect:
            return Response(status_code=400)  # nobody is listening any more
        headers = request.headers
        accept = headers.get("accept", "")
        service = self.service
        try:
            if query_request.update is not None:
                if request.method != "POST":
                    raise HttpError(405, "update-needs-post", "SPARQL Update is only accepted by POST",
                                    headers={"Allow": "POST"})
                await run_in_threadpool(service.update, query_request, headers.get("authorization"),
                                        absolute(headers, urls.SPARQL))
                return respond(204 if not wants_html(accept) else 200, b"", "text/plain")
            if update_only:
                raise HttpError(400, "missing-update", "POST an update as application/sparql-update or update=")
            params = request.query_params
            fmt = first(params, "format") or first(params, "output") or first(params, "results")
            query = query_request.query
            if query is None:
                if wants_html(accept) and not fmt:
                    return await run_in_threadpool(self.editor_response, client_of(request), "")
                rdf = negotiate(accept, fmt)[1]
                endpoint = absolute(headers, urls.SPARQL)
                return await run_in_threadpool(
                    lambda: respond(200, serialize_triples(service_description(endpoint, service.store,
                                                                               service.settings), rdf),
                                    rdf.media_type))
            if not query.strip():
                raise HttpError(400, "missing-query", "the query parameter is empty")
            if wants_html(accept) and not fmt:
                return await run_in_threadpool(self.editor_response, client_of(request), query)
            results, rdf = negotiate(accept, fmt)
            job = Job(query, results.name, rdf.name, tuple(query_request.default_graphs),
                      tuple(query_request.named_graphs), base_iri=absolute(headers, urls.SPARQL))
            answer = await service.run_async(client_of(request), job)
            response = respond(200, answer.body, answer.media_type, server_timing(answer))
            if request.method == "GET" and "origin" not in headers and service.cache_key(job) is not None:
                service.responses.put(FastAnswers.key(request.scope), service.pool.generation,
                                      cached_headers(respond(200, answer.body, answer.media_type,
                                                             server_timing(CACHED))), answer.body)
            return response
        except HttpError:
            raise
        except Exception:  # noqa: BLE001 - answer in the error shape instead of a dropped socket
            logger.exception("internal error answering %s %s", request.method, request.url.path)
            raise HttpError(500, "internal", INTERNAL) from None

    def editor_response(self, client: str, query: str) -> Response:
        results, status = "", 200
        views = self.service.views
        if query.strip():
            try:
                results = self.results_html(client, query)
            except HttpError as error:
                results, status = error_box(error), error.status
        warnings = undefined_terms(query, self.service.settings.project.ontology_dir) if query.strip() else []
        return html_response(views.editor(query, results, list(self.service.canned().values()), warnings), status)

    def results_html(self, client: str, query: str) -> str:
        answer = self.service.run(client, Job(query, "json", "ttl"))
        return (self.service.views.results(json.loads(answer.body)) if answer.form != "triples"
                else f"<pre>{html.escape(answer.body.decode('utf-8'))}</pre>")

    # ---- pages --------------------------------------------------------------------------------------

    @guarded
    def home(self, request: Request) -> Response:
        service, headers = self.service, request.headers
        publication, prepared = service.publication, service.prepared
        releases = publication.release_names()
        marked = service.home_documents(prepared)
        here = absolute(headers, "")
        structured = [json.loads(json.dumps(d).replace(HOST_MARK, here)) if isinstance(d, dict)
                      else d.replace(HOST_MARK.encode(), here.encode()) for d in marked]  # type: ignore[union-attr]
        return html_response(service.views.home(prepared.front(), releases[-1] if releases else None,
                                                structured))  # type: ignore[arg-type]

    @guarded
    def queries(self, request: Request) -> Response:
        return html_response(self.service.views.queries_page(list(self.service.canned().values())))

    @guarded
    def vocab(self, request: Request) -> Response:
        return html_response(self.service.views.vocab(self.service.settings.project.ontology_dir))

    @guarded
    def editor(self, request: Request) -> Response:
        return self.editor_response(client_of(request), first(request.query_params, "query") or "")

    @guarded
    def canned(self, request: Request) -> Response:
        ref = request.path_params["ref"]
        name, _, ext = ref.partition(".")
        canned = self.service.canned()
        query = canned.get(name)
        if query is None:
            raise HttpError(404, "unknown-query",
                            f"no canned query named {name!r}; available: {', '.join(canned)}")
        client = client_of(request)
        params = {key: first(request.query_params, key) or "" for key in request.query_params}
        try:
            # Values are checked against the parameter's declared type and bound as RDF terms.
            text = query.bind(params)
        except InputError as error:
            raise HttpError(400, "invalid-parameter", str(error)) from None
        service = self.service
        defaults = not params  # the answer every link to the query shows: kept per generation (canned_answer)
        if ext:
            if ext not in ("csv", "json", "tsv", "xml"):
                raise HttpError(404, "unknown-format", f"{ref}: download a canned query as .csv or .json")
            answer = (service.canned_answer(client, service.prepared, name, text, ext) if defaults
                      else service.run(client, Job(text, ext, "ttl")))
            filename = f"{name}.{ext if answer.form != 'triples' else 'ttl'}"
            return respond(200, answer.body, answer.media_type,
                           {"Content-Disposition": f'inline; filename="{filename}"'})
        try:
            if defaults:
                answer = service.canned_answer(client, service.prepared, name, text, "json")
                results = (service.views.results(json.loads(answer.body)) if answer.form != "triples"
                           else f"<pre>{html.escape(answer.body.decode('utf-8'))}</pre>")
            else:
                results = self.results_html(client, text)
        except HttpError as error:
            if error.status == 429:
                raise
            results = error_box(error)
        return html_response(self.service.views.canned(query, results, params))

    # ---- search -----------------------------------------------------------------------------------------

    @guarded
    def search(self, request: Request) -> Response:
        """/search?q=TEXT as a page, /search.json?q=TEXT (or Accept: application/json) as JSON."""
        text = (first(request.query_params, "q") or "").strip()
        limit = first(request.query_params, "limit") or "20"
        if not limit.isdigit() or not 0 < int(limit) <= 100:
            raise HttpError(400, "invalid-parameter", f"limit is a whole number from 1 to 100, not {limit!r}")
        views = self.service.views
        index = self.service.prepared.search_index()
        hits = index.search(text, int(limit)) if text else []
        # a typo: the hits are of the text with its unknown words replaced, and the answer says which
        searched = index.suggest(text) if hits and hits[0].match == "close" else None
        accept = request.headers.get("accept", "")
        if request.url.path.endswith(".json") or (not wants_html(accept) and "application/json" in accept):
            document = {"query": text, "searched": searched or text, "count": len(hits), "results": [
                {"iri": h.entity.iri, "type": h.entity.kind, "label": h.entity.label, "matched": h.name,
                 "match": h.match, "page": views.href(h.entity.iri), "also": list(h.also)} for h in hits]}
            return respond(200, json_dumps(document), "application/json")
        return html_response(views.search_page(text, hits, searched))

    # ---- charts -----------------------------------------------------------------------------------------

    @guarded
    def charts(self, request: Request) -> Response:
        # The tier switch: ?tier=reported leaves out the clusters whose accelerator count rests on a lead (every
        # TOP500 figure is a reported one, read from the list's own file, so those charts do not change).
        min_tier = first(request.query_params, "tier") or "lead"
        if min_tier not in lists.TIERS:
            raise HttpError(400, "invalid-parameter", f"tier is one of {', '.join(lists.TIERS)}, not {min_tier!r}")
        # Drawn from figures precomputed per store generation (hpckg.serve.precompute), each equal to the answer
        # of the canned query its chart links to; the queries themselves run over the endpoint's time limit.
        drawn, epoch = self.service.prepared.charts(min_tier)
        return html_response(self.service.views.charts_page(drawn, epoch, min_tier))

    def drawn(self, key: str, draw: Callable[[], object]):
        """A chart (or charts) drawn once per store generation."""
        cache_key = (self.service.pool.generation, "chart", key)
        with self.rows_lock:
            found = self.rows.get(cache_key)
        if found is None:
            found = draw()
            with self.rows_lock:
                self.rows[cache_key] = found
                while len(self.rows) > LIST_ROWS_KEPT:
                    self.rows.popitem(last=False)
        return found

    def system_history(self, slug: str) -> Callable[[str], charts.Chart | None]:
        """Start the chart of a system's TOP500 editions (its rows read, its SVG drawn in another thread while
        the page reads the rest: the drawing is most of a first visit's time); call the result with the
        system's name for the chart, or None when it was never listed."""
        key = f"system-{slug}"
        with self.rows_lock:
            found = self.rows.get((self.service.pool.generation, "chart", key))
        if found is not None:
            return lambda name: found
        # Read on the page store in this process, like the rest of the page: entity pages need no query
        # worker, so they are answered while slow queries hold every worker.
        text = self.service.canned()["system-editions"].bind({"system": slug})
        views = self.service.views
        rows = lists.rows_from_results(json.loads(format_result(views.store.query(text, prefixes=False), "json")))
        if not rows:
            return lambda name: None
        drawing = DRAWING.submit(charts.vega_svg, charts.system_history_spec(rows))
        return lambda name: self.drawn(key, lambda: charts.system_history(
            rows, name, self.editor_url("system-editions", {"system": slug}), drawing.result(),
            imported=views.imported_editions()))

    def editor_url(self, name: str, params: dict[str, str]) -> str:
        return urls.query_editor(self.service.canned()[name].bind(params))

    # ---- compare ----------------------------------------------------------------------------------------

    @guarded
    def compare(self, request: Request) -> Response:
        """/compare?system=A&system=B (two to four; a search with ?q= to add more) and its .csv/.json twins:
        the four compare-* canned queries' rows laid out by hpckg.serve.compare."""
        ext = request.url.path.rpartition(".")[2] if "." in request.url.path else ""
        if ext not in ("", "csv", "json"):
            raise HttpError(404, "unknown-format", f"the comparison is served as HTML, .csv or .json, not .{ext}")
        views, client = self.service.views, client_of(request)
        text = (first(request.query_params, "q") or "").strip()[:200]
        hits = [h for h in self.service.prepared.search_index().search(text, 20)
                if h.entity.kind == "system"] if text else []
        slugs: list[str] = []
        try:
            slugs = compare.slugs_of(request.query_params.getlist("system"))
            compare.check_count(slugs)
        except InputError as error:
            if ext:
                raise HttpError(400, "invalid-parameter", str(error)) from None
            # choosing: no system yet is the page's start, one system while searching is on the way to two
            status = 200 if not request.query_params.getlist("system") or (text and len(slugs) < 2) else 400
            return html_response(views.compare_page(None, slugs, text, hits, str(error), {}), status)
        params = compare.parameters(slugs)
        queries = {name: self.editor_url(name, params) for name in compare.QUERIES}
        rows = {name: lists.rows_from_results(json.loads(self.service.run(client, Job(
            self.service.canned()[name].bind(params), "json", "ttl")).body)) for name in compare.QUERIES}
        try:
            comparison = self.comparison(slugs, rows)
        except UnknownNameError as error:
            if ext:
                raise HttpError(404, "unknown-system", str(error)) from None
            return html_response(views.compare_page(None, slugs, text, hits, str(error), {}), 404)
        if ext == "csv":
            return respond(200, compare.csv_bytes(comparison), "text/csv",
                           {"Content-Disposition": 'inline; filename="compare.csv"'})
        if ext == "json":
            return respond(200, compare.json_bytes(comparison, queries), "application/json")
        return html_response(views.compare_page(comparison, slugs, text, hits, None, queries))

    def comparison(self, slugs: list[str], rows: dict[str, list[dict[str, object]]]) -> compare.Comparison:
        """The comparison of these systems, its chart drawn once per store generation; kept apart from the
        lists' rows (self.rows), which any of thousands of comparisons would otherwise push out."""
        key = (self.service.pool.generation, tuple(slugs))
        with self.rows_lock:
            found = self.comparisons.get(key)
        if found is None:
            found = compare.compare(slugs, rows)
            with self.rows_lock:
                self.comparisons[key] = found
                while len(self.comparisons) > COMPARISONS_KEPT:
                    self.comparisons.popitem(last=False)
        return found

    # ---- lists ------------------------------------------------------------------------------------------

    @guarded
    def lists(self, request: Request) -> Response:
        rows = self.query_rows(client_of(request), "top500-edition-names", {})
        return html_response(self.service.views.lists_index(rows))

    @guarded
    def named_list(self, request: Request) -> Response:
        """/lists/epoch-clusters (and its .csv/.json twins); /lists/top500 is the editions, or the edition
        a form chose (?edition=2025-06)."""
        name, _, ext = request.path_params["name"].partition(".")
        if name == "top500" and not ext:
            edition = first(request.query_params, "edition")
            return redirect(urls.top500_list(edition)) if edition else self.lists(request)
        if name in lists.ENTITY_LISTS:
            spec = lists.ENTITY_LISTS[name]
            # Precomputed with the generation (hpckg.serve.precompute): the sites list took 1.4 s on a first visit.
            return self.list_response(request, spec, ext, {}, urls.entity_list(name), spec.title,
                                      rows=self.service.prepared.canned_rows(spec.query))
        if name != lists.EPOCH_CLUSTERS.name:
            raise HttpError(404, "unknown-list", f"no list named {name!r}; lists: top500/EDITION, epoch-clusters, "
                            + ", ".join(lists.ENTITY_LISTS))
        return self.list_response(request, lists.EPOCH_CLUSTERS, ext, {}, urls.epoch_clusters(),
                                  lists.EPOCH_CLUSTERS.title,
                                  rows=self.service.prepared.canned_rows(lists.EPOCH_CLUSTERS.query))

    @guarded
    def top500_list(self, request: Request) -> Response:
        edition, _, ext = request.path_params["edition"].partition(".")
        if not EDITION.fullmatch(edition):
            raise HttpError(404, "unknown-edition", f"a TOP500 edition is named YYYY-MM (2025-06), not {edition!r}")
        editions = [str(row["edition"]) for row in self.query_rows(client_of(request), "top500-edition-names", {})]
        if edition not in editions:
            return self.absent_edition(request, edition, editions, "list", ext)
        # The edition's claims read in one pattern and pivoted (hpckg.serve.editions): the same rows as the
        # canned query top500-list, which the page links to, in a second on the full graph.
        rows = self.service.prepared.edition(edition)
        return self.list_response(request, lists.TOP500, ext, {"edition": edition}, urls.top500_list(edition),
                                  f"TOP500, {edition}", editions, rows)

    def absent_edition(self, request: Request, edition: str, editions: list[str], what: str, ext: str) -> Response:
        """A 404 for an edition the store lacks: a page saying so, with a link to top500.org when top500.org has
        published it (its file is not in the configured data), for a visitor; the JSON error for a program."""
        message = f"no TOP500 edition {edition} in this store; editions: {', '.join(editions) or 'none'}"
        wanted = next((t for t in accepted(request.headers.get("accept", ""))
                       if t in ("text/html", "application/json")), "text/html")
        if ext or wanted != "text/html" or not statistics.is_published(edition):
            if statistics.is_published(edition):
                message += f"; top500.org has it: {statistics.top500_org_list(edition)}"
            raise HttpError(404, "unknown-edition", message)
        return html_response(statistics.absent_page(edition, editions, what), 404)

    # ---- statistics -----------------------------------------------------------------------------------

    @guarded
    def statistics(self, request: Request) -> Response:
        """/statistics: every edition over time (or the edition a form chose, ?edition=2025-06); .json twin."""
        edition = first(request.query_params, "edition")
        if edition:
            return redirect(urls.edition_statistics(edition))
        prepared = self.service.prepared
        figures = prepared.top500_figures()
        rows = statistics.over_time(prepared.edition_names(), figures[analytics.DEVELOPMENT],
                                    figures[analytics.BY_COUNTRY], figures[analytics.BY_VENDOR])
        if request.url.path.endswith(".json"):
            return respond(200, statistics.json_bytes({"editions": rows}), "application/json")
        return html_response(statistics.index_page(rows, self.editor_url))

    @guarded
    def edition_statistics(self, request: Request) -> Response:
        """/statistics/top500/EDITION (and .json: every table), /statistics/top500/EDITION/TABLE (and .csv/.json)."""
        edition, _, ext = request.path_params["edition"].partition(".")
        name = request.path_params.get("table")
        if name is not None:
            name, _, ext = name.partition(".")
        if not EDITION.fullmatch(edition):
            raise HttpError(404, "unknown-edition", f"a TOP500 edition is named YYYY-MM (2025-06), not {edition!r}")
        prepared = self.service.prepared
        editions = prepared.edition_names()
        if edition not in editions:
            return self.absent_edition(request, edition, editions, "statistics", ext)
        table = statistics.TABLES.get(name) if name is not None else None
        if name is not None and table is None:
            raise HttpError(404, "unknown-table", f"no table {name!r}; tables: {', '.join(statistics.TABLES)}")
        if not ext:  # content negotiation, as the lists do: Accept: text/csv or application/json
            preferred = next((t for t in accepted(request.headers.get("accept", ""))
                              if t in ("text/html", "text/csv", "application/json")), "text/html")
            ext = {"text/csv": "csv" if table else "", "application/json": "json"}.get(preferred, "")
        found = prepared.edition_statistics(edition)
        if ext == "csv" and table is not None:
            return respond(200, statistics.csv_bytes(table, found[table.name]), "text/csv",
                           {"Content-Disposition": f'inline; filename="{table.query}-{edition}.csv"'})
        if ext == "json":
            chosen = [table] if table else list(statistics.TABLES.values())
            documents = [statistics.table_document(edition, t, found[t.name],
                                                   self.editor_url(t.query, {"edition": edition})) for t in chosen]
            return respond(200, statistics.json_bytes(documents[0] if table else {"edition": edition,
                                                                                  "tables": documents}),
                           "application/json")
        if ext:
            raise HttpError(404, "unknown-format", "an edition's statistics are served as HTML or .json, a table "
                            f"also as .csv, not .{ext}")
        return html_response(statistics.edition_page(edition, found, editions, self.editor_url,
                                                     self.service.views.href, table))

    @guarded
    def statistics_trend(self, request: Request) -> Response:
        """/statistics/TABLE (?measure=sharePercent|systemsPercent|systems), and its .csv/.json twins: a share
        table over the editions, from each edition's precomputed rows (those not computed yet are named)."""
        name, _, ext = request.path_params["table"].partition(".")
        table = statistics.TABLES.get(name)
        if table is None or table.ranking:
            shares = ", ".join(t.name for t in statistics.SHARES)
            raise HttpError(404, "unknown-table", f"no share table {name!r} over time; tables: {shares}")
        measure = first(request.query_params, "measure") or "sharePercent"
        if measure not in statistics.MEASURES:
            raise HttpError(400, "invalid-parameter", f"measure is one of {', '.join(statistics.MEASURES)}, "
                            f"not {measure!r}")
        prepared = self.service.prepared
        editions = prepared.edition_names()
        computed = {e: prepared.ready(f"statistics:{e}") for e in editions}
        if editions and computed[editions[0]] is None:  # the newest, at least (seconds)
            computed[editions[0]] = prepared.edition_statistics(editions[0])
        found = {e: done[table.name] for e, done in computed.items() if isinstance(done, dict)}
        pending = [e for e in editions if e not in found]
        if ext == "csv":
            keys = ("edition", *statistics.columns(table))
            return respond(200, statistics.rows_csv(keys, statistics.trend_rows(found)), "text/csv",
                           {"Content-Disposition": f'inline; filename="{table.query}-over-time.csv"'})
        if ext == "json":
            return respond(200, statistics.json_bytes({
                "table": table.name, "title": table.title, "query": self.editor_url(table.query, {}),
                "pending": pending, "rows": statistics.trend_rows(found)}), "application/json")
        if ext:
            raise HttpError(404, "unknown-format", f"a table over time is served as HTML, .csv or .json, not .{ext}")
        absent = statistics.absent_editions(editions)
        return html_response(statistics.trend_page(statistics.trend(table, found, measure, pending, absent),
                                                   self.editor_url, self.service.views.href))

    def query_rows(self, client: str, name: str, params: dict[str, str]) -> list[dict[str, object]]:
        """The rows a canned query answers, its declared parameters bound (checked against their types);
        kept per store generation, so sorting or paging a list again does not run its query again."""
        text = self.service.canned()[name].bind(params)
        key = (self.service.pool.generation, text)
        with self.rows_lock:
            rows = self.rows.get(key)
        if rows is None:
            rows = lists.rows_from_results(json.loads(self.service.run(client, Job(text, "json", "ttl")).body))
            with self.rows_lock:
                self.rows[key] = rows
                while len(self.rows) > LIST_ROWS_KEPT:
                    self.rows.popitem(last=False)
        return rows

    def list_response(self, request: Request, spec: lists.ListSpec, ext: str, query_params: dict[str, str],
                      base: str, heading: str, editions: list[str] | None = None,
                      rows: list[dict[str, object]] | None = None) -> Response:
        if rows is None:
            rows = self.query_rows(client_of(request), spec.query, query_params)
        params = {key: first(request.query_params, key) or "" for key in request.query_params}
        try:
            page = lists.select(spec, rows, params, query_params)
        except InputError as error:
            raise HttpError(400, "invalid-parameter", str(error)) from None
        query_url = urls.query_editor(self.service.canned()[spec.query].bind(query_params))
        twins = {fmt: page.url(f"{base.partition('?')[0]}.{fmt}", page=None, per=None) for fmt in ("csv", "json")}
        if not ext:
            preferred = next((t for t in accepted(request.headers.get("accept", ""))
                              if t in ("text/html", "text/csv", "application/json")), "text/html")
            ext = {"text/csv": "csv", "application/json": "json"}.get(preferred, "")
        if ext == "csv":
            return respond(200, lists.csv_bytes(spec, page.selected), "text/csv",
                           {"Content-Disposition": f'inline; filename="{spec.name}.csv"'})
        if ext == "json":
            return respond(200, lists.json_bytes(spec, page, query_url), "application/json")
        if ext:
            raise HttpError(404, "unknown-format", f"a list is served as HTML, .csv or .json, not .{ext}")
        return html_response(self.service.views.list_page(page, base, heading, twins, query_url, editions,
                                                          machines=self.service.prepared.machines()))

    # ---- data: graph store, VoID, entities ----------------------------------------------------------

    @guarded
    def graph_store(self, request: Request) -> Response:
        params = request.query_params
        fmt = negotiate(request.headers.get("accept", ""), first(params, "format"))[1]
        store = self.service.store
        if "graph" in params:
            graph = first(params, "graph")
            if graph not in store.named_graphs():
                raise HttpError(404, "no-such-graph", f"there is no named graph <{graph}> in this store")
            triples = [q.triple for q in store.quads(graph=graph)]
        elif "default" in params:
            # The default graph is the union of all named graphs, as for queries.
            triples = list(dict.fromkeys(q.triple for q in store.quads()))
        else:
            raise HttpError(400, "missing-graph", "ask for ?graph=IRI or ?default")
        return respond(200, serialize_triples(triples, fmt), fmt.media_type)

    @guarded
    def void(self, request: Request) -> Response:
        headers = request.headers
        fmt = negotiate(headers.get("accept", ""), None)[1]
        triples = self.service.publication.description(self.service.store, absolute(headers, urls.SPARQL),
                                                       lambda path: absolute(headers, path))
        return respond(200, serialize_triples(triples, fmt), fmt.media_type)

    # ---- dumps and releases: files with ETag, Last-Modified, ranges and gzip ------------------------

    @guarded
    def dump(self, request: Request) -> Response:
        name = request.path_params["name"]
        fmt = EXTENSIONS.get(name.removeprefix("hpckg.")) if name.startswith("hpckg.") else None
        if fmt is None:
            raise HttpError(404, "no-such-dump", f"no dump {name!r}; dumps: "
                            + ", ".join(urls.dump(ext) for ext in EXTENSIONS))
        service, compressed = self.service, accepts_gzip(request)
        path = service.publication.dump_file(service.store, service.generation_path, fmt, compressed=compressed,
                                             revision=service.pool.generation)
        headers = {"Vary": "Accept-Encoding", "Cache-Control": "public, max-age=300"}
        if compressed:
            headers["Content-Encoding"] = "gzip"
        return file_response(request, path, fmt.media_type, headers)

    @guarded
    def release(self, request: Request) -> Response:
        version, name = request.path_params["version"], request.path_params["name"]
        path = self.service.publication.release_file(version, name)
        if path is None:
            raise HttpError(404, "no-such-release-file", f"no file {name!r} in a release {version!r}; releases: "
                            + (", ".join(self.service.publication.release_names()) or "none"))
        return file_response(request, path, release_media_type(name), {"Cache-Control": "public, max-age=86400"})

    @guarded
    def entity_id(self, request: Request) -> Response:
        return self.entity(request, "id")

    @guarded
    def entity_page(self, request: Request) -> Response:
        return self.entity(request, "page")

    def entity(self, request: Request, route: str) -> Response:
        kind, ref = request.path_params["kind"], request.path_params["ref"]
        slug, _, ext = ref.partition(".")
        if kind not in ENTITY_KINDS:
            raise HttpError(404, "unknown-kind", f"no entity kind {kind!r}; kinds: {', '.join(ENTITY_KINDS)}")
        service = self.service
        iri = f"{service.settings.base_iri}id/{kind}/{slug}"
        if not SLUG.fullmatch(slug):
            raise HttpError(404, "unknown-entity", f"nothing is known about {iri!r}: not a slug of this server")
        accept = request.headers.get("accept", "")
        if route == "page" or (not ext and wants_html(accept)):
            if route == "id":
                if not service.views.exists(iri):
                    raise HttpError(404, "unknown-entity", f"nothing is known about <{iri}>")
                return redirect(urls.page(kind, slug))
            history = self.system_history(slug) if kind == "system" else None
            jsonld = serialize_triples(describe(service.store, iri), RDF_FORMATS["jsonld"])
            page = service.views.entity(kind, slug, iri, jsonld)
            if page is None:
                raise HttpError(404, "unknown-entity", f"nothing is known about <{iri}>")
            if history is not None:
                page.context["history"] = history(page.context["page"].label)
            return html_response(page)
        triples = describe(service.store, iri)
        if not triples:
            raise HttpError(404, "unknown-entity", f"nothing is known about <{iri}>")
        links = ", ".join(f'<{u}>; rel="alternate"; type="{t}"' for u, t in (
            (urls.page(kind, slug), "text/html"),
            *((u, media_for_twin(s)) for s, u in urls.twins(kind, slug).items())))
        if ext == "json":
            return respond(200, json_dumps(summary(service.store, iri, service.settings.base_iri)),
                           "application/json", {"Link": links})
        if ext:
            if ext not in urls.TWIN_SUFFIXES:
                raise HttpError(404, "unknown-format",
                                f"no .{ext} twin; available: {', '.join(urls.TWIN_SUFFIXES)}")
            fmt = RDF_FORMATS[urls.TWIN_SUFFIXES[ext]]
        else:
            fmt = next((f for f in map(rdf_format_for_media_type, accepted(accept)) if f), RDF_FORMATS["ttl"])
        return respond(200, serialize_triples(triples, fmt), fmt.media_type, {"Link": links})


async def read_request(request: Request) -> QueryRequest:
    """The operation and dataset of a SPARQL protocol request, from the URL and (for POST) the body."""
    params = request.query_params
    query_request = QueryRequest(query=single(params.getlist("query"), "query"),
                                 update=single(params.getlist("update"), "update"),
                                 default_graphs=params.getlist("default-graph-uri"),
                                 named_graphs=params.getlist("named-graph-uri"),
                                 using_graphs=params.getlist("using-graph-uri"),
                                 using_named_graphs=params.getlist("using-named-graph-uri"))
    if request.method == "POST":
        media = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
        if media not in ("application/sparql-query", "application/sparql-update",
                         "application/x-www-form-urlencoded"):
            raise HttpError(415, "unsupported-media-type",
                            f"POST a query as application/sparql-query or application/x-www-form-urlencoded,"
                            f" not {media or 'no Content-Type'}")
        charset = re.search(r";\s*charset\s*=\s*\"?([\w.:-]+)", request.headers.get("content-type") or "",
                            re.IGNORECASE)
        if charset and charset.group(1).lower() not in ("utf-8", "utf8"):
            raise HttpError(415, "unsupported-charset", f"send the body in UTF-8, not {charset.group(1)}")
        raw = await read_body(request)
        try:
            body = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise HttpError(400, "not-utf8", f"the request body is not UTF-8 (byte {error.start}); SPARQL "
                                             "requests are UTF-8") from None
        if media == "application/sparql-query":
            if query_request.query is not None or query_request.update is not None:
                raise HttpError(400, "query-twice", "a POSTed query may not have query or update in the URL too")
            query_request.query = body
        elif media == "application/sparql-update":
            if query_request.query is not None or query_request.update is not None:
                raise HttpError(400, "update-twice", "a POSTed update may not have query or update in the URL too")
            query_request.update = body
        else:
            try:
                form = urllib.parse.parse_qs(body, keep_blank_values=True, errors="strict")
            except UnicodeDecodeError:
                raise HttpError(400, "not-utf8", "the form's percent-encoded values are not UTF-8") from None
            for name in ("query", "update"):
                values = form.get(name, [])
                current = getattr(query_request, name)
                if values:
                    setattr(query_request, name, single(values + ([current] if current is not None else []), name))
            query_request.default_graphs += form.get("default-graph-uri", [])
            query_request.named_graphs += form.get("named-graph-uri", [])
            query_request.using_graphs += form.get("using-graph-uri", [])
            query_request.using_named_graphs += form.get("using-named-graph-uri", [])
    if query_request.query is not None and query_request.update is not None:
        raise HttpError(400, "query-and-update", "send either query or update, not both")
    for name, values in (("default-graph-uri", query_request.default_graphs),
                         ("named-graph-uri", query_request.named_graphs),
                         ("using-graph-uri", query_request.using_graphs),
                         ("using-named-graph-uri", query_request.using_named_graphs)):
        graph_iris(values, name)
    return query_request


def single(values: list[str], name: str) -> str | None:
    """The one value of a protocol parameter; more than one is a client error (the protocol allows one)."""
    if len(values) > 1:
        raise HttpError(400, f"multiple-{name}", f"send one {name} per request, not {len(values)}")
    return values[0] if values else None


async def read_body(request: Request) -> bytes:
    """The request body, read incrementally (Content-Length or chunked) and refused past MAX_BODY."""
    too_large = HttpError(413, "too-large", f"the request body is larger than {MAX_BODY} bytes")
    length = request.headers.get("content-length")
    if length is not None:
        # uvicorn's HTTP parser refuses most malformed lengths before the request gets here.
        if not length.strip().isdigit():
            raise HttpError(400, "bad-content-length", f"Content-Length must be a number of bytes, not {length!r}")
        if int(length) > MAX_BODY:
            raise too_large
    chunks, size = [], 0
    try:
        async with asyncio.timeout(BODY_TIMEOUT):
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY:
                    raise too_large
                chunks.append(chunk)
    except TimeoutError:
        raise HttpError(408, "body-timeout", f"the request body did not arrive within {BODY_TIMEOUT:g} s",
                        headers={"Connection": "close"}) from None
    return b"".join(chunks)


# A Host header as RFC 9110 has it: a name or IPv4 address, or an IPv6 literal in brackets, and a port.
HOST = re.compile(r"(?:[A-Za-z0-9_](?:[A-Za-z0-9_.\-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?")


def absolute(headers: Headers, path: str) -> str:
    """This server's URL for `path`, from the Host header: the base IRI of queries and updates, so it
    must be a host and nothing else (400 bad-host)."""
    host = headers.get("host") or "127.0.0.1"
    if not HOST.fullmatch(host):
        raise HttpError(400, "bad-host", "the Host header is not a host name or address (with a port)")
    return f"http://{host}{path}"


def graph_iris(values: list[str], name: str) -> list[str]:
    """The values of a dataset parameter (default-graph-uri, using-graph-uri...), each an absolute IRI by
    Oxigraph's own IRI parser, else 400: they enter operations as IRIs, never as text."""
    for value in values:
        try:
            ox.NamedNode(value)
        except ValueError:
            raise HttpError(400, "bad-graph-iri", f"{name} must be an absolute IRI, not {value[:100]!r}") from None
    return values


# ---- middleware and the application ------------------------------------------------------------------

class FastAnswers:
    """Answer a repeated GET /sparql from the ResponseCache before Starlette runs: the same query string,
    Accept and Host at the same store generation get the same bytes. The client's rate limit and strikes are
    still checked (a refused client falls through to the full path, which answers 429); requests with an
    Origin header (CORS) or another HTTP version take the full path."""

    def __init__(self, app, service: Service):
        self.app = app
        self.service = service

    @staticmethod
    def key(scope: Scope) -> tuple:
        accept = host = b""
        for name, value in scope["headers"]:
            if name == b"accept":
                accept = value
            elif name == b"host":
                host = value
        return scope["query_string"], accept, host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] == "http" and scope["method"] == "GET" and scope["path"] == urls.SPARQL
                and scope.get("http_version") in ("1.0", "1.1")):
            service = self.service
            key = self.key(scope)
            hit = service.responses.get(key, service.pool.generation)
            client = self.allowed(scope)
            if client is not None:
                if hit is None:
                    hit = self.lookup(scope, client, key)
                if hit is not None:
                    headers, body = hit
                    await send({"type": "http.response.start", "status": 200, "headers": headers})
                    await send({"type": "http.response.body", "body": body})
                    return
        await self.app(scope, receive, send)

    def lookup(self, scope: Scope, client: str, key: tuple) -> tuple[list[tuple[bytes, bytes]], bytes] | None:
        """A lookup (sparql.is_lookup) asked by GET with only a query parameter, answered in this process;
        None for anything else, or any error (the full path then answers it, errors included)."""
        try:
            params = urllib.parse.parse_qsl(scope["query_string"].decode("latin-1"), errors="strict")
        except (UnicodeDecodeError, ValueError):
            return None
        if len(params) != 1 or params[0][0] != "query" or not is_lookup(params[0][1]):
            return None
        accept, host = key[1].decode("latin-1"), key[2].decode("latin-1")
        if wants_html(accept):
            return None
        results, rdf = negotiate(accept, None)
        if host and not HOST.fullmatch(host):
            return None  # the full path answers 400 bad-host
        job = Job(params[0][1], results.name, rdf.name, base_iri=f"http://{host or '127.0.0.1'}{urls.SPARQL}")
        service = self.service
        job.max_results = service.settings.max_results
        generation = service.pool.generation
        try:
            answer = service.lookup(client, job, service.cache_key(job), known=True)
        except HttpError:
            return None
        if answer is None:
            return None
        service.responses.put(key, generation, cached_headers(respond(200, answer.body, answer.media_type,
                                                                      server_timing(CACHED))), answer.body)
        return cached_headers(respond(200, answer.body, answer.media_type, server_timing(answer))), answer.body

    def allowed(self, scope: Scope) -> str | None:
        """The client, when its request may be answered here (no CORS Origin, not rate-limited), else None."""
        forwarded = []
        for name, value in scope["headers"]:
            if name == b"origin":
                return None
            if name == b"x-forwarded-for":
                forwarded.append(value.decode("latin-1"))
        peer = scope["client"][0] if scope.get("client") else "unknown"
        client = forwarded_client(peer, forwarded, self.service.trusted)
        if self.service.limiter.retry_after(client) is None and self.service.struck_out(client) is None:
            return client
        return None


CACHED = Answer(lane="cache")
# Where this server's URL goes in the home page's JSON-LD, kept per generation for every host.
HOST_MARK = "http://hpckg-server.invalid"
# The home page's JSON-LD documents (dicts, or serialized JSON-LD bytes) as JSON and back (Prepared.get).
DOCUMENTS_JSON = (lambda docs: [d.decode("utf-8") if isinstance(d, bytes) else d for d in docs],  # type: ignore[union-attr]
                  lambda data: [d.encode("utf-8") if isinstance(d, str) else d for d in data])  # type: ignore[union-attr]


def server_timing(answer: Answer) -> dict[str, str]:
    """The Server-Timing header of a query's answer (W3C Server Timing): which lane answered it, how long it
    waited for a worker and how long it took, in milliseconds; so a client (and the tests) can see that a
    lookup never waited behind slow queries without timing the round trip."""
    return {"Server-Timing": f'lane;desc="{answer.lane}", wait;dur={answer.waited * 1000:.1f}, '
                             f"total;dur={answer.seconds * 1000:.1f}"}


def cached_headers(response: Response) -> list[tuple[bytes, bytes]]:
    """A response's headers as the CORS middleware sends them (it adds Origin to Vary on the way out)."""
    return [(k, b"Accept, Origin" if k == b"vary" else v) for k, v in response.raw_headers]


class NoSniff:
    """X-Content-Type-Options: nosniff on every answer, the fast ones included: a browser must not take a
    query's results (whose text a client chose) for HTML or script."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() != b"x-content-type-options"]
                message = {**message, "headers": [*headers, (b"x-content-type-options", b"nosniff")]}
            await send(message)

        await self.app(scope, receive, sending)


class HttpVersions:
    """Refuse requests without an HTTP/1.x or 2 version (an HTTP/0.9 request line is a client mistake)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("http_version") not in ("1.0", "1.1", "2", "2.0"):
            response = Response(b'{"error": {"status": 400, "code": "http-version", "message": "send HTTP/1.1"}}',
                                400, {"Connection": "close"}, "application/json")
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class Cors(CORSMiddleware):
    """Starlette's CORS middleware, answering every OPTIONS request (preflight or not) with 204 and the
    allowed methods and headers, as this server always has."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "OPTIONS":
            headers = Headers(scope=scope)
            if "origin" in headers and "access-control-request-method" in headers:
                answer = self.preflight_response(request_headers=headers)
            else:
                answer = Response(status_code=204, headers=self.preflight_headers)
            if answer.status_code == 200:  # Starlette answers an allowed preflight "200 OK"
                answer = Response(status_code=204, headers={
                    k: v for k, v in answer.headers.items() if k not in ("content-length", "content-type")})
            answer.headers["Allow"] = ", ".join(SPARQL_METHODS + ("OPTIONS",))
            await answer(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


class FollowBuilds:
    """Before each request, move the whole service to the store generation a finished build switched to
    (Service.refresh); a request sees one generation from start to end."""

    def __init__(self, app, service: Service):
        self.app, self.service = app, service

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            self.service.refresh()
        await self.app(scope, receive, send)


def create_app(settings: Settings) -> Starlette:
    """Open the store and start the query workers (blocking, before any request), and return the
    application. Closing: the application's lifespan shutdown closes them, as does app.state.service.close()."""
    service = Service(settings)
    routes = Routes(service)
    contribute = ContributePage(service, client_of)

    @asynccontextmanager
    async def lifespan(app: Starlette):
        limiter = anyio.to_thread.current_default_thread_limiter()
        limiter.total_tokens = max(limiter.total_tokens, THREADS)
        try:
            yield
        finally:
            await run_in_threadpool(service.close)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HttpError)
        if error.status >= 500:
            logger.info("%s %s answered %d %s", request.method, request.url.path, error.status, error.code)
        return error_response(service.views, error, request.headers.get("accept", ""))

    async def starlette_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        path = request.url.path
        if error.status_code == 404:
            answer = HttpError(404, "not-found", f"nothing at {path}; see {urls.home()} for what this server offers")
        elif error.status_code == 405:
            allowed = (SPARQL_METHODS if path in (urls.SPARQL, "/update") else READ_METHODS) + ("OPTIONS",)
            answer = HttpError(405, "method-not-allowed",
                               f"{request.method} is not allowed on {path}: this server is read-only; "
                               "use GET (or POST to /sparql)", headers={"Allow": ", ".join(allowed)})
        else:
            answer = HttpError(error.status_code, "http-error", error.detail)
        return await http_error(request, answer)

    app = Starlette(
        routes=[
            Route(urls.SPARQL, routes.sparql, methods=list(SPARQL_METHODS)),
            Route("/update", routes.update, methods=list(SPARQL_METHODS)),
            Route(urls.HOME, routes.home, methods=list(READ_METHODS)),
            Route(urls.QUERY_EDITOR, routes.editor, methods=list(READ_METHODS)),
            Route(urls.VOID, routes.void, methods=list(READ_METHODS)),
            Route(urls.DUMPS + "/{name}", routes.dump, methods=list(READ_METHODS)),
            Route(urls.RELEASES + "/{version}/{name}", routes.release, methods=list(READ_METHODS)),
            Route(urls.STORE, routes.graph_store, methods=list(READ_METHODS)),
            Route(urls.QUERIES, routes.queries, methods=list(READ_METHODS)),
            Route(urls.QUERIES + "/{ref}", routes.canned, methods=list(READ_METHODS)),
            Route(urls.VOCAB, routes.vocab, methods=list(READ_METHODS)),
            Route(urls.LISTS, routes.lists, methods=list(READ_METHODS)),
            Route(urls.SEARCH, routes.search, methods=list(READ_METHODS)),
            Route(urls.CHARTS, routes.charts, methods=list(READ_METHODS)),
            Route(urls.COMPARE, routes.compare, methods=list(READ_METHODS)),
            Route(urls.COMPARE + ".{ext}", routes.compare, methods=list(READ_METHODS)),
            Route(urls.CONTRIBUTE, contribute.get, methods=list(READ_METHODS)),
            Route(urls.CONTRIBUTE, contribute.post, methods=["POST"]),
            Route(urls.SEARCH + ".json", routes.search, methods=list(READ_METHODS)),
            Route(urls.LISTS + "/top500/{edition}", routes.top500_list, methods=list(READ_METHODS)),
            Route(urls.STATISTICS, routes.statistics, methods=list(READ_METHODS)),
            Route(urls.STATISTICS + ".json", routes.statistics, methods=list(READ_METHODS)),
            Route(urls.STATISTICS + "/top500/{edition}", routes.edition_statistics, methods=list(READ_METHODS)),
            Route(urls.STATISTICS + "/{table}", routes.statistics_trend, methods=list(READ_METHODS)),
            Route(urls.STATISTICS + "/top500/{edition}/{table}", routes.edition_statistics,
                  methods=list(READ_METHODS)),
            Route(urls.LISTS + "/{name}", routes.named_list, methods=list(READ_METHODS)),
            Route("/id/{kind}/{ref}", routes.entity_id, methods=list(READ_METHODS)),
            Route("/page/{kind}/{ref}", routes.entity_page, methods=list(READ_METHODS)),
        ],
        # FollowBuilds first: the fast answers below are keyed by the store generation it may switch.
        # GZip outside everything that answers (files that carry their own Content-Encoding pass through);
        # PageCaching inside Cors, so its 304s carry the CORS headers too.
        middleware=[Middleware(NoSniff), Middleware(GZipMiddleware, minimum_size=1024, compresslevel=6),
                    Middleware(FollowBuilds, service=service),
                    Middleware(FastAnswers, service=service),
                    Middleware(HttpVersions),
                    Middleware(Cors, allow_origins=["*"], allow_methods=[*SPARQL_METHODS, "OPTIONS"],
                               allow_headers=["Accept", "Authorization", "Content-Type"],
                               expose_headers=EXPOSED.split(", "), max_age=86400),
                    Middleware(PageCaching, state=service.page_state)],
        exception_handlers={HttpError: http_error, HTTPException: starlette_error},
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.trusted = service.trusted
    return app
