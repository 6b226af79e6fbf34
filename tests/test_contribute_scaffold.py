"""`hpckg new system`: the skeleton parses, lands in the right place and fails the checks until
every placeholder is filled in."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpckg.contribute.check import check_files
from hpckg.contribute.scaffold import new_system
from hpckg.errors import InputError
from hpckg.formats import rdf_format
from hpckg.store import parse_file

from conftest import run_hpckg, session_project, text


def test_skeleton_parses_and_fails_naming_placeholders(tmp_path: Path):
    path = new_system(session_project(), "Frontier (ORNL)", operator="Oak Ridge National Laboratory", country="us",
                      out_dir=tmp_path)
    assert path == tmp_path / "frontier.ttl"
    quads = parse_file(path, format=rdf_format("ttl"))
    assert any(q.subject.value == "https://w3id.org/hpckg/id/system/frontier" for q in quads)
    report = check_files([path], project=session_project())
    assert report.exit_code == 2
    assert report.codes() == {"placeholder"}
    named = {p.focus for p in report.problems}
    for todo in ("tier", "basis", "status", "kind", "source-url", "source-kind"):
        assert f"https://w3id.org/hpckg/id/todo/{todo}" in named
    assert any(p.focus.startswith("TODO:") for p in report.problems)
    assert all(p.line for p in report.problems)


def test_skeleton_reuses_a_known_operator(tmp_path: Path):
    path = new_system(session_project(), "Example", operator="Shanghai AI Lab", country="CN", out_dir=tmp_path)
    text = path.read_text(encoding="utf-8")
    assert "hpc:value orgn:shanghai-ai-lab" in text
    assert "a hpc:Organisation" not in text


def test_refuses_to_overwrite(tmp_path: Path):
    path = new_system(session_project(), "Example", operator="ORNL", country="US", out_dir=tmp_path)
    path.write_text("# mine\n", encoding="utf-8")
    with pytest.raises(InputError, match="already exists"):
        new_system(session_project(), "Example", operator="ORNL", country="US", out_dir=tmp_path)
    assert path.read_text(encoding="utf-8") == "# mine\n"


def test_refuses_a_bad_country(tmp_path: Path):
    with pytest.raises(InputError, match="ISO 3166-1"):
        new_system(session_project(), "Example", operator="ORNL", country="USA", out_dir=tmp_path)


def test_a_source_already_at_the_address_is_cited_not_added_twice(tmp_path: Path):
    # Issue 36: `new system --source-url` wrote a second source for the URL just added with `new source`.
    path = new_system(session_project(), "Example", operator="Shanghai AI Lab", country="CN", out_dir=tmp_path,
                      source_url="https://arxiv.org/abs/2403.07648")
    text = path.read_text(encoding="utf-8")
    assert "prov:hadPrimarySource src:arxiv-2403-07648" in text
    assert "a hpc:Source" not in text
    fresh = new_system(session_project(), "Other", operator="Shanghai AI Lab", country="CN", out_dir=tmp_path,
                       source_url="https://example.org/a-new-page")
    assert "src:other-source a hpc:Source" in fresh.read_text(encoding="utf-8")


def test_an_existing_source_and_the_status_are_written_as_given(tmp_path: Path):
    path = new_system(session_project(), "Example", operator="Shanghai AI Lab", country="CN", out_dir=tmp_path,
                      source="arxiv-2403-07648", status="planned")
    text = path.read_text(encoding="utf-8")
    assert "hpc:property hpc:status ; hpc:value status:planned" in text
    assert "prov:hadPrimarySource src:arxiv-2403-07648" in text and "a hpc:Source" not in text
    with pytest.raises(InputError, match="not one of"):
        new_system(session_project(), "Other", operator="Shanghai AI Lab", country="CN", out_dir=tmp_path,
                   status="retired-ish")
    with pytest.raises(InputError, match="not both"):
        new_system(session_project(), "Third", operator="Shanghai AI Lab", country="CN", out_dir=tmp_path,
                   source="arxiv-2403-07648", source_url="https://example.org/x")


def test_a_basis_placeholder_offers_only_what_a_person_writes(tmp_path: Path):
    # Issue 36: the fix offered basis:imported and basis:dataset-gives-no-source for a hand-curated claim. The
    # ontology marks the values only hpckg writes (hpc:machineOnly); the fix leaves them out.
    path = new_system(session_project(), "Example", operator="Shanghai AI Lab", country="CN", out_dir=tmp_path)
    report = check_files([path], project=session_project())
    fixes = {p.fix for p in report.problems if p.focus == "https://w3id.org/hpckg/id/todo/basis"}
    assert fixes and all("basis:reported" in fix and "basis:operator-stated" in fix for fix in fixes)
    assert not any(word in fix for fix in fixes for word in ("basis:imported", "dataset-gives-no-source",
                                                             "dataset-cites-record", "basis:derived"))


def test_a_source_by_an_organisation_not_yet_known_adds_both_in_one_step(project: Path):
    # Issue 36: CONTRIBUTING adds the source, then the organisation, but `new source --creator` refused an
    # organisation that did not exist yet, and an organisation's claims need a source: a loop. The new
    # organisation is written with the source, its type claim citing it; one `hpckg check` of both is clean.
    done = run_hpckg("new", "source", "equinox-press", "--url", "https://news.example.org/equinox", "--title",
                     "Equinox announced", "--kind", "news-article", "--issued", "2026-11-02",
                     "--creator", "Equinox Computing Consortium", "--publisher", "Equinox Computing Consortium",
                     "--type", "company", cwd=project)
    out, err = text(done)
    assert done.returncode == 0, out + err
    assert "added organisation <https://w3id.org/hpckg/id/org/equinox-computing-consortium>" in out
    organisations = (project / "data/ttl/organisations.ttl").read_text(encoding="utf-8")
    assert organisations.count("orgn:equinox-computing-consortium a hpc:Organisation") == 1  # creator = publisher
    assert "prov:hadPrimarySource src:equinox-press" in organisations
    sources = (project / "data/ttl/sources.ttl").read_text(encoding="utf-8")
    assert "dcterms:creator orgn:equinox-computing-consortium" in sources
    assert "hpckg check data/ttl/sources.ttl data/ttl/organisations.ttl" in err.replace(str(project) + "/", "")
    for placeholder, value in (("todo:tier", "tier:reported"), ("todo:basis", "basis:operator-stated"),
                               ("@prefix todo: <https://w3id.org/hpckg/id/todo/> .\n", "")):
        organisations = organisations.replace(placeholder, value)  # as the check's fixes say
    (project / "data/ttl/organisations.ttl").write_text(organisations, encoding="utf-8")
    check = run_hpckg("check", "data/ttl/sources.ttl", "data/ttl/organisations.ttl", cwd=project)
    assert check.returncode == 0, "".join(text(check))
    # a name that is a record already is cited, not added
    again = run_hpckg("new", "source", "equinox-press-2", "--creator", "Equinox Computing Consortium", cwd=project)
    assert again.returncode == 0 and "added organisation" not in text(again)[0]

