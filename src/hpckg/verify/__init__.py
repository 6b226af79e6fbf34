"""The source verifier's room: re-read every cited source and record what it says (issue 13, `hpckg verify`).

Its checks are machine-written graphs (hpckg.machinegraphs, slot "verify"): one N-Quads file per check
under `.hpckg/graphs/verify/<source>/<time>-<system>.nq`, each an `hpc:SourceCheck` (a prov:Activity) with
when, by which software, the URL asked and answered, what was read (SHA-256, size) and which names and
counts were found, emitted through the claim builder (hpckg.claims). `hpckg build` loads them with
everything else. Source checks written by hand in data/ttl/ are the upstream dataset's records; a verified
tier rests on checks in this slot.

- fetch.py: HTTP (httpx, asyncio): address policy, robots.txt, politeness, retries, size cap, cache;
- extract.py: the text of HTML (trafilatura), PDF (pypdf) and plain text, and the walls that hide it;
- match.py: the system's names, parts and counts in that text;
- record.py: a check as quads, written as its own graph; the history of checks on disk;
- run.py: what to look for in which source (read from the store), and the run itself.
"""

from pathlib import Path

from hpckg.machinegraphs import graph_file

SLOT = "verify"


def check_file(graphs: Path, source_slug: str, name: str) -> Path:
    """Where one check of a source is written under the project's graphs folder `graphs` (name: the check's
    time and system)."""
    return graph_file(graphs, SLOT, source_slug, name)
