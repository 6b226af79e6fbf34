"""The `hpckg` command: parse options, call the library, turn hpckg errors into clean messages.

Each subcommand lives in a small module of this package with `add_parser(subparsers)` and `run(args)`;
COMMANDS is the one table naming them, imported on first use so `hpckg --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from hpckg import __version__
from hpckg.errors import HpckgError

# name -> module under hpckg.cli that defines it
COMMANDS: dict[str, str] = {
    "build": "hpckg.cli.graph",
    "validate": "hpckg.cli.graph",
    "query": "hpckg.cli.graph",
    "export": "hpckg.cli.graph",
    "page": "hpckg.cli.page",
    "serve": "hpckg.cli.serve",
    "new": "hpckg.cli.contribute",
    "check": "hpckg.cli.contribute",
    "diff": "hpckg.cli.contribute",
    "import": "hpckg.cli.imports",
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
  hpckg page kalos                  render a system page as Markdown
  hpckg serve                       SPARQL endpoint and website on http://127.0.0.1:8000
  hpckg import epoch-hardware ml_hardware.csv   import a public dataset as sourced claims
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
        if args.root is not None:
            from hpckg import project

            project.use(args.root)
        return int(args.handler(args) or 0)
    except HpckgError as error:
        if args.debug:
            raise
        print(f"hpckg {args.command}: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
