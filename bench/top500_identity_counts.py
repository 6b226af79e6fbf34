"""Count how the TOP500 import splits and merges machines across editions (docs/decisions/20261130-top500-import.md,
"Measured"), from the importer's own identities, without a store.

    python bench/top500_identity_counts.py [FOLDER] [--list]

FOLDER holds the list's files (default ../shared/data/top500). Every entry of the file the import keeps per
edition gets the system slug `hpckg build` mints for it (EditionContext.system_slug); then, for each pair of
neighbouring editions (six months apart):

- split: an entry of each edition, agreeing on site, computer, cores and country (name_key) and Rmax
  (within the coarser rounding), each the only entry of its edition with that site, computer, cores and
  country, on two records; counted apart where both IDs were read from the files, as two IDs the list
  itself gives (until 2026-12-04 those were not counted at all, which hid the 2011 renumbering);
- false merge: two entries on one record, at least one tied by a derived link (not the list's own ID in
  both: read from the files, or one old ID renumbered on both sides), that differ in country, or in site
  and computer at once;
- move: two entries on one record whose country or site text (name_key) differs, whatever the basis.

Prints the records (by System ID and without), the counts, and with --list every split and false merge.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

from hpckg.importers.top500 import EditionContext, merged_entries, select
from hpckg.importers.top500_files import Entry, edition_of
from hpckg.importers.top500_identity import identities_for
from hpckg.names import name_key

Row = tuple[Entry, str, str]  # entry, system slug, identity basis


def same_figure(a: Decimal | None, b: Decimal | None) -> bool:
    if a is None or b is None:
        return False
    step = Decimal(1).scaleb(max(a.as_tuple().exponent, b.as_tuple().exponent))  # type: ignore[arg-type]
    return abs(a - b) <= step / 2


def records(folder: Path) -> dict[str, list[Row]]:
    found = {}
    for path in select(sorted(folder.glob("TOP500_*"))):
        context = EditionContext.__new__(EditionContext)  # only what system_slug needs: no names, no graph
        context.identities, context.path, context.seen = identities_for(path), path, set()
        rows = []
        for entry in merged_entries(path):
            slug, identity = context.system_slug(entry)
            rows.append((entry, slug, identity.basis if identity else "none"))
        found[edition_of(path)] = rows
    return found


def neighbours(editions: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for before, after in zip(editions, editions[1:], strict=False):
        (y1, m1), (y2, m2) = (map(int, before.split("-")), map(int, after.split("-")))
        if (y2 - y1) * 12 + m2 - m1 in (5, 7):
            pairs.append((before, after))
    return pairs


def from_files(a: Row, b: Row) -> bool:
    """Both entries' records come from an ID the files give them: read, or the same old ID renumbered."""
    return a[2] == b[2] == "file" or (a[2] == b[2] == "renumbered" and a[0].system_id == b[0].system_id)


def key(entry: Entry) -> tuple:
    return name_key(entry.site), name_key(entry.computer), entry.cores, name_key(entry.country or "")


def main(argv: list[str]) -> int:
    folder = Path(next((a for a in argv if not a.startswith("-")), "../shared/data/top500"))
    found = records(folder)
    splits, false_merges, moves, listed_apart = [], [], 0, 0
    for before, after in neighbours(sorted(found)):
        by_key_a: dict[tuple, list[Row]] = defaultdict(list)
        by_key_b: dict[tuple, list[Row]] = defaultdict(list)
        for row in found[before]:
            by_key_a[key(row[0])].append(row)
        for row in found[after]:
            by_key_b[key(row[0])].append(row)
        for k, rows_a in by_key_a.items():
            rows_b = by_key_b.get(k, [])
            if len(rows_a) == 1 == len(rows_b):
                (a, b) = rows_a[0], rows_b[0]
                if a[1] != b[1] and same_figure(a[0].rmax_tflops, b[0].rmax_tflops):
                    if from_files(a, b):
                        listed_apart += 1
                    else:
                        splits.append((before, a, b))
        by_slug = {row[1]: row for row in found[before]}
        for b in found[after]:
            a = by_slug.get(b[1])
            if a is None:
                continue
            country = name_key(a[0].country or "") != name_key(b[0].country or "")
            site = name_key(a[0].site) != name_key(b[0].site)
            moves += country or site
            computer = name_key(a[0].computer) != name_key(b[0].computer)
            if not from_files(a, b) and (country or (site and computer)):
                false_merges.append((before, a, b))
    slugs = {row[1] for rows in found.values() for row in rows}
    by_id = sum(slug.removeprefix("top500-").isdigit() for slug in slugs)
    machines = _components([(a[1], b[1]) for _, a, b in splits])
    print(f"records {len(slugs):,}: {by_id:,} by System ID, {len(slugs) - by_id:,} without")
    print(f"splits {len(splits)} pairs ({machines} machines), and {listed_apart} pairs under two IDs the files give; "
          f"false merges {len(false_merges)}; moves {moves}")
    if "--list" in argv:
        for label, items in (("split", splits), ("false merge", false_merges)):
            for edition, a, b in items:
                print(f"{label}: {edition} rank {a[0].rank} {a[1]} ({a[2]}) | rank {b[0].rank} {b[1]} ({b[2]}) | "
                      f"{a[0].site} / {b[0].site} | {a[0].country} / {b[0].country} | {a[0].computer[:40]}")
    return 0


def _components(edges: list[tuple[str, str]]) -> int:
    """The number of machines the split pairs make (a machine split three ways is two pairs, one machine)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for a, b in edges:
        parent[find(a)] = find(b)
    return len({find(a) for a, _ in edges})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
