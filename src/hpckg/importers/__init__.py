"""Importers of public datasets: one module per source, registered by name in IMPORTERS, loaded on first use.

A new source is one new module in this package and one row in IMPORTERS. The module defines:

    TITLE: str          what it reads, as a person would cite it ("Epoch AI, Data on Machine Learning Hardware")
    WHERE: str          where a user downloads the files (said when a configured file is missing)
    PATTERNS: tuple     file-name globs it reads when given a folder ("ml_hardware.csv", "TOP500_*.xml")
    def graph_key(path: Path) -> str
                        the name of the named graph one file becomes ("ml_hardware", "2019-06"); importing
                        a file whose key exists replaces that graph, two files with one key in one import
                        are refused
    def read(path: Path, graph: str) -> Iterable[pyoxigraph.Quad]
                        the file's claims, sources and entities as quads in `graph`, emitted through the
                        claim builder (hpckg.claims); raise hpckg.errors.InputError for an unusable file
                        (wrong columns, not the format, unreadable): the file is refused whole and its
                        previous graph stays as it was. While read() runs, hpckg.importers.run.current_log()
                        is the file's ImportLog: call log.row() once per data row read (the progress bar and
                        the summary count them) and log.skip(row, column, reason) for a malformed row left
                        out (its row or line number in the file, the column at fault, why), then go on.
                        Systems and claims by tier are counted from the quads; the importer counts nothing
                        else.
    USES_REFERENCE: bool                              (optional, default False)
                        True when read() maps names to curated entities through hpckg.reference: it then
                        takes a keyword `names`, the project's Reference (Reference.of_project), and the
                        reference data's digest is recorded with the graph, so a change to it redoes the
                        import as a changed file does
    REPORTS_PROBLEMS: bool                            (optional, default False)
                        True when read() takes a keyword `report`, a function it calls with one line per
                        cell it could not use ("gpu_clusters.csv row 12 (line 14), column 'Country': ...")
                        while it goes on with the rest; the lines are shown after the import
    def select(files: list[Path]) -> list[Path]      (optional)
                        which of a folder's matching files to read, when a source publishes one graph's
                        data in several files (TOP500 editions 2011-11 … 2014-11 as both XML and XLS):
                        return one file per graph key; files named one by one are not filtered

`hpckg.importers.run.import_files` does the rest for every importer: hashing, skipping unchanged files,
provenance (a prov:Activity that used the file and generated the graph) and the atomic write of the graph
under the project's machine-written graphs folder, which `hpckg build` loads.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from hpckg.errors import UnknownNameError

# name (as typed after `hpckg import`) -> module; the one table of importers.
IMPORTERS: dict[str, str] = {
    "epoch-clusters": "hpckg.importers.epoch_clusters",
    "epoch-datacenters": "hpckg.importers.epoch_datacenters",
    "epoch-hardware": "hpckg.importers.epoch_hardware",
    "top500": "hpckg.importers.top500",
}


def importer(name: str) -> ModuleType:
    """The importer module registered under `name`."""
    module = IMPORTERS.get(name)
    if module is None:
        raise UnknownNameError(f"no importer named {name!r}; importers: {', '.join(sorted(IMPORTERS))}")
    return importlib.import_module(module)
