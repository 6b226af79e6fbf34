"""What the server says about itself: the SPARQL Service Description at GET /sparql, the VoID description
at /.well-known/void, and the dataset statistics on the home page."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyoxigraph as ox

from hpckg.formats import RESULTS_FORMATS
from hpckg.namespaces import PREFIXES
from hpckg.terms import RDF_TYPE

if TYPE_CHECKING:
    from hpckg.store import GraphStore

SD = "http://www.w3.org/ns/sparql-service-description#"
FORMATS = "http://www.w3.org/ns/formats/"
VOID = PREFIXES["void"]
FORMAT_IRIS = {"json": "SPARQL_Results_JSON", "xml": "SPARQL_Results_XML", "csv": "SPARQL_Results_CSV",
               "tsv": "SPARQL_Results_TSV", "ttl": "Turtle", "nt": "N-Triples", "jsonld": "JSON-LD"}

COUNTED = {"systems": "hpc:System", "sites": "hpc:Site", "organisations": "hpc:Organisation",
           "part models": "hpc:PartModel", "sources": "hpc:Source", "claims": "hpc:Claim",
           "derived claims": "hpc:DerivedClaim", "source checks": "hpc:SourceCheck"}


def statistics(store: GraphStore) -> dict[str, int]:
    """Counts for the home page: triples, named graphs, entities by class, claims by tier."""
    stats = {"triples": store.triple_count(), "named graphs": len(store.named_graphs())}
    for name, cls in COUNTED.items():
        row = next(iter(store.query(f"SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {{ ?s a {cls} }}")))
        stats[name] = int(row["n"].value)
    for row in store.query("""SELECT ?label (COUNT(DISTINCT ?c) AS ?n) WHERE {
            ?c a hpc:Claim ; hpc:tier ?t . ?t skos:prefLabel ?label ; hpc:tierRank ?r
            FILTER(LANG(?label) = "en" || LANG(?label) = "") } GROUP BY ?label ?r ORDER BY DESC(?r)"""):
        stats[f"{row['label'].value} claims"] = int(row["n"].value)
    return stats


def _n(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


def service_description(endpoint: str, store: GraphStore, settings) -> list[ox.Triple]:
    """A SPARQL 1.1 Service Description (sd: vocabulary) of this endpoint."""
    service, dataset, default = _n(endpoint), ox.BlankNode("dataset"), ox.BlankNode("default")
    triples = [
        ox.Triple(service, _n(RDF_TYPE), _n(SD + "Service")),
        ox.Triple(service, _n(SD + "endpoint"), service),
        ox.Triple(service, _n(SD + "supportedLanguage"), _n(SD + "SPARQL11Query")),
        ox.Triple(service, _n(SD + "feature"), _n(SD + "UnionDefaultGraph")),
        ox.Triple(service, _n(SD + "defaultDataset"), dataset),
        ox.Triple(dataset, _n(RDF_TYPE), _n(SD + "Dataset")),
        ox.Triple(dataset, _n(SD + "defaultGraph"), default),
        ox.Triple(default, _n(RDF_TYPE), _n(SD + "Graph")),
        ox.Triple(default, _n(VOID + "triples"), ox.Literal(str(store.triple_count()),
                                                             datatype=_n("http://www.w3.org/2001/XMLSchema#integer"))),
    ]
    if settings.update_token is not None:
        triples.append(ox.Triple(service, _n(SD + "supportedLanguage"), _n(SD + "SPARQL11Update")))
    if settings.allow_service:
        triples.append(ox.Triple(service, _n(SD + "feature"), _n(SD + "BasicFederatedQuery")))
    for name in RESULTS_FORMATS:
        triples.append(ox.Triple(service, _n(SD + "resultFormat"), _n(FORMATS + FORMAT_IRIS[name])))
    for name in ("ttl", "nt", "jsonld", "RDF_XML"):
        triples.append(ox.Triple(service, _n(SD + "resultFormat"), _n(FORMATS + FORMAT_IRIS.get(name, name))))
    for index, graph in enumerate(store.named_graphs()):
        named = ox.BlankNode(f"g{index}")
        triples += [ox.Triple(dataset, _n(SD + "namedGraph"), named),
                    ox.Triple(named, _n(RDF_TYPE), _n(SD + "NamedGraph")),
                    ox.Triple(named, _n(SD + "name"), _n(graph))]
    return triples
