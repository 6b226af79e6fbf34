"""`hpckg page ENTITY`: render a system's, site's, organisation's or part's page from the graph as Markdown or
HTML, as the site shows it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hpckg.cli.graph import MEMORY_HELP, _reading
from hpckg.cli.options import add_store_option, open_for_reading
from hpckg.errors import InputError

if TYPE_CHECKING:
    from hpckg.project import Project
    from hpckg.store import GraphStore

FORMATS = ("md", "html")


# What each kind's page lists after its facts, as the site's templates title them.
LISTS = {"site": {"systems": "Systems at this site"},
         "org": {"rollup": "Rolls up to (today)", "predecessors": "Acquired or renamed from",
                 "operated": "Systems operated", "sites": "Sites operated", "supplied": "Systems supplied"},
         "part": {"used": "Used in"}}
KIND_LABELS = {"site": "Sites", "org": "Organisations", "part": "Parts"}
# Links in a page written to a file go to the entities' IRIs (dereferenceable), not to a server's paths.
NO_SERVER = "urn:hpckg:no-server/"


def cmd_page(args: argparse.Namespace, project: Project) -> int:
    from hpckg.page import find_entity, render_html, render_markdown, system_page

    store = open_for_reading(args, project)
    try:
        with _reading(store):
            kind, iri = find_entity(store, args.system)
            if kind == "system":
                page = system_page(store, iri)
                label = page.label
                text = render_markdown(page) if args.format == "md" else render_html(page, standalone=True)
            else:
                label, text = _entity_page(store, kind, iri, args.format)
    finally:
        store.close()
    if args.out:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as error:
            raise InputError(f"--out {args.out}: cannot write the page: {error.strerror}") from None
        print(f"wrote {label} ({args.format}) to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _entity_page(store: GraphStore, kind: str, iri: str, format: str) -> tuple[str, str]:
    """A site, organisation or part page, read as the site reads it (hpckg.serve.views)."""
    from hpckg.formats import RDF_FORMATS
    from hpckg.page.render import render
    from hpckg.serve.entities import describe
    from hpckg.serve.sparql import serialize_triples
    from hpckg.serve.views import Views

    views = Views(store, NO_SERVER)
    slug = iri.rsplit("/", 1)[-1]
    html = views.entity(kind, slug, iri, serialize_triples(describe(store, iri), RDF_FORMATS["jsonld"]))
    if html is None:
        raise InputError(f"nothing is known about <{iri}>")
    if format == "html":
        return html.title, html.render()
    context = html.context
    lists = {title: context[key] for key, title in LISTS[kind].items()}
    return html.title, render("entity.md", kind_label=KIND_LABELS[kind], iri=iri, heading=context["heading"],
                              facts=context["facts"], derived=context.get("derived", []), lists=lists)


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "page", help="render a system's, site's, organisation's or part's page (Markdown or HTML) from the graph",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Render one page from the graph, as the site shows it. A system's page: header, measured "
                    "performance, what the machine is made of, AI datacenter metrics, the read, timeline, change "
                    "history and source check, every figure with its confidence tier and sources. A site's, "
                    "organisation's or part's page: its claims, derived totals and what links to it. ENTITY is "
                    "a slug, an IRI, a CURIE (site:acme, orgn:nvidia, part:slurm), a label or an alias (any "
                    "case); systems are looked up first.\n\nexamples:\n  hpckg page kalos\n"
                    "  hpckg page site:acme\n  hpckg page orgn:nvidia --format html --out nvidia.html\n"
                    "  hpckg page 'Seren (Shanghai AI Lab)' --format html --out seren.html\n"
                    "  hpckg page bytedance-megascale --memory")
    p.add_argument("system", metavar="ENTITY",
                   help="slug, IRI, CURIE, label or alias of a system, site, organisation or part")
    p.add_argument("--format", choices=FORMATS, default="md", help="md (default) or a standalone html page")
    p.add_argument("--out", metavar="FILE", help="write the page to FILE instead of stdout")
    add_store_option(p, memory=MEMORY_HELP)
    p.set_defaults(handler=cmd_page)
