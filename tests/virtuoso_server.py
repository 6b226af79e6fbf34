"""A real Virtuoso 7 (Debian's virtuoso-opensource, `virtuoso-t`) for the tests: its own virtuoso.ini and
database folder in a temporary folder, free loopback ports, run in the foreground and killed at the end.

`make test` installs the package as root with apt-get where it can; elsewhere the Virtuoso tests are skipped
with the reason, except under CI, where a missing Virtuoso fails them (as a missing Chromium does).
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

# /var/lib/virtuoso-opensource-7/vsp is the package's own web root; the server needs one to start its HTTP side.
INI = """\
[Database]
DatabaseFile = {folder}/virtuoso.db
ErrorLogFile = {folder}/virtuoso.log
LockFile = {folder}/virtuoso.lck
TransactionFile = {folder}/virtuoso.trx
xa_persistent_file = {folder}/virtuoso.pxa
[TempDatabase]
DatabaseFile = {folder}/virtuoso-temp.db
TransactionFile = {folder}/virtuoso-temp.trx
[Parameters]
ServerPort = 127.0.0.1:{sql_port}
DisableUnixSocket = 1
NumberOfBuffers = {buffers}
MaxDirtyBuffers = {dirty_buffers}
TransactionAfterImageLimit = {after_image_limit}
MaxMemPoolSize = {mem_pool}
DirsAllowed = {folder}
[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerRoot = /var/lib/virtuoso-opensource-7/vsp
ServerThreads = 10
[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = {query_seconds}
"""


@dataclass
class Virtuoso:
    process: subprocess.Popen
    base: str  # http://127.0.0.1:<port>
    user: str
    password: str
    folder: Path
    sql_port: int
    http_port: int
    settings: dict[str, int]  # the ini's buffers, after_image_limit and query_seconds, kept for a restart

    @property
    def sparql(self) -> str:
        return f"{self.base}/sparql"

    def env(self) -> dict[str, str]:
        """The environment an hpckg process writing to this server runs with (credentials never go on the
        command line)."""
        return {**os.environ, "PYTHONUTF8": "1", "HPCKG_STORE_USER": self.user,
                "HPCKG_STORE_PASSWORD": self.password}


def require_virtuoso() -> str:
    found = shutil.which("virtuoso-t")
    if found:
        return found
    reason = ("Virtuoso is not installed, so the Virtuoso tests cannot run: `make test` installs it as root with "
              "apt-get; otherwise install Debian's virtuoso-opensource package")
    if os.environ.get("CI"):
        pytest.fail(reason + " (CI is set: CI never skips the Virtuoso tests)", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_virtuoso(folder: Path, timeout: float = 120, *, buffers: int = 20000,
                   after_image_limit: int = 2_000_000_000, query_seconds: int = 120,
                   mem_pool: int = 2_000_000_000) -> Virtuoso:
    """Start virtuoso-t on free loopback ports, wait until /sparql answers, and give dba a fresh password.
    `buffers` are 8 KiB pages of cache (Virtuoso's guide: about two thirds of the memory to spare); the
    after-image limit is the largest change one transaction may log (the default 50 MB refuses to MOVE a graph
    of the full import's size, docs/external-stores.md); `query_seconds` is MaxQueryExecutionTime, the longest
    any one SPARQL request may run (0: no limit), which also bounds each MOVE of a publish's switch; `mem_pool`
    is MaxMemPoolSize, the memory one query's intermediate results may take (the default 400 MB stops
    rmax-changes over two real TOP500 editions with SQ200)."""
    server = _launch(folder, free_port(), free_port(), timeout, password="dba",
                     settings={"buffers": buffers, "after_image_limit": after_image_limit,
                               "query_seconds": query_seconds, "mem_pool": mem_pool})
    password = secrets.token_hex(8)
    _isql(server, f"user_set_password('dba', '{password}');")
    server.password = password
    return server


def restart_virtuoso(server: Virtuoso, timeout: float = 600, **changes: int) -> Virtuoso:
    """The same database, ports and password with some settings changed (the ini is only read at start): a
    checkpoint and a clean shutdown first, so the restart replays no transaction log."""
    _isql(server, "checkpoint;", timeout=3600)
    _isql(server, "shutdown;", check=False, timeout=3600)
    server.process.wait(timeout=timeout)
    return _launch(server.folder, server.sql_port, server.http_port, timeout, password=server.password,
                   settings={**server.settings, **changes})


def relaunch_virtuoso(server: Virtuoso, timeout: float = 600) -> Virtuoso:
    """The same database, ports, password and settings after killing the process: for a server that stopped
    answering (no clean shutdown is possible then; the start replays the transaction log)."""
    stop_virtuoso(server)
    return _launch(server.folder, server.sql_port, server.http_port, timeout, password=server.password,
                   settings=server.settings)


def answers(server: Virtuoso, seconds: float = 10) -> bool:
    """Whether the server answers `ASK {}` within `seconds`."""
    return _answers(server.base, seconds)


def _answers(base: str, seconds: float) -> bool:
    try:
        urllib.request.urlopen(f"{base}/sparql?query=ASK%7B%7D", timeout=seconds).read()
    except OSError:
        return False
    return True


def _launch(folder: Path, sql_port: int, http_port: int, timeout: float, *, password: str,
            settings: dict[str, int]) -> Virtuoso:
    binary = require_virtuoso()
    ini = folder / "virtuoso.ini"
    ini.write_text(INI.format(folder=folder, sql_port=sql_port, http_port=http_port,
                              dirty_buffers=settings["buffers"] * 3 // 4, **settings), encoding="utf-8")
    log = (folder / "stdout.log").open("ab")
    process = subprocess.Popen([binary, "+configfile", str(ini), "+foreground"], cwd=folder, stdout=log,
                               stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{http_port}"
    deadline = time.monotonic() + timeout
    while not _answers(base, 5):
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            said = (folder / "stdout.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"virtuoso-t did not start:\n{said}")
        time.sleep(0.3)
    return Virtuoso(process=process, base=base, user="dba", password=password, folder=folder, sql_port=sql_port,
                    http_port=http_port, settings=settings)


def _isql(server: Virtuoso, statement: str, *, check: bool = True, timeout: float = 60) -> None:
    isql = shutil.which("isql-vt") or shutil.which("isql")
    assert isql, "isql-vt (part of virtuoso-opensource) is missing"
    subprocess.run([isql, f"127.0.0.1:{server.sql_port}", "dba", server.password, f"exec={statement}"],
                   check=check, capture_output=True, timeout=timeout)


def stop_virtuoso(server: Virtuoso) -> None:
    server.process.kill()
    server.process.wait(timeout=30)
