"""IRIs every module shares: the ontology namespace, entity and graph IRI builders, SPARQL prefixes."""

from __future__ import annotations

import re
from urllib.parse import quote

ONTOLOGY = "https://w3id.org/hpckg/ontology#"
BASE = "https://w3id.org/hpckg/"
ID = BASE + "id/"
VOCAB = BASE + "vocab/"
GRAPH = BASE + "graph/"

# The named graph that holds the derived facts the build materialises (truthy triples, derived claims).
DERIVED_GRAPH = GRAPH + "derived"
THIS_DATASET = BASE + "dataset"  # the graph hpckg serves, as its VoID/DCAT description names it
# The named graph that holds the dataset description and the build's own provenance.
META_GRAPH = GRAPH + "meta"

# Entity kinds: the first path segment of an entity IRI and the Turtle prefix used for it.
ENTITY_KINDS = {
    "system": "sys",
    "site": "site",
    "org": "orgn",
    "part": "part",
    "component": "cmp",
    "source": "src",
    "claim": "claim",
    "check": "chk",
    "change": "chg",
    "country": "country",
    "dataset": "ds",
    "activity": "act",
    "software": "sw",
    "input": "input",  # a file an importer read, named by its SHA-256
    "reference": "ref",  # where in a source a claim was read (hpc:Reference)
    "entry": "entry",  # one system's row in one list edition (hpc:ListEntry, queries/rules/14-list-entries.rq)
}

VOCABULARIES = ("tier", "basis", "precision", "rank", "status", "kind", "role", "source-kind",
                "check-result", "org-type", "deprecation-reason")

PREFIXES: dict[str, str] = {
    "hpc": ONTOLOGY,
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "prov": "http://www.w3.org/ns/prov#",
    "dcterms": "http://purl.org/dc/terms/",
    "schema": "https://schema.org/",
    "org": "http://www.w3.org/ns/org#",
    "sh": "http://www.w3.org/ns/shacl#",
    "void": "http://rdfs.org/ns/void#",
    "dcat": "http://www.w3.org/ns/dcat#",
    **{prefix: f"{ID}{kind}/" for kind, prefix in ENTITY_KINDS.items()},
    **{name.replace("-", ""): f"{VOCAB}{name}/" for name in VOCABULARIES},
}


def hpc(local: str) -> str:
    """The IRI of an ontology term."""
    return ONTOLOGY + local


def entity(kind: str, slug: str) -> str:
    """The IRI of an entity minted by hpckg, such as entity('system', 'kalos')."""
    if kind not in ENTITY_KINDS:
        raise ValueError(f"unknown entity kind {kind!r}; expected one of {', '.join(ENTITY_KINDS)}")
    return f"{ID}{kind}/{slug}"


def graph_for(relative_path: str) -> str:
    """The named graph a source file is loaded into: its path relative to the project root, percent-encoded
    where a file name holds characters an IRI may not (a space, braces)."""
    return GRAPH + quote(relative_path.replace("\\", "/"), safe="/!$&'()*+,;=:@-._~")


def dataset_of(graph: str) -> str:
    """"top500", "epoch-clusters", … for an import's graph (graph/import/<importer>/…); "curated" for a file
    people wrote."""
    imports = GRAPH + "import/"
    if graph.startswith(imports):
        return graph[len(imports):].split("/", 1)[0]
    return "curated"


def sparql_prefixes() -> str:
    """PREFIX declarations for every prefix above, for inline queries."""
    return "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items())


def shorten(iri: str) -> str:
    """Write an IRI with the project's prefixes (sys:kalos rather than the full IRI)."""
    best, name = "", ""
    for prefix, ns in PREFIXES.items():
        if iri.startswith(ns) and len(ns) > len(best):
            best, name = ns, prefix
    return f"{name}:{iri[len(best):]}" if best else iri


def software_slug(version: str | None = None) -> str:
    """The slug of one version of hpckg as a software agent: 'hpckg-0-1-0' (a slug has no dots)."""
    from hpckg import __version__

    return "hpckg-" + re.sub(r"[^a-z0-9]+", "-", (version or __version__).lower()).strip("-")
