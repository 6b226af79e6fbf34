"""The imported datasets' graphs taken from a published release instead of from the source files.

A pull request's CI has the repository but not the public datasets (they are never committed), so a check there
saw only the curated data: an enrichment of an imported machine was "undefined" in CI and fine on a laptop.
`hpckg import --from-release LOCATION` writes each import graph of a release's N-Quads dump back to the file
the importer writes it to (.hpckg/graphs/import/NAME/EDITION.nq), so that `hpckg build` then makes the same
graph a laptop that imported the files makes, and `hpckg check` gives the same answer in both places.

LOCATION is a release folder (`hpckg release` writes them; `hpckg serve --releases` serves them at
/releases/VERSION/), its `hpckg.nq.gz`, a server's current dump (/dumps/hpckg.nq), or a path to any of these.
When the folder has a SHA256SUMS, the dump must match it. Only graphs under the import namespace are taken:
the curated data comes from the checkout, the derived facts from the build.

A restored file's header names the release, not a source file's SHA-256: where the source files are present,
`hpckg build` (or `hpckg import`) re-imports them over it, so local files always win.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pyoxigraph as ox

from hpckg import machinegraphs
from hpckg.errors import InputError
from hpckg.namespaces import GRAPH

RELEASE_DUMP = "hpckg.nq.gz"
IMPORT_GRAPHS = GRAPH + "import/"
BATCH = 50_000  # quads kept per graph before they are appended to its file


@dataclass
class Restored:
    location: str  # what was read: a path, or the URL the dump came from
    version: str  # the release's name (its folder's), or "dump" when the location names no release
    sha256: str  # of the dump's bytes as read
    graphs: dict[str, int]  # graph file (relative to the graphs folder) -> quads

    def to_text(self) -> str:
        total = sum(self.graphs.values())
        return (f"restored {len(self.graphs)} import graphs ({total:,} quads) from release {self.version} "
                f"({self.location}, sha256 {self.sha256[:16]}…)")


def restore(location: str, graphs: Path, *, say: Callable[[str], None] | None = None) -> Restored:
    """Write the import graphs of the release at `location` under the graphs folder `graphs`; each file is
    replaced whole and atomically, and only once the whole dump has been read (a broken dump changes nothing)."""
    with tempfile.TemporaryDirectory(prefix="hpckg-release-") as scratch:
        dump, shown, sums = _fetch(location, Path(scratch), say)
        sha256 = _sha256(dump)
        if sums is not None and sums.get(dump.name.removesuffix(".download")) not in (None, sha256):
            raise InputError(f"{shown} does not match its release's SHA256SUMS (sha256 {sha256}); download it "
                             "again, or name another release")
        version = _version(location)
        staging = Path(tempfile.mkdtemp(prefix=".restore-", dir=_mkdir(graphs)))
        try:
            counts = _split(dump, staging, graphs, {"release": version, "dump": sha256[:16]}, shown)
            if not counts:
                raise InputError(f"{shown} holds no imported dataset's graph (none under {IMPORT_GRAPHS}): is it "
                                 "an hpckg release's N-Quads dump?")
            for relative in counts:
                target = graphs / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(staging / relative, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return Restored(shown, version, sha256, counts)


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _is_url(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def _dump_name(location: str) -> str | None:
    """The dump's file name when the location names a file, else None (a release folder)."""
    name = urlsplit(location).path.rstrip("/").rsplit("/", 1)[-1] if _is_url(location) else Path(location).name
    return name if name.endswith((".nq", ".nq.gz")) else None


def _version(location: str) -> str:
    """The release's name: the folder the dump is in (or the folder named), e.g. 2026-12."""
    path = unquote(urlsplit(location).path) if _is_url(location) else location
    parts = [part for part in path.rstrip("/").split("/") if part]
    if _dump_name(location) is not None:
        parts = parts[:-1]
    name = parts[-1] if parts else ""
    return name if re.fullmatch(r"[A-Za-z0-9._-]{1,64}", name) and name not in ("dumps", ".", "..") else "dump"


def _fetch(location: str, scratch: Path, say) -> tuple[Path, str, dict[str, str] | None]:
    """The dump as a local file, how to name it in messages, and the release's SHA256SUMS when there is one."""
    named = _dump_name(location)
    if not _is_url(location):
        path = Path(location)
        dump = path if named is not None else path / RELEASE_DUMP
        if not dump.is_file():
            raise InputError(f"no release dump at {dump}: name a release folder (holding {RELEASE_DUMP}), or the "
                             "dump itself")
        sums_file = dump.parent / "SHA256SUMS"
        return dump, str(dump), _parse_sums(sums_file.read_text()) if sums_file.is_file() else None
    import httpx

    folder = location if named is None else location[: location.rstrip("/").rfind("/") + 1]
    url = location if named is not None else location.rstrip("/") + "/" + RELEASE_DUMP
    dump = scratch / ((named or RELEASE_DUMP) + ".download")
    if say:
        say(f"downloading {url} ...")
    try:
        with httpx.stream("GET", url, follow_redirects=True, timeout=60) as response:
            if response.status_code != 200:
                raise InputError(f"{url} answered {response.status_code}: no release dump there")
            with dump.open("wb") as out:  # as sent: SHA256SUMS is of the file's bytes; _open sniffs gzip
                for chunk in response.iter_raw():
                    out.write(chunk)
        sums_answer = httpx.get(folder.rstrip("/") + "/SHA256SUMS", follow_redirects=True, timeout=60)
    except httpx.HTTPError as error:
        raise InputError(f"cannot download {url}: {error}") from None
    sums = _parse_sums(sums_answer.text) if sums_answer.status_code == 200 else None
    return dump, url, sums


def _parse_sums(text: str) -> dict[str, str]:
    sums = {}
    for line in text.splitlines():
        digest, _, name = line.partition("  ")
        if re.fullmatch(r"[0-9a-f]{64}", digest) and name:
            sums[name.strip()] = digest
    return sums


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _open(dump: Path):
    with dump.open("rb") as probe:
        compressed = probe.read(2) == b"\x1f\x8b"
    return gzip.open(dump, "rb") if compressed else dump.open("rb")


def _split(dump: Path, staging: Path, graphs: Path, header: dict[str, str], shown: str) -> dict[str, int]:
    """Each import graph's quads into its file under `staging` (laid out as under `graphs`); quads -> count."""
    files: dict[str, tuple[Path, object]] = {}  # graph IRI -> (its file relative to the graphs folder, handle)
    buffers: dict[str, list[ox.Quad]] = {}
    counts: dict[str, int] = {}
    fields = " ".join(f"{key}={value}" for key, value in header.items())

    def flush(graph: str) -> None:
        relative, handle = files[graph]
        ox.serialize(buffers[graph], handle, ox.RdfFormat.N_QUADS)
        counts[str(relative)] += len(buffers[graph])
        buffers[graph] = []

    try:
        with _open(dump) as source:
            try:
                for quad in ox.parse(source, ox.RdfFormat.N_QUADS):
                    name = quad.graph_name
                    if not isinstance(name, ox.NamedNode) or not name.value.startswith(IMPORT_GRAPHS):
                        continue
                    graph = name.value
                    if graph not in files:
                        parts = [unquote(part) for part in graph[len(IMPORT_GRAPHS):].split("/") if part]
                        target = machinegraphs.graph_file(graphs, "import", *parts)
                        relative = target.relative_to(graphs)
                        (staging / relative).parent.mkdir(parents=True, exist_ok=True)
                        handle = (staging / relative).open("wb")
                        handle.write(f"# hpckg import {fields}\n".encode())
                        files[graph], buffers[graph], counts[str(relative)] = (relative, handle), [], 0
                    buffers[graph].append(quad)
                    if len(buffers[graph]) >= BATCH:
                        flush(graph)
            except (SyntaxError, OSError, EOFError, ValueError) as error:
                raise InputError(f"{shown} is not a readable N-Quads dump: {error}") from None
        for graph in files:
            flush(graph)
    finally:
        for _, handle in files.values():
            handle.close()  # type: ignore[attr-defined]
    return counts
