"""The Contribute page in a real browser (Debian's Chromium, headless) over a live `hpckg serve` of a store
with real TOP500 and Epoch AI imports: a draft is pasted into the text box (the DevTools protocol's
Input.insertText, as a paste types it) and the form submitted with its button; the answer shows the review
and the rendered page of the system the draft defines. Chromium is driven over --remote-debugging-pipe (no
library needed); screenshots go to test-artifacts/website/."""

from __future__ import annotations

import base64
import html
import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from hpckg.contribute.check import check_files
from hpckg.serve import urls
from serve_live import start_server
from website_store import imported_store

from conftest import require_chromium

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "website"
FRONTIER = Path(__file__).parent / "contributions" / "good" / "frontier.ttl"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]

pytestmark = pytest.mark.slow


class Browser:
    """Chromium speaking the DevTools protocol on fds 3 (commands in) and 4 (answers out): JSON messages
    ended by a NUL byte."""

    def __init__(self, profile: Path, size: str = "1280,2600"):
        commands_r, self._commands = os.pipe()
        self._answers, answers_w = os.pipe()
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{commands_r} 4>&{answers_w}', require_chromium(), *FLAGS,
             f"--user-data-dir={profile}", f"--window-size={size}", "--remote-debugging-pipe", "about:blank"],
            pass_fds=(commands_r, answers_w), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(commands_r)
        os.close(answers_w)
        self._buffer = b""
        self._next = 0
        self.session: str | None = None

    def send(self, method: str, **params: object) -> dict:
        self._next += 1
        message: dict[str, object] = {"id": self._next, "method": method, "params": params}
        if self.session is not None:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode("utf-8") + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def _read(self) -> dict:
        while b"\0" not in self._buffer:
            chunk = os.read(self._answers, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def open(self, url: str) -> None:
        target = self.send("Target.createTarget", url=url)["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]

    def evaluate(self, expression: str) -> object:
        return self.send("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while not self.evaluate(f"document.readyState === 'complete' && Boolean({expression})"):
            if time.monotonic() > deadline:
                raise AssertionError(f"the page never had {expression}")
            time.sleep(0.2)

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"]))

    def close(self) -> None:
        self.process.kill()
        self.process.wait(10)
        os.close(self._commands)
        os.close(self._answers)


@pytest.fixture(scope="module")
def server():
    require_chromium()
    live = start_server(imported_store(), "--workers", "2")
    yield live
    live.stop()


def test_paste_a_draft_and_see_the_review_and_the_rendered_page(server, tmp_path):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser = Browser(tmp_path / "profile")
    try:
        browser.open(server.url + urls.contribute())
        browser.wait_for("document.getElementById('draft-turtle')")
        browser.evaluate("document.getElementById('draft-turtle').focus()")
        browser.send("Input.insertText", text=FRONTIER.read_text(encoding="utf-8"))
        browser.evaluate("document.querySelector('form.contribute button[type=submit]').click()")
        browser.wait_for("document.getElementById('review')")
        browser.screenshot(ARTIFACTS / "contribute-review.png")
        dom = str(browser.evaluate("document.documentElement.outerHTML"))
    finally:
        browser.close()
    assert (ARTIFACTS / "contribute-review.png").stat().st_size > 10_000
    text = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"(?s)<style.*?</style>", "", dom))))
    # The review the command gives for the same draft against the same store, problem for problem.
    expected = check_files([FRONTIER], store_path=imported_store())
    assert expected.problems, "the imported TOP500 lists Frontier: the draft should be reported as a duplicate"
    for problem in expected.problems:
        assert f"[ {problem.code} ]" in text and problem.message in text
    assert "duplicate-system" in expected.codes()
    # and the page the draft defines, rendered in context of the imports
    assert re.search(r'<article class="draft-page" aria-label="system page: Frontier \(ORNL\)"', dom)
    assert "Measured performance" in text and "1,102,000" in text
    # the answer keeps the page's outline: one h1, no heading level skipped, one <main>
    levels = [int(level) for level in re.findall(r"<h([1-6])[\s>]", dom)]
    assert levels.count(1) == 1 and levels[0] == 1, levels
    assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    assert len(re.findall(r"<main[\s>]", dom)) == 1
