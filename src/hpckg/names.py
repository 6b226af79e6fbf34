"""Names: slugs for IRIs and file names, the name keys that decide when two names are the same, and
finding records that share a name (duplicate detection for `hpckg check`, reconciliation for importers).

A slug is lowercase ASCII letters, digits and single hyphens ("bytedance-megascale-cluster"). It is made
from a name by dropping a trailing parenthesised qualifier ("Kalos (Shanghai AI Lab)" -> "kalos"),
transliterating accents, writing "&" as "and" and joining the remaining words with hyphens.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Hashable, Iterable
from importlib.resources import files
from typing import Generic, TypeVar

from hpckg.errors import InputError

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# Countries keep their ISO 3166-1 alpha-2 code as the slug (country:CN).
COUNTRY_SLUG_RE = re.compile(r"^[A-Z]{2}$")
_QUALIFIER_RE = re.compile(r"\s*\([^()]*\)\s*$")

Record = TypeVar("Record", bound=Hashable)


class SlugError(InputError, ValueError):
    """A name has no ASCII letters or digits to make a slug from; the caller must be given a slug."""


def ascii_fold(text: str) -> str:
    """Text without accents: 'Jülich' -> 'Julich' (characters with no ASCII form are dropped)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return decomposed.encode("ascii", "ignore").decode("ascii")


@functools.cache
def _confusable_ascii() -> dict[str, str]:
    """Each non-ASCII character that Unicode's confusables data (UTS #39, as packaged by
    confusable-homoglyphs) says looks like an ASCII letter or digit, mapped to that ASCII character."""
    data = json.loads(files("confusable_homoglyphs").joinpath("confusables.json").read_text(encoding="utf-8"))
    table: dict[str, str] = {}
    for char, glyphs in data.items():
        if len(char) == 1 and not char.isascii():
            look_alikes = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalnum()]
            if look_alikes:
                table[char] = sorted(look_alikes, key=lambda c: (not c.isalpha(), c))[0]
    return table


def skeleton(text: str) -> str:
    """The text as it looks: each character confusable with an ASCII letter or digit replaced by it
    ('Sеrеn' with Cyrillic е -> 'Seren'), after decomposing accents, as UTS #39's skeleton does."""
    table = _confusable_ascii()
    return "".join(table.get(char, char) for char in unicodedata.normalize("NFD", text))


def strip_qualifier(name: str) -> str:
    """The name without a trailing parenthesised qualifier: 'Kalos (Shanghai AI Lab)' -> 'Kalos'."""
    stripped = _QUALIFIER_RE.sub("", name).strip()
    return stripped or name.strip()


def slugify(name: str) -> str:
    """The slug for a name: 'ByteDance MegaScale Cluster' -> 'bytedance-megascale-cluster'.

    Raises SlugError when nothing is left (a name written only in another script, such as '日本'): a slug
    is not guessed, it has to be given."""
    text = ascii_fold(strip_qualifier(name)).replace("&", " and ").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    if not slug:
        raise SlugError(f"cannot make a slug from {name!r}: it has no ASCII letters or digits")
    return slug


def is_slug(text: str) -> bool:
    return bool(SLUG_RE.match(text))


# Words left out of initials: "Oak Ridge National Laboratory" is ORNL, "Institute of Science Tokyo" ISST.
INITIALS_SKIP = {"of", "the", "for", "and", "de", "du", "des", "la", "le", "l", "d", "et", "und", "fur", "der",
                 "di", "del", "y", "e", "at", "in"}

def name_key(name: str) -> str:
    """A name with case, accents, punctuation, spaces and look-alike letters removed: 'Kalos!', 'kalos' and
    'Каlos' (Cyrillic К and а) share a key."""
    return re.sub(r"[^a-z0-9]", "", ascii_fold(skeleton(name)).casefold())


def name_keys(name: str) -> set[str]:
    """The keys a name matches under: the whole name and the name without its qualifier.

    A name with no ASCII letters or digits is its own key (casefolded), so '日本' still matches '日本'."""
    keys = {name_key(name), name_key(strip_qualifier(name))}
    keys.discard("")
    if not keys and name.strip():
        keys.add(unicodedata.normalize("NFKC", name.strip()).casefold())
    return keys


class NameIndex(Generic[Record]):
    """Records (IRIs, importer rows...) indexed by the keys of their names, to find those a name matches.

        index = NameIndex()
        index.add("sys:kalos", ["Kalos", "Kalos (Shanghai AI Lab)"])
        index.matches(["KALOS"])  -> {"sys:kalos"}
    """

    def __init__(self) -> None:
        self._by_key: dict[str, set[Record]] = {}

    def add(self, record: Record, names: Iterable[str]) -> None:
        for name in names:
            for key in name_keys(name):
                self._by_key.setdefault(key, set()).add(record)

    def matches(self, names: Iterable[str]) -> set[Record]:
        """Every record with a name sharing a key with one of `names`."""
        found: set[Record] = set()
        for name in names:
            for key in name_keys(name):
                found |= self._by_key.get(key, set())
        return found


def same_name_groups(records: dict[Record, Iterable[str]]) -> list[set[Record]]:
    """Groups of two or more records whose names share a key (transitively: A~B and B~C group A, B, C),
    for reconciling records that name the same thing differently."""
    parent: dict[Record, Record] = {r: r for r in records}

    def root(r: Record) -> Record:
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        return r

    first_with_key: dict[str, Record] = {}
    for record, names in records.items():
        for name in names:
            for key in name_keys(name):
                other = first_with_key.setdefault(key, record)
                parent[root(record)] = root(other)
    groups: dict[Record, set[Record]] = {}
    for record in records:
        groups.setdefault(root(record), set()).add(record)
    return [group for group in groups.values() if len(group) > 1]
