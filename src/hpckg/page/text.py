"""The fixed wording of a system page and the plain-text pieces both renderers share. Values are plain
text here; each renderer escapes them for its own format."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import urlsplit

from hpckg.namespaces import VOCAB
from hpckg.page.machine import DATASET_NAMES
from hpckg.page.model import (
    ABSENT,
    ComponentRow,
    Figure,
    Link,
    Row,
    SameMachine,
    SourceCheckRow,
    SourceLink,
    SystemPage,
    Tier,
)
from hpckg.terms import BASIS_DERIVED, TIER_LEAD

DOES_NOT_NAME = VOCAB + "check-result/does-not-name-system"
BREADCRUMB = ("Supercomputers", "Systems")
PERFORMANCE_NOTE = (
    "Figures are as last publicly reported for the configuration described below, not a live measurement. "
    "Where a system was upgraded in place, the post-upgrade configuration is shown and the earlier one "
    "appears in the timeline.")
NO_PERFORMANCE = "No measured performance (Rmax, Rpeak, cores, power) is recorded for this system."
COMPONENTS_INTRO = (
    "One row per supplier relationship. “Supplier at build” is the company that shipped the part at the "
    "time; where that company has since been acquired, the parent it rolls up to today is shown beside it. "
    "That distinction is what makes ticker-level aggregation possible across a thirty-year dataset.")
METRICS_INTRO = ("Figures beyond an accelerator count, each with who stated it. What can and cannot be "
                 "compared across AI datacenters.")
FACTS_INTRO = "Every other claim about this system, with its confidence tier and sources."
NO_TIMELINE = "No dated events recorded."
NO_CHANGES = "No changes recorded."
CHECK_INTRO = (
    "We fetched this system's own citations and recorded whether each page actually mentions it. This is a "
    "corroboration signal, not a fact check, and it is published so you can see how well the sourcing holds "
    "up rather than take it on trust.")
CHECK_NONE_NAME = (
    "Every source cited on this page was readable, and none of them mentions this system. They are cited at "
    "page granularity, normally because no stable deep link could be found. That is a real weakness in this "
    "row and it is why the system carries a confidence tier below verified.")
NO_CHECKS = "No source check has been recorded for this system."
LEAD_MARK = "LEAD"
LEAD_EXPLAINED = "not a citation"

COMPONENT_HEADERS = ("Role", "Part", "Supplier at build", "Quantity", "Confidence", "Source")
PERFORMANCE_HEADERS = ("Measure", "Value", "Confidence", "Source")
METRIC_HEADERS = ("Metric", "Value", "As of", "Basis", "Note", "Confidence", "Source")
FACT_HEADERS = ("Fact", "Value", "As of", "Confidence", "Source")
CHECK_HEADERS = ("Cited source", "Result", "Found on the page", "Checked", "Command")


def measure_label(row: Row) -> str:
    """A measured-performance label with its unit, shown even when the figure is absent: 'Per watt (GF/W)'."""
    return f"{row.label} ({row.figure.unit})" if row.figure.unit else row.label


def threshold_label(page: SystemPage) -> str:
    return page.citation_threshold.label if page.citation_threshold else "verified"


def lead_warning(page: SystemPage) -> str:
    return f"Treat anything below {threshold_label(page)} as a lead, not a citation."


def header_line(page: SystemPage) -> str:
    """'China · operational (as of 2023-08) · ai training'."""
    parts = []
    if page.country.present:
        parts.append(page.country.text)
    if page.status.present:
        status = page.status.text
        parts.append(f"{status} (as of {page.status.as_of})" if page.status.as_of else status)
    if page.kind.present:
        parts.append(page.kind.text)
    return " · ".join(parts)


def preamble_sentences(page: SystemPage) -> list[str]:
    """The dataset-level paragraph: its description, its sourcing figures and the lead warning."""
    pre = page.preamble
    sentences = []
    if not curated(page):
        # The dataset's description and sourcing figures are the hand-compiled seed's: an imported record's
        # page says where the record comes from instead.
        sentences.append(f"This record is imported from {page.dataset}.")
    elif pre.description:
        sentences.append(pre.description.rstrip(".") + ".")
    if curated(page) and pre.system_count.present and pre.with_naming_citation.present:
        sentence = (f"Source checks of this graph (hpckg verify) re-read the cited pages: "
                    f"{plain(pre.with_naming_citation)} of {plain(pre.system_count)} systems have a readable "
                    f"citation that names them")
        if pre.weakly_sourced.present:
            sentence += f", and {plain(pre.weakly_sourced)} are weakly sourced"
        sentences.append(sentence + ".")
    # the dataset's own description may already say both things; never say them twice
    said = " ".join(sentences).casefold()
    if "every claim carries its source" not in said:
        sentences.append("Every claim carries its source and a confidence tier.")
    if "lead, not a citation" not in said:
        sentences.append(lead_warning(page))
    return sentences


def curated(page: SystemPage) -> bool:
    """True for a record of hpckg's curated data (or one whose dataset was not read)."""
    return page.dataset is None or page.dataset == DATASET_NAMES["curated"]


def plain(figure: Figure) -> str:
    """A count as the dataset's own header prints it: '1092', without thousands separators."""
    return str(figure.value) if isinstance(figure.value, int) else figure.text


def tier_text(figure: Figure) -> str:
    """The confidence shown beside a figure: its tier label ('reported, derived' for computed figures), and
    a lead marker for lead-tier and machine-generated figures."""
    if figure.tier is None and not figure.lead:
        return ABSENT
    label = figure.tier.label if figure.tier else ""
    if figure.basis and figure.basis.href == BASIS_DERIVED:
        label = f"{label}, {figure.basis.text}"
    if figure.lead:
        return lead_text(figure.tier, figure.machine_generated)
    return label


def lead_text(tier: Tier | None, machine_generated: bool = False) -> str:
    """'LEAD: not a citation'; a figure whose tier is above lead (only machine-generated ones) keeps it:
    'reported, LEAD: machine-generated analysis, not a citation'."""
    why = "machine-generated analysis, " if machine_generated else ""
    above = f"{tier.label}, " if tier is not None and tier.iri != TIER_LEAD else ""
    return f"{above}{LEAD_MARK}: {why}{LEAD_EXPLAINED}"


def row_tier_text(row: ComponentRow) -> str:
    if row.tier is None:
        return ABSENT
    if row.lead:
        return lead_text(row.tier, machine_generated=row.machine_generated)
    return row.tier.label


def weakest_figure(row: ComponentRow) -> Figure | None:
    """The figure that gives a component row its confidence: a lead one when the row is a lead, else one at
    the row's tier; its claim is what the row's confidence links to."""
    if row.lead:
        return next((f for f in row.figures if f.lead and f.claim), None)
    return next((f for f in row.figures if f.claim and f.tier == row.tier), None)


def with_parent(link: Link | None, parent: Link | None) -> str:
    if link is None:
        return ABSENT
    if parent and parent.href != link.href:
        return f"{link.text} (today: {parent.text})"
    return link.text


def part_summary(row: ComponentRow) -> list[str]:
    """The part cell's lines after the part label: detail, the row's other claims (topology, further
    details), the part's specs, and the maker where it differs."""
    lines = []
    if row.detail:
        lines.append(row.detail)
    lines += row.details
    lines += row.specs
    if row.maker and (row.supplier is None or row.maker.href != row.supplier.href):
        lines.append("made by " + with_parent(row.maker, row.maker_parent))
    elif row.maker_parent and row.supplier_parent is None:
        lines.append("made by " + with_parent(row.maker, row.maker_parent))
    return lines


def quantity_text(row: ComponentRow) -> str:
    """'2,416 reported (302 nodes × 8)'; bounded quantities read 'more than 10,000'."""
    shown = [f"{figure.display} {tier_text(figure)}".strip() if figure.tier else figure.display
             for figure in row.quantities]
    text = "; ".join(shown) or ABSENT
    if row.layout:
        text = f"{text} ({row.layout})" if shown else row.layout
    return text


def found_text(check: SourceCheckRow) -> str:
    parts = []
    if check.terms:
        parts.append(", ".join(check.terms))
    if check.counts:
        parts.append("counts: " + ", ".join(check.counts))
    return " · ".join(parts) or ABSENT


def check_footer(page: SystemPage) -> str | None:
    """'Checked 2026-10-09 by pnpm verify. Re-run it and the table changes with the web.'"""
    dates = sorted({c.checked for c in page.checks if c.checked})
    commands = sorted({c.command for c in page.checks if c.command})
    if not dates:
        return None
    by = f" by {', '.join(commands)}" if commands else ""
    return f"Checked {', '.join(dates)}{by}. Re-run it and the table changes with the web."


def none_name_system(page: SystemPage) -> bool:
    """True when every recorded check read its page and none found the system named."""
    return bool(page.checks) and all(c.result_iri == DOES_NOT_NAME for c in page.checks)


# ---- records of one machine (hpckg.page.machine) ----------------------------------------------------

ALSO_HEADERS = ("Fact", "Value", "As of", "Confidence", "Source")


def machine_page_text(page: SystemPage) -> str:
    """The line on a record whose machine has its page elsewhere."""
    dataset = f"this {page.dataset} record" if page.dataset else "this record"
    return (f"One machine, one page: {dataset} is one of this machine's records; what every dataset says is on "
            "the page of")


def same_machine_text(link: SameMachine) -> str:
    """'Also in Epoch AI as Jupiter, Jülich' or 'May be the same machine as JUPITER Booster (TOP500)'."""
    if link.confirmed:
        return f"Also in {link.dataset} as"
    return "May be the same machine as"


def also_title(link: SameMachine) -> str:
    return f"What {link.dataset} says ({link.record.text})"


def record_rows(page: SystemPage) -> list[Row]:
    """What a record says, as one table on the machine's page: the measured figures it gives, its parts with
    their counts, its metrics, its other facts (its header's among them) and its dated events, each claim
    once."""
    rows = [Row(measure_label(row), row.figure, row.property) for row in page.performance if row.figure.claim]
    for component in page.components:
        if component.part_figure:
            rows.append(Row(f"{component.role.text}: part", component.part_figure))
        rows += [Row(f"{component.role.text}: quantity", quantity) for quantity in component.quantities]
    rows += page.metrics + page.facts
    rows += [Row(event.label, event.figure) for event in page.timeline if event.figure.claim]
    shown: set[str] = set()
    once = []
    for row in rows:
        if row.figure.claim not in shown:
            shown.add(row.figure.claim or "")
            once.append(row)
    return once


# ---- what a reader wants first: the TOP500 standing, the record elsewhere, the sources grouped -----------

def listing_summary(page: SystemPage) -> str | None:
    """'Rank 2 in the TOP500 of June 2025 (Rmax 1,353,000 TFlop/s); at its peak rank 1, in June 2022.'"""
    if not page.listings:
        return None
    latest = page.listings[-1]
    peak = min(page.listings, key=lambda listing: (listing.rank or 10**9, listing.date))
    best_rmax = max((listing for listing in page.listings if listing.rmax and isinstance(listing.rmax.value,
                                                                                         int | Decimal)),
                    key=lambda listing: listing.rmax.value, default=None)  # type: ignore[union-attr]
    now = f"Rank {latest.rank} in the {latest.edition}"
    if latest.rmax:
        now += f" (Rmax {latest.rmax.display})"
    if peak is latest:
        return now + ", its best rank."
    text = f"{now}; at its peak rank {peak.rank}, in the {peak.edition}"
    if best_rmax and best_rmax is not latest and best_rmax.rmax:
        text += f"; its highest Rmax {best_rmax.rmax.display}, in the {best_rmax.edition}"
    return text + "."


def elsewhere(page: SystemPage) -> list[Link]:
    """The record's own page at its source (top500.org/system/N): its external identifiers with a link."""
    found = []
    for row in page.facts:
        if row.figure.url and row.figure.url.startswith(("http://", "https://")):
            host = (urlsplit(row.figure.url).hostname or "").removeprefix("www.")
            found.append(Link(f"{row.label} {row.figure.text} on {host}", row.figure.url))
    return found


@dataclass
class SourceGroup:
    """Cited sources shown as one line: 'TOP500 lists, 17 editions 2011-11 … 2019-06', each still linked."""

    title: str
    sources: list[SourceLink]


TOP500_EDITION_SOURCE = "/source/top500-"


def source_groups(page: SystemPage) -> list[SourceGroup]:
    """The page's sources: the TOP500 editions as one group, the others one group per host."""
    editions = sorted((s for s in page.sources if TOP500_EDITION_SOURCE in s.iri), key=lambda s: s.iri)
    groups = []
    if editions:
        groups.append(SourceGroup(editions_title([edition_of_source(s.iri) for s in editions]), editions))
    by_host: dict[str, list[SourceLink]] = {}
    for source in page.sources:
        if TOP500_EDITION_SOURCE not in source.iri:
            by_host.setdefault(source.host, []).append(source)
    for host, sources in sorted(by_host.items()):
        groups.append(SourceGroup(host if len(sources) == 1 else f"{host}, {len(sources)} pages", sources))
    return groups


def edition_of_source(iri: str) -> str:
    """A TOP500 edition's source IRI (…/source/top500-2025-06) as the edition's name: 2025-06."""
    return iri.rsplit("top500-", 1)[-1]


def editions_title(editions: list[str]) -> str:
    """'TOP500 lists, 9 editions 2020-06 … 2025-06' for a system's list editions among its sources, oldest first."""
    count = len(editions)
    return (f"TOP500 lists, {count} edition{'s' if count != 1 else ''} "
            + (f"{editions[0]} … {editions[-1]}" if count > 1 else editions[0]))


def source_text(source: SourceLink) -> str:
    """A cited source as a line of the Sources section: its title, or, when the title is its URL (imported
    citations), the URL without its scheme, cut to a line."""
    return title_text(source.title or source.url or source.host)


def title_text(title: str) -> str:
    """A source's title as shown, or, when the title is its URL, the URL without its scheme, cut to a line."""
    if title.startswith(("http://", "https://")):
        title = title.split("://", 1)[1].removeprefix("www.")
        return title if len(title) <= 60 else title[:59] + "…"
    return title
