"""Possible duplicates of a new system beyond an exact name: "ORNL Frontier", "Oak Ridge Frontier" and
"Frontier supercomputer" all name the machine TOP500 lists as "Frontier" (issue 36: each passed the checks).

A new system's names are stripped of words that describe rather than name it (supercomputer, system, cluster)
and of the words and initials of its own operator, site and country; what remains is compared with the
existing systems' names as the exact check compares them. A match is reported only when the records also
agree on something else (country, operator or site), and with every record of that machine (TOP500's and Epoch
AI's, linked by hpc:sameMachineAs), since a contribution about it belongs to one of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from hpckg.claims import shorten as short
from hpckg.names import INITIALS_SKIP
from hpckg.namespaces import hpc

# Words that say what kind of thing a machine is, not which one.
DESCRIPTIVE = {"supercomputer", "supercomputers", "supercomputing", "system", "systems", "cluster", "computer",
               "machine", "the", "hpc", "new"}
AGREEING = (hpc("country"), hpc("operator"), hpc("site"))


def words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+(?:-[^\W_]+)*", text)


def own_words(labels: Iterable[str]) -> set[str]:
    """The casefolded words and initials of the labels of a system's operator, site and country."""
    found: set[str] = set()
    for label in labels:
        found.update(w.casefold() for w in words(label))
        for part in re.split(r"[/,;()]", label):  # "DOE/SC/Oak Ridge National Laboratory": ORNL is its last part's
            kept = [w.casefold() for w in words(part) if w.casefold() not in INITIALS_SKIP]
            if len(kept) > 1:
                found.add("".join(w[0] for w in kept))
    return found


def core_names(name: str, own: set[str]) -> set[str]:
    """The name without descriptive words and the system's own operator/site/country words; empty when that
    leaves the name unchanged or leaves nothing."""
    parts = words(name)
    kept = [w for w in parts if w.casefold() not in DESCRIPTIVE and w.casefold() not in own]
    return {" ".join(kept)} if kept and len(kept) < len(parts) else set()


def attributes(store, iri: str) -> dict[str, set[str]]:
    """A system's values of the agreeing properties (country, operator, site) read from its claims in `store`."""
    values = " ".join(f"<{p}>" for p in AGREEING)
    rows = store.query(f"SELECT ?p ?v WHERE {{ ?c <{hpc('about')}> <{iri}> ; <{hpc('property')}> ?p ; "
                       f"<{hpc('value')}> ?v . VALUES ?p {{ {values} }} }}")
    found: dict[str, set[str]] = {}
    for row in rows:
        found.setdefault(row["p"].value, set()).add(row["v"].value)
    return found


def same_machine(store, iri: str) -> list[str]:
    """The other records of the machine `iri` is a record of (hpc:sameMachineAs claims, either way)."""
    rows = store.query(f"SELECT DISTINCT ?other WHERE {{ ?c <{hpc('property')}> <{hpc('sameMachineAs')}> . "
                       f"{{ ?c <{hpc('about')}> <{iri}> ; <{hpc('value')}> ?other }} UNION "
                       f"{{ ?c <{hpc('value')}> <{iri}> ; <{hpc('about')}> ?other }} }}")
    return sorted(row["other"].value for row in rows if row["other"].value != iri)


def agreements(mine: dict[str, set[str]], theirs: dict[str, set[str]]) -> list[str]:
    """What two systems' claims agree on, in words: ['country US', 'operator orgn:ornl']."""
    said = []
    for prop in AGREEING:
        shared = mine.get(prop, set()) & theirs.get(prop, set())
        if shared:
            said.append(f"{prop.rsplit('#', 1)[-1]} {', '.join(short(v) for v in sorted(shared))}")
    return said


def records_text(store, iri: str) -> str:
    """`sys:top500-180047 (also sys:epoch-frontier)`: a record with the machine's other records."""
    others = same_machine(store, iri)
    return short(iri) + (f" (also {', '.join(short(o) for o in others)})" if others else "")
