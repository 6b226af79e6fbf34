"""Fetch cited pages politely and safely (httpx, asyncio), and say every way it can fail as a check result.

- Only http(s) URLs, and only to public addresses: every host (the first and each redirect's) is resolved
  and refused when any of its addresses is private, loopback, link-local, reserved or multicast, so a page
  cannot point the verifier at the machine or network it runs on. `allow_loopback` (for tests against a
  local server) admits loopback addresses only; private ones stay refused.
- Redirects are followed by hand, each hop checked again; a loop or more than `max_redirects` hops is a
  result of its own.
- robots.txt is read once per host (urllib.robotparser) and obeyed for the user agent `hpckg-verify`.
- Politeness: at most `per_host` requests at once to one host, `delay` seconds apart (or the Crawl-delay of
  its robots.txt, up to a minute, when longer); `concurrency` in all.
- Connect and read timeouts, a cap on the size read (`max_bytes`), retries with exponential backoff on 429
  and 5xx that honour Retry-After (up to `max_retry_after`).
- A local cache (`cache_dir`) keeps each page read with its ETag and Last-Modified: a re-run asks
  conditionally and an answer of 304 Not Modified re-reads the cached copy instead of downloading it again.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import hashlib
import ipaddress
import json
import os
import socket
import ssl
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import httpx

from hpckg import __version__

AGENT_TOKEN = "hpckg-verify"
DEFAULT_CONTACT = "https://w3id.org/hpckg"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
ROBOTS_MAX_BYTES = 512_000


@dataclass
class FetchOptions:
    concurrency: int = 16
    per_host: int = 2
    delay: float = 1.0
    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    total_timeout: float = 180.0
    max_bytes: int = 25_000_000
    max_redirects: int = 10
    retries: int = 3
    backoff: float = 1.0
    max_retry_after: float = 120.0
    allow_loopback: bool = False
    contact: str = DEFAULT_CONTACT
    cache_dir: Path | None = None

    @property
    def user_agent(self) -> str:
        return f"{AGENT_TOKEN}/{__version__} (+{self.contact}; re-reads the sources cited in hpckg)"


@dataclass
class Fetched:
    """What asking for one URL gave: the answer (status, type, body) or the problem (a check-result name)."""

    url: str
    started: dt.datetime
    ended: dt.datetime | None = None
    final_url: str | None = None
    status: int | None = None
    content_type: str | None = None
    body: bytes | None = None
    problem: str | None = None
    detail: str | None = None
    attempts: int = 0
    redirects: list[str] = field(default_factory=list)
    from_cache: bool = False

    @property
    def sha256(self) -> str | None:
        return hashlib.sha256(self.body).hexdigest() if self.body is not None else None


class Refused(Exception):
    """A fetch that stops with a check result (`problem`) and a detail."""

    def __init__(self, problem: str, detail: str, status: int | None = None):
        super().__init__(detail)
        self.problem, self.detail, self.status = problem, detail, status


# --- Addresses ------------------------------------------------------------------------------------------


def address_allowed(address: str, *, allow_loopback: bool) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return allow_loopback
    return ip.is_global and not ip.is_multicast


async def check_host(url: str, *, allow_loopback: bool) -> None:
    """Refuse a URL that is not http(s), or whose host resolves to an address that is not public."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused("unsupported-url", f"only http and https URLs are fetched, not {url!r}")
    host = parts.hostname
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as error:
        raise Refused("unsupported-url", f"bad port in {url!r}: {error}") from error
    try:
        addresses = [host] if _is_ip(host) else [
            info[4][0] for info in await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)]
    except (socket.gaierror, UnicodeError) as error:
        raise Refused("dns-error", f"{host} does not resolve: {error}") from error
    refused = [a for a in addresses if not address_allowed(a, allow_loopback=allow_loopback)]
    if refused:
        raise Refused("forbidden-address", f"{host} resolves to {refused[0]}, which is not a public address; "
                      "hpckg verify only fetches from public addresses")


class GuardedBackend:
    """httpcore's network backend, connecting only to the addresses `check_host` allows: the host is resolved
    here, each address checked, and the connection made to that checked address (TLS still verifies the
    certificate for the host name), so a DNS answer that changes between the check and the connection (DNS
    rebinding) cannot reach a private address."""

    def __init__(self, inner, *, allow_loopback: bool):
        self.inner, self.allow_loopback = inner, allow_loopback

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                          socket_options=None):
        if _is_ip(host):
            addresses = [host]
        else:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except (socket.gaierror, UnicodeError) as error:
                raise Refused("dns-error", f"{host} does not resolve: {error}") from error
            addresses = list(dict.fromkeys(info[4][0] for info in infos))
        refused = [a for a in addresses if not address_allowed(a, allow_loopback=self.allow_loopback)]
        if refused or not addresses:
            raise Refused("forbidden-address", f"{host} resolves to {refused[0] if refused else 'nothing'}, which "
                          "is not a public address; hpckg verify only fetches from public addresses")
        for number, address in enumerate(addresses, start=1):  # each checked address in turn (IPv6, then IPv4)
            try:
                return await self.inner.connect_tcp(address, port, timeout=timeout, local_address=local_address,
                                                    socket_options=socket_options)
            except Exception:
                if number == len(addresses):
                    raise
        raise AssertionError("unreachable")

    async def connect_unix_socket(self, *args, **kwargs):
        raise Refused("unsupported-url", "hpckg verify does not connect to Unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def guarded_transport(*, allow_loopback: bool, **kwargs) -> httpx.AsyncHTTPTransport:
    """An httpx transport whose connections go through GuardedBackend (refusing to start without it)."""
    transport = httpx.AsyncHTTPTransport(**kwargs)
    pool = getattr(transport, "_pool", None)
    if pool is None or not hasattr(pool, "_network_backend"):
        raise RuntimeError("this httpx/httpcore version hides its network backend; hpckg verify will not fetch "
                           "without checking the address it connects to")
    pool._network_backend = GuardedBackend(pool._network_backend, allow_loopback=allow_loopback)
    return transport


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


# --- The local cache --------------------------------------------------------------------------------------


class Cache:
    """Pages read before, by URL: the body and its validators (ETag, Last-Modified), written atomically."""

    def __init__(self, folder: Path | None):
        self.folder = folder

    def _paths(self, url: str) -> tuple[Path, Path] | None:
        if self.folder is None:
            return None
        key = hashlib.sha256(url.encode()).hexdigest()
        base = self.folder / key[:2] / key
        return base.with_suffix(".json"), base.with_suffix(".body")

    def get(self, url: str) -> tuple[dict, bytes] | None:
        paths = self._paths(url)
        if paths is None:
            return None
        try:
            meta = json.loads(paths[0].read_text(encoding="utf-8"))
            body = paths[1].read_bytes()
        except (OSError, ValueError):
            return None
        return (meta, body) if hashlib.sha256(body).hexdigest() == meta.get("sha256") else None

    def put(self, url: str, response: httpx.Response, body: bytes) -> None:
        paths = self._paths(url)
        if paths is None:
            return
        meta = {"url": url, "etag": response.headers.get("etag"),
                "last_modified": response.headers.get("last-modified"),
                "content_type": response.headers.get("content-type"), "sha256": hashlib.sha256(body).hexdigest()}
        if not (meta["etag"] or meta["last_modified"]):
            return  # nothing to revalidate with: a re-run downloads it again anyway
        _atomic_write(paths[1], body)
        _atomic_write(paths[0], json.dumps(meta).encode())


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# --- The fetcher ------------------------------------------------------------------------------------------


class _Host:
    def __init__(self, per_host: int, delay: float):
        self.delay = delay
        self.slots = asyncio.Semaphore(per_host)
        self.turn = asyncio.Lock()
        self.next_at = 0.0
        self.robots_lock = asyncio.Lock()
        self.robots: RobotFileParser | None = None
        self.robots_read = False


class Fetcher:
    """One run's HTTP client, host queues, robots.txt rules and cache. Use as `async with Fetcher(...)`."""

    def __init__(self, options: FetchOptions):
        self.options = options
        self.cache = Cache(options.cache_dir)
        self.hosts: dict[str, _Host] = {}
        self.client: httpx.AsyncClient | None = None

    async def __aenter__(self) -> Fetcher:
        o = self.options
        self.client = httpx.AsyncClient(
            follow_redirects=False, headers={"User-Agent": o.user_agent, "Accept-Encoding": "gzip, deflate"},
            timeout=httpx.Timeout(connect=o.connect_timeout, read=o.read_timeout, write=o.read_timeout,
                                  pool=None),
            transport=guarded_transport(allow_loopback=o.allow_loopback, limits=httpx.Limits(
                max_connections=max(o.concurrency, 1) * 2, max_keepalive_connections=32)))
        return self

    async def __aexit__(self, *exc) -> None:
        if self.client is not None:
            await self.client.aclose()

    def _host(self, url: str) -> _Host:
        parts = urlsplit(url)
        key = f"{parts.scheme}://{parts.netloc}"
        if key not in self.hosts:
            self.hosts[key] = _Host(self.options.per_host, self.options.delay)
        return self.hosts[key]

    async def fetch(self, url: str) -> Fetched:
        """Fetch `url` (following redirects) into a Fetched; never raises for what the web does."""
        result = Fetched(url=url, started=dt.datetime.now(dt.UTC))
        try:
            await asyncio.wait_for(self._fetch(url, result), timeout=self.options.total_timeout)
        except TimeoutError:
            result.problem, result.detail = "timeout", f"no complete answer in {self.options.total_timeout:g} s"
        except Refused as refused:
            result.problem, result.detail = refused.problem, refused.detail
            result.status = refused.status if refused.status is not None else result.status
        result.ended = dt.datetime.now(dt.UTC)
        if result.problem:
            result.body = None
        return result

    async def _fetch(self, url: str, result: Fetched) -> None:
        o = self.options
        cached = self.cache.get(url)
        current, seen = url, {url}
        for _hop in range(o.max_redirects + 1):
            await check_host(current, allow_loopback=o.allow_loopback)
            if not await self.robots_allow(current):
                raise Refused("robots-disallowed", f"{urlsplit(current).netloc}/robots.txt disallows "
                              f"{urlsplit(current).path or '/'} for {AGENT_TOKEN}")
            headers = {}
            if cached and current == url:
                meta = cached[0]
                if meta.get("etag"):
                    headers["If-None-Match"] = meta["etag"]
                if meta.get("last_modified"):
                    headers["If-Modified-Since"] = meta["last_modified"]
            response, body = await self._request(current, headers, result)
            result.final_url, result.status = current, response.status_code
            result.content_type = response.headers.get("content-type")
            if response.is_redirect and "location" in response.headers:
                target = urljoin(current, response.headers["location"])
                result.redirects.append(target)
                if target in seen:
                    raise Refused("redirect-loop", f"{current} redirects back to {target}", response.status_code)
                seen.add(target)
                current = target
                continue
            if response.status_code == 304 and cached:
                meta, body = cached
                result.body, result.from_cache = body, True
                result.content_type = meta.get("content_type") or result.content_type
                return
            if not 200 <= response.status_code < 300:
                raise _status_problem(response)
            result.body = body
            self.cache.put(url, response, body)
            return
        raise Refused("redirect-loop", f"more than {o.max_redirects} redirects", result.status)

    async def _request(self, url: str, headers: dict[str, str], result: Fetched) -> tuple[httpx.Response, bytes]:
        """One GET under the host's politeness rules, retried on 429 and 5xx; the body read up to the cap."""
        o = self.options
        host = self._host(url)
        for attempt in range(o.retries + 1):
            async with host.slots:
                async with host.turn:
                    wait = host.next_at - time.monotonic()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    host.next_at = time.monotonic() + host.delay
                result.attempts += 1
                response, body = await self._send(url, headers)
            if response.status_code in RETRY_STATUSES and attempt < o.retries:
                wait = retry_after(response.headers.get("retry-after"))
                if wait is not None and wait > o.max_retry_after:
                    return response, body  # the server asks for a longer pause than this run will wait
                await asyncio.sleep(wait if wait is not None else o.backoff * 2 ** attempt)
                continue
            return response, body
        raise AssertionError("unreachable")

    async def _send(self, url: str, headers: dict[str, str]) -> tuple[httpx.Response, bytes]:
        assert self.client is not None
        cap = self.options.max_bytes
        try:
            request = self.client.build_request("GET", url, headers=headers)
            response = await self.client.send(request, stream=True)
        except (httpx.TimeoutException, TimeoutError) as error:
            raise Refused("timeout", f"{type(error).__name__}: no answer in time from {urlsplit(url).netloc}") \
                from error
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as error:
            raise Refused("unsupported-url", str(error)) from error
        except (httpx.HTTPError, OSError, ssl.SSLError) as error:
            raise _network_problem(error) from error
        try:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > cap:
                raise Refused("too-large", f"the page is {int(declared):,} bytes, more than the cap of {cap:,}",
                              response.status_code)
            if response.is_redirect or response.status_code in RETRY_STATUSES or response.status_code == 304:
                return response, b""
            chunks, size = [], 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > cap:
                    raise Refused("too-large", f"the page is more than the cap of {cap:,} bytes",
                                  response.status_code)
                chunks.append(chunk)
            return response, b"".join(chunks)
        except (httpx.TimeoutException, TimeoutError) as error:
            raise Refused("timeout", f"{type(error).__name__} while reading the page", response.status_code) \
                from error
        except (httpx.HTTPError, OSError, ssl.SSLError) as error:
            problem = _network_problem(error)
            problem.status = response.status_code
            raise problem from error
        finally:
            await response.aclose()

    async def robots_allow(self, url: str) -> bool:
        """Whether the host's robots.txt lets hpckg-verify fetch `url` (read once per host per run)."""
        host = self._host(url)
        async with host.robots_lock:
            if not host.robots_read:
                host.robots = await self._read_robots(url)
                host.robots_read = True
                crawl_delay = host.robots.crawl_delay(AGENT_TOKEN) if host.robots is not None else None
                if crawl_delay:  # the site's Crawl-delay, when longer than ours (up to a minute)
                    host.delay = max(host.delay, min(float(crawl_delay), 60.0))
        return host.robots is None or host.robots.can_fetch(AGENT_TOKEN, url)

    async def _read_robots(self, url: str) -> RobotFileParser | None:
        """The host's rules; None (everything allowed) when it has none (4xx) or cannot be reached; a server
        error (5xx) disallows everything for this run, as RFC 9309 says."""
        parts = urlsplit(url)
        robots_url = f"{parts.scheme}://{parts.netloc}/robots.txt"
        parser = RobotFileParser(robots_url)
        current = robots_url
        try:
            for _ in range(5):
                await check_host(current, allow_loopback=self.options.allow_loopback)
                response, body = await self._request(current, {}, Fetched(current, dt.datetime.now(dt.UTC)))
                if response.is_redirect and "location" in response.headers:
                    current = urljoin(current, response.headers["location"])
                    continue
                if response.status_code >= 500:
                    parser.disallow_all = True
                    return parser
                if response.status_code >= 400:
                    return None
                parser.parse(body[:ROBOTS_MAX_BYTES].decode("utf-8", errors="replace").splitlines())
                return parser
        except Refused:
            return None
        return None


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


def _status_problem(response: httpx.Response) -> Refused:
    code = response.status_code
    reason = f"HTTP {code} {response.reason_phrase}".strip()
    if code == 404:
        return Refused("not-found", reason, code)
    if code == 410:
        return Refused("gone", reason, code)
    if code == 401:
        return Refused("login-wall", reason + ": the page needs a login", code)
    if code == 429:
        return Refused("rate-limited", reason + f" after {response.headers.get('retry-after') or 'retries'}", code)
    return Refused("http-error", reason, code)


def _network_problem(error: BaseException) -> Refused:
    """DNS, TLS or connection failure, from the exception and its causes."""
    seen, chain = set(), []
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append(current)
        current = current.__cause__ or current.__context__
    text = f"{type(error).__name__}: {error}".strip()
    if any(isinstance(e, ssl.SSLError) for e in chain) or "SSL" in text or "certificate" in text.lower():
        return Refused("tls-error", text)
    if any(isinstance(e, socket.gaierror) for e in chain) or "Name or service not known" in text:
        return Refused("dns-error", text)
    return Refused("connection-error", text)
