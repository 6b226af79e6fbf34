"""`hpckg serve`: the SPARQL 1.1 endpoint and linked-data website over the built store."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from hpckg.errors import InputError, StoreError
from hpckg.namespaces import BASE

EXAMPLES = """\
examples:
  hpckg serve                                  http://127.0.0.1:8000 over .hpckg/store
  hpckg serve --port 9000 --timeout 10 --workers 4
  curl -H 'Accept: text/csv' 'http://127.0.0.1:8000/sparql?query=SELECT+*+WHERE+{?s+a+hpc:System}'
  curl -H 'Accept: text/turtle' http://127.0.0.1:8000/id/system/kalos

Queries run in --workers processes, each under --timeout seconds (a slow query's worker is killed and
replaced, so other clients keep being answered) and --max-results rows or triples (more is refused with
HTTP 400 result-limit: add a LIMIT). The endpoint is read-only and makes no outbound requests unless
--allow-update-token and --allow-service say otherwise.
"""


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="serve a SPARQL 1.1 endpoint and the linked-data website",
        description="Serve the store built by `hpckg build`: the SPARQL 1.1 Protocol at /sparql, entity IRIs "
                    "at /id/<kind>/<slug>, HTML pages, canned queries and VoID.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", default=".hpckg/store", metavar="PATH",
                        help="the store built by `hpckg build` (opened read-only; default .hpckg/store)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000; 0 = any)")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                        help="time limit of one query (default 30)")
    parser.add_argument("--max-results", type=int, default=10_000, metavar="N",
                        help="most rows or triples one query may return (default 10000)")
    parser.add_argument("--allow-update-token", metavar="TOKEN",
                        help="accept SPARQL Update from requests with Authorization: Bearer TOKEN")
    parser.add_argument("--allow-service", action="store_true",
                        help="allow federated SERVICE clauses (outbound requests; off by default)")
    parser.add_argument("--workers", type=int, default=max(2, min(4, os.cpu_count() or 2)), metavar="N",
                        help="query worker processes (default: CPUs, 2 to 4)")
    parser.add_argument("--rate-limit", type=float, default=60.0, metavar="SECONDS_PER_MINUTE",
                        help="query time each client may use per minute, else HTTP 429 (default 60; 0 = off)")
    parser.add_argument("--base-iri", default=BASE, metavar="IRI",
                        help=f"the IRI base of the entities served under /id/ (default {BASE})")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    parser.set_defaults(handler=run)


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM stops the server as cleanly as Ctrl+C


def run(args: argparse.Namespace) -> int:
    from hpckg.serve.app import Settings, make_server

    if args.workers < 1:
        raise InputError("--workers must be at least 1")
    if args.timeout <= 0:
        raise InputError("--timeout must be a positive number of seconds")
    if args.max_results < 1:
        raise InputError("--max-results must be at least 1")
    if not args.base_iri.endswith(("/", "#")):
        raise InputError("--base-iri must end with / (entity IRIs are <base>id/<kind>/<slug>)")
    store = Path(args.store)
    if not (store / "CURRENT").exists():
        raise StoreError(f"no hpckg store at {store}; run `hpckg build` first (or pass --store PATH)")
    settings = Settings(store_path=store, timeout=args.timeout, max_results=args.max_results,
                        update_token=args.allow_update_token, allow_service=args.allow_service,
                        workers=args.workers, rate_limit=args.rate_limit, base_iri=args.base_iri)
    try:
        server, app = make_server(settings, args.host, args.port)
    except OSError as error:
        raise StoreError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from None
    server.verbose = args.verbose
    host, port = server.server_address[:2]
    shown = f"[{host}]" if ":" in str(host) else host
    print(f"hpckg serving {store} at http://{shown}:{port}/ (SPARQL endpoint http://{shown}:{port}/sparql)",
          flush=True)
    signal.signal(signal.SIGTERM, _stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopping", file=sys.stderr)
    finally:
        server.server_close()
        app.close()
    return 0
