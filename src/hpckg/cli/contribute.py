"""CLI commands for data contributions: new (scaffold a system file), check (review a contribution in the
context of the whole graph), diff (how data/ttl/ changed between git revisions)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NEW_HELP = """\
Write the skeleton of a new system's Turtle file (data/ttl/systems/<slug>.ttl, the slug made from NAME)
with every required field as a "TODO" placeholder; `hpckg check` fails until each one is filled in.
Refuses to overwrite an existing file.

examples:
  hpckg new system "Frontier" --operator "Oak Ridge National Laboratory" --country US
  hpckg new system "Isambard-AI" --operator university-of-bristol --country GB --out-dir /tmp/draft
  hpckg new system "富岳" --slug fugaku --operator riken --country JP
"""

CHECK_HELP = """\
Check Turtle contributions in the context of the whole graph (the curated data plus the files, built in
memory: the built store is never written) and print a review to paste into a pull request: what the files
add, then every problem with file:line and a suggested fix. CONTRIBUTING.md lists the problem codes.

exit codes: 0 clean, 1 warnings only (such as a conflict to review), 2 errors

examples:
  hpckg check data/ttl/systems/frontier.ttl
  hpckg check --format json data/ttl/systems/*.ttl
  hpckg check --store .hpckg/store my-system.ttl     compare against a built store instead of data/ttl/
  hpckg check --base origin/main data/ttl/systems/kalos.ttl   edits to an existing file, against a revision
"""

DIFF_HELP = """\
Summarise how the graph's curated data (data/ttl/) changed between two git revisions, grouped by subject:
claims added, removed, and changed in tier, value or otherwise (claims compared by IRI). REV alone compares
REV with the working tree.

examples:
  hpckg diff HEAD                    uncommitted changes
  hpckg diff origin/main..HEAD       what a branch changes
  hpckg diff v0.1.0..v0.2.0 --format json
"""


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    fmt = argparse.RawDescriptionHelpFormatter
    new = subparsers.add_parser("new", help="scaffold a new system file", description=NEW_HELP,
                                formatter_class=fmt)
    new.add_argument("kind", choices=["system"], help="what to create (only 'system' for now)")
    new.add_argument("name", help='the system\'s name, such as "Frontier"')
    new.add_argument("--operator", required=True, metavar="ORG",
                     help="the operator's slug or name; an organisation already in data/ttl/ is reused")
    new.add_argument("--country", required=True, metavar="CC", help="ISO 3166-1 alpha-2 code, such as US")
    new.add_argument("--slug", default=None, metavar="SLUG",
                     help="the slug for the IRI and the file name (default: made from NAME); needed when "
                          "NAME has no ASCII letters, such as --slug fugaku for \"富岳\"")
    new.add_argument("--out-dir", type=Path, default=None, metavar="DIR",
                     help="folder to write into (default data/ttl/systems)")
    new.set_defaults(handler=cmd_new)

    check = subparsers.add_parser("check", help="review a Turtle contribution against the whole graph",
                                  description=CHECK_HELP, formatter_class=fmt)
    check.add_argument("files", nargs="+", type=Path, metavar="FILE", help="Turtle files to check")
    check.add_argument("--format", choices=["text", "json"], default="text",
                       help="text (Markdown review, the default) or json (for bots)")
    check.add_argument("--base", default=None, metavar="REV",
                       help="compare files that already exist with this git revision: edited or removed claims "
                            "are errors (default: the merge base of HEAD with the main branch)")
    check.add_argument("--store", type=Path, default=None, metavar="PATH",
                       help="read the curated graph from a built store (opened read-only) instead of data/ttl/")
    check.set_defaults(handler=cmd_check)

    diff = subparsers.add_parser("diff", help="summarise how data/ttl/ changed between git revisions",
                                 description=DIFF_HELP, formatter_class=fmt)
    diff.add_argument("revs", metavar="REV[..REV]", help="a revision (compared with the working tree) or A..B")
    diff.add_argument("--format", choices=["text", "json"], default="text")
    diff.add_argument("--data-dir", default="data/ttl", metavar="DIR",
                      help="the folder to compare, relative to the repository root (default data/ttl)")
    diff.set_defaults(handler=cmd_diff)


def cmd_new(args: argparse.Namespace) -> int:
    from hpckg.contribute.scaffold import new_system

    path = new_system(args.name, operator=args.operator, country=args.country, out_dir=args.out_dir,
                      slug=args.slug)
    print(f"wrote {path}")
    print(f"next: fill in every TODO, then run `hpckg check {path}`", file=sys.stderr)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from hpckg.contribute.check import check_files
    from hpckg.store import require_built

    if args.store is not None:
        require_built(args.store)
    report = check_files(args.files, store_path=args.store, base=args.base)
    print(report.to_json() if args.format == "json" else report.to_text())
    return report.exit_code


def cmd_diff(args: argparse.Namespace) -> int:
    from hpckg.contribute.diff import diff_revisions

    old, _, new = args.revs.partition("..")
    result = diff_revisions(old or "HEAD", new or None, data_dir=args.data_dir)
    print(result.to_json() if args.format == "json" else result.to_text())
    return 0
