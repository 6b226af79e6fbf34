"""A store with real imports for the website's tests: two TOP500 editions and Epoch AI's hardware and
clusters, imported and built once per test process (about half a minute) in a temporary copy of the
project."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

from conftest import SHARED, copy_project, run_hpckg, text

TOP500 = SHARED / "data" / "top500"
EPOCH = SHARED / "data" / "epoch-ai"
EDITIONS = ("TOP500_202411.xlsx", "TOP500_202506.xlsx")


@functools.cache
def imported_project() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="hpckg-website-"))
    # Shared by every test of the process, so removed when the process ends (~140 MB each otherwise left).
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    project = copy_project(folder)
    editions = project / "top500"
    editions.mkdir()
    for name in EDITIONS:
        shutil.copy(TOP500 / name, editions / name)
    for name, files in (("top500", [editions]), ("epoch-hardware", [EPOCH / "ml_hardware.csv"]),
                        ("epoch-clusters", [EPOCH / "gpu_clusters.csv"])):
        completed = run_hpckg("import", name, *map(str, files), cwd=project)
        assert completed.returncode == 0, text(completed)
    built = run_hpckg("build", "--quiet", "--no-validate", cwd=project, timeout=1200)
    assert built.returncode == 0, text(built)
    return project


def imported_store() -> Path:
    return imported_project() / ".hpckg" / "store"
