"""`hpckg verify`: re-read every cited source and record what it actually says, as source-check graphs."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from hpckg.cli.options import add_store_option

if TYPE_CHECKING:
    from hpckg.project import Project

HELP = """\
Fetch every source cited by a claim about a system, extract its text (HTML main text, PDF text layer,
plain text) and look for the system's names, the parts and the counts claimed from it. Each check is
recorded as its own machine-written graph (.hpckg/graphs/verify/SOURCE/TIME-SYSTEM.nq): when, by which
hpckg, the URL asked and the URL that answered, the HTTP status, the SHA-256, size and type of what was
read, the result, and each name and count found with where it was found. Earlier checks are kept; a page
whose content changed since the previous check is marked and listed. Run `hpckg build` afterwards: the
checks feed the system pages, the sourcing rules and the summaries.

Politeness and safety: robots.txt is obeyed; requests to one host are limited (--per-host) and spaced
(--delay); answers 429 and 5xx are retried with backoff, honouring Retry-After; pages are read up to
--max-bytes; a local cache and conditional requests (ETag, Last-Modified) make a re-run cheap. Only http(s)
URLs on public addresses are fetched: a URL or redirect to a private or loopback address is refused and
recorded (--allow-loopback admits loopback addresses, for tests against a local server only).

examples:
  hpckg verify                          check every cited source
  hpckg verify --system kalos           only the sources cited for Kalos
  hpckg verify --stale-after 2026-11-01 only sources not checked since 1 November 2026
"""


def cmd_verify(args: argparse.Namespace, project: Project) -> int:
    from hpckg.cli.options import open_for_reading
    from hpckg.verify.fetch import FetchOptions
    from hpckg.verify.run import parse_since, verify

    options = FetchOptions(concurrency=args.concurrency, per_host=args.per_host, delay=args.delay,
                           connect_timeout=args.connect_timeout, read_timeout=args.read_timeout,
                           max_bytes=args.max_bytes, retries=args.retries, allow_loopback=args.allow_loopback,
                           contact=args.contact)
    stale_after = parse_since(args.stale_after) if args.stale_after else None
    store = open_for_reading(args, project)
    show = args.format == "text" and not args.quiet
    progress, bar = None, None
    if show:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        bar = Progress(TextColumn("checking sources"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                       TextColumn("{task.description}"), transient=True, console=_console(stderr=True))
        task = bar.add_task("", total=None)

        def started(total: int) -> None:
            bar.update(task, total=total)

        def progress(outcome) -> None:
            bar.update(task, advance=1, description=outcome.result)
    with bar if bar is not None else _nothing():
        report = verify(store, project, system=args.system, stale_after=stale_after, options=options,
                        progress=progress, on_start=started if show else None)
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=2))
        return 0
    if not args.quiet:
        print_summary(report)
    print("next: hpckg build", file=sys.stderr)
    return 0


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def print_summary(report) -> None:
    from rich.table import Table

    table = Table(title=f"{len(report.outcomes)} checks of {report.sources} sources in {report.seconds:.1f} s")
    table.add_column("result")
    table.add_column("checks", justify="right")
    table.add_column("passes")
    for result, count in sorted(report.results.items(), key=lambda item: (-item[1], item[0])):
        table.add_row(result, str(count), "yes" if result.startswith("names-") else "no")
    console = _console()
    console.print(table)
    if report.changed:
        console.print(f"changed since the previous check: {len(report.changed)}")
        for outcome in report.changed:
            console.print(f"  {outcome.url} ({outcome.system_label})", markup=False)
    if report.skipped_recent:
        console.print(f"skipped, checked since --stale-after: {report.skipped_recent} sources")
    if report.without_url:
        console.print(f"cited sources with no URL to fetch: {len(report.without_url)}")


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("verify", help="re-read every cited source and record what it says",
                              description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_store_option(p, memory="build the graph in memory first instead of reading the built store")
    p.add_argument("--system", metavar="SLUG", help="check only the sources cited for this system (slug or IRI)")
    p.add_argument("--stale-after", metavar="DATE",
                   help="check only sources whose last check ended before this date (or date-time, UTC)")
    p.add_argument("--concurrency", type=int, default=16, metavar="N", help="requests in flight (default 16)")
    p.add_argument("--per-host", type=int, default=2, metavar="N", help="requests at once to one host (default 2)")
    p.add_argument("--delay", type=float, default=1.0, metavar="SECONDS",
                   help="pause between requests to one host (default 1)")
    p.add_argument("--connect-timeout", type=float, default=10.0, metavar="SECONDS", help="default 10")
    p.add_argument("--read-timeout", type=float, default=30.0, metavar="SECONDS", help="default 30")
    p.add_argument("--max-bytes", type=int, default=25_000_000, metavar="N",
                   help="read at most this much of a page (default 25 MB); a larger one is recorded as too large")
    p.add_argument("--retries", type=int, default=3, metavar="N", help="retries after 429 or 5xx (default 3)")
    p.add_argument("--contact", default="https://w3id.org/hpckg", metavar="URL",
                   help="the contact URL sent in the User-Agent (default https://w3id.org/hpckg)")
    p.add_argument("--allow-loopback", action="store_true",
                   help="FOR TESTS ONLY: also fetch from loopback addresses (127.0.0.0/8, ::1), as a local test "
                        "server needs; private and other non-public addresses stay refused")
    p.add_argument("--format", choices=("text", "json"), default="text", help="the summary as text or JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary table")
    p.set_defaults(handler=cmd_verify)
