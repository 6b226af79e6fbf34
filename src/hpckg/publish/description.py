"""The dataset's description: VoID (counts, partitions, endpoint, dumps, examples) and DCAT-AP 3.0.1.

One function, `describe`, answers for `hpckg export` (the meta graph of every dump), the server's
`/.well-known/void`, the home page's JSON-LD and `hpckg release`. What the graph holds is computed from it
(counts, coverage in space and time, the licences and attributions of imported sources); what it cannot
hold (publisher, contact, site) comes from the `[publisher]` settings. Controlled values are IRIs of the
vocabularies DCAT-AP names, each typed and placed in its scheme so that a validator can check it without
fetching anything: IANA media types, the EU file-type, data-theme, language, country and access-right
authority tables, and the ADMS publisher types.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

import pycountry
import pyoxigraph as ox

from hpckg import __version__
from hpckg.claims import shorten
from hpckg.formats import RDF_FORMATS, RdfFormatInfo
from hpckg.namespaces import BASE, ID, META_GRAPH, ONTOLOGY, PREFIXES, THIS_DATASET
from hpckg.publish.settings import PublisherSettings
from hpckg.store import AnyStore
from hpckg.terms import DCTERMS, PROV, RDF_TYPE, SKOS, XSD_DATE_TIME, XSD_INTEGER

DATASET = THIS_DATASET  # the graph hpckg serves (hpckg.namespaces)
CATALOG = BASE + "catalog"
VOID = PREFIXES["void"]
DCAT = PREFIXES["dcat"]
FOAF = "http://xmlns.com/foaf/0.1/"
VCARD = "http://www.w3.org/2006/vcard/ns#"
DCATAP = "http://data.europa.eu/r5r/"
SPDX = "http://spdx.org/rdf/terms#"
# DCAT-AP 3.0.1's vocabulary shapes ask for the algorithm under https://spdx.org/rdf/terms, although SPDX's
# own namespace (of spdx:checksum, spdx:Checksum) is http://spdx.org/rdf/terms#.
SHA256_ALGORITHM = "https://spdx.org/rdf/terms#checksumAlgorithm_sha256"
XSD = PREFIXES["xsd"]
EU = "http://publications.europa.eu/resource/authority/"
IANA = "https://www.iana.org/assignments/media-types/"
LICENCE = "https://www.apache.org/licenses/LICENSE-2.0"
VOCABULARIES_USED = [ONTOLOGY, PROV, SKOS, DCTERMS, PREFIXES["schema"], PREFIXES["org"]]
DESCRIPTION = ("The knowledge graph of the world's supercomputers and AI training clusters: systems, operators, "
               "sites, parts, suppliers and sourced claims with confidence tiers.")
# The EU data themes the graph belongs to: science and technology (machines, parts), economy (suppliers).
THEMES = {"TECH": "Science and technology", "ECON": "Economy and finance"}
GEO = "http://www.opengis.net/ont/geosparql#"
# The EU file-type table's name for each export format (publications.europa.eu/resource/authority/file-type).
EU_FILE_TYPES = {"ttl": "RDF_TURTLE", "nt": "RDF_N_TRIPLES", "nq": "RDF_N_QUADS", "trig": "RDF_TRIG",
                 "jsonld": "JSON_LD", "xml": "RDF_XML"}
EXAMPLE_RESOURCES = 3
EARTH = "https://sws.geonames.org/6295630/"  # GeoNames' Earth: the graph's scope is the world
EARTH_BBOX = "POLYGON((-180 90,180 90,180 -90,-180 -90,-180 90))"
EARTH_CENTROID = "POINT(0 0)"
LICENCE_TYPE = "http://purl.org/adms/licencetype/Attribution"  # Apache 2.0 asks for attribution


@dataclass(frozen=True)
class Dump:
    """One downloadable file of the dataset: a dcat:Distribution and a void:dataDump."""

    format: RdfFormatInfo
    url: str
    gzip: bool = False
    byte_size: int | None = None
    sha256: str | None = None

    @property
    def iri(self) -> str:
        return self.url


def site_dumps(settings: PublisherSettings) -> list[Dump]:
    """The current export in every format, at its stable URL on the site (`hpckg serve` answers there)."""
    return [Dump(fmt, settings.url(f"dumps/hpckg.{fmt.extension}")) for fmt in RDF_FORMATS.values()]


def _n(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


def _int(value: int) -> ox.Literal:
    return ox.Literal(str(value), datatype=_n(XSD_INTEGER))


def _en(text: str) -> ox.Literal:
    return ox.Literal(text, language="en")


def _count(store: AnyStore, where: str) -> int:
    return int(next(iter(store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ {where} }}")))["n"].value)


def _local(iri: str) -> str:
    """A path segment naming a class or property in the description: hpc:System -> hpc-System."""
    short = shorten(iri)
    if short != iri:
        return short.replace(":", "-", 1).replace("/", "-")
    return "".join(c if c.isalnum() else "-" for c in iri)


def _concept(iri: str, scheme: str, label: str) -> list[ox.Triple]:
    """A controlled value as a labelled skos:Concept in its scheme, so a validator sees which table it is
    from without fetching it."""
    return [ox.Triple(_n(iri), _n(RDF_TYPE), _n(SKOS + "Concept")),
            ox.Triple(_n(iri), _n(SKOS + "inScheme"), _n(scheme)),
            ox.Triple(_n(iri), _n(SKOS + "prefLabel"), _en(label))]


def _scheme(iri: str, title: str) -> list[ox.Triple]:
    return [ox.Triple(_n(iri), _n(RDF_TYPE), _n(SKOS + "ConceptScheme")),
            ox.Triple(_n(iri), _n(DCTERMS + "title"), _en(title))]


@dataclass(frozen=True)
class Coverage:
    """Where and when the graph's facts are: the countries of its systems and sites, the span of its dates."""

    countries: tuple[tuple[str, str], ...]  # (ISO 3166-1 alpha-2 code, English name), sorted
    start: str | None  # an xsd:date
    end: str | None


def coverage(store: AnyStore) -> Coverage:
    """The countries named by country facts or claims, and the earliest and latest as-of date of a claim."""
    # The countries first, each once, then their codes and labels: joined the other way round it took 270 s on
    # the full graph (every country fact and claim joined with every label), this way a second.
    countries = sorted({(row["code"].value, row["name"].value) for row in store.query("""
        SELECT ?code (SAMPLE(?label) AS ?name) WHERE {
          { SELECT DISTINCT ?country WHERE {
              { ?s hpc:country ?country } UNION { ?claim hpc:property hpc:country ; hpc:value ?country } } }
          ?country skos:notation ?code ; rdfs:label ?label } GROUP BY ?code""")})
    row = next(iter(store.query("""
        SELECT (MIN(?day) AS ?start) (MAX(?day) AS ?end) WHERE {
          ?claim a hpc:Claim ; hpc:asOf ?when .
          BIND(STR(?when) AS ?text)
          BIND(IF(STRLEN(?text) = 4, CONCAT(?text, "-01-01"),
               IF(STRLEN(?text) = 7, CONCAT(?text, "-01"), SUBSTR(?text, 1, 10))) AS ?day) }""")))
    start = row["start"].value if row["start"] is not None else None
    end = row["end"].value if row["end"] is not None else None
    return Coverage(tuple(countries), start, end)


def eu_country(alpha2: str) -> str | None:
    """The EU country table's IRI for an ISO 3166-1 alpha-2 code (the table uses alpha-3), if it has one."""
    country = pycountry.countries.get(alpha_2=alpha2)
    return f"{EU}country/{country.alpha_3}" if country else None


@dataclass(frozen=True)
class ImportedSource:
    """A dataset the graph imported: its licence and how it must be credited travel with the description."""

    iri: str
    title: str
    licence: str | None
    attribution: str


def imported_sources(store: AnyStore) -> list[ImportedSource]:
    """The published datasets in the graph's import provenance: sources of the kind dataset-release held in
    a graph an hpc:Import generated, and hpc:Dataset entities described in the curated data."""
    rows = store.query("""
        SELECT ?s (SAMPLE(?t) AS ?title) (SAMPLE(?l) AS ?licence) (SAMPLE(?u) AS ?url) (SAMPLE(?pn) AS ?publisher)
               (SAMPLE(?c) AS ?citation) WHERE {
          {
            GRAPH ?g { ?s a hpc:Source ; hpc:sourceKind <https://w3id.org/hpckg/vocab/source-kind/dataset-release> }
            ?g prov:wasGeneratedBy ?activity . ?activity a hpc:Import .
          } UNION { ?s a hpc:Dataset }
          OPTIONAL { ?s dcterms:title ?t0 } OPTIONAL { ?s rdfs:label ?t1 } BIND(COALESCE(?t0, ?t1) AS ?t)
          OPTIONAL { ?s dcterms:license ?l } OPTIONAL { ?s schema:url ?u }
          OPTIONAL { ?s dcterms:bibliographicCitation ?c }
          OPTIONAL { ?s dcterms:publisher ?p . ?p rdfs:label ?pn }
        } GROUP BY ?s ORDER BY ?s""")
    sources = []
    for row in rows:
        title = row["title"].value if row["title"] is not None else row["s"].value
        if row["citation"] is not None:
            attribution = row["citation"].value
        else:
            parts = [row["publisher"].value if row["publisher"] is not None else None, f"'{title}'",
                     row["url"].value if row["url"] is not None else None]
            attribution = ", ".join(p for p in parts if p)
        licence = row["licence"].value if row["licence"] is not None else None
        sources.append(ImportedSource(row["s"].value, title, licence, attribution))
    return sources


def describe(store: AnyStore, *, settings: PublisherSettings, endpoint: str | None = None,
             dumps: Iterable[Dump] | None = None, version: str | None = None,
             modified: str | None = None) -> list[ox.Triple]:
    """The VoID + DCAT-AP description of everything in the store except the meta graph itself.

    `settings`: the project's `[publisher]` table (publisher_settings); `dumps` default to the site's current
    export;
    `modified` (an xsd:dateTime, default now) is fixed by a release so that describing the same graph twice
    gives the same triples."""
    dumps = list(dumps) if dumps is not None else site_dumps(settings)
    modified = modified or dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    triples = _void(store, endpoint, dumps)
    triples += _dataset(store, settings, version or __version__, modified)
    triples += _distributions(dumps, settings, endpoint)
    triples += _catalog(settings, modified)
    if endpoint:
        triples += _service(endpoint, settings)
    return triples


def _void(store: AnyStore, endpoint: str | None, dumps: list[Dump]) -> list[ox.Triple]:
    ds = _n(DATASET)
    triples = [ox.Triple(ds, _n(RDF_TYPE), _n(VOID + "Dataset")),
               ox.Triple(ds, _n(VOID + "uriSpace"), ox.Literal(ID))]
    if endpoint:
        triples.append(ox.Triple(ds, _n(VOID + "sparqlEndpoint"), _n(endpoint)))
    triples += [ox.Triple(ds, _n(VOID + "dataDump"), _n(dump.url)) for dump in dumps]
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
    for row in store.query(f"SELECT ?s WHERE {{ ?s a hpc:System }} ORDER BY ?s LIMIT {EXAMPLE_RESOURCES}"):
        triples.append(ox.Triple(ds, _n(VOID + "exampleResource"), row["s"]))
    # Imported datasets: their licence and how they must be credited travel with ours.
    for source in imported_sources(store):
        s = _n(source.iri)
        triples += [ox.Triple(ds, _n(PROV + "wasDerivedFrom"), s),
                    ox.Triple(s, _n(DCTERMS + "title"), _en(source.title)),
                    ox.Triple(s, _n(DCTERMS + "bibliographicCitation"), ox.Literal(source.attribution))]
        if source.licence:
            triples.append(ox.Triple(s, _n(DCTERMS + "license"), _n(source.licence)))
    return triples


def _agent(settings: PublisherSettings) -> tuple[ox.NamedNode, list[ox.Triple]]:
    agent = _n(BASE + "publisher")
    kind = "http://purl.org/adms/publishertype/"
    triples = [ox.Triple(agent, _n(RDF_TYPE), _n(FOAF + "Agent")),
               ox.Triple(agent, _n(FOAF + "name"), _en(settings.name)),
               ox.Triple(agent, _n(FOAF + "homepage"), _n(settings.homepage)),
               ox.Triple(agent, _n(DCTERMS + "type"), _n(kind + settings.type)),
               *_scheme(kind + "1.0", "Publisher type"),
               *_concept(kind + settings.type, kind + "1.0", settings.type),
               ox.Triple(_n(settings.homepage), _n(RDF_TYPE), _n(FOAF + "Document"))]
    return agent, triples


def _contact(settings: PublisherSettings) -> tuple[ox.NamedNode, list[ox.Triple]]:
    contact = _n(BASE + "contact")
    triples = [ox.Triple(contact, _n(RDF_TYPE), _n(VCARD + "Kind")),
               ox.Triple(contact, _n(RDF_TYPE), _n(VCARD + "Organization")),
               ox.Triple(contact, _n(VCARD + "fn"), ox.Literal(settings.name)),
               ox.Triple(contact, _n(VCARD + "hasURL"), _n(settings.homepage))]
    if settings.email:
        triples.append(ox.Triple(contact, _n(VCARD + "hasEmail"), _n("mailto:" + settings.email)))
    return contact, triples


def _licence() -> list[ox.Triple]:
    return [ox.Triple(_n(LICENCE), _n(RDF_TYPE), _n(DCTERMS + "LicenseDocument")),
            ox.Triple(_n(LICENCE), _n(DCTERMS + "type"), _n(LICENCE_TYPE)),
            *_concept(LICENCE_TYPE, "http://purl.org/adms/licencetype/1.0", "Attribution")]


def _earth() -> list[ox.Triple]:
    return [ox.Triple(_n(EARTH), _n(RDF_TYPE), _n(DCTERMS + "Location")),
            ox.Triple(_n(EARTH), _n(DCAT + "bbox"), ox.Literal(EARTH_BBOX, datatype=_n(GEO + "wktLiteral"))),
            ox.Triple(_n(EARTH), _n(DCAT + "centroid"), ox.Literal(EARTH_CENTROID, datatype=_n(GEO + "wktLiteral")))]


def _themes(subject: ox.NamedNode) -> list[ox.Triple]:
    triples = _scheme(EU + "data-theme", "Data theme")
    for code, label in THEMES.items():
        triples += [ox.Triple(subject, _n(DCAT + "theme"), _n(f"{EU}data-theme/{code}")),
                    *_concept(f"{EU}data-theme/{code}", EU + "data-theme", label)]
    return triples


def _dataset(store: AnyStore, settings: PublisherSettings, version: str, modified: str) -> list[ox.Triple]:
    ds = _n(DATASET)
    agent, triples = _agent(settings)
    contact, contact_triples = _contact(settings)
    generation = _n(DATASET + "/generation")
    triples += contact_triples + _licence() + [
        ox.Triple(ds, _n(RDF_TYPE), _n(DCAT + "Dataset")),
        ox.Triple(ds, _n(DCTERMS + "title"), _en("hpckg")),
        ox.Triple(ds, _n(DCTERMS + "description"), _en(DESCRIPTION)),
        ox.Triple(ds, _n(DCTERMS + "license"), _n(LICENCE)),
        ox.Triple(ds, _n(DCTERMS + "modified"), ox.Literal(modified, datatype=_n(XSD_DATE_TIME))),
        ox.Triple(ds, _n(DCAT + "version"), ox.Literal(version)),
        ox.Triple(ds, _n(DCTERMS + "publisher"), agent),
        ox.Triple(ds, _n(DCTERMS + "creator"), agent),
        ox.Triple(ds, _n(DCAT + "contactPoint"), contact),
        ox.Triple(ds, _n(DCAT + "landingPage"), _n(settings.url(""))),
        ox.Triple(_n(settings.url("")), _n(RDF_TYPE), _n(FOAF + "Document")),
        ox.Triple(ds, _n(DCTERMS + "language"), _n(EU + "language/ENG")),
        ox.Triple(_n(EU + "language/ENG"), _n(RDF_TYPE), _n(DCTERMS + "LinguisticSystem")),
        *_concept(EU + "language/ENG", EU + "language", "English"),
        *_scheme(EU + "language", "Language"),
        ox.Triple(ds, _n(DCTERMS + "accessRights"), _n(EU + "access-right/PUBLIC")),
        ox.Triple(_n(EU + "access-right/PUBLIC"), _n(RDF_TYPE), _n(DCTERMS + "RightsStatement")),
        *_concept(EU + "access-right/PUBLIC", EU + "access-right", "public"),
        *_scheme(EU + "access-right", "Access right"),
        ox.Triple(ds, _n(PROV + "wasGeneratedBy"), generation),
        ox.Triple(generation, _n(RDF_TYPE), _n(PROV + "Activity")),
        ox.Triple(generation, _n(PROV + "wasAssociatedWith"), _n(ID + "software/hpckg")),
    ]
    triples += [ox.Triple(ds, _n(DCAT + "keyword"), _en(word)) for word in settings.keyword_list]
    triples += _themes(ds)
    # The spatial coverage is the world (the graph's scope); the countries its facts name are listed as
    # dct:coverage, EU country concepts: the graph holds no coordinates to give each a bounding box.
    covered = coverage(store)
    triples += [ox.Triple(ds, _n(DCTERMS + "spatial"), _n(EARTH)), *_earth()]
    for code, name in covered.countries:
        country = eu_country(code)
        if country:
            triples += [ox.Triple(ds, _n(DCTERMS + "coverage"), _n(country)),
                        *_concept(country, EU + "country", name)]
    if covered.start and covered.end:
        period = _n(DATASET + "/temporal")
        triples += [ox.Triple(ds, _n(DCTERMS + "temporal"), period),
                    ox.Triple(period, _n(RDF_TYPE), _n(DCTERMS + "PeriodOfTime")),
                    ox.Triple(period, _n(DCAT + "startDate"), ox.Literal(covered.start, datatype=_n(XSD + "date"))),
                    ox.Triple(period, _n(DCAT + "endDate"), ox.Literal(covered.end, datatype=_n(XSD + "date")))]
    return triples


def _distributions(dumps: list[Dump], settings: PublisherSettings, endpoint: str | None) -> list[ox.Triple]:
    ds = _n(DATASET)
    availability = EU + "planned-availability/STABLE"
    triples = [*_concept(availability, EU + "planned-availability", "stable"),
               *_scheme(EU + "planned-availability", "Planned availability"),
               *_scheme(EU + "file-type", "File type")]
    for dump in dumps:
        fmt, dist = dump.format, _n(dump.iri)
        media, file_type = IANA + fmt.media_type, EU + "file-type/" + EU_FILE_TYPES[fmt.name]
        what = "gzip-compressed " if dump.gzip else ""
        triples += [
            ox.Triple(ds, _n(DCAT + "distribution"), dist),
            ox.Triple(dist, _n(RDF_TYPE), _n(DCAT + "Distribution")),
            ox.Triple(dist, _n(DCTERMS + "title"), _en(f"hpckg in {fmt.label}" + (" (gzip)" if dump.gzip else ""))),
            ox.Triple(dist, _n(DCTERMS + "description"), _en(
                f"The whole dataset as one {what}{fmt.label} file"
                + (", every named graph kept." if fmt.is_quad else ", its named graphs merged."))),
            ox.Triple(dist, _n(DCAT + "accessURL"), _n(dump.url)),
            ox.Triple(dist, _n(DCAT + "downloadURL"), _n(dump.url)),
            ox.Triple(dist, _n(DCAT + "mediaType"), _n(media)),
            ox.Triple(_n(media), _n(RDF_TYPE), _n(DCTERMS + "MediaType")),
            ox.Triple(dist, _n(DCTERMS + "format"), _n(file_type)),
            ox.Triple(_n(file_type), _n(RDF_TYPE), _n(DCTERMS + "MediaTypeOrExtent")),
            *_concept(file_type, EU + "file-type", fmt.label),
            ox.Triple(dist, _n(DCTERMS + "license"), _n(LICENCE)),
            ox.Triple(dist, _n(DCATAP + "availability"), _n(availability)),
        ]
        if dump.gzip:
            gzip = IANA + "application/gzip"
            triples += [ox.Triple(dist, _n(DCAT + "compressFormat"), _n(gzip)),
                        ox.Triple(_n(gzip), _n(RDF_TYPE), _n(DCTERMS + "MediaType"))]
        if dump.byte_size is not None:
            triples.append(ox.Triple(dist, _n(DCAT + "byteSize"), ox.Literal(
                str(dump.byte_size), datatype=_n(XSD + "nonNegativeInteger"))))
        if dump.sha256 is not None:
            checksum = _n(dump.iri + "#sha256")
            triples += [ox.Triple(dist, _n(SPDX + "checksum"), checksum),
                        ox.Triple(checksum, _n(RDF_TYPE), _n(SPDX + "Checksum")),
                        ox.Triple(checksum, _n(SPDX + "algorithm"), _n(SHA256_ALGORITHM)),
                        ox.Triple(_n(SHA256_ALGORITHM), _n(RDF_TYPE), _n(SPDX + "ChecksumAlgorithm")),
                        ox.Triple(checksum, _n(SPDX + "checksumValue"), ox.Literal(
                            dump.sha256, datatype=_n(XSD + "hexBinary")))]
        if endpoint:
            triples.append(ox.Triple(dist, _n(DCAT + "accessService"), _n(endpoint)))
    return triples


def _catalog(settings: PublisherSettings, modified: str) -> list[ox.Triple]:
    catalog = _n(CATALOG)
    agent, triples = _agent(settings)
    triples += _licence() + [
        ox.Triple(catalog, _n(RDF_TYPE), _n(DCAT + "Catalog")),
        ox.Triple(catalog, _n(DCTERMS + "title"), _en("hpckg catalogue")),
        ox.Triple(catalog, _n(DCTERMS + "description"), _en(
            "The hpckg knowledge graph of supercomputers, its dumps and its SPARQL endpoint.")),
        ox.Triple(catalog, _n(DCTERMS + "publisher"), agent),
        ox.Triple(catalog, _n(DCAT + "dataset"), _n(DATASET)),
        ox.Triple(catalog, _n(FOAF + "homepage"), _n(settings.url(""))),
        ox.Triple(_n(settings.url("")), _n(RDF_TYPE), _n(FOAF + "Document")),
        ox.Triple(catalog, _n(DCTERMS + "license"), _n(LICENCE)),
        ox.Triple(catalog, _n(DCTERMS + "language"), _n(EU + "language/ENG")),
        ox.Triple(catalog, _n(DCTERMS + "modified"), ox.Literal(modified, datatype=_n(XSD_DATE_TIME))),
        ox.Triple(catalog, _n(DCTERMS + "issued"), ox.Literal(settings.issued, datatype=_n(XSD + "date"))),
        ox.Triple(catalog, _n(DCTERMS + "spatial"), _n(EARTH)), *_earth(),
        ox.Triple(catalog, _n(DCAT + "themeTaxonomy"), _n(EU + "data-theme")),
        *_scheme(EU + "data-theme", "Data theme"),
    ]
    return triples


def _service(endpoint: str, settings: PublisherSettings) -> list[ox.Triple]:
    service = _n(endpoint)
    agent, triples = _agent(settings)
    contact, contact_triples = _contact(settings)
    sparql = "https://www.w3.org/TR/sparql11-protocol/"
    triples += contact_triples + [
        ox.Triple(_n(CATALOG), _n(DCAT + "service"), service),
        ox.Triple(service, _n(RDF_TYPE), _n(DCAT + "DataService")),
        ox.Triple(service, _n(DCTERMS + "title"), _en("hpckg SPARQL endpoint")),
        ox.Triple(service, _n(DCAT + "endpointURL"), service),
        ox.Triple(service, _n(DCAT + "endpointDescription"), service),
        ox.Triple(service, _n(DCAT + "servesDataset"), _n(DATASET)),
        ox.Triple(service, _n(DCAT + "contactPoint"), contact),
        ox.Triple(service, _n(DCTERMS + "publisher"), agent),
        ox.Triple(service, _n(DCTERMS + "conformsTo"), _n(sparql)),
        ox.Triple(_n(sparql), _n(RDF_TYPE), _n(DCTERMS + "Standard")),
        ox.Triple(service, _n(DCTERMS + "license"), _n(LICENCE)),
    ]
    triples += _themes(service)
    triples += [ox.Triple(service, _n(DCAT + "keyword"), _en(word)) for word in settings.keyword_list]
    return triples


def distinct(triples: Iterable[ox.Triple]) -> list[ox.Triple]:
    """The triples without repeats, in their first order."""
    return list(dict.fromkeys(triples))
