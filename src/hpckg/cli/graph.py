"""CLI commands over the graph: build, validate, query, export."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hpckg.cli.options import add_store_option, open_for_reading, store_location
from hpckg.errors import InputError

if TYPE_CHECKING:
    from hpckg.project import Project
    from hpckg.store import GraphStore

MEMORY_HELP = "build the graph in memory from the project's files instead of reading a store"


def add_engine_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", choices=("fast", "pyshacl"), default="fast",
                        help="validator: fast (the shapes as SPARQL on Oxigraph, default) or pyshacl (the "
                             "reference implementation; same results, much slower)")


def _progress(quiet: bool):
    if quiet:
        return None
    return lambda message: print(f"  {message}", file=sys.stderr, flush=True)


def _reading(store: GraphStore):
    """Turn a damaged embedded store's errors while reading results into a clear StoreError."""
    import contextlib

    return store.reading() if hasattr(store, "reading") else contextlib.nullcontext()


# --- build ----------------------------------------------------------------------------------------


def import_configured_sources(args: argparse.Namespace, project: Project) -> None:
    """The build's first step: bring the imports of the configured sources up to date (each file imported,
    or nothing when unchanged). A source missing on this machine is a warning and the build goes on with
    those present (--strict-sources: an error); an unusable file stops the build, store untouched."""
    from hpckg.cli.importreport import print_summary, run_plan, wants_progress
    from hpckg.importers.run import UNCHANGED
    from hpckg.importers.sources import plan

    if not project.sources:
        return
    planned = plan(project)
    for problem in planned.problems:
        print(f"hpckg build: {'error' if args.strict_sources else 'warning'}: {problem.message}", file=sys.stderr)
    if planned.problems and args.strict_sources:
        raise InputError(f"{len(planned.problems)} configured source(s) missing or without an importer "
                         "(--strict-sources); download them, or build without --strict-sources")
    if not planned.count:
        return
    if not args.quiet:
        files = f"{planned.count} file" + ("s" if planned.count != 1 else "")
        print(f"importing the configured sources ({files}) ...", file=sys.stderr, flush=True)
    results = run_plan(planned, project, progress=wants_progress(args.progress, quiet=args.quiet),
                       skipped_to=sys.stderr)
    if args.quiet:
        return
    if all(r.status == UNCHANGED for r in results):
        print(f"  configured sources: {len(results)} unchanged since imported", file=sys.stderr)
    else:
        print_summary(results, sys.stderr, project.graphs)


def cmd_build(args: argparse.Namespace, project: Project) -> int:
    from hpckg.build import build

    target = store_location(args, project)
    if target is not None and not args.no_import:
        import_configured_sources(args, project)
    print(f"building {'in memory' if target is None else target} ...", file=sys.stderr, flush=True)
    progress = _progress(args.quiet)
    prepare = None if args.no_pages or not isinstance(target, Path) else website_figures(project, target, progress)
    summary = build(project, store_path=target, extra=[Path(p) for p in args.paths], validate=not args.no_validate,
                    engine=args.engine, progress=progress, wait=not args.no_wait,
                    staging=args.staging, prepare=prepare,
                    waiting=lambda message: print(f"hpckg build: {message}", file=sys.stderr, flush=True))
    print(summary.to_text())
    return 0


def website_figures(project: Project, store_path: Path, progress):
    """The build's step that computes a new generation's website figures before the switch (hpckg.serve.prepare),
    as `hpckg serve` with its defaults shows them."""
    def prepare(generation: Path) -> None:
        import time

        from hpckg.cli.serve import default_releases
        from hpckg.serve.prepare import prepare_generation

        if progress:
            progress("preparing the website's figures")
        began = time.perf_counter()
        prepare_generation(project, generation, store_path=store_path, releases=default_releases(project),
                           progress=(lambda message: progress(f"  {message}")) if progress else None)
        if progress:
            progress(f"website's figures prepared in {time.perf_counter() - began:.1f} s")
    return prepare


# --- validate -------------------------------------------------------------------------------------


def cmd_validate(args: argparse.Namespace, project: Project) -> int:
    from hpckg.build import validate_files

    if args.store is not None:
        report = validate_built_store(args, project)
    else:
        report = validate_files(project, [Path(p) for p in args.paths], engine=args.engine)
    print(report.to_json() if args.format == "json" else report.to_text())
    return report.exit_code


def validate_built_store(args: argparse.Namespace, project: Project):
    """`hpckg validate --store [PATH]`: today's shapes/ on a store as it was built, read-only and without
    rebuilding it (after a change to a shape, a 10x store takes minutes to validate and half an hour to build)."""
    from hpckg.cli.options import store_location
    from hpckg.store import Store
    from hpckg.validate import validate

    if args.paths:
        raise InputError("--store validates the built store as it is: build with the extra files first, or "
                         "validate them without --store")
    # A bare --store (the empty const) means the project's store, as no --store does for the other commands.
    location = store_location(argparse.Namespace(store=args.store or None), project)
    if not isinstance(location, Path):
        raise InputError(f"--store {location}: validation runs on an embedded store folder; a SPARQL server's "
                         "graph is validated by the build that publishes it (hpckg build --store URL)")
    store = Store(location, read_only=True)
    try:
        return validate(store, args.engine, project=project)
    finally:
        store.close()


# --- query ----------------------------------------------------------------------------------------


def cmd_query(args: argparse.Namespace, project: Project) -> int:
    from hpckg.query import bind_parameters, canned_queries, format_result, resolve_query
    from hpckg.querytext import undefined_terms

    if args.list:
        if args.query or args.expression:
            raise InputError("--list takes no query")
        queries = canned_queries(project)
        width = max(len(q.name) for q in queries) if queries else 0
        for q in queries:
            print(f"{q.name.ljust(width)}  {q.description}")
            for parameter in q.parameters:
                print(f"{'':{width}}    --param {parameter.summary()}")
        return 0
    params = parse_params(args.param or [])
    if args.expression and args.query:
        raise InputError("give either a query NAME|FILE or -e 'SPARQL', not both")
    if args.expression:
        label, text = "-e", bind_parameters(args.expression, params, project.ontology_dir, label="-e")
    elif args.query:
        label, text = resolve_query(project, args.query, params)
    else:
        raise InputError("give a canned query name, a .rq file or -e 'SPARQL' (see hpckg query --list)")
    for warning in undefined_terms(text, project.ontology_dir):
        print(f"warning: {warning}", file=sys.stderr)
    store = open_for_reading(args, project)
    with _reading(store):
        data = format_result(store.query(text), args.format)
    if args.out:
        Path(args.out).write_bytes(data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0


def parse_params(items: list[str]) -> dict[str, str]:
    """--param NAME=VALUE, each name once."""
    params: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise InputError(f"--param {item!r} is not NAME=VALUE, such as --param min_tier=reported")
        if name in params:
            raise InputError(f"--param {name} is given twice")
        params[name] = value
    return params


# --- export ---------------------------------------------------------------------------------------


def cmd_export(args: argparse.Namespace, project: Project) -> int:
    from hpckg.export import export
    from hpckg.formats import rdf_format
    from hpckg.publish.settings import publisher_settings

    fmt = rdf_format(args.format)
    store = open_for_reading(args, project)
    with _reading(store):
        data = export(store, format=fmt, settings=publisher_settings(project.publisher),
                      out=Path(args.out) if args.out else None)
    if data is not None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        print(f"wrote {args.out} ({fmt.label})", file=sys.stderr)
    return 0


# --- registration ---------------------------------------------------------------------------------


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    from hpckg.formats import GRAPH_FORMATS, RDF_FORMATS, SELECT_FORMATS

    formatter = argparse.RawDescriptionHelpFormatter

    p = subparsers.add_parser(
        "build", help="load, derive, validate and swap in a new store", formatter_class=formatter,
        description="First bring the imports of the configured sources ([tool.hpckg.sources]) up to date: "
                    "each file is imported, or skipped when unchanged; a source missing on this machine is one "
                    "warning naming it and where to download it, and the build goes on with the others "
                    "(--strict-sources: an error; --no-import, or --memory, which writes nothing: no import). "
                    "Then load the ontology, shapes, data/ttl/, the imported graphs and any extra files (each "
                    "in its own named graph), materialise the derived facts, validate, and replace the last "
                    "good store only if validation passes. One build of a store runs at a time: another waits "
                    "for it (or, with --no-wait, exits 2).\n\nexamples:\n  hpckg build\n"
                    "  hpckg build --no-import --store /srv/hpckg/store imported/top500.nt\n"
                    "  hpckg build --memory")
    add_store_option(p, memory="build in memory only (nothing written)",
                     help="where to build (default the project's .hpckg/store); an http(s) URL rebuilds a "
                          "SPARQL server's dataset through the Graph Store Protocol")
    p.add_argument("--no-validate", action="store_true", help="skip SHACL validation (not recommended)")
    p.add_argument("--staging", choices=("auto", "memory", "disk"), default="auto",
                   help="where to derive and validate before the new store is switched in: in memory (fast, "
                        "~1 GB per million quads) or in the new on-disk generation itself (any size that fits "
                        "on disk); auto (default) chooses memory when the estimate is at most a third of the "
                        "memory available")
    p.add_argument("--no-import", action="store_true",
                   help="do not import the configured sources first; build from the graphs already imported")
    p.add_argument("--strict-sources", action="store_true",
                   help="a configured source that is missing, or has no importer, is an error (exit 2) instead "
                        "of a warning")
    p.add_argument("--progress", action="store_true",
                   help="show the import progress bar on stderr even when it is not a terminal")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    p.add_argument("--no-wait", action="store_true",
                   help="when another build of the same store is running, fail at once (exit 2) instead of "
                        "waiting for it to finish")
    p.add_argument("--no-pages", action="store_true",
                   help="do not compute the website's figures of the new store before switching to it (the "
                        "home page, indexes, charts, newest list, canned answers: two to three minutes on the "
                        "full imports); `hpckg serve` then computes them in its background while visitors wait")
    add_engine_option(p)
    p.add_argument("paths", nargs="*", metavar="PATH", help="extra RDF files or folders to load")
    p.set_defaults(handler=cmd_build)

    p = subparsers.add_parser(
        "validate", help="check syntax and the SHACL sourcing rules", formatter_class=formatter,
        description="Check every Turtle file's syntax (file:line:column) and validate the graph (the "
                    "repository's data plus PATHs) against shapes/. Exit 0 when it conforms, 1 on "
                    "violations, 2 on unusable input. With --store, validate a built store as it is "
                    "instead (read-only, no rebuild): after a change to shapes/, say.\n\nexamples:\n"
                    "  hpckg validate\n  hpckg validate my-system.ttl --format json\n"
                    "  hpckg validate --store            # the built store, .hpckg/store")
    p.add_argument("paths", nargs="*", metavar="PATH", help="extra files or folders to validate with the data")
    p.add_argument("--store", nargs="?", const="", default=None, metavar="PATH",
                   help="validate this built store (default: the project's) against shapes/ instead of "
                        "building the files in memory")
    p.add_argument("--format", choices=("text", "json"), default="text", help="report format (default text)")
    add_engine_option(p)
    p.set_defaults(handler=cmd_validate)

    p = subparsers.add_parser(
        "query", help="run a canned query, a .rq file or inline SPARQL", formatter_class=formatter,
        description="Run SPARQL on the store with Oxigraph's native engine. The project's prefixes (hpc:, "
                    "sys:, claim:, tier: ...) are predeclared.\n\nexamples:\n  hpckg query --list\n"
                    "  hpckg query acme-total\n  hpckg query my-query.rq --format csv\n"
                    "  hpckg query accelerators-by-country --param min_tier=reported\n"
                    "  hpckg query -e 'SELECT ?s WHERE { ?s a hpc:System }' --format json")
    p.add_argument("query", nargs="?", metavar="NAME|FILE", help="a canned query name or a .rq file")
    p.add_argument("-e", "--expression", metavar="SPARQL", help="inline SPARQL")
    p.add_argument("--list", action="store_true",
                   help="list the canned queries with their descriptions and parameters")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a parameter the query declares in its header (see --list), such as min_tier=reported; "
                        "checked against its allowed values")
    p.add_argument("--format", default=None, choices=tuple(dict.fromkeys(SELECT_FORMATS + GRAPH_FORMATS)),
                   help="table (default), csv, tsv, json, xml for SELECT/ASK; ttl (default), nt, jsonld, "
                        "xml for CONSTRUCT/DESCRIBE")
    p.add_argument("--out", metavar="FILE", help="write the results to FILE instead of stdout")
    add_store_option(p, memory=MEMORY_HELP)
    p.set_defaults(handler=cmd_query)

    p = subparsers.add_parser(
        "export", help="dump the dataset with its VoID/DCAT description", formatter_class=formatter,
        description="Write the whole dataset in one RDF format with a VoID + DCAT description (counts, "
                    "classes, properties, sources, licences). Quad formats keep the named graphs.\n\n"
                    "examples:\n  hpckg export --format nq --out dist/hpckg.nq\n  hpckg export --format ttl")
    p.add_argument("--format", default="ttl", choices=tuple(RDF_FORMATS), help="RDF format (default ttl)")
    p.add_argument("--out", metavar="PATH", help="write to PATH instead of stdout")
    add_store_option(p, memory=MEMORY_HELP)
    p.set_defaults(handler=cmd_export)
