"""`hpckg import NAME FILE…`: read a public dataset into machine-written graphs that `hpckg build` loads."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hpckg.project import Project

HELP = """\
Read files of a public dataset into sourced claims. Each file becomes one named graph, written as N-Quads
under the project's machine-written graphs folder (.hpckg/graphs/import/NAME/, see [tool.hpckg] graphs)
with its provenance: the file's name, SHA-256 and size, when it was read and by which hpckg. An unchanged
file is skipped; a changed one replaces only its own graph. Run `hpckg build` afterwards to derive and
validate everything together (it also imports the configured sources first). With no FILE, the files
configured under [tool.hpckg.sources] NAME are read; --all reads every configured source.

A malformed row is reported (file, row, column, why) and left out, and the import goes on; a file that
cannot be used at all (wrong columns, wrong format) is refused whole and its previous graph stays as it was.
At the end a table says, per file: imported, replaced or unchanged, rows read, systems, claims by tier, and
rows skipped and why. A progress bar shows on stderr on a terminal (--progress to force it).

importers:
{importers}

examples:
  hpckg import epoch-hardware ~/downloads/epoch/ml_hardware.csv
  hpckg import epoch-hardware ../shared/data/epoch-ai
  hpckg import epoch-clusters ~/downloads/epoch/gpu_clusters.csv
  hpckg import epoch-datacenters data_centers.csv data_center_timelines.csv
  hpckg import top500              # the files configured as [tool.hpckg.sources] top500
  hpckg import --all --format json
  hpckg import --list
  hpckg import --from-release https://example.org/releases/2026-12/   # a pull request's CI: no source files
  hpckg import --from-release dist/releases/2026-12/hpckg.nq.gz
"""


def importer_lines() -> str:
    from hpckg.importers import IMPORTERS

    return "\n".join(f"  {name}" for name in IMPORTERS)


def cmd_import(args: argparse.Namespace, project: Project) -> int:
    from hpckg.cli.importreport import print_summary, run_plan, wants_progress
    from hpckg.errors import InputError
    from hpckg.importers import IMPORTERS, importer
    from hpckg.importers.run import check_keys, expand
    from hpckg.importers.sources import SourcePlan, plan

    if args.from_release is not None:
        return restore_release(args, project)
    if args.list:
        for name in IMPORTERS:
            module = importer(name)
            print(f"{name:<18} {module.TITLE} ({module.WHERE})")
        return 0
    if args.all:
        if args.name or args.files:
            raise InputError("--all imports every configured source: give no NAME or FILE with it")
        if not project.sources:
            raise InputError(f"no sources configured: add [tool.hpckg.sources] NAME = [files] to "
                             f"{project.root / 'pyproject.toml'} (or [sources] to hpckg.toml)")
        planned = plan(project)
    elif not args.name:
        raise InputError("name an importer (hpckg import --list shows them), or --all for every configured source")
    elif args.files:
        files = expand(args.name, [Path(f) for f in args.files])
        check_keys(args.name, files)
        planned = SourcePlan(files={args.name: files})
    else:
        importer(args.name)  # an unknown name is an error listing the importers
        if args.name not in project.sources:
            raise InputError(f"give the files to import, or configure them as [tool.hpckg.sources] "
                             f"{args.name} = [...] in pyproject.toml or hpckg.toml")
        planned = plan(project, [args.name])
    json_output = args.format == "json"
    # Sources named one by one (NAME, or --strict-sources) must all be there; --all goes on without them.
    strict = args.strict_sources or not args.all
    for problem in planned.problems:
        print(f"hpckg import: {'error' if strict else 'warning'}: {problem.message}", file=sys.stderr)
    results = run_plan(planned, project, progress=wants_progress(args.progress, quiet=json_output),
                       on_file=None if json_output else lambda result: print(result.to_text(), flush=True),
                       skipped_to=None if json_output else sys.stderr)
    failed = bool(planned.problems and strict)
    if json_output:  # one JSON document, whatever happened
        print(json.dumps({"exit_code": 2 if failed else 0, "files": [r.to_json() for r in results],
                          "problems": [p.message for p in planned.problems]}, indent=2))
        return 2 if failed else 0
    if results:
        print_summary(results, sys.stdout, project.graphs)
    if failed:
        raise InputError(f"{len(planned.problems)} configured source(s) could not be imported (see above)")
    if results:
        print("next: hpckg build", file=sys.stderr)
    return 0


def restore_release(args: argparse.Namespace, project: Project) -> int:
    from hpckg.errors import InputError
    from hpckg.importers.fromrelease import restore

    if args.name or args.files or args.all or args.list:
        raise InputError("--from-release takes every import graph from the release: give no NAME, FILE, --all "
                         "or --list with it")
    restored = restore(args.from_release, project.graphs, say=lambda line: print(line, file=sys.stderr, flush=True))
    if args.format == "json":
        print(json.dumps({"exit_code": 0, "release": restored.version, "location": restored.location,
                          "sha256": restored.sha256, "graphs": restored.graphs}, indent=2))
        return 0
    print(restored.to_text())
    for relative, quads in sorted(restored.graphs.items()):
        print(f"  {relative}: {quads:,} quads")
    print("next: hpckg build (configured source files present here are re-imported over these)", file=sys.stderr)
    return 0


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("import", help="import a public dataset (TOP500, Epoch AI) as sourced claims",
                              description=HELP.format(importers=importer_lines()),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", nargs="?", metavar="NAME", help="the importer (see --list)")
    p.add_argument("files", nargs="*", metavar="FILE", help="files or folders to import")
    p.add_argument("--list", action="store_true", help="list the importers and where to get their files")
    p.add_argument("--all", action="store_true",
                   help="import every configured source ([tool.hpckg.sources]); a missing one is a warning")
    p.add_argument("--strict-sources", action="store_true",
                   help="with --all, a configured file that is missing, or has no importer, is an error (exit 2)")
    p.add_argument("--progress", action="store_true",
                   help="show the progress bar on stderr even when it is not a terminal")
    p.add_argument("--from-release", metavar="LOCATION",
                   help="take the import graphs from a release instead of the source files: a release folder or "
                        "its URL (/releases/VERSION/), its hpckg.nq.gz, or a server's /dumps/hpckg.nq; for a "
                        "machine without the datasets, such as a pull request's CI")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (lines per file and a summary table, default) or json (no progress bar)")
    p.set_defaults(handler=cmd_import)
