"""The test session's stores, built once per set of inputs: the one factory every test that needs real
imports goes through, instead of a build per module.

A store is named by what went into it (`Inputs`: which TOP500 editions, which Epoch AI importers, validated
or not). The first test that asks for one builds it with the real `hpckg import` and `hpckg build` in a
copy of the project; every later test of the session gets the same folder. Under pytest-xdist the
workers share the builds too: each key is built under a lock in a folder all workers see, by the first
worker that asks, and the others wait for it and open it read-only.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from conftest import SHARED, copy_project, run_hpckg, text

TOP500 = SHARED / "data" / "top500"
EPOCH = SHARED / "data" / "epoch-ai"

# The files each Epoch AI importer reads (as pyproject.toml's [tool.hpckg.sources] configures them).
EPOCH_FILES = {
    "epoch-hardware": ("ml_hardware.csv",),
    "epoch-clusters": ("gpu_clusters.csv",),
    "epoch-datacenters": ("data_centers.csv", "data_center_timelines.csv"),
}


@dataclass(frozen=True)
class Inputs:
    """What a store is built from, on top of the curated data: its key in the factory."""

    editions: tuple[str, ...] = ()  # TOP500 file names in ../shared/data/top500, imported from one folder
    epoch: tuple[str, ...] = ()  # Epoch AI importers (EPOCH_FILES)
    validate: bool = True
    pages: bool = False  # the website's figures prepared by the build, for a store that servers open

    def key(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Built:
    """A project folder whose store was built from `inputs`, with what its commands printed."""

    inputs: Inputs
    project: Path
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # importer -> (stdout, stderr)
    build: tuple[str, str] = ("", "")

    @property
    def store(self) -> Path:
        return self.project / ".hpckg" / "store"


# Two TOP500 editions and Epoch AI's hardware and clusters: the website's, the cross-dataset tests' and the
# Virtuoso-on-real-imports tests' store. Validated, so the tests that ask for "violations: 0" share it too.
# Built with the website's figures, as `hpckg build` makes them: the session's server and each worker's
# in-process site read them from the generation instead of preparing them each (10 s apiece).
WEBSITE = Inputs(editions=("TOP500_202411.xlsx", "TOP500_202506.xlsx"), epoch=("epoch-hardware", "epoch-clusters"),
                 pages=True)


CURATED = Inputs()


class StoreFactory:
    """Builds each `Inputs` once in `folder` (shared by every pytest-xdist worker of the session)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._built: dict[Inputs, Built] = {}

    def get(self, inputs: Inputs) -> Built:
        if inputs not in self._built:
            self._built[inputs] = self._build_once(inputs)
        return self._built[inputs]

    def _build_once(self, inputs: Inputs) -> Built:
        home = self.folder / inputs.key()
        record = home / "built.json"
        with _locked(self.folder / f"{inputs.key()}.lock"):
            if not record.exists():
                if home.exists():  # a worker that died while building
                    shutil.rmtree(home)
                home.mkdir(parents=True)
                built = _build(inputs, home / "project")
                record.write_text(json.dumps({"imports": built.imports, "build": built.build}))
        saved = json.loads(record.read_text())
        return Built(inputs, home / "project", {k: tuple(v) for k, v in saved["imports"].items()},
                     tuple(saved["build"]))


def _build(inputs: Inputs, project: Path) -> Built:
    project.mkdir()
    copy_project(project)
    imports: dict[str, tuple[str, str]] = {}
    if inputs.editions:
        download = project / "top500"
        download.mkdir()
        for name in inputs.editions:
            shutil.copy(TOP500 / name, download / name)
        imports["top500"] = _run("import", "top500", str(download), cwd=project)
    for importer in inputs.epoch:
        imports[importer] = _run("import", importer, *(str(EPOCH / f) for f in EPOCH_FILES[importer]), cwd=project)
    build = _run("build", "--quiet", *(() if inputs.pages else ("--no-pages",)),
                 *(() if inputs.validate else ("--no-validate",)), cwd=project)
    return Built(inputs, project, imports, build)


def _run(*args: str, cwd: Path) -> tuple[str, str]:
    completed = run_hpckg(*args, cwd=cwd)
    out, err = text(completed)
    assert completed.returncode == 0, f"hpckg {' '.join(args)} failed in the store factory:\n{out}\n{err}"
    return out, err


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


_factory: list[StoreFactory] = []


def built(inputs: Inputs) -> Built:
    """The session's store built from `inputs` (conftest's session fixture `store_factory` makes the factory)."""
    if not _factory:
        raise RuntimeError("stores.built() needs the session fixture store_factory (tests/conftest.py)")
    return _factory[0].get(inputs)


def website() -> Built:
    return built(WEBSITE)


def curated() -> Built:
    """The curated data alone, built and validated by the real `hpckg build`."""
    return built(CURATED)
