"""CONTRIBUTING.md: its worked example is the good corpus file, every path it names exists, every problem
code is documented."""

from __future__ import annotations

import re
from pathlib import Path

from hpckg.contribute.scaffold import prefix_block
from hpckg.datafiles.report import CODES

from conftest import run_hpckg, text

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


def test_minimal_examples_are_one_contribution_that_passes_check(project: Path):
    section = DOC.split("## Minimal examples", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```turtle\n(.*?)```", section, re.S)
    assert len(blocks) == 6, "one example per entity type: country, source, organisation, part, site, system"
    touched = []
    for block in blocks:
        target = re.match(r"# (data/ttl/[\w/.-]+\.ttl)", block).group(1)
        path = project / target
        if path.exists():
            path.write_text(path.read_text(encoding="utf-8") + "\n" + block, encoding="utf-8")
        else:
            # the prefixes `hpckg new` writes, less todo: (once every placeholder is filled in, check says so)
            path.write_text(re.sub(r"@prefix todo:.*\n", "", prefix_block()) + "\n" + block, encoding="utf-8")
        touched.append(target)
    completed = run_hpckg("check", *touched, cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0, out + err


def test_readme_puts_hpckg_on_the_path_before_its_examples():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_example = re.search(r"^hpckg \w+ ", readme.split("## Examples", 1)[1], re.M).start() + \
        readme.index("## Examples")
    assert "source .venv/bin/activate" in readme[:first_example]
