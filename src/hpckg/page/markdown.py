"""Render a SystemPage as Markdown (GitHub-flavoured tables). Every value is escaped."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from hpckg.page import text as t
from hpckg.page.model import ABSENT, Figure, SourceLink, SystemPage

_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def esc(value: object) -> str:
    """Escape Markdown syntax in a value and keep it on one line."""
    return _SPECIAL.sub(r"\\\1", " ".join(str(value).split()))


def url(href: str) -> str:
    """A link target safe inside Markdown's (...)."""
    return (href.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
            .replace("<", "%3C").replace(">", "%3E"))


def link(text: str, href: str | None) -> str:
    if not href or not href.startswith(("http://", "https://")):
        return esc(text)
    return f"[{esc(text)}]({url(href)})"


def sources(items: Iterable[SourceLink]) -> str:
    return ", ".join(link(s.host, s.href) for s in items) or ABSENT


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A table whose cells are already Markdown (escaped)."""
    lines = ["| " + " | ".join(esc(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell or ABSENT for cell in row) + " |" for row in rows]
    return lines


def tier(figure: Figure) -> str:
    shown = esc(t.tier_text(figure))
    return f"**{shown}**" if figure.lead else shown


def render_markdown(page: SystemPage) -> str:
    """The system page as Markdown."""
    out: list[str] = [" / ".join([*t.BREADCRUMB, esc(page.label)]), "", f"# {esc(page.label)}", ""]
    header = t.header_line(page)
    if header:
        out += [esc(header), ""]
    if page.aliases:
        out += ["Also known as " + ", ".join(esc(a) for a in page.aliases), ""]
    if page.operator.present:
        operator = esc(page.operator.text)
        if page.operator.entity:
            operator += f" <{url(page.operator.entity)}>"
        out += [f"Operated by {operator} ({tier(page.operator)}, {sources(page.operator.sources)}).", ""]
    out += ["> " + esc(" ".join(t.preamble_sentences(page))), ""]

    out += ["## Measured performance", ""]
    out += table(t.PERFORMANCE_HEADERS, (
        [esc(t.measure_label(row)), esc(row.figure.display), tier(row.figure), sources(row.figure.sources)]
        for row in page.performance))
    out += ["", esc(t.PERFORMANCE_NOTE), ""]

    out += ["## What this machine is made of", "", esc(t.COMPONENTS_INTRO), ""]
    if page.components:
        out += table(t.COMPONENT_HEADERS, (
            [esc(row.role.text),
             "<br>".join([link(row.part.text, row.part.href) if row.part else ABSENT]
                         + [esc(line) for line in t.part_summary(row)]),
             esc(t.with_parent(row.supplier, row.supplier_parent)),
             esc(t.quantity_text(row)),
             f"**{esc(t.row_tier_text(row))}**" if row.lead else esc(t.row_tier_text(row)),
             sources(row.sources)]
            for row in page.components))
    else:
        out.append("No components recorded.")
    out.append("")

    if page.metrics:
        out += ["## AI datacenter metrics", "", esc(t.METRICS_INTRO), ""]
        out += table(t.METRIC_HEADERS, (
            [esc(row.label), esc(row.figure.display), esc(row.figure.as_of or ABSENT),
             esc(row.figure.basis.text if row.figure.basis else ABSENT), esc(row.figure.note or ABSENT),
             tier(row.figure), sources(row.figure.sources)]
            for row in page.metrics))
        out.append("")

    out += ["## The read", "", esc(page.read) if page.read else "No read written yet.", ""]

    out += ["## Timeline", ""]
    if page.timeline:
        out += [f"- {esc(event.date)} {esc(event.label)} ({tier(event.figure)}, "
                f"source: {sources(event.figure.sources)})" for event in page.timeline]
    else:
        out.append(t.NO_TIMELINE)
    out.append("")

    out += ["## Change history", ""]
    out += [f"- {esc(entry.date)} {esc(entry.text)}" for entry in page.changes] or [t.NO_CHANGES]
    out.append("")

    out += ["## Source check", "", esc(t.CHECK_INTRO), ""]
    if t.none_name_system(page):
        out += [esc(t.CHECK_NONE_NAME), ""]
    if page.checks:
        out += table(t.CHECK_HEADERS, (
            [link(c.source.host, c.source.href) if c.source else ABSENT, esc(c.result), esc(t.found_text(c)),
             esc(c.checked or ABSENT), esc(c.command or ABSENT)]
            for c in page.checks))
        footer = t.check_footer(page)
        out += ["", esc(footer)] if footer else []
    else:
        out.append(t.NO_CHECKS)
    out.append("")

    if page.facts:
        out += ["## Claims and sources", "", esc(t.FACTS_INTRO + " " + t.lead_warning(page)), ""]
        out += table(t.FACT_HEADERS, (
            [esc(row.label), esc(row.figure.display), esc(row.figure.as_of or ABSENT), tier(row.figure),
             sources(row.figure.sources)]
            for row in page.facts))
        out.append("")
    return "\n".join(out).rstrip() + "\n"
