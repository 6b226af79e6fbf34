"""`hpckg import epoch-clusters` and `epoch-datacenters`, held to Epoch AI's raw files read here with the csv
module (never through the importer): one project gets the curated data plus the three Epoch imports
(hardware, clusters, data centers) and one real `hpckg build`, which every test reads."""

from __future__ import annotations

import csv
import json
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pyoxigraph as ox
import pytest

import stores

from conftest import SHARED, query_rows, run_hpckg, text

pytestmark = pytest.mark.imports

EPOCH = SHARED / "data" / "epoch-ai"
CLUSTERS = EPOCH / "gpu_clusters.csv"
CENTERS = EPOCH / "data_centers.csv"
TIMELINES = EPOCH / "data_center_timelines.csv"
HARDWARE = EPOCH / "ml_hardware.csv"
GRAPHS = Path(".hpckg") / "graphs" / "import"
DATASET = "https://w3id.org/hpckg/id/source/epoch-gpu-clusters"
NO_SOURCE = "https://w3id.org/hpckg/vocab/basis/dataset-gives-no-source"
SOURCE_COLUMNS = [f"Source {n}" for n in range(1, 6)]


def csv_rows(path: Path) -> list[dict[str, str]]:
    """The rows as csv reads them, except that a name the export quotes twice (read as '"Jupiter, Jülich"')
    loses its quote marks, as the importer reads it."""
    with path.open(newline="", encoding="utf-8-sig") as file:
        rows = list(csv.DictReader(file))
    for row in rows:
        name = row.get("Name", "").strip()
        if len(name) > 1 and name[0] == name[-1] == '"':
            row["Name"] = name[1:-1]
    return rows


def cited(row: dict[str, str]) -> list[str]:
    return [row[c].strip() for c in SOURCE_COLUMNS if row[c].strip()]


def query(project: Path, sparql: str) -> list[dict[str, str]]:
    """The rows of a SELECT, each variable's value as text ("" when unbound), in the query's column order."""
    return query_rows(project, "-e", sparql)


@pytest.fixture(scope="module")
def imported() -> dict:
    """A project with the three Epoch imports, built (tests/stores.py); with what each import printed."""
    made = stores.built(stores.Inputs(epoch=("epoch-hardware", "epoch-clusters", "epoch-datacenters")))
    return {"project": made.project, "outputs": made.imports, "build": made.build[0]}


def test_each_file_is_imported_and_unusable_cells_are_reported_with_file_row_and_column(imported):
    out, err = imported["outputs"]["epoch-clusters"]
    assert out.startswith("imported  gpu_clusters.csv -> <https://w3id.org/hpckg/graph/import/epoch-clusters/")
    # Row 743 of the file builds upon "Cambridge Dawn Phase 1", which is no row's name: reported, not linked.
    rows = csv_rows(CLUSTERS)
    number = next(n for n, r in enumerate(rows, start=1) if r["Builds Upon"] == "Cambridge Dawn Phase 1")
    assert f"gpu_clusters.csv row {number} (line " in err and "column 'Builds Upon'" in err
    assert "Cambridge Dawn Phase 1" in err
    dc_out, _ = imported["outputs"]["epoch-datacenters"]
    assert "data_centers.csv -> <https://w3id.org/hpckg/graph/import/epoch-datacenters/data-centers>" in dc_out
    assert "data_center_timelines.csv -> <https://w3id.org/hpckg/graph/import/epoch-datacenters/" \
           "data-center-timelines>" in dc_out


def test_build_validates_and_only_the_unsourced_claims_are_flagged_as_warnings(imported):
    project = imported["project"]
    assert "(4 machine-written graphs)" in imported["build"]
    completed = run_hpckg("validate", "--format", "json", cwd=project)
    report = json.loads(completed.stdout)
    assert completed.returncode == 0 and report["conforms"], completed.stdout[-2000:]
    severities = Counter((v["rule"], v["severity"]) for v in report["violations"])
    flagged = query(project, f"SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE {{ ?c a hpc:Claim ; hpc:basis <{NO_SOURCE}> }}")
    assert severities == {("dataset-gives-no-source", "Warning"): int(flagged[0]["n"])}
    assert int(flagged[0]["n"]) > 0


def test_every_row_is_a_system_and_the_summary_query_counts_the_raw_file(imported):
    rows = csv_rows(CLUSTERS)
    names = query(imported["project"], """
        SELECT ?name ?system WHERE { ?c hpc:property hpc:epochClusterName ; hpc:about ?system ; hpc:value ?name .
                                     ?system a hpc:System }""")
    assert Counter(r["name"] for r in names) == Counter(r["Name"].strip() for r in rows)
    assert len({r["system"] for r in names}) == len(rows) == 786

    expected = Counter((r["Certainty"], r["Status"]) for r in rows)
    unsourced = Counter((r["Certainty"], r["Status"]) for r in rows if not cited(r))
    summary = query(imported["project"], Path(imported["project"] / "queries" / "epoch-clusters-summary.rq")
                    .read_text(encoding="utf-8"))
    assert list(summary[0]) == ["certainty", "status", "clusters", "unsourced"]
    assert len(summary) == 9
    for row in summary:
        key = (row["certainty"], row["status"])
        assert (int(row["clusters"]), int(row["unsourced"])) == (expected[key], unsourced[key]), key
    assert sum(int(r["clusters"]) for r in summary) == len(rows)
    assert sum(int(r["unsourced"]) for r in summary) == sum(1 for r in rows if not cited(r)) > 200


def cited_sets(project: Path) -> dict[str, Counter]:
    """Epoch cluster name -> Counter of what each system of that name cites: frozenset() for a system whose
    every claim (its own and its components') cites only the dataset, with the no-source basis and never at
    tier reported; else the set of its sources' URLs (or identifiers, for citations in words)."""
    found = []
    for about in ("BIND (?system AS ?about)", "?about hpc:componentOf ?system ."):
        found += query(project, f"""
            SELECT ?name ?system ?tier ?basis ?source ?url ?identifier WHERE {{
              ?id hpc:property hpc:epochClusterName ; hpc:about ?system ; hpc:value ?name .
              {about}
              ?claim a hpc:Claim ; hpc:about ?about ; hpc:tier ?tier ; prov:hadPrimarySource ?source .
              OPTIONAL {{ ?claim hpc:basis ?basis }}
              OPTIONAL {{ ?source schema:url ?url }}
              OPTIONAL {{ ?source dcterms:identifier ?identifier }}
            }}""")
    by_system: dict[tuple[str, str], list[dict[str, str]]] = {}
    for row in found:
        by_system.setdefault((row["name"], row["system"]), []).append(row)
    sets: dict[str, Counter] = {}
    for (name, _), claims in by_system.items():
        sources, bases = {c["source"] for c in claims}, {c["basis"] for c in claims}
        if DATASET in sources or NO_SOURCE in bases:
            # Presented as unsourced, and consistently so: nothing else cited, never reported.
            assert sources == {DATASET} and bases == {NO_SOURCE}, (name, sources, bases)
            assert "https://w3id.org/hpckg/vocab/tier/reported" not in {c["tier"] for c in claims}, name
            what = frozenset()
        else:
            what = frozenset(c["url"] or c["identifier"] for c in claims)
        sets.setdefault(name, Counter())[what] += 1
    return sets


def test_unsourced_rows_cite_only_the_dataset_and_sourced_rows_cite_their_urls(imported):
    expected: dict[str, Counter] = {}
    for row in csv_rows(CLUSTERS):
        urls = frozenset(text.split(" ", 1)[0] if text.startswith("http") else text for text in cited(row))
        expected.setdefault(row["Name"].strip(), Counter())[urls] += 1
    assert cited_sets(imported["project"]) == expected
    unsourced = sum(counter[frozenset()] for counter in expected.values())
    assert unsourced == sum(1 for r in csv_rows(CLUSTERS) if not cited(r)) > 200


def test_certainty_maps_to_tiers_by_the_documented_table_and_is_kept_verbatim(imported):
    found = query(imported["project"], """
        SELECT DISTINCT ?c ?name ?tier ?certainty WHERE {
          ?c hpc:property hpc:epochClusterName ; hpc:value ?name ; hpc:tier ?tier ;
             hpc:reference/hpc:sourceCertainty ?certainty }""")
    table = {("Confirmed", True): "reported", ("Likely", True): "lead", ("Unlikely", True): "lead",
             ("Confirmed", False): "lead", ("Likely", False): "lead", ("Unlikely", False): "lead"}
    expected = Counter((r["Name"].strip(), r["Certainty"], table[(r["Certainty"], bool(cited(r)))])
                       for r in csv_rows(CLUSTERS))
    assert Counter((r["name"], r["certainty"], r["tier"].rsplit("/", 1)[-1]) for r in found) == expected


def test_chips_are_components_linked_to_the_hardware_parts_and_peak_compute_is_derived(imported):
    project = imported["project"]
    hardware = {r["Hardware name"].strip(): r for r in csv_rows(HARDWARE)}
    rows = [r for r in csv_rows(CLUSTERS) if r["Chip type (primary)"].strip() == "NVIDIA H100 SXM5 80GB"
            and r["Chip quantity (primary)"].strip() and not r["Chip type (secondary)"].strip()]
    row = rows[0]
    quantity = round(float(row["Chip quantity (primary)"]))
    found = query(project, f"""
        SELECT ?component ?part ?partLabel ?quantity ?peakCompute ?tier (COUNT(DISTINCT ?input) AS ?inputs) WHERE {{
          ?id hpc:property hpc:epochClusterName ; hpc:value "{row['Name']}" ; hpc:about ?system .
          ?component hpc:componentOf ?system ; hpc:role role:accelerator ; hpc:partModel ?part ;
                     hpc:quantity ?quantity .
          ?part a hpc:PartModel ; rdfs:label ?partLabel .
          ?derived a hpc:DerivedClaim ; hpc:about ?system ; hpc:property hpc:peakComputeTflopsTensor16 ;
                   hpc:value ?peakCompute ; hpc:tier ?tier ; prov:wasDerivedFrom ?input .
        }} GROUP BY ?component ?part ?partLabel ?quantity ?peakCompute ?tier""")
    assert len(found) == 1, found
    result = found[0]
    assert result["partLabel"] == "NVIDIA H100 SXM5 80GB" and int(result["quantity"]) == quantity
    assert result["part"] == "https://w3id.org/hpckg/id/part/nvidia-h100-sxm5-80gb"
    peak = float(hardware["NVIDIA H100 SXM5 80GB"]["Tensor-FP16/BF16 performance (FLOP/s)"]) / 1e12
    assert float(result["peakCompute"]) == pytest.approx(quantity * peak, rel=1e-5)
    assert int(result["inputs"]) == 3  # quantity, part model, the part's peak
    weakest = "lead" if (row["Certainty"], bool(cited(row))) != ("Confirmed", True) else "reported"
    assert result["tier"].endswith("/" + weakest)


def test_links_between_records_name_the_other_system(imported):
    rows = csv_rows(CLUSTERS)
    names = Counter(r["Name"].strip() for r in rows)
    expected = {(r["Name"].strip(), r["Superseded by"].strip()) for r in rows
                if r["Superseded by"].strip() in names and names[r["Name"].strip()] == 1}
    found = query(imported["project"], """
        SELECT ?from ?to WHERE {
          ?c hpc:property hpc:succeededBy ; hpc:about ?a ; hpc:value ?b .
          ?x hpc:property hpc:epochClusterName ; hpc:about ?a ; hpc:value ?from .
          ?y hpc:property hpc:epochClusterName ; hpc:about ?b ; hpc:value ?to }""")
    assert expected and expected <= {(r["from"], r["to"]) for r in found}


def test_data_centers_and_their_timelines_land_on_one_entity(imported):
    project = imported["project"]
    centers, timelines = csv_rows(CENTERS), csv_rows(TIMELINES)
    found = query(project, """
        SELECT (COUNT(DISTINCT ?d) AS ?n) WHERE { ?d a hpc:Datacenter . ?c hpc:about ?d ;
          prov:hadPrimarySource <https://w3id.org/hpckg/id/source/epoch-data-centers> }""")
    assert int(found[0]["n"]) == len(centers) == 17
    dated = query(project, """
        SELECT ?label (COUNT(DISTINCT ?when) AS ?dates) WHERE {
          ?c hpc:about ?d ; hpc:property hpc:constructionStatus ; hpc:pointInTime ?when . ?d rdfs:label ?label }
        GROUP BY ?label""")
    expected = Counter(r["Data center"] for r in timelines if r["Construction status"].strip())
    assert {r["label"]: int(r["dates"]) for r in dated} == dict(expected)
    abilene = query(project, """
        SELECT ?p ?v WHERE { ?d rdfs:label "OpenAI-Oracle Stargate Abilene Texas"@en .
          ?c hpc:about ?d ; hpc:property ?p ; hpc:value ?v ; hpc:rank rank:preferred }""")
    values = {r["p"].rsplit("#", 1)[-1]: r["v"] for r in abilene}
    row = next(r for r in centers if r["Handle"] == "OpenAI-Oracle Stargate Abilene Texas")
    assert Decimal(values["powerCapacityMW"]) == Decimal(row["Current power (MW)"])
    assert values["operator"] == "https://w3id.org/hpckg/id/org/oracle" or values["operator"].endswith("/oracle")
    latitude = query(project, """
        SELECT ?v WHERE { ?d rdfs:label "OpenAI-Oracle Stargate Abilene Texas"@en .
          ?c hpc:about ?d ; hpc:property hpc:latitude ; hpc:value ?v }""")
    assert float(latitude[0]["v"]) == pytest.approx(32 + 29 / 60 + 59 / 3600, abs=1e-6)  # 32°29'59"N
    written = "".join(p.read_text(encoding="utf-8") for p in (project / GRAPHS / "epoch-datacenters").iterdir())
    assert "airtableusercontent" not in written and "Sentinel" not in written


def test_imported_figures_round_trip_through_an_nquads_export(imported, tmp_path):
    project = imported["project"]
    out = tmp_path / "hpckg.nq"
    completed = run_hpckg("export", "--format", "nq", "--out", str(out), cwd=project)
    assert completed.returncode == 0, text(completed)[1]
    store = ox.Store()
    store.bulk_load(path=str(out), format=ox.RdfFormat.N_QUADS)
    exported = Counter((r["name"].value, r["p"].value.rsplit("#", 1)[-1], Decimal(r["v"].value))
                       for r in store.query("""
        PREFIX hpc: <https://w3id.org/hpckg/ontology#>
        SELECT ?name ?p ?v WHERE { GRAPH ?g {
          ?id hpc:property hpc:epochClusterName ; hpc:about ?s ; hpc:value ?name .
          ?c hpc:about ?s ; hpc:property ?p ; hpc:value ?v .
          FILTER (?p IN (hpc:powerCapacityMW, hpc:h100Equivalents)) } }"""))
    expected = Counter((row["Name"].strip(), prop, Decimal(row[column].strip()))
                       for row in csv_rows(CLUSTERS)
                       for column, prop in (("Power Capacity (MW)", "powerCapacityMW"),
                                            ("H100 equivalents", "h100Equivalents"))
                       if row[column].strip())
    assert exported == expected
    assert sum(expected.values()) > 1000


def test_reimporting_unchanged_files_is_a_no_op(imported):
    project = imported["project"]
    before = {p: p.stat().st_mtime_ns for p in (project / GRAPHS).rglob("*.nq")}
    for name, files in (("epoch-clusters", [CLUSTERS]), ("epoch-datacenters", [CENTERS, TIMELINES])):
        completed = run_hpckg("import", name, *map(str, files), cwd=project)
        assert completed.returncode == 0
        results = [line for line in text(completed)[0].splitlines() if " -> <" in line]  # then the summary table
        assert results and all(line.startswith("unchanged ") for line in results), text(completed)[0]
    assert {p: p.stat().st_mtime_ns for p in (project / GRAPHS).rglob("*.nq")} == before


def test_a_malformed_row_is_reported_and_the_rest_imported_a_malformed_file_is_refused(project, tmp_path):
    lines = CLUSTERS.read_text(encoding="utf-8").splitlines(keepends=True)
    header = next(csv.reader([lines[0]]))
    broken = tmp_path / "download" / "gpu_clusters.csv"
    broken.parent.mkdir()
    rows = csv_rows(CLUSTERS)
    rows[0]["Chip quantity (primary)"] = "about 1000"
    rows[0]["Country"] = "Atlantis"
    with broken.open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)
    completed = run_hpckg("import", "epoch-clusters", str(broken), cwd=project)
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert "gpu_clusters.csv row 1 (line 2), column 'Chip quantity (primary)': 'about 1000' is not a number" in err
    assert "gpu_clusters.csv row 1 (line 2), column 'Country': 'Atlantis'" in err
    graph = (project / GRAPHS / "epoch-clusters" / "gpu-clusters.nq").read_text(encoding="utf-8")
    assert graph.count("https://w3id.org/hpckg/ontology#epochClusterName>") == len(rows)

    wrong = tmp_path / "gpu_clusters.csv"
    wrong.write_text("Name,Status\nx,Planned\n", encoding="utf-8")
    refused = run_hpckg("import", "epoch-clusters", str(wrong), cwd=project)
    assert refused.returncode == 2
    assert "not Epoch's gpu_clusters.csv: no column Certainty" in text(refused)[1]
    assert "Traceback" not in text(refused)[1]
    assert (project / GRAPHS / "epoch-clusters" / "gpu-clusters.nq").read_text(encoding="utf-8") == graph


def test_peak_compute_is_derived_exactly_for_clusters_whose_every_counted_chip_has_a_peak(imported):
    peaks = {r["Hardware name"].strip() for r in csv_rows(HARDWARE)
             if r["Tensor-FP16/BF16 performance (FLOP/s)"].strip()}
    expected = Counter()
    for row in csv_rows(CLUSTERS):
        counted = [row[f"Chip type ({which})"].strip() for which in ("primary", "secondary")
                   if row[f"Chip quantity ({which})"].strip()]
        if counted and all(chip in peaks for chip in counted):
            expected[row["Name"].strip()] += 1
    found = query(imported["project"], """
        SELECT ?name WHERE {
          ?id hpc:property hpc:epochClusterName ; hpc:about ?system ; hpc:value ?name .
          ?derived a hpc:DerivedClaim ; hpc:about ?system ; hpc:property hpc:peakComputeTflopsTensor16 }""")
    assert Counter(r["name"] for r in found) == expected
    assert sum(expected.values()) > 300


def test_a_data_center_file_without_its_columns_is_refused_whole(project, tmp_path):
    wrong = tmp_path / "data_center_timelines.csv"
    wrong.write_text("Date,Data center\n2025-01-01,X\n", encoding="utf-8")
    refused = run_hpckg("import", "epoch-datacenters", str(wrong), cwd=project)
    assert refused.returncode == 2
    err = text(refused)[1]
    assert "not Epoch's data_center_timelines.csv: no column Construction status" in err and "Traceback" not in err
    assert not (project / GRAPHS / "epoch-datacenters").exists()


def test_names_the_export_quotes_twice_lose_their_quote_marks(imported):
    # gpu_clusters.csv writes five names as """Jupiter, Jülich""": the CSV reader keeps one pair of quote
    # marks, which are the spreadsheet's escaping of the comma, not part of the name.
    with CLUSTERS.open(newline="", encoding="utf-8-sig") as file:
        quoted = [row["Name"] for row in csv.DictReader(file) if row["Name"].startswith('"')]
    assert len(quoted) >= 5
    rows = query(imported["project"], """
        SELECT ?label WHERE { ?s a hpc:System ; rdfs:label ?label FILTER (CONTAINS(?label, '"')) }""")
    assert rows == []
    rows = query(imported["project"], "SELECT ?label WHERE { sys:epoch-jupiter-julich rdfs:label ?label }")
    assert rows == [{"label": "Jupiter, Jülich"}]
