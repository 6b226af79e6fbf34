"""`hpckg check`: review a Turtle contribution against the whole graph.

Stage one reads and parses each file (size, encoding, syntax); stage two checks each file on its own
(directives, blank nodes and lists, literals, terms, IRIs, placeholders). Only files that pass both are
checked in context (stage three, hpckg.contribute.context): reviewing a graph built from a broken file
would bury the real problem under noise. Nothing here writes a store.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pyoxigraph as ox

from hpckg import machinegraphs
from hpckg.build import load_files, materialise, source_files
from hpckg.contribute.context import GraphContext, check_in_context
from hpckg.contribute.edits import BaseVersion, altered_claims, base_version, check_edits
from hpckg.contribute.neighbourhood import SystemNames
from hpckg.datafiles.filecheck import ParsedFile, check_directives, check_file, check_terms, parse_data
from hpckg.datafiles.report import CheckReport
from hpckg.errors import RdfSyntaxError, StoreError
from hpckg.formats import rdf_format
from hpckg.namespaces import graph_for, hpc
from hpckg.project import Project, is_server_url
from hpckg.store import AnyStore, Store, current_generation, open_store, parse_file
from hpckg.terms import CLAIM, RDF_TYPE, TIER
from hpckg.validate import Violation, validate

KINDS = {  # rdf:type -> the heading `hpckg check` counts additions under
    hpc("System"): "systems", hpc("Organisation"): "organisations", hpc("PartModel"): "parts",
    hpc("Component"): "components", hpc("Site"): "sites", hpc("Datacenter"): "sites",
    hpc("Source"): "sources", hpc("SourceCheck"): "source checks", hpc("ChangeEntry"): "change entries",
    hpc("Country"): "countries",
}

_baseline_cache: dict[tuple, list[Violation]] = {}


def check_files(files: Iterable[Path | str], project: Project, *, store_path: Path | str | None = None,
                base: str | None = None, imports: bool = False, full: bool = False,
                built: AnyStore | None = None) -> CheckReport:
    """Check contribution files to the project; the report's exit_code is 0 clean, 1 warnings only, 2 errors. Files that
    exist at the base revision (see contribute.edits) are also checked for edited and removed claims.

    The context is a built store when there is one: `built` (an open store, as `hpckg serve` holds), else
    the store at store_path, else the project's store once `hpckg build` has made it; only what the files
    touch is read from it (hpckg.contribute.neighbourhood), imported datasets included. full=True (or no
    built store) reviews against the graph read from the files instead: the curated graph (ontology, shapes,
    data/ttl, source checks), and with imports=True the imported datasets' graphs too (millions of TOP500
    and Epoch triples: minutes instead of a second)."""
    files = [Path(f) for f in files]
    report = CheckReport(files=[str(f) for f in files])
    parsed: list[ParsedFile] = []
    versions: dict[Path, BaseVersion | None] = {}
    for path in files:
        before = len(report.errors)
        result = check_file(path, report, project)
        if result is None:
            continue
        versions[result.path] = base_version(result, base)
        # A data file that exists at the base (a shared file: parts, sources, countries) is reviewed for what
        # this change adds or alters there; any other file is reviewed whole.
        shared = versions[result.path] if _in_data_folders(result.path, project) else None
        _count_additions(result, report, shared)
        if len(report.errors) == before:
            parsed.append(result)
    check_edits(parsed, report, base=base, versions=versions)
    if report.errors:
        report.notes.append("The checks in the context of the whole graph (shapes, duplicates, conflicts, "
                            "change history) run once the file-level errors above are fixed.")
        return report
    location = None if built is not None or full else (store_path or _project_store(project))
    opened = (open_store(location, read_only=True, credentials_file=project.store_credentials)
              if location is not None else None)
    try:
        context_store = built or opened
        if context_store is not None:
            changed = _changed_since_build(location, {p.path.resolve() for p in parsed}, project)
            review_in_store(parsed, report, context_store, project, overlay=_overlay(changed, project))
            report.notes += _stale_note(location, changed)
        else:
            context = GraphContext(parsed, project, imports=imports)
            mine = tuple(sorted(str(p.path.resolve()) for p in parsed))
            check_in_context(context, report, baseline_fn=lambda: _baseline(mine, project, imports))
            imported = [f for f in machinegraphs.all_files(project.graphs)
                        if f.resolve().is_relative_to(project.graphs_dir("import").resolve())]
            if imported and not imports:
                report.notes.append(f"Checked against the curated graph; the {len(imported)} imported dataset "
                                    "graphs (TOP500, Epoch AI) were not loaded: `hpckg check --with-imports` "
                                    "includes them.")
    finally:
        if opened is not None:
            opened.close()
    report.graph_checked = True
    return report


def review_in_store(parsed: list[ParsedFile], report: CheckReport, built: AnyStore, project: Project,
                    names: SystemNames | None = None, limit: int | None = None,
                    overlay: dict[str, list[ox.Quad]] | None = None) -> GraphContext:
    """The checks in context of a built store: what the parsed files touch in it, read with a few queries
    (the function `hpckg check` times on a big store). `names`: the store's system names, when the caller
    keeps them (else the project's cache folder holds them, built by the first check of a generation);
    `limit`: the most triples to read from the store (neighbourhood.TooBroad past it); `overlay`: graphs of
    data files changed since the build, read from the files in place of their built copy."""
    context = GraphContext(parsed, project, built=built, names=names, limit=limit, overlay=overlay)
    baseline: list[list[Violation]] = []

    def before() -> list[Violation]:
        if not baseline:
            baseline.append(context.baseline())
        return baseline[0]

    check_in_context(context, report, baseline_fn=before)
    return context


def check_draft(data: bytes, built: AnyStore, project: Project, *, name: str = "draft.ttl",
                names: SystemNames | None = None, limit: int | None = None) -> tuple[CheckReport, GraphContext | None]:
    """Review Turtle that is no file (a draft pasted into the site's Contribute page) against a built store:
    the same file-level rules and checks in context as `hpckg check`, problems pointing at `name`:line. Returns
    the report and the graph it was reviewed in (None when file-level errors stopped the review); nothing is
    read from or written to disk."""
    report = CheckReport(files=[name])
    parsed = parse_data(data, Path(name), name, report)
    if parsed is not None:
        check_directives(parsed, report)
        check_terms(parsed, report, project.ontology_dir)
        _count_additions(parsed, report, None)
    if parsed is None or report.errors:
        report.notes.append("The checks in the context of the whole graph (shapes, duplicates, conflicts, "
                            "change history) run once the file-level errors above are fixed.")
        return report, None
    context = review_in_store([parsed], report, built, project, names, limit)
    report.graph_checked = True
    return report, context


def _project_store(project: Project) -> Path | str | None:
    """The project's configured store when a build has made it (a SPARQL server's URL is taken as built)."""
    configured = project.store
    if is_server_url(configured):
        return configured
    try:
        current_generation(configured)
    except StoreError:
        return None
    return configured


def _changed_since_build(location: Path | str | None, checked: set[Path], project: Project) -> list[Path]:
    """The data files other than the checked ones that changed after the embedded store at `location` was
    built (none for a SPARQL server: its build time is not on this disk)."""
    if location is None or is_server_url(location):
        return []
    built_at = current_generation(location).stat().st_mtime
    return [f for folder in project.data for f in sorted(folder.rglob("*.ttl"))
            if f.stat().st_mtime > built_at and f.resolve() not in checked]


def _overlay(changed: list[Path], project: Project) -> dict[str, list[ox.Quad]]:
    """The graphs of the changed files as they are now (a file that does not parse is left at its built copy:
    checking it says why)."""
    overlay = {}
    for path in changed:
        try:
            overlay[graph_for(project.relative_name(path))] = parse_file(path, format=rdf_format("ttl"))
        except (RdfSyntaxError, OSError, UnicodeDecodeError):
            continue
    return overlay


def _stale_note(location: Path | str | None, changed: list[Path]) -> list[str]:
    """What the review read: the built store, and the data files changed since it was built from the files."""
    if location is None or is_server_url(location):
        return []
    note = (f"Checked against the built store at {location} (what these files touch in it, imported datasets "
            "included); `hpckg check --full` reviews against the files instead.")
    if changed:
        note += (f" {len(changed)} data files changed after that build were read from the files (such as "
                 f"{changed[0]}); `hpckg build` makes them part of the store.")
    return [note]


def _in_data_folders(path: Path, project: Project) -> bool:
    resolved = path.resolve()
    return any(resolved.is_relative_to(folder.resolve()) for folder in project.data)


def _count_additions(parsed: ParsedFile, report: CheckReport, old: BaseVersion | None) -> None:
    """What the file adds: in a file that exists at the base revision (a shared file such as parts.ttl),
    only what this change adds there, and the existing claims it alters."""
    entities = report.additions.entities
    claims: set[str] = set()
    tiers: dict[str, str] = {}
    existing = {q.subject.value for q in old.quads if q.predicate.value == RDF_TYPE} if old else set()
    if old is not None:
        for iri in altered_claims(old, parsed):
            if iri not in report.additions.altered:
                report.additions.altered.append(iri)
    for quad in parsed.quads:
        p, s, o = quad.predicate.value, quad.subject.value, quad.object.value
        if s in existing:
            continue
        if p == RDF_TYPE and o in KINDS:
            bucket = entities.setdefault(KINDS[o], [])
            if s not in bucket:
                bucket.append(s)
        elif p == RDF_TYPE and o == CLAIM:
            claims.add(s)
        elif p == hpc("tier") and o.startswith(TIER):
            tiers[s] = o[len(TIER):]
    for claim in claims:
        tier = tiers.get(claim, "no tier")
        report.additions.claims_by_tier[tier] = report.additions.claims_by_tier.get(tier, 0) + 1
    order = {"verified": 0, "reported": 1, "lead": 2}
    report.additions.claims_by_tier = dict(sorted(report.additions.claims_by_tier.items(),
                                                  key=lambda kv: order.get(kv[0], 9)))


def _baseline(excluded: tuple[str, ...], project: Project, imports: bool = False) -> list[Violation]:
    """Violations of the curated graph without the contribution, so only new ones are blamed on it."""
    files = [f for f in source_files(project, imports=imports) if str(f.resolve()) not in excluded]
    key = (excluded, project.root, tuple((str(f), f.stat().st_mtime_ns) for f in files))
    if key not in _baseline_cache:
        store = Store(None)
        load_files(store, files, project)
        materialise(store, project.rules_dir)
        _baseline_cache.clear()
        _baseline_cache[key] = validate(store, project=project).violations
    return _baseline_cache[key]


__all__ = ["GraphContext", "check_draft", "check_files", "review_in_store"]
