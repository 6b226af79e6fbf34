"""What the server says about itself: the SPARQL Service Description at GET /sparql, the VoID description
at /.well-known/void."""

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
