"""Render a SystemPage as HTML from the templates system_article.html (an <article> fragment for the web
server's layout) and system_document.html (a complete, accessible HTML5 document with a little inline CSS
and no JavaScript). The templates are autoescaped: every value is escaped."""

from __future__ import annotations

from collections.abc import Callable

from hpckg.page.model import SystemPage
from hpckg.page.render import render

LinkTo = Callable[[str], str]


def same(iri: str) -> str:
    return iri


def render_html(page: SystemPage, *, standalone: bool = True, link_to: LinkTo | None = None) -> str:
    """The page as a complete HTML5 document, or (standalone=False) as an <article> fragment.

    `link_to` maps an entity IRI (operator, part, source without a URL...) to the URL to link to, such as
    the web server's local page for it; by default pages link to the IRIs themselves."""
    template = "system_document.html" if standalone else "system_article.html"
    return render(template, page=page, href=link_to or same)
