"""Which entity a dataset's name means comes from the curated files' names (hpckg.reference)."""

from pathlib import Path

from hpckg.reference import Reference

COUNTRY = "https://w3id.org/hpckg/id/country/"
ORG = "https://w3id.org/hpckg/id/org/"


def test_country_names_of_both_datasets_map_to_iso_codes():
    reference = Reference.of_project()
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
