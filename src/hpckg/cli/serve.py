"""`hpckg serve`: the SPARQL 1.1 endpoint and linked-data website over the built store."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hpckg.cli.options import add_store_option, store_location
from hpckg.errors import InputError, StoreError
from hpckg.namespaces import BASE

if TYPE_CHECKING:
    import uvicorn

    from hpckg.project import Project

LOG_LEVELS = ("critical", "error", "warning", "info", "debug")

EXAMPLES = """\
examples:
  hpckg serve                                  http://127.0.0.1:8000 over .hpckg/store
  hpckg serve --store http://127.0.0.1:8890/sparql   pages and queries from a Virtuoso built into
  hpckg serve --port 9000 --timeout 10 --workers 4
  curl -H 'Accept: text/csv' 'http://127.0.0.1:8000/sparql?query=SELECT+*+WHERE+{?s+a+hpc:System}'
  curl -H 'Accept: text/turtle' http://127.0.0.1:8000/id/system/kalos

Queries run in --workers processes, each under --timeout seconds (a slow query's worker is killed and
replaced, so other clients keep being answered) and --max-results rows or triples (more is refused with
HTTP 400 result-limit: add a LIMIT) and --query-memory megabytes. The endpoint is read-only and makes no
outbound requests unless --allow-update-token and --allow-service say otherwise: SERVICE and LOAD are
refused from a parse of the query, and the query workers run without network.
"""


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="serve a SPARQL 1.1 endpoint and the linked-data website",
        description="Serve the store built by `hpckg build`: the SPARQL 1.1 Protocol at /sparql, entity IRIs "
                    "at /id/<kind>/<slug>, HTML pages, canned queries and VoID.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_store_option(parser, help="the store built by `hpckg build` (opened read-only; default the project's "
                                  ".hpckg/store), or the query URL of the SPARQL server it was built into")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=port_number, default=8000, help="port to listen on (default 8000; 0 = any)")
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
    parser.add_argument("--slow-slots", type=int, default=None, metavar="N",
                        help="queries that may run past half a second at once (default: half the workers, at "
                             "least 1); the other workers stay free for quick queries")
    parser.add_argument("--rate-limit", type=float, default=60.0, metavar="SECONDS_PER_MINUTE",
                        help="query time each client may use per minute, else HTTP 429 (default 60; 0 = off)")
    parser.add_argument("--answer-cache", type=float, default=64, metavar="MB",
                        help="memory for answers to repeated queries, reused until the data changes "
                             "(default 64; 0 = off)")
    parser.add_argument("--query-memory", type=int, default=2048, metavar="MB",
                        help="address space of each query worker; a query that needs more is stopped with "
                             "HTTP 503 memory-limit (default 2048; 0 = unbounded)")
    parser.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS",
                        help="a reverse proxy (address or network, repeatable) whose X-Forwarded-For names the "
                             "client for rate limiting (default: none; the peer address is the client)")
    parser.add_argument("--releases", metavar="DIR", default=None,
                        help="the folder `hpckg release` writes, offered at /releases/<version>/<file> "
                             "(default dist/releases in the project, when it exists)")
    parser.add_argument("--base-iri", default=BASE, metavar="IRI",
                        help=f"the IRI base of the entities served under /id/ (default {BASE})")
    parser.add_argument("--verbose", action="store_true",
                        help="log every request to stderr (uvicorn's access log) and the server's own events")
    parser.add_argument("--log-level", choices=LOG_LEVELS, default=None,
                        help="level of the server's log on stderr (default warning, info with --verbose)")
    parser.set_defaults(handler=run)


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM stops the server as cleanly as Ctrl+C


def configure_logging(level: str, access: bool) -> None:
    """Log records of hpckg.serve and uvicorn to stderr; uvicorn.access (one line per request, in uvicorn's
    format) only when access is true."""
    import logging.config

    logging.config.dictConfig({
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "default": {"()": "uvicorn.logging.DefaultFormatter", "fmt": "%(levelprefix)s %(name)s: %(message)s",
                        "use_colors": False},
            "access": {"()": "uvicorn.logging.AccessFormatter",
                       "fmt": '%(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s',
                       "use_colors": False},
        },
        "handlers": {
            "default": {"class": "logging.StreamHandler", "formatter": "default", "stream": "ext://sys.stderr"},
            "access": {"class": "logging.StreamHandler", "formatter": "access", "stream": "ext://sys.stderr"},
        },
        "loggers": {
            "hpckg": {"handlers": ["default"], "level": level.upper(), "propagate": False},
            "uvicorn": {"handlers": ["default"], "level": level.upper(), "propagate": False},
            "uvicorn.access": {"handlers": ["access"], "level": "INFO" if access else "WARNING",
                               "propagate": False},
        },
    })


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535 (argparse's type: anything else exits 2 saying so). The kernel would take
    99999 modulo 65536 for another port without a word."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is a number from 0 to 65535, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 0 to 65535, not {port}")
    return port


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: any free port), for uvicorn to serve on."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                         flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit it: a response written in two parts must not wait for a delayed ACK.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def releases_folder(args: argparse.Namespace, project: Project) -> Path | None:
    """--releases, else the project's dist/releases when a release was made there."""
    if args.releases:
        folder = Path(args.releases)
        if not folder.is_dir():
            raise InputError(f"--releases {args.releases}: no such folder; `hpckg release --out DIR` writes one")
        return folder
    return default_releases(project)


def default_releases(project: Project) -> Path | None:
    """The project's dist/releases when a release was made there."""
    from hpckg.cli.release import DEFAULT_RELEASES

    folder = project.root / DEFAULT_RELEASES
    return folder if folder.is_dir() else None


def announcing_server(config: uvicorn.Config, announcement: str) -> uvicorn.Server:
    """A uvicorn server that prints `announcement` (its URL) once it answers requests, not when its socket
    is bound: a visitor (or a script waiting for the line) who came earlier would wait for uvicorn's own
    start, 0.1-0.3 s, and that wait was counted as the first page's."""
    import uvicorn  # noqa: F811 - imported when a server starts (the CLI's other commands do without)

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if not self.should_exit:
                print(announcement, flush=True)

    return AnnouncingServer(config)


def run(args: argparse.Namespace, project: Project) -> int:
    import uvicorn

    from hpckg.serve.app import Settings, create_app
    from hpckg.serve.protocol import MAX_HEAD, CoalescingHTTPProtocol

    if args.workers < 1:
        raise InputError("--workers must be at least 1")
    if args.slow_slots is not None and not 1 <= args.slow_slots <= args.workers:
        raise InputError("--slow-slots must be between 1 and --workers")
    if args.timeout <= 0:
        raise InputError("--timeout must be a positive number of seconds")
    if args.max_results < 1:
        raise InputError("--max-results must be at least 1")
    if args.answer_cache < 0:
        raise InputError("--answer-cache must be 0 (off) or a number of megabytes")
    if args.query_memory < 0:
        raise InputError("--query-memory must be 0 (unbounded) or a number of megabytes")
    import ipaddress

    for proxy in args.trusted_proxy:
        try:
            ipaddress.ip_network(proxy, strict=False)
        except ValueError:
            raise InputError(f"--trusted-proxy {proxy!r} is not an IP address or network") from None
    if not args.base_iri.endswith(("/", "#")):
        raise InputError("--base-iri must end with / (entity IRIs are <base>id/<kind>/<slug>)")
    from hpckg.store import require_built

    location = store_location(args, project)
    if isinstance(location, str):  # a SPARQL server's query URL: queries, pages and data are read from it
        if args.allow_update_token:
            raise InputError("--allow-update-token works on the embedded store only; update a SPARQL server "
                             "through its own endpoint")
        store: Path | str = location
    else:
        store = Path(location)
        require_built(store)  # the server follows the store path to each new generation a build makes
    level = args.log_level or ("info" if args.verbose else "warning")
    configure_logging(level, access=args.verbose)
    settings = Settings(project=project, store_path=store, timeout=args.timeout, max_results=args.max_results,
                        update_token=args.allow_update_token, allow_service=args.allow_service,
                        workers=args.workers, rate_limit=args.rate_limit, base_iri=args.base_iri,
                        cache_bytes=int(args.answer_cache * (1 << 20)), query_memory_mb=args.query_memory,
                        slow_slots=args.slow_slots,
                        trusted_proxies=tuple(args.trusted_proxy), releases_dir=releases_folder(args, project))
    try:
        sock = bind(args.host, args.port)
    except OSError as error:
        raise StoreError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from None
    signal.signal(signal.SIGTERM, _stop)
    app = None
    try:
        app = create_app(settings)
        host, port = sock.getsockname()[:2]
        shown = f"[{host}]" if ":" in str(host) else host
        announcement = (f"hpckg serving {store} at http://{shown}:{port}/ (SPARQL endpoint "
                        f"http://{shown}:{port}/sparql)")
        config = uvicorn.Config(app, http=CoalescingHTTPProtocol, log_config=None, log_level=level,
                                access_log=args.verbose, server_header=False, proxy_headers=False, lifespan="on",
                                ws="none", timeout_graceful_shutdown=5, h11_max_incomplete_event_size=MAX_HEAD)
        # uvicorn stops on SIGTERM and SIGINT itself, then raises the signal again: _stop turns it into
        # KeyboardInterrupt, which ends the command cleanly below.
        announcing_server(config, announcement).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        print("stopping", file=sys.stderr, flush=True)
        if app is not None:
            app.state.service.close()
        sock.close()
    return 0
