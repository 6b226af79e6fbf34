"""`hpckg verify`: fetch every cited source, read it, look for what its claims say, record each check.

What to look for comes from the claims that cite a source (prov:hadPrimarySource): the systems they are
about (or whose components they are about) with their labels and aliases, the part models claimed from
that source for those systems, and the counts claimed from it (hpc:quantity, hpc:nodeCount). One fetch of
a source gives one check per system it is cited for, each written at once as its own graph file, so a run
stopped halfway keeps every check it finished.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pyoxigraph as ox

from hpckg.claims import iri_ref, slug_of
from hpckg.errors import InputError
from hpckg.namespaces import entity, hpc
from hpckg.project import Project
from hpckg.verify.extract import TextCache
from hpckg.verify.fetch import Fetcher, FetchOptions
from hpckg.verify.match import Wanted, find, name_variants, part_variants
from hpckg.verify.record import CheckRecord, PastCheck, history

if TYPE_CHECKING:
    from hpckg.store import GraphStore

COUNT_PROPERTIES = (hpc("quantity"), hpc("nodeCount"))
PASSING = ("names-system-part-count", "names-system-part", "names-system")


@dataclass
class Target:
    """One source to fetch and, for each system it is cited for, what to look for."""

    source: str
    url: str | None
    systems: dict[str, Wanted] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # system IRI -> its label


def source_url(url: str | None, arxiv_id: str | None) -> str | None:
    if url:
        return url
    if arxiv_id:
        return f"https://arxiv.org/abs/{arxiv_id.strip()}"
    return None


def system_iri(store: GraphStore, ref: str) -> str:
    """A system's IRI from its IRI or slug; an unknown system is an input error."""
    iri = ref if ref.startswith(("http://", "https://")) else entity("system", ref)
    if not store.query(f"ASK {{ {iri_ref(iri)} a hpc:System }}"):
        raise InputError(f"no system {ref!r} in the store; give a system's slug (kalos) or IRI, and build first")
    return iri


def read_targets(store: GraphStore, *, system: str | None = None) -> list[Target]:
    """The sources cited by claims about systems (and their components), with what to look for in each."""
    only = f"VALUES ?system {{ {iri_ref(system)} }}" if system else ""
    rows = store.query(f"""
        SELECT DISTINCT ?source ?url ?arxiv ?system ?property ?value WHERE {{
          {only}
          ?claim a hpc:Claim ; prov:hadPrimarySource ?source ; hpc:about ?about ; hpc:property ?property .
          FILTER NOT EXISTS {{ ?claim a hpc:DerivedClaim }}
          ?about hpc:componentOf? ?system . ?system a hpc:System .
          OPTIONAL {{ ?source schema:url ?url }} OPTIONAL {{ ?source hpc:arxivId ?arxiv }}
          OPTIONAL {{ ?claim hpc:value ?value
                      FILTER (?property IN (hpc:partModel, hpc:quantity, hpc:nodeCount)) }}
        }}""")
    targets: dict[str, Target] = {}
    parts: dict[tuple[str, str], set[str]] = {}
    counts: dict[tuple[str, str], set[int]] = {}
    for row in rows:
        source, system_ = row["source"].value, row["system"].value
        url = row["url"].value if row["url"] is not None else None
        arxiv = row["arxiv"].value if row["arxiv"] is not None else None
        target = targets.setdefault(source, Target(source, source_url(url, arxiv)))
        target.systems.setdefault(system_, Wanted(names=[]))
        value, prop = row["value"], row["property"].value
        if value is None:
            continue
        if prop == hpc("partModel") and isinstance(value, ox.NamedNode):
            parts.setdefault((source, system_), set()).add(value.value)
        elif prop in COUNT_PROPERTIES:
            try:
                number = int(value.value)
            except ValueError:
                continue
            if number >= 2:
                counts.setdefault((source, system_), set()).add(number)
    names = _names(store, {s for target in targets.values() for s in target.systems}
                   | {p for found in parts.values() for p in found})
    for target in targets.values():
        for system_, wanted in target.systems.items():
            label, alts = names.get(system_, (slug_of(system_), []))
            wanted.names = name_variants(label, alts)
            target.labels[system_] = label
            for part in sorted(parts.get((target.source, system_), ())):
                part_label, part_alts = names.get(part, (slug_of(part), []))
                wanted.parts[part_label] = part_variants(part_label, part_alts)
            wanted.counts = sorted(counts.get((target.source, system_), ()))
    return sorted(targets.values(), key=lambda target: target.source)


def _names(store: GraphStore, iris: Iterable[str]) -> dict[str, tuple[str, list[str]]]:
    """Each IRI's English (or untagged) rdfs:label and its skos:altLabels."""
    found: dict[str, tuple[str, list[str]]] = {}
    iris = sorted(iris)
    for start in range(0, len(iris), 500):
        batch = " ".join(iri_ref(i) for i in iris[start:start + 500])
        rows = store.query(f"""
            SELECT ?s ?label ?alt WHERE {{
              VALUES ?s {{ {batch} }}
              {{ ?s rdfs:label ?label FILTER (lang(?label) = "" || langMatches(lang(?label), "en")) }}
              UNION {{ ?s skos:altLabel ?alt }}
            }} ORDER BY ?s ?label ?alt""")
        for row in rows:
            label, alts = found.get(row["s"].value, ("", []))
            if row["label"] is not None and not label:
                label = row["label"].value
            if row["alt"] is not None and row["alt"].value not in alts:
                alts = [*alts, row["alt"].value]
            found[row["s"].value] = (label, alts)
    return {iri: (label or (alts[0] if alts else slug_of(iri)), alts) for iri, (label, alts) in found.items()}


# --- The run --------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """One check made (or, with no URL, a source that could not be checked)."""

    source: str
    system: str
    system_label: str
    url: str | None
    result: str
    status: int | None = None
    changed: bool | None = None
    detail: str | None = None
    check: str | None = None

    @property
    def passes(self) -> bool:
        return self.result in PASSING


@dataclass
class VerifyReport:
    outcomes: list[Outcome] = field(default_factory=list)
    skipped_recent: int = 0
    without_url: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def results(self) -> Counter:
        return Counter(o.result for o in self.outcomes)

    @property
    def sources(self) -> int:
        return len({o.source for o in self.outcomes})

    @property
    def changed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.changed]

    def to_json(self) -> dict:
        return {"checks": len(self.outcomes), "sources": self.sources, "seconds": round(self.seconds, 3),
                "skipped_recently_checked": self.skipped_recent, "sources_without_url": self.without_url,
                "results": dict(sorted(self.results.items())),
                "changed": [o.check for o in self.changed],
                "outcomes": [{"source": o.source, "system": o.system, "url": o.url, "result": o.result,
                              "status": o.status, "changed": o.changed, "detail": o.detail, "check": o.check}
                             for o in self.outcomes]}


Progress = Callable[[Outcome], None]


def parse_since(text: str) -> dt.datetime:
    """A date or date-time (UTC unless it says otherwise) for --stale-after."""
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError as error:
        raise InputError(f"--stale-after {text!r}: give a date (2026-11-01) or a date and time") from error
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _ended(check: PastCheck) -> dt.datetime:
    moment = dt.datetime.fromisoformat(check.ended)
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def verify(store: GraphStore, project: Project, *, system: str | None = None, stale_after: dt.datetime | None = None,
           options: FetchOptions | None = None, progress: Progress | None = None,
           url_map: Callable[[str], str] | None = None, on_start: Callable[[int], None] | None = None
           ) -> VerifyReport:
    """Check every source cited for a system (or for `system`; or only those whose last check ended
    before `stale_after`), writing each check into the project's graphs as it is made. `url_map` rewrites the
    URLs fetched (the benchmark points them at a local server); the recorded requestedUrl is the one fetched."""
    options = options or FetchOptions()
    if options.cache_dir is None:
        options.cache_dir = project.graphs.parent / "cache" / "verify"
    clock = time.monotonic()
    targets = read_targets(store, system=system_iri(store, system) if system else None)
    report = VerifyReport()
    latest: dict[str, PastCheck] = {}
    for past in history(project.graphs):
        latest[past.source] = past
    todo = []
    for target in targets:
        if target.url is None:
            report.without_url.append(target.source)
            continue
        past = latest.get(slug_of(target.source))
        if stale_after is not None and past is not None and _ended(past) >= stale_after:
            report.skipped_recent += 1
            continue
        todo.append((target, past))
    if on_start:
        on_start(sum(len(target.systems) for target, _ in todo))
    try:
        asyncio.run(_run(todo, options, report, progress, url_map, project.graphs))
    finally:
        report.seconds = time.monotonic() - clock
    return report


async def _run(todo, options: FetchOptions, report: VerifyReport, progress, url_map, graphs: Path) -> None:
    gate = asyncio.Semaphore(max(options.concurrency, 1))
    texts = TextCache(options.cache_dir / "text" if options.cache_dir else None)
    async with Fetcher(options) as fetcher:

        async def one(target: Target, past: PastCheck | None) -> None:
            async with gate:
                url = url_map(target.url) if url_map else target.url
                fetched = await fetcher.fetch(url)
            extracted = None
            if fetched.problem is None and fetched.body is not None:
                extracted = await asyncio.to_thread(texts.extract, fetched, fetched.final_url or url)
            host = urlsplit(target.url).hostname or ""
            for system, wanted in target.systems.items():
                if fetched.problem:
                    result, detail, match = fetched.problem, fetched.detail, None
                elif extracted is None or extracted.problem:
                    result = extracted.problem if extracted else "unreadable"
                    detail, match = extracted.detail if extracted else None, None
                else:
                    match = find(extracted.text, wanted)
                    result, detail = match.result, None
                record = CheckRecord(
                    source=target.source, system=system, system_label=target.labels.get(system, slug_of(system)),
                    host=host, fetched=fetched, result=result, detail=detail,
                    findings=match.findings if match else [], terms=match.terms if match else [],
                    counts=match.counts if match else [], previous=past)
                record.write(graphs)
                outcome = Outcome(target.source, system, record.system_label, url, result, fetched.status,
                                  record.changed, detail, entity("check", record.slug))
                report.outcomes.append(outcome)
                if progress:
                    progress(outcome)

        await asyncio.gather(*(one(target, past) for target, past in todo))
