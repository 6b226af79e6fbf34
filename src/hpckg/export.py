"""Linked-data export: the whole dataset in any RDF format, with a VoID + DCAT description of it.

Quad formats (N-Quads, TriG) keep every named graph; triple formats merge them. The description (counts,
classes, properties, sources, licences and attributions of imported data) goes into the meta graph.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pyoxigraph as ox

from hpckg import __version__, paths
from hpckg.claims import shorten
from hpckg.formats import RDF_FORMATS, RdfFormatInfo
from hpckg.namespaces import ID, META_GRAPH, ONTOLOGY, PREFIXES, THIS_DATASET
from hpckg.store import AnyStore, Store
from hpckg.terms import DCTERMS, PROV, RDF_TYPE, SKOS, XSD_DATE_TIME, XSD_INTEGER

DATASET = THIS_DATASET
VOID = PREFIXES["void"]
DCAT = PREFIXES["dcat"]
LICENCE = "https://www.apache.org/licenses/LICENSE-2.0"
VOCABULARIES_USED = [ONTOLOGY, PROV, SKOS, DCTERMS, PREFIXES["schema"], PREFIXES["org"]]


def _n(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


def _int(value: int) -> ox.Literal:
    return ox.Literal(str(value), datatype=_n(XSD_INTEGER))


def _count(store: AnyStore, where: str) -> int:
    return int(next(iter(store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ {where} }}")))["n"].value)


def describe(store: AnyStore, *, endpoint: str | None = None) -> list[ox.Triple]:
    """A VoID + DCAT description of everything in the store except the meta graph itself."""
    ds = _n(DATASET)
    now = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    triples = [
        ox.Triple(ds, _n(RDF_TYPE), _n(VOID + "Dataset")),
        ox.Triple(ds, _n(RDF_TYPE), _n(DCAT + "Dataset")),
        ox.Triple(ds, _n(DCTERMS + "title"), ox.Literal("hpckg", language="en")),
        ox.Triple(ds, _n(DCTERMS + "description"), ox.Literal(
            "The knowledge graph of the world's supercomputers and AI training clusters: systems, operators, "
            "sites, parts, suppliers and sourced claims with confidence tiers.", language="en")),
        ox.Triple(ds, _n(DCTERMS + "license"), _n(LICENCE)),
        ox.Triple(ds, _n(DCTERMS + "modified"), ox.Literal(now, datatype=_n(XSD_DATE_TIME))),
        ox.Triple(ds, _n(VOID + "uriSpace"), ox.Literal(ID)),
        ox.Triple(ds, _n(PROV + "wasGeneratedBy"), _n(ID + "software/hpckg")),
        ox.Triple(ds, _n(DCTERMS + "hasVersion"), ox.Literal(__version__)),
    ]
    if endpoint:
        triples.append(ox.Triple(ds, _n(VOID + "sparqlEndpoint"), _n(endpoint)))
    triples += [ox.Triple(ds, _n(VOID + "vocabulary"), _n(v)) for v in VOCABULARIES_USED]
    not_meta = f"FILTER(?g != <{META_GRAPH}>)"
    triples += [
        ox.Triple(ds, _n(VOID + "triples"), _int(_count(store, f"GRAPH ?g {{ ?s ?p ?o }} {not_meta}"))),
        ox.Triple(ds, _n(VOID + "entities"), _int(_count(
            store, f"SELECT DISTINCT ?s WHERE {{ GRAPH ?g {{ ?s ?p ?o }} {not_meta} "
                   f"FILTER(STRSTARTS(STR(?s), \"{ID}\")) }}"))),
        ox.Triple(ds, _n(VOID + "distinctSubjects"), _int(_count(
            store, f"SELECT DISTINCT ?s WHERE {{ GRAPH ?g {{ ?s ?p ?o }} {not_meta} }}"))),
    ]
    classes = store.query(f"SELECT ?c (COUNT(DISTINCT ?s) AS ?n) WHERE {{ GRAPH ?g {{ ?s a ?c }} {not_meta} }}"
                          " GROUP BY ?c ORDER BY ?c")
    class_rows = [(row["c"], int(row["n"].value)) for row in classes if isinstance(row["c"], ox.NamedNode)]
    triples.append(ox.Triple(ds, _n(VOID + "classes"), _int(len(class_rows))))
    for cls, n in class_rows:
        part = _n(f"{DATASET}/class/{_local(cls.value)}")
        triples += [ox.Triple(ds, _n(VOID + "classPartition"), part),
                    ox.Triple(part, _n(VOID + "class"), cls), ox.Triple(part, _n(VOID + "entities"), _int(n))]
    props = store.query(f"SELECT ?p (COUNT(*) AS ?n) WHERE {{ GRAPH ?g {{ ?s ?p ?o }} {not_meta} }}"
                        " GROUP BY ?p ORDER BY ?p")
    prop_rows = [(row["p"], int(row["n"].value)) for row in props]
    triples.append(ox.Triple(ds, _n(VOID + "properties"), _int(len(prop_rows))))
    for prop, n in prop_rows:
        part = _n(f"{DATASET}/property/{_local(prop.value)}")
        triples += [ox.Triple(ds, _n(VOID + "propertyPartition"), part),
                    ox.Triple(part, _n(VOID + "property"), prop), ox.Triple(part, _n(VOID + "triples"), _int(n))]
    for graph in store.named_graphs():
        if graph == META_GRAPH:
            continue
        n = _count(store, f"GRAPH <{graph}> {{ ?s ?p ?o }}")
        triples += [ox.Triple(ds, _n(VOID + "subset"), _n(graph)),
                    ox.Triple(_n(graph), _n(RDF_TYPE), _n(VOID + "Dataset")),
                    ox.Triple(_n(graph), _n(VOID + "triples"), _int(n))]
    for row in store.query("SELECT DISTINCT ?s WHERE { ?s a hpc:Source }"):
        triples.append(ox.Triple(ds, _n(DCTERMS + "source"), row["s"]))
    # Imported or described public datasets: their licence and how they must be cited travel with ours.
    for row in store.query("""
            SELECT ?d ?licence ?citation WHERE {
              ?d a hpc:Dataset . OPTIONAL { ?d dcterms:license ?licence }
              OPTIONAL { ?d dcterms:bibliographicCitation ?citation } }"""):
        triples.append(ox.Triple(ds, _n(PROV + "wasDerivedFrom"), row["d"]))
        if row["licence"] is not None:
            triples.append(ox.Triple(row["d"], _n(DCTERMS + "license"), row["licence"]))
        if row["citation"] is not None:
            triples.append(ox.Triple(row["d"], _n(DCTERMS + "bibliographicCitation"), row["citation"]))
    for fmt in RDF_FORMATS.values():
        dist = _n(f"{DATASET}/dump.{fmt.extension}")
        triples += [ox.Triple(ds, _n(DCAT + "distribution"), dist),
                    ox.Triple(dist, _n(RDF_TYPE), _n(DCAT + "Distribution")),
                    ox.Triple(dist, _n(DCAT + "mediaType"), ox.Literal(fmt.media_type)),
                    ox.Triple(dist, _n(DCTERMS + "format"), ox.Literal(fmt.label)),
                    ox.Triple(dist, _n(DCTERMS + "license"), _n(LICENCE))]
    return triples


def _local(iri: str) -> str:
    """A path segment naming a class or property in the description: hpc:System -> hpc-System."""
    short = shorten(iri)
    if short != iri:
        return short.replace(":", "-", 1).replace("/", "-")
    return "".join(c if c.isalnum() else "-" for c in iri)


def refresh_description(store: AnyStore, *, endpoint: str | None = None) -> int:
    """Replace the meta graph with a fresh description of the store."""
    triples = describe(store, endpoint=endpoint)
    store.drop_graph(META_GRAPH)
    return store.load_quads((ox.Quad(t.subject, t.predicate, t.object) for t in triples), graph=META_GRAPH)


def serialize_dataset(store: AnyStore, format: RdfFormatInfo) -> bytes:
    """The whole store in one format; triple formats merge the named graphs (duplicates removed)."""
    quads = list(store.quads())
    if format.is_quad:
        return ox.serialize(quads, format=format.oxigraph)
    triples = list(dict.fromkeys(q.triple for q in quads))
    prefixes = PREFIXES if format.name in ("ttl", "trig") else None
    if prefixes:
        return ox.serialize(triples, format=format.oxigraph, prefixes=prefixes)
    return ox.serialize(triples, format=format.oxigraph)


def export(store: AnyStore, *, format: RdfFormatInfo, out: Path | None = None,
           endpoint: str | None = None) -> bytes | None:
    """Describe the dataset in its meta graph, then write it to `out` (or return the bytes).

    A store on disk is left as it is (readers open it read-only, and the build owns it): the description
    is added to an in-memory copy."""
    if isinstance(store, Store) and store.path is not None:
        copy = Store(None)
        copy.load_quads(store.quads())
        store = copy
    refresh_description(store, endpoint=endpoint)
    data = serialize_dataset(store, format)
    if out is None:
        return data
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".partial")
    tmp.write_bytes(data)
    tmp.replace(out)
    return None


def jsonld_context() -> dict:
    """The JSON-LD context for hpckg data, generated from the ontology (the one source of truth):
    every prefix, and a term for every ontology property (object properties typed @id)."""
    store = ox.Store()
    for path in sorted(paths.ontology_dir().glob("*.ttl")):
        store.load(path=str(path), format=ox.RdfFormat.TURTLE)
    context: dict[str, object] = {"@version": 1.1}
    context.update({prefix: iri for prefix, iri in PREFIXES.items()})
    rows = store.query(f"""
        SELECT ?p (SAMPLE(?isObject) AS ?object) (SAMPLE(?range) AS ?r) WHERE {{
          ?p a ?kind . FILTER(STRSTARTS(STR(?p), "{ONTOLOGY}"))
          VALUES ?kind {{ <http://www.w3.org/2002/07/owl#ObjectProperty>
                          <http://www.w3.org/2002/07/owl#DatatypeProperty>
                          <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property>
                          <http://www.w3.org/2002/07/owl#AnnotationProperty> }}
          BIND(?kind = <http://www.w3.org/2002/07/owl#ObjectProperty> AS ?isObject)
          OPTIONAL {{ ?p <http://www.w3.org/2000/01/rdf-schema#range> ?range }}
        }} GROUP BY ?p ORDER BY ?p""")
    for row in rows:
        name = row["p"].value[len(ONTOLOGY):]
        term: dict[str, str] = {"@id": f"hpc:{name}"}
        is_object = row["object"] is not None and row["object"].value == "true"
        if is_object:
            term["@type"] = "@id"
        context[name] = term
    return {"@context": context}


def jsonld_context_text() -> str:
    return json.dumps(jsonld_context(), indent=2, ensure_ascii=False) + "\n"
