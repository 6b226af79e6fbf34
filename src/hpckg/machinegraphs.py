"""Machine-written graphs: what importers and the source verifier produce, kept apart from people's Turtle.

Each is one N-Quads file under the project's graphs folder (`.hpckg/graphs/<slot>/…`, see hpckg.project),
holding its own named graph(s) and their provenance, and starting with one comment line of `key=value`
fields (the input's SHA-256, the hpckg version) so that deciding whether to redo the work reads one line.
Files are written beside their final place and renamed into it: a reader, or a build, sees the old file or
the new one, never half of one. `hpckg build` loads every `*.nq` below the graphs folder.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import pyoxigraph as ox

SLOTS = ("import", "verify")
_FIELD = re.compile(r"(\w+)=(\S+)")


def slot_dir(graphs: Path, slot: str) -> Path:
    """The folder of one kind of machine-written graph under a project's graphs folder (Project.graphs)."""
    if slot not in SLOTS:
        raise ValueError(f"unknown graph slot {slot!r}; slots: {', '.join(SLOTS)}")
    return graphs / slot


def graph_file(graphs: Path, slot: str, *names: str) -> Path:
    """The file of one graph: graph_file(graphs, 'import', 'top500', '2019-06') -> …/import/top500/2019-06.nq."""
    safe = [re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "graph" for name in names]
    return slot_dir(graphs, slot).joinpath(*safe[:-1], safe[-1] + ".nq")


def all_files(graphs: Path) -> list[Path]:
    """Every machine-written graph file under a graphs folder, in a stable order. An importer's parts of its
    shared graph (`parts/*.part.nq`) are inputs of that graph (hpckg.importers.run.write_shared_graph), not
    loaded."""
    return sorted(p for p in graphs.rglob("*.nq") if not p.name.endswith(".part.nq")) if graphs.is_dir() else []


def is_machine_written(path: Path, graphs: Path) -> bool:
    """Whether `path` is a graph file under the graphs folder `graphs` (Project.graphs)."""
    return path.suffix == ".nq" and path.resolve().is_relative_to(graphs.resolve())


def read_header(path: Path) -> dict[str, str]:
    """The key=value fields of a graph file's first line ({} when there is no file or no header)."""
    try:
        with path.open("r", encoding="utf-8") as file:
            first = file.readline()
    except (OSError, UnicodeDecodeError):
        return {}
    return dict(_FIELD.findall(first)) if first.startswith("# hpckg ") else {}


def write_graph(path: Path, quads: Iterable[ox.Quad], header: Mapping[str, str], *, title: str) -> None:
    """Write quads as N-Quads under a `# hpckg <title> key=value…` line, atomically."""
    fields = " ".join(f"{key}={value}" for key, value in header.items())
    if any(ch.isspace() for value in header.values() for ch in value):
        raise ValueError("header values must not contain spaces")
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(f"# hpckg {title} {fields}\n".encode())
            ox.serialize(quads, file, ox.RdfFormat.N_QUADS)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
