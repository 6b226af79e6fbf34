"""Handing freed memory back to the system between a build's steps.

Oxigraph (Rust) and RocksDB (C++) allocate through the C library's malloc. After a whole-graph query frees its
hash tables, glibc keeps most of the pages for the next allocation instead of returning them, so a process
that runs fifty such queries in a row holds their leftovers on top of the next one's tables: every validation
check of the 10x synthetic store run in one process peaked at 3,827 MB, and at 2,867 MB (what the largest
check holds at once) when this ran after each, with the same 24,110 results in 284 s against
272. `malloc_trim(0)` returns the free pages at the top of every heap and the unused whole pages inside them;
it takes milliseconds, so the build calls it after linking, each rule and each check.
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
