"""The command line starts fast and the test setup behaves as the README promises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

HEAVY = ("rdflib", "pyshacl", "starlette", "uvicorn", "jinja2", "httpx", "SPARQLWrapper")


def test_help_imports_no_heavy_library():
    # `hpckg --help` and every `hpckg COMMAND --help` build the same parser; none of the libraries that
    # only some commands need may be imported for it (rdflib + pySHACL alone took 0.13 s of 0.18 s).
    probe = ("import sys\nfrom hpckg.cli import make_parser\nmake_parser().format_help()\n"
             f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == "[]"


def test_browser_tests_skip_loudly_without_chromium_but_fail_under_ci(tmp_path):
    # Not the options of the running session: a --basetemp inherited through PYTEST_ADDOPTS is the session's
    # folder, which the inner pytest would empty under the running tests; it gets a folder of its own.
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "PYTEST_ADDOPTS")}
    env["PATH"] = str(Path(sys.executable).parent)  # the venv alone: no chromium on it
    command = [sys.executable, "-m", "pytest", "tests/test_browser.py", "-q", "-rs", "-p", "no:cacheprovider",
               "--basetemp", str(tmp_path / "inner")]
    local = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert local.returncode == 0, local.stdout
    assert "skipped" in local.stdout and "Chromium is not installed" in local.stdout
    under_ci = subprocess.run(command, cwd=ROOT, env={**env, "CI": "true"}, capture_output=True, text=True,
                              timeout=300, check=False)
    assert under_ci.returncode == 1, under_ci.stdout
    assert "CI never skips the browser tests" in under_ci.stdout
