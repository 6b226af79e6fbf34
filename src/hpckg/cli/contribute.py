"""CLI commands for data contributions: new (scaffold a system file), check (review a contribution in the
context of the whole graph), diff (how data/ttl/ changed between git revisions)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hpckg.project import Project

NEW_HELP = """\
Write what a contribution needs, with every field hpckg cannot know as a "TODO" placeholder that
`hpckg check` explains (the allowed values, or what to write) until it is filled in. Never overwrites.

  system NAME        data/ttl/systems/<slug>.ttl: the system, its claims, its source and change entry;
                     --part/--nodes/--per-node (or --quantity) add the accelerator component, --site the
                     site claim, --status the status, --source-url the source's address (a source already at that
                     address is cited, not added twice), or --source an existing source
  part NAME          appended to data/ttl/parts.ttl (--maker, --category, --source)
  site NAME          data/ttl/sites/<slug>.ttl (--operator, --country, --source)
  organisation NAME  appended to data/ttl/organisations.ttl (--type, --source)
  country CODE       appended to data/ttl/countries.ttl (--name)
  source SLUG        appended to data/ttl/sources.ttl (--url, --title, --kind, --issued, --creator, --publisher);
                     a creator or publisher no record has yet is added to organisations.ttl too (--type)
  claim ENTITY       a claim about any record, imported ones included (found by name, or as sys:top500-180357),
                     in data/ttl/claims/<entity>.ttl: --property and --value (an entity value by name, a
                     vocabulary value by its notation), --source SLUG or --source-url URL (a new source, with
                     --title, --kind, --issued, --creator, --publisher), --as-of, --tier, --basis, --change

Today's date is written only as the change entry's date: a claim's as-of date is the source's.

examples:
  hpckg new system "Frontier" --operator "Oak Ridge National Laboratory" --country US
  hpckg new country GB --name "United Kingdom"
  hpckg new organisation "University of Bristol" --type university
  hpckg new part "NVIDIA GH200 Grace Hopper Superchip" --slug nvidia-gh200 --maker nvidia --category accelerator
  hpckg new site "Bristol National Composites Centre" --slug bristol-ncc --operator university-of-bristol --country GB
  hpckg new system "Isambard-AI phase 1" --operator university-of-bristol --country GB --part nvidia-gh200 \\
      --nodes 42 --per-node 4 --site bristol-ncc --source-url https://www.bristol.ac.uk/isambard-ai
  hpckg new system "富岳" --slug fugaku --operator riken --country JP
  hpckg new claim "JUPITER Booster" --property purpose --value "AI and simulation" \\
      --source-url https://www.fz-juelich.de/en/news/jupiter --as-of 2025-06 --title "JUPITER opens" \\
      --kind operator-page --issued 2025-06-10 --creator "Forschungszentrum Juelich (FZJ)" \\
      --tier reported --basis reported
  hpckg new claim sys:top500-180047 --property operator --value "Oak Ridge National Laboratory" --source ornl-frontier
"""

CHECK_HELP = """\
Check Turtle contributions in the context of the whole graph and print a review to paste into a pull
request: what the files add, then every problem with file:line and a suggested fix. CONTRIBUTING.md lists
the problem codes. Once `hpckg build` has made the store, the context is the built store, imported
datasets included, of which only what the files touch is read (seconds whatever its size); before that,
or with --full, it is the curated data read from the files, built in memory. The store is never written.

exit codes: 0 clean, 1 warnings only (such as a conflict to review), 2 errors

examples:
  hpckg check data/ttl/systems/frontier.ttl
  hpckg check --format json data/ttl/systems/*.ttl
  hpckg check --store http://127.0.0.1:8890/sparql my-system.ttl   against a SPARQL server's build
  hpckg check --full my-system.ttl     against data/ttl/ read from the files (the review before builds)
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
    new = subparsers.add_parser("new", help="scaffold a system, part, site, organisation, country or source",
                                description=NEW_HELP, formatter_class=fmt)
    new.add_argument("kind", choices=["system", "part", "site", "organisation", "country", "source", "claim"],
                     help="what to create")
    new.add_argument("name", help='its name, such as "Frontier" (a country: its ISO code; a source: its slug)')
    new.add_argument("--operator", default=None, metavar="ORG",
                     help="system, site: the operator's slug or name; a system's operator not in data/ttl/ yet is "
                          "defined in its file")
    new.add_argument("--country", default=None, metavar="CC", help="system, site: ISO 3166-1 alpha-2 code, such as US")
    new.add_argument("--slug", default=None, metavar="SLUG",
                     help="the slug for the IRI and the file name (default: made from NAME); needed when "
                          "NAME has no ASCII letters, such as --slug fugaku for \"富岳\"")
    new.add_argument("--out-dir", type=Path, default=None, metavar="DIR",
                     help="system, site: folder to write into (default data/ttl/systems or data/ttl/sites)")
    new.add_argument("--part", default=None, metavar="PART", help="system: the accelerator's part model in data/ttl/")
    new.add_argument("--nodes", type=int, default=None, metavar="N", help="system: nodes with accelerators")
    new.add_argument("--quantity", type=int, default=None, metavar="N",
                     help="system: accelerators in all, when the source gives no nodes x per node")
    new.add_argument("--per-node", type=int, default=None, metavar="N", help="system: accelerators per node")
    new.add_argument("--site", default=None, metavar="SITE", help="system: its site in data/ttl/sites/")
    new.add_argument("--source-url", default=None, metavar="URL", help="system: the address of the source it cites")
    new.add_argument("--source", default=None, metavar="SLUG",
                     help="system, part, site, organisation, claim: the source to cite (its slug)")
    new.add_argument("--maker", default=None, metavar="ORG", help="part: the organisation that makes it")
    new.add_argument("--category", default=None, metavar="ROLE", help="part: what it is for, such as accelerator")
    new.add_argument("--type", default=None, metavar="TYPE", dest="org_type",
                     help="organisation: company, research-lab, university... (`hpckg vocab` lists them)")
    new.add_argument("--name", default=None, dest="country_name", metavar="NAME",
                     help="country: its name in English")
    new.add_argument("--url", default=None, metavar="URL", help="source: its web address")
    new.add_argument("--title", default=None, metavar="TITLE", help="source, claim's new source: the document's title")
    new.add_argument("--kind", default=None, dest="source_kind", metavar="KIND",
                     help="source, claim's new source: paper, operator-page, news-article... "
                          "(`hpckg vocab` lists them)")
    new.add_argument("--issued", default=None, metavar="DATE",
                     help="source, claim's new source: when it was published, such as 2024-06")
    new.add_argument("--creator", default=None, metavar="ORG",
                     help="source, claim's new source: the organisation that wrote it")
    new.add_argument("--publisher", default=None, metavar="ORG",
                     help="source, claim's new source: the organisation that published it")
    new.add_argument("--property", default=None, dest="prop", metavar="PROP",
                     help="claim: the claim property, such as operator, purpose or status (`hpckg vocab` lists them)")
    new.add_argument("--value", default=None, metavar="VALUE",
                     help="claim: its value: a record's name or sys:/orgn:… name, a vocabulary notation, a literal")
    new.add_argument("--as-of", default=None, metavar="DATE", help="claim: the date the source gives, YYYY[-MM[-DD]]")
    new.add_argument("--status", default=None, metavar="STATUS",
                     help="system: its status, such as planned, under-construction or operational")
    new.add_argument("--tier", default=None, metavar="TIER", help="claim: verified, reported or lead")
    new.add_argument("--basis", default=None, metavar="BASIS", help="claim: the basis, such as reported")
    new.add_argument("--change", default=None, metavar="TEXT",
                     help="claim: what the change adds, in a few words (its change entry's comment)")
    new.set_defaults(handler=cmd_new)

    check = subparsers.add_parser("check", help="review a Turtle contribution against the whole graph",
                                  description=CHECK_HELP, formatter_class=fmt)
    check.add_argument("files", nargs="+", type=Path, metavar="FILE", help="Turtle files to check")
    check.add_argument("--format", choices=["text", "json"], default="text",
                       help="text (Markdown review, the default) or json (for bots)")
    check.add_argument("--base", default=None, metavar="REV",
                       help="compare files that already exist with this git revision: edited or removed claims "
                            "are errors (default: the merge base of HEAD with the main branch)")
    check.add_argument("--store", default=None, metavar="PATH|URL",
                       help="review against this built store (opened read-only) or SPARQL server's query URL "
                            "(default: the project's store, once built)")
    check.add_argument("--full", action="store_true",
                       help="review against the graph read from the files (ontology, shapes, data/ttl/, source "
                            "checks), built in memory, not the built store")
    check.add_argument("--with-imports", action="store_true",
                       help="with --full (or before any build): also load the imported datasets' graphs (TOP500, "
                            "Epoch AI): minutes")
    check.set_defaults(handler=cmd_check)

    diff = subparsers.add_parser("diff", help="summarise how data/ttl/ changed between git revisions",
                                 description=DIFF_HELP, formatter_class=fmt)
    diff.add_argument("revs", metavar="REV[..REV]", help="a revision (compared with the working tree) or A..B")
    diff.add_argument("--format", choices=["text", "json"], default="text")
    diff.add_argument("--data-dir", default="data/ttl", metavar="DIR",
                      help="the folder to compare, relative to the repository root (default data/ttl)")
    diff.set_defaults(handler=cmd_diff)


# Which options each kind of `hpckg new` reads; any other option given is an error naming it.
NEW_OPTIONS = {
    "system": {"operator", "country", "slug", "out_dir", "part", "nodes", "per_node", "quantity", "site",
               "source_url", "source",
               "status"},
    "part": {"slug", "maker", "category", "source"},
    "site": {"operator", "country", "slug", "out_dir", "source"},
    "organisation": {"slug", "org_type", "source"},
    "country": {"country_name"},
    "source": {"url", "title", "source_kind", "issued", "creator", "publisher", "org_type"},
    "claim": {"prop", "value", "source", "source_url", "as_of", "tier", "basis", "title", "source_kind", "issued",
              "creator", "publisher", "change"},
}
NEW_REQUIRED = {"system": ("operator", "country"), "site": ("operator", "country"), "claim": ("prop", "value")}


def cmd_new(args: argparse.Namespace, project: Project) -> int:
    from hpckg.contribute import scaffold_entities as entities
    from hpckg.contribute.scaffold import new_system
    from hpckg.errors import InputError

    all_options = set().union(*NEW_OPTIONS.values())
    flag = {"org_type": "--type", "country_name": "--name", "source_kind": "--kind", "prop": "--property"}
    for option in sorted(all_options - NEW_OPTIONS[args.kind]):
        if getattr(args, option) is not None:
            raise InputError(f"{flag.get(option, '--' + option.replace('_', '-'))} cannot be used with "
                             f"`hpckg new {args.kind}`")
    for option in NEW_REQUIRED.get(args.kind, ()):
        if getattr(args, option) is None:
            raise InputError(f"`hpckg new {args.kind}` needs {flag.get(option, '--' + option.replace('_', '-'))}")
    if args.kind == "claim":
        from hpckg.contribute.scaffold_claim import new_claim
        from hpckg.serve.precompute import close_names

        written = new_claim(project, args.name, prop=args.prop, value=args.value, source=args.source,
                            source_url=args.source_url, as_of=args.as_of, tier=args.tier, basis=args.basis,
                            title=args.title, kind=args.source_kind, issued=args.issued, creator=args.creator,
                            publisher=args.publisher, change=args.change,
                            suggest=lambda text, classes: close_names(project, text, classes))
        print(f"{'added' if written.appended else 'wrote'} claim <{written.iri}> "
              f"{'to' if written.appended else 'in'} {written.path}")
        print(f"next: fill in every TODO, then run `hpckg check {written.path}`", file=sys.stderr)
        return 0
    if args.kind == "system":
        path = new_system(project, args.name, operator=args.operator, country=args.country, out_dir=args.out_dir,
                          slug=args.slug, part=args.part, nodes=args.nodes, per_node=args.per_node,
                          quantity=args.quantity, site=args.site,
                          source_url=args.source_url, source=args.source, status=args.status)
    else:
        written = {
            "part": lambda: entities.new_part(project, args.name, slug=args.slug, maker=args.maker,
                                              category=args.category, source=args.source),
            "site": lambda: entities.new_site(project, args.name, operator=args.operator, country=args.country,
                                              slug=args.slug, source=args.source, out_dir=args.out_dir),
            "organisation": lambda: entities.new_organisation(project, args.name, slug=args.slug,
                                                              org_type=args.org_type, source=args.source),
            "country": lambda: entities.new_country(project, args.name, name=args.country_name),
            "source": lambda: entities.new_source(project, args.name, url=args.url, title=args.title,
                                                  kind=args.source_kind, issued=args.issued, creator=args.creator,
                                                  publisher=args.publisher, org_type=args.org_type),
        }[args.kind]()
        path = written.path
    if args.kind != "system" and written.appended:
        print(f"added {args.kind} <{written.iri}> to {path}")
    else:
        print(f"wrote {path}")
    also = written.also if args.kind != "system" else ()
    for other in also:
        print(f"added organisation <{other.iri}> to {other.path}: no organisation has that name yet (if one does "
              f"under another name, give its slug instead); fill in its type")
    if not warn_of_namesakes(project, args.kind, args.name) and args.kind == "system":
        warn_of_possible_duplicates(project, args.name, args.operator, args.country)
    paths = " ".join(str(p) for p in dict.fromkeys([path, *(other.path for other in also)]))
    print(f"next: fill in every TODO, then run `hpckg check {paths}`", file=sys.stderr)
    return 0


# `hpckg new KIND` -> the class whose records of the same name the built store is asked for
NAMESAKE_CLASSES = {"system": "System", "site": "Site", "organisation": "Organisation", "part": "PartModel"}


def warn_of_namesakes(project: Project, kind: str, name: str) -> bool:
    """Say which records of the built store (imports included) already have the name just scaffolded; whether
    there were any."""
    from hpckg.contribute.namesakes import namesakes

    if kind not in NAMESAKE_CLASSES or not isinstance(project.store, Path):
        return False
    found = namesakes(project.store, name, NAMESAKE_CLASSES[kind])
    if found:
        listed = ", ".join(f"{n.name} ({n.label}, {n.dataset})" for n in found)
        print(f"note: the built store already has a {kind} named {name!r}: {listed}. If it is the same one, "
              f"delete what was just written and add claims about that record instead (CONTRIBUTING.md, "
              f"\"IRIs and slugs\"); `hpckg search` finds records by other names.", file=sys.stderr)
    return bool(found)


def warn_of_possible_duplicates(project: Project, name: str, operator: str, country: str) -> None:
    """Say which systems of the built store have the new system's name less its descriptive words and its
    operator's and country's words ("ORNL Frontier" is "Frontier"), in the same country (hpckg.contribute.duplicates;
    `hpckg check` says the same once the file is filled in)."""
    from hpckg.contribute import duplicates
    from hpckg.contribute.namesakes import namesakes
    from hpckg.namespaces import entity, hpc
    from hpckg.store import Store

    if not isinstance(project.store, Path) or not project.store.exists():
        return
    country_iri = entity("country", country.strip().upper())
    found = []
    store = Store(project.store, read_only=True)
    try:
        for core in sorted(duplicates.core_names(name, duplicates.own_words([operator, country]))):
            for candidate in namesakes(project.store, core, "System"):
                iri = entity("system", candidate.name.removeprefix("sys:"))
                if country_iri in duplicates.attributes(store, iri).get(hpc("country"), set()):
                    found.append(f"{duplicates.records_text(store, iri)} ({candidate.label}, {candidate.dataset})")
    finally:
        store.close()
    if found:
        print(f"note: {name!r} may be a machine the built store already has, in the same country: "
              f"{'; '.join(found)}. If it is, delete what was just written and add claims about that record "
              f"(`hpckg new claim`) instead.", file=sys.stderr)


def cmd_check(args: argparse.Namespace, project: Project) -> int:
    from hpckg.contribute.check import check_files
    from hpckg.project import is_server_url
    from hpckg.store import require_built

    if args.store is not None and not is_server_url(args.store):
        require_built(args.store)
    if args.store is not None and (args.full or args.with_imports):
        from hpckg.errors import InputError

        raise InputError(f"--store and {'--full' if args.full else '--with-imports'} cannot be used together: "
                         "they read the graph from the files; a built store holds the imports already")
    report = check_files(args.files, project, store_path=args.store, base=args.base, imports=args.with_imports,
                         full=args.full or args.with_imports)
    print(report.to_json() if args.format == "json" else report.to_text())
    return report.exit_code


def cmd_diff(args: argparse.Namespace, project: Project) -> int:
    from hpckg.contribute.diff import diff_revisions

    old, _, new = args.revs.partition("..")
    result = diff_revisions(old or "HEAD", new or None, data_dir=args.data_dir)
    print(result.to_json() if args.format == "json" else result.to_text())
    return 0
