"""hpckg's exceptions: one base class, small named subclasses. The CLI turns them into clean messages."""

from __future__ import annotations

import re

# C0 and C1 control characters (ESC starts terminal escape sequences) and Unicode format characters such as
# the byte-order mark and bidirectional overrides: shown as escapes wherever text from a file is echoed.
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def printable(text: str) -> str:
    """Text from a file made safe to print: control and invisible format characters as \\xNN / \\uNNNN."""
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                            else f"\\u{ord(m.group()):04x}", text)


def one_line(text: str) -> str:
    """The first line of a message, printable."""
    lines = text.strip().splitlines()
    return printable(lines[0]) if lines else ""


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
