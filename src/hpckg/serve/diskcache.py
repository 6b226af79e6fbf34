"""The website's precomputed figures kept on disk, one folder per store generation, so a server that restarts (or
a second server on the same build) reads them back instead of computing them again: minutes on the full graph
otherwise, during which the first visitors wait.

A folder is named by a digest of the generation's identity (GraphStore.generation_id: the generation folder's
absolute path, or a server's URL#generation), the base IRI the pages link under, the code's version (FORMAT) and
the texts of the project's canned queries, so a figure is never read for another build than the one it was
computed from, nor by code or a query that computes it differently (a canned query edited after the build is
answered anew, not from the build's kept answer). `hpckg build` writes a new generation's figures before it
switches to it (hpckg.serve.prepare), so a server's first visitors find them here. Only read-only stores use it:
a store that takes SPARQL Update changes without a new generation. Each file is JSON written to a temporary name
and renamed into place (a reader sees a whole file or none); a file that cannot be read is computed again.
Folders not used lately are removed (KEPT).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
from pathlib import Path

from hpckg import __version__
from hpckg.project import Project, is_server_url

logger = logging.getLogger("hpckg.serve")
# Part of every folder's name with hpckg's version: raise it when a kept figure changes what it holds, so
# no server reads what an older version of the code computed.
FORMAT = 2
KEPT = 4  # generation folders kept: the one served, the previous build's, and other servers' on this project
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class GenerationCache:
    """JSON documents computed from one store generation, in `root`/<digest of the identity>/."""

    def __init__(self, root: Path, identity: str):
        self.root = root
        keyed = f"{identity}\n{__version__}\n{FORMAT}"
        self.folder = root / hashlib.sha256(keyed.encode("utf-8")).hexdigest()[:24]
        self.identity = identity

    def path(self, name: str) -> Path:
        safe = _UNSAFE.sub("_", name)
        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]  # two names the substitution merges
        return self.folder / f"{safe[:80]}-{digest}.json"

    def has(self, name: str) -> bool:
        """Whether the document is kept (without reading it)."""
        return self.path(name).is_file()

    def read(self, name: str) -> object | None:
        try:
            text = self.path(name).read_text(encoding="utf-8")
        except OSError:
            return None
        try:
            return json.loads(text)
        except ValueError:
            logger.info("the cached %s is damaged; computing it again", name)
            return None

    def write(self, name: str, value: object) -> None:
        """Write one document atomically; best effort (a full disk or a read-only folder only costs time)."""
        partial = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / "generation.txt").write_text(self.identity + "\n", encoding="utf-8")
            handle, partial = tempfile.mkstemp(dir=self.folder, prefix=".partial-")
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(value, file, ensure_ascii=False, separators=(",", ":"))
            os.replace(partial, self.path(name))
        except (OSError, TypeError, ValueError) as error:  # TypeError: a value JSON cannot hold
            logger.info("could not keep the %s on disk: %s", name, error)
            if partial is not None:
                Path(partial).unlink(missing_ok=True)

    def touch_and_prune(self) -> None:
        """Mark this generation's folder as used now and remove all but the KEPT most recently used."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            os.utime(self.folder)
            folders = sorted((p for p in self.root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime,
                             reverse=True)
        except OSError:
            return
        for old in folders[KEPT:]:
            if old != self.folder:
                shutil.rmtree(old, ignore_errors=True)


def pages_folder(project: Project, store: Path | str) -> Path:
    """Where the generations of `store` keep their website figures (a server's and a build's, the same):
    beside an embedded store, as its generations and dumps are (`.hpckg/store.pages`), so that a server over
    another project's store (a test's, a copy) neither reads nor prunes this project's figures; in the
    project's .hpckg/cache/pages for a SPARQL server's query URL."""
    if is_server_url(store):
        return project.graphs.parent / "cache" / "pages"
    store = Path(store)
    return store.with_name(store.name + ".pages")


def queries_digest(project: Project) -> str:
    """A digest of the project's canned queries (names and texts), which the kept answers, lists and charts
    were computed with."""
    hashed = hashlib.sha256()
    for path in sorted(project.queries_dir.glob("*.rq")):
        hashed.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return hashed.hexdigest()[:16]


def for_generation(cache_root: Path | None, generation_id: str, base_iri: str, *, writable: bool,
                   project: Project) -> GenerationCache | None:
    """The disk cache of one generation as pages under `base_iri` show it (their links name it) with `project`'s
    canned queries, or None where figures must not outlive the process (a writable store, an in-memory one, or
    no cache folder)."""
    if cache_root is None or writable or generation_id == "memory":
        return None
    cache = GenerationCache(cache_root, f"{generation_id} {base_iri} {queries_digest(project)}")
    cache.touch_and_prune()
    return cache
