"""docs/benchmarks.md holds one generated section per benchmark script, between `<!-- NAME: begin -->` and
`<!-- NAME: end -->`; each script rewrites only its own section, so running one never drops another's."""

from __future__ import annotations

import time
from pathlib import Path

HEADER = ("# Benchmarks\n\nEach section below is written by the script it names; do not edit a generated section "
          "by hand.\n")


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}: begin -->", f"<!-- {name}: end -->"


def replace_section(path: Path | str, name: str, body: str) -> None:
    """Put `body` between NAME's markers in the file, replacing what was there or appending it."""
    path = Path(path)
    begin, end = markers(name)
    section = f"{begin}\n{body.strip()}\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    if begin in text and end in text:
        text = text[:text.index(begin)] + section + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")


def machine_speed() -> str:
    """How fast this machine runs Python right now, for comparing a section with one measured another day:
    a shared 2-core machine has run the same loop in 0.63 s on a quiet day and in 1.6 s on a busy one. The
    loop runs at module level (`python -c`'s way, names in a dict), as those figures were taken."""
    loop = "total = 0\nfor number in range(10**7):\n    total += number\n"
    started = time.perf_counter()
    exec(loop, {})  # a constant text, timed
    return f"a Python loop of 10^7 additions took {time.perf_counter() - started:.2f} s (0.63 s on a quiet day)"
