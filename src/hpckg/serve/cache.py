"""A bounded cache of query answers, so a query asked again is answered without a worker round trip.

It cannot serve stale data: an answer is keyed by the query text, its dataset, the formats, the result cap
and the store generation the query ran at. The served store only changes through SPARQL Update on this
server, which bumps the generation (the worker processes reopen the store on the same signal), so after an
update every earlier answer misses. Queries whose answer can differ between two runs on the same data are
never cached: those calling RAND, NOW, UUID, STRUUID or BNODE(), and federated SERVICE queries. Only
successful answers are kept, each at most MAX_ENTRY bytes, least recently used first out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from hpckg.serve.workers import Answer, Job

MAX_ENTRY = 256 * 1024

Key = tuple


class AnswerCache:
    """Least-recently-used answers up to `capacity` bytes of bodies; thread-safe. Capacity 0 turns it off."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.size = 0
        self._entries: OrderedDict[Key, Answer] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    @staticmethod
    def key(job: Job, generation: int) -> Key:
        return (job.query, job.results_format, job.rdf_format, job.default_graphs, job.named_graphs,
                job.max_results, job.base_iri, generation)

    def get(self, key: Key) -> Answer | None:
        if self.capacity <= 0:
            return None
        with self._lock:
            answer = self._entries.get(key)
            if answer is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return answer

    def put(self, key: Key, answer: Answer) -> None:
        size = _weight(key, answer.body)  # the query text counts too: a text may be 1 MiB, its answer 50 bytes
        if answer.status != 200 or size > min(MAX_ENTRY, self.capacity):
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.size -= _weight(key, old.body)
            self._entries[key] = answer
            self.size += size
            while self.size > self.capacity:
                evicted_key, evicted = self._entries.popitem(last=False)
                self.size -= _weight(evicted_key, evicted.body)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.size = 0


class ResponseCache:
    """Whole responses to repeated GET /sparql requests, keyed by the request's query string, Accept and
    Host headers, each valid for the store generation it was made at: answered before the web framework
    runs (app.FastAnswers). Least recently used out past `capacity` bytes; thread-safe; 0 turns it off."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.size = 0
        self._entries: OrderedDict[Key, tuple[int, list[tuple[bytes, bytes]], bytes]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0

    def get(self, key: Key, generation: int) -> tuple[list[tuple[bytes, bytes]], bytes] | None:
        entry = self._entries.get(key)
        if entry is None or entry[0] != generation:
            return None
        with self._lock:
            self.hits += 1
            if key in self._entries:
                self._entries.move_to_end(key)
        return entry[1], entry[2]

    def put(self, key: Key, generation: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        size = _weight(key, body)
        if self.capacity <= 0 or size > min(MAX_ENTRY, self.capacity):
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.size -= _weight(key, old[2])
            self._entries[key] = (generation, headers, body)
            self.size += size
            while self.size > self.capacity:
                evicted_key, evicted = self._entries.popitem(last=False)
                self.size -= _weight(evicted_key, evicted[2])

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.size = 0


def _weight(key: Key, body: bytes) -> int:
    """What an entry costs: its body, its key's text (the query or query string) and some overhead."""
    return len(body) + len(key[0]) + 256
