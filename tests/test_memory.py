"""The build hands the memory a whole-graph query freed back to the system before the next rule or check
(hpckg.memory): glibc otherwise keeps it, and a build's peak became the sum of its queries' leftovers. Run in
a fresh interpreter so the test's own heap (pytest, the session's stores) does not blur the figures."""

from __future__ import annotations

import subprocess
import sys

import pytest

# A MINUS over 300,000 rows builds a hash table of about 70 MB in Oxigraph, all freed when the query ends.
PROBE = """
import pyoxigraph as ox
from hpckg.memory import release_freed_memory

def resident_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 // 2**20

store = ox.Store()
p, q = ox.NamedNode("urn:p"), ox.NamedNode("urn:q")
store.bulk_extend(ox.Quad(ox.NamedNode(f"urn:s{i}"), p if i % 2 else q, ox.Literal(str(i))) for i in range(300_000))
loaded = resident_mb()
[row] = store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?pred ?o MINUS { ?s <urn:q> ?x } }")
assert int(row["n"].value) == 150_000
after_query = resident_mb()
{call}
print(loaded, after_query, resident_mb())
"""


def resident(call: str) -> tuple[int, int, int]:
    completed = subprocess.run([sys.executable, "-c", PROBE.replace("{call}", call)], capture_output=True, text=True,
                               timeout=120)
    assert completed.returncode == 0, completed.stderr
    loaded, after_query, after = map(int, completed.stdout.split())
    return loaded, after_query, after


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's; /proc is Linux's")
def test_memory_a_query_freed_goes_back_to_the_system_only_when_released():
    loaded, after_query, kept = resident("pass")
    assert after_query - loaded > 40, "the probe's query should leave its freed hash table in the heap"
    assert after_query - kept < 5  # without the release, glibc keeps it
    loaded, after_query, released = resident("assert release_freed_memory()")
    assert after_query - released > 40 and released - loaded < 20
