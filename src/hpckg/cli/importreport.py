"""What `hpckg import` and the import step of `hpckg build` show: a progress bar while files are read (rich,
on stderr, on a terminal or when asked), each malformed row skipped, and a summary table at the end."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from hpckg.importers.run import ImportResult
from hpckg.importers.sources import SourcePlan, import_planned
from hpckg.namespaces import GRAPH
from hpckg.project import Project

SKIPPED_SHOWN = 20  # malformed rows listed one by one per file; the rest are counted
ROW_UPDATE = 50  # rows between two updates of the bar's row count


def wants_progress(asked: bool, *, quiet: bool = False) -> bool:
    """A progress bar when asked (--progress), else only when stderr is a terminal and nothing asks for quiet."""
    return asked or (not quiet and sys.stderr.isatty())


def run_plan(planned: SourcePlan, project: Project, *, progress: bool,
             on_file: Callable[[ImportResult], None] | None = None, skipped_to: TextIO | None) -> list[ImportResult]:
    """Import the planned files into the project, with a progress bar (files, and rows within the file being read) when
    `progress`; each file's skipped rows are written to `skipped_to` as it finishes."""

    def finished(result: ImportResult) -> None:
        if skipped_to is not None:
            print_skipped(result, skipped_to)
        if on_file:
            on_file(result)

    if not progress or not planned.count:
        return import_planned(planned, project, finished=finished)
    console = Console(stderr=True, force_terminal=True)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("files  {task.fields[rows]:>9,} rows"), TimeElapsedColumn(), console=console,
                  transient=True) as bar:
        task = bar.add_task("importing", total=planned.count, rows=0)

        def started(name: str, path: Path) -> Callable[[int], None]:
            bar.update(task, description=f"{name} {path.name}", rows=0)

            def on_row(rows: int) -> None:
                if rows % ROW_UPDATE == 0:
                    bar.update(task, rows=rows)

            return on_row

        def finished_with_bar(result: ImportResult) -> None:
            bar.update(task, advance=1, rows=result.rows or 0)
            finished(result)

        return import_planned(planned, project, started=started, finished=finished_with_bar)


def print_skipped(result: ImportResult, stream: TextIO) -> None:
    """Each malformed row of a file (file, row, column, why), the first SKIPPED_SHOWN of them."""
    for row in result.skipped[:SKIPPED_SHOWN]:
        print(f"skipped: {row.to_text()}", file=stream)
    if len(result.skipped) > SKIPPED_SHOWN:
        print(f"skipped: … and {len(result.skipped) - SKIPPED_SHOWN} more rows of {result.file.name}", file=stream)
    # Cells an importer could not use while it kept the row (file, row, column and why, in its words).
    for problem in result.problems[:SKIPPED_SHOWN]:
        print(f"reported: {problem}", file=stream)
    if len(result.problems) > SKIPPED_SHOWN:
        print(f"reported: … and {len(result.problems) - SKIPPED_SHOWN} more cells of {result.file.name}",
              file=stream)


def _number(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def _skipped_cell(result: ImportResult) -> str:
    count = result.skipped_rows
    reasons = result.skip_reasons()
    if not reasons:
        return _number(count)
    return f"{count:,}: " + "; ".join(f"{reason} ({n:,})" for reason, n in reasons.items())


def summary_table(results: list[ImportResult]) -> Table:
    """One row per file: status, rows read, systems, claims by tier, rows skipped and why; then a total."""
    table = Table(title="import summary", title_justify="left")
    for column, justify in (("file", "left"), ("status", "left"), ("rows", "right"), ("systems", "right"),
                            ("claims by tier", "left"), ("skipped", "left")):
        table.add_column(column, justify=justify, overflow="fold")
    for r in results:
        tiers = ", ".join(f"{n:,} {tier}" for tier, n in r.claims_by_tier.items()) or ("-" if r.rows is not None
                                                                                       else "?")
        table.add_row(r.file.name, r.status, _number(r.rows), _number(r.systems), tiers, _skipped_cell(r))
    if len(results) > 1:
        totals: dict[str, int] = {}
        for r in results:
            for tier, n in r.claims_by_tier.items():
                totals[tier] = totals.get(tier, 0) + n

        def total(values: list[int | None]) -> str:  # "?" marks a sum that misses files not counted
            return f"{sum(v or 0 for v in values):,}" + ("+?" if None in values else "")

        table.add_section()
        table.add_row(f"{len(results)} files (sums)", "", total([r.rows for r in results]),
                      total([r.systems for r in results]),
                      ", ".join(f"{n:,} {tier}" for tier, n in sorted(totals.items())) or "-",
                      total([r.skipped_rows for r in results]))
    return table


def print_summary(results: list[ImportResult], stream: TextIO, graphs: Path) -> None:
    """The summary table, as wide as the terminal, or 140 columns into a file or pipe; then what each
    importer says about all its files together (an importer's optional `summary_lines(graphs)`, read from the
    project's machine-written graphs under `graphs`: the TOP500's distinct machines)."""
    from hpckg.importers import importer

    terminal = stream.isatty()
    console = Console(file=stream, width=None if terminal else 140, force_terminal=terminal or None,
                      no_color=not terminal)
    console.print(summary_table(results))
    for name in dict.fromkeys(importer_name(r) for r in results):
        for line in getattr(importer(name), "summary_lines", lambda _graphs: [])(graphs):
            print(line, file=stream)


def importer_name(result: ImportResult) -> str:
    """The importer that wrote a result's graph (graph/import/<importer>/<key>)."""
    return result.graph.removeprefix(GRAPH + "import/").split("/", 1)[0]
