"""TOP500 and Epoch AI together: records of one machine in both are linked as leads with their evidence,
never merged; the queries across datasets (systems-by-source, conflicts, claims-without-source) answer on a
real build of two TOP500 editions and Epoch's hardware and clusters, checked against the raw files."""

from __future__ import annotations

import csv
import json
import re
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


def links_of(project: Path, system: str) -> dict[str, dict[str, str]]:
    """The records linked to `system` by hpc:sameMachineAs (either way): record slug -> tier, basis, note."""
    completed = run_hpckg("query", "-e", f"""
        SELECT ?other ?tier ?basis ?note WHERE {{
          ?link hpc:property hpc:sameMachineAs ; hpc:tier ?tier ; hpc:basis ?basis ; skos:note ?note .
          {{ ?link hpc:about sys:{system} ; hpc:value ?other }}
          UNION {{ ?link hpc:about ?other ; hpc:value sys:{system} }}
        }}""", "--format", "json", cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0, err
    return {row["other"]["value"].rsplit("/", 1)[1]: {key: row[key]["value"] for key in ("tier", "basis", "note")}
            for row in json.loads(out)["results"]["bindings"]}


def test_el_capitan_in_both_datasets_is_linked_as_a_lead_with_its_evidence(project):
    # Epoch lists El Capitan's two phases as two clusters; the TOP500 lists the machine once. (Phase 1's row
    # cites top500.org/system/180283, "El Capitan Early Delivery", which these two editions do not list: with
    # every edition imported it is linked to that record instead, exactly.)
    links = links_of(project, "top500-180307")
    assert sorted(links) == ["epoch-lawrence-livermore-nl-el-capitan-phase-1",
                             "epoch-lawrence-livermore-nl-el-capitan-phase-2"]
    for link in links.values():
        assert link["tier"].endswith("/tier/lead") and link["basis"].endswith("/machine-generated")
        assert "elcapitan" in link["note"] and "the country" in link["note"]


def test_a_row_citing_a_top500_system_page_is_linked_to_that_system_at_tier_reported(project):
    # Jupiter's row cites top500.org/system/180357 (the TOP500's "JUPITER Booster"): the dataset identifies the
    # record, so the link is exact, at tier reported, with the page in its note.
    links = links_of(project, "top500-180357")
    assert list(links) == ["epoch-jupiter-julich"]
    [link] = links.values()
    assert link["tier"].endswith("/tier/reported") and link["basis"].endswith("/dataset-cites-record")
    assert "top500.org/system/180357" in link["note"]
    # every row of the file citing a TOP500 system page the graph holds is linked to exactly that system
    with (EPOCH / "gpu_clusters.csv").open(newline="", encoding="utf-8-sig") as file:
        citing = sum(1 for row in csv.DictReader(file) if any("top500.org/system/" in row[c] for c in SOURCE_COLUMNS))
    rows = rows_of(project, "same-machine-cited")
    assert len({row["system"] for row in rows}) == citing
    held = [row for row in rows if row["citedInGraph"] == "yes"]
    assert held and all(row["linkTier"] == "reported" for row in held), [r for r in held if r["linkTier"] != "reported"]


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
    # Issue 36: a machine may have several operators (an Epoch record's joint owners, its owner beside the
    # TOP500 site's operator): 319 of the full import's 2,130 rows were operators, none a conflict.
    multi_valued = {row["p"] for row in query_rows(project, "-e", "SELECT ?p WHERE { ?p hpc:multiValued true }")}
    assert "https://w3id.org/hpckg/ontology#operator" in multi_valued
    identifiers = {row["p"] for row in query_rows(project, "-e", "SELECT ?p WHERE { ?p a hpc:ExternalIdProperty }")}
    assert "https://w3id.org/hpckg/ontology#epochClusterName" in identifiers
    assert not {row["property"] for row in rows} & (multi_valued | identifiers)
    # and a date agrees with the coarser date it falls in: TOP500's year "2025" and Epoch AI's "2025-06-10"
    # (JUPITER) were 1,041 of the full import's rows
    dated = [row for row in rows if re.fullmatch(r"\d{4}(-\d\d){0,2}", row["value"])
             and re.fullmatch(r"\d{4}(-\d\d){0,2}", row["otherValue"])]
    assert dated, "records of one machine still differ on dates somewhere"
    assert not [row for row in dated if row["value"].startswith(row["otherValue"])
                or row["otherValue"].startswith(row["value"])]


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


def test_the_curated_parts_check_clean_against_a_store_with_imports(project):
    # Issue 36: the TOP500 importer wrote type, label and slug of every part it named, curated ones too, so
    # `hpckg check data/ttl/parts.ttl` on unmodified main said part:nvidia-a100-sxm4-80gb "is defined in
    # import/top500/shared" and no pull request adding a part could check clean.
    names = [line for line in (project / "data" / "ttl" / "parts.ttl").read_text().splitlines()
             if line.startswith("part:nvidia-a100-sxm4-80gb a ")]
    assert names, "the curated A100 80 GB part the imports also name"
    completed = run_hpckg("check", "data/ttl/parts.ttl", cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0 and "redefines-entity" not in out, out + err
    used = query_rows(project, "-e", "SELECT (COUNT(*) AS ?n) WHERE { ?c hpc:partModel part:nvidia-a100-sxm4-80gb }")
    assert int(used[0]["n"]) > 0  # the imports still name the curated part
