"""hpckg's exceptions: one base class, small named subclasses. The CLI turns them into clean messages."""

from __future__ import annotations


class HpckgError(Exception):
    """Base class of every error hpckg reports to a user."""

    exit_code = 2


class InputError(HpckgError):
    """A file, option or argument the user gave cannot be used."""


class RdfSyntaxError(InputError):
    """An RDF file does not parse; carries file, line and column."""

    def __init__(self, path: str, line: int | None, column: int | None, message: str):
        self.path, self.line, self.column, self.message = path, line, column, message
        where = path if line is None else f"{path}:{line}:{column or 1}"
        super().__init__(f"{where}: {message}")


class QuerySyntaxError(InputError):
    """A SPARQL query does not parse; carries the parser's position."""


class UnknownNameError(InputError):
    """A format, query, importer or entity name is not known; the message lists the valid ones."""


class UnsupportedShapeError(HpckgError):
    """A shape uses a SHACL feature the fast engine does not translate; validate with engine="pyshacl"."""


class StoreError(HpckgError):
    """The store cannot be opened, written or swapped."""


class ValidationFailed(HpckgError):
    """The graph does not conform to the shapes; carries the report."""

    exit_code = 1

    def __init__(self, message: str, report: object = None):
        super().__init__(message)
        self.report = report
