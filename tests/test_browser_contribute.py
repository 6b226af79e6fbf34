"""The Contribute page in a real browser (Debian's Chromium, headless) over a live `hpckg serve` of a store
with real TOP500 and Epoch AI imports: a draft is pasted into the text box (the DevTools protocol's
Input.insertText, as a paste types it) and the form submitted with its button; the answer shows the review
and the rendered page of the system the draft defines. Chromium is driven over --remote-debugging-pipe
(tests/chromium.py, the session's one browser); screenshots go to test-artifacts/website/."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

import stores
from chromium import Browser
from hpckg.contribute.check import check_files
from hpckg.serve import urls

from conftest import session_project

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "website"
FRONTIER = Path(__file__).parent / "contributions" / "good" / "frontier.ttl"

pytestmark = [pytest.mark.browser, pytest.mark.imports]


@pytest.fixture(scope="module")
def server(browser, website_server):
    return website_server


def test_paste_a_draft_and_see_the_review_and_the_rendered_page(server, browser: Browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with browser.tab("1280,2600"):
        browser.navigate(server.url + urls.contribute())
        browser.wait_for("document.getElementById('draft-turtle')")
        browser.evaluate("document.getElementById('draft-turtle').focus()")
        browser.send("Input.insertText", text=FRONTIER.read_text(encoding="utf-8"))
        browser.evaluate("document.querySelector('form.contribute button[type=submit]').click()")
        browser.wait_for("document.getElementById('review')")
        browser.screenshot(ARTIFACTS / "contribute-review.png")
        dom = str(browser.evaluate("document.documentElement.outerHTML"))
    assert (ARTIFACTS / "contribute-review.png").stat().st_size > 10_000
    text = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"(?s)<style.*?</style>", "", dom))))
    # The review the command gives for the same draft against the same store, problem for problem.
    expected = check_files([FRONTIER], store_path=stores.website().store, project=session_project())
    assert expected.problems, "the imported TOP500 lists Frontier: the draft should be reported as a duplicate"
    for problem in expected.problems:
        assert f"[ {problem.code} ]" in text and problem.message in text
    assert "duplicate-system" in expected.codes()
    # and the page the draft defines, rendered in context of the imports
    assert re.search(r'<article class="draft-page" aria-label="system page: Frontier \(ORNL\)"', dom)
    assert "Measured performance" in text and "1.102 EFlop/s" in text  # 1102000.0 TFlop/s in the draft
    # the answer keeps the page's outline: one h1, no heading level skipped, one <main>
    levels = [int(level) for level in re.findall(r"<h([1-6])[\s>]", dom)]
    assert levels.count(1) == 1 and levels[0] == 1, levels
    assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    assert len(re.findall(r"<main[\s>]", dom)) == 1


def test_fill_in_the_claim_form_for_an_imported_machine(server, browser: Browser):
    # Issue 36: a claim about a machine TOP500 lists, by its name, typed into the form as a person types it.
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with browser.tab("1280,2600"):
        browser.navigate(server.url + urls.contribute())
        for field, value in (("c-record", "JUPITER Booster"), ("c-property", "purpose"),
                             ("c-value", "AI and simulation"), ("c-source", "https://example.org/jupiter")):
            browser.evaluate(f"document.getElementById('{field}').focus()")
            browser.send("Input.insertText", text=value)
        browser.evaluate("document.querySelector('form.claim-form button[type=submit]').click()")
        browser.wait_for("document.getElementById('turtle')")
        browser.screenshot(ARTIFACTS / "contribute-claim.png")
        turtle = str(browser.evaluate("document.querySelector('#turtle pre').textContent"))
        review = str(browser.evaluate("document.getElementById('review').textContent"))
    assert "hpc:property hpc:purpose ; hpc:value \"AI and simulation\"" in turtle
    assert re.search(r"hpc:about sys:top500-\d+ ;", turtle), turtle  # TOP500's record, found by its name
    assert "todo:basis" in review  # what is left to decide, reviewed as `hpckg check` reviews it
