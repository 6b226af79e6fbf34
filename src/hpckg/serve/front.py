"""The home page's figures: the newest TOP500 list's top ten, what the dataset holds (machines, lists, AI
clusters, data centers, claims by tier) and what the latest build brought in (its imports, newest first, and
the newest change entries). A few grouped queries on the whole graph (about a second on the full import),
made once per store generation (hpckg.serve.precompute) and kept on disk with the generation's other figures:
everything here is plain data (JSON), read back as it was written.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from hpckg import numbers
from hpckg.namespaces import BASE
from hpckg.serve import urls
from hpckg.serve.editions import select

if TYPE_CHECKING:
    from hpckg.store import GraphStore

TOP = 10
CLUSTER_GRAPHS = "https://w3id.org/hpckg/graph/import/epoch-clusters/"  # Epoch AI's GPU clusters import
IMPORTS_SHOWN = 5
CHANGES_SHOWN = 5


@dataclass
class Entry:
    """One machine of the newest list's top ten."""
    rank: int
    name: str
    page: str | None
    site: str = ""
    site_page: str | None = None
    country: str = ""
    rmax_tflops: float | None = None


@dataclass
class Event:
    """One thing the build brought in: an import of a file, or a change entry about an entity."""
    date: str
    text: str
    page: str | None = None


@dataclass
class Front:
    edition: str | None  # the newest TOP500 edition (YYYY-MM), None without TOP500 data
    top: list[Entry] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # machines, sites, data centers, ... (see read)
    editions: tuple[str, str, int] | None = None  # first, last, how many TOP500 editions
    tiers: list[tuple[str, str, int]] = field(default_factory=list)  # (tier slug, label, claims) weakest first
    imports: list[Event] = field(default_factory=list)
    changes: list[Event] = field(default_factory=list)
    built: str = ""  # when the newest import ended (the build's data as of)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Front:
        return cls(edition=data["edition"], top=[Entry(**e) for e in data["top"]], counts=data["counts"],
                   editions=tuple(data["editions"]) if data["editions"] else None,  # type: ignore[arg-type]
                   tiers=[tuple(t) for t in data["tiers"]],  # type: ignore[misc]
                   imports=[Event(**e) for e in data["imports"]], changes=[Event(**e) for e in data["changes"]],
                   built=data["built"])


CLASSES = {"hpc:System": "machines", "hpc:Site": "sites", "hpc:Datacenter": "data centers",
           "hpc:Organisation": "organisations", "hpc:PartModel": "part models", "hpc:Source": "sources",
           "hpc:Claim": "claims"}


def read(store: GraphStore, newest_rows: list[dict[str, object]], edition: str | None,
         base_iri: str = BASE) -> Front:
    """The home page's figures; `newest_rows`: the newest edition's list (hpckg.serve.editions.edition_rows)."""
    front = Front(edition=edition)
    for row in newest_rows[:TOP]:
        system, site = str(row["system"]), row.get("site")
        front.top.append(Entry(rank=int(row["rank"]), name=str(row.get("name") or system.rsplit("/", 1)[-1]),  # type: ignore[call-overload]
                               page=urls.page_for_iri(system, base_iri),
                               site=str(row.get("siteLabel") or ""),
                               site_page=urls.page_for_iri(str(site), base_iri) if site else None,
                               country=str(row.get("country") or ""),
                               rmax_tflops=float(row["rmaxTflops"]) if "rmaxTflops" in row else None))  # type: ignore[arg-type]
    # One pass over the rdf:type index, grouped: every class counted at once.
    classes = ", ".join(CLASSES)
    for row in select(store, f"""SELECT ?c (COUNT(DISTINCT ?s) AS ?n) WHERE {{ ?s a ?c FILTER (?c IN ({classes})) }}
                                 GROUP BY ?c"""):
        front.counts[CLASSES["hpc:" + row["c"].value.rsplit("#", 1)[-1]]] = int(row["n"].value)
    clusters = select(store, f"""SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {{ GRAPH ?g {{ ?s a hpc:System }}
        FILTER (STRSTARTS(STR(?g), "{CLUSTER_GRAPHS}")) }}""")
    front.counts["AI clusters"] = int(clusters[0]["n"].value) if clusters else 0
    editions = select(store, """SELECT (MIN(STR(?i)) AS ?first) (MAX(STR(?i)) AS ?last) (COUNT(?e) AS ?n) WHERE {
        ?e hpc:editionOf ds:top500 ; dcterms:issued ?i }""")
    if editions and int(editions[0]["n"].value):
        front.editions = (editions[0]["first"].value, editions[0]["last"].value, int(editions[0]["n"].value))
    # Claims by tier: grouped by the tier IRI first (one index range), labelled after.
    tiers = select(store, """SELECT ?t ?label ?rank ?n WHERE {
        { SELECT ?t (COUNT(DISTINCT ?c) AS ?n) WHERE { ?c hpc:tier ?t } GROUP BY ?t }
        OPTIONAL { ?t hpc:tierRank ?rank }
        OPTIONAL { ?t skos:prefLabel ?label FILTER (LANGMATCHES(LANG(?label), "en")) } }
        ORDER BY ?rank""")
    front.tiers = [(row["t"].value.rsplit("/", 1)[-1], row["label"].value if "label" in row else
                    row["t"].value.rsplit("/", 1)[-1], int(row["n"].value)) for row in tiers]
    imports = select(store, f"""SELECT ?label ?ended WHERE {{ ?a a hpc:Import ; prov:endedAtTime ?ended ;
        rdfs:label ?label }} ORDER BY DESC(?ended) LIMIT {IMPORTS_SHOWN}""")
    front.imports = [Event(row["ended"].value[:10], row["label"].value.removeprefix("hpckg import "))
                     for row in imports]
    front.built = imports[0]["ended"].value[:10] if imports else ""
    changes = select(store, f"""SELECT ?entity ?date ?text WHERE {{ ?e a hpc:ChangeEntry ; hpc:changedEntity ?entity .
        OPTIONAL {{ ?e dcterms:date ?date }} OPTIONAL {{ ?e rdfs:comment ?text }} }}
        ORDER BY DESC(?date) ?e LIMIT {CHANGES_SHOWN}""")
    front.changes = [Event(row["date"].value if "date" in row else "", row["text"].value if "text" in row else "",
                           urls.page_for_iri(row["entity"].value, base_iri)) for row in changes]
    return front


def rmax_text(tflops: float | None) -> str:
    """An Rmax with its unit, in the unit of its size (hpckg.numbers): '1.742 EFlop/s'."""
    if tflops is None:
        return ""
    return numbers.figure(tflops, "TFlop/s")


def share_text(part: int, whole: int) -> str:
    """A share in percent, with a decimal below 10% ("1.8%", "98%")."""
    if not whole:
        return "0%"
    percent = 100 * part / whole
    return f"{percent:.1f}%" if percent < 10 else f"{percent:.0f}%"
