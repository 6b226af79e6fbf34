"""Build the graph: load the ontology, shapes and data (each file in its own named graph), materialise the
derived facts, validate, and only then replace the last good store.

The new store is written beside the old one and swapped in after validation passes, so a failed build
leaves the last good store untouched and serving.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from hpckg import datafiles, formats, linking, machinegraphs, systemnames
from hpckg.errors import InputError, RdfSyntaxError, StoreError, ValidationFailed
from hpckg.memory import release_freed_memory
from hpckg.namespaces import DERIVED_GRAPH, THIS_DATASET, entity, graph_for, hpc
from hpckg.project import Project, is_server_url
from hpckg.querytext import unpaged
from hpckg.rules import STREAMED_RULES
from hpckg.store import AnyStore, RemoteStore, Store, parse_file, remote_store, replace_directory
from hpckg.terms import PROV_ENDED_AT_TIME, PROV_WAS_ASSOCIATED_WITH, RDF_TYPE, XSD_DATE_TIME
from hpckg.validate import ValidationReport, check_syntax
from hpckg.validate import validate as validate_graph  # build()'s `validate` flag shadows the name

Progress = Callable[[str], None]
log = logging.getLogger(__name__)

MAX_DATA_FILE_BYTES = 16_000_000


@dataclass
class BuildSummary:
    location: str
    root: str = ""
    files: int = 0
    machine_graphs: int = 0
    triples: int = 0
    derived: int = 0
    systems: int = 0
    claims_by_tier: dict[str, int] = field(default_factory=dict)
    sourcing: str = ""
    report: ValidationReport | None = None

    def to_text(self) -> str:
        tiers = ", ".join(f"{n} {tier}" for tier, n in self.claims_by_tier.items()) or "none"
        found = self.report.violations if self.report else []
        violations = sum(v.severity == "Violation" for v in found)
        warnings = len(found) - violations
        return (f"store: {self.location}\n"
                f"root: {self.root}\n"
                f"files: {self.files} ({self.machine_graphs} machine-written graphs)\n"
                f"triples: {self.triples} ({self.derived} derived)\n"
                f"systems: {self.systems}\n"
                f"claims by tier: {tiers}\n"
                f"source checks: {self.sourcing or 'none'}\n"
                f"violations: {violations}" + (f" ({warnings} warnings: flagged, not blocking)" if warnings else ""))


def source_files(project: Project, extra: Iterable[Path] = (), *, imports: bool = True) -> list[Path]:
    """Every file a build of the project loads: the ontology, the shapes, the curated data folders, the
    machine-written graphs (imports, source checks) and any extra files or folders. imports=False leaves the
    imported datasets' graphs out (`hpckg check` reviews a contribution against the curated graph by default)."""
    files: list[Path] = []
    for folder in (project.ontology_dir, project.shapes_dir, *project.data):
        found = sorted(p for p in folder.rglob("*") if p.suffix.lower() == ".ttl" and not p.is_dir())
        misnamed = [p for p in found if p.suffix != ".ttl"]
        if misnamed:
            # A build that skipped frontier.TTL would pass while `hpckg check` had reviewed the file.
            raise InputError(f"{', '.join(map(str, misnamed))}: data files are named <slug>.ttl in lower case; "
                             "rename the file so the build reads it")
        files += found
    imported = project.graphs_dir("import").resolve()
    files += [f for f in machinegraphs.all_files(project.graphs) if imports or not f.resolve().is_relative_to(imported)]
    for item in extra:
        item = Path(item)
        if item.is_dir():
            files += sorted(p for p in item.rglob("*") if p.suffix in (".ttl", ".nt", ".nq", ".trig"))
        elif item.exists():
            files.append(item)
        else:
            raise RdfSyntaxError(str(item), None, None, "no such file or folder")
    return files


def load_files(store: AnyStore, files: list[Path], project: Project, progress: Progress | None = None) -> int:
    """Load every file into its named graph (named after its path in `project`); returns how many quads the
    store gained.

    People's files are parsed first, all of them, so that every syntax error is reported at once; they are
    read only from inside the project and only up to a size no hand-written file reaches. Machine-written
    graphs (imports, source checks: hpckg's own N-Quads output, millions of quads) are streamed with
    Oxigraph's bulk loader instead of being parsed into Python objects: 10x faster and in constant memory.
    A failure part-way leaves only the new generation half-filled, which the build then discards.
    """
    machine = [p for p in files if machinegraphs.is_machine_written(p, project.graphs)]
    people = [p for p in files if not machinegraphs.is_machine_written(p, project.graphs)]
    parsed, errors = [], []
    for path in people:
        in_project = Path(path).absolute().is_relative_to(project.root)
        try:
            parsed.append((path, parse_file(path, limit=MAX_DATA_FILE_BYTES,
                                            inside=project.root if in_project else None)))
        except RdfSyntaxError as error:
            errors.append(error)
    if errors:
        raise errors[0] if len(errors) == 1 else RdfSyntaxError(
            errors[0].path, errors[0].line, errors[0].column,
            errors[0].message + f" (and {len(errors) - 1} more files with syntax errors: "
            + ", ".join(e.path for e in errors[1:]) + ")")
    before = store.triple_count()
    for path, quads in parsed:
        # Every file people wrote is its own graph, named after its path in the project.
        store.load_quads(quads, graph=graph_for(project.relative_name(path)))
    if progress and parsed:
        progress(f"loaded {len(parsed)} data files")
    for index, path in enumerate(machine, start=1):
        # Machine-written graphs keep the graph names hpckg gave them, and live only in the graphs folder.
        if not Path(path).resolve().is_relative_to(project.graphs.resolve()):
            raise RdfSyntaxError(str(path), None, None, f"machine-written graphs are read only from {project.graphs}")
        if isinstance(store, Store):
            store.bulk_load(path, format=formats.rdf_format("nq"))
        else:
            store.load_quads(parse_file(path, inside=project.graphs))
        if progress and (index % 10 == 0 or index == len(machine)):
            progress(f"loaded {index}/{len(machine)} machine-written graphs")
    return store.triple_count() - before


def rule_files(rules_dir: Path) -> list[Path]:
    """The derivation rules of a folder (Project.rules_dir), in the order they run."""
    return sorted(rules_dir.glob("*.rq"))


def materialise(store: AnyStore, rules_dir: Path, progress: Progress | None = None) -> int:
    """Run each derivation rule (a CONSTRUCT in `rules_dir`, Project.rules_dir, in file-name order) and add
    its triples to the derived graph, so later rules see earlier results. Each rule run is recorded as a
    prov:Activity."""
    derived = ox.NamedNode(DERIVED_GRAPH)
    total = 0
    now = ox.Literal(dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
                     datatype=ox.NamedNode(XSD_DATE_TIME))
    for path in rule_files(rules_dir):
        rule = path.stem
        started = time.perf_counter()
        # Streamed from the CONSTRUCT into the store, not listed first: rule 10 alone makes 2.9 M triples at
        # 10x the real import, and two Python lists of them were a GB more at the build's peak. An embedded
        # store runs the rules hpckg.rules streams as Python, entity by entity (their whole-graph queries
        # set the build's peak memory), and adds a batch at a time (one transaction held all of a rule's).
        streamed = STREAMED_RULES.get(rule) if isinstance(store, Store) else None
        triples = streamed(store) if streamed else store.query(path.read_text(encoding="utf-8"))
        quads = (ox.Quad(t.subject, t.predicate, t.object, derived) for t in triples)
        added = store.load_quads_in_batches(quads) if isinstance(store, Store) else store.load_quads(quads)
        log.debug("rule %s: %d triples in %.2f s", rule, added, time.perf_counter() - started)
        activity = ox.NamedNode(entity("activity", f"derive-{rule}"))
        store.load_quads([
            ox.Quad(activity, ox.NamedNode(RDF_TYPE), ox.NamedNode(hpc("Derivation")), derived),
            ox.Quad(activity, ox.NamedNode(hpc("rule")), ox.Literal(rule), derived),
            ox.Quad(activity, ox.NamedNode(PROV_ENDED_AT_TIME), now, derived),
            ox.Quad(activity, ox.NamedNode(PROV_WAS_ASSOCIATED_WITH),
                    ox.NamedNode(entity("software", "hpckg")), derived),
        ])
        total += added
        release_freed_memory()  # the rule's hash tables, before the next rule allocates its own
        if progress:
            progress(f"rule {rule}: {added} triples")
    return total


def summarise(store: AnyStore, summary: BuildSummary, queries_dir: Path) -> BuildSummary:
    summary.sourcing = sourcing_summary(store, queries_dir)  # first: it writes the sourcing figures into the graph
    summary.triples = store.triple_count()
    summary.systems = int(next(iter(store.query(
        "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a hpc:System }")))["n"].value)
    # Claims and their tiers each read as one scan, joined by hash (a star pattern looks each claim's tier
    # up in the on-disk store, one seek per claim), and counted per tier before the tier's label and rank
    # are joined: joined first, the labels were looked up once per claim (5.5 s -> 0.6 s on the full
    # import's on-disk store).
    rows = store.query("""
        SELECT ?label ?n WHERE {
          { SELECT ?tier (COUNT(?c) AS ?n) WHERE {
              { SELECT ?c WHERE { ?c a hpc:Claim } }
              { SELECT ?c ?tier WHERE { ?c hpc:tier ?tier } }
            } GROUP BY ?tier }
          ?tier skos:prefLabel ?label ; hpc:tierRank ?rank .
        } ORDER BY DESC(?rank)""")
    summary.claims_by_tier = {row["label"].value: int(row["n"].value) for row in rows}
    return summary


def sourcing_summary(store: AnyStore, queries_dir: Path) -> str:
    """The dataset's sourcing in the seeds' words, from the canned queries source-check-summary and
    weakly-sourced-systems: "N of M systems have a readable citation that names them; K are weakly sourced".
    The figures are also written into the derived graph as plain triples about the dataset
    (THIS_DATASET hpc:systemCount / hpc:systemsWithNamingCitation / hpc:weaklySourcedSystems), once per
    build, so that every page can show them with one lookup instead of two whole-graph queries. The two
    queries are read from `queries_dir` (Project.queries_dir)."""
    folder = queries_dir
    [row] = list(store.query((folder / "source-check-summary.rq").read_text(encoding="utf-8"), prefixes=False))
    # One row per system and label: count the systems.
    # Every weakly sourced system, not the query's first page of them.
    weakly = unpaged((folder / "weakly-sourced-systems.rq").read_text(encoding="utf-8"))
    weak = len({row["system"].value for row in store.query(weakly, prefixes=False)})
    if int(row["checked"].value) > 0:
        dataset, graph = ox.NamedNode(THIS_DATASET), ox.NamedNode(DERIVED_GRAPH)
        integer = ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")
        store.load_quads([
            ox.Quad(dataset, ox.NamedNode(hpc(name)), ox.Literal(str(value), datatype=integer), graph)
            for name, value in (("systemCount", int(row["systems"].value)),
                                ("systemsWithNamingCitation", int(row["named"].value)),
                                ("weaklySourcedSystems", weak))])
    return f"{row['sentence'].value}; {weak} are weakly sourced"


def populate(store: AnyStore, project: Project, *, extra: Iterable[Path] = (),
             progress: Progress | None = None) -> BuildSummary:
    """Load everything of the project and materialise derived facts into an empty store (no validation)."""
    files = source_files(project, extra)
    summary = BuildSummary(location=store.location, root=project.describe(), files=len(files),
                           machine_graphs=sum(machinegraphs.is_machine_written(f, project.graphs) for f in files))
    # What people wrote (the data folders and extra Turtle files) obeys the same rules as in `hpckg check`.
    terms = (project.ontology_dir.resolve(), project.shapes_dir.resolve())
    people = [f for f in files if f.suffix == ".ttl" and not machinegraphs.is_machine_written(f, project.graphs)
              and not f.resolve().parent.is_relative_to(terms[0]) and not f.resolve().parent.is_relative_to(terms[1])]
    datafiles.enforce(people, project)
    load_files(store, files, project, progress)
    exact, leads = linking.link_systems(store)
    release_freed_memory()
    if progress:
        progress(f"linked {exact + leads} pairs of system records of one machine: {exact} on a dataset's citation "
                 f"of the other record (reported), {leads} on names and agreements (leads)")
    summary.derived = materialise(store, project.rules_dir, progress)
    return summarise(store, summary, project.queries_dir)


def build(project: Project, *, store_path: Path | str | None, extra: Iterable[Path] = (),
          validate: bool = True, engine: str = "fast", progress: Progress | None = None,
          wait: bool = True, waiting: Progress | None = None, staging: str = "auto",
          prepare: Callable[[Path], object] | None = None) -> BuildSummary:
    """Build the project into a fresh store and swap it in only when it validates.

    On disk, one build at a time holds the store's lock (<store>.lock); another one waits for it, telling
    `waiting` once whom it waits for, or with wait=False raises StoreError at once. Each build writes a new
    generation (<store>.generations/<n>-<timestamp>/) and then points the store path at it atomically; see
    README "Guarantees".

    engine "fast" runs the shapes as SPARQL on Oxigraph (hpckg.validate.sparql_engine); "pyshacl" runs the reference
    validator, which gives the same results (tests/test_fastvalidate.py) far more slowly.

    staging "auto", "memory" or "disk": where an on-disk build derives and validates (choose_staging).

    prepare: called with an on-disk build's finished generation folder before the store is switched to it (the
    CLI computes the website's figures there: hpckg.serve.prepare); what it raises is reported, not fatal.

    store_path None builds in memory; an http(s) URL publishes to a SPARQL server once the build passed
    locally: staging graphs first, then one switch (hpckg.remotebuild).
    """
    if is_server_url(store_path):
        return _build_remote(project, remote_store(store_path, project.store_credentials), extra=extra,
                             validate=validate, engine=engine, progress=progress)
    if store_path is None:
        store = Store(None)
        summary = populate(store, project, extra=extra, progress=progress)
        return _validated(store, project, summary, validate, engine, progress)

    from hpckg import store as layout

    target = Path(store_path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"cannot write the store at {target}: {error}") from None
    with layout.build_lock(target, wait=wait, waiting=waiting):
        layout.pause_point("after-lock")
        return _build_generation(project, target, extra=extra, validate=validate, engine=engine, progress=progress,
                                 staging=staging, prepare=prepare)


STAGINGS = ("auto", "memory", "disk")
BYTES_PER_QUAD_IN_MEMORY = 1000  # a build in memory, measured: 3.3 GB peak for 3.29 M loaded quads (+0.3 M derived)
NQUADS_BYTES_PER_QUAD = 200  # the import graphs' N-Quads: 711 MB for 3.29 M quads is 216; 200 errs high
TURTLE_BYTES_PER_TRIPLE = 30  # people's Turtle is denser (prefixes, `;` lists): the curated data is 49
MEMORY_SHARE = 1 / 3  # derive in memory only when that needs at most a third of the memory available:
# the machine is shared (the 3x graph, 10.9 GB estimated, chose memory at one half with 22 GB available)


def expected_quads(files: Iterable[Path]) -> int:
    """How many quads loading `files` gives, from their sizes (an over-estimate, so the choice errs to disk)."""
    total = 0
    for path in files:
        try:
            size = Path(path).stat().st_size
        except OSError:
            continue
        total += size // (NQUADS_BYTES_PER_QUAD if Path(path).suffix in (".nq", ".nt") else TURTLE_BYTES_PER_TRIPLE)
    return total


def available_memory() -> int:
    """Bytes this process may still use: MemAvailable of /proc/meminfo, or the cgroup's limit less its use
    when that is lower (a container's limit is what the kernel enforces)."""
    found = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        if limit.isdigit() and used.isdigit():
            found.append(int(limit) - int(used))
    except OSError:
        pass
    return min(found) if found else 0


def choose_staging(files: Iterable[Path], staging: str = "auto") -> str:
    """"memory" or "disk": where a build derives and validates. Memory is ~7x faster for the rules' and
    shapes' whole-graph queries but needs ~1 GB per million quads; "auto" takes it only when the estimate
    for `files` is at most MEMORY_SHARE of the memory available now, else it works in the on-disk
    generation itself (bulk loaded there, derived and validated there)."""
    if staging not in STAGINGS:
        raise InputError(f"unknown staging {staging!r}; choose one of {', '.join(STAGINGS)}")
    if staging != "auto":
        return staging
    needed = expected_quads(files) * BYTES_PER_QUAD_IN_MEMORY
    return "memory" if needed <= MEMORY_SHARE * available_memory() else "disk"


def _build_generation(project: Project, target: Path, *, extra: Iterable[Path], validate: bool, engine: str,
                      progress: Progress | None, staging: str = "auto",
                      prepare: Callable[[Path], object] | None = None) -> BuildSummary:
    """With the build lock held: write a new generation beside the current one, validate it, then point the
    store at it in one atomic rename and remove all but the previous generation. A kill at any point leaves
    the store pointing at a complete generation; what it left half-done is cleaned up by the next build.

    staging (choose_staging) says where the graph is derived and validated: "memory" in an in-memory store
    copied into the generation once it is known to be good (fastest while the graph fits in memory); "disk"
    in the new generation itself, which is never pointed at unless it validates (a graph of any size that
    fits on disk). Both give the same graph and the same report (tests/test_build_on_disk.py)."""
    from hpckg import store as layout

    extra = [Path(p) for p in extra]
    where = choose_staging(source_files(project, extra), staging)
    try:
        layout.discard_partial_generations(target)
        layout.migrate_old_layout(target)
        layout.refuse_foreign_folder(target)
        staging_dir = layout.new_generation(target)
        store = Store(staging_dir)
    except (OSError, StoreError) as error:
        raise StoreError(f"cannot write the store at {target}: {error}") from None
    names_file: Path | None = None
    try:
        if progress:
            place = "in memory" if where == "memory" else f"on disk, in {staging_dir}"
            progress(f"deriving and validating {place}")
        # In memory: Oxigraph answers the rules' and shapes' whole-graph queries about 7x faster from memory
        # than from RocksDB on disk (docs/benchmarks.md), and the disk store is written once, in one bulk load.
        work = Store(None) if where == "memory" else store
        summary = populate(work, project, extra=extra, progress=progress)
        summary.location = str(target)
        layout.pause_point("after-load")
        _validated(work, project, summary, validate, engine, progress)
        layout.pause_point("after-validate")
        # The index of system names a contribution's check compares new systems with, made here from the
        # validated graph (seconds of scanning otherwise paid by the first check after each build).
        names_file = _write_system_names(work, target)
        if work is not store:
            if progress:
                progress(f"writing {summary.triples:,} quads to {staging_dir}")
            store.copy_from(work)
        del work
        if progress:
            progress("compacting the store's files")
        store.optimize()
        store.close()
    except BaseException:
        store.close()
        shutil.rmtree(staging_dir, ignore_errors=True)
        if names_file is not None:
            names_file.unlink(missing_ok=True)
        raise
    try:
        previous = layout.current_generation(target)
    except StoreError:
        previous = None
    generation = layout.finish_generation(staging_dir)
    layout.pause_point("after-close")
    if prepare is not None:
        try:
            prepare(generation)
        except Exception as error:  # noqa: BLE001 - best effort: a server computes what is missing itself
            if progress:
                progress(f"the website's figures were not prepared ({error}); the server will compute them")
    replace_directory(generation, target)
    layout.pause_point("after-switch")
    layout.prune_generations(target, keep=(generation, previous))
    if names_file is not None:
        systemnames.keep_for_generation(names_file, generation, systemnames.cache_folder(project.graphs))
    return summary


def _write_system_names(graph: AnyStore, target: Path) -> Path | None:
    """SystemNames of the built graph written beside the store (None when it cannot be: checks then build
    it themselves)."""
    written = target.parent / f".{target.name}.system-names.{os.getpid()}.sqlite"
    try:
        systemnames.SystemNames.build(graph, written).db.close()
    except (OSError, sqlite3.Error):
        written.unlink(missing_ok=True)
        return None
    return written


def _validated(store: AnyStore, project: Project, summary: BuildSummary, validate: bool, engine: str,
               progress: Progress | None) -> BuildSummary:
    if validate:
        if progress:
            progress(f"validating against shapes/ ({engine})")
        summary.report = validate_graph(store, engine, project=project)
        if progress:
            progress(f"validated: {len(summary.report.violations)} results")
        if not summary.report.conforms:
            raise ValidationFailed(
                "the graph does not conform to the shapes; the last good store was left untouched\n"
                + summary.report.to_text(), summary.report)
    return summary


def _build_remote(project: Project, remote: RemoteStore, *, extra, validate, engine, progress) -> BuildSummary:
    # Build and validate locally in memory first; publish to the server only when the build passed, into
    # staging graphs that replace the live ones in one update at the end (hpckg.remotebuild).
    from hpckg.remotebuild import publish

    local = Store(None)
    summary = populate(local, project, extra=extra, progress=progress)
    _validated(local, project, summary, validate, engine, progress)
    publish(local, remote, progress=progress)
    summary.location = remote.location
    return summary


def validate_files(project: Project, extra: Iterable[Path] = (), *, engine: str = "fast") -> ValidationReport:
    """`hpckg validate`: check the syntax of every file a build of the project would load (plus `extra`),
    then build the graph in memory and validate it. Syntax errors come back in the report, all at once."""
    extra = [Path(p) for p in extra]
    for path in extra:
        if not path.exists():
            raise InputError(f"{path}: no such file or folder")
    syntax_errors = check_syntax(source_files(project, extra))
    if syntax_errors:
        return ValidationReport(conforms=False, syntax_errors=syntax_errors)
    store = Store(None)
    try:
        populate(store, project, extra=extra)
    except RdfSyntaxError as error:
        return ValidationReport(conforms=False, syntax_errors=[error])
    return validate_graph(store, engine, project=project)
