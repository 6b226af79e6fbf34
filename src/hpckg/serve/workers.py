"""A pool of worker processes that run SPARQL queries, each with its own read-only store handle.

A query that exceeds the time limit cannot be interrupted inside Oxigraph, so its worker process is killed
and a fresh one started in the background; the other workers keep answering meanwhile. Results are
serialized in the worker, so the server process only moves bytes. The result cap is enforced while
iterating: at most max_results rows or triples are read, one more means the query is refused.
"""

from __future__ import annotations

import asyncio
import collections
import ctypes
import ctypes.util
import errno
import heapq
import itertools
import logging
import multiprocessing
import multiprocessing.connection
import os
import resource
import signal
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from hpckg.formats import RDF_FORMATS, RESULTS_FORMATS
from hpckg.namespaces import PREFIXES
from hpckg.querytext import syntax_problem
from hpckg.serve.sparql import (
    SERVICE_REFUSED,
    analyse,
    needs_parse,
    serialize_results,
    serialize_triples,
    solutions_json,
    used_prefixes,
)

logger = logging.getLogger(__name__)


@dataclass
class Job:
    """One query for a worker: its text, dataset, wanted formats and result cap."""

    query: str
    results_format: str = "json"
    rdf_format: str = "ttl"
    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()
    max_results: int = 10_000
    generation: int = 0
    base_iri: str | None = None
    # Whether the query is known to call no SERVICE (a lookup, by its form) or may (--allow-service); else
    # the worker parses it for SERVICE before running it: parsing is costly, so it runs here, in a process of
    # its own, single-threaded, under the query's time limit and charged to its client.
    service_checked: bool = False
    store_path: str = ""  # the store generation to read; set by the pool when the job is handed out


@dataclass
class Answer:
    """A worker's reply: the serialized body and its media type, or an error status, code and message."""

    body: bytes = b""
    media_type: str = ""
    form: str = ""  # "solutions", "boolean" or "triples"
    count: int = 0
    status: int = 200
    code: str = ""
    message: str = ""
    seconds: float = 0.0
    slow: bool = False  # the query ran in the slow lane (past the quick budget, or sent there)
    # How the server answered, for its Server-Timing header: "lookup" (in the server process, no worker),
    # "quick" or "slow" (a worker in that lane), "cache"; and the seconds it waited for a worker or slot.
    lane: str = ""
    waited: float = 0.0


class QueryTimeout(Exception):
    """A query ran past the time limit; its worker was killed."""


class PoolBusy(Exception):
    """No worker became free within the time limit."""


class SlowLaneFull(PoolBusy):
    """A query ran past the quick budget while every slow slot was taken; its worker was killed."""


class WorkerFailed(Exception):
    """A worker process died while running a query."""


class MemoryLimit(WorkerFailed):
    """A worker ran out of its memory limit while running a query (and died or gave up)."""


# ---- the walls around a worker: no network, bounded memory ---------------------------------------------

CLONE_NEWNET = 0x40000000
_SCMP_ACT_ALLOW = 0x7FFF0000
_SCMP_CMP_EQ = 4


class _ScmpArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def _deny_inet_sockets() -> bool:
    """A seccomp filter (libseccomp through ctypes): socket(AF_INET/AF_INET6, ...) fails with EACCES in this
    process and its threads from now on. Works unprivileged; False where libseccomp is missing."""
    name = ctypes.util.find_library("seccomp")
    if name is None:
        return False
    try:
        lib = ctypes.CDLL(name, use_errno=True)
        lib.seccomp_init.restype = ctypes.c_void_p
        lib.seccomp_init.argtypes = [ctypes.c_uint32]
        lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                               ctypes.POINTER(_ScmpArgCmp)]
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_load.argtypes = [ctypes.c_void_p]
        lib.seccomp_release.argtypes = [ctypes.c_void_p]
        ctx = lib.seccomp_init(_SCMP_ACT_ALLOW)
        if not ctx:
            return False
        try:
            deny = 0x00050000 | errno.EACCES  # SCMP_ACT_ERRNO(EACCES)
            ok = True
            for syscall in (b"socket", b"socketpair"):
                number = lib.seccomp_syscall_resolve_name(syscall)
                for family in (socket.AF_INET, socket.AF_INET6):
                    cmp = (_ScmpArgCmp * 1)(_ScmpArgCmp(0, _SCMP_CMP_EQ, family, 0))
                    ok = ok and lib.seccomp_rule_add_array(ctx, deny, number, 1, cmp) == 0
            return ok and lib.seccomp_load(ctx) == 0
        finally:
            lib.seccomp_release(ctx)
    except (OSError, AttributeError):
        return False


def _new_network_namespace() -> bool:
    """unshare(CLONE_NEWNET): this process gets a network namespace of its own with only a loopback
    interface, down, so nothing (not even 127.0.0.1) is reachable. Needs CAP_SYS_ADMIN; False elsewhere."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.unshare(CLONE_NEWNET) == 0
    except (OSError, AttributeError):
        return False


def isolate_network() -> list[str]:
    """Cut this process off the network, with every wall available; the names of those that held."""
    walls = []
    if _new_network_namespace():
        walls.append("network-namespace")
    if _deny_inet_sockets():
        walls.append("seccomp")
    return walls


def bound_memory(megabytes: int) -> bool:
    """Limit this process's address space (RLIMIT_AS): an allocation past it fails instead of growing."""
    if megabytes <= 0:
        return False
    limit = megabytes << 20
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        return True
    except (ValueError, OSError):
        return False


def run_job(store: ox.Store, job: Job) -> Answer:
    """Evaluate one job against a store (runs inside a worker process)."""
    kwargs: dict = {}
    if job.base_iri:
        kwargs["base_iri"] = job.base_iri
    prefixes = used_prefixes(job.query, PREFIXES)
    if prefixes:
        kwargs["prefixes"] = prefixes
    if job.default_graphs:
        kwargs["default_graph"] = [ox.NamedNode(g) for g in job.default_graphs]
    else:
        kwargs["use_default_graph_as_union"] = True
    if job.named_graphs:
        kwargs["named_graphs"] = [ox.NamedNode(g) for g in job.named_graphs]
    if not job.service_checked and needs_parse(job.query):
        # rdflib's grammar loads on a worker's first such query (~0.3 s), not at its start: workers stopped
        # past the quick budget are respawned often, and lookups wait for them.
        analysis = analyse(job.query)
        if not analysis.parsed:
            return Answer(status=400, code="query-syntax",
                          message=f"the query could not be parsed to check it for SERVICE clauses: {analysis.error}")
        if analysis.service:
            return Answer(status=403, code="service-refused", message=SERVICE_REFUSED)
    try:
        result = store.query(job.query, **kwargs)
        limit = job.max_results
        if isinstance(result, ox.QueryBoolean):
            fmt = RESULTS_FORMATS[job.results_format]
            body = serialize_results({"head": {}, "boolean": bool(result)}, fmt)
            return Answer(body, fmt.media_type, "boolean", 1)
        if isinstance(result, ox.QuerySolutions):
            variables = [v.value for v in result.variables]
            rows = []
            for row in result:
                rows.append(row)
                if len(rows) > limit:
                    return _too_many(limit, "rows")
            fmt = RESULTS_FORMATS[job.results_format]
            return Answer(serialize_results(solutions_json(variables, rows), fmt), fmt.media_type,
                          "solutions", len(rows))
        triples = []
        for triple in result:
            triples.append(triple)
            if len(triples) > limit:
                return _too_many(limit, "triples")
        rdf = RDF_FORMATS[job.rdf_format]
        return Answer(serialize_triples(triples, rdf), rdf.media_type, "triples", len(triples))
    except SyntaxError as error:
        problem = syntax_problem(job.query, str(error))
        return Answer(status=400, code="query-syntax", message=str(problem) if problem
                      else f"SPARQL syntax error: {error}")
    except MemoryError:
        return Answer(status=503, code="memory-limit", message=MEMORY_MESSAGE)
    except (OSError, ValueError, RuntimeError) as error:
        # Said to the log, not the client: the text may name files, addresses or the sandbox's refusals.
        logger.warning("a query failed in a worker: %s: %.200s", error, job.query)
        return Answer(status=500, code="query-failed", message=QUERY_FAILED)


def _too_many(limit: int, what: str) -> Answer:
    return Answer(status=400, code="result-limit",
                  message=f"the query returns more than {limit:,} {what}, this server's --max-results; "
                          f"add a LIMIT of at most {limit} (and OFFSET to page) or narrow the query")


QUERY_FAILED = ("the query failed while it ran (the server's log says why); if it calls SERVICE or reads files, "
                "this server refuses that")
MEMORY_MESSAGE = ("the query needed more memory than this server's per-query limit and was stopped; narrow it "
                  "(fewer cross joins, more specific patterns, a LIMIT) and try again")


def worker_main(conn: multiprocessing.connection.Connection, store_path: str, allow_network: bool = False,
                memory_mb: int = 0) -> None:
    """A worker process: cut it off the network (unless allowed), bound its memory, open the store
    read-only, then answer jobs until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server stops its workers itself
    walls = [] if allow_network else isolate_network()
    store = reopen(store_path)  # a writable server store may be compacting while the workers start
    if bound_memory(memory_mb):  # after opening: the store's own mappings are not a query's memory
        walls.append(f"memory {memory_mb} MiB")
    generation = 0
    conn.send(("ready", walls))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        if job.generation != generation:  # the store was updated or a new build was switched to
            del store
            store_path = job.store_path or store_path
            store, generation = reopen(store_path), job.generation
        conn.send(run_job(store, job))


def reopen(store_path: str, attempts: int = 40) -> ox.Store:
    """Open the store read-only again after an update. The writer may be compacting (replacing files the
    manifest names) at that moment, so a failed open is retried briefly. A URL is a SPARQL server's query
    URL: queries are forwarded to it (hpckg.serve.remote)."""
    from hpckg.project import is_server_url
    from hpckg.serve.remote import ServerQueries

    if is_server_url(store_path):
        return ServerQueries(store_path)  # type: ignore[return-value]
    for attempt in range(attempts):
        try:
            return ox.Store.read_only(store_path)
        except (OSError, RuntimeError):
            if attempt == attempts - 1:
                raise
            time.sleep(0.05)
    raise AssertionError("unreachable")


class _Worker:
    def __init__(self, context, store_path: str, allow_network: bool = False, memory_mb: int = 0):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=worker_main, args=(child, store_path, allow_network, memory_mb),
                                       daemon=True, name="hpckg-query-worker")
        self.process.start()
        child.close()
        self.walls: list[str] = []

    def wait_ready(self, timeout: float = 60.0) -> bool:
        try:
            if not self.conn.poll(timeout):
                return False
            message = self.conn.recv()
        except (EOFError, OSError):
            return False
        if isinstance(message, tuple) and message[0] == "ready":
            self.walls = list(message[1])
            return True
        return False

    def died_of_memory(self) -> bool:
        """Whether the (dead) process ended as an allocation failure ends it: Rust aborts (SIGABRT)."""
        self.process.join(2)
        return self.process.exitcode in (-signal.SIGABRT, -signal.SIGKILL)  # (SIGKILL: the kernel OOM killer)

    def kill(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.conn.close()


class _Waiter:
    """A caller waiting for an idle worker: a thread (event) or a coroutine (future on its loop)."""

    __slots__ = ("event", "loop", "future", "worker")

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None):
        self.worker: _Worker | None = None
        self.loop = loop
        self.future = loop.create_future() if loop is not None else None
        self.event = threading.Event() if loop is None else None

    def hand(self, worker: _Worker) -> None:
        self.worker = worker
        if self.event is not None:
            self.event.set()
            return
        try:
            same_loop = asyncio.get_running_loop() is self.loop
        except RuntimeError:
            same_loop = False
        if same_loop:
            _resolve(self.future)
        else:
            self.loop.call_soon_threadsafe(_resolve, self.future)


def _resolve(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


def _expire(future: asyncio.Future) -> None:
    if not future.done():
        future.set_exception(TimeoutError())


class _Idle:
    """The idle workers, handed to threads and coroutines alike in order of priority (lower first), then of
    arrival: a coroutine waits for a worker on its event loop, without holding a thread."""

    def __init__(self):
        self._workers: collections.deque[_Worker] = collections.deque()
        self._waiters: list[tuple[float, int, _Waiter]] = []  # a heap: (priority, arrival, waiter)
        self._arrivals = itertools.count()
        self._lock = threading.Lock()

    def put(self, worker: _Worker) -> None:
        with self._lock:
            if self._waiters:
                heapq.heappop(self._waiters)[2].hand(worker)
            else:
                self._workers.append(worker)

    def get_nowait(self) -> _Worker | None:
        with self._lock:
            return self._workers.popleft() if self._workers else None

    def _wait(self, waiter: _Waiter, priority: float) -> None:
        heapq.heappush(self._waiters, (priority, next(self._arrivals), waiter))

    def get(self, timeout: float, priority: float = 0.0) -> _Worker | None:
        """An idle worker within timeout seconds (blocking the calling thread), else None."""
        with self._lock:
            if self._workers:
                return self._workers.popleft()
            waiter = _Waiter()
            self._wait(waiter, priority)
        waiter.event.wait(timeout)
        return self._settle(waiter)

    async def get_async(self, timeout: float, priority: float = 0.0) -> _Worker | None:
        """An idle worker within timeout seconds (awaited on the running loop), else None."""
        with self._lock:
            if self._workers:
                return self._workers.popleft()
            waiter = _Waiter(asyncio.get_running_loop())
            self._wait(waiter, priority)
        try:
            await asyncio.wait_for(asyncio.shield(waiter.future), timeout)
        except TimeoutError:
            pass
        except BaseException:  # cancelled: pass on a worker handed meanwhile
            worker = self._settle(waiter)
            if worker is not None:
                self.put(worker)
            raise
        return self._settle(waiter)

    def _settle(self, waiter: _Waiter) -> _Worker | None:
        """The worker handed to a waiter that stops waiting, or None (and it stops being a waiter)."""
        with self._lock:
            if waiter.worker is None:
                self._waiters = [entry for entry in self._waiters if entry[2] is not waiter]
                heapq.heapify(self._waiters)
            return waiter.worker


QUICK_BUDGET = 0.5  # seconds a query may run before it needs a slow slot


class _Slots:
    """A count of places (slow slots, trial slots) taken without blocking: `take` says whether one was free."""

    def __init__(self, size: int):
        self.size = size
        self.taken = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self.taken < self.size:
                self.taken += 1
                return True
            return False

    def give(self) -> None:
        with self._lock:
            self.taken -= 1


class _Lane:
    """The places one job holds while it runs: a slow slot, and a trial slot while it is on trial."""

    __slots__ = ("slow", "trial")

    def __init__(self):
        self.slow = self.trial = False


class WorkerPool:
    """`size` worker processes over the store at `store_path`; `run` gives a job to a free one.

    Two lanes keep cheap queries flowing while expensive ones run: a query that runs past `quick_budget`
    seconds must take one of `slow_slots` slow slots (fewer than the workers) to go on, else it is stopped
    (SlowLaneFull), so at least size - slow_slots workers are always free of slow queries. A job sent with
    slow=True (its text ran slowly before) waits for a slow slot before it takes a worker at all.

    A job sent with a `trial` (the service gives one to clients whose queries ran slowly lately) may run that
    long, less than the quick budget, before it must move lanes, and needs one of the few trial slots (half the
    quick workers) to take a worker: a stream of new slow texts from such clients can stop and restart only
    those workers, never all of the quick lane. Callers waiting for a worker are served by `priority` (lower
    first: the service passes its client's recent query seconds), then by arrival.
    """

    def __init__(self, store_path: Path | str, *, size: int = 2, allow_network: bool = False,
                 memory_mb: int = 0, slow_slots: int | None = None, quick_budget: float = QUICK_BUDGET,
                 spare: bool = False):
        self.store_path = str(store_path)
        self.size = size
        self.slow_slots = max(1, size // 2) if slow_slots is None else slow_slots
        self.quick_budget = quick_budget
        self._slow = _Slots(self.slow_slots)
        self._trials = _Slots(max(1, (size - self.slow_slots) // 2))
        self.allow_network = allow_network
        self.memory_mb = memory_mb
        self.walls: list[str] = []
        self.generation = 0
        self._context = multiprocessing.get_context("spawn")
        self._idle = _Idle()
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        # A spare: a worker ready to take a stopped one's place at once (the successor starts meanwhile, about
        # a quarter of a second), so that stopping a query does not leave the quick lane a worker short.
        self._spare: _Worker | None = None
        workers = [self._start() for _ in range(size)]
        for worker in workers:
            if not worker.wait_ready():
                self.close()
                raise RuntimeError(f"a query worker could not open the store at {self.store_path}")
            self.walls = worker.walls
            self._idle.put(worker)
        if not allow_network and not any(w in self.walls for w in ("network-namespace", "seccomp")):
            logger.warning("the query workers could not be cut off the network (no network namespace, no "
                           "seccomp): SERVICE and LOAD are refused by parsing only")
        if spare:
            self._respawn(spare=True)

    def switch(self, store_path: Path | str) -> None:
        """Read another store generation from the next job on: every job handed out after this call
        carries the new path and generation, and each worker reopens before running it, so no answer after
        the switch comes from the old generation."""
        with self._lock:
            self.store_path = str(store_path)
            self.generation += 1

    def _start(self) -> _Worker:
        worker = _Worker(self._context, self.store_path, self.allow_network, self.memory_mb)
        with self._lock:
            self._all.add(worker)
        return worker

    def _replace(self, worker: _Worker, then=None) -> None:
        """Kill a worker, put the spare in its place if there is one, and start a successor in the background
        (the new spare, or the worker itself); `then()` once the successor is ready."""
        with self._lock:
            self._all.discard(worker)
            spare, self._spare = self._spare, None
        worker.kill()
        if spare is not None:
            self._idle.put(spare)
        self._respawn(spare=spare is not None, then=then)

    def _respawn(self, *, spare: bool, then=None) -> None:
        def respawn() -> None:
            try:
                if self._closed:
                    return
                fresh = self._start()
                if not fresh.wait_ready():
                    return
                with self._lock:
                    if spare and not self._closed:
                        self._spare, fresh = fresh, None
                if fresh is not None:
                    self._idle.put(fresh)
            finally:
                if then is not None:
                    then()

        threading.Thread(target=respawn, daemon=True, name="hpckg-respawn").start()

    # ---- lanes: slow slots and trial slots ----

    def _admit(self, lane: _Lane, slow: bool, trial: float | None) -> bool:
        """Take the slot a job needs before it may take a worker; False when none is free yet."""
        if slow:
            lane.slow = self._slow.take()
            return lane.slow
        if trial is not None:
            lane.trial = self._trials.take()
            return lane.trial
        return True

    def _not_admitted(self, slow: bool, timeout: float) -> PoolBusy:
        if slow:
            return PoolBusy(f"all {self.slow_slots} slots for slow queries stayed taken for {timeout:g} s (this "
                            "query ran slowly before)")
        return PoolBusy(f"the {self._trials.size} quick workers open to clients whose queries ran slowly lately "
                        f"stayed busy for {timeout:g} s")

    def _move(self, lane: _Lane) -> bool:
        """A job past its quick budget or trial takes a slow slot (giving back its trial slot) to go on."""
        if not self._slow.take():
            return False
        lane.slow = True
        if lane.trial:
            lane.trial = False
            self._trials.give()
        return True

    def _stop(self, worker: _Worker, lane: _Lane) -> None:
        """Kill the worker of a job stopped mid-run. A job on trial keeps its trial slot until the successor
        is ready: else the next trial would take the quick worker still free while this one restarts."""
        if lane.trial:
            lane.trial = False
            self._replace(worker, then=self._trials.give)
        else:
            self._replace(worker)

    def _release(self, lane: _Lane) -> None:
        if lane.slow:
            lane.slow = False
            self._slow.give()
        if lane.trial:
            lane.trial = False
            self._trials.give()

    def _slow_lane_full(self) -> SlowLaneFull:
        return SlowLaneFull(f"the query ran past {self.quick_budget:g} s while all {self.slow_slots} slots for "
                            "slow queries were taken, and was stopped so that quick queries keep being "
                            "answered; retry later or narrow it")

    def _timed_out(self, timeout: float) -> QueryTimeout:
        return QueryTimeout(f"the query ran longer than the time limit of {timeout:g} s and was stopped; narrow "
                            "it (more specific patterns, a LIMIT) and try again")

    def _trial(self, trial: float | None) -> float:
        return self.quick_budget if trial is None else min(trial, self.quick_budget)

    def run(self, job: Job, *, timeout: float, slow: bool = False, trial: float | None = None,
            priority: float = 0.0) -> Answer:
        """Run a job on a free worker within `timeout` seconds (waiting for a free worker included)."""
        start = time.monotonic()
        deadline = start + timeout
        lane = _Lane()
        while not self._admit(lane, slow, trial):
            if time.monotonic() > deadline:
                raise self._not_admitted(slow, timeout)
            time.sleep(0.05)
        try:
            worker = self._idle.get(max(0.0, deadline - time.monotonic()), priority)
            if worker is None:
                raise PoolBusy(f"all {self.size} query workers stayed busy for {timeout:g} s")
            waited = time.monotonic() - start
            job.generation, job.store_path = self.generation, self.store_path
            moved = False
            try:
                worker.conn.send(job)
                limit = deadline if lane.slow else min(deadline, time.monotonic() + self._trial(trial))
                while not worker.conn.poll(max(0.01, limit - time.monotonic())):
                    if limit >= deadline:
                        self._stop(worker, lane)
                        raise self._timed_out(timeout)
                    if not self._move(lane):
                        self._stop(worker, lane)
                        raise self._slow_lane_full()
                    moved = True
                    limit = deadline
                answer: Answer = worker.conn.recv()
            except (EOFError, OSError) as error:
                self._failed(worker, error)
            self._idle.put(worker)
        finally:
            self._release(lane)
        answer.seconds = time.monotonic() - start
        answer.slow = slow or moved
        answer.lane, answer.waited = ("slow" if answer.slow else "quick"), waited
        return answer

    def _failed(self, worker: _Worker, error: BaseException):
        """A worker died mid-query: replace it and raise what it died of."""
        memory = self.memory_mb > 0 and worker.died_of_memory()
        self._replace(worker)
        if memory:
            raise MemoryLimit(MEMORY_MESSAGE) from None
        logger.error("a query worker died: %s", error)
        raise WorkerFailed("the query worker running this query died; the server started another") from None

    async def run_async(self, job: Job, *, timeout: float, slow: bool = False, trial: float | None = None,
                        priority: float = 0.0) -> Answer:
        """`run` for an event loop, without blocking it or holding a thread: a free worker is awaited on
        the loop, then the answer as the worker's pipe turning readable."""
        start = time.monotonic()
        deadline = start + timeout
        lane = _Lane()
        while not self._admit(lane, slow, trial):
            if time.monotonic() > deadline:
                raise self._not_admitted(slow, timeout)
            await asyncio.sleep(0.05)
        try:
            answer = await self._run_on_worker(job, timeout, start, lane, self._trial(trial), priority)
        finally:
            self._release(lane)
        answer.seconds = time.monotonic() - start
        answer.slow = slow or answer.slow
        answer.lane = "slow" if answer.slow else "quick"
        return answer

    async def _run_on_worker(self, job: Job, timeout: float, start: float, lane: _Lane, trial: float,
                             priority: float) -> Answer:
        deadline = start + timeout
        worker = await self._idle.get_async(max(0.0, deadline - time.monotonic()), priority)
        if worker is None:
            raise PoolBusy(f"all {self.size} query workers stayed busy for {timeout:g} s")
        waited = time.monotonic() - start
        job.generation, job.store_path = self.generation, self.store_path
        loop = asyncio.get_running_loop()
        fd = worker.conn.fileno()
        moved = False
        try:
            worker.conn.send(job)
            limit = deadline if lane.slow else min(deadline, time.monotonic() + trial)
            while True:
                readable = loop.create_future()
                loop.add_reader(fd, _resolve, readable)
                # A timer that fails the future, rather than asyncio.wait_for and its extra future and callbacks.
                timer = loop.call_later(max(0.01, limit - time.monotonic()), _expire, readable)
                try:
                    await readable
                    break
                except TimeoutError:
                    if limit >= deadline:
                        raise
                    if not self._move(lane):
                        raise self._slow_lane_full() from None
                    moved = True
                    limit = deadline
                finally:
                    timer.cancel()
                    loop.remove_reader(fd)
                    os.set_blocking(fd, True)  # uvloop's add_reader made it non-blocking; recv needs it blocking
            # The worker sends its whole answer at once, serialized before sending: reading it is copying.
            answer: Answer = worker.conn.recv()
            answer.slow, answer.waited = moved, waited
        except TimeoutError:
            self._stop(worker, lane)
            raise self._timed_out(timeout) from None
        except SlowLaneFull:
            self._stop(worker, lane)
            raise
        except (EOFError, OSError) as error:
            await asyncio.get_running_loop().run_in_executor(None, worker.process.join, 2)
            self._failed(worker, error)
        except BaseException:  # cancelled (shutdown): the worker may still be busy with the job
            self._stop(worker, lane)
            raise
        self._idle.put(worker)
        return answer

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers, self._all = list(self._all), set()
        for worker in workers:
            try:
                worker.conn.send(None)
            except OSError:
                pass
            worker.kill()


class BackgroundWorker:
    """One query worker for what is computed ahead of visitors (the canned queries' answers at their defaults,
    in a build or a server's background), started on first use: such a query runs behind the walls a visitor's
    has (no network, the time limit, the memory bound, the result cap), so what is kept is what a visitor would
    have been answered. Without it, claims-below-tier ran for 82 s in the server's page process on the full
    graph and kept a 199 MB answer that the endpoint refuses (over --max-results)."""

    def __init__(self, store_path: Path | str, *, timeout: float, max_results: int, allow_network: bool = False,
                 memory_mb: int = 0, size: int = 1):
        self.store_path = str(store_path)
        self.size = size  # queries run at once: 1 in a server's background (its visitors come first), more in a build
        self.timeout, self.max_results = timeout, max_results
        self.allow_network, self.memory_mb = allow_network, memory_mb
        self._pool: WorkerPool | None = None
        self._lock = threading.Lock()

    def run(self, job: Job) -> Answer:
        """The job's answer (a refusal is an Answer with its status); QueryTimeout, WorkerFailed as the pool's."""
        with self._lock:
            if self._pool is None:
                self._pool = WorkerPool(self.store_path, size=self.size, slow_slots=self.size,
                                        allow_network=self.allow_network, memory_mb=self.memory_mb)
            pool = self._pool
        job.max_results = self.max_results
        return pool.run(job, timeout=self.timeout, slow=True)

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
