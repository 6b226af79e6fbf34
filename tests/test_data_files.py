"""Every curated file in data/ttl/ is a test case: it must pass `hpckg check` in the context of the graph,
exactly as a contribution of that file would (syntax, shapes, ownership, duplicates, change history)."""

from __future__ import annotations

import pytest

from hpckg.contribute.check import check_files

from conftest import ROOT, session_project

DATA_FILES = sorted((ROOT / "data" / "ttl").rglob("*.ttl"))


def test_there_is_curated_data():
    assert len(DATA_FILES) >= 10, "data/ttl/ lost its curated files"


@pytest.mark.parametrize("path", DATA_FILES, ids=lambda p: p.relative_to(ROOT / "data" / "ttl").as_posix())
def test_curated_file_passes_check(path):
    report = check_files([path], project=session_project())
    assert report.exit_code == 0, report.to_text()
