"""Debian's Chromium (headless) driven over the DevTools protocol on --remote-debugging-pipe, for the browser
tests that do more than load a page: type into a form, emulate a colour scheme, run a script in the page
(DevTools' Runtime.evaluate, which the pages' Content-Security-Policy does not govern, so the site's policy
is kept as served). No library needed: JSON messages ended by a NUL byte on fds 3 (commands in) and 4
(answers and events out)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
from pathlib import Path

from conftest import require_chromium

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]


class Browser:
    """One Chromium process; `open` makes a tab and attaches to it, later commands go to that tab."""

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

    def navigate(self, url: str, timeout: float = 120) -> None:
        """Load a URL in the open tab and wait until it has loaded."""
        self.send("Page.navigate", url=url)
        self.wait_for(f"location.href === {json.dumps(url)}", timeout)

    def color_scheme(self, scheme: str) -> None:
        """Emulate prefers-color-scheme: light or dark (the page restyles at once, no reload)."""
        self.send("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": scheme}])

    def evaluate(self, expression: str, await_promise: bool = False) -> object:
        answer = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=await_promise)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            raise RuntimeError(details.get("exception", {}).get("description") or details.get("text"))
        return answer["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while not self.evaluate(f"document.readyState === 'complete' && Boolean({expression})"):
            if time.monotonic() > deadline:
                raise AssertionError(f"the page never had {expression}")
            time.sleep(0.2)

    def screenshot(self, path: Path, full_page: bool = False, most: int = 12_000) -> None:
        """A PNG of the viewport, or of the whole page when full_page (its first `most` CSS pixels: Chromium
        refuses a longer one as "too large")."""
        if full_page:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], most), "scale": 1}
            data = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True, clip=clip)["data"]
        else:
            data = self.send("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        self.process.kill()
        self.process.wait(10)
        os.close(self._commands)
        os.close(self._answers)
