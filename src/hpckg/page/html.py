"""Render a SystemPage as HTML: an <article> fragment for the web server's layout, or a complete, accessible
HTML5 document with a little inline CSS and no JavaScript. Every value is escaped."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from html import escape

from hpckg.page import text as t
from hpckg.page.model import ABSENT, Figure, Link, SourceLink, SystemPage

CSS = """
body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem;color:#1a1a1a}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}
th,td{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}
.lead{background:#fff3cd;color:#5c4400;font-weight:bold;padding:0 .2rem}
.tier{font-size:.9em;color:#444}
.preamble{border-left:4px solid #888;padding-left:.8rem;color:#333}
nav.breadcrumb ol{list-style:none;padding:0;display:flex;gap:.4rem}
nav.breadcrumb li+li::before{content:"/";padding-right:.4rem}
small.detail{display:block;color:#444}
"""


def esc(value: object) -> str:
    return escape(str(value), quote=True)


def a(text: str, href: str | None) -> str:
    """A link when href is http(s) or site-relative, plain escaped text otherwise (never javascript: or data:)."""
    if not href or not href.startswith(("http://", "https://", "/")) or href.startswith("//"):
        return esc(text)
    return f'<a href="{esc(href)}">{esc(text)}</a>'


LinkTo = Callable[[str], str]


def same(iri: str) -> str:
    return iri


def link(item: Link | None, link_to: LinkTo = same) -> str:
    return a(item.text, link_to(item.href) if item.href else None) if item else ABSENT


def sources(items: Iterable[SourceLink], link_to: LinkTo = same) -> str:
    shown = []
    for s in items:
        href = s.url or link_to(s.iri)
        shown.append(f'<a href="{esc(href)}" title="{esc(s.title or s.iri)}">{esc(s.host)}</a>'
                     if href.startswith(("http://", "https://", "/")) else esc(s.host))
    return ", ".join(shown) or ABSENT


def tier(figure: Figure) -> str:
    shown = esc(t.tier_text(figure))
    if figure.lead:
        return f'<strong class="lead">{shown}</strong>'
    iri = figure.tier.iri if figure.tier else ""
    return f'<span class="tier" data-tier="{esc(iri)}">{shown}</span>'


def table(caption: str, headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A table whose cells are already HTML (escaped)."""
    head = "".join(f'<th scope="col">{esc(h)}</th>' for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell or ABSENT}</td>" for cell in row) + "</tr>\n"
                   for row in rows)
    return (f'<table><caption class="visually-hidden">{esc(caption)}</caption>\n'
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody></table>\n")


def section(slug: str, title: str, *parts: str) -> str:
    return (f'<section aria-labelledby="{slug}">\n<h2 id="{slug}">{esc(title)}</h2>\n'
            + "".join(parts) + "</section>\n")


def p(text: str, cls: str = "") -> str:
    attribute = f' class="{cls}"' if cls else ""
    return f"<p{attribute}>{esc(text)}</p>\n"


def article(page: SystemPage, link_to: LinkTo = same) -> str:
    def to(iri: str | None) -> str | None:
        return link_to(iri) if iri else None

    def srcs(items: Iterable[SourceLink]) -> str:
        return sources(items, link_to)

    crumbs = "".join(f"<li>{esc(c)}</li>" for c in t.BREADCRUMB)
    out = [f'<article class="system-page" data-iri="{esc(page.iri)}" lang="en">\n',
           f'<nav class="breadcrumb" aria-label="Breadcrumb"><ol>{crumbs}'
           f'<li aria-current="page">{esc(page.label)}</li></ol></nav>\n',
           f"<header>\n<h1>{esc(page.label)}</h1>\n"]
    header = t.header_line(page)
    if header:
        out.append(p(header, "facts"))
    if page.aliases:
        out.append(p("Also known as " + ", ".join(page.aliases), "aliases"))
    if page.operator.present:
        out.append(f'<p class="operator">Operated by {a(page.operator.text, to(page.operator.entity))} '
                   f"({tier(page.operator)}, {srcs(page.operator.sources)}).</p>\n")
    out.append("</header>\n")
    out.append(p(" ".join(t.preamble_sentences(page)), "preamble"))

    out.append(section("performance", "Measured performance", table(
        "Measured performance", t.PERFORMANCE_HEADERS,
        ([esc(t.measure_label(row)), esc(row.figure.display), tier(row.figure), srcs(row.figure.sources)]
         for row in page.performance)), p(t.PERFORMANCE_NOTE)))

    if page.components:
        components = table("What this machine is made of", t.COMPONENT_HEADERS, (
            [esc(row.role.text),
             link(row.part, link_to) + "".join(f'<br><small class="detail">{esc(line)}</small>'
                                      for line in t.part_summary(row)),
             esc(t.with_parent(row.supplier, row.supplier_parent)),
             esc(t.quantity_text(row)),
             f'<strong class="lead">{esc(t.row_tier_text(row))}</strong>' if row.lead
             else esc(t.row_tier_text(row)),
             srcs(row.sources)]
            for row in page.components))
    else:
        components = p("No components recorded.")
    out.append(section("components", "What this machine is made of", p(t.COMPONENTS_INTRO), components))

    if page.metrics:
        out.append(section("metrics", "AI datacenter metrics", p(t.METRICS_INTRO), table(
            "AI datacenter metrics", t.METRIC_HEADERS,
            ([esc(row.label), esc(row.figure.display), esc(row.figure.as_of or ABSENT),
              link(row.figure.basis, link_to), esc(row.figure.note or ABSENT), tier(row.figure),
              srcs(row.figure.sources)]
             for row in page.metrics))))

    out.append(section("read", "The read", p(page.read or "No read written yet.", "read")))

    if page.timeline:
        events = "<ul>\n" + "".join(
            f'<li><time datetime="{esc(e.date)}">{esc(e.date)}</time> {esc(e.label)} '
            f"({tier(e.figure)}, source: {srcs(e.figure.sources)})</li>\n" for e in page.timeline) + "</ul>\n"
    else:
        events = p(t.NO_TIMELINE)
    out.append(section("timeline", "Timeline", events))

    if page.changes:
        changes = "<ul>\n" + "".join(
            f'<li><time datetime="{esc(c.date)}">{esc(c.date)}</time> {esc(c.text)}</li>\n'
            for c in page.changes) + "</ul>\n"
    else:
        changes = p(t.NO_CHANGES)
    out.append(section("changes", "Change history", changes))

    checks = [p(t.CHECK_INTRO)]
    if t.none_name_system(page):
        checks.append(p(t.CHECK_NONE_NAME))
    if page.checks:
        checks.append(table("Source check", t.CHECK_HEADERS, (
            [a(c.source.host, c.source.url or to(c.source.iri)) if c.source else ABSENT, esc(c.result),
             esc(t.found_text(c)),
             f'<time datetime="{esc(c.checked)}">{esc(c.checked)}</time>' if c.checked else ABSENT,
             f"<code>{esc(c.command)}</code>" if c.command else ABSENT]
            for c in page.checks)))
        footer = t.check_footer(page)
        if footer:
            checks.append(p(footer))
    else:
        checks.append(p(t.NO_CHECKS))
    out.append(section("source-check", "Source check", *checks))

    if page.facts:
        out.append(section("claims", "Claims and sources", p(t.FACTS_INTRO + " " + t.lead_warning(page)), table(
            "Claims and sources", t.FACT_HEADERS,
            ([esc(row.label), a(row.figure.display, to(row.figure.entity)), esc(row.figure.as_of or ABSENT),
              tier(row.figure), srcs(row.figure.sources)]
             for row in page.facts))))
    out.append("</article>\n")
    return "".join(out)


def render_html(page: SystemPage, *, standalone: bool = True, link_to: LinkTo | None = None) -> str:
    """The page as a complete HTML5 document, or (standalone=False) as an <article> fragment.

    `link_to` maps an entity IRI (operator, part, source without a URL...) to the URL to link to, such as
    the web server's local page for it; by default pages link to the IRIs themselves."""
    body = article(page, link_to or same)
    if not standalone:
        return body
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(page.label)} · hpckg</title>\n"
            f'<link rel="canonical" href="{esc(page.iri)}">\n'
            f"<style>{CSS}.visually-hidden{{position:absolute;left:-9999px}}</style>\n</head>\n"
            f"<body>\n<main>\n{body}</main>\n</body>\n</html>\n")
