"""Helpers for the server tests: a store built once per test process, the application in-process under
Starlette's TestClient, and real `hpckg serve` processes on a loopback port (--port 0: the server picks a
free port and prints its URL)."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import subprocess
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from conftest import hpckg_executable


def serve_store() -> Path:
    """The session's curated store (tests/stores.py), for the server tests."""
    import stores

    return stores.curated().store


@contextlib.contextmanager
def in_process(store: Path, **settings):
    """The server application with its real store and query worker processes, driven through Starlette's
    TestClient (its lifespan runs, so the workers are stopped on exit). Redirects are not followed. It serves
    the session's project (conftest.session_project) unless `project` says another."""
    from starlette.testclient import TestClient

    from hpckg.serve.app import Settings, create_app

    from conftest import session_project

    settings.setdefault("project", session_project())
    app = create_app(Settings(store_path=store, **settings))
    try:
        with TestClient(app, base_url="http://127.0.0.1:8000", follow_redirects=False) as client:
            yield client
    finally:
        app.state.service.close()


@dataclass
class LiveServer:
    url: str
    process: subprocess.Popen

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)


def start_server(store: Path | str, *options: str, wait: float = 90.0) -> LiveServer:
    """Start `hpckg serve` (over a store folder or a SPARQL server's query URL) in a subprocess and wait until
    its SPARQL endpoint answers."""
    process = subprocess.Popen(
        [hpckg_executable(), "serve", "--store", str(store), "--host", "127.0.0.1", "--port", "0", *options],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONUTF8": "1"})
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.decode()) for line in process.stdout], daemon=True).start()
    deadline = time.monotonic() + wait
    url = None
    while url is None:
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"hpckg serve did not start: {process.stderr.read().decode()[-2000:]}")
        try:
            match = re.search(r"at (http://\S+?)/ ", lines.get(timeout=0.5))
            url = match.group(1) if match else None
        except queue.Empty:
            continue
    while True:  # the URL is printed when ready; still wait until it actually answers
        try:
            with urllib.request.urlopen(url + "/sparql?query=ASK%7B%7D", timeout=5) as response:
                if response.status == 200:
                    return LiveServer(url, process)
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                raise
            time.sleep(0.2)
