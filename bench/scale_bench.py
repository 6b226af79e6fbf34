"""Scale: the build, store, queries, endpoint, check and pages on 1×, 3×, 10×… the real import (issue 15).

For each size N the synthetic graph (bench/synthetic.py: N copies of the real import, fixed seed) is written
into a fresh project under --work, then each step runs and adds its figures to --work/results.json (a step
can be re-run alone with --steps; `report` turns the file into docs/benchmarks.md's "Scale" section and the
chart docs/scale.svg):

- generate: bench/synthetic.py (wall time, peak RSS, bytes written);
- bulk: the anchor of the build, a bare pyoxigraph bulk load of the same files into an on-disk store;
- build: `hpckg build --staging disk|memory|auto` (the project's code) in a subprocess under /usr/bin/time,
  split into load, link, derive, validate, write from its timestamped progress; peak RSS, overall and per
  phase (a thread in the build process samples its resident size every 0.2 s); store size on disk;
- queries: each canned query's median latency on the built store (read-only, in process);
- serve: `hpckg serve` and the anchor `oxigraph serve-read-only` on the same generation folder, a lookup and
  an aggregate (each request a distinct text: no cache answers) from 8 keep-alive clients: q/s, p50, p99;
  and a system page's render time through `hpckg serve`;
- check: `hpckg check --store <built store>` of one contribution (tests/contributions/good/frontier.ttl);
- pyshacl: the validation anchor on a fraction of the 1× graph (the curated data and the Epoch graphs):
  pySHACL and the fast engine on the same store, identical results asserted.

The load average is recorded beside every step: the machine is shared, so ratios in one run are the figures
to read.

    python bench/scale_bench.py run --scale 1 --template /path/.hpckg/graphs/import --work /tmp/scale
    python bench/scale_bench.py report --work /tmp/scale --write docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
PYTHON = sys.executable
HPCKG = str(Path(sys.executable).with_name("hpckg"))
OXIGRAPH = shutil.which("oxigraph") or str(Path(sys.executable).with_name("oxigraph"))
STEPS = ("generate", "bulk", "build", "queries", "serve", "check", "pyshacl", "virtuoso")


# ---- bookkeeping --------------------------------------------------------------------------------------

def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def results_path(work: Path) -> Path:
    return work / "results.json"


def read_results(work: Path) -> dict:
    path = results_path(work)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def record(work: Path, scale: int, step: str, figures: dict) -> None:
    results = read_results(work)
    figures = {**figures, "load_average": figures.get("load_average", load_average()),
               "measured": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M")}
    results.setdefault(str(scale), {})[step] = figures
    results_path(work).write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"{scale}x {step}: {json.dumps(figures)}", flush=True)


def timed(command: list[str], *, cwd: Path | None = None, env: dict | None = None,
          ok: tuple[int, ...] = (0,)) -> tuple[float, int, str, str]:
    """Run a command under /usr/bin/time -v: wall seconds, peak RSS (bytes), stdout, stderr (time's report
    removed). Fails loudly on an exit code not in `ok`."""
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *command], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONUTF8": "1", **(env or {})})
    wall = time.perf_counter() - started
    err = done.stderr
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    peak = int(match.group(1)) * 1024 if match else 0
    report_start = err.rfind("\tCommand being timed:")
    own = err[:report_start] if report_start >= 0 else err
    if done.returncode not in ok:
        raise RuntimeError(f"{' '.join(command[:4])}… failed ({done.returncode}):\n{own[-3000:]}")
    return wall, peak, done.stdout, own


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file() and not p.is_symlink())


def project_for(work: Path, scale: int) -> Path:
    """A project of this checkout's ontology, shapes, queries and curated data, no configured sources."""
    project = work / f"s{scale}" / "project"
    project.mkdir(parents=True, exist_ok=True)
    # Copied afresh each run (they are small): a project copied once kept the shapes and rules of the day it
    # was generated, and later builds measured those.
    for folder in ("ontology", "shapes", "queries", "data"):
        shutil.rmtree(project / folder, ignore_errors=True)
        shutil.copytree(ROOT / folder, project / folder)
    (project / "hpckg.toml").write_text("# bench/scale_bench.py: the synthetic graph is imported already\n",
                                        encoding="utf-8")
    return project


def import_dir(project: Path) -> Path:
    return project / ".hpckg" / "graphs" / "import"


def store_dir(project: Path) -> Path:
    return project / ".hpckg" / "store"


def generation(project: Path) -> Path:
    store = store_dir(project)
    return store.parent / os.readlink(store)


# ---- steps --------------------------------------------------------------------------------------------

def step_generate(work: Path, scale: int, template: Path) -> dict:
    project = project_for(work, scale)
    wall, peak, out, _ = timed([PYTHON, str(BENCH / "synthetic.py"), "--template", str(template), "--scale",
                                str(scale), "--out", str(import_dir(project)), "--project", str(project)])
    manifest = json.loads((import_dir(project).parent / "synthetic.json").read_text(encoding="utf-8"))
    return {"seconds": round(wall, 1), "peak_rss": peak, "quads": manifest["quads"],
            "bytes": folder_bytes(import_dir(project)), "first_copy": manifest["copies"][0],
            "last_copy": manifest["copies"][-1]}


BULK = """
import sys, time
from pathlib import Path
import pyoxigraph as ox
store = ox.Store(sys.argv[1])
started = time.perf_counter()
for name in sys.argv[2:]:
    fmt = ox.RdfFormat.N_QUADS if name.endswith('.nq') else ox.RdfFormat.TURTLE
    store.bulk_load(path=name, format=fmt)
store.flush()
print(len(store), time.perf_counter() - started)
"""


def build_inputs(project: Path) -> list[str]:
    files = []
    for folder in ("ontology", "shapes", "data"):
        files += sorted(str(p) for p in (project / folder).rglob("*.ttl"))
    return files + sorted(str(p) for p in import_dir(project).rglob("*.nq") if not p.name.endswith(".part.nq"))


def step_bulk(work: Path, scale: int) -> dict:
    """The build's floor: every file it loads bulk-loaded into an empty on-disk store, nothing else."""
    project = project_for(work, scale)
    target = work / f"s{scale}" / "bulk-store"
    shutil.rmtree(target, ignore_errors=True)
    try:
        wall, peak, out, _ = timed([PYTHON, "-c", BULK, str(target), *build_inputs(project)])
        quads, seconds = out.split()
        return {"seconds": round(wall, 1), "load_seconds": round(float(seconds), 1), "peak_rss": peak,
                "quads": int(quads), "store_bytes": folder_bytes(target)}
    finally:
        shutil.rmtree(target, ignore_errors=True)  # the disk is shared; the figures are kept


DRIVER = """
import json, os, sys, threading, time
from hpckg import project
from hpckg.build import build
start = time.perf_counter()
# Peak RSS per phase: a thread samples the resident size (pyoxigraph's RocksDB and hash tables live in this
# process) and each progress line carries the highest sample since the line before it.
page = os.sysconf('SC_PAGE_SIZE')
highest = [0]
def sample():
    with open('/proc/self/statm') as statm:
        while True:
            statm.seek(0)
            highest[0] = max(highest[0], int(statm.read().split()[1]) * page)
            time.sleep(0.2)
threading.Thread(target=sample, daemon=True).start()
def progress(message):
    rss, highest[0] = highest[0], 0
    print(json.dumps([round(time.perf_counter() - start, 2), message, rss]), flush=True)
here = project.discover(explicit=sys.argv[1])
summary = build(here, store_path=sys.argv[2], staging=sys.argv[3], progress=progress)
progress('done')
found = summary.report.violations if summary.report else []
print(json.dumps({'summary': {'triples': summary.triples, 'derived': summary.derived, 'systems': summary.systems,
                  'claims_by_tier': summary.claims_by_tier, 'files': summary.files,
                  'violations': sum(v.severity == 'Violation' for v in found),
                  'warnings': sum(v.severity != 'Violation' for v in found)}}))
"""


PHASES = ("setup", "load", "link", "derive", "validate", "write")


def boundaries(lines: list[tuple]) -> list[float]:
    """When each phase ended, from the build's progress lines (time, message, ...): setup, load, link, derive
    (rules and summary), validate, write."""
    def first(prefix: str) -> float:
        return next(t for t, m, *_ in lines if m.startswith(prefix))

    loaded = [t for t, m, *_ in lines if m.startswith("loaded")][-1]
    return [first("deriving and validating"), loaded, first("linked"), first("validating"), first("validated"),
            first("done")]


def phases(lines: list[tuple]) -> dict[str, float]:
    """Each phase's seconds."""
    ends = boundaries(lines)
    return {name: round(end - begin, 1) for name, begin, end in zip(PHASES, [0.0, *ends[:-1]], ends, strict=True)}


def phase_peaks(lines: list[tuple[float, str, int]]) -> dict[str, int]:
    """Each phase's highest sampled RSS; a line's sample covers the time since the line before it, so a phase
    owns the lines after its first boundary line up to and including its last."""
    ends = boundaries(lines)
    return {name: max((rss for t, _, rss in lines if begin < t <= end), default=0)
            for name, begin, end in zip(PHASES, [-1.0, *ends[:-1]], ends, strict=True)}


def step_build(work: Path, scale: int, staging: str) -> dict:
    project = project_for(work, scale)
    wall, peak, out, err = timed([PYTHON, "-c", DRIVER, str(project), str(store_dir(project)), staging],
                                 cwd=project)
    lines = [tuple(json.loads(line)) for line in out.splitlines() if line.startswith("[")]
    summary = json.loads([line for line in out.splitlines() if line.startswith("{")][-1])["summary"]
    where = "memory" if any(m == "deriving and validating in memory" for _, m, _ in lines) else "disk"
    rules = {m.split(":")[0].removeprefix("rule "): t for t, m, _ in lines if m.startswith("rule ")}
    # A rule's line carries the highest RSS sampled while it ran (since the line before it): which rule holds
    # the derive phase's peak.
    rule_peaks = {m.split(":")[0].removeprefix("rule "): rss for _, m, rss in lines if m.startswith("rule ")}
    return {"seconds": round(wall, 1), "peak_rss": peak, "staging": where, "phases": phases(lines),
            "phase_peak_rss": phase_peaks(lines), "rule_peak_rss": rule_peaks,
            "summary": summary, "store_bytes": folder_bytes(generation(project)), "rules_done_at": rules}


QUERIES = """
import json, statistics, sys, time
sys.path.insert(0, sys.argv[4])  # tests/: answers.py, the comparison by value the engine tests use
from answers import answer, concatenations, digest
from hpckg import project
from hpckg.query import canned_queries
from hpckg.store import Store
here = project.discover(explicit=sys.argv[1])
store = Store(sys.argv[2], read_only=True)
wanted = sys.argv[5:]


class Rows(list):
    variables = ()


for query in canned_queries(here):
    if wanted and query.name not in wanted:
        continue
    text = query.bind()
    times, rows = [], Rows()
    for _ in range(int(sys.argv[3])):
        started = time.perf_counter()
        result = store.query(text, prefixes=False)
        rows = Rows(result)
        times.append(time.perf_counter() - started)
        rows.variables = result.variables
    found = answer(rows, concatenations(text))
    print(json.dumps([query.name, {'ms': round(1000 * statistics.median(times), 1), 'rows': len(rows),
                                   'digest': digest(found)}]), flush=True)
"""


def pump(stream, into) -> None:
    """Put each line of a stream into a queue, then None."""
    for line in stream:
        into.put(line)
    into.put(None)


def step_queries(work: Path, scale: int, repeats: int, limit: float = 60.0, only: list[str] | None = None) -> dict:
    """Each canned query with its default parameters, `repeats` times on the built store; the medians. A
    query still running after `limit` seconds is stopped and recorded as such (the driver then goes on with
    the next one), so one query that does not scale cannot hide the others."""
    import queue
    import threading

    sys.path.insert(0, str(ROOT / "src"))
    from hpckg.project import discover
    from hpckg.query import canned_queries

    project = project_for(work, scale)
    names = [q.name for q in canned_queries(discover(explicit=project))]
    figures: dict = {}
    if only:  # re-time these queries (after a change to them); the others keep the figures already recorded
        earlier = read_results(work).get(str(scale), {}).get("queries", {}).get("queries", {})
        figures = {name: earlier[name] for name in names if name in earlier and name not in only}
    while remaining := [n for n in names if n not in figures]:
        process = subprocess.Popen([PYTHON, "-c", QUERIES, str(project), str(store_dir(project)), str(repeats),
                                    str(ROOT / "tests"), *remaining], cwd=project, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=pump, args=(process.stdout, lines), daemon=True).start()
        current = remaining[0]
        while True:
            try:
                line = lines.get(timeout=limit * repeats)
            except queue.Empty:
                process.kill()
                figures[current] = {"ms": None, "rows": None, "stopped_after_s": limit * repeats}
                break
            if line is None:
                for name in remaining:
                    figures.setdefault(name, {"ms": None, "rows": None, "failed": True})
                break
            name, result = json.loads(line)
            figures[name] = result
            later = [n for n in remaining if n not in figures]
            if not later:
                break
            current = later[0]
        process.wait()
    ordered = {n: figures[n] for n in names}
    return {"repeats": repeats, "queries": ordered,
            "sum_ms": round(sum(f["ms"] or 0 for f in ordered.values()), 1),
            "stopped": [n for n, f in ordered.items() if f["ms"] is None]}


def step_serve(work: Path, scale: int, requests: int, concurrency: int) -> dict:
    sys.path.insert(0, str(ROOT / "tests"))
    import httpx
    from serve_bench import HPC, free_port, run_load, wait_until_answers

    from serve_live import start_server

    project = project_for(work, scale)
    folder = generation(project)
    lookup_system = first_system(project)
    queries = {"lookup": f"SELECT ?v WHERE {{ <{lookup_system}> <{HPC}rmax> ?v }}",
               "aggregate": f"SELECT ?tier (COUNT(?c) AS ?claims) WHERE {{ ?c a <{HPC}Claim> ; <{HPC}tier> ?tier }} "
                            "GROUP BY ?tier"}
    port = free_port()
    oxigraph = subprocess.Popen([OXIGRAPH, "serve-read-only", "--location", str(folder), "--bind",
                                 f"127.0.0.1:{port}", "--union-default-graph"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    live = start_server(store_dir(project), "--rate-limit", "0", "--workers", "2")
    figures: dict = {}
    try:
        endpoints = {"hpckg": live.url + "/sparql", "oxigraph": f"http://127.0.0.1:{port}/query"}
        wait_until_answers(endpoints["oxigraph"], oxigraph)
        for name, query in queries.items():
            count = requests if name == "lookup" else max(concurrency * 2, requests // 20)
            for server, url in endpoints.items():
                try:
                    figures[f"{name} {server}"] = run_load(url, query, requests=count, concurrency=concurrency,
                                                           distinct=True)
                except RuntimeError as refused:  # hpckg serve answers 503 when its slow-query slots stay taken
                    figures[f"{name} {server}"] = {"error": str(refused)[:300], "requests": count}
        pages = []
        with httpx.Client(timeout=120) as client:
            for n, system in enumerate(systems(project, 11)):
                started = time.perf_counter()
                client.get(system.replace("https://w3id.org/hpckg/id/", live.url + "/page/"), params={"n": n},
                           headers={"Accept": "text/html"}).raise_for_status()
                if n:  # the first page warms the worker
                    pages.append(time.perf_counter() - started)
        figures["page_ms"] = round(1000 * statistics.median(pages), 1)
    finally:
        live.stop()
        oxigraph.terminate()
        oxigraph.wait(30)
    return {"concurrency": concurrency, "requests": requests, **figures}


def systems(project: Path, limit: int) -> list[str]:
    query = f"SELECT ?s WHERE {{ ?s a hpc:System OPTIONAL {{ ?s hpc:rmax ?r }} }} ORDER BY DESC(?r) ?s LIMIT {limit}"
    done = subprocess.run([HPCKG, "query", "-e", query, "--format", "csv", "--store", str(store_dir(project))],
                          cwd=project, capture_output=True, text=True, check=True)
    return done.stdout.split()[1:]


def first_system(project: Path) -> str:
    return systems(project, 1)[0]


def step_check(work: Path, scale: int, repeats: int = 1) -> dict:
    project = project_for(work, scale)
    draft = project / "data" / "ttl" / "systems" / "frontier.ttl"
    shutil.copy(ROOT / "tests" / "contributions" / "good" / "frontier.ttl", draft)
    try:
        times, peaks, verdicts = [], [], set()
        for _ in range(repeats):
            # exit 2 is a review that found problems: on the synthetic graphs Frontier is a TOP500 system
            # already, so the draft is refused as a duplicate, which is still one full check to time
            wall, peak, out, _ = timed([HPCKG, "check", "--store", str(store_dir(project)), str(draft)],
                                       cwd=project, ok=(0, 2))
            times.append(wall)
            peaks.append(peak)
            verdicts.add(out.splitlines()[0] if out else "")
    finally:
        draft.unlink()
    return {"seconds": round(statistics.median(times), 2), "peak_rss": max(peaks), "repeats": repeats,
            "verdict": sorted(verdicts),
            "what": "hpckg check --store <built store> frontier.ttl (the draft's neighbourhood in the store)"}


def step_virtuoso(work: Path, scale: int, limit: float) -> dict:
    """The built generation published to a Virtuoso 7 started for the step (tests/virtuoso_server.py) by
    hpckg's own publish (staging graphs, then the switch), then every canned query once through RemoteStore
    (SPARQL Protocol, JSON parsed back) with `limit` seconds each; its answer's digest by value
    (tests/answers.py) is compared with the embedded store's from the queries step of the same size."""
    sys.path.insert(0, str(ROOT / "src"))
    sys.path.insert(0, str(ROOT / "tests"))
    from answers import answer, concatenations, digest
    from hpckg import project as projects
    from hpckg.query import canned_queries
    from hpckg.remotebuild import publish
    from hpckg.store import RemoteStore, Store
    from virtuoso_server import answers, relaunch_virtuoso, restart_virtuoso, start_virtuoso, stop_virtuoso

    project = project_for(work, scale)
    here = projects.discover(explicit=project)
    folder = work / f"s{scale}" / "virtuoso"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    local = Store(generation(project), read_only=True)
    quads = local.triple_count()
    embedded = read_results(work).get(str(scale), {}).get("queries", {}).get("queries", {})
    # 5.3 GB of cache: Virtuoso's guide for 8 GB to spare. No query time limit while publishing: the switch
    # MOVEs graphs of millions of triples (at 10x one took longer than 120 s), as docs/external-stores.md says.
    server = start_virtuoso(folder, buffers=680_000, query_seconds=0)
    try:
        writer = RemoteStore(server.sparql, credentials=(server.user, server.password), timeout=6 * 3600)
        said: list[str] = []

        def progress(line: str) -> None:
            said.append(line)
            print(f"virtuoso publish: {line}", flush=True)

        started = time.perf_counter()
        publish(local, writer, progress=progress)
        published = time.perf_counter() - started
        switch = next((line for line in reversed(said) if line.startswith("switched")), "")
        # The queries' limit on the server too: a query the client gives up on would otherwise keep running
        # and slow down the ones after it.
        server = restart_virtuoso(server, query_seconds=math.ceil(limit))
        remote = RemoteStore(server.sparql, timeout=limit)
        figures: dict = {}
        for query in canned_queries(here):
            text = query.bind()
            started = time.perf_counter()
            try:
                found = answer(remote.query(text, prefixes=False), concatenations(text))
            except Exception as error:  # noqa: BLE001 - a timeout or a refusal is a figure here, not a crash
                figures[query.name] = {"ms": None, "error": str(error).splitlines()[0][:200],
                                       "seconds": round(time.perf_counter() - started, 1)}
                # A query past the server's limit has left Virtuoso answering nothing (07.20.3229, through a
                # graph group): the queries after it would all fail for that, not for themselves.
                if not answers(server):
                    server = relaunch_virtuoso(server)
                    remote = RemoteStore(server.sparql, timeout=limit)
                    figures[query.name]["server_relaunched"] = True
                print(f"virtuoso {query.name}: {figures[query.name]}", flush=True)
                continue
            ms = round(1000 * (time.perf_counter() - started), 1)
            fingerprint = digest(found)
            same = embedded.get(query.name, {}).get("digest")
            figures[query.name] = {"ms": ms, "rows": len(found[1]), "digest": fingerprint,
                                   "same_as_embedded": None if same is None else same == fingerprint}
            print(f"virtuoso {query.name}: {figures[query.name]}", flush=True)
    finally:
        stop_virtuoso(server)
        local.close()
        shutil.rmtree(folder, ignore_errors=True)
    return {"published_seconds": round(published, 1), "switch": switch, "quads": quads, "limit_s": limit,
            "server_limit_s": math.ceil(limit), "queries": figures,
            "default_graph": "graph group" if remote.graph_group else "graphs listed"}


PYSHACL = """
import json, sys, time
from pathlib import Path
from hpckg.build import populate
from hpckg.store import Store
from hpckg import project
from hpckg.validate import validate
here = project.discover(explicit=sys.argv[1])
store = Store(None)
populate(store, here)
quads = store.triple_count()
def key(v):
    return (v.severity, v.rule, v.focus, str(v.path), str(v.value))
started = time.perf_counter(); fast = validate(store, 'fast', project=here); fast_s = time.perf_counter() - started
started = time.perf_counter(); slow = validate(store, 'pyshacl', project=here); slow_s = time.perf_counter() - started
same = sorted(map(key, fast.violations)) == sorted(map(key, slow.violations))
print(json.dumps({'quads': quads, 'fast_seconds': fast_s, 'pyshacl_seconds': slow_s, 'same': same,
                  'results': len(fast.violations), 'pyshacl_results': len(slow.violations)}))
"""


def step_pyshacl(work: Path, scale: int, kinds: list[str]) -> dict:
    """pySHACL on a fraction of the graph: a project with the curated data and only the import graphs whose
    folder is in `kinds` (copy 1), validated by both engines in one process."""
    project = project_for(work, scale)
    fraction = work / f"s{scale}" / "pyshacl-project"
    shutil.rmtree(fraction, ignore_errors=True)
    for folder in ("ontology", "shapes", "queries", "data"):
        shutil.copytree(project / folder, fraction / folder)
    (fraction / "hpckg.toml").write_text("", encoding="utf-8")
    for kind in kinds:
        shutil.copytree(import_dir(project) / kind, import_dir(fraction) / kind,
                        ignore=shutil.ignore_patterns("*-x*.nq", "parts"))
    wall, peak, out, _ = timed([PYTHON, "-c", PYSHACL, str(fraction)], cwd=fraction)
    figures = json.loads(out.splitlines()[-1])
    if not figures["same"]:
        raise RuntimeError(f"pySHACL and the fast engine disagree: {figures}")
    shutil.rmtree(fraction, ignore_errors=True)
    point = {key: figures[key] for key in ("quads", "pyshacl_seconds", "fast_seconds", "results", "same")}
    return {"what": f"the curated data plus the import graphs {', '.join(kinds)}", "quads": figures["quads"],
            "points": [point], "peak_rss": peak, "seconds": round(wall, 1)}


def run(args: argparse.Namespace) -> None:
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    for scale in args.scale:
        for step in args.steps:
            load = load_average()
            if step == "generate":
                figures = step_generate(work, scale, args.template)
            elif step == "bulk":
                figures = step_bulk(work, scale)
            elif step == "build":
                figures = step_build(work, scale, args.staging)
            elif step == "queries":
                figures = step_queries(work, scale, args.repeats, args.query_limit, args.only)
            elif step == "serve":
                figures = step_serve(work, scale, args.requests, args.concurrency)
            elif step == "check":
                figures = step_check(work, scale, repeats=3)
            elif step == "virtuoso":
                figures = step_virtuoso(work, scale, args.query_limit)
            elif step == "pyshacl":
                figures = step_pyshacl(work, scale, args.pyshacl_kinds)
            else:
                raise SystemExit(f"unknown step {step}; steps: {', '.join(STEPS)}")
            figures["load_average"] = max(load, load_average())
            name = f"build-{args.staging}" if step == "build" and args.staging != "auto" else step
            record(work, scale, name, figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--scale", type=int, nargs="+", required=True)
    r.add_argument("--work", type=Path, required=True)
    r.add_argument("--template", type=Path, default=ROOT / ".hpckg" / "graphs" / "import",
                   help="a real import folder (default: this checkout's .hpckg/graphs/import, after `make run`)")
    r.add_argument("--steps", nargs="+", default=list(STEPS), choices=STEPS)
    r.add_argument("--staging", default="auto", choices=("auto", "memory", "disk"))
    r.add_argument("--repeats", type=int, default=5)
    r.add_argument("--query-limit", type=float, default=60.0, help="seconds per run before a query is stopped")
    r.add_argument("--only", nargs="+", help="the queries step re-times only these canned queries")
    r.add_argument("--requests", type=int, default=400)
    r.add_argument("--concurrency", type=int, default=8)
    r.add_argument("--pyshacl-kinds", nargs="+", default=["epoch-hardware", "epoch-datacenters"])
    p = sub.add_parser("report")
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--write", type=Path)
    args = parser.parse_args()
    if args.command == "run":
        run(args)
    else:
        from scale_report import report  # bench/scale_report.py: the Markdown and the chart

        report(read_results(args.work), args.write)


if __name__ == "__main__":
    main()
