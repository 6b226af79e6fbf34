"""Debian's Chromium (headless) driven over the DevTools protocol on --remote-debugging-pipe, for the browser
tests: load a page and read its DOM, take a screenshot, type into a form, emulate a colour scheme, run a
script in the page (DevTools' Runtime.evaluate, which the pages' Content-Security-Policy does not govern, so
the site's policy is kept as served). No library needed: JSON messages ended by a NUL byte on fds 3 (commands
in) and 4 (answers and events out).

One Chromium serves the whole test session (the `browser` fixture in conftest.py): starting it costs about
a second of both cores, and the browser tests load over 70 pages. Each page gets a fresh tab in a fresh
browser context (its own cookies, storage and cache, as a new profile had) at its own window size, closed
when done, so no test sees what another left."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from conftest import require_chromium

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]
DESKTOP = "1280,1800"


class Browser:
    """One Chromium process; `tab` opens a tab and attaches to it, the commands inside go to that tab."""

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
        self._events: list[dict] = []
        self.session: str | None = None
        # The longest one command may take: axe on the longest pages runs for minutes on a busy machine.
        self.timeout = 900.0

    def send(self, method: str, **params: object) -> dict:
        """A command to the open tab (to the browser when none is open), and its answer."""
        self._next += 1
        message: dict[str, object] = {"id": self._next, "method": method, "params": params}
        if self.session is not None:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode("utf-8") + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read(deadline, method)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
            self._keep(answer)

    def _read(self, deadline: float, waiting_for: str) -> dict:
        while b"\0" not in self._buffer:
            if not select.select([self._answers], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise TimeoutError(f"Chromium did not answer {waiting_for} in time")
            chunk = os.read(self._answers, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def wait_event(self, matches: Callable[[dict], bool], what: str, timeout: float = 120) -> dict:
        """The first event from the open tab that `matches`, those received while waiting for answers first."""
        deadline = time.monotonic() + timeout
        while True:
            for event in self._events:
                if matches(event):
                    self._events.remove(event)
                    return event
            self._keep(self._read(deadline, what))

    def _keep(self, message: dict) -> None:
        """Keep an event of the open tab for wait_event; the browser's own and closed tabs' are dropped."""
        if "method" in message and self.session is not None and message.get("sessionId") == self.session:
            self._events.append(message)

    @contextlib.contextmanager
    def tab(self, size: str = DESKTOP, scheme: str = "light") -> Iterator[Browser]:
        """A fresh tab, in a browser context of its own, showing `size` CSS pixels ("width,height") in the
        colour scheme `scheme`; the commands sent inside go to it, and it is closed with its context after."""
        assert self.session is None, "one tab at a time"
        context = self.send("Target.createBrowserContext")["browserContextId"]
        target = self.send("Target.createTarget", url="about:blank", browserContextId=context)["targetId"]
        try:
            self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            width, height = (int(n) for n in size.split(","))
            self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                      mobile=False)
            self.color_scheme(scheme)
            self.send("Page.enable")
            self.send("Page.setLifecycleEventsEnabled", enabled=True)
            yield self
        finally:
            self.session = None
            self._events.clear()
            self.send("Target.closeTarget", targetId=target)
            self.send("Target.disposeBrowserContext", browserContextId=context)

    def browse(self, url: str, screenshot: Path, size: str = DESKTOP) -> str:
        """The DOM of a URL once loaded (after its scripts ran, what --dump-dom printed), and a PNG of the
        `size` window on it written to `screenshot`; in a tab of its own."""
        with self.tab(size):
            self.navigate(url)
            dom = self.evaluate("document.documentElement.outerHTML")
            self.screenshot(screenshot)
        return str(dom)

    def navigate(self, url: str, timeout: float = 120) -> None:
        """Load a URL in the open tab and wait for its load event."""
        answer = self.send("Page.navigate", url=url)
        if answer.get("errorText"):
            raise RuntimeError(f"{url}: {answer['errorText']}")
        frame, loader = answer["frameId"], answer.get("loaderId")
        self.wait_event(lambda event: event["method"] == "Page.lifecycleEvent" and event["params"]["name"] == "load"
                        and event["params"]["frameId"] == frame and event["params"]["loaderId"] == loader,
                        f"the load of {url}", timeout)

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
