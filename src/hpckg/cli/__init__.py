"""The `hpckg` command: parse options, call the library, turn hpckg errors into clean messages.

Each subcommand lives in a small module of this package with `add_parser(subparsers)` and `run(args)`;
COMMANDS is the one table naming them, imported on first use so `hpckg --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from hpckg import __version__
from hpckg.errors import HpckgError, one_line, printable

# Exit codes: 0 success, 1 warnings only (check) or non-conformance (validate), 2 unusable input or a
# failed build, 3 hpckg itself failed (a bug: never mistaken for success or for "warnings only").
INTERNAL_ERROR = 3

# name -> module under hpckg.cli that defines it
COMMANDS: dict[str, str] = {
    "build": "hpckg.cli.graph",
    "validate": "hpckg.cli.graph",
    "query": "hpckg.cli.graph",
    "search": "hpckg.cli.search",
    "export": "hpckg.cli.graph",
    "release": "hpckg.cli.release",
    "page": "hpckg.cli.page",
    "serve": "hpckg.cli.serve",
    "new": "hpckg.cli.contribute",
    "check": "hpckg.cli.contribute",
    "diff": "hpckg.cli.contribute",
    "import": "hpckg.cli.imports",
    "verify": "hpckg.cli.verify",
    "vocab": "hpckg.cli.vocab",
}

DESCRIPTION = """\
hpckg: the knowledge graph of the world's supercomputers and AI training clusters.

Every fact is a claim with its source and confidence tier, stored in an embedded Oxigraph store
(default .hpckg/store) or any SPARQL 1.1 server.

The project root (ontology/, shapes/, queries/, data/ttl/) is --root, else $HPCKG_ROOT, else the nearest
folder at or above the working directory holding ontology/hpckg.ttl, else the copy packaged with hpckg.

examples:
  hpckg build                       build and validate the graph into .hpckg/store
  hpckg query acme-total            run a canned query from queries/
  hpckg search frontier             find a system, site, organisation or part and its name for Turtle
  hpckg page kalos                  render a system page as Markdown
  hpckg serve                       SPARQL endpoint and website on http://127.0.0.1:8000
  hpckg import epoch-hardware ml_hardware.csv   import a public dataset as sourced claims
  hpckg verify                      re-read every cited source and record what it says
"""


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hpckg", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"hpckg {__version__}")
    parser.add_argument("--root", metavar="DIR", default=None,
                        help="the project folder (default: $HPCKG_ROOT, else found from the working directory)")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in dict.fromkeys(COMMANDS.values()):
        importlib.import_module(module_name).add_parsers(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        from hpckg.project import discover

        # Chosen once per call and passed to the command, which passes it on to what needs its files: nothing
        # holds it after the call, so main() can run many commands, in many projects, in one process.
        return int(args.handler(args, discover(explicit=args.root)) or 0)
    except HpckgError as error:
        if args.debug:
            raise
        return report_error(args, "input", str(error), error.exit_code)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # noqa: BLE001 - a bug in hpckg: say so in one line, never as exit 0 or 1
        if args.debug:
            raise
        reason = f"internal error: {type(error).__name__}: {one_line(str(error))}"
        return report_error(args, "internal", reason + "; this is a bug in hpckg: run the same command with "
                            "--debug for the traceback and report it", INTERNAL_ERROR)


def report_error(args: argparse.Namespace, kind: str, message: str, status: int) -> int:
    """The error on stderr (one line for internal errors), and as JSON on stdout under --format json."""
    message = printable(message)
    print(f"hpckg {args.command}: error: {message}", file=sys.stderr)
    if getattr(args, "format", None) == "json":
        print(json.dumps({"exit_code": status, "error": {"kind": kind, "message": message}}, indent=2))
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
