"""What the server publishes about the dataset: the current export as dump files at stable URLs
(/dumps/hpckg.<ext>), the releases `hpckg release` wrote (/releases/<version>/<file>), and the DCAT-AP
description and schema.org markup that point at them.

Dump files are written once per store generation, on first request, next to the store
(<store>.dumps/<generation>/); every file is answered by Starlette's FileResponse (ETag, Last-Modified,
Range) after a conditional-request check, and a dump is sent gzip-encoded to a client that accepts it.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from pathlib import Path

import pyoxigraph as ox
from starlette.requests import Request
from starlette.responses import FileResponse, Response

from hpckg.export import refresh_description, serialize_dataset
from hpckg.formats import RDF_FORMATS, RdfFormatInfo
from hpckg.publish.description import Dump, describe
from hpckg.publish.schemaorg import dataset_jsonld
from hpckg.publish.settings import PublisherSettings
from hpckg.serve import urls
from hpckg.store import GraphStore, Store

EXTENSIONS = {fmt.extension: fmt for fmt in RDF_FORMATS.values()}
GZIP_MTIME = 0  # a gzip file's header carries no time, so the same dump gives the same bytes


def server_dumps(absolute: Callable[[str], str]) -> list[Dump]:
    """The current export in every format at this server's stable dump URLs."""
    return [Dump(fmt, absolute(urls.dump(fmt.extension))) for fmt in RDF_FORMATS.values()]


def release_dumps(folder: Path, absolute: Callable[[str], str]) -> list[Dump]:
    """A release's gzip dumps at this server's URLs, with their sizes and SHA-256 (from its SHA256SUMS)."""
    sums = {}
    checksums = folder / "SHA256SUMS"
    if checksums.is_file():
        for line in checksums.read_text(encoding="utf-8").splitlines():
            sha, _, name = line.partition("  ")
            sums[name] = sha
    dumps = []
    for fmt in RDF_FORMATS.values():
        path = folder / f"hpckg.{fmt.extension}.gz"
        if path.is_file():
            dumps.append(Dump(fmt, absolute(urls.release_file(folder.name, path.name)), gzip=True,
                              byte_size=path.stat().st_size, sha256=sums.get(path.name)))
    return dumps


def gzip_bytes(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=GZIP_MTIME)


class Publication:
    """The dump files and descriptions of the store generation being served, made once each."""

    def __init__(self, settings: PublisherSettings, dumps_root: Path, releases: Path | None):
        self.settings = settings
        self.dumps_root = dumps_root
        self.releases = releases
        self._lock = threading.Lock()
        self._documents: dict[tuple[str, ...], list[dict | bytes]] = {}
        self._described: tuple[tuple, list[ox.Triple]] | None = None

    def forget(self) -> None:
        """Drop the descriptions made so far (after an update changed the store in place)."""
        with self._lock:
            self._described, self._documents = None, {}

    def dumps(self, absolute: Callable[[str], str]) -> list[Dump]:
        """What the description lists: the current export, and the latest release's dumps when there is one."""
        names = self.release_names()
        latest = release_dumps(self.releases / names[-1], absolute) if names and self.releases else []
        return server_dumps(absolute) + latest

    def description(self, store: GraphStore, endpoint: str, absolute: Callable[[str], str]) -> list[ox.Triple]:
        """The DCAT-AP + VoID description with this server's endpoint and dumps (its counts read the whole
        store, so it is made once per store generation, host and set of releases)."""
        key = (id(store), endpoint, absolute("/"), *self.release_names())
        with self._lock:
            if self._described is None or self._described[0] != key:
                triples = list(dict.fromkeys(describe(store, endpoint=endpoint, dumps=self.dumps(absolute),
                                                      settings=self.settings)))
                self._described = (key, triples)
            return self._described[1]

    def home_documents(self, store: GraphStore, generation: Path, absolute: Callable[[str], str]) -> list[dict | bytes]:
        """The home page's structured data: the schema.org Dataset as JSON-LD, computed once per store generation
        and host. The DCAT-AP description (150 KB on a two-edition store) is linked, not embedded: it is served
        at /.well-known/void, which the page names in its <link rel="alternate">."""
        key = (str(generation), absolute("/"), *self.release_names())
        with self._lock:
            if key not in self._documents:
                self._documents = {key: [dataset_jsonld(store, self.settings, self.dumps(absolute))]}
            return self._documents[key]

    def dump_file(self, store: GraphStore, generation: Path, fmt: RdfFormatInfo, *, compressed: bool,
                  revision: int = 0) -> Path:
        """The current export in one format (gzip-compressed or not), written on first request; `revision`
        counts the updates applied to this generation in place."""
        folder = self.dumps_root / f"{generation.name}-{revision}"
        path = folder / f"hpckg.{fmt.extension}"
        target = path.with_name(path.name + ".gz") if compressed else path
        with self._lock:
            if not target.exists():
                folder.mkdir(parents=True, exist_ok=True)
                copy = Store(None)
                copy.load_quads(store.quads())
                refresh_description(copy, dumps=server_dumps(self._site_absolute), settings=self.settings)
                data = serialize_dataset(copy, fmt)
                for file, content in ((path, data), (path.with_name(path.name + ".gz"), gzip_bytes(data))):
                    partial = file.with_name(file.name + ".partial")
                    partial.write_bytes(content)
                    partial.replace(file)
        return target

    def _site_absolute(self, path: str) -> str:
        return self.settings.url(path)

    def release_file(self, version: str, name: str) -> Path | None:
        """A file of a release folder, or None when there is no such release or file."""
        if self.releases is None or not _safe(version) or not _safe(name):
            return None
        path = self.releases / version / name
        return path if path.is_file() else None

    def release_names(self) -> list[str]:
        if self.releases is None or not self.releases.is_dir():
            return []
        return sorted(p.name for p in self.releases.iterdir() if p.is_dir() and _safe(p.name))


def _safe(segment: str) -> bool:
    return bool(segment) and segment not in (".", "..") and "/" not in segment and "\\" not in segment \
        and not segment.startswith(".")


def file_response(request: Request, path: Path, media_type: str, headers: dict[str, str] | None = None) -> Response:
    """A file with ETag, Last-Modified and range requests (Starlette's FileResponse), or 304 Not Modified
    when the client's copy is current (If-None-Match, else If-Modified-Since)."""
    response = FileResponse(path, media_type=media_type, headers=headers or {}, stat_result=path.stat())
    etag, modified = response.headers["etag"], response.headers["last-modified"]
    if_none_match = request.headers.get("if-none-match")
    if if_none_match is not None:
        tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
        if etag in tags or "*" in tags:
            return _not_modified(etag, modified, headers)
    elif "if-modified-since" in request.headers:
        try:
            since = parsedate_to_datetime(request.headers["if-modified-since"])
            if parsedate_to_datetime(modified) <= since:
                return _not_modified(etag, modified, headers)
        except (TypeError, ValueError):
            pass  # an unreadable date is ignored, as RFC 9110 asks
    return response


def _not_modified(etag: str, modified: str, headers: dict[str, str] | None) -> Response:
    kept = {k: v for k, v in (headers or {}).items() if k.lower() in ("vary", "cache-control", "content-location")}
    return Response(status_code=304, headers={"ETag": etag, "Last-Modified": modified, **kept})


RELEASE_MEDIA_TYPES = {".gz": "application/gzip", ".md": "text/markdown; charset=utf-8",
                       ".cff": "application/x-yaml; charset=utf-8", ".txt": "text/plain; charset=utf-8",
                       **{"." + ext: fmt.media_type for ext, fmt in EXTENSIONS.items()}}


def release_media_type(name: str) -> str:
    """The media type of a release file by its extension: dumps are gzip files, the rest text or RDF."""
    return RELEASE_MEDIA_TYPES.get(Path(name).suffix, "application/octet-stream")


def accepts_gzip(request: Request) -> bool:
    for item in request.headers.get("accept-encoding", "").split(","):
        coding, _, params = item.strip().partition(";")
        if coding.strip().lower() in ("gzip", "x-gzip"):
            return params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False
