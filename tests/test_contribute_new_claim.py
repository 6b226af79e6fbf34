"""Contributions about imported records (issue 36): `hpckg new claim` enriches any record, found by name in the
built store (contributors could scaffold only new systems, and `--site`/`--part` refused imported records), and
a new system that is an imported machine under another name is flagged as a possible duplicate.

The project is a copy of this checkout whose built store is the session's website store (two TOP500
editions, Epoch AI's hardware and clusters), opened read-only: JUPITER Booster (sys:top500-180357) and its
site "EuroHPC/FZJ" exist only there."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import stores
from hpckg.contribute.check import check_files
from hpckg.contribute.scaffold import prefix_block
from hpckg.project import discover

from conftest import copy_project, run_hpckg, text

pytestmark = pytest.mark.imports
# The prefixes `hpckg new` writes, less todo: (a finished contribution has no placeholder left).
TURTLE_PREFIXES = re.sub(r"@prefix todo:.*\n", "", prefix_block())

JUPITER_FILE = Path("data/ttl/claims/top500-180357.ttl")


@pytest.fixture
def project(tmp_path) -> Path:
    root = copy_project(tmp_path / "project")
    (root / ".hpckg").mkdir()
    os.symlink(os.path.realpath(stores.website().store), root / ".hpckg" / "store")
    return root


def new_claim(root: Path, *args: str):
    return run_hpckg("new", "claim", *args, cwd=root)


def filled(path: Path) -> None:
    """Fill the placeholders as a contributor would: tier, basis, the new source's fields, the change's words."""
    content = path.read_text(encoding="utf-8")
    content = content.replace("todo:tier", "tier:reported").replace("todo:basis", "basis:reported")
    content = content.replace('"TODO: the document\'s title"@en', '"JUPITER enters service"@en')
    content = re.sub(r'"TODO: the date the document was published[^"]*"', '"2025-06-10"^^xsd:date', content)
    content = content.replace("todo:source-kind", "sourcekind:news-article")
    content = re.sub(r"\n    dcterms:(publisher|creator) todo:\w+ ;", "", content)
    content = content.replace("TODO: what this change adds, in a few words", "its purpose and site")
    path.write_text(content, encoding="utf-8")


def test_a_claim_about_an_imported_machine_found_by_name_checks_clean_once_filled_in(project):
    done = new_claim(project, "JUPITER Booster", "--property", "purpose", "--value", "AI and simulation",
                     "--source-url", "https://news.example.org/jupiter", "--as-of", "2025-06")
    assert done.returncode == 0, text(done)
    path = project / JUPITER_FILE
    content = path.read_text(encoding="utf-8")
    assert "hpc:about sys:top500-180357 ; hpc:property hpc:purpose ; hpc:value \"AI and simulation\"" in content
    assert 'hpc:asOf "2025-06"^^xsd:gYearMonth' in content
    here = discover(explicit=project)
    before = check_files([path], here)
    assert before.exit_code == 2 and before.codes() == {"placeholder"}, before.to_text()
    filled(path)
    left = check_files([path], here)  # the scaffold's todo: prefix, once nothing uses it
    assert left.exit_code == 1 and left.codes() == {"todo-prefix-left"}, left.to_text()
    path.write_text(re.sub(r"@prefix todo:.*\n", "", path.read_text(encoding="utf-8")), encoding="utf-8")
    after = check_files([path], here)
    assert after.exit_code == 0, after.to_text()
    assert "undefined-entity" not in after.to_text()


def test_a_claim_with_its_new_source_described_checks_clean_as_written(project):
    # Issue 36: the new source's title, date, kind and creator, the basis and the change's words were TODOs to
    # edit by hand; given on the command line, one `hpckg check` after the scaffold passes. The creator is an
    # imported organisation, found by its name.
    done = new_claim(project, "JUPITER Booster", "--property", "purpose", "--value", "AI and simulation",
                     "--source-url", "https://news.example.org/jupiter", "--as-of", "2025-06",
                     "--title", "JUPITER enters service", "--kind", "news-article", "--issued", "2025-06-10",
                     "--creator", "EuroHPC/FZJ", "--publisher", "EuroHPC/FZJ", "--tier", "reported",
                     "--basis", "reported",
                     "--change", "its purpose")
    assert done.returncode == 0, text(done)
    content = (project / JUPITER_FILE).read_text(encoding="utf-8")
    assert "todo:" not in content.split("\n", 2)[2] and "TODO" not in content.split("\n", 2)[2], content
    assert 'dcterms:title "JUPITER enters service"@en' in content and "sourcekind:news-article" in content
    assert "dcterms:creator orgn:" in content and "JUPITER Booster: its purpose" in content
    checked = run_hpckg("check", str(project / JUPITER_FILE), cwd=project)
    assert checked.returncode == 0, text(checked)
    # a second claim that needs a placeholder brings the todo: prefix it uses into the file
    assert new_claim(project, "JUPITER Booster", "--property", "status", "--value", "operational").returncode == 0
    again = (project / JUPITER_FILE).read_text(encoding="utf-8")
    assert again.count("@prefix todo:") == 1 and "hpc:tier todo:tier" in again
    # the new source's description needs a new source
    refused = new_claim(project, "JUPITER Booster", "--property", "purpose", "--value", "x", "--title", "T")
    assert refused.returncode == 2 and "describe the new source of --source-url" in text(refused)[1]


def test_values_are_found_by_name_in_the_imports_and_by_notation_in_the_vocabularies(project):
    # "EuroHPC/FZJ" is both JUPITER's operator and its site in TOP500: the property's range picks the site.
    assert new_claim(project, "sys:top500-180357", "--property", "site", "--value", "EuroHPC/FZJ").returncode == 0
    assert new_claim(project, "JUPITER Booster", "--property", "status", "--value", "operational",
                     "--tier", "reported", "--basis", "reported").returncode == 0
    content = (project / JUPITER_FILE).read_text(encoding="utf-8")
    assert "hpc:property hpc:site ; hpc:value site:top500-site-51016" in content
    assert "hpc:property hpc:status ; hpc:value status:operational" in content
    assert "hpc:tier tier:reported ; hpc:basis basis:reported" in content
    assert content.count("a hpc:ChangeEntry") == 1  # one change entry per entity and day, however many claims
    assert content.count("@prefix hpc:") == 1


@pytest.mark.parametrize("args,message", [
    (("JUPITER Booster", "--property", "purpos", "--value", "x"), "is not a claim property"),
    (("JUPITER Booster", "--property", "rmax", "--value", "lots"), "is a number"),
    (("JUPITER Booster", "--property", "status", "--value", "operatonal"), "did you mean"),
    # a value of another scheme is said to be one, not answered with the nearest spelling ("did you mean reported?")
    (("JUPITER Booster", "--property", "status", "--value", "operational", "--tier", "imported"),
     "'imported' is one of the claim bases (basis:imported), not of the confidence tiers"),
    (("JUPITER Booster", "--property", "systemKind", "--value", "planned"),
     "'planned' is one of the system statuses (status:planned), not of the system kinds"),
    (("No Such Machine Anywhere", "--property", "purpose", "--value", "x"), "is not a name in data/ttl/"),
    (("sys:top500-999999999", "--property", "purpose", "--value", "x"), "neither in data/ttl/ nor in the built"),
    (("JUPITER Booster", "--property", "purpose"), "needs --value"),
    (("JUPITER Booster", "--property", "purpose", "--value", "x", "--operator", "y"), "--operator cannot be used"),
])
def test_what_cannot_be_written_is_said_and_nothing_is_written(project, args, message):
    done = new_claim(project, *args)
    assert done.returncode == 2
    assert message in text(done)[1], text(done)
    assert not (project / "data" / "ttl" / "claims").exists()


def test_a_name_spelled_otherwise_is_answered_with_the_records_it_may_mean(project):
    # `hpckg new --help`'s own example gave --creator "Forschungszentrum Jülich", which TOP500 writes
    # "Forschungszentrum Juelich (FZJ)": the error only said to run `hpckg search`. It now names the record.
    source = ("--source-url", "https://www.fz-juelich.de/en/news/jupiter", "--title", "JUPITER opens")
    done = new_claim(project, "JUPITER Booster", "--property", "purpose", "--value", "AI and simulation", *source,
                     "--creator", "Forschungszentrum Jülich")
    assert done.returncode == 2
    error = text(done)[1]
    assert "did you mean orgn:top500-operator-" in error and "(Forschungszentrum Juelich (FZJ))" in error, error
    assert "sys:" not in error  # a creator is an organisation: systems at FZJ are not offered
    assert not (project / "data" / "ttl" / "claims").exists()
    done = new_claim(project, "JUPITER Booster", "--property", "purpose", "--value", "AI and simulation", *source,
                     "--creator", "Forschungszentrum Juelich (FZJ)")  # the name it suggested
    assert done.returncode == 0, text(done)
    assert "dcterms:creator orgn:top500-operator-" in (project / JUPITER_FILE).read_text(encoding="utf-8")


def test_a_new_system_refers_to_an_imported_site_instead_of_refusing_it(project):
    # The issue's contributor created site:argonne beside TOP500's own record, because --site refused it.
    done = run_hpckg("new", "system", "Example Booster", "--operator", "Shanghai AI Lab", "--country", "DE",
                     "--site", "EuroHPC/FZJ", cwd=project)
    assert done.returncode == 0, text(done)
    content = (project / "data" / "ttl" / "systems" / "example-booster.ttl").read_text(encoding="utf-8")
    assert "hpc:property hpc:site ; hpc:value site:top500-site-51016" in content
    missing = run_hpckg("new", "system", "Other", "--operator", "Shanghai AI Lab", "--country", "DE",
                        "--site", "No Such Site Anywhere", cwd=project)
    assert missing.returncode == 2 and "neither in data/ttl/ nor in the built store" in text(missing)[1]


def filled_system(path: Path) -> None:
    """A scaffolded system file with every placeholder filled in (what its sources would say)."""
    content = path.read_text(encoding="utf-8")
    for old, new in (("todo:tier", "tier:reported"), ("todo:basis", "basis:reported"),
                     ("todo:status", "status:operational"), ("todo:kind", "kind:hpc"),
                     ("todo:source-url", "<https://news.example.org/frontier>"),
                     ("todo:source-kind", "sourcekind:news-article")):
        content = content.replace(old, new)
    content = re.sub(r'"TODO: the document\'s title"@en', '"Frontier"@en', content)
    content = re.sub(r'dcterms:issued "TODO[^"]*"', 'dcterms:issued "2025-06-10"^^xsd:date', content)
    content = re.sub(r'hpc:read "TODO[^"]*"@en', 'hpc:read "An exascale machine."@en', content)
    content = re.sub(r'hpc:asOf "TODO[^"]*"', 'hpc:asOf "2025-06"^^xsd:gYearMonth', content)
    content = re.sub(r"\n    dcterms:(publisher|creator) todo:[\w-]+ ;", "", content)
    content = re.sub(r"@prefix todo:.*\n", "", content)
    path.write_text(content, encoding="utf-8")


@pytest.mark.parametrize("name", ["ORNL Frontier", "Frontier supercomputer", "Oak Ridge Frontier"])
def test_an_imported_machine_under_another_name_is_a_possible_duplicate(project, name):
    done = run_hpckg("new", "system", name, "--operator", "DOE/SC/Oak Ridge National Laboratory", "--country", "US",
                     cwd=project)
    assert done.returncode == 0, text(done)
    assert "may be a machine the built store already has" in text(done)[1]  # said at once, and by check below
    assert "sys:top500-180047" in text(done)[1]
    path = next((project / "data" / "ttl" / "systems").glob("*frontier*.ttl"))
    filled_system(path)
    report = check_files([path], discover(explicit=project))
    found = [p for p in report.problems if p.code == "possible-duplicate"]
    assert len(found) == 1, report.to_text()
    assert found[0].details["existing"] == "https://w3id.org/hpckg/id/system/top500-180047"  # TOP500's Frontier
    assert "also sys:epoch-" in found[0].message  # and Epoch AI's record of the same machine
    assert "country country:US" in found[0].message


def test_an_imported_machine_under_a_name_the_graph_lacks_is_found_by_its_part_and_country(project):
    # Issue 36: "OLCF-5" (Frontier's project name) passed: no name of the graph is like it. Frontier's TOP500
    # record has the same accelerator part model, the same operator and country.
    done = run_hpckg("new", "system", "OLCF-5", "--operator", "DOE/SC/Oak Ridge National Laboratory", "--country",
                     "US", "--part", "AMD Instinct MI250X", "--nodes", "9408", "--per-node", "4", cwd=project)
    assert done.returncode == 0, text(done)
    path = project / "data" / "ttl" / "systems" / "olcf-5.ttl"
    filled_system(path)
    report = check_files([path], discover(explicit=project))
    [found] = [p for p in report.problems if p.code == "possible-duplicate"]
    assert "https://w3id.org/hpckg/id/system/top500-180047" in found.details["existing"], report.to_text()
    assert "accelerator part part:top500-amd-instinct-mi250x" in found.message and "country country:US" in found.message
    # the same part in another country, with another operator, is another machine
    other = run_hpckg("new", "system", "Elsewhere One", "--operator", "Shanghai AI Lab", "--country", "CN",
                      "--part", "AMD Instinct MI250X", cwd=project)
    assert other.returncode == 0, text(other)
    path = project / "data" / "ttl" / "systems" / "elsewhere-one.ttl"
    filled_system(path)
    assert "possible-duplicate" not in check_files([path], discover(explicit=project)).codes()


def test_a_namesake_that_agrees_on_nothing_else_is_no_duplicate(project):
    done = run_hpckg("new", "system", "Frontier cluster", "--operator", "Shanghai AI Lab", "--country", "CN",
                     cwd=project)
    assert done.returncode == 0, text(done)
    assert "may be a machine" not in text(done)[1]
    path = project / "data" / "ttl" / "systems" / "frontier-cluster.ttl"
    filled_system(path)
    report = check_files([path], discover(explicit=project))
    assert "possible-duplicate" not in report.codes(), report.to_text()


CORRECTION = TURTLE_PREFIXES + """\
claim:top500-180357-power-kw-news a hpc:Claim ;
    hpc:about sys:top500-180357 ; hpc:property hpc:powerKW ; hpc:value 13000.5 ;
    hpc:tier tier:reported ; hpc:basis basis:reported ; hpc:rank RANK ;
    prov:hadPrimarySource src:example-news-jupiter-power .

src:example-news-jupiter-power a hpc:Source ;
    dcterms:title "JUPITER's measured power"@en ;
    schema:url <https://news.example.org/jupiter-power> ;
    dcterms:issued "2025-07-01"^^xsd:date ;
    hpc:sourceKind sourcekind:news-article .

chg:top500-180357-2026-12-07 a hpc:ChangeEntry ;
    hpc:changedEntity sys:top500-180357 ;
    dcterms:date "2026-12-07"^^xsd:date ;
    rdfs:comment "JUPITER Booster: its power, corrected"@en .
"""


@pytest.mark.parametrize("rank", ["preferred", "normal"])
def test_an_imported_figure_is_corrected_in_data_ttl_alone(project, rank):
    # The advice was to "ask for" the imported claim to be deprecated, with no way to ask: a preferred
    # claim is what the build takes as the best (10-truthy.rq), and the import stays as TOP500 gives it.
    path = project / JUPITER_FILE
    path.parent.mkdir(parents=True)
    path.write_text(CORRECTION.replace("RANK", f"rank:{rank}"), encoding="utf-8")
    report = check_files([path], discover(explicit=project))
    assert report.exit_code == 1, report.to_text()  # a conflict to review, no error (one-preferred-claim)
    [conflict] = report.problems
    assert conflict.code == "conflict" and "claim:top500-180357-power-kw-2025-06" in conflict.message
    assert "which stays as its dataset gives it" in conflict.fix
    assert "ask" not in conflict.fix  # nothing to ask of an import
    if rank == "preferred":
        assert "the build takes its value as the best" in conflict.fix
    else:
        assert "set hpc:rank rank:preferred here" in conflict.fix
    assert "sys:top500-180357 (JUPITER Booster) hpc:powerKW = 13000.5: conflicts with" in report.to_text()
