"""Time `hpckg verify` over thousands of cited sources against local HTTP servers.

    python bench/verify_bench.py --systems 3000 --hosts 20 --write docs/benchmarks.md

The curated graph cites only a handful of fetchable URLs and the importers cite their dataset files, so the
benchmark adds a synthetic graph (made with the claim builder) of N systems, each with an accelerator part
and count claimed from its own news page on one of H hosts (https://news-K.example.org/...), to a copy of
the project. H HTTP servers listen on the loopback addresses 127.0.0.1 ... 127.0.0.H (one port), each
serving every page: most name the system, part and count, some only the system, some nothing, 2% answer
404. `verify(..., url_map=...)` points each URL at its host's loopback address, so the per-host limit applies
per server as it would per site. Three runs are timed: the first (everything fetched and extracted), a
re-run (every page answered 304 Not Modified from its ETag, the cached copy re-read), then `hpckg build`
loading the N checks of each run with everything else.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import http.server
import os
import platform
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from hpckg import machinegraphs, project  # noqa: E402
from hpckg.build import build  # noqa: E402
from hpckg.claims import claim_quads, entity_quads, make_claim, source_quads  # noqa: E402
from hpckg.namespaces import GRAPH, entity  # noqa: E402
from hpckg.store import open_store  # noqa: E402
from hpckg.values import Iri  # noqa: E402
from hpckg.verify.fetch import FetchOptions  # noqa: E402
from hpckg.verify.run import verify  # noqa: E402

from sections import replace_section  # noqa: E402 - bench/sections.py, beside this script

BEGIN, END = "<!-- verify_bench.py: begin -->", "<!-- verify_bench.py: end -->"
PARTS = ["NVIDIA H100 SXM5 80GB", "AMD Instinct MI250X", "NVIDIA A100 SXM4 80GB", "Huawei Ascend 910B"]
FILLER = ("<p>The machine hall was extended for the installation, with new cooling and power. Researchers from "
          "several institutes share the time; allocations open next quarter.</p>") * 4


def synthetic_graph(systems: int, hosts: int) -> list:
    graph = GRAPH + "import/bench/bench"
    quads = []
    for n, label in enumerate(PARTS):
        quads += entity_quads("part", f"bench-part-{n}", label=label, graph=graph)
    for i in range(systems):
        slug, count = f"bench-system-{i}", 1000 + 7 * i
        quads += entity_quads("system", slug, label=f"Benchmark Cluster {i}", graph=graph)
        quads += entity_quads("component", f"{slug}-accelerator", label=f"Benchmark Cluster {i} accelerators",
                              graph=graph, component_of=slug, role="accelerator")
        url = f"https://news-{i % hosts}.example.org/2026/cluster-{i}.html"
        quads += source_quads(f"bench-news-{i}", title=f"Benchmark Cluster {i} enters service",
                              kind="news-article", url=url, graph=graph)
        component = entity("component", f"{slug}-accelerator")
        for prop, value in (("partModel", Iri(entity("part", f"bench-part-{i % len(PARTS)}"))),
                            ("quantity", count)):
            quads += claim_quads(make_claim(component, prop, value, tier="reported", sources=f"bench-news-{i}"),
                                 graph=graph)
    return quads


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        found = re.search(r"cluster-(\d+)\.html$", path)
        if path == "/robots.txt":
            status, body = 200, b"User-agent: *\nDisallow: /private/\n"
        elif not found or int(found.group(1)) % 50 == 49:
            status, body = 404, b"<html><body>Not found</body></html>"
        else:
            i = int(found.group(1))
            name, part, count = f"Benchmark Cluster {i}", PARTS[i % len(PARTS)], f"{1000 + 7 * i:,}"
            text = (f"{name} has {count} {part} accelerators." if i % 10 < 8 else
                    f"{name} opened this week." if i % 10 == 8 else "A weather report: rain on Tuesday.")
            body = (f"<!DOCTYPE html><html><head><title>News {i}</title></head><body><nav>Home | News | About"
                    f"</nav><main><article><h1>News {i}</h1><p>{text}</p>{FILLER}</article></main></body></html>"
                    ).encode()
            status = 200
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        if status == 200 and self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8" if path != "/robots.txt" else "text/plain")
        self.send_header("Content-Length", str(len(body)))
        if status == 200:
            self.send_header("ETag", etag)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def start_servers(hosts: int) -> tuple[list, int]:
    first = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = first.server_address[1]
    servers = [first] + [http.server.ThreadingHTTPServer((f"127.0.0.{k}", port), Handler) for k in range(2, hosts + 1)]
    for server in servers:
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
    return servers, port


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", type=int, default=3000)
    parser.add_argument("--hosts", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--per-host", type=int, default=4)
    parser.add_argument("--write", metavar="PATH", help="replace this benchmark's section of a Markdown file")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="verify-bench-"))
    try:
        for folder in ("ontology", "shapes", "queries", "data"):
            shutil.copytree(ROOT / folder, work / folder)
        copy = project.discover(explicit=work)
        machinegraphs.write_graph(machinegraphs.graph_file(copy.graphs, "import", "bench", "bench"),
                                  synthetic_graph(args.systems, args.hosts), {"sha256": "bench"}, title="import bench")
        clock = time.monotonic()
        summary = build(copy, store_path=work / ".hpckg" / "store", validate=False)
        build_before = time.monotonic() - clock
        servers, port = start_servers(args.hosts)

        def to_local(url: str) -> str:
            parts = urlsplit(url)
            found = re.match(r"news-(\d+)\.", parts.hostname or "")
            return f"http://127.0.0.{int(found.group(1)) + 1}:{port}{parts.path}" if found else url

        options = FetchOptions(concurrency=args.concurrency, per_host=args.per_host, delay=0.0,
                               allow_loopback=True, read_timeout=30, connect_timeout=10)
        store = open_store(work / ".hpckg" / "store", read_only=True)
        first = verify(store, copy, options=options, url_map=to_local)
        second = verify(store, copy, options=options, url_map=to_local)
        del store
        clock = time.monotonic()
        after = build(copy, store_path=work / ".hpckg" / "store", validate=False)
        build_after = time.monotonic() - clock
        for server in servers:
            server.shutdown()
        checks = len(first.outcomes)
        results = ", ".join(f"{n:,} {r}" for r, n in sorted(first.results.items(), key=lambda i: -i[1]))
        unchanged = sum(1 for o in second.outcomes if o.status == 304)
        section = "\n".join([
            BEGIN,
            "## `hpckg verify` over thousands of sources",
            "",
            f"Generated by `python bench/verify_bench.py --systems {args.systems} --hosts {args.hosts} --write "
            f"docs/benchmarks.md` on {dt.date.today().isoformat()}; do not edit by hand.",
            "",
            f"The curated graph plus a synthetic one of {args.systems:,} systems, each citing its own news page on "
            f"one of {args.hosts} hosts, served by {args.hosts} local HTTP servers (127.0.0.1 to "
            f"127.0.0.{args.hosts}, stdlib ThreadingHTTPServer) with ETags; the curated graph's own URLs "
            "(arxiv.org) do not resolve here and are recorded as DNS errors. "
            f"`--concurrency {args.concurrency} --per-host {args.per_host} --delay 0`. Machine: "
            f"{platform.machine()}, {os.cpu_count()} CPUs shared with other work, Python {platform.python_version()}.",
            "",
            "| step | sources | checks | time | per check |",
            "|---|---:|---:|---:|---:|",
            f"| first run (fetch, extract, match, write) | {first.sources:,} | {checks:,} | {first.seconds:.1f} s "
            f"| {1000 * first.seconds / max(checks, 1):.1f} ms |",
            f"| re-run ({unchanged:,} answered 304, cached copy re-read) | {second.sources:,} | "
            f"{len(second.outcomes):,} | {second.seconds:.1f} s | {1000 * second.seconds / max(checks, 1):.1f} ms |",
            f"| `hpckg build` before the runs (no validation) | | {summary.machine_graphs:,} graph files | "
            f"{build_before:.1f} s | |",
            f"| `hpckg build` with both runs' checks (no validation) | | {after.machine_graphs:,} graph files | "
            f"{build_after:.1f} s | |",
            "",
            f"First run's results: {results}. {after.sourcing}.",
            "",
            "Against real sites the default politeness (`--per-host 2 --delay 1`) bounds a run instead: a host "
            "cited by n sources takes about n seconds, and hosts run in parallel up to `--concurrency`.",
            END,
        ])
        print(section)
        if args.write:
            replace_section(args.write, "verify_bench.py", section.removeprefix(BEGIN).removesuffix(END))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
