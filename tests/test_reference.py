"""Which entity a dataset's name means comes from the curated files' names (hpckg.reference)."""

import datetime as dt
from pathlib import Path

import pytest

from hpckg.reference import Reference

from conftest import session_project

COUNTRY = "https://w3id.org/hpckg/id/country/"
ORG = "https://w3id.org/hpckg/id/org/"


def test_country_names_of_both_datasets_map_to_iso_codes():
    reference = Reference.of_project(session_project())
    for name, code in [("Korea, South", "KR"), ("Korea (Republic of)", "KR"), ("Saudia Arabia", "SA"),
                       ("United States of America", "US"), ("czech republic", "CZ"), ("Czechia", "CZ"),
                       ("United Kingdom of Great Britain and Northern Ireland", "GB"), ("Philippines (the)", "PH")]:
        assert reference.find("country", name) == COUNTRY + code, name
    assert reference.find("country", "Atlantis") is None


def test_joint_names_map_to_every_part_or_to_nothing(tmp_path: Path):
    data = tmp_path / "orgs.ttl"
    data.write_text("""
        @prefix hpc: <https://w3id.org/hpckg/ontology#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        @prefix skos: <http://www.w3.org/2004/02/skos/core#> . @prefix orgn: <https://w3id.org/hpckg/id/org/> .
        orgn:appro a hpc:Organisation ; rdfs:label "Appro" ; skos:hiddenLabel "Appro International" .
        orgn:cray a hpc:Organisation ; rdfs:label "Cray" ; skos:hiddenLabel "Cray Inc." .
    """, encoding="utf-8")
    reference = Reference.from_files([data])
    assert reference.find_all("org", "Appro International / Cray Inc.") == [ORG + "appro", ORG + "cray"]
    assert reference.find_all("org", "APPRO-international") == [ORG + "appro"]
    assert reference.find_all("org", "Appro International / Unknown Corp") == []
    assert reference.find("country", "Cray") is None  # kinds are kept apart


def test_digest_changes_with_the_names(tmp_path: Path):
    data = tmp_path / "c.ttl"
    data.write_text('<https://w3id.org/hpckg/id/country/XX> a <https://w3id.org/hpckg/ontology#Country> .\n')
    before = Reference.from_files([data]).digest
    data.write_text(data.read_text() + '<https://w3id.org/hpckg/id/country/XX> '
                    '<http://www.w3.org/2004/02/skos/core#hiddenLabel> "Ex" .\n')
    after = Reference.from_files([data])
    assert after.digest != before and after.find("country", "ex") == COUNTRY + "XX"


DATED = """
    @prefix hpc: <https://w3id.org/hpckg/ontology#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
    @prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix orgn: <https://w3id.org/hpckg/id/org/> .
    @prefix claim: <https://w3id.org/hpckg/id/claim/> . @prefix rank: <https://w3id.org/hpckg/vocab/rank/> .
    orgn:old a hpc:Organisation ; rdfs:label "Old Graphics" .
    orgn:new a hpc:Organisation ; rdfs:label "SG" .
    orgn:other a hpc:Organisation ; rdfs:label "Other" .
    claim:old-sg a hpc:Claim ; hpc:about orgn:old ; hpc:property hpc:nameInUse ; hpc:value "SG" ;
        hpc:endTime "2009"^^xsd:gYear .
    claim:new-sg a hpc:Claim ; hpc:about orgn:new ; hpc:property hpc:nameInUse ; hpc:value "SG" ;
        hpc:startTime "2009"^^xsd:gYear .
    claim:other-sg a hpc:Claim ; hpc:about orgn:other ; hpc:property hpc:nameInUse ; hpc:value "SG" ;
        hpc:rank rank:deprecated .
"""


def test_a_dated_name_means_the_organisation_whose_claim_is_in_force(tmp_path: Path):
    data = tmp_path / "orgs.ttl"
    data.write_text(DATED, encoding="utf-8")
    reference = Reference.from_files([data])
    assert reference.find("org", "SG", when=dt.date(2005, 6, 1)) == ORG + "old"
    assert reference.find("org", "sg", when="2008-12-31") == ORG + "old"
    assert reference.find("org", "SG", when="2009") == ORG + "new"  # the end is exclusive, the start inclusive
    assert reference.find("org", "SG") == ORG + "new"  # today's meaning; the deprecated claim never counts
    assert reference.find_all("org", "SG/Other", when=dt.date(1995, 1, 1)) == [ORG + "old", ORG + "other"]
    assert reference.find("org", "Old Graphics", when="1990") == ORG + "old"  # labels hold at every date


def test_joint_names_split_part_by_part_down_to_hyphens(tmp_path: Path):
    data = tmp_path / "orgs.ttl"
    data.write_text("""
        @prefix hpc: <https://w3id.org/hpckg/ontology#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        @prefix orgn: <https://w3id.org/hpckg/id/org/> .
        orgn:raytheon a hpc:Organisation ; rdfs:label "Raytheon" .
        orgn:aspen a hpc:Organisation ; rdfs:label "Aspen Systems" .
        orgn:appro a hpc:Organisation ; rdfs:label "Appro" .
        orgn:hp a hpc:Organisation ; rdfs:label "Hewlett-Packard" .
    """, encoding="utf-8")
    reference = Reference.from_files([data])
    assert reference.find_all("org", "Raytheon-Aspen Systems/Appro") == [ORG + "raytheon", ORG + "aspen", ORG + "appro"]
    assert reference.find_all("org", "Hewlett-Packard") == [ORG + "hp"]  # a whole name is never split
    assert reference.find_all("org", "Appro\\Hewlett-Packard") == [ORG + "appro", ORG + "hp"]
    assert reference.find_all("org", "Raytheon-Unknown/Appro") == []


@pytest.mark.imports  # reads all 70 TOP500 files and Epoch AI's clusters
def test_every_country_name_of_the_datasets_is_known():
    import csv

    from hpckg.importers import top500
    from hpckg.importers.top500_files import read_entries

    from conftest import SHARED

    shared = SHARED / "data"
    reference = Reference.of_project(session_project())
    files = top500.select(sorted((shared / "top500").glob("TOP500_*")))
    names = {e.country for f in files for e in read_entries(f) if e.country}
    with (shared / "epoch-ai" / "gpu_clusters.csv").open(newline="", encoding="utf-8-sig") as file:
        names |= {row["Country"] for row in csv.DictReader(file) if row["Country"]}
    assert len(names) > 60
    assert {name for name in names if not reference.find("country", name)} == set()
