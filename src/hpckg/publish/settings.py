"""Who publishes the dataset and where: the values a DCAT-AP description needs that the graph does not hold.

They come from the project's `[publisher]` table (`[tool.hpckg.publisher]` in pyproject.toml), each key
optional, with these defaults:

    [publisher]
    name     = "hpckg project"                 # dct:publisher's foaf:name, the contact point's vcard:fn
    homepage = "https://w3id.org/hpckg/"        # the publisher's foaf:homepage, the contact point's URL
    site     = "https://w3id.org/hpckg/"        # where the dataset is served: landing page, dumps, endpoint
    type     = "NonProfitOrganisation"          # a concept of http://purl.org/adms/publishertype/1.0
    email    = ""                               # the contact point's vcard:hasEmail; none when empty
    keywords = "supercomputer, HPC, TOP500, AI training cluster, knowledge graph"
    issued   = "2026-11-29"                     # when the dataset was first published (the catalogue's dct:issued)
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, fields

from hpckg.errors import InputError

PUBLISHER_TYPES = ("Academia-ScientificOrganisation", "Company", "IndustryConsortium", "LocalAuthority",
                   "NationalAuthority", "NonGovernmentalOrganisation", "NonProfitOrganisation",
                   "PrivateIndividual(s)", "RegionalAuthority", "StandardisationBody", "SupraNationalAuthority")


@dataclass(frozen=True)
class PublisherSettings:
    name: str = "hpckg project"
    homepage: str = "https://w3id.org/hpckg/"
    site: str = "https://w3id.org/hpckg/"
    type: str = "NonProfitOrganisation"
    email: str = ""
    keywords: str = "supercomputer, HPC, TOP500, AI training cluster, knowledge graph"
    issued: str = "2026-11-29"

    @property
    def keyword_list(self) -> list[str]:
        return [word.strip() for word in self.keywords.split(",") if word.strip()]

    def url(self, path: str) -> str:
        """An absolute URL on the site: url("dumps/") -> https://w3id.org/hpckg/dumps/."""
        return self.site.rstrip("/") + "/" + path.lstrip("/")


def publisher_settings(table: dict[str, str]) -> PublisherSettings:
    """The settings of a `[publisher]` table (a project's: Project.publisher)."""
    known = {f.name for f in fields(PublisherSettings)}
    unknown = set(table) - known
    if unknown:
        raise InputError(f"[publisher]: unknown setting(s) {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(sorted(known))}")
    settings = PublisherSettings(**table)
    if settings.type not in PUBLISHER_TYPES:
        raise InputError(f"[publisher] type = {settings.type!r}: not a publisher type of "
                         f"http://purl.org/adms/publishertype/1.0; one of {', '.join(PUBLISHER_TYPES)}")
    try:
        dt.date.fromisoformat(settings.issued)
    except ValueError:
        raise InputError(f"[publisher] issued = {settings.issued!r}: not a date (YYYY-MM-DD)") from None
    return settings
