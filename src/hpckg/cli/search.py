"""`hpckg search TEXT`: find a system, site, organisation, part or country in the built store by any of its
names, as the website's search does (typos, words across a machine's name, site, operator, country and vendor),
and print the name a contribution refers to it by (`sys:top500-180047`)."""

from __future__ import annotations

import argparse
import json
import sys

from hpckg.cli.options import add_store_option, open_for_reading, store_location
from hpckg.errors import InputError
from hpckg.project import Project


def cmd_search(args: argparse.Namespace, project: Project) -> int:
    from hpckg.namespaces import shorten
    from hpckg.serve.precompute import kept_search_index
    from hpckg.serve.search import KINDS

    text = " ".join(args.text).strip()
    if not text:
        raise InputError("give the words to search for, e.g. hpckg search frontier")
    if not 0 < args.limit <= 100:
        raise InputError(f"--limit is a whole number from 1 to 100, not {args.limit}")
    types = list(dict.fromkeys(kind for kind, _ in KINDS.values()))  # system, site, organisation, ...
    for wanted in args.type or ():
        if wanted not in types:
            raise InputError(f"--type {wanted!r} is not a type of record the search finds: {', '.join(types)}")
    store = open_for_reading(args, project)
    try:
        index = kept_search_index(store, project, store_location(args, project))
    finally:
        store.close()
    hits = index.search(text, args.limit, set(args.type) if args.type else None)
    searched = index.suggest(text) if hits and hits[0].match == "close" else None
    if args.format == "json":
        json.dump({"query": text, "searched": searched or text, "results": [
            {"iri": h.entity.iri, "name": shorten(h.entity.iri), "type": h.entity.kind, "label": h.entity.label,
             "matched": h.name, "match": h.match, "also": list(h.also)} for h in hits]},
            sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0 if hits else 1
    if searched:
        print(f"No name has every word of {text!r}; showing results for {searched!r}.")
    if not hits:
        print(f"Nothing found for {text!r}.")
        return 1
    rows = [(shorten(h.entity.iri), h.entity.kind, h.entity.label + (f"  (also in {'; '.join(h.also)})" if h.also
                                                                      else "")) for h in hits]
    width = max(len(row[0]) for row in rows)
    for name, kind, label in rows:
        print(f"{name.ljust(width)}  {kind:<12}  {label}")
    return 0


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "search", help="find an entity by name and print the name a contribution refers to it by",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Find systems, sites, organisations, parts and countries of the built store (imported "
                    "records included) by any of their names, as the website's search does, and print each "
                    "one's name for Turtle (sys:…, site:…, orgn:…, part:…).\n\nexamples:\n"
                    "  hpckg search frontier\n  hpckg search summit ornl\n  hpckg search mi250x --type part\n"
                    "  hpckg search jupiter --format json")
    p.add_argument("text", nargs="+", metavar="TEXT", help="words of a name (typos are tolerated)")
    p.add_argument("--limit", type=int, default=20, help="most results shown (default 20, at most 100)")
    p.add_argument("--type", action="append", metavar="TYPE",
                   help="only records of this type, such as part or organisation; may be given again")
    p.add_argument("--format", choices=("table", "json"), default="table", help="table (default) or json")
    add_store_option(p, remote=True)
    p.set_defaults(handler=cmd_search)
