"""A system's TOP500 listings as its page leads with them: rank and Rmax per edition, the latest and the peak,
and how many lists it was in, said with the lists the imports lack.

TOP500 publishes a list every June and November since June 1993. A system listed from 2022-06 to 2025-06 was in
the seven lists of that span unless it dropped out; when the configured files lack two of them (2022-11 and
2023-11 on the full import), "listed in 5 editions" would read as a fact about the machine. `span_text` says
both: the editions it is listed in here, the lists of its span, and those not imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpckg.claims import Claim
from hpckg.namespaces import hpc
from hpckg.page.claims import Formatter, select
from hpckg.page.model import Listing

if TYPE_CHECKING:
    from hpckg.store import GraphStore

LIST_MONTHS = ("06", "11")  # the months TOP500 publishes its lists in


def listings(claims: list[Claim], formatter: Formatter) -> list[Listing]:
    """The system's listings, oldest first, from its rank and Rmax claims that carry an edition."""
    found: dict[str, Listing] = {}
    for claim in claims:
        if not claim.edition or claim.property not in (hpc("listRank"), hpc("rmax")):
            continue
        date = claim.date[:7]
        listing = found.setdefault(claim.edition, Listing(date, formatter.name(claim.edition)))
        if claim.property == hpc("listRank") and isinstance(claim.value, int):
            listing.rank = claim.value
        elif claim.property == hpc("rmax"):
            listing.rmax = formatter.figure(claim)
    return sorted((listing for listing in found.values() if listing.rank is not None), key=lambda found: found.date)


def imported_editions(store: GraphStore) -> list[str]:
    """The dates (YYYY-MM) of the TOP500 editions the store holds."""
    rows = select(store, "SELECT DISTINCT ?issued WHERE { ?e a hpc:ListEdition ; dcterms:issued ?issued }")
    return sorted(str(row["issued"])[:7] for row in rows)


def lists_between(first: str, last: str) -> list[str]:
    """The TOP500 lists published from `first` to `last` (YYYY-MM), both included."""
    return [f"{year}-{month}" for year in range(int(first[:4]), int(last[:4]) + 1) for month in LIST_MONTHS
            if first <= f"{year}-{month}" <= last]


def span_text(listed: list[str], imported: list[str]) -> str:
    """'listed in 5 TOP500 editions from 2022-06 to 2025-06, of the 7 lists published in that span (2022-11 and
    2023-11 are not in the imported files)'; the plain count when every list of the span is imported."""
    if not listed:
        return "not listed in any imported TOP500 edition"
    first, last = min(listed), max(listed)
    count = f"listed in {len(listed)} TOP500 edition{'s' if len(listed) != 1 else ''}"
    if first == last:
        return f"{count}, {first}"
    span = lists_between(first, last)
    missing = [date for date in span if date not in set(imported)] if imported else []
    if not missing:
        return f"{count} from {first} to {last}"
    names = " and ".join([", ".join(missing[:-1]), missing[-1]] if len(missing) > 1 else missing)
    verb = "is" if len(missing) == 1 else "are"
    return (f"{count} from {first} to {last}, of the {len(span)} lists published in that span ({names} {verb} "
            "not in the imported files)")
