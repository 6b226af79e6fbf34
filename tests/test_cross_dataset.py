"""TOP500 and Epoch AI together: records of one machine in both are linked as leads with their evidence,
never merged; the queries across datasets (systems-by-source, conflicts, claims-without-source) answer on a
real build of two TOP500 editions and Epoch's hardware and clusters, checked against the raw files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import stores

from conftest import SHARED, query_rows, run_hpckg, text

pytestmark = pytest.mark.imports

EPOCH = SHARED / "data" / "epoch-ai"
TOP500 = SHARED / "data" / "top500"
SOURCE_COLUMNS = [f"Source {n}" for n in range(1, 6)]


def rows_of(project: Path, query: str, *params: str) -> list[dict[str, str]]:
    return query_rows(project, query, *params)


@pytest.fixture(scope="module")
def project() -> Path:
    """The session's store of two TOP500 editions and Epoch's hardware and clusters (tests/stores.py)."""
    website = stores.website()
    out, err = website.build
    assert "violations: 0" in out, out + err
    return website.project


def test_el_capitan_in_both_datasets_is_linked_as_a_lead_with_its_evidence(project):
    completed = run_hpckg("query", "-e", """
        SELECT ?epoch ?tier ?basis ?note WHERE {
          ?link hpc:property hpc:sameMachineAs ; hpc:tier ?tier ; hpc:basis ?basis ; skos:note ?note .
          { ?link hpc:about sys:top500-180307 ; hpc:value ?epoch }
          UNION { ?link hpc:about ?epoch ; hpc:value sys:top500-180307 }
        }""", "--format", "json", cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0, err
    rows = json.loads(out)["results"]["bindings"]
    # Epoch lists El Capitan's two phases as two clusters; the TOP500 lists the machine once.
    assert sorted(row["epoch"]["value"].rsplit("/", 1)[1] for row in rows) == [
        "epoch-lawrence-livermore-nl-el-capitan-phase-1", "epoch-lawrence-livermore-nl-el-capitan-phase-2"]
    for row in rows:
        assert row["tier"]["value"].endswith("/tier/lead") and row["basis"]["value"].endswith("/machine-generated")
        assert "elcapitan" in row["note"]["value"] and "the country" in row["note"]["value"]


def test_systems_by_source_counts_each_dataset_and_the_linked_records(project):
    by_origin = {row["origin"]: row for row in rows_of(project, "systems-by-source")}
    assert set(by_origin) == {"top500", "epoch-clusters", "curated"}
    with (EPOCH / "gpu_clusters.csv").open(newline="", encoding="utf-8-sig") as file:
        assert int(by_origin["epoch-clusters"]["systems"]) == sum(1 for _ in csv.DictReader(file))
    assert int(by_origin["top500"]["linkedToAnotherOrigin"]) >= 5
    assert int(by_origin["epoch-clusters"]["linkedToAnotherOrigin"]) >= 5


def test_claims_without_source_are_exactly_those_of_rows_citing_nothing(project):
    with (EPOCH / "gpu_clusters.csv").open(newline="", encoding="utf-8-sig") as file:
        unsourced = sum(1 for row in csv.DictReader(file) if not any(row[c].strip() for c in SOURCE_COLUMNS))
    rows = rows_of(project, "claims-without-source")
    systems = {row["entity"] for row in rows if "/id/system/" in row["entity"]}
    assert len(systems) == unsourced
    assert {row["why"] for row in rows} == {"the dataset's row gives no source"}
    assert all(not row["tier"].endswith("/verified") for row in rows)


def test_conflicts_list_both_sides_with_source_and_tier(project):
    rows = rows_of(project, "conflicts")
    assert rows, "records of one machine disagree somewhere (country, power, status...)"
    for row in rows:
        assert row["value"] != row["otherValue"]
        assert row["tier"] and row["otherTier"] and row["claim"] and row["otherClaim"]


def test_the_server_shows_an_imported_system_with_its_provenance(website_server):
    import httpx

    # The session's server over this module's store (stores.WEBSITE), a real `hpckg serve` process.
    page = httpx.get(website_server.url + "/id/system/top500-180307", headers={"Accept": "text/html"}, timeout=30,
                     follow_redirects=True)
    assert page.status_code == 200
    assert "El Capitan" in page.text and "https://top500.org/lists/top500/2025/06/" in page.text
    assert "reported" in page.text
    lookup = httpx.get(website_server.url + "/sparql", params={"query": (
        "SELECT ?rmax WHERE { <https://w3id.org/hpckg/id/system/top500-180307> "
        "<https://w3id.org/hpckg/ontology#rmax> ?rmax }")},
        headers={"Accept": "application/sparql-results+json"}, timeout=30)
    assert lookup.json()["results"]["bindings"][0]["rmax"]["value"] == "1742000"
