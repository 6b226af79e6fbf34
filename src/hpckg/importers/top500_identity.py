"""Which machine a TOP500 entry is: its System ID, read from the file or recovered from a neighbouring one.

Most editions carry the list's stable `System ID`. Three kinds of file do not, and get it here, each way
with its basis recorded (`Identity.basis`), so a page can say how an entry was tied to its machine:

- "same edition": the spreadsheets of 2011-11 … 2014-11, whose edition also exists as XML (with IDs):
  the XML entry of the same rank, checked by the computer or site text;
- "previous rank": the spreadsheets of 2015-06 … 2017-06 (and any spreadsheet alone) name each entry's
  `Previous Rank`, the row of the same machine in the edition before, whose ID is known (read from that
  file, or itself recovered the same way, so the chain runs back to 2014-11's XML);
- "next edition": an entry new in its edition (no Previous Rank) is found again as the Previous Rank of an
  entry of the edition after, which has the ID (2017-11 is the first spreadsheet with IDs again).

A link is only taken when the two entries agree on the site or the computer (case, accents and punctuation
aside); otherwise the entry keeps an identity of its own (`top500-<edition>-rank-<n>`), so a wrong chain
never merges two machines. Files are read from the folder of the file being imported, once per process.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from hpckg.importers.top500_files import Entry, edition_of, read_entries
from hpckg.names import name_key

FORMAT_ORDER = (".xml", ".xlsx", ".xls")  # the file of an edition whose IDs are read first


@dataclass(frozen=True)
class Identity:
    """A machine's key: its System ID, or for a machine listed only in editions without IDs the edition
    and rank it was first listed at ("2015-06-rank-316", `synthetic`), followed through its Previous Ranks."""

    system_id: str
    basis: str  # "file", "same edition", "previous rank", "next edition", "first listed"
    via: str = ""  # "2014-11 rank 9": the entry the ID was read from

    @property
    def synthetic(self) -> bool:
        return not self.system_id.isdigit()


def _editions(folder: Path) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for path in sorted(folder.glob("TOP500_*")):
        if path.suffix.lower() in FORMAT_ORDER and path.is_file():
            found.setdefault(edition_of(path), []).append(path)
    for paths in found.values():
        paths.sort(key=lambda p: FORMAT_ORDER.index(p.suffix.lower()))
    return found


@lru_cache(maxsize=256)
def _entries(path: Path, stamp: tuple[int, int]) -> tuple[Entry, ...]:
    return tuple(read_entries(path))


def entries_of(path: Path) -> tuple[Entry, ...]:
    stat = path.stat()
    return _entries(path, (stat.st_mtime_ns, stat.st_size))


def _same(a: Entry, b: Entry) -> bool:
    """Two entries plausibly of one machine: the same site or the same computer text."""
    return bool((a.site and b.site and name_key(a.site) == name_key(b.site))
                or (a.computer and b.computer and name_key(a.computer) == name_key(b.computer)))


class Identities:
    """System IDs for the entries of the editions in one folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.editions = _editions(folder)
        self.order = sorted(self.editions)
        self._by_rank: dict[str, dict[int, Identity]] = {}

    def _neighbour(self, edition: str, step: int) -> str | None:
        if edition not in self.order:
            return None
        index = self.order.index(edition) + step
        if not 0 <= index < len(self.order):
            return None
        # Only the edition right before or after (six months apart): a gap in the files breaks the chain.
        year, month = map(int, edition.split("-"))
        other_year, other_month = map(int, self.order[index].split("-"))
        months = (other_year - year) * 12 + other_month - month
        return self.order[index] if abs(months) in (5, 7) else None

    def _with_ids(self, edition: str) -> tuple[Entry, ...] | None:
        """The entries of `edition` read from a file that has System IDs, if the folder has one."""
        for path in self.editions.get(edition, []):
            entries = entries_of(path)
            if any(e.system_id for e in entries):
                return entries
        return None

    def ranks(self, edition: str) -> dict[int, Identity]:
        """rank -> identity for an edition, from its own file or its neighbours'."""
        if edition not in self._by_rank and edition in self.editions:
            self._resolve(self._window(edition))
        return self._by_rank.get(edition, {})

    def _window(self, edition: str) -> list[str]:
        """The run of consecutive editions around `edition` up to the nearest one with IDs on each side (or
        a gap in the files): all that its identities can depend on, so only those files are read."""
        window = [edition]
        for step in (-1, 1):
            current = edition
            while self._with_ids(current) is None:
                following = self._neighbour(current, step)
                if following is None:
                    break
                window.append(following)
                current = following
        return sorted(set(window))

    def _resolve(self, order: list[str]) -> None:
        """Every edition at once: IDs from the files that have them; then, oldest first, each edition without
        IDs from the one before through Previous Rank; then, newest first, from the one after (whose entries
        name this edition's rank as their Previous Rank), so a machine first listed in 2016-06 and still
        listed in 2017-11 gets its ID back through 2017-06 and 2016-11."""
        known = {edition: self._with_ids(edition) for edition in order}
        for edition in order:
            entries = known[edition]
            if entries is not None:
                self._by_rank[edition] = {e.rank: Identity(e.system_id, "file") for e in entries
                                          if e.system_id and e.rank}
                continue
            result: dict[int, Identity] = {}
            previous = self._neighbour(edition, -1)
            if previous:
                before_by_rank = {e.rank: e for e in self._entries_of(previous)}
                before_ids = self._by_rank.get(previous, {})
            else:
                before_by_rank, before_ids = {}, {}
            for entry in self._entries_of(edition):
                before = before_by_rank.get(entry.previous_rank or 0)
                if before is not None and entry.previous_rank in before_ids and _same(entry, before):
                    result[entry.rank] = Identity(before_ids[entry.previous_rank].system_id, "previous rank",
                                                  f"{previous} rank {entry.previous_rank}")
                elif entry.rank:
                    result[entry.rank] = Identity(f"{edition}-rank-{entry.rank}", "first listed")
            self._by_rank[edition] = result
        for edition in reversed(order):
            following = self._neighbour(edition, 1)
            if known[edition] is not None or not following:
                continue
            result = self._by_rank[edition]
            after_ids = self._by_rank.get(following, {})
            by_rank = {e.rank: e for e in self._entries_of(edition)}
            for after in self._entries_of(following):
                entry = by_rank.get(after.previous_rank or 0)
                known_after = after_ids.get(after.rank)
                if (entry is not None and known_after is not None and not known_after.synthetic
                        and (entry.rank not in result or result[entry.rank].synthetic) and _same(entry, after)):
                    result[entry.rank] = Identity(known_after.system_id, "next edition",
                                                  f"{following} rank {after.rank}")

    def _entries_of(self, edition: str) -> tuple[Entry, ...]:
        paths = self.editions.get(edition, [])
        return entries_of(paths[0]) if paths else ()

    def of(self, entry: Entry, path: Path) -> Identity | None:
        """The identity of an entry of the file at `path` (None when nothing ties it to a System ID)."""
        if entry.system_id and entry.system_id.isdigit():
            return Identity(entry.system_id, "file")
        if path.suffix.lower() != ".xml":
            same = self._with_ids(entry.edition)
            if same is not None:
                twin = next((e for e in same if e.rank == entry.rank and _same(e, entry)), None)
                if twin is not None and twin.system_id:
                    return Identity(twin.system_id, "same edition", f"{twin.edition} XML rank {twin.rank}")
        return self.ranks(entry.edition).get(entry.rank) if entry.rank else None


@lru_cache(maxsize=16)
def _identities(folder: str, stamp: tuple) -> Identities:
    return Identities(Path(folder))


def identities_for(path: Path) -> Identities:
    """The Identities of the folder holding `path` (cached while the folder's files are unchanged)."""
    folder = Path(path).resolve().parent
    stamp = tuple((p.name, p.stat().st_mtime_ns) for p in sorted(folder.glob("TOP500_*")))
    return _identities(str(folder), stamp)
