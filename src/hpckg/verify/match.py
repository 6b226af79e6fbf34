"""Look for a system's names, its parts and the counts claimed for it in the text of a page.

Names are matched loosely (case, spacing, hyphens and the split between letters and digits do not matter:
"A100-SXM 80GB" finds "A100 SXM 80 GB"), but always as whole words. A count is found written exactly
(2416, 2,416, 2 416 with a thin or no-break space) or rounded with a multiplier (2.4k, 2.4 thousand,
1.2M), and counts only within `NEAR` characters of a name of the system or of one of its parts, so a
page's unrelated figures never match.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

NEAR = 200  # characters between a count and a name of the system or a part for the count to count
CONTEXT = 60  # characters kept either side of a finding, to show where it was found

SYSTEM, PART, COUNT = "system", "part", "count"

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2212"), "-")
_SPACES = dict.fromkeys(map(ord, "\u00a0\u2007\u202f\u2009\u200a"), " ")
_TOKEN = re.compile(r"[A-Za-z]+|[0-9]+")
_NUMBER = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:(?:,|\u202f|\u00a0|\u2009|')\d{3})+|\d+)(?:\.(\d+))?"
    r"(?:\s?(k|K|thousand|M|million|mn))?(?!\w|[.,]\d)")
_MULTIPLIERS = {"k": 1000, "K": 1000, "thousand": 1000, "M": 1_000_000, "million": 1_000_000, "mn": 1_000_000}


def normalise(text: str) -> str:
    """NFKC, one kind of dash, and ordinary spaces for the no-break ones except inside numbers."""
    return unicodedata.normalize("NFKC", text).translate(_DASHES)


@dataclass(frozen=True)
class Finding:
    """One thing found: what kind, the graph's name for it (a label, or the claimed count), the text as the
    page writes it, and where (a character offset into the extracted text, with some context)."""

    kind: str
    term: str
    matched: str
    offset: int
    context: str


@dataclass
class Wanted:
    """What to look for about one system in one source: the system's names (label first), its parts
    ({part label: [names]}) and the counts claimed from this source."""

    names: Sequence[str]
    parts: dict[str, list[str]] = field(default_factory=dict)
    counts: Sequence[int] = ()


@dataclass
class MatchResult:
    findings: list[Finding]

    def of(self, kind: str) -> list[Finding]:
        return [f for f in self.findings if f.kind == kind]

    @property
    def result(self) -> str:
        """The check-result concept name: what the page names."""
        if not self.of(SYSTEM):
            return "does-not-name-system"
        if self.of(PART):
            return "names-system-part-count" if self.of(COUNT) else "names-system-part"
        return "names-system"

    @property
    def terms(self) -> list[str]:
        """The graph's names of the system and parts found (the system's label, each part's label)."""
        return list(dict.fromkeys(f.term for f in self.findings if f.kind in (SYSTEM, PART)))

    @property
    def counts(self) -> list[int]:
        return sorted({int(f.term) for f in self.of(COUNT)})


def name_variants(label: str, alt_labels: Iterable[str] = ()) -> list[str]:
    """A name and its aliases, plus each without a trailing parenthesis ("Kalos (Shanghai AI Lab)" ->
    "Kalos"); names shorter than three characters are left out as too ambiguous to count."""
    names: list[str] = []
    for name in (label, *alt_labels):
        for variant in (name, re.sub(r"\s*\([^)]*\)\s*$", "", name)):
            variant = variant.strip()
            if len(variant) >= 3 and variant not in names:
                names.append(variant)
    return names


def part_variants(label: str, alt_labels: Iterable[str] = ()) -> list[str]:
    """A part's names, plus its label without the maker's name ("NVIDIA A100 SXM4 80GB" -> "A100 SXM4 80GB")
    and its model number (the first word mixing letters and digits: "A100")."""
    names = name_variants(label, alt_labels)
    words = label.split()
    if len(words) > 2:
        names.append(" ".join(words[1:]))
    model = next((w for w in re.split(r"[\s/-]+", label) if re.search(r"[A-Za-z]", w) and re.search(r"\d", w)
                  and not re.fullmatch(r"\d+(GB|TB|G|W)", w, re.IGNORECASE) and len(w) >= 3), None)
    if model:
        names.append(model)
    return list(dict.fromkeys(names))


def name_pattern(name: str) -> re.Pattern[str] | None:
    """A whole-word, case-insensitive pattern for a name whose words may be joined by up to two spaces or
    punctuation marks, or by nothing between letters and digits."""
    tokens = _TOKEN.findall(normalise(name))
    if not tokens:
        return None
    gaps = []
    for before, after in zip(tokens, tokens[1:], strict=False):
        letters_digits = before[-1].isdigit() != after[0].isdigit()
        gaps.append(r"[^A-Za-z0-9]{0,2}" if letters_digits else r"[^A-Za-z0-9]{1,2}")
    body = re.escape(tokens[0]) + "".join(gap + re.escape(tok) for gap, tok in zip(gaps, tokens[1:], strict=False))
    return re.compile(r"(?<![A-Za-z0-9])" + body + r"s?(?![A-Za-z0-9])", re.IGNORECASE)


def number_matches(text: str, value: int) -> Iterable[tuple[int, str]]:
    """Where `text` writes `value`: exactly, or rounded with a multiplier (2.4k for 2,416)."""
    for match in _NUMBER.finditer(text):
        whole, fraction, multiplier = match.group(1), match.group(2), match.group(3)
        digits = int(re.sub(r"\D", "", whole))
        if multiplier:
            scale = _MULTIPLIERS[multiplier]
            written = (digits + (int(fraction) / 10 ** len(fraction) if fraction else 0)) * scale
            tolerance = scale * 0.5 / 10 ** (len(fraction) if fraction else 0)
            if abs(written - value) <= tolerance:
                yield match.start(), match.group(0)
        elif not fraction and digits == value:
            yield match.start(), match.group(0)


def _context(text: str, start: int, end: int) -> str:
    left, right = max(0, start - CONTEXT), min(len(text), end + CONTEXT)
    snippet = " ".join(text[left:right].split())
    return ("…" if left else "") + snippet + ("…" if right < len(text) else "")


def find(text: str, wanted: Wanted) -> MatchResult:
    """Everything of `wanted` that `text` names, each at its first place (counts: near a name)."""
    text = normalise(text)
    system_label = wanted.names[0] if wanted.names else ""
    findings: list[Finding] = []
    anchors: list[tuple[int, int]] = []  # where the system or a part is named

    def look(kind: str, term: str, names: Iterable[str]) -> None:
        first = None
        for name in names:
            pattern = name_pattern(name)
            if pattern is None:
                continue
            for match in pattern.finditer(text):
                anchors.append(match.span())
                if first is None or match.start() < first.start():
                    first = match
        if first is not None:
            findings.append(Finding(kind, term, first.group(0), first.start(),
                                    _context(text, first.start(), first.end())))

    look(SYSTEM, system_label, wanted.names)
    for part_label, names in wanted.parts.items():
        look(PART, part_label, names)
    for value in dict.fromkeys(wanted.counts):
        for start, written in number_matches(text, value):
            end = start + len(written)
            if any(a_start - NEAR <= end and start <= a_end + NEAR for a_start, a_end in anchors):
                findings.append(Finding(COUNT, str(value), written, start, _context(text, start, end)))
                break
    return MatchResult(findings)
