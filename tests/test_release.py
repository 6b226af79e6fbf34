"""`hpckg release`: a release made twice from the same commit is the same bytes; its description gives each
dump's SHA-256 and size and conforms to DCAT-AP; its PROV-O record names the commit and the inputs; a
release after one changed claim lists exactly that change; the server offers the release files."""

from __future__ import annotations

import gzip
import hashlib
import subprocess
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib

from dcat_ap import MANDATORY, RECOMMENDED, as_rdflib, validate
from hpckg.build import populate, source_files
from hpckg.project import sha256_of
from hpckg.publish.release import Origin, git_origin, release
from hpckg.publish.settings import PublisherSettings
from hpckg.store import Store
from serve_live import in_process, serve_store

from conftest import run_hpckg, session_project, text

DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")
SPDX = rdflib.Namespace("http://spdx.org/rdf/terms#")
PROV = rdflib.Namespace("http://www.w3.org/ns/prov#")
DCT = rdflib.Namespace("http://purl.org/dc/terms/")
HPC = "https://w3id.org/hpckg/ontology#"
KALOS = "https://w3id.org/hpckg/id/system/kalos"
ORIGIN = Origin("0123456789abcdef0123456789abcdef01234567", "2026-12-01T09:00:00+00:00",
                (("data/ttl/systems/kalos.ttl", "ab" * 32),))


def fresh_store() -> Store:
    store = Store(None)
    populate(store, project=session_project())
    return store


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def first_release(tmp_path_factory) -> Path:
    return release(fresh_store(), releases=tmp_path_factory.mktemp("releases"), origin=ORIGIN,
                   settings=PublisherSettings(), version="2026-12")


def test_a_release_made_twice_from_the_same_commit_is_the_same_bytes(first_release, tmp_path):
    again = release(fresh_store(), releases=tmp_path, origin=ORIGIN, settings=PublisherSettings(), version="2026-12")
    assert sorted(files(again)) == ["CHANGES.md", "CITATION.cff", "SHA256SUMS", "changes.ttl", "description.ttl",
                                    "hpckg.jsonld.gz", "hpckg.nq.gz", "hpckg.nt.gz", "hpckg.rdf.gz",
                                    "hpckg.trig.gz", "hpckg.ttl.gz"]
    assert files(again) == files(first_release)


def test_checksums_and_sizes_in_the_description_are_the_files(first_release):
    graph = as_rdflib((first_release / "description.ttl").read_bytes(), "turtle")
    distributions = list(graph.subjects(rdflib.RDF.type, DCAT.Distribution))
    assert len(distributions) == 6
    for dist in distributions:
        path = first_release / str(dist).rsplit("/", 1)[1]
        data = path.read_bytes()
        assert int(graph.value(dist, DCAT.byteSize)) == len(data)
        checksum = graph.value(dist, SPDX.checksum)
        assert str(graph.value(checksum, SPDX.checksumValue)) == hashlib.sha256(data).hexdigest()
        assert str(graph.value(dist, DCAT.compressFormat)).endswith("/application/gzip")
        assert gzip.decompress(data)  # each dump is a gzip file
    sums = dict(reversed(line.split("  ")) for line in (first_release / "SHA256SUMS").read_text().splitlines())
    assert sums == {name: sha256_of(first_release / name) for name in sums} and len(sums) == 10


def test_the_release_description_conforms_to_dcat_ap(first_release):
    graph = as_rdflib((first_release / "description.ttl").read_bytes(), "turtle")
    result = validate(graph, MANDATORY)
    assert result.violations == 0, result.text
    assert sum(validate(graph, RECOMMENDED).severities.values()) == 0


def test_every_dump_holds_the_same_graph_with_the_release_record(first_release):
    quads = list(ox.parse(gzip.decompress((first_release / "hpckg.nq.gz").read_bytes()), format=ox.RdfFormat.N_QUADS))
    triples = set(q.triple for q in quads)
    turtle = set(ox.parse(gzip.decompress((first_release / "hpckg.ttl.gz").read_bytes()), format=ox.RdfFormat.TURTLE))
    assert len(turtle) == len(triples) > 3000
    used = {str(o) for s, p, o in as_rdflib(ox.serialize(list(triples), format=ox.RdfFormat.N_TRIPLES)).triples(
        (rdflib.URIRef("https://w3id.org/hpckg/release/2026-12/activity"), PROV.used, None))}
    assert f"https://w3id.org/hpckg/commit/{ORIGIN.commit}" in used
    assert f"https://w3id.org/hpckg/release/2026-12/input/{'ab' * 32}" in used


def test_citation_names_the_version_and_the_commit_date(first_release):
    cff = (first_release / "CITATION.cff").read_text()
    assert 'version: "2026-12"' in cff and "date-released: 2026-12-01" in cff and "cff-version: 1.2.0" in cff


def test_a_release_after_one_changed_claim_lists_exactly_that_change(first_release):
    store = fresh_store()
    row = next(iter(store.query(f"""
        SELECT ?claim ?value ?g WHERE {{ GRAPH ?g {{ ?claim hpc:about <{KALOS}> ; hpc:property hpc:nodeCount ;
                                                      hpc:value ?value }} }}""")))
    claim, value, graph = row["claim"], row["value"], row["g"]
    changed = ox.Literal(str(int(value.value) + 1), datatype=value.datatype)
    store.update(f"DELETE DATA {{ GRAPH {graph} {{ {claim} <{HPC}value> {value} }} }} ; "
                 f"INSERT DATA {{ GRAPH {graph} {{ {claim} <{HPC}value> {changed} }} }}")
    later = release(store, releases=first_release.parent, origin=ORIGIN, settings=PublisherSettings(),
                    version="2027-01")
    words = (later / "CHANGES.md").read_text()
    assert "Since hpckg 2026-12:" in words
    assert "- 1 claims changed" in words and "- 0 claims added" in words and "- 0 systems added" in words
    assert "- 0 claims deprecated" in words and "- 0 claims removed" in words and "- 0 systems removed" in words
    assert "claim changed (value): Kalos" in words and f"<{claim.value}>" in words
    data = as_rdflib((later / "changes.ttl").read_bytes(), "turtle")
    entries = list(data.subjects(rdflib.RDF.type, rdflib.URIRef(HPC + "ChangeEntry")))
    assert len(entries) == 1
    assert data.value(entries[0], rdflib.URIRef(HPC + "changedEntity")) == rdflib.URIRef(claim.value)
    assert (entries[0], rdflib.RDF.type, rdflib.URIRef("https://www.w3.org/ns/activitystreams#Update")) in data
    assert data.value(entries[0], rdflib.URIRef(HPC + "tier")) is not None


def test_origin_is_the_checked_out_commit_and_the_build_inputs():
    checkout = Path(__file__).resolve().parents[1]
    inputs = source_files(session_project())[:3]
    origin = git_origin(checkout, inputs)
    head = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert origin.commit == head
    assert {sha for _, sha in origin.inputs} == {sha256_of(p) for p in inputs}
    assert all(not name.startswith("/") for name, _ in origin.inputs)


def test_release_command_writes_the_folder_in_a_git_checkout(project):
    root = project
    git = ["git", "-C", str(root), "-c", "user.name=Test", "-c", "user.email=test@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "data"], check=True)
    completed = run_hpckg("release", "--memory", "--version", "2026-12", cwd=root)
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert "released hpckg 2026-12" in out and "first release" in out
    assert (root / "dist" / "releases" / "2026-12" / "hpckg.nq.gz").is_file()


def test_release_command_outside_a_git_checkout_says_why(project):
    completed = run_hpckg("release", "--memory", cwd=project)
    out, err = text(completed)
    assert completed.returncode == 2 and "not a git checkout" in err


def test_the_server_offers_release_files_with_etag_and_ranges(first_release):
    with in_process(serve_store(), timeout=10, workers=1, rate_limit=0,
                    releases_dir=first_release.parent) as client:
        response = client.get("/releases/2026-12/hpckg.nq.gz")
        assert response.status_code == 200 and response.headers["content-type"] == "application/gzip"
        assert response.content == (first_release / "hpckg.nq.gz").read_bytes()
        etag = response.headers["etag"]
        assert client.get("/releases/2026-12/hpckg.nq.gz", headers={"If-None-Match": etag}).status_code == 304
        part = client.get("/releases/2026-12/CITATION.cff", headers={"Range": "bytes=0-11"})
        assert part.status_code == 206 and part.content == b"cff-version:"
        assert client.get("/releases/2026-12/..%2F..%2Fetc%2Fpasswd").status_code == 404
        assert client.get("/releases/1999-01/hpckg.nq.gz").status_code == 404
