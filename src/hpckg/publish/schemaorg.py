"""schema.org markup for search engines: the dataset as a schema:Dataset (the home page) and a machine as a
schema:Product (its system page), each a plain JSON-LD dict built from the same figures as the DCAT-AP
description (hpckg.publish.description), so the two never disagree."""

from __future__ import annotations

from hpckg import __version__
from hpckg.claims import iri_ref
from hpckg.namespaces import ONTOLOGY
from hpckg.publish.description import (
    DESCRIPTION,
    LICENCE,
    Dump,
    coverage,
    eu_country,
    imported_sources,
)
from hpckg.publish.settings import PublisherSettings
from hpckg.store import AnyStore

CONTEXT = "https://schema.org/"


def citation(settings: PublisherSettings, version: str) -> str:
    """How to cite the dataset (a fixed version when `version` names a release)."""
    return f"{settings.name}, hpckg: a knowledge graph of supercomputers, version {version}, {settings.url('')}"


def dataset_jsonld(store: AnyStore, settings: PublisherSettings, dumps: list[Dump], *,
                   version: str | None = None, modified: str | None = None) -> dict:
    """The dataset as a schema.org Dataset, for dataset search engines."""
    version = version or __version__
    covered = coverage(store)
    creator = {"@type": "Organization", "name": settings.name, "url": settings.homepage}
    if settings.email:
        creator["email"] = settings.email
    places = [{"@type": "Place", "name": "World"}]
    places += [{"@type": "Country", "name": name, "identifier": code, "sameAs": eu_country(code)}
               for code, name in covered.countries if eu_country(code)]
    document: dict = {
        "@context": CONTEXT,
        "@type": "Dataset",
        "@id": settings.url(""),
        "name": "hpckg",
        "description": DESCRIPTION,
        "url": settings.url(""),
        "version": version,
        "license": LICENCE,
        "creator": creator,
        "publisher": creator,
        "citation": citation(settings, version),
        "keywords": settings.keyword_list,
        "isAccessibleForFree": True,
        "spatialCoverage": places,
        "isBasedOn": [{"@type": "Dataset", "@id": source.iri, "name": source.title,
                       "citation": source.attribution, **({"license": source.licence} if source.licence else {})}
                      for source in imported_sources(store)],
        "distribution": [{"@type": "DataDownload", "contentUrl": dump.url, "encodingFormat": dump.format.media_type,
                          **({"contentSize": f"{dump.byte_size} B"} if dump.byte_size is not None else {}),
                          **({"encoding": {"@type": "MediaObject", "encodingFormat": "application/gzip"}}
                             if dump.gzip else {})}
                         for dump in dumps],
        "includedInDataCatalog": {"@type": "DataCatalog", "name": "hpckg catalogue", "url": settings.url("")},
    }
    if covered.start and covered.end:
        document["temporalCoverage"] = f"{covered.start}/{covered.end}"
    if modified:
        document["dateModified"] = modified
    return document


def machine_jsonld(store: AnyStore, iri: str) -> dict | None:
    """A system as a schema.org Product: its name, maker (the integrator's supplier) and location (its site
    and country); None when the store holds no system of that IRI."""
    node = iri_ref(iri)
    rows = list(store.query(f"""
        SELECT ?name ?site ?siteName ?country ?countryName ?maker ?makerName WHERE {{
          {node} a hpc:System ; rdfs:label ?name .
          OPTIONAL {{ {node} hpc:site ?site . OPTIONAL {{ ?site rdfs:label ?siteName }} }}
          OPTIONAL {{ {node} hpc:country ?country . ?country skos:notation ?countryCode ; rdfs:label ?countryName }}
          OPTIONAL {{ ?integrator hpc:componentOf {node} ; hpc:role <https://w3id.org/hpckg/vocab/role/integrator> ;
                               hpc:supplierAtBuild ?maker . OPTIONAL {{ ?maker rdfs:label ?makerName }} }}
        }} LIMIT 1"""))
    if not rows:
        return None
    row = rows[0]
    document: dict = {"@context": CONTEXT, "@type": "Product", "@id": iri,
                      "additionalType": ONTOLOGY + "System", "category": "Supercomputer",
                      "name": row["name"].value, "url": iri}
    if row["maker"] is not None:
        document["manufacturer"] = {"@type": "Organization", "@id": row["maker"].value,
                                    "name": _text(row["makerName"], row["maker"].value)}
    place: dict = {}
    if row["site"] is not None:
        place = {"@type": "Place", "@id": row["site"].value, "name": _text(row["siteName"], row["site"].value)}
    if row["country"] is not None:
        place.setdefault("@type", "Place")
        place["address"] = {"@type": "PostalAddress", "addressCountry": row["countryName"].value}
    if place:
        document["location"] = place
    return document


def _text(term, fallback: str) -> str:
    return term.value if term is not None else fallback
