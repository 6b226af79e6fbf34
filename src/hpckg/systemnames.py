"""The systems of a built store by the keys of their names: what a new system's name is compared with when
a contribution is reviewed against the store (hpckg.contribute). One SQLite index per store generation,
written by `hpckg build` with the generation (from the graph it has just validated, so the first check after a
build does not scan the store: 3.5-4.5 s on the full import, growing with it), kept in the project's cache
folder and opened read-only by `hpckg check`; `hpckg serve` builds its own in memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

import pyoxigraph as ox

from hpckg.names import name_keys, strip_qualifier
from hpckg.namespaces import DERIVED_GRAPH, hpc
from hpckg.store import AnyStore, Store
from hpckg.terms import RDF_TYPE, RDFS_LABEL, SKOS_ALT_LABEL


def cache_folder(graphs: Path) -> Path:
    """Where a project keeps the indexes (.hpckg/cache/check/), beside its graphs folder (Project.graphs)."""
    return graphs.parent / "cache" / "check"


def index_path(folder: Path, identity: str) -> Path:
    """The index file of one store generation (identity: its resolved folder, or server URL#generation)."""
    return folder / (hashlib.sha256(identity.encode("utf-8")).hexdigest()[:24] + ".sqlite")


def store_identity(store: AnyStore) -> str:
    """The build a store handle reads, as the key of its index: GraphStore.generation_id, the absolute path
    of an embedded store's generation folder (what keep_for_generation files a build's index under) or a
    server's URL#generation."""
    return store.generation_id()


_SYSTEM_TYPES = f"SELECT ?s ?g WHERE {{ GRAPH ?g {{ ?s <{RDF_TYPE}> <{hpc('System')}> }} }}"
_NAMES = (f"SELECT ?s ?name WHERE {{ ?s <{RDF_TYPE}> <{hpc('System')}> . "
          f"?s <{RDFS_LABEL}>|<{SKOS_ALT_LABEL}>|<{hpc('slug')}> ?name }}")
_ASCII_JUNK = re.compile(r"[^a-z0-9]")


def _keys(name: str) -> set[str]:
    """names.name_keys, without its Unicode work for plain ASCII names (most of a big store's): for those,
    the skeleton and the accent folding change nothing, so the key is the lowercased letters and digits."""
    if not name.isascii():
        return name_keys(name)
    keys = {_ASCII_JUNK.sub("", name.lower()), _ASCII_JUNK.sub("", strip_qualifier(name).lower())}
    keys.discard("")
    return keys or name_keys(name)


class SystemNames:
    """The systems of one store generation by the keys of their names (labels, alternative labels, slugs):
    what a new system's name is compared with. Built with one scan of the store's systems, then answered
    by index look-ups (SQLite), so it is built once per store generation: `hpckg check` keeps it in the
    project's cache folder (cached), `hpckg serve` in memory."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self._lock = threading.Lock()

    @classmethod
    def build(cls, store: AnyStore, path: Path | None = None) -> SystemNames:
        """Scan the store into a new index, in memory or written to `path` (atomically: a temporary file
        renamed over it)."""
        reading = store.reading() if isinstance(store, Store) else contextlib.nullcontext()
        with reading:
            typed = [(row["s"].value, row["g"].value) for row in store.query(_SYSTEM_TYPES, union=False,
                                                                               prefixes=False)]
            named = [(row["s"].value, row["name"].value) for row in store.query(_NAMES, prefixes=False)
                     if isinstance(row["name"], ox.Literal)]
        temporary = path.with_name(f"{path.name}.{os.getpid()}.partial") if path is not None else None
        db = sqlite3.connect(str(temporary) if temporary else ":memory:", check_same_thread=False)
        db.execute("CREATE TABLE typed (iri TEXT, graph TEXT)")
        db.execute("CREATE TABLE names (key TEXT, iri TEXT)")
        db.executemany("INSERT INTO typed VALUES (?, ?)", typed)
        db.executemany("INSERT INTO names VALUES (?, ?)",
                       {(key, iri) for iri, name in named for key in _keys(name)})
        db.execute("CREATE INDEX names_key ON names (key)")
        db.execute("CREATE INDEX typed_iri ON typed (iri)")
        db.commit()
        if temporary is not None and path is not None:
            db.close()
            os.replace(temporary, path)
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        return cls(db)

    def matches(self, names: Iterable[str], skip_graphs: Iterable[str] = ()) -> set[str]:
        """The systems typed in a graph outside skip_graphs with a name sharing a key with one of `names`."""
        keys = sorted(set().union(*(name_keys(n) for n in names)))
        if not keys:
            return set()
        skip = sorted(set(skip_graphs) | {DERIVED_GRAPH})
        query = (f"SELECT DISTINCT n.iri FROM names n JOIN typed t ON t.iri = n.iri WHERE n.key IN "
                 f"({', '.join('?' * len(keys))}) AND t.graph NOT IN ({', '.join('?' * len(skip))})")
        with self._lock:
            return {row[0] for row in self.db.execute(query, [*keys, *skip])}


def cached_system_names(store: AnyStore, folder: Path) -> SystemNames:
    """The SystemNames of the store's current generation, from `folder` when an earlier check built it
    there, else built now and kept there (in memory only when the folder cannot be written)."""
    path = index_path(folder, store_identity(store))
    if path.is_file():
        try:
            return SystemNames(sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False))
        except sqlite3.Error:
            pass
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.sqlite"):  # indexes of generations since replaced
            old.unlink(missing_ok=True)
        return SystemNames.build(store, path)
    except OSError:
        return SystemNames.build(store)


def keep_for_generation(written: Path, generation: Path, folder: Path) -> None:
    """Move an index `hpckg build` wrote (SystemNames.build(graph, written)) to where checks of the new
    generation look for it, replacing the indexes of earlier generations. Best effort: without it the first
    check builds the index itself. `folder`: the project's cache_folder."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.sqlite"):
            old.unlink(missing_ok=True)
        os.replace(written, index_path(folder, str(generation.resolve())))
    except OSError:
        written.unlink(missing_ok=True)
