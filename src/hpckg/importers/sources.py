"""The sources a project configures ([tool.hpckg.sources] or hpckg.toml [sources]: importer name -> files
or folders) and bringing their imports up to date, for `hpckg import NAME`, `hpckg import --all` and the
first step of `hpckg build`.

A configured source can be unusable in two ways that are the user's to fix, not hpckg's: its file or folder
is missing (not downloaded on this machine), or no importer has its name. Each is one `SourceProblem`, a
sentence naming the path, the configuration file that names it and where to download it; the caller decides
whether that is a warning (a build goes on with the sources present) or an error.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from hpckg.errors import InputError
from hpckg.importers import IMPORTERS, importer
from hpckg.importers.run import (
    ImportResult,
    check_keys,
    expand,
    import_file,
    is_up_to_date,
    write_shared_graph,
)
from hpckg.project import Project


@dataclass(frozen=True)
class SourceProblem:
    """A configured source that cannot be imported here, said as one line."""

    importer: str
    path: Path | None  # None when the importer itself is unknown
    message: str


@dataclass
class SourcePlan:
    """What importing the configured sources will read: each importer's files, and what cannot be read."""

    files: dict[str, list[Path]] = field(default_factory=dict)
    problems: list[SourceProblem] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(map(len, self.files.values()))


def _where_set(here: Project, name: str) -> str:
    config = here.config_file.name if here.config_file else "the configuration"
    table = "[tool.hpckg.sources]" if config == "pyproject.toml" else "[sources]"
    return f"{table} {name} in {here.config_file or config}"


def plan(here: Project, names: Iterable[str] | None = None) -> SourcePlan:
    """The files to import for the configured sources of `names` (all configured ones by default)."""
    chosen = list(here.sources) if names is None else list(names)
    result = SourcePlan()
    for name in chosen:
        configured = here.sources.get(name, ())
        if name not in IMPORTERS:
            result.problems.append(SourceProblem(name, None, (
                f"{_where_set(here, name)} names no importer hpckg has (importers: {', '.join(sorted(IMPORTERS))}); "
                "its files are not imported")))
            continue
        module = importer(name)
        files: list[Path] = []
        for path in configured:
            if not path.exists():
                result.problems.append(SourceProblem(name, path, (
                    f"{os.path.normpath(path)}: not found (set as {_where_set(here, name)}); the {name} importer reads "
                    f"{module.TITLE}: download it from {module.WHERE}")))
                continue
            try:
                files += expand(name, [path])
            except InputError as error:  # a folder with none of the importer's files in it
                result.problems.append(SourceProblem(name, path, f"{error} (set as {_where_set(here, name)})"))
        if files:
            check_keys(name, files)
            result.files[name] = files
    return result


FileStarted = Callable[[str, Path], Callable[[int], None] | None]


def import_planned(planned: SourcePlan, project: Project, *, started: FileStarted | None = None,
                   finished: Callable[[ImportResult], None] | None = None,
                   workers: int | None = None) -> list[ImportResult]:
    """Import every planned file into the project (unchanged files are no-ops). `started(importer, file)` may
    return a function told the running row count; `finished(result)` is told each file's result. An unusable file
    raises InputError: its own graph stays as it was (files imported before it stay imported).

    Files that need work are imported by `workers` processes at once (default: one per CPU), each file on
    its own, since each is its own graph: the 63 TOP500 editions take half the time on two cores. With
    one file to do, or one worker, it runs here, with row-by-row progress."""
    workers = workers or os.cpu_count() or 1
    todo = [(name, path) for name, files in planned.files.items() for path in files
            if not is_up_to_date(name, path, project)]
    results: dict[tuple[str, Path], ImportResult] = {}
    if workers > 1 and len(todo) > 1:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=min(workers, len(todo)), mp_context=context) as pool:
            futures = {}
            for name, path in todo:
                if started:
                    started(name, path)
                futures[pool.submit(import_file, name, path, project)] = (name, path)
            # Told in the plan's order, each as soon as it and every file before it are done: the report
            # reads the same on every run, whichever worker finishes first.
            told = 0
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                while told < len(todo) and todo[told] in results:
                    if finished:
                        finished(results[todo[told]])
                    told += 1
    for name, files in planned.files.items():
        for path in files:
            if (name, path) not in results:
                on_row = started(name, path) if started else None
                result = results[(name, path)] = import_file(name, path, project, on_row=on_row)
                if finished:
                    finished(result)
        write_shared_graph(name, project.graphs)
    return [results[(name, path)] for name, files in planned.files.items() for path in files]
