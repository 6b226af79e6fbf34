"""The SPARQL service behind the routes: settings, rate limits, the worker pool and its lanes, the page store,
the answer caches, updates, and the store generation being served. Blocking; no HTTP here (hpckg.serve.endpoint and
hpckg.serve.pages route requests to it, hpckg.serve.middleware answers repeated ones before Starlette runs)."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import ipaddress
import logging
import math
import re
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from hpckg.errors import HpckgError, StoreError
from hpckg.namespaces import BASE
from hpckg.project import Project, is_server_url
from hpckg.publish.settings import publisher_settings
from hpckg.query import CannedQuery, canned_queries
from hpckg.serve import diskcache
from hpckg.serve.cache import AnswerCache, ResponseCache
from hpckg.serve.precompute import AS_IS, Prepared, canned_answer_key
from hpckg.serve.publication import Publication
from hpckg.serve.remote import FOLLOW_SECONDS
from hpckg.serve.responses import (
    HttpError,
)
from hpckg.serve.sparql import (
    MAX_NESTING,
    QueryRequest,
    analyse,
    deterministic,
    escape_problem,
    is_lookup,
    needs_parse,
    nesting,
)
from hpckg.serve.updates import UpdateFailed, UpdateRunner, apply, with_using
from hpckg.serve.views import Views
from hpckg.serve.workers import (
    QUICK_BUDGET,
    Answer,
    BackgroundWorker,
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

STRIKES = 2  # workers a client may lose (crash, memory) within STRIKE_SECONDS before it is refused
STRIKE_SECONDS = 60.0  # short: behind a proxy without --trusted-proxy one address is every client
SLOW_TEXTS = 4096  # query texts (and clients) remembered as slow
SLOW_CLIENT_SECONDS = 60.0  # a client whose query ran slowly gets the shorter trial this long
# Seconds a query of such a client may run on a quick worker before it must take a slow slot. Not the slow lane
# itself: its quick queries (lookups take milliseconds) are still answered at once; but a client sending ever
# new slow texts (which the text memory cannot know) holds a quick worker a tenth as long per query. With two
# workers (one quick), quick queries of others then wait up to this long under such clients, not 0.5 s.
SLOW_CLIENT_TRIAL = QUICK_BUDGET / 10
COST_HALF_LIFE = 30.0  # seconds: how fast a client's past query time stops counting against its place in line


def background_worker(settings: Settings, generation: Path | str, size: int = 1) -> BackgroundWorker:
    """The worker(s) a generation's canned answers are computed on ahead of visitors, with their walls."""
    return BackgroundWorker(generation, timeout=settings.timeout, max_results=settings.max_results,
                            allow_network=settings.allow_service or is_server_url(settings.store_path),
                            memory_mb=settings.query_memory_mb, size=size)


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


class RecentCost:
    """Each client's recent query seconds, decaying by half every COST_HALF_LIFE seconds: the order in which
    clients waiting for a worker get one (fair queueing: who used little goes first), whatever the rate limit."""

    def __init__(self, half_life: float = COST_HALF_LIFE):
        self.half_life = half_life
        self._spent: dict[str, tuple[float, float]] = {}  # client: (seconds, when)
        self._lock = threading.Lock()

    def _decayed(self, client: str, now: float) -> float:
        seconds, then = self._spent.get(client, (0.0, now))
        return seconds * 0.5 ** ((now - then) / self.half_life)

    def add(self, client: str, seconds: float) -> None:
        now = time.monotonic()
        with self._lock:
            self._spent[client] = (self._decayed(client, now) + max(seconds, 0.0), now)
            if len(self._spent) > 10_000:  # forget the clients whose time no longer counts
                self._spent = {c: entry for c, entry in self._spent.items() if self._decayed(c, now) > 0.01}

    def of(self, client: str) -> float:
        with self._lock:
            return self._decayed(client, time.monotonic())


class Service:
    """What the routes work with: settings, the worker pool, the page store and views. Blocking."""

    def __init__(self, settings: Settings):
        self.settings = settings
        # The store path names one generation of the store at a time (hpckg build switches it atomically);
        # everything here reads the generation it resolved, and refresh() moves to a newer one as a whole.
        self.remote = is_server_url(settings.store_path)  # a SPARQL server's query URL (hpckg.serve.remote)
        self.generation_path = settings.store_path if self.remote else current_generation(settings.store_path)
        self.store = self._open(self.generation_path)
        # A RemoteStore reads the server's generation live on every call: the one being served is kept here.
        self.served_generation = self.store.generation() if self.remote else 0
        self._followed_at = time.monotonic()
        self._switch_lock = threading.Lock()
        store_path = Path(settings.store_path)
        self.publication = Publication(publisher_settings(settings.project.publisher),
                                       settings.dumps_dir or store_path.with_name(store_path.name + ".dumps"),
                                       settings.releases_dir)
        try:
            self.views = Views(self.store, settings.base_iri)
            self.pool = WorkerPool(self.generation_path, size=settings.workers, slow_slots=settings.slow_slots,
                                   allow_network=settings.allow_service or self.remote,
                                   memory_mb=settings.query_memory_mb, spare=True)
            self.prepared = self._prepare(self.views, self.generation_path)
        except BaseException:
            if hasattr(self, "pool"):
                self.pool.close()
            self._close_store()
            raise
        self.limiter = RateLimiter(settings.rate_limit)
        self.trusted = tuple(ipaddress.ip_network(proxy, strict=False) for proxy in settings.trusted_proxies)
        self.cache = AnswerCache(settings.cache_bytes)
        self.responses = ResponseCache(min(settings.cache_bytes, 16 << 20))
        self.update_lock = threading.Lock()
        # Updates run on a thread of their own without network (hpckg.serve.updates); a store that is a
        # SPARQL server is reached over the network, so its updates cannot be walled that way.
        self.updates = UpdateRunner(allow_network=settings.allow_service or self.remote)
        self._closed = False
        # Query texts that ran slowly wait for a slow slot before they take a worker; clients whose queries ran
        # slowly lately get a shorter trial on a quick worker (a query is judged by what it costs as it runs).
        self.costs = RecentCost()
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

    def known_slow(self, query: str) -> bool:
        """Whether this text ran past the quick budget before: it then waits for a slow slot at once."""
        digest = hashlib.sha256(query.encode("utf-8", "surrogatepass")).digest()
        with self._slow_lock:
            return digest in self._slow_texts

    def lane(self, client: str, query: str) -> dict:
        """How the pool schedules a client's query: a known slow text waits for a slow slot; a client whose
        query ran slowly lately gets the shorter trial (SLOW_CLIENT_TRIAL) before its query must move lanes; among
        callers waiting for a worker, the client with fewer recent query seconds goes first."""
        with self._slow_lock:
            until = self._slow_clients.get(client)
            if until is not None and until < time.monotonic():
                del self._slow_clients[client]
                until = None
        return {"slow": self.known_slow(query), "trial": SLOW_CLIENT_TRIAL if until is not None else None,
                "priority": self.costs.of(client)}

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

    def _prepare(self, views: Views, generation: Path | str) -> Prepared:
        """This generation's precomputed figures, started in the background (the server answers meanwhile);
        those a build made are read from disk (hpckg.serve.prepare)."""
        folder = diskcache.pages_folder(self.settings.project, self.settings.store_path)
        disk = diskcache.for_generation(folder, views.store.generation_id(), views.base_iri,
                                        writable=self.settings.update_token is not None, project=self.settings.project)
        # Its figures are keyed by the updates applied to this generation (0 until one is: only then are they
        # kept on disk), not by the pool's generation, which counts the builds followed too: keyed by that, a
        # server that had followed a build neither read the build's figures nor kept its own.
        self.updates_applied = 0
        prepared = Prepared(views, lambda: self.updates_applied, self.settings.project, disk, self.publication,
                            generation, background_worker(self.settings, generation))
        # The indexes a build kept are read before this generation is served: at start, before the first
        # request; at a switch, by the request that finds the new build (once per build, about a second).
        prepared.load_kept()
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
            self.store, self.views, self.prepared = fresh, views, self._prepare(views, self.settings.store_path)
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
            self.store, self.views, self.prepared = store, views, self._prepare(views, latest)
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
        refused = prepared.refusal(name)
        if refused is not None:  # computed ahead and refused: said at once, not after the time limit again
            raise HttpError(refused.status, refused.code, refused.message)

        def run() -> list[str]:
            answer = self.run(client, Job(text, fmt, "ttl"))
            return [answer.media_type, answer.form, answer.body.decode("utf-8")]
        media_type, form, body = prepared.get(canned_answer_key(name, fmt), run, disk=AS_IS)  # type: ignore[misc]
        return Answer(body.encode("utf-8"), media_type, form, lane="cache")

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
            answer = self.pool.run(job, timeout=self.settings.timeout, **self.lane(client, job.query))
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
            answer = await self.pool.run_async(job, timeout=self.settings.timeout, **self.lane(client, job.query))
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
            self.costs.add(client, time.monotonic() - started - waited[0])

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
            self.updates_applied += 1
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
