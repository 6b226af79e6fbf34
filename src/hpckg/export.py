"""Linked-data export: the whole dataset in any RDF format, with a VoID + DCAT-AP description of it.

Quad formats (N-Quads, TriG) keep every named graph; triple formats merge them. The description
(hpckg.publish.description: counts, classes, properties, sources, licences and attributions of imported
data, publisher, coverage) goes into the meta graph.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pyoxigraph as ox

from hpckg.errors import InputError
from hpckg.formats import RdfFormatInfo
from hpckg.namespaces import META_GRAPH, ONTOLOGY, PREFIXES
from hpckg.publish.description import Dump, describe
from hpckg.publish.settings import PublisherSettings
from hpckg.store import AnyStore, Store

__all__ = ["describe", "export", "refresh_description", "serialize_dataset"]


def refresh_description(store: AnyStore, *, settings: PublisherSettings, endpoint: str | None = None,
                        dumps: Iterable[Dump] | None = None, modified: str | None = None) -> int:
    """Replace the meta graph with a fresh description of the store."""
    triples = list(dict.fromkeys(describe(store, endpoint=endpoint, dumps=dumps, settings=settings,
                                          modified=modified)))
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


def export(store: AnyStore, *, format: RdfFormatInfo, settings: PublisherSettings, out: Path | None = None,
           endpoint: str | None = None) -> bytes | None:
    """Describe the dataset in its meta graph, then write it to `out` (or return the bytes).

    A store on disk is left as it is (readers open it read-only, and the build owns it): the description
    is added to an in-memory copy."""
    if isinstance(store, Store) and store.path is not None:
        copy = Store(None)
        copy.load_quads(store.quads())
        store = copy
    refresh_description(store, endpoint=endpoint, settings=settings)
    data = serialize_dataset(store, format)
    if out is None:
        return data
    out = Path(out)
    tmp = out.with_name(out.name + ".partial")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        tmp.replace(out)
    except OSError as error:  # said as the output's problem: the store was read fine
        raise InputError(f"cannot write {out}: {error.strerror or error}") from None
    return None


def jsonld_context(ontology_dir: Path) -> dict:
    """The JSON-LD context for hpckg data, generated from the ontology in `ontology_dir` (the one source of
    truth): every prefix, and a term for every ontology property (object properties typed @id)."""
    store = ox.Store()
    for path in sorted(ontology_dir.glob("*.ttl")):
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


def jsonld_context_text(ontology_dir: Path) -> str:
    return json.dumps(jsonld_context(ontology_dir), indent=2, ensure_ascii=False) + "\n"
