"""`hpckg vocab`: every property with what its value must be, every vocabulary with its values and what each
means, generated from the ontology (the same reference as the site's /vocab page)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from hpckg.claims import shorten

if TYPE_CHECKING:
    from hpckg.project import Project

HELP = """\
List what a data file may say, read from ontology/hpckg.ttl and ontology/vocabularies.ttl: every property
with the value it expects (an entity of a class, a literal type, or one of a vocabulary's values) and what
it means, then every vocabulary (tiers, statuses, kinds, roles, source kinds, bases...) with its values and
their meanings. Claim properties are the facts written as claims (hpc:property hpc:operator).

examples:
  hpckg vocab                      properties, then vocabularies
  hpckg vocab tier                 only what matches 'tier' (a property, a vocabulary or a value)
  hpckg vocab --format json        for tools
"""


def cmd_vocab(args: argparse.Namespace, project: Project) -> int:
    from hpckg.vocabulary import reference

    data = reference(project.ontology_dir, args.match)
    if args.format == "json":
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    for title, key in (("Claim properties (hpc:property of a claim)", "claim_properties"),
                       ("Other properties", "other_properties")):
        if data[key]:
            print(f"## {title}\n")
            width = max(len(shorten(p["iri"])) for p in data[key])
            for p in data[key]:
                print(f"{shorten(p['iri']).ljust(width)}  expects {p['expects']}")
                if p["comment"]:
                    print(f"{'':{width}}  {p['comment']}")
            print()
    if data["vocabularies"]:
        print("## Vocabularies\n")
        for scheme in data["vocabularies"]:
            print(f"{scheme['label']} ({shorten(scheme['iri'])}): {scheme['comment']}")
            width = max((len(shorten(v["iri"])) for v in scheme["values"]), default=0)
            for value in scheme["values"]:
                print(f"  {shorten(value['iri']).ljust(width)}  {value['definition']}")
            print()
    if not any(data.values()):
        print(f"nothing in the ontology matches {args.match!r}")
        return 1
    return 0


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("vocab", help="list every property and vocabulary value the ontology defines",
                              description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("match", nargs="?", default=None, metavar="TEXT",
                   help="show only properties, vocabularies and values whose name contains TEXT")
    p.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    p.set_defaults(handler=cmd_vocab)
