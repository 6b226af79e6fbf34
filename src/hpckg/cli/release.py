"""`hpckg release`: write a dated, versioned release folder (dumps in every format, description, citation,
change log); see hpckg.publish.release."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from hpckg.cli.options import add_store_option, open_for_reading
from hpckg.errors import InputError

if TYPE_CHECKING:
    from hpckg.project import Project

DEFAULT_RELEASES = Path("dist") / "releases"

HELP = """\
Write <releases>/<version>/: the whole dataset gzip-compressed in every RDF format, its DCAT-AP description
with each dump's SHA-256 and size, a CITATION.cff, the change log since the previous release in that folder
(CHANGES.md in words, changes.ttl as data), and SHA256SUMS. The version defaults to the month of the
checked-out commit (2026-12); the release is dated by the commit, so making it twice from the same commit
gives the same bytes. `hpckg serve --releases DIR` offers the folder at /releases/<version>/<file>.

examples:
  hpckg release                          dist/releases/<YYYY-MM>/ from the built store
  hpckg release --version 2026-12a --out /srv/hpckg/releases
  cd dist/releases/2026-12 && sha256sum -c SHA256SUMS
"""


def cmd_release(args: argparse.Namespace, project: Project) -> int:
    from hpckg.build import source_files
    from hpckg.publish.release import git_origin, release
    from hpckg.publish.settings import publisher_settings

    try:
        origin = git_origin(project.root, source_files(project))
    except ValueError as error:
        raise InputError(str(error)) from None
    out = Path(args.out) if args.out else project.root / DEFAULT_RELEASES
    store = open_for_reading(args, project)
    try:
        folder = release(store, releases=out, origin=origin, settings=publisher_settings(project.publisher),
                         version=args.version)
    except ValueError as error:
        raise InputError(f"--version: {error}") from None
    print(f"released hpckg {folder.name} to {folder}")
    for path in sorted(folder.iterdir()):
        print(f"  {path.name:<18} {path.stat().st_size:>12,} bytes")
    print((folder / "CHANGES.md").read_text(encoding="utf-8").split("\n\n", 2)[1].strip())
    return 0


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("release", help="write a dated, versioned release: dumps, description, "
                              "citation, change log", description=HELP,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", default=None, metavar="NAME",
                   help="the release's name (default: the month of the commit, YYYY-MM)")
    p.add_argument("--out", metavar="DIR", default=None,
                   help=f"the releases folder (default {DEFAULT_RELEASES.as_posix()} in the project)")
    add_store_option(p, memory="build the graph in memory from the project's files instead of reading a store")
    p.set_defaults(handler=cmd_release)
