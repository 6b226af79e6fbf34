"""One machine, one page (docs/decisions/20261204-one-machine-one-page.md): the records linked to a system by
hpc:sameMachineAs, which of them is the machine's page, and what the others say on it.

Records keep their IRIs; nothing is merged. A link of tier reported or better (and not machine-generated)
makes two records one machine: the machine's page is the curated record, else the TOP500 record, else the
smallest IRI, and it shows what every linked record says, each under its dataset; the other records' pages
point to it. A lead shows as "may be the same machine as …" and changes nothing else. Search (hpckg.serve.
search) and lists use `machine_pages` to show each machine once with the same choice.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hpckg.claims import Claim, labels
from hpckg.namespaces import dataset_of, hpc
from hpckg.page.claims import Formatter, select, source_link
from hpckg.page.model import Link, SameMachine, SourceLink
from hpckg.terms import BASIS_MACHINE_GENERATED
from hpckg.values import Iri

if TYPE_CHECKING:
    from hpckg.store import GraphStore

SAME_MACHINE = hpc("sameMachineAs")
DATASET_NAMES = {"top500": "TOP500", "epoch-clusters": "Epoch AI", "curated": "hpckg's curated data"}
PAGE_ORDER = ("curated", "top500")  # whose record is the machine's page; other datasets after, by IRI
CONFIRMED_TIERS = ("https://w3id.org/hpckg/vocab/tier/reported", "https://w3id.org/hpckg/vocab/tier/verified")

# The links of one system, either direction, with what the page shows of each (starts from the system: two
# index seeks, then the few link claims).
LINKS = """
SELECT ?claim ?about ?other ?g ?tier ?basis ?note ?source ?url ?title ?name ?label WHERE {
  { ?claim hpc:about <%(iri)s> ; hpc:value ?other BIND (<%(iri)s> AS ?about) }
  UNION { ?claim hpc:value <%(iri)s> ; hpc:about ?other BIND (?other AS ?about) }
  ?claim hpc:property hpc:sameMachineAs ; hpc:tier ?tier .
  FILTER NOT EXISTS { ?claim hpc:rank rank:deprecated }
  GRAPH ?g { ?other a hpc:System }
  OPTIONAL { ?claim hpc:basis ?basis }
  OPTIONAL { ?claim skos:note ?note }
  OPTIONAL { ?claim prov:hadPrimarySource ?source
             OPTIONAL { ?source schema:url ?url } OPTIONAL { ?source dcterms:title ?title } }
  OPTIONAL { ?other hpc:name ?name }
  OPTIONAL { ?other rdfs:label ?label }
}"""
# Every link that makes two records one machine, for search and lists (one pass over the link claims).
# FILTER IN, not VALUES: Oxigraph started from VALUES, i.e. from every reported claim (23 s on the full
# graph against 0.06 s).
CONFIRMED = """
SELECT DISTINCT ?a ?b ?ga ?gb WHERE {
  ?claim hpc:property hpc:sameMachineAs ; hpc:tier ?tier ; hpc:about ?a ; hpc:value ?b .
  FILTER (?tier IN (tier:reported, tier:verified))
  FILTER NOT EXISTS { ?claim hpc:rank rank:deprecated }
  FILTER NOT EXISTS { ?claim hpc:basis basis:machine-generated }
  GRAPH ?ga { ?a a hpc:System } GRAPH ?gb { ?b a hpc:System }
}"""


def dataset_of_graphs(graphs: Iterable[str]) -> str:
    """A record's dataset: "curated" when a person's file declares it, else the import's."""
    datasets = sorted({dataset_of(g) for g in graphs})
    return "curated" if "curated" in datasets else (datasets[0] if datasets else "curated")


def page_key(iri: str, dataset: str) -> tuple[int, str]:
    return (PAGE_ORDER.index(dataset) if dataset in PAGE_ORDER else len(PAGE_ORDER), iri)


def machine_page(records: dict[str, str]) -> str:
    """The record whose page is the machine's, of records (IRI -> dataset) that are one machine."""
    return min(records, key=lambda iri: page_key(iri, records[iri]))


def confirmed(tier: str | None, basis: str | None) -> bool:
    return tier in CONFIRMED_TIERS and basis != BASIS_MACHINE_GENERATED


def read_same_machine(store: GraphStore, iri: str, formatter: Formatter) -> tuple[str, list[SameMachine]]:
    """This record's dataset (from its graphs) and its links, confirmed ones first, each with its claim's
    tier, basis, note and sources."""
    first_rows: dict[str, dict[str, object]] = {}  # claim -> its first row
    notes: dict[str, list[str]] = defaultdict(list)
    sources: dict[str, dict[str, SourceLink]] = defaultdict(dict)
    others: dict[str, tuple[str, str]] = {}  # claim -> (other record, its title)
    graphs: dict[str, set[str]] = defaultdict(set)
    for row in select(store, LINKS % {"iri": iri}):
        claim_iri, other = str(row["claim"]), str(row["other"])
        if claim_iri not in first_rows:
            first_rows[claim_iri] = row
            others[claim_iri] = (other, str(row.get("name") or row.get("label") or other.rsplit("/", 1)[-1]))
        graphs[other].add(str(row["g"]))
        if row.get("note") and str(row["note"]) not in notes[claim_iri]:
            notes[claim_iri].append(str(row["note"]))
        if row.get("source"):
            sources[claim_iri].setdefault(str(row["source"]), source_link(
                str(row["source"]), _opt(row.get("url")), _opt(row.get("title"))))
    claims = {claim_iri: Claim(iri=claim_iri, about=str(row["about"]), property=SAME_MACHINE,
                               value=Iri(others[claim_iri][0] if str(row["about"]) == iri else iri),
                               tier=str(row["tier"]), basis=_opt(row.get("basis")),
                               note=" ".join(notes[claim_iri]) or None,
                               sources=tuple(sources[claim_iri]))
              for claim_iri, row in first_rows.items()}
    formatter.sources.update({claim_iri: tuple(found.values()) for claim_iri, found in sources.items()})
    # the link claims' bases are not among the labels the page read for its own claims
    bases = {claim.basis for claim in claims.values() if claim.basis and claim.basis not in formatter.names}
    formatter.names.update(labels(store, bases))
    typed = f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ <{iri}> a hpc:System }} }}"
    own = [str(row["g"]) for row in select(store, typed)]
    found: dict[str, SameMachine] = {}
    for claim_iri, claim in sorted(claims.items()):
        other, title = others[claim_iri]
        link = SameMachine(record=Link(title, other), dataset=dataset_of_graphs(graphs[other]),
                           figure=formatter.figure(claim), confirmed=confirmed(claim.tier, claim.basis))
        # Two claims may link one pair (the matcher's lead and a dataset's citation): the surer one is shown.
        kept = found.get(other)
        if kept is None or (link.confirmed and not kept.confirmed):
            found[other] = link
    links = sorted(found.values(), key=lambda s: (not s.confirmed, page_key(s.record.href or "", s.dataset)))
    return dataset_of_graphs(own), links


@dataclass(frozen=True)
class OneMachine:
    """Records that are one machine: the one whose page is the machine's, and every record's dataset key."""

    page: str
    records: dict[str, str]

    def others(self, iri: str) -> list[tuple[str, str]]:
        """(record, dataset name) of the machine's records other than `iri`, the machine's page first."""
        return [(r, DATASET_NAMES.get(d, d)) for r, d in sorted(self.records.items(), key=lambda i: page_key(*i))
                if r != iri]


def machine_pages(store: GraphStore) -> dict[str, OneMachine]:
    """Every record that is one machine with another, with that machine's records: the record and those it is
    linked to by links that make them one machine. The machine's page is chosen among them (PAGE_ORDER), the
    choice its page makes (read_same_machine)."""
    graphs: dict[str, set[str]] = defaultdict(set)
    linked: dict[str, set[str]] = defaultdict(set)
    for row in store.query(CONFIRMED):
        a, b = row["a"].value, row["b"].value
        if a == b:
            continue
        linked[a].add(b)
        linked[b].add(a)
        graphs[a].add(row["ga"].value)
        graphs[b].add(row["gb"].value)
    dataset = {iri: dataset_of_graphs(found) for iri, found in graphs.items()}
    machines = {}
    for iri, others in linked.items():
        records = {r: dataset[r] for r in {iri, *others}}
        machines[iri] = OneMachine(machine_page(records), records)
    return machines


def _opt(value: object) -> str | None:
    return None if value is None else str(value)
