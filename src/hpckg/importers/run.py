"""Run an importer: each input file becomes one named graph, a machine-written graph file
(.hpckg/graphs/import/<importer>/<key>.nq, see hpckg.machinegraphs) with its provenance inside.

The provenance of a graph says who, when and from what: an `hpc:Import` activity (a prov:Activity) that
`prov:used` the file (a dcat:Distribution named by its SHA-256, with its name and size), was associated with
this hpckg version and generated the graph. The graph file's header holds the file's SHA-256 and the hpckg
version, so re-importing an unchanged file with the same hpckg is a no-op that reads one line, a changed
file replaces only its own graph, and a new file (a newer list edition) only adds one.

While an importer reads a file, `current_log()` is that file's ImportLog: the importer counts each row it
reads (`row()`) and reports each malformed row it leaves out (`skip(row, column, reason)`), and goes on.
The result of each file (ImportResult) says what it became: rows read, systems, claims by tier (counted
from the quads it emitted), rows skipped and why. These counts are also kept in the graph file's header, so
the summary of an unchanged file is read from one line like everything else about it.
"""

from __future__ import annotations

import ast
import contextlib
import datetime as dt
import functools
import hashlib
import importlib.machinery
import importlib.util
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from hpckg import __version__
from hpckg.errors import InputError
from hpckg.importers import importer
from hpckg.machinegraphs import graph_file, read_header, write_graph
from hpckg.namespaces import GRAPH, entity, hpc, software_slug
from hpckg.project import sha256_of
from hpckg.reference import Reference
from hpckg.terms import TIER

PACKAGE = Path(__file__).resolve().parents[1]  # src/hpckg: code_files are named relative to it
RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
RDFS_LABEL = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
PROV = "http://www.w3.org/ns/prov#"
DCTERMS = "http://purl.org/dc/terms/"
DCAT = "http://www.w3.org/ns/dcat#"
XSD = "http://www.w3.org/2001/XMLSchema#"

SYSTEM = ox.NamedNode(hpc("System"))
HPC_TIER = ox.NamedNode(hpc("tier"))

IMPORTED, REPLACED, UNCHANGED = "imported", "replaced", "unchanged"


@dataclass(frozen=True)
class SkippedRow:
    """A malformed row an importer left out: where it is and why."""

    file: str
    row: int
    column: str
    reason: str

    def to_text(self) -> str:
        return f"{self.file}: row {self.row}, column {self.column}: {self.reason}; row skipped"


@dataclass
class ImportLog:
    """What an importer reports while it reads one file: rows read and malformed rows skipped."""

    file: Path
    rows: int = 0
    skipped: list[SkippedRow] = field(default_factory=list)
    on_row: Callable[[int], None] | None = None  # told the running count, for a progress bar

    def row(self) -> None:
        """One row read (whether it became claims or was skipped)."""
        self.rows += 1
        if self.on_row is not None:
            self.on_row(self.rows)

    def skip(self, row: int, column: str, reason: str) -> None:
        """A malformed row, left out: its row number in the file, the column at fault and why."""
        self.skipped.append(SkippedRow(self.file.name, row, column, reason))


_current_log: ContextVar[ImportLog | None] = ContextVar("hpckg_import_log", default=None)


def current_log() -> ImportLog:
    """The log of the file being imported; outside an import (an importer's read() called directly), a log
    of its own that nobody reads, so importers never need to check."""
    log = _current_log.get()
    return log if log is not None else ImportLog(Path("-"))


@contextlib.contextmanager
def logging_to(log: ImportLog) -> Iterator[ImportLog]:
    token = _current_log.set(log)
    try:
        yield log
    finally:
        _current_log.reset(token)


@dataclass
class ImportResult:
    """What one file became."""

    file: Path
    graph: str
    output: Path
    status: str  # imported, replaced or unchanged
    quads: int = 0
    seconds: float = 0.0
    rows: int | None = None  # None: not counted (an importer without log.row(), or a graph from before)
    systems: int | None = None
    claims_by_tier: dict[str, int] = field(default_factory=dict)
    skipped: list[SkippedRow] = field(default_factory=list)
    skipped_count: int | None = None  # of an unchanged file, from its header (the rows themselves are gone)
    problems: list[str] = field(default_factory=list)  # cells an importer could not use (the row went on)

    @property
    def skipped_rows(self) -> int | None:
        return len(self.skipped) if self.skipped_count is None else self.skipped_count

    def skip_reasons(self) -> dict[str, int]:
        return dict(Counter(row.reason for row in self.skipped).most_common())

    def to_text(self) -> str:
        what = f"{self.quads:,} quads in {self.seconds:.1f} s" if self.status != UNCHANGED else "no change"
        if self.problems:
            what += f", {len(self.problems)} cells reported"
        return f"{self.status:<9} {self.file.name} -> <{self.graph}> ({what})"

    def to_json(self) -> dict:
        return {"file": str(self.file), "graph": self.graph, "status": self.status, "quads": self.quads,
                "rows": self.rows, "systems": self.systems, "claims_by_tier": self.claims_by_tier,
                "skipped_rows": self.skipped_rows,
                "skipped": [{"row": s.row, "column": s.column, "reason": s.reason} for s in self.skipped]}


def count_quads(quads: Iterable[ox.Quad]) -> tuple[int, dict[str, int]]:
    """Systems (subjects typed hpc:System) and claims by tier (objects of hpc:tier) among quads."""
    systems: set = set()
    tiers: Counter[str] = Counter()
    for quad in quads:
        if quad.predicate == RDF_TYPE and quad.object == SYSTEM:
            systems.add(quad.subject)
        elif quad.predicate == HPC_TIER and isinstance(quad.object, ox.NamedNode):
            tiers[quad.object.value.removeprefix(TIER)] += 1
    return len(systems), dict(sorted(tiers.items()))


def _counts_header(rows: int | None, systems: int, tiers: dict[str, int], skipped: int) -> dict[str, str]:
    claims = ",".join(f"{tier}:{n}" for tier, n in tiers.items()) or "-"
    return {"rows": "-" if rows is None else str(rows), "systems": str(systems), "claims": claims,
            "skipped": str(skipped)}


def _counts_from_header(recorded: dict[str, str]) -> dict:
    """The counts an earlier import kept in its header ({} for a graph written before they were kept)."""
    try:
        claims = recorded["claims"]
        tiers = {} if claims == "-" else {tier: int(n) for tier, n in (item.split(":") for item in claims.split(","))}
        return {"rows": None if recorded["rows"] == "-" else int(recorded["rows"]),
                "systems": int(recorded["systems"]), "claims_by_tier": tiers,
                "skipped_count": int(recorded["skipped"])}
    except (KeyError, ValueError):
        return {}


def expand(name: str, inputs: Iterable[Path]) -> list[Path]:
    """The files an importer reads: each file given, and the files matching its patterns in each folder."""
    module = importer(name)
    files: list[Path] = []
    for item in map(Path, inputs):
        if item.is_dir():
            found = sorted({p for pattern in module.PATTERNS for p in item.glob(pattern) if p.is_file()})
            select = getattr(module, "select", None)
            if select is not None:
                found = list(select(found))
            if not found:
                raise InputError(f"{item}: no file matching {', '.join(module.PATTERNS)} for the {name} "
                                 f"importer; download it from {module.WHERE}")
            files += found
        elif item.is_file():
            files.append(item)
        else:
            raise InputError(f"{item}: no such file; the {name} importer reads {module.TITLE}, "
                             f"downloaded from {module.WHERE}")
    return files


def graph_iri(name: str, key: str) -> str:
    return f"{GRAPH}import/{name}/{key}"


def provenance(name: str, path: Path, sha: str, size: int, graph: str, started: dt.datetime,
               ended: dt.datetime) -> list[ox.Quad]:
    """The import activity, the file it used and the graph it generated, as quads in that graph."""
    g = ox.NamedNode(graph)
    activity = ox.NamedNode(entity("activity", f"import-{name}-{sha[:16]}"))
    distribution = ox.NamedNode(entity("input", sha))
    software = ox.NamedNode(entity("software", software_slug()))

    def when(moment: dt.datetime) -> ox.Literal:
        return ox.Literal(moment.isoformat(timespec="seconds"), datatype=ox.NamedNode(XSD + "dateTime"))

    return [ox.Quad(s, p, o, g) for s, p, o in (
        (activity, RDF_TYPE, ox.NamedNode(hpc("Import"))),
        (activity, RDFS_LABEL, ox.Literal(f"hpckg import {name} {path.name}")),
        (activity, ox.NamedNode(PROV + "used"), distribution),
        (activity, ox.NamedNode(PROV + "wasAssociatedWith"), software),
        (activity, ox.NamedNode(PROV + "startedAtTime"), when(started)),
        (activity, ox.NamedNode(PROV + "endedAtTime"), when(ended)),
        (activity, ox.NamedNode(PROV + "generated"), g),
        (g, ox.NamedNode(PROV + "wasGeneratedBy"), activity),
        (distribution, RDF_TYPE, ox.NamedNode(DCAT + "Distribution")),
        (distribution, RDF_TYPE, ox.NamedNode(PROV + "Entity")),
        (distribution, ox.NamedNode(DCTERMS + "title"), ox.Literal(path.name)),
        (distribution, ox.NamedNode(hpc("sha256")), ox.Literal(sha)),
        (distribution, ox.NamedNode(DCAT + "byteSize"), ox.Literal(str(size), datatype=ox.NamedNode(
            XSD + "nonNegativeInteger"))),
        (software, RDF_TYPE, ox.NamedNode(hpc("Software"))),
        (software, RDFS_LABEL, ox.Literal(f"hpckg {__version__}")),
        (software, ox.NamedNode(PROV + "specializationOf"), ox.NamedNode(entity("software", "hpckg"))),
        # When the user's copy was retrieved, as far as the file says (its modification time); an edition's
        # own date is the graph's hpc:ListEdition and source (dcterms:issued).
        (distribution, ox.NamedNode(DCTERMS + "modified"), ox.Literal(
            dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC).date().isoformat(),
            datatype=ox.NamedNode(XSD + "date"))),
    )]


@functools.cache
def code_files(module_name: str) -> tuple[Path, ...]:
    """The source files of an hpckg module and of every hpckg module it imports, transitively.

    Read from the import statements (ast), not from what happens to be loaded: a fix in a helper module
    (top500_identity, epoch_csv, claims...) changes what an importer writes as surely as one in its own file.
    """
    seen: dict[str, Path] = {}
    pending = [module_name]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        spec = _find_spec(name)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        seen[name] = Path(spec.origin).resolve()
        tree = ast.parse(seen[name].read_text(encoding="utf-8"), filename=spec.origin)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            # A name imported from a package may be a submodule (from hpckg.importers import run) or not.
            # The registry (hpckg.importers) says which importers exist, not what one writes: registering a
            # new importer must not redo every other importer's graphs.
            pending += [t for t in targets if t.split(".")[0] == "hpckg" and t != "hpckg.importers"]
    return tuple(sorted(seen.values()))


def _find_spec(name: str) -> importlib.machinery.ModuleSpec | None:
    """The module's spec, or None for a name that is not a module (a class or function imported by name)."""
    try:
        return importlib.util.find_spec(name)
    except (ModuleNotFoundError, ValueError):
        return None


@functools.cache
def code_digest(module_name: str) -> str:
    """16 hex digits over the importer's code and everything of hpckg it imports (code_files)."""
    digest = hashlib.sha256()
    for path in code_files(module_name):
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + sha256_of(path).encode())
    return digest.hexdigest()[:16]


def expected_header(name: str, path: Path) -> tuple[str, dict[str, str]]:
    """The file's SHA-256 and the header its graph carries when it is up to date with the file, the
    importer's code and (for importers that use them) the curated names."""
    module = importer(name)
    try:
        sha = sha256_of(path)
    except OSError as error:  # a file that is there but cannot be read (permissions, a folder's race)
        raise InputError(f"{path}: cannot be read: {error.strerror}") from None
    # The importer's own code is an input too: a fixed importer redoes its graphs without a version bump.
    header = {"sha256": sha, "hpckg": __version__, "importer": code_digest(module.__name__)}
    if getattr(module, "USES_REFERENCE", False):
        # The graph depends on the curated names too (hpckg.reference): a new alias redoes it.
        header["reference"] = Reference.of_project().digest
    return sha, header


def is_up_to_date(name: str, path: Path) -> bool:
    """Whether importing the file would change nothing (reads one line of its graph file)."""
    recorded = read_header(graph_file("import", name, importer(name).graph_key(path)))
    return all(recorded.get(key) == value for key, value in expected_header(name, path)[1].items())


def import_file(name: str, path: Path, *, on_row: Callable[[int], None] | None = None) -> ImportResult:
    """Import one file into its graph, or nothing when its graph is up to date. An InputError from the
    importer (an unusable file) leaves the previous graph file as it was."""
    module = importer(name)
    key = module.graph_key(path)
    graph, target = graph_iri(name, key), graph_file("import", name, key)
    sha, header = expected_header(name, path)
    recorded = read_header(target)
    if all(recorded.get(key) == value for key, value in header.items()):
        return ImportResult(path, graph, target, UNCHANGED, **_counts_from_header(recorded))
    clock = time.monotonic()
    started = dt.datetime.now(dt.UTC)
    problems: list[str] = []
    # Importers that report unusable cells (the row goes on) take a `report` callback.
    report = {"report": problems.append} if getattr(module, "REPORTS_PROBLEMS", False) else {}
    shared = ox.NamedNode(shared_graph_iri(name))
    quads, shared_quads = [], []
    with logging_to(ImportLog(path, on_row=on_row)) as log:
        for quad in module.read(path, graph, **report):
            (shared_quads if quad.graph_name == shared else quads).append(quad)
    ended = dt.datetime.now(dt.UTC)
    systems, tiers = count_quads([*quads, *shared_quads])
    rows = log.rows or None  # None: an importer that does not count its rows yet
    quads += provenance(name, path, sha, path.stat().st_size, graph, started, ended)
    header |= _counts_header(rows, systems, tiers, len(log.skipped))
    # What this file states that other files state too goes into its part of the shared graph (written
    # first: a graph file whose header says "done" has its part beside it).
    part = shared_part_file(name, key)
    if shared_quads:
        write_graph(part, shared_quads, header, title=f"import {name} shared part")
    else:
        part.unlink(missing_ok=True)
    write_graph(target, quads, header, title=f"import {name}")
    return ImportResult(path, graph, target, REPLACED if recorded else IMPORTED, len(quads) + len(shared_quads),
                        time.monotonic() - clock, rows=rows, systems=systems, claims_by_tier=tiers,
                        skipped=log.skipped, problems=problems)


def shared_graph_iri(name: str) -> str:
    """The graph of what several files of one importer state alike: the entities they all name (a TOP500
    system listed in twenty editions) and the claims they repeat (its name), once.

    Oxigraph's union default graph keeps a triple once per named graph holding it, so a triple restated by
    twenty edition graphs would join with itself twenty times in every query; an importer yields such
    triples in this graph instead (and only each file's own attestation of them, its source, edition and
    reference, in the file's graph)."""
    return f"{GRAPH}import/{name}/shared"


def shared_part_file(name: str, key: str) -> Path:
    return graph_file("import", name, "parts", key).with_suffix(".part.nq")


def write_shared_graph(name: str) -> Path | None:
    """The importer's shared graph: the union of its files' parts, each triple once (an Oxigraph store
    deduplicates), with the parts' digests in its header. Removed when no part is left. Run after each
    import of the importer's files (import_files, hpckg.importers.sources.import_planned)."""
    target = graph_file("import", name, "shared")
    parts = sorted(target.parent.joinpath("parts").glob("*.part.nq"))
    if not parts:
        target.unlink(missing_ok=True)
        return None
    digest = hashlib.sha256()
    for part in parts:
        # The whole header, not the input file's digest alone: a fixed importer rewrites every part from
        # unchanged files, and the shared graph must follow (it kept the old parts' claims before).
        header_of_part = read_header(part)
        digest.update(part.name.encode() + "".join(f"\0{k}={v}" for k, v in sorted(header_of_part.items())).encode())
    header = {"parts": digest.hexdigest()[:32], "hpckg": __version__}
    if read_header(target) == header:
        return target
    merged = ox.Store()
    for part in parts:
        merged.bulk_load(path=str(part), format=ox.RdfFormat.N_QUADS)
    graph = ox.NamedNode(shared_graph_iri(name))
    activity = ox.NamedNode(entity("activity", f"import-{name}-shared"))
    merged.extend([ox.Quad(activity, RDF_TYPE, ox.NamedNode(hpc("Import")), graph),
                   ox.Quad(activity, RDFS_LABEL, ox.Literal(f"hpckg import {name}: what its files state alike"),
                           graph),
                   ox.Quad(activity, ox.NamedNode(PROV + "generated"), graph, graph),
                   ox.Quad(graph, ox.NamedNode(PROV + "wasGeneratedBy"), activity, graph)]
                  + [ox.Quad(graph, ox.NamedNode(PROV + "wasDerivedFrom"), ox.NamedNode(graph_iri(name, p.name[:-8])),
                             graph) for p in parts])
    write_graph(target, merged.quads_for_pattern(None, None, None, graph), header,
                title=f"import {name} shared")
    return target


def check_keys(name: str, files: Iterable[Path]) -> None:
    """Refuse two files that would become the same graph in one import."""
    keys: dict[str, Path] = {}
    for path in files:
        key = importer(name).graph_key(path)
        if key in keys:
            raise InputError(f"{keys[key]} and {path} are the same {name} graph ({key}); import one of them")
        keys[key] = path


def import_files(name: str, inputs: Iterable[Path]) -> list[ImportResult]:
    """Import every file (folders expanded by the importer's patterns); each is its own graph."""
    files = expand(name, inputs)
    check_keys(name, files)
    results = [import_file(name, path) for path in files]
    write_shared_graph(name)
    return results
