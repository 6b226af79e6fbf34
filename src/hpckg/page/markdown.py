"""Render a SystemPage as Markdown (GitHub-flavoured tables) from the template system.md; every value is
escaped there with the `md` filter."""

from __future__ import annotations

from hpckg.page.model import SystemPage
from hpckg.page.render import render


def render_markdown(page: SystemPage) -> str:
    """The system page as Markdown."""
    return render("system.md", page=page).rstrip() + "\n"
