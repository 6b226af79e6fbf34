"""`hpckg page SYSTEM`: render one system's page from the graph as Markdown or HTML."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hpckg.cli.graph import MEMORY_HELP, _reading
from hpckg.cli.options import add_store_option, open_for_reading
from hpckg.errors import InputError

FORMATS = ("md", "html")


def cmd_page(args: argparse.Namespace) -> int:
    from hpckg.page import find_system, render_html, render_markdown, system_page

    store = open_for_reading(args)
    try:
        with _reading(store):
            page = system_page(store, find_system(store, args.system))
    finally:
        store.close()
    text = render_markdown(page) if args.format == "md" else render_html(page, standalone=True)
    if args.out:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as error:
            raise InputError(f"--out {args.out}: cannot write the page: {error.strerror}") from None
        print(f"wrote {page.label} ({args.format}) to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "page", help="render a system's page (Markdown or HTML) from the graph",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Render one system's page from the graph: header, measured performance, what the machine "
                    "is made of, AI datacenter metrics, the read, timeline, change history and source "
                    "check, every figure with its confidence tier and sources. SYSTEM is a slug, an IRI, "
                    "a label or an alias (any case).\n\nexamples:\n  hpckg page kalos\n"
                    "  hpckg page 'Seren (Shanghai AI Lab)' --format html --out seren.html\n"
                    "  hpckg page bytedance-megascale --memory")
    p.add_argument("system", metavar="SYSTEM", help="slug, IRI, label or alias of the system")
    p.add_argument("--format", choices=FORMATS, default="md", help="md (default) or a standalone html page")
    p.add_argument("--out", metavar="FILE", help="write the page to FILE instead of stdout")
    add_store_option(p, memory=MEMORY_HELP)
    p.set_defaults(handler=cmd_page)
