"""Which machine a TOP500 entry is: its System ID, read from the file or recovered from a neighbouring one.

Most editions carry the list's stable `System ID`. Three kinds of file do not, and get it here, each way
with its basis recorded (`Identity.basis`) and its evidence (`Identity.via`: which entry, agreeing on what),
so a page can say how an entry was tied to its machine:

- "same edition": the spreadsheets of 2011-11 … 2014-11, whose edition also exists as XML (with IDs):
  the XML entry that is the same entry of the list (`twins`: paired by what they say, never by rank alone,
  since the two files of 2014-06 list different entries from rank 93 on);
- "previous rank": the spreadsheets of 2015-06 … 2017-06 (and any spreadsheet alone) name each entry's
  `Previous Rank`, the row of the same machine in the edition before, whose ID is known (read from that
  file, or itself recovered the same way, so the chain runs back to 2014-11's XML);
- "matching entry": where the Previous Rank row does not agree, the entry within `NEARBY` ranks of it that
  agrees on site, computer, cores, Rmax and country (2017-11's Previous Rank is off by 1–8 for about 100
  rows, which split machines in two and tied others to their neighbour);
- "next edition": an entry with no link from the edition before is found again, by either of the two
  ways above, from an entry of the edition after, which has the ID (2017-11 is the first spreadsheet with
  IDs again).
- "renumbered": the list renumbered every machine between 2011-06 (IDs up to ~10,900) and 2011-11 (IDs from
  ~175,000), so two neighbouring editions with IDs that share almost none are linked by what their entries
  say (`link_renumbered`), and a machine listed before keeps the later ID, the one top500.org shows, in
  every edition it was listed in under its old ID (the K computer is 177232 from its first listing).

What two entries agree on (`agreement`) decides every link (`one_machine`): never across a change of
country, and across a change of site only when computer, cores and Rmax agree and neither site is an
anonymised one ("Software Company (M)", "Hosting Company (M)": a different letter or category is a
different owner). An entry no link reaches keeps an identity of its own (`top500-<edition>-rank-<n>`), so a
doubtful chain splits a machine rather than merge two. Files are read from the folder of the file being
imported, once per process; links look at a bounded window of ranks, so all this is linear in the entries.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from hpckg.importers.top500_files import Entry, edition_of, read_entries
from hpckg.names import name_key

FORMAT_ORDER = (".xml", ".xlsx", ".xls")  # the file of an edition whose IDs are read first
# Ranks either side of the row a link expects (the Previous Rank, or the same rank in the twin file) where
# the entry that agrees on everything is looked for: 2017-11's Previous Rank is off by up to 8.
NEARBY = 8
AGREEMENT_FIELDS = ("site", "computer", "cores", "Rmax", "country")
# Site names the list anonymises: a category, often with a letter telling owners apart ("Software Company
# (M)", "IT Service Provider (C)", "Government"). Equal names may still be one machine (with its computer);
# two different ones are two owners, whatever else agrees.
ANONYMISED_SITE = re.compile(
    r"\([A-Z]{0,2}\)\s*$|\b(company|provider|services?|institution|industry|government|classified|bank(ing)?"
    r"|retail|e-commerce|manufacturer|agency)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Identity:
    """A machine's key: its System ID, or for a machine listed only in editions without IDs the edition
    and rank it was first listed at ("2015-06-rank-316", `synthetic`), followed through its links."""

    system_id: str
    basis: str  # "file", "same edition", "previous rank", "matching entry", "next edition", "first listed"
    via: str = ""  # "2014-11 rank 9, agreeing on site, computer, cores, Rmax and country": the entry and evidence

    @property
    def synthetic(self) -> bool:
        return not self.system_id.isdigit()


@dataclass(frozen=True)
class Link:
    """An entry's counterpart in another file: its rank there, how it was found and what they agree on."""

    rank: int
    basis: str  # "previous rank", "matching entry" (between editions); "system id", "same entry" (twins)
    evidence: str  # "agreeing on site, computer, cores, Rmax and country"


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


def same_figure(a: Decimal | None, b: Decimal | None) -> bool:
    """Equal within the coarser figure's rounding: the XML's 396.9444 TFlop/s is the spreadsheet's
    396.94444, and 2016-11's 93014.59388 is 2017-06's 93014.594."""
    if a is None or b is None:
        return False
    step = Decimal(1).scaleb(max(a.as_tuple().exponent, b.as_tuple().exponent, -12))  # type: ignore[arg-type]
    return abs(a - b) <= step / 2


def agreement(a: Entry, b: Entry) -> tuple[str, ...]:
    """Which of site, computer, cores, Rmax and country two entries agree on (texts by name_key: case,
    accents and punctuation aside; Rmax within rounding)."""
    agreed = []
    if a.site and b.site and _key(a.site) == _key(b.site):
        agreed.append("site")
    if a.computer and b.computer and _key(a.computer) == _key(b.computer):
        agreed.append("computer")
    if a.cores is not None and a.cores == b.cores:
        agreed.append("cores")
    if same_figure(a.rmax_tflops, b.rmax_tflops):
        agreed.append("Rmax")
    if a.country and b.country and _key(a.country) == _key(b.country):
        agreed.append("country")
    return tuple(agreed)


@lru_cache(maxsize=1 << 16)
def _key(text: str) -> str:
    """name_key, remembered: a link compares each entry's texts with up to 17 neighbours'."""
    return name_key(text)


def anonymised(site: str) -> bool:
    """A site the list names by category only ("Software Company (M)", "Government"): see ANONYMISED_SITE."""
    return bool(ANONYMISED_SITE.search(site))


def one_machine(a: Entry, b: Entry, agreed: tuple[str, ...] | None = None) -> bool:
    """Entries of neighbouring editions that a link may tie together: the same country, and the same site
    (upgraded in place: other figures may change; an anonymised site needs the same computer too), or the
    same computer, cores and Rmax at a renamed site that is not an anonymised one."""
    agreed = agreement(a, b) if agreed is None else agreed
    if "country" not in agreed:
        return False
    if "site" in agreed:
        return "computer" in agreed or not anonymised(a.site)
    return {"computer", "cores", "Rmax"} <= set(agreed) and not (anonymised(a.site) or anonymised(b.site))


def same_entry(agreed: tuple[str, ...]) -> bool:
    """Rows of one edition's XML and spreadsheet that are one entry of the list: the same measurement (cores,
    Rmax) in the same country, at the same site or of the same computer (either text may be corrected)."""
    return {"cores", "Rmax", "country"} <= set(agreed) and ("site" in agreed or "computer" in agreed)


def _agreeing_on(agreed: tuple[str, ...]) -> str:
    names = [name for name in AGREEMENT_FIELDS if name in agreed]
    if not names:
        return "agreeing on nothing"
    return "agreeing on " + (", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0])


def _nearest(anchor: int, taken: set[int], candidates: dict[int, Entry], entry: Entry, distance: int,
             accept: Callable[[tuple[str, ...]], bool]) -> tuple[int, tuple[str, ...]] | None:
    """The free candidate `distance` ranks from `anchor` (the lower first) whose agreement with `entry` is accepted."""
    for rank in sorted({anchor - distance, anchor + distance}):
        other = candidates.get(rank)
        if other is not None and rank not in taken:
            agreed = agreement(other, entry)
            if accept(agreed):
                return rank, agreed
    return None


def link_editions(before: tuple[Entry, ...], after: tuple[Entry, ...]) -> dict[int, Link]:
    """rank in `after` -> its entry in `before`, the edition six months earlier, one to one. First every
    entry whose Previous Rank row, or failing that the nearest row within NEARBY ranks of it, agrees on site,
    computer, cores, Rmax and country; then the Previous Rank row itself where it is `one_machine` with the
    entry (a machine upgraded or its site renamed). Bounded work per entry: linear in the entries."""
    by_rank = {e.rank: e for e in before if e.rank}
    pending = [e for e in after if e.rank and e.previous_rank]
    links: dict[int, Link] = {}
    taken: set[int] = set()
    everything = len(AGREEMENT_FIELDS)
    for distance in range(NEARBY + 1):
        for entry in pending:
            if entry.rank in links:
                continue
            found = _nearest(entry.previous_rank or 0, taken, by_rank, entry, distance,
                             lambda agreed: len(agreed) == everything)
            if found is None:
                continue
            rank, agreed = found
            if rank == entry.previous_rank:
                links[entry.rank] = Link(rank, "previous rank", _agreeing_on(agreed))
            else:
                links[entry.rank] = Link(rank, "matching entry", f"{_agreeing_on(agreed)}; the file's Previous "
                                                                 f"Rank is {entry.previous_rank}")
            taken.add(rank)
    for entry in pending:
        rank = entry.previous_rank or 0
        other = by_rank.get(rank)
        if entry.rank in links or rank in taken or other is None:
            continue
        agreed = agreement(other, entry)
        if one_machine(other, entry, agreed):
            links[entry.rank] = Link(rank, "previous rank", _agreeing_on(agreed))
            taken.add(rank)
    return links


def link_renumbered(before: tuple[Entry, ...], after: tuple[Entry, ...]) -> dict[int, Link]:
    """rank in `after` -> its entry in `before`, for neighbouring editions numbered apart (no Previous Rank
    either: the 2011-11 files have none), one to one. Passes from the surest: an entry is linked where it is
    the only one left on its side with the same (site, computer, cores, Rmax, country), then the same
    (site, cores, Rmax, country) (2011-11 moved names such as "Tianhe-1A" out of the Computer column), then
    the same (site, computer, country) (upgraded in place, as the K computer was), then the same (computer,
    cores, Rmax, country) (a renamed site), then the only entry at a named site on both sides (upgraded and
    its computer re-described), where `one_machine` allows it. Identical entries (the same figures at one site, as
    the Korea Meteorological Administration's two Cray XE6) are paired in rank order: the list tells them
    apart by nothing else. Dictionary look-ups: linear in the entries."""
    passes = (
        lambda e: (_key(e.site), _key(e.computer), e.cores, e.rmax_tflops, _key(e.country or "")),
        lambda e: (_key(e.site), e.cores, e.rmax_tflops, _key(e.country or "")),
        lambda e: (_key(e.site), _key(e.computer), _key(e.country or "")),
        lambda e: (_key(e.computer), e.cores, e.rmax_tflops, _key(e.country or "")),
        lambda e: (_key(e.site), _key(e.country or "")) if not anonymised(e.site) else ("anonymised", e.rank),
    )
    links: dict[int, Link] = {}
    taken: set[int] = set()
    for key in passes:
        free_before: dict[tuple, list[Entry]] = {}
        for entry in before:
            if entry.rank and entry.rank not in taken:
                free_before.setdefault(key(entry), []).append(entry)
        free_after: dict[tuple, list[Entry]] = {}
        for entry in after:
            if entry.rank and entry.rank not in links:
                free_after.setdefault(key(entry), []).append(entry)
        for shared, entries in free_after.items():
            candidates = free_before.get(shared, [])
            identical = key in passes[:2] and len(entries) == len(candidates) > 1
            if not identical and (len(entries) != 1 or len(candidates) != 1):
                continue
            for entry, candidate in zip(entries, candidates, strict=True):
                agreed = agreement(candidate, entry)
                if one_machine(candidate, entry, agreed):
                    evidence = _agreeing_on(agreed) + (f", one of {len(entries)} identical entries paired in rank "
                                                       "order" if identical else "")
                    links[entry.rank] = Link(candidate.rank, "renumbered", evidence)
                    taken.add(candidate.rank)
    return links


def pair_twins(xml: tuple[Entry, ...], sheet: tuple[Entry, ...]) -> dict[int, Link]:
    """rank in `xml` -> the same entry of the list in `sheet`, the other file of its edition, one to one:
    by System ID where both have it; else walking both lists in rank order, the row nearest to where the
    walk expects it (the last pair's offset: after an entry one file lists and the other does not, every
    rank is one apart) that agrees on site, computer, cores, Rmax and country, else one that is `same_entry`,
    else the expected row itself if only a figure differs (site, computer, cores and country agree). An
    entry with no twin is left out. Bounded work per entry: linear."""
    pairs: dict[int, Link] = {}
    taken: set[int] = set()
    sheet_by_id = {e.system_id: e for e in sheet if e.system_id}
    for entry in xml:
        twin = sheet_by_id.get(entry.system_id or "")
        if twin is not None and entry.rank and twin.rank not in taken:
            pairs[entry.rank] = Link(twin.rank, "system id", "the same System ID")
            taken.add(twin.rank)
    sheet_by_rank = {e.rank: e for e in sheet if e.rank}
    everything = len(AGREEMENT_FIELDS)
    tests = ((lambda agreed: len(agreed) == everything, NEARBY), (same_entry, NEARBY),
             (lambda agreed: {"site", "computer", "cores", "country"} <= set(agreed), 0))
    offset = 0
    for entry in sorted(xml, key=lambda e: e.rank):
        if not entry.rank:
            continue
        if entry.rank in pairs:
            offset = pairs[entry.rank].rank - entry.rank
            continue
        expected = entry.rank + offset
        for accept, reach in tests:
            found = next((hit for distance in range(reach + 1)
                          if (hit := _nearest(expected, taken, sheet_by_rank, entry, distance, accept))), None)
            if found is not None:
                pairs[entry.rank] = Link(found[0], "same entry", _agreeing_on(found[1]))
                taken.add(found[0])
                offset = found[0] - entry.rank
                break
    return pairs


def twin_file(path: Path) -> Path | None:
    """The other file of the same edition beside `path` (2011-11 … 2014-11 are XML and XLS), if any."""
    others = [p for p in sorted(path.parent.glob(f"{path.stem}.*"))
              if p != path and p.suffix.lower() in FORMAT_ORDER and p.is_file()]
    return others[0] if others else None


@lru_cache(maxsize=32)
def _twins(path: Path, twin: Path, stamp: tuple) -> dict[int, tuple[Entry, Link]]:
    mine, theirs = entries_of(path), entries_of(twin)
    if path.suffix.lower() == ".xml" or twin.suffix.lower() != ".xml":
        pairs = pair_twins(mine, theirs)
        by_rank = {e.rank: e for e in theirs}
        return {rank: (by_rank[link.rank], link) for rank, link in pairs.items()}
    pairs = pair_twins(theirs, mine)  # the pairing is always made from the XML's side, so it is one pairing
    by_rank = {e.rank: e for e in theirs}
    return {link.rank: (by_rank[rank], Link(rank, link.basis, link.evidence)) for rank, link in pairs.items()}


def twins(path: Path) -> dict[int, tuple[Entry, Link]]:
    """rank in the file at `path` -> its twin row in the other file of its edition, and the link's evidence
    ({} when the edition has one file)."""
    twin = twin_file(path)
    if twin is None:
        return {}
    stamp = tuple((p.stat().st_mtime_ns, p.stat().st_size) for p in (path, twin))
    return _twins(path, twin, stamp)


class Identities:
    """System IDs for the entries of the editions in one folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.editions = _editions(folder)
        self.order = sorted(self.editions)
        self._by_rank: dict[str, dict[int, Identity]] = {}
        self._renumbered: dict[str, tuple[str, Identity]] | None = None

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
        IDs from the one before through its links (`link_editions`); then, newest first, from the one after,
        so a machine first listed in 2016-06 and still listed in 2017-11 gets its ID back through 2017-06 and
        2016-11. Each pair of neighbouring editions is linked once."""
        known = {edition: self._with_ids(edition) for edition in order}
        links: dict[str, dict[int, Link]] = {}  # edition -> its links to the edition before

        def links_to_previous(edition: str, previous: str) -> dict[int, Link]:
            if edition not in links:
                links[edition] = link_editions(self._entries_of(previous), self._entries_of(edition))
            return links[edition]

        for edition in order:
            entries = known[edition]
            if entries is not None:
                self._by_rank[edition] = {e.rank: Identity(e.system_id, "file") for e in entries
                                          if e.system_id and e.rank}
                continue
            result: dict[int, Identity] = {}
            previous = self._neighbour(edition, -1)
            before_ids = self._by_rank.get(previous, {}) if previous else {}
            linked = links_to_previous(edition, previous) if previous else {}
            for entry in self._entries_of(edition):
                link = linked.get(entry.rank)
                if link is not None and link.rank in before_ids:
                    result[entry.rank] = Identity(before_ids[link.rank].system_id, link.basis,
                                                  f"{previous} rank {link.rank}, {link.evidence}")
                elif entry.rank:
                    result[entry.rank] = Identity(f"{edition}-rank-{entry.rank}", "first listed")
            self._by_rank[edition] = result
        for edition in reversed(order):
            following = self._neighbour(edition, 1)
            if known[edition] is not None or not following:
                continue
            self._from_next_edition(self._by_rank[edition], following, links_to_previous(following, edition))

    def _from_next_edition(self, result: dict[int, Identity], following: str, linked: dict[int, Link]) -> None:
        """Give each entry of an edition without IDs that has none yet (or only a key of its own) the ID of
        the entry of `following` linked to it. One ID is never given twice in an edition: where it is taken
        already (two identical machines whose Previous Ranks cross, as ECMWF's two Cray XC40 do in 2017-11),
        the entry gets the ID the edition after gives the entry that holds it, if that one is free."""
        after_ids = self._by_rank.get(following, {})
        holder = {identity.system_id: rank for rank, identity in result.items()}
        followed_by = {link.rank: after_rank for after_rank, link in linked.items()}
        for after_rank, link in sorted(linked.items()):
            known_after = after_ids.get(after_rank)
            mine = result.get(link.rank)
            if known_after is None or known_after.synthetic or (mine is not None and not mine.synthetic):
                continue
            system_id = known_after.system_id
            via = f"{following} rank {after_rank} by {link.basis}, {link.evidence}"
            if system_id in holder:
                crossed = followed_by.get(holder[system_id])
                other = after_ids.get(crossed) if crossed is not None else None
                if other is None or other.synthetic or other.system_id in holder:
                    continue
                via += (f"; its ID {system_id} is this edition's rank {holder[system_id]}, linked to {following} "
                        f"rank {crossed}, whose ID this entry takes")
                system_id = other.system_id
            result[link.rank] = Identity(system_id, "next edition", via)
            holder[system_id] = link.rank

    def renumbered(self) -> dict[str, tuple[str, Identity]]:
        """old System ID -> (the last edition listing it by that ID, its identity under the later numbering),
        for every pair of neighbouring editions with IDs that share fewer than a tenth of them. Newest
        renumbering first, so an ID renumbered twice ends at the newest."""
        if self._renumbered is not None:
            return self._renumbered
        found: dict[str, tuple[str, Identity]] = {}
        for after_edition in reversed(self.order):
            before_edition = self._neighbour(after_edition, -1)
            after = self._with_ids(after_edition)
            before = self._with_ids(before_edition) if before_edition else None
            if before is None or after is None:
                continue
            before_ids = {e.system_id for e in before if e.system_id}
            after_ids = {e.system_id for e in after if e.system_id}
            if len(before_ids & after_ids) * 10 >= min(len(before_ids), len(after_ids)):
                continue
            by_rank = {e.rank: e for e in before if e.rank}
            after_by_rank = {e.rank: e for e in after if e.rank}
            for after_rank, link in link_renumbered(before, after).items():
                old, new = by_rank[link.rank].system_id, after_by_rank[after_rank].system_id
                if not old or not new:
                    continue
                newest = found.get(new, (after_edition, Identity(new, "file")))[1]
                via = (f"{after_edition} rank {after_rank}, {link.evidence}: the list renumbered its machines "
                       f"after {before_edition}, when this one was ID {old}")
                found[old] = (before_edition, Identity(newest.system_id, "renumbered",
                                                       via if newest.basis == "file" else f"{via}; {newest.via}"))
        self._renumbered = found
        return found

    def _entries_of(self, edition: str) -> tuple[Entry, ...]:
        paths = self.editions.get(edition, [])
        return entries_of(paths[0]) if paths else ()

    def of(self, entry: Entry, path: Path) -> Identity | None:
        """The identity of an entry of the file at `path` (None when nothing ties it to a System ID)."""
        if entry.system_id and entry.system_id.isdigit():
            last_edition, renumbered = self.renumbered().get(entry.system_id, ("", None))
            if renumbered is not None and entry.edition <= last_edition:
                return renumbered
            return Identity(entry.system_id, "file")
        if path.suffix.lower() != ".xml" and self._with_ids(entry.edition) is not None:
            # The edition's other file has the IDs: the entry is its twin there, or (no twin) a machine of its own.
            twin, link = twins(path).get(entry.rank, (None, None))
            if twin is None or link is None or not twin.system_id:
                return None
            return Identity(twin.system_id, "same edition", f"{twin.edition} XML rank {twin.rank}, {link.evidence}")
        return self.ranks(entry.edition).get(entry.rank) if entry.rank else None


@lru_cache(maxsize=16)
def _identities(folder: str, stamp: tuple) -> Identities:
    return Identities(Path(folder))


def identities_for(path: Path) -> Identities:
    """The Identities of the folder holding `path` (cached while the folder's files are unchanged)."""
    folder = Path(path).resolve().parent
    stamp = tuple((p.name, p.stat().st_mtime_ns) for p in sorted(folder.glob("TOP500_*")))
    return _identities(str(folder), stamp)
