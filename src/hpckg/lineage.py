"""Organisations over time: whose was a company or business line on a given date.

Today's parent is materialised by the build (`hpc:rollsUpTo`, queries/rules/20-rollup.rq). The parent at a
date needs the dated lineage claims themselves (docs/decisions/20261130-claims-over-time-identity-references.md):
each `hpc:acquiredBy`, `hpc:renamedTo` or `hpc:parentOrganisation` claim took effect at its hpc:startTime
(else hpc:asOf) and, when it has an hpc:endTime, stopped then. On a date, an organisation's next step is the
claim in force (started on or before the date, not yet ended), preferred first, then the latest started;
the chain is followed until no claim is in force. Deprecated and machine-generated claims never count.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from hpckg.namespaces import VOCAB, hpc

if TYPE_CHECKING:
    from hpckg.store import GraphStore

LINEAGE_PROPERTIES = ("acquiredBy", "renamedTo", "parentOrganisation")


def date_key(date: object) -> str:
    """A comparable yyyy-mm-dd text of a date, an xsd:date/gYearMonth/gYear text or "2010-06": a year is
    its first day, a month its first day."""
    text = (date.isoformat() if isinstance(date, dt.date) else str(date))[:10]
    parts = text.split("-")
    while len(parts) < 3:
        parts.append("01")
    return "-".join(parts)


def lineage_steps(store: GraphStore) -> dict[str, list[tuple[str, str, str | None, bool]]]:
    """Every organisation's lineage claims as (successor, start key, end key or None, preferred)."""
    steps: dict[str, list[tuple[str, str, str | None, bool]]] = {}
    props = " ".join(f"<{hpc(p)}>" for p in LINEAGE_PROPERTIES)
    for row in store.query(f"""
        SELECT ?org ?next ?start ?asOf ?end ?rank WHERE {{
          VALUES ?property {{ {props} }}
          ?claim hpc:about ?org ; hpc:property ?property ; hpc:value ?next .
          OPTIONAL {{ ?claim hpc:startTime ?start }} OPTIONAL {{ ?claim hpc:asOf ?asOf }}
          OPTIONAL {{ ?claim hpc:endTime ?end }} OPTIONAL {{ ?claim hpc:rank ?rank }}
          OPTIONAL {{ ?claim hpc:basis ?basis }}
          FILTER (!BOUND(?rank) || ?rank != rank:deprecated)
          FILTER (!BOUND(?basis) || ?basis != basis:machine-generated)
        }}"""):
        start = row["start"] or row["asOf"]
        steps.setdefault(row["org"].value, []).append((
            row["next"].value, date_key(start.value) if start is not None else "0000-01-01",
            date_key(row["end"].value) if row["end"] is not None else None,
            row["rank"] is not None and row["rank"].value == VOCAB + "rank/preferred"))
    return steps


def parent_at(store: GraphStore, org: str, date: str | dt.date, *, steps=None) -> str:
    """The organisation `org` (an IRI) belonged to on `date` ("2010", "2010-06", "2010-06-30" or a date):
    the end of its chain of lineage claims in force on that date; `org` itself when none was."""
    steps = lineage_steps(store) if steps is None else steps
    when = date_key(date)
    current, seen = org, {org}
    while True:
        in_force = [(preferred, start, successor) for successor, start, end, preferred in steps.get(current, [])
                    if start <= when and (end is None or when < end)]
        if not in_force:
            return current
        successor = max(in_force)[2]
        if successor in seen:  # a loop is a data error; stop where it closes
            return current
        seen.add(successor)
        current = successor
