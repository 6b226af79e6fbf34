"""The source verifier's room: re-read every cited source and record what it says (issue 13, `hpckg verify`).

Its checks are machine-written graphs (hpckg.machinegraphs, slot "verify"): one N-Quads file per checked
source under `.hpckg/graphs/verify/`, each an `hpc:SourceCheck` (a prov:Activity) with when, by which
software, the URL asked and answered, what was read (SHA-256, size) and which names and counts were found,
emitted through the claim builder (hpckg.claims). `hpckg build` loads them with everything else. Source
checks written by hand in data/ttl/ are the upstream dataset's records; a verified tier rests on checks in
this slot.
"""

from hpckg.machinegraphs import graph_file

SLOT = "verify"


def check_file(source_slug: str):
    """Where the checks of one source are written."""
    return graph_file(SLOT, source_slug)
