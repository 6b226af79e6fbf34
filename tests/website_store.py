"""The website's store: two TOP500 editions and Epoch AI's hardware and clusters (tests/stores.py)."""

from __future__ import annotations

from pathlib import Path

import stores
from stores import TOP500

__all__ = ["TOP500", "imported_project", "imported_store"]


def imported_project() -> Path:
    return stores.website().project


def imported_store() -> Path:
    return stores.website().store
