"""Which site a TOP500 entry is at: one record per real site, whatever edition names it.

Most editions give each entry the list's `Site ID`; the spreadsheets of 2015-06 … 2017-06 do not, and give
only the site's name. Keyed by that name, one site became two records (`site-50376` and
`site-service-provider`), and the anonymised sites the list tells apart by a letter ("Energy Company (A)",
"(D)", "(DD)") became one. Read from all the editions of the folder (as top500_identity reads them, so every
edition's import agrees), `Sites` gives each entry its site, each way with its basis:

- "file": the entry's own Site ID;
- "same system": the Site ID the same machine (its System ID, top500_identity) has in the editions with
  IDs, under the same name in the same country; else its only Site ID in that country (a machine listed at
  "Service Provider" and later at "Service Provider T" in China stayed where it was);
- "same name": the one Site ID that name has in that country in the editions with IDs, or of several the
  one listed both before and after the entry's edition (an anonymised name only with its letter:
  "Government" alone names many sites);
- otherwise the name keys the site: a real name by itself (`top500-site-<slug>`), an anonymised name with
  its letter and country (`top500-site-energy-company-a-us`), an anonymised name without a letter with its
  country and machine, since nothing says two such entries are one site ("anonymous"); a record keyed by a
  name follows the machine to the one better-founded record its other entries are at ("same system").

Several Site IDs of one real site are one record (the latest listed ID's) where the evidence is exact: one
machine (its System ID, an ID of before the 2011 renumbering read as the machine's later one) listed under
both IDs with the same site name in the same country (the list re-keyed the site, the machine did not move;
an anonymised name is such evidence only with its letter, "Geoscience (P)", not "Government"); or one real
(not anonymised) name in one
country whose IDs follow one another in time, never listed together (the list renumbered its sites in
2011-11). Only that: a name several IDs carry at once ("Microsoft Azure", "AT&T") may be several sites, and
two names of one organisation ("Lawrence Livermore National Laboratory", "DOE/NNSA/LLNL") are two sites as the
list has them.
docs/decisions/20261204-top500-sites-and-operators.md.

Each record's label is the name the latest edition listing it gives it; its other names are alternative
labels. `operating_organisation_name` says whether a site's name names the organisation that runs it (a
laboratory, university or company does; an anonymised site does not).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from hpckg.importers.top500_files import Entry, edition_of
from hpckg.importers.top500_identity import entries_of, identities_for
from hpckg.names import SlugError, ascii_fold, name_key, slugify

# The words the list's anonymised sites are made of ("Energy Company (A)", "IT Service Provider",
# "Government Classified", "Internet Service (B)"): a site name made only of these (and a letter) names no
# one. A real name has at least one other word ("Saudi Aramco", "Intel", "Sandia National Laboratories").
ANONYMOUS_WORDS = frozenset("""
    a aerospace agency amp agricultural airline and automative automotive bank banking biotech center centre
    chemical chip classified cloud commerce communications company computer consulting consumer content
    contractor corporation d data datacenter defence defense department digital distribution e ecommerce
    electricity electronic electronics electrionic employment energy engineering entertainment equipment
    finance financial food gaming geophysical geophysics geoscience goods government health heavy hosting
    industrial industry information institute institution insttitution insurance internet isp it laboratory
    life logistic logistics manufacture manufacturer manufacturing media medical meteorological mobile network
    netwok nw of oil operator p petroleum pharmaceutical processing provider public publishing r research
    retail retailer science semiconductor service services simulation social software system systems
    technology telecom telecommunication telecommunications trading web
""".split())
# Words an anonymised name may carry besides its category, but only with its letter ("Chinese Bank A",
# "US Government Classified (A)"): without one, "China Telecom" and "Korea Telecom" are companies.
WITH_LETTER_ONLY = frozenset("china chinese korea korean japan japanese us usa uk german european".split())
# "Energy Company (A)", "Energy Company (DD)", "Bank (S1)", "Financial Company (C A1)", "Service Provider T",
# "Software Company MGER": the code that tells anonymised sites apart. "(FZJ)" after a real name is an
# abbreviation, not a code: only names whose other words are all category words are anonymised. ("amp" is
# in the words because the list's files spell "&" as "&amp;" in some names: "E&amp;P Company (D)".)
LETTER = re.compile(r"^(?P<stem>.*?)\s*(?:\((?P<paren>[A-Z][A-Z0-9 ]{0,4})\)|\s(?P<bare>[A-Z][A-Z0-9]{0,4}))\s*$")
FORMAT_ORDER = (".xml", ".xlsx", ".xls")


def anonymised(name: str) -> tuple[str, str | None] | None:
    """(stem, code) when `name` is one of the list's anonymised sites ("Energy Company (A)" -> ("Energy
    Company", "A"); "Software Company (M) SA" -> ("Software Company", "M SA"); "Government" -> ("Government",
    None)), else None."""
    stem, codes = name.strip(), []
    for _ in range(2):  # "Software Company (M) SA": a code and a country code after it
        match = LETTER.match(stem)
        if not match or not match["stem"]:
            break
        stem, codes = match["stem"], [match["paren"] or match["bare"], *codes]
    letter = " ".join(codes) or None
    words = re.findall(r"[a-z]+", ascii_fold(stem).lower())
    allowed = ANONYMOUS_WORDS | WITH_LETTER_ONLY if letter else ANONYMOUS_WORDS
    if words and all(word in allowed for word in words):
        return stem, letter
    return None


def operating_organisation_name(name: str | None) -> bool:
    """Whether a site's name names the organisation that runs it: any name but an anonymised one."""
    return bool(name and name.strip() and anonymised(name) is None)


def _slug(text: str) -> str:
    try:
        return slugify(text)
    except SlugError:
        return name_key(text) or "unnamed"


@dataclass(frozen=True)
class SiteChoice:
    """The site record an entry is at: its slug (`top500-site-1056`), the Site IDs the record stands for,
    and how the entry was tied to it."""

    slug: str
    basis: str  # "file", "same system", "same name", "name"
    site_ids: tuple[str, ...] = ()


class Sites:
    """Site records for the entries of the editions in one folder."""

    def __init__(self, listed: Iterable[Entry], folder: Path | None = None,
                 renumbered: dict[str, tuple[str, str]] | None = None):
        """`listed`: the entries of the editions with Site IDs; `folder`: where every edition is read from to
        find each record's latest name (none: records have no label of their own); `renumbered`: old System
        ID -> (the last edition listing it by that ID, the machine's later ID), top500_identity's."""
        self.folder = folder
        self.renumbered = renumbered or {}
        listed = [entry for entry in listed if entry.site_id and entry.site_id.isdigit() and entry.site]
        self.canonical = self._tie(listed, self.machine_id)
        self.members: dict[str, set[str]] = {}
        for site_id, record in self.canonical.items():
            self.members.setdefault(record, set()).add(site_id)
        self.by_name: dict[tuple[str, str | None], set[str]] = {}
        self.by_system: dict[str, set[tuple[str, str, str | None]]] = {}
        self.spans: dict[str, tuple[str, str]] = {}  # record -> first and last edition listing it
        for entry in listed:
            record = self.canonical[entry.site_id]
            first, final = self.spans.get(record, (entry.edition, entry.edition))
            self.spans[record] = (min(first, entry.edition), max(final, entry.edition))
            self.by_name.setdefault((name_key(entry.site), entry.country), set()).add(record)
            if entry.system_id:
                self.by_system.setdefault(self.machine_id(entry), set()).add(
                    (record, name_key(entry.site), entry.country))
        self.record_names: dict[str, str] = {}  # slug -> the name the latest edition gives it
        self._operators: dict[str, tuple[str, str]] | None = None  # see operator
        self._by_machine: dict[tuple[str, str | None], dict[str, SiteChoice]] | None = None

    def machine_id(self, entry: Entry) -> str | None:
        """The entry's System ID, or for an ID of before the 2011 renumbering the machine's later one."""
        last_edition, later = self.renumbered.get(entry.system_id or "", ("", None))
        return later if later is not None and entry.edition <= last_edition else entry.system_id

    @classmethod
    def of_folder(cls, folder: Path) -> Sites:
        """The sites of every edition in `folder`, each edition read from the file the importer reads."""
        files = cls._edition_files(folder)
        renumbered = {old: (edition, identity.system_id) for old, (edition, identity)
                      in identities_for(files[0]).renumbered().items()} if files else {}
        return cls((entry for path in files for entry in entries_of(path)), folder, renumbered)

    @staticmethod
    def _tie(listed: list[Entry], machine_id) -> dict[str, str]:
        """Site ID -> the Site ID of its record: IDs one machine was listed under with the same site name in
        the same country are one site, recorded under the ID listed last (ties: the smallest)."""
        parent: dict[str, str] = {e.site_id: e.site_id for e in listed}

        def root(site_id: str) -> str:
            while parent[site_id] != site_id:
                parent[site_id] = parent[parent[site_id]]
                site_id = parent[site_id]
            return site_id

        seen: dict[tuple[str, str, str | None], str] = {}
        for entry in listed:
            # An anonymised name without its letter is no evidence: one machine may move between two
            # "Government" sites. With its letter ("Geoscience (P)") it names one site, as a real name does.
            hidden = anonymised(entry.site)
            if not entry.system_id or (hidden is not None and hidden[1] is None):
                continue
            key = (machine_id(entry), name_key(entry.site), entry.country)
            if key in seen:
                parent[root(entry.site_id)] = root(seen[key])
            else:
                seen[key] = entry.site_id
        # The list renumbered its sites in 2011-11 (Lawrence Livermore was 1026 until 2011-06, 48247 from
        # 2011-11) and re-keyed some since: a real name's IDs in one country whose listings follow one another,
        # never overlapping, are one site. IDs of one name listed at the same time stay apart (Microsoft Azure).
        spans: dict[str, tuple[str, str]] = {}
        named: dict[tuple[str, str | None], set[str]] = {}
        for entry in listed:
            first, final = spans.get(entry.site_id, (entry.edition, entry.edition))
            spans[entry.site_id] = (min(first, entry.edition), max(final, entry.edition))
            if anonymised(entry.site) is None:
                named.setdefault((name_key(entry.site), entry.country), set()).add(entry.site_id)
        for site_ids in named.values():
            ordered = sorted(site_ids, key=lambda s: spans[s])
            if len(ordered) > 1 and all(spans[a][1] < spans[b][0] for a, b in zip(ordered, ordered[1:], strict=False)):
                for other in ordered[1:]:
                    parent[root(other)] = root(ordered[0])
        last: dict[str, tuple[str, int]] = {}
        for entry in listed:
            order = (entry.edition, -int(entry.site_id))
            if entry.site_id not in last or order > last[entry.site_id]:
                last[entry.site_id] = order
        groups: dict[str, list[str]] = {}
        for site_id in parent:
            groups.setdefault(root(site_id), []).append(site_id)
        canonical = {}
        for members in groups.values():
            chosen = max(members, key=lambda s: last[s])
            for member in members:
                canonical[member] = chosen
        return canonical

    def choose(self, entry: Entry, system_id: str | None, machine: str) -> SiteChoice:
        """The site record of `entry`, of the machine whose System ID is `system_id` (None when none is
        known) and whose key is `machine` (the System ID, or the edition and rank it was first listed at).

        A record keyed by a name follows the machine: where its other entries in that country are all at
        one better-founded record (a Site ID's, or for an anonymised name without a letter a lettered one:
        "Internet Service" in 2015-11, "Internet Service (B)" in 2016-06), the entry is there too."""
        choice = self._choose(entry, system_id, machine)
        if choice.basis in ("name", "anonymous") and self.folder is not None:
            better = self._machine_records().get((machine, entry.country), {})
            targets = {slug: found for slug, found in better.items()
                       if slug != choice.slug and (found.site_ids or choice.basis == "anonymous")}
            if len(targets) == 1:
                found = next(iter(targets.values()))
                return SiteChoice(found.slug, "same system", found.site_ids)
        return choice

    def _machine_records(self) -> dict[tuple[str, str | None], dict[str, SiteChoice]]:
        """(machine, country) -> the records its entries are at, other than per-machine ones, from every
        edition of the folder (read once)."""
        if self._by_machine is None:
            self._by_machine = {}
            for entry, system_id, machine in self._every_entry():
                choice = self._choose(entry, system_id, machine)
                if choice.basis != "anonymous":
                    self._by_machine.setdefault((machine, entry.country), {})[choice.slug] = choice
        return self._by_machine

    def _every_entry(self) -> Iterable[tuple[Entry, str | None, str]]:
        """Every entry with a site of every edition, with its System ID and machine key (top500_identity)."""
        assert self.folder is not None
        identities = identities_for(next(iter(sorted(self.folder.glob("TOP500_*")))))
        for path in self._edition_files(self.folder):
            for entry in entries_of(path):
                if entry.site:
                    identity = identities.of(entry, path)
                    yield (entry, identity.system_id if identity else None,
                           identity.system_id if identity else f"{entry.edition}-rank-{entry.rank}")

    def _choose(self, entry: Entry, system_id: str | None, machine: str) -> SiteChoice:
        if entry.site_id and entry.site_id.isdigit() and entry.site_id in self.canonical:
            return self._record(self.canonical[entry.site_id], "file")
        key, country = name_key(entry.site), entry.country
        anonymous = anonymised(entry.site)
        if system_id:
            own = self.by_system.get(system_id, set())
            named = {record for record, name, where in own if name == key and where == country}
            in_country = {record for record, _, where in own if where == country}
            if len(named) == 1:
                return self._record(named.pop(), "same system")
            if not named and len(in_country) == 1:
                return self._record(in_country.pop(), "same system")
        if anonymous is None or anonymous[1]:
            same_name = self.by_name.get((key, country), set())
            if len(same_name) > 1:  # several sites of that name: the one listed before and after this edition,
                spanning = {r for r in same_name if self.spans[r][0] <= entry.edition <= self.spans[r][1]}
                before = [r for r in same_name if self.spans[r][1] < entry.edition]  # else the last listed before
                latest = max((self.spans[r][1] for r in before), default=None)
                same_name = spanning or {r for r in before if self.spans[r][1] == latest}
            if len(same_name) == 1:
                return self._record(same_name.pop(), "same name")
        if anonymous is None:
            return SiteChoice(f"top500-site-{_slug(entry.site)}"[:120].rstrip("-"), "name")
        stem, letter = anonymous
        where = _slug(country) if country else "nowhere"
        if letter:
            return SiteChoice(f"top500-site-{_slug(stem)}-{_slug(letter)}-{where}"[:120].rstrip("-"), "name")
        return SiteChoice(f"top500-site-{_slug(stem)}-{where}-of-{_slug(machine)}"[:120].rstrip("-"), "anonymous")

    def _record(self, record: str, basis: str) -> SiteChoice:
        return SiteChoice(f"top500-site-{record}", basis, tuple(sorted(self.members[record], key=int)))

    def label(self, slug: str) -> str | None:
        """The name the latest edition listing the record `slug` gives it (the most frequent in that edition,
        then the first alphabetically), read from every edition of the folder once."""
        if not self.record_names and self.folder is not None:
            self._read_labels()
        return self.record_names.get(slug)

    def operator(self, slug: str, label: str) -> tuple[str, str] | None:
        """The organisation the site record `slug` (named `label`) names, as (slug, label); None for an
        anonymised name. One per name, whatever the case, accents and punctuation (hpckg.names.name_key),
        across every site record of the folder: the list keeps several Site IDs for one organisation ("AT&T"
        nine, "BellSouth" five, two once a site was registered again), and one organisation per Site ID was
        112 names listed as two to six organisations. Its label is the name most site records give it (then
        the first alphabetically); its slug is made from that label."""
        if self._operators is None:
            if not self.record_names and self.folder is not None:
                self._read_labels()
            labels: dict[str, Counter] = {}
            for name in self.record_names.values():
                if operating_organisation_name(name) and name_key(name):
                    labels.setdefault(name_key(name), Counter())[name] += 1
            chosen = {key: min(names, key=lambda n: (-names[n], n)) for key, names in labels.items()}
            self._operators = {record: ("top500-operator-" + _slug(chosen[name_key(name)]), chosen[name_key(name)])
                               for record, name in self.record_names.items() if name_key(name) in chosen
                               and operating_organisation_name(name)}
        if slug in self._operators:
            return self._operators[slug]
        # a record the folder's editions do not name (Sites made without its folder): its own name
        return ("top500-operator-" + _slug(label), label) if operating_organisation_name(label) else None

    def _read_labels(self) -> None:
        latest: dict[str, tuple[str, Counter]] = {}
        for entry, system_id, machine in self._every_entry():
            choice = self.choose(entry, system_id, machine)
            edition, names = latest.get(choice.slug, ("", Counter()))
            if entry.edition > edition:
                edition, names = entry.edition, Counter()
            if entry.edition == edition:
                names[entry.site] += 1
            latest[choice.slug] = (edition, names)
        self.record_names = {slug: min(names, key=lambda n: (-names[n], n)) for slug, (_, names) in latest.items()}

    @staticmethod
    def _edition_files(folder: Path) -> list[Path]:
        """One file per edition, the one the importer reads (XML first)."""
        editions: dict[str, list[Path]] = {}
        for path in sorted(folder.glob("TOP500_*")):
            if path.is_file() and path.suffix.lower() in FORMAT_ORDER:
                editions.setdefault(edition_of(path), []).append(path)
        return [min(paths, key=lambda p: FORMAT_ORDER.index(p.suffix.lower())) for _, paths in sorted(editions.items())]


@lru_cache(maxsize=16)
def _sites(folder: str, stamp: tuple) -> Sites:
    return Sites.of_folder(Path(folder))


def sites_for(path: Path) -> Sites:
    """The Sites of the folder holding `path` (cached while the folder's files are unchanged)."""
    folder = Path(path).resolve().parent
    stamp = tuple((p.name, p.stat().st_mtime_ns) for p in sorted(folder.glob("TOP500_*")))
    return _sites(str(folder), stamp)
