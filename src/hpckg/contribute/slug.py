"""Slugs for IRIs and file names, and the name keys duplicate detection compares.

A slug is lowercase ASCII letters, digits and single hyphens ("bytedance-megascale-cluster"). It is made
from a name by dropping a trailing parenthesised qualifier ("Kalos (Shanghai AI Lab)" -> "kalos"),
transliterating accents, writing "&" as "and" and joining the remaining words with hyphens.
"""

from __future__ import annotations

import re
import unicodedata

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# Countries keep their ISO 3166-1 alpha-2 code as the slug (country:CN).
COUNTRY_SLUG_RE = re.compile(r"^[A-Z]{2}$")
_QUALIFIER_RE = re.compile(r"\s*\([^()]*\)\s*$")


def ascii_fold(text: str) -> str:
    """Text without accents: 'Jülich' -> 'Julich' (characters with no ASCII form are dropped)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return decomposed.encode("ascii", "ignore").decode("ascii")


def strip_qualifier(name: str) -> str:
    """The name without a trailing parenthesised qualifier: 'Kalos (Shanghai AI Lab)' -> 'Kalos'."""
    stripped = _QUALIFIER_RE.sub("", name).strip()
    return stripped or name.strip()


def slugify(name: str) -> str:
    """The slug for a name: 'ByteDance MegaScale Cluster' -> 'bytedance-megascale-cluster'."""
    text = ascii_fold(strip_qualifier(name)).replace("&", " and ").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    if not slug:
        raise ValueError(f"cannot make a slug from {name!r}: it has no ASCII letters or digits")
    return slug


def is_slug(text: str) -> bool:
    return bool(SLUG_RE.match(text))


def name_key(name: str) -> str:
    """A name with case, accents, punctuation and spaces removed: 'Kalos!' and 'kalos' share a key."""
    return re.sub(r"[^a-z0-9]", "", ascii_fold(name).casefold())


def name_keys(name: str) -> set[str]:
    """The keys a name matches under: the whole name and the name without its qualifier."""
    keys = {name_key(name), name_key(strip_qualifier(name))}
    keys.discard("")
    return keys
