"""The server's HTML pages rendered in-process: `Views` over a store built in memory, without a server."""

from __future__ import annotations

import re

import pytest

from hpckg.build import populate
from hpckg.namespaces import BASE
from hpckg.serve import urls
from hpckg.serve.views import Views
from hpckg.store import Store

KALOS = BASE + "id/system/kalos"


@pytest.fixture(scope="module")
def store() -> Store:
    store = Store(None)
    populate(store)
    return store


@pytest.fixture(scope="module")
def views(store) -> Views:
    return Views(store, BASE)


def hrefs(page: str) -> list[str]:
    return re.findall(r'<a [^>]*href="([^"]*)"', page)


def test_served_system_page_links_entities_to_the_servers_own_pages(views):
    page = views.entity("system", "kalos", KALOS, b"{}")
    assert page is not None
    links = hrefs(page.render())
    assert urls.page("org", "shanghai-ai-lab") in links
    assert urls.page("part", "nvidia-a100-sxm4-80gb") in links
    assert "https://arxiv.org/abs/2403.07648" in links  # sources with a URL keep it
    off_site = [h for h in links if h.startswith(BASE + "id/")]
    assert not off_site, f"entity links leave the server: {off_site}"
