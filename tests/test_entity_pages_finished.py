"""Entity pages as a visitor reads them (issue 35), on the website's store (two TOP500 editions and Epoch AI's
hardware and clusters on top of the curated data): the seed banner only where it is true, no empty tables, the
count of lists a system was in said with the lists missing from the imports, and no page of any kind showing
a placeholder title, a raw identifier or Markdown left unrendered."""

from __future__ import annotations

import html
import re

import pytest

import stores
from hpckg.page.claims import select
from hpckg.serve import charts, urls
from hpckg.store import Store

pytestmark = pytest.mark.imports

TOP500_RECORD = "top500-180307"  # an imported TOP500 system of both editions
CURATED_RECORD = "kalos"
EPOCH_RECORD = "epoch-xai-colossus-memphis-phase-1"  # an Epoch AI cluster: no TOP500 figures at all


@pytest.fixture(scope="module")
def store():
    return Store(stores.website().store, read_only=True)


def body(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return response.text


def visible(page: str) -> str:
    """The page's text as a reader sees it: no markup, scripts, styles or drawings."""
    page = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def dataset_description(store) -> str:
    [row] = select(store, "SELECT ?d WHERE { ?x a hpc:Dataset ; rdfs:comment ?d } LIMIT 1")
    return str(row["d"])


def test_the_seed_banner_is_on_curated_records_only(website_client, store):
    description = dataset_description(store).rstrip(".")
    assert description in visible(body(website_client, urls.page("system", CURATED_RECORD)))
    imported = visible(body(website_client, urls.page("system", TOP500_RECORD)))
    assert description not in imported
    assert "have a readable citation" not in imported  # the curated data's sourcing figures are not this record's


def test_no_performance_table_of_dashes(website_client):
    page = body(website_client, urls.page("system", EPOCH_RECORD))
    section = re.search(r'<section aria-labelledby="performance">(.*?)</section>', page, re.S)
    if section:
        for row in re.findall(r"<tr><td>.*?</tr>", section.group(1), re.S):
            assert not re.search(r"<td>-</td>", row), row


def test_the_count_of_lists_says_which_were_not_imported():
    # Frontier's rows on the full import: the files of 2022-11 and 2023-11 are not among the configured ones.
    rows = [{"edition": e, "rank": 1, "rmaxTflops": 1e6} for e in ("2022-06", "2023-06", "2024-06", "2024-11",
                                                                    "2025-06")]
    imported = ["2021-11", "2022-06", "2023-06", "2024-06", "2024-11", "2025-06"]
    chart = charts.system_history(rows, "Frontier", svg="<svg></svg>", imported=imported)
    assert "listed in 5 TOP500 editions from 2022-06 to 2025-06, of the 7 lists published in that span" in chart.alt
    assert "2022-11 and 2023-11 are not in the imported files" in chart.alt
