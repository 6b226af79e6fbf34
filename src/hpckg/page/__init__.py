"""System pages rendered from the graph: `find_system` resolves a name (`find_entity` a system, site,
organisation or part's), `system_page` reads everything a
page shows with SPARQL, `render_markdown` and `render_html` turn it into text.

    store = Store(".hpckg/store", read_only=True)
    page = system_page(store, find_system(store, "kalos"))
    print(render_markdown(page))
"""

from hpckg.page.html import render_html
from hpckg.page.markdown import render_markdown
from hpckg.page.model import ComponentRow, Figure, Row, SourceCheckRow, SourceLink, SystemPage, Tier
from hpckg.page.read import find_entity, find_system, system_page

__all__ = ["ComponentRow", "Figure", "Row", "SourceCheckRow", "SourceLink", "SystemPage", "Tier",
           "find_entity", "find_system", "render_html", "render_markdown", "system_page"]
