"""The project an hpckg command works in: its root folder, its configuration and where things live.

The root is the folder holding `ontology/hpckg.ttl` (with `shapes/`, `queries/` and `data/ttl/` beside it).
It is chosen, first match wins, from:

1. `--root DIR` on the command line (`discover(explicit=DIR)`),
2. the `HPCKG_ROOT` environment variable,
3. the working directory or the nearest folder above it that holds `ontology/hpckg.ttl` (a checkout),
4. the copy packaged inside the installed wheel (`hpckg/_resources`; for an editable install, the checkout
   the package runs from), used only outside any checkout.

So a checked-out project is read from the checkout even when hpckg itself was installed with a plain
`pip install .` into site-packages: contributors' files are compared with the files they edited, not with
a copy frozen at install time.

The project is a value, never module state: `hpckg.cli.main` discovers it once per command and passes it
to what needs its files (or the one folder a function needs: the ontology's, the graphs folder...).

Configuration is read with tomllib from `hpckg.toml` at the root, else from `[tool.hpckg]` in the root's
`pyproject.toml`; every key is optional and relative paths are relative to the root:

    store  = ".hpckg/store"     # the embedded store `hpckg build` writes and every command reads,
                                # or a SPARQL server's query URL ("http://127.0.0.1:8890/sparql")
    store_credentials = "~/.config/hpckg/store.txt"  # `user:password` for that server's writes
    graphs = ".hpckg/graphs"    # machine-written graphs: imports and source checks (see below)
    data   = ["data/ttl"]       # people's Turtle: curated data files

    [sources]                   # ([tool.hpckg.sources] in pyproject.toml) files importers read
    top500 = ["~/downloads/top500"]

    [publisher]                 # who publishes the dataset: its DCAT-AP description (hpckg.publish.settings)
    name = "hpckg project"      # defaults there; email is left out unless given

Machine-written graphs (what `hpckg import` and the source verifier produce) live under `graphs`, one
N-Quads file per named graph, never under `data/ttl/`, which holds only what people wrote and review. They
are build inputs like the curated files and are rebuilt from their sources, so they are not committed.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from hpckg.errors import InputError


def is_server_url(location: object) -> bool:
    """Whether a store location (a --store value, the configured store) names a SPARQL server: an http(s) URL,
    where any other string or path is an embedded store's folder."""
    return isinstance(location, str) and location.startswith(("http://", "https://"))



class FileRefused(InputError):
    """A path that is not read: missing, a folder, a device or pipe, outside the project, or too large."""

    def __init__(self, path: Path | str, reason: str):
        self.path, self.reason = str(path), reason
        super().__init__(f"{path}: {reason}")

ROOT_MARKER = Path("ontology") / "hpckg.ttl"
CONFIG_FILE = "hpckg.toml"
ROOT_VARIABLE = "HPCKG_ROOT"
_PACKAGE_DIR = Path(__file__).resolve().parent
# A wheel carries a copy of the project files (pyproject.toml's force-include); an editable install runs
# from a checkout, whose root is then the package's own fallback.
PACKAGED_ROOT = (_PACKAGE_DIR / "_resources" if (_PACKAGE_DIR / "_resources" / "ontology").is_dir()
                 else _PACKAGE_DIR.parent.parent)

DEFAULT_STORE = ".hpckg/store"
DEFAULT_GRAPHS = ".hpckg/graphs"
DEFAULT_DATA = ("data/ttl",)
CONFIG_KEYS = {"store", "store_credentials", "graphs", "data", "sources", "publisher"}


@dataclass(frozen=True)
class Project:
    """Where one project's files are, and how they were found."""

    root: Path
    origin: str  # how the root was chosen, said in `hpckg build`'s summary
    store: Path | str  # a folder, or the query URL (str) of a SPARQL server
    graphs: Path
    data: tuple[Path, ...]
    sources: dict[str, tuple[Path, ...]] = field(default_factory=dict)
    config_file: Path | None = None
    store_credentials: Path | None = None  # a file holding `user:password` for a SPARQL server's writes
    packaged: bool = False  # the packaged copy, used outside any checkout: no configuration read
    # [publisher]: who publishes the dataset and where (hpckg.publish.settings reads it, with its defaults)
    publisher: dict[str, str] = field(default_factory=dict)

    @property
    def ontology_dir(self) -> Path:
        return self.root / "ontology"

    @property
    def shapes_dir(self) -> Path:
        return self.root / "shapes"

    @property
    def queries_dir(self) -> Path:
        return self.root / "queries"

    @property
    def rules_dir(self) -> Path:
        return self.queries_dir / "rules"

    @property
    def data_dir(self) -> Path:
        """The first curated-data folder: where `hpckg new` writes and ownership rules look."""
        return self.data[0]

    def graphs_dir(self, slot: str) -> Path:
        """The folder of one kind of machine-written graph, such as graphs_dir('import')."""
        return self.graphs / slot

    def describe(self) -> str:
        """One line for summaries: 'root: /path (checkout found from the working directory)'."""
        return f"{self.root} ({self.origin})"

    def relative_name(self, path: Path) -> str:
        """A stable, portable name for a file: relative to the root when inside it."""
        resolved = Path(path).resolve()
        try:
            return resolved.relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return resolved.as_posix()


def is_root(folder: Path) -> bool:
    return (folder / ROOT_MARKER).is_file()


def find_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds ontology/hpckg.ttl."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if is_root(folder):
            return folder
    return None


def read_config(root: Path) -> tuple[dict, Path | None]:
    """The [tool.hpckg] table (or hpckg.toml) of a root, and the file it came from."""
    own = root / CONFIG_FILE
    if own.is_file():
        return _load_toml(own), own
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        table = _load_toml(pyproject).get("tool", {}).get("hpckg")
        if table is not None:
            if not isinstance(table, dict):
                raise InputError(f"{pyproject}: [tool.hpckg] must be a table")
            return table, pyproject
    return {}, None


def _load_toml(path: Path) -> dict:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"{path}: not valid TOML: {error}") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read the configuration: {error.strerror}") from None


def _paths(value: object, key: str, config_file: Path | None, base: Path) -> tuple[Path, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise InputError(f"{config_file}: {key} must be a path or a list of paths")
    return tuple((base / Path(item).expanduser()) for item in items)


def load(root: Path, origin: str, *, workdir: Path | None = None, packaged: bool = False) -> Project:
    """The project at `root`, configured from its hpckg.toml or pyproject.toml; `packaged` (no checkout was
    found) reads no configuration. An editable install's packaged root is its checkout: worked in, found
    from the working directory or named with --root, it is a checkout like any other, configuration read."""
    root = root.resolve()
    if packaged or root == (_PACKAGE_DIR / "_resources").resolve():
        # No checkout: the packaged ontology and data, and the user's own folder for what hpckg writes.
        base = (workdir or Path.cwd()).resolve()
        return Project(root=root, origin=origin, store=base / DEFAULT_STORE, graphs=base / DEFAULT_GRAPHS,
                       data=(root / "data" / "ttl",), packaged=True)
    config, config_file = read_config(root)
    unknown = set(config) - CONFIG_KEYS
    if unknown:
        raise InputError(f"{config_file}: unknown hpckg setting(s) {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(sorted(CONFIG_KEYS))}")
    store_value = config.get("store", DEFAULT_STORE)
    url = is_server_url(store_value)
    store: tuple[Path | str, ...] = (store_value,) if url else _paths(store_value, "store", config_file, root)
    credentials_file = config.get("store_credentials")
    if credentials_file is not None and not isinstance(credentials_file, str):
        raise InputError(f"{config_file}: store_credentials must be the path of a file holding user:password")
    graphs = _paths(config.get("graphs", DEFAULT_GRAPHS), "graphs", config_file, root)
    data = _paths(config.get("data", list(DEFAULT_DATA)), "data", config_file, root)
    if len(store) != 1 or len(graphs) != 1 or not data:
        raise InputError(f"{config_file}: store and graphs take one path each, data at least one")
    sources_table = config.get("sources", {})
    if not isinstance(sources_table, dict):
        raise InputError(f"{config_file}: sources must be a table of importer = [files]")
    sources = {name: _paths(value, f"sources.{name}", config_file, root) for name, value in sources_table.items()}
    publisher = config.get("publisher", {})
    if not isinstance(publisher, dict) or not all(isinstance(v, str) for v in publisher.values()):
        raise InputError(f"{config_file}: publisher must be a table of text settings (name, homepage, email, ...)")
    return Project(root=root, origin=origin, store=store[0], graphs=graphs[0], data=data, sources=sources,
                   config_file=config_file, publisher=publisher,
                   store_credentials=_paths(credentials_file, "store_credentials", config_file, root)[0]
                   if credentials_file else None)


def discover(*, explicit: Path | str | None = None, workdir: Path | None = None) -> Project:
    """Choose the root by the rules in the module docstring and load its configuration."""
    if explicit is not None:
        root = Path(explicit).expanduser()
        if not is_root(root):
            raise InputError(f"--root {explicit}: not an hpckg project (no {ROOT_MARKER.as_posix()} there)")
        return load(root, "--root", workdir=workdir)
    variable = os.environ.get(ROOT_VARIABLE)
    if variable:
        root = Path(variable).expanduser()
        if not is_root(root):
            raise InputError(f"{ROOT_VARIABLE}={variable}: not an hpckg project (no {ROOT_MARKER.as_posix()} "
                             "there); unset it or point it at a checkout")
        return load(root, ROOT_VARIABLE, workdir=workdir)
    found = find_root(workdir or Path.cwd())
    if found is not None:
        return load(found, "checkout found from the working directory", workdir=workdir)
    return load(PACKAGED_ROOT, "packaged copy: no checkout above the working directory", workdir=workdir,
                packaged=True)


def read_file(path: Path, *, limit: int | None = None, inside: Path | None = None) -> bytes:
    """The bytes of a regular file, read at most `limit` bytes far (a device such as /dev/zero reports size 0
    to stat, so the limit holds while reading) and, with `inside`, only when the path resolves inside that
    folder (a symlink out of the project is not followed)."""
    path = Path(path)
    if not path.exists():
        raise FileRefused(path, "no such file" + (" (a broken symlink)" if path.is_symlink() else ""))
    if path.is_dir():
        raise FileRefused(path, "is a folder, not a file")
    resolved = path.resolve()
    if not stat.S_ISREG(resolved.stat().st_mode):
        raise FileRefused(path, f"not a regular file (it leads to {resolved}, a device, pipe or socket)")
    if inside is not None and not resolved.is_relative_to(inside.resolve()):
        raise FileRefused(path, f"points outside the project, to {resolved}; data files are read only from "
                                f"inside {inside}")
    try:
        with resolved.open("rb") as file:
            data = file.read() if limit is None else file.read(limit + 1)
    except OSError as error:
        raise FileRefused(path, f"cannot be read: {error.strerror}") from None
    if limit is not None and len(data) > limit:
        size = max(resolved.stat().st_size, len(data))
        raise FileRefused(path, f"is {size / 1e6:.1f} MB, larger than the {limit / 1e6:g} MB hpckg reads from "
                                "one such file")
    return data


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file, read in 1 MiB blocks (imports name their inputs by it, releases their dumps)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
