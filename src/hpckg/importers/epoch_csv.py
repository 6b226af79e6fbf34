"""Reading Epoch AI's CSV files: one reader for the hardware, cluster and data-center importers.

Epoch's exports are UTF-8 with a byte-order mark and quoted notes that span several lines, so a row's
position is kept as the line it starts on (what an error message and a claim's note point at).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from hpckg.errors import InputError


def data_rows(path: Path, required: tuple[str, ...], *, expected: str,
              where: str) -> Iterator[tuple[int, int, dict[str, str]]]:
    """(row number from 1, line the row starts on, cells as read) of every data row.

    InputError names the file when it lacks a required column (it is not Epoch's `expected` file: `where`
    says where to download it), is not UTF-8 or is not readable CSV.
    """
    try:
        with path.open(newline="", encoding="utf-8-sig") as file:
            reader = csv.DictReader(file)
            missing = [c for c in required if c not in (reader.fieldnames or [])]
            if missing:
                raise InputError(f"{path}: not Epoch's {expected}: no column {', '.join(missing)} "
                                 f"(download it from {where})")
            line = reader.line_num
            for number, cells in enumerate(reader, start=1):
                yield number, line + 1, cells
                line = reader.line_num
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    except csv.Error as error:
        raise InputError(f"{path}: not a readable CSV file: {error}") from None
