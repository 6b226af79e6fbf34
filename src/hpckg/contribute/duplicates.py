"""Possible duplicates of a new system beyond an exact name: "ORNL Frontier", "Oak Ridge Frontier" and
"Frontier supercomputer" all name the machine TOP500 lists as "Frontier" (issue 36: each passed the checks).

A new system's names are stripped of words that describe rather than name it (supercomputer, system, cluster)
and of the words and initials of its own operator, site and country; what remains is compared with the
existing systems' names as the exact check compares them. A match is reported only when the records also
agree on something else (country, operator or site), and with every record of that machine (TOP500's and Epoch
AI's, linked by hpc:sameMachineAs), since a contribution about it belongs to one of them.

A new system named like nothing the graph holds ("OLCF-5", Frontier's project name) is compared by what it is
made of instead: an existing system in its country with the same accelerator part model, and no other count of
them, may be it (same_parts).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from hpckg.claims import shorten as short
from hpckg.names import INITIALS_SKIP
from hpckg.namespaces import PREFIXES, hpc

# Words that say what kind of thing a machine is, not which one.
DESCRIPTIVE = {"supercomputer", "supercomputers", "supercomputing", "system", "systems", "cluster", "computer",
               "machine", "the", "hpc", "new"}
AGREEING = (hpc("country"), hpc("operator"), hpc("site"))
# A machine named otherwise ("OLCF-5" for Frontier) is found by what it is made of: the same accelerator part
# model in the same country. When more than this many systems of the country share the part (H100s in the US),
# the part alone says little: the operator or site must agree too.
FEW_SHARERS = 3
# Two records that both give an accelerator count are one machine only when the counts are within this share
# of each other (Kalos's 2,416 A100s and Seren's 2,288 at the same site, by the same operator, are two).
COUNT_TOLERANCE = 0.02
ROLE_ACCELERATOR = PREFIXES["role"] + "accelerator"


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
    # the properties as a FILTER: with a VALUES, Oxigraph read every country, operator and site claim of the
    # graph first (0.35 s a call on the full graph; a possible duplicate by part asks it of a hundred systems)
    values = ", ".join(f"<{p}>" for p in AGREEING)
    rows = store.query(f"SELECT ?p ?v WHERE {{ ?c <{hpc('about')}> <{iri}> ; <{hpc('property')}> ?p ; "
                       f"<{hpc('value')}> ?v . FILTER (?p IN ({values})) }}")
    found: dict[str, set[str]] = {}
    for row in rows:
        found.setdefault(row["p"].value, set()).add(row["v"].value)
    return found


def accelerator_parts(store, iri: str) -> set[str]:
    """The part models a system's accelerator components are made of, as any claim of `store` says."""
    rows = store.query(f"SELECT DISTINCT ?part WHERE {{ ?cmp <{hpc('componentOf')}> <{iri}> ; "
                       f"<{hpc('role')}> <{ROLE_ACCELERATOR}> . ?c <{hpc('about')}> ?cmp ; "
                       f"<{hpc('property')}> <{hpc('partModel')}> ; <{hpc('value')}> ?part }}")
    return {row["part"].value for row in rows}


def accelerator_count(store, iri: str) -> int | None:
    """How many accelerators a system's claims give: the sum over its accelerator components of the largest
    quantity any claim gives (else nodes x per node); None when no component gives a count."""
    rows = store.query(f"SELECT ?cmp ?p ?v WHERE {{ ?cmp <{hpc('componentOf')}> <{iri}> ; "
                       f"<{hpc('role')}> <{ROLE_ACCELERATOR}> . ?c <{hpc('about')}> ?cmp ; <{hpc('property')}> ?p ; "
                       f"<{hpc('value')}> ?v . FILTER (?p IN (<{hpc('quantity')}>, <{hpc('nodeCount')}>, "
                       f"<{hpc('perNode')}>)) }}")
    found: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        try:
            number = float(row["v"].value)
        except ValueError:
            continue
        found.setdefault(row["cmp"].value, {}).setdefault(row["p"].value.rsplit("#", 1)[-1], []).append(number)
    counts = []
    for values in found.values():
        if values.get("quantity"):
            counts.append(max(values["quantity"]))
        elif values.get("nodeCount") and values.get("perNode"):
            counts.append(max(values["nodeCount"]) * max(values["perNode"]))
    return int(sum(counts)) if counts else None


def part_sharers(store, parts: set[str]) -> set[str]:
    """The systems of `store` with an accelerator component of one of these part models."""
    found: set[str] = set()
    for part in sorted(parts):
        rows = store.query(f"SELECT DISTINCT ?system WHERE {{ ?c <{hpc('value')}> <{part}> ; "
                           f"<{hpc('property')}> <{hpc('partModel')}> ; <{hpc('about')}> ?cmp . "
                           f"?cmp <{hpc('componentOf')}> ?system ; <{hpc('role')}> <{ROLE_ACCELERATOR}> }}")
        found.update(row["system"].value for row in rows)
    return found


def same_parts(mine: dict[str, set[str]], parts: set[str], count: int | None,
               sharers: dict[str, tuple[dict[str, set[str]], int | None]]) -> dict[str, list[str]]:
    """Of the systems sharing an accelerator part model (`sharers`: IRI -> its attributes and accelerator
    count), the ones that may be the new system (`mine`, made of `parts`, `count` accelerators): the same
    country, not another count (COUNT_TOLERANCE), and when more than FEW_SHARERS of the country share the part,
    the same operator or site too. IRI -> what they agree on, in words."""
    country = hpc("country")
    in_country = {iri: found for iri, found in sharers.items()
                  if mine.get(country, set()) & found[0].get(country, set())}
    alike = {}
    for iri, (theirs, their_count) in sorted(in_country.items()):
        if count is not None and their_count is not None and abs(count - their_count) > COUNT_TOLERANCE * max(
                count, their_count):
            continue
        agreed = agreements(mine, theirs)
        if len(in_country) > FEW_SHARERS and len(agreed) < 2:
            continue
        counted = [f"count {their_count:,}"] if count is not None and their_count is not None else []
        alike[iri] = [f"accelerator part {', '.join(short(p) for p in sorted(parts))}", *counted, *agreed]
    return alike


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
