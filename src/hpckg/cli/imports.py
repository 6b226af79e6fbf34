"""`hpckg import NAME FILE…`: read a public dataset into machine-written graphs that `hpckg build` loads."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = """\
Read files of a public dataset into sourced claims. Each file becomes one named graph, written as N-Quads
under the project's machine-written graphs folder (.hpckg/graphs/import/NAME/, see [tool.hpckg] graphs)
with its provenance: the file's name, SHA-256 and size, when it was read and by which hpckg. An unchanged
file is skipped; a changed one replaces only its own graph. Run `hpckg build` afterwards to derive and
validate everything together. With no FILE, the files configured under [tool.hpckg.sources] NAME are read.

importers:
{importers}

examples:
  hpckg import epoch-hardware ~/downloads/epoch/ml_hardware.csv
  hpckg import epoch-hardware ../shared/data/epoch-ai
  hpckg import epoch-clusters ~/downloads/epoch/gpu_clusters.csv
  hpckg import epoch-datacenters data_centers.csv data_center_timelines.csv
  hpckg import --list
"""


def importer_lines() -> str:
    from hpckg.importers import IMPORTERS

    return "\n".join(f"  {name}" for name in IMPORTERS)


def cmd_import(args: argparse.Namespace) -> int:
    from hpckg import project
    from hpckg.errors import InputError
    from hpckg.importers import IMPORTERS, importer
    from hpckg.importers.run import import_files

    if args.list:
        for name in IMPORTERS:
            module = importer(name)
            print(f"{name:<18} {module.TITLE} ({module.WHERE})")
        return 0
    if not args.name:
        raise InputError("name an importer (hpckg import --list shows them)")
    files = [Path(f) for f in args.files]
    if not files:
        files = list(project.current().sources.get(args.name, ()))
        if not files:
            raise InputError(f"give the files to import, or configure them as [tool.hpckg.sources] "
                             f"{args.name} = [...] in pyproject.toml or hpckg.toml")
    for result in import_files(args.name, files):
        print(result.to_text())
        for problem in result.problems:
            print(f"  {problem}", file=sys.stderr)
    print("next: hpckg build", file=sys.stderr)
    return 0


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("import", help="import a public dataset (TOP500, Epoch AI) as sourced claims",
                              description=HELP.format(importers=importer_lines()),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", nargs="?", metavar="NAME", help="the importer (see --list)")
    p.add_argument("files", nargs="*", metavar="FILE", help="files or folders to import")
    p.add_argument("--list", action="store_true", help="list the importers and where to get their files")
    p.set_defaults(handler=cmd_import)
