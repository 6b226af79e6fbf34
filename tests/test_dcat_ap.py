"""The dataset description (hpckg.publish.description) held to DCAT-AP 3.0.1 with pySHACL, and to VoID."""

from __future__ import annotations

import datetime as dt
import shutil

import pycountry
import pyoxigraph as ox
import pytest
import rdflib

from dcat_ap import MANDATORY, RECOMMENDED, as_rdflib, validate
from hpckg import project as hpckg_project
from hpckg.errors import InputError
from hpckg.importers import importer
from hpckg.importers.run import graph_iri, provenance, sha256_of
from hpckg.publish.description import DATASET, describe
from hpckg.publish.settings import PublisherSettings, publisher_settings
from hpckg.reference import Reference
from hpckg.store import Store

from conftest import SHARED, session_project

ENDPOINT = "http://127.0.0.1:8000/sparql"
DS = rdflib.URIRef(DATASET)
VOID = rdflib.Namespace("http://rdfs.org/ns/void#")
DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")
DCT = rdflib.Namespace("http://purl.org/dc/terms/")
PROV = rdflib.Namespace("http://www.w3.org/ns/prov#")
VCARD = rdflib.Namespace("http://www.w3.org/2006/vcard/ns#")
FOAF = rdflib.Namespace("http://xmlns.com/foaf/0.1/")
CC_BY = rdflib.URIRef("https://creativecommons.org/licenses/by/4.0/")


@pytest.fixture(scope="module")
def description(seed_store) -> rdflib.Graph:
    return as_rdflib(describe(seed_store, endpoint=ENDPOINT, settings=PublisherSettings()))


@pytest.fixture(scope="module")
def with_epoch_import(seed_store) -> Store:
    """The curated graph plus Epoch AI's machine-learning hardware table, imported in process with the
    provenance `hpckg import` writes (the import activity, the file it used, the graph it generated)."""
    store = Store(None)
    store.load_quads(seed_store.quads())
    path = SHARED / "data" / "epoch-ai" / "ml_hardware.csv"
    module = importer("epoch-hardware")
    graph = graph_iri("epoch-hardware", module.graph_key(path))
    now = dt.datetime(2026, 11, 30, tzinfo=dt.UTC)
    quads = list(module.read(path, graph, names=Reference.of_project(session_project())))
    quads += provenance("epoch-hardware", path, sha256_of(path), path.stat().st_size, graph, now, now)
    store.load_quads(quads)
    return store


def test_description_has_no_violation_of_the_mandatory_shapes(description):
    result = validate(description, MANDATORY)
    assert result.violations == 0, result.text
    # What is left are warnings that the publisher is not one of the EU's corporate bodies, which it is not.
    assert set(result.severities) <= {"Warning"}, result.text


def test_description_has_no_result_of_the_recommended_shapes(description):
    result = validate(description, RECOMMENDED)
    assert sum(result.severities.values()) == 0, result.text


def test_the_validation_sees_a_distribution_without_access_url(description):
    """The shapes are really applied: the same description less one dcat:accessURL is a violation."""
    broken = rdflib.Graph()
    for triple in description:
        broken.add(triple)
    dist = next(description.objects(DS, DCAT.distribution))
    broken.remove((dist, DCAT.accessURL, None))
    assert validate(broken, MANDATORY).violations == 1


def test_media_types_and_formats_are_iana_and_eu_file_type_iris(description):
    for dist in description.objects(DS, DCAT.distribution):
        media = str(description.value(dist, DCAT.mediaType))
        fmt = str(description.value(dist, DCT["format"]))
        assert media.startswith("https://www.iana.org/assignments/media-types/"), media
        assert fmt.startswith("http://publications.europa.eu/resource/authority/file-type/"), fmt
        assert description.value(dist, DCAT.accessURL) is not None
    media = {str(description.value(d, DCAT.mediaType)).rsplit("media-types/", 1)[1]
             for d in description.objects(DS, DCAT.distribution)}
    assert media == {"text/turtle", "application/n-triples", "application/n-quads", "application/trig",
                     "application/ld+json", "application/rdf+xml"}


def test_description_stays_a_void_description(description, seed_store):
    assert (DS, rdflib.RDF.type, VOID.Dataset) in description
    assert (DS, VOID.sparqlEndpoint, rdflib.URIRef(ENDPOINT)) in description
    for count in (VOID.triples, VOID.entities, VOID.classes, VOID.properties):
        assert int(description.value(DS, count)) > 0, count
    assert len(list(description.objects(DS, VOID.classPartition))) == int(description.value(DS, VOID.classes))
    assert len(list(description.objects(DS, VOID.propertyPartition))) == int(description.value(DS, VOID.properties))
    examples = list(description.objects(DS, VOID.exampleResource))
    assert len(examples) == 3 and all(str(e).startswith("https://w3id.org/hpckg/id/system/") for e in examples)
    dumps = {str(d) for d in description.objects(DS, VOID.dataDump)}
    assert dumps == {str(d) for d in description.objects(DS, DCAT.distribution)}


def test_coverage_in_time_comes_from_the_claims(description, seed_store):
    row = next(iter(seed_store.query("SELECT (MIN(STR(?d)) AS ?first) WHERE { ?c a hpc:Claim ; hpc:asOf ?d }")))
    period = description.value(DS, DCT.temporal)
    assert str(description.value(period, DCAT.startDate)).startswith(row["first"].value[:4])
    assert description.value(period, DCAT.endDate) is not None


def test_countries_named_by_the_graph_are_eu_country_concepts(description, seed_store):
    codes = {row["code"].value for row in seed_store.query(
        "SELECT DISTINCT ?code WHERE { ?s hpc:country ?c . ?c skos:notation ?code }")}
    assert codes
    covered = {str(c).rsplit("/", 1)[1] for c in description.objects(DS, DCT.coverage)}
    assert covered == {pycountry.countries.get(alpha_2=code).alpha_3 for code in codes}


def test_imported_sources_bring_their_licence_and_attribution(with_epoch_import):
    graph = as_rdflib(describe(with_epoch_import, settings=PublisherSettings()))
    licensed = {s for s in graph.objects(DS, PROV.wasDerivedFrom) if (s, DCT.license, CC_BY) in graph}
    assert len(licensed) == 1, sorted(graph.objects(DS, PROV.wasDerivedFrom))
    citation = str(graph.value(licensed.pop(), DCT.bibliographicCitation))
    assert citation.startswith("Epoch AI, 'Data on Machine Learning Hardware'"), citation
    assert validate(graph, MANDATORY).violations == 0


def test_publisher_and_contact_come_from_the_settings(seed_store):
    settings = publisher_settings({"name": "Example Lab", "email": "data@example.org",
                                   "homepage": "https://example.org/", "site": "https://kg.example.org/"})
    graph = as_rdflib(describe(seed_store, settings=settings))
    publisher = graph.value(DS, DCT.publisher)
    assert str(graph.value(publisher, FOAF.name)) == "Example Lab"
    contact = graph.value(DS, DCAT.contactPoint)
    assert (contact, VCARD.hasEmail, rdflib.URIRef("mailto:data@example.org")) in graph
    assert all(str(d).startswith("https://kg.example.org/dumps/") for d in graph.objects(DS, DCAT.distribution))
    assert validate(graph, RECOMMENDED).severities.total() == 0


def test_default_settings_give_no_email(description):
    assert not list(description.objects(None, VCARD.hasEmail))


@pytest.mark.parametrize("table, word", [({"colour": "red"}, "colour"), ({"type": "Guild"}, "Guild")])
def test_unknown_publisher_settings_are_refused_by_name(table, word):
    with pytest.raises(InputError, match=word):
        publisher_settings(table)


def test_describing_the_same_graph_at_a_fixed_time_gives_the_same_triples(seed_store):
    fixed = "2026-11-30T00:00:00+00:00"
    first = describe(seed_store, settings=PublisherSettings(), modified=fixed)
    second = describe(seed_store, settings=PublisherSettings(), modified=fixed)
    assert first == second
    assert ox.Triple(ox.NamedNode(DATASET), ox.NamedNode(str(DCT.modified)), ox.Literal(
        fixed, datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#dateTime"))) in first


def test_the_publisher_table_is_read_from_the_project_configuration(project):
    (project / "hpckg.toml").write_text('[publisher]\nname = "Example Lab"\nsite = "https://kg.example.org/"\n')
    loaded = hpckg_project.load(project, "test")
    assert publisher_settings(loaded.publisher) == PublisherSettings(name="Example Lab", site="https://kg.example.org/")
    (project / "hpckg.toml").write_text('publisher = "Example Lab"\n')
    with pytest.raises(InputError, match="publisher must be a table"):
        hpckg_project.load(project, "test")


def test_a_top500_edition_is_credited_as_the_list_asks(seed_store, tmp_path):
    """An imported TOP500 edition: 'Cite as: TOP500 list, <Month Year> edition, top500.org' (the data's
    README); the graph holds no licence for it, so none is stated. (The edition is read from a folder of its
    own: the importer reads every edition beside it to place sites, 8 s for the whole shared folder.)"""
    store = Store(None)
    store.load_quads(seed_store.quads())
    path = tmp_path / "TOP500_199306.xml"
    shutil.copy(SHARED / "data" / "top500" / path.name, path)
    module = importer("top500")
    graph = graph_iri("top500", module.graph_key(path))
    now = dt.datetime(2026, 11, 30, tzinfo=dt.UTC)
    store.load_quads([*module.read(path, graph, names=Reference.of_project(session_project())),
                      *provenance("top500", path, sha256_of(path), path.stat().st_size, graph, now, now)])
    described = as_rdflib(describe(store, settings=PublisherSettings()))
    edition = rdflib.URIRef("https://w3id.org/hpckg/id/source/top500-1993-06")
    assert (DS, PROV.wasDerivedFrom, edition) in described
    assert str(described.value(edition, DCT.bibliographicCitation)) == (
        "TOP500 project, 'TOP500 list, June 1993', https://top500.org/lists/top500/1993/06/")
    assert described.value(edition, DCT.license) is None
