"""CONTRIBUTING.md: its worked example is the good corpus file, every path it names exists, every problem
code is documented."""

from __future__ import annotations

import re
from pathlib import Path

from hpckg.datafiles.report import CODES

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def test_worked_example_is_the_good_corpus_file():
    section = DOC.split("## Worked example", 1)[1]
    example = re.search(r"```turtle\n(.*?)```", section, re.S).group(1)
    assert example == (ROOT / "tests/contributions/good/frontier.ttl").read_text(encoding="utf-8")


def test_every_path_named_exists():
    named = set()
    for token in re.findall(r"`([^`\s]+)`", DOC):
        if "<" in token or "://" in token or ":" in token:
            continue
        if "/" in token or re.search(r"\.(ttl|md|yml|py|rq)$", token):
            named.add(token)
    assert len(named) >= 10, named
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, f"CONTRIBUTING.md names paths that do not exist: {missing}"


def test_every_problem_code_is_documented():
    for code in CODES:
        assert f"| `{code}` |" in DOC, code
