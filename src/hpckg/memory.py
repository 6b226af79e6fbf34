"""Handing freed memory back to the system between a build's steps.

Oxigraph (Rust) and RocksDB (C++) allocate through the C library's malloc. After a whole-graph query frees its
hash tables, glibc keeps most of the pages for the next allocation instead of returning them, so a process
that runs thirty such queries in a row holds the sum of their leftovers, not the largest of them: on the 10x
synthetic store the validation checks held 3.3 GB run together against 2.6 GB for the largest alone
(docs/benchmarks.md). `malloc_trim(0)` returns the free pages at the top of every heap and the unused whole
pages inside them; it takes milliseconds, so the build calls it after each rule and each check.
"""

from __future__ import annotations

import ctypes
import sys
from functools import cache


@cache
def _trim():
    # glibc only: musl and the BSDs have no malloc_trim, and macOS's allocator returns pages itself.
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def release_freed_memory() -> bool:
    """Return the C heap's free pages to the system; True where the C library could (glibc)."""
    trim = _trim()
    if trim is None:
        return False
    trim(0)
    return True
