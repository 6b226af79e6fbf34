"""The Contribute page of `hpckg serve` over a SPARQL server (a real Virtuoso 7, built by the real command):
the draft's review reads its neighbourhood over the protocol and equals `hpckg check` of the same file
against the same server, and the draft's pages are rendered."""

from __future__ import annotations

import html
import re
from pathlib import Path

import httpx
import pytest

from hpckg.contribute.check import check_files
from serve_live import start_server
from test_virtuoso import built, seed, virtuoso  # noqa: F401  (the fixtures: Virtuoso and the build into it)

pytestmark = pytest.mark.virtuoso

CORPUS = Path(__file__).parent / "contributions"


def test_the_contribute_page_reviews_against_a_sparql_server(built):  # noqa: F811 (the imported fixture)
    server = start_server(built.sparql, "--rate-limit", "0")
    try:
        for path in (CORPUS / "good" / "frontier.ttl", CORPUS / "bad" / "conflicting-quantity.ttl"):
            answer = httpx.post(server.url + "/contribute", timeout=120,
                                data={"action": "turtle", "turtle": path.read_text(encoding="utf-8")})
            assert answer.status_code == 200, answer.text[:500]
            page = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", answer.text)))
            expected = check_files([path], store_path=built.sparql)
            assert expected.graph_checked
            for problem in expected.problems:
                assert f"[ {problem.code} ]" in page and problem.message in page
            if not expected.problems:
                assert "The draft passes every check." in page
            # the pages of what the draft defines (Frontier's system page; the conflict defines nothing)
            assert ('class="draft-page"' in answer.text) == bool(expected.additions.entities.get("systems"))
    finally:
        server.stop()
