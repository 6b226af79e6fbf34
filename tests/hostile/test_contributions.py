"""Hostile and careless contributions, through the real `hpckg` command: every case ends with its own exit
code, a message naming the file (and line where there is one), valid JSON with --format json, no traceback,
and nothing written to a built store."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from hpckg.cli import INTERNAL_ERROR, main

from conftest import ROOT, run_hpckg, text

FRONTIER = ROOT / "tests" / "contributions" / "good" / "frontier.ttl"


def check(*args: str, cwd: Path | None = None) -> tuple[int, dict, str]:
    """Run `hpckg check --format json`; the exit code, the parsed JSON and stderr."""
    completed = run_hpckg("check", "--format", "json", *args, cwd=cwd, timeout=120)
    out, err = text(completed)
    assert "Traceback" not in err and "Traceback" not in out, err
    return completed.returncode, json.loads(out), err


def codes(report: dict) -> set[str]:
    return {problem["code"] for problem in report["problems"]}


@pytest.mark.parametrize("name", ["my frontier.ttl", "frontier{1}.ttl", "fröntier.ttl"])
def test_file_names_with_spaces_braces_or_accents_are_checked(tmp_path, name):
    path = tmp_path / name
    shutil.copy(FRONTIER, path)
    status, report, _ = check(str(path))
    assert status == 0, report
    assert report["graph_checked"]


def test_a_folder_named_like_a_turtle_file(tmp_path):
    (tmp_path / "d.ttl").mkdir()
    status, report, _ = check(str(tmp_path / "d.ttl"))
    assert status == 2
    assert codes(report) == {"not-a-file"}
    assert report["problems"][0]["file"].endswith("d.ttl")


def test_a_missing_file_is_not_a_syntax_error(tmp_path):
    status, report, _ = check(str(tmp_path / "nowhere.ttl"))
    assert status == 2
    assert codes(report) == {"not-a-file"}
    assert "no such file" in report["problems"][0]["message"]


def test_rdf_12_triple_terms_are_refused_with_their_line(tmp_path):
    path = tmp_path / "frontier.ttl"
    path.write_text(FRONTIER.read_text(encoding="utf-8") + "\nsys:frontier hpc:read << sys:frontier hpc:slug "
                    '"frontier" >> .\n', encoding="utf-8")
    status, report, _ = check(str(path))
    assert status == 2
    assert "triple-term" in codes(report)
    [problem] = [p for p in report["problems"] if p["code"] == "triple-term"]
    assert problem["line"] == len(FRONTIER.read_text(encoding="utf-8").splitlines()) + 2


@pytest.mark.parametrize("content", ["", "   \n\n", "# only a comment\n# and another\n",
                                     "@prefix hpc: <https://w3id.org/hpckg/ontology#> .\n"])
def test_an_empty_or_comments_only_file_is_an_error(tmp_path, content):
    path = tmp_path / "frontier.ttl"
    path.write_text(content, encoding="utf-8")
    status, report, _ = check(str(path))
    assert status == 2
    assert codes(report) == {"empty-file"}


def test_upper_case_extension_is_refused_by_check_and_by_build(project):
    systems = project / "data" / "ttl" / "systems"
    shutil.copy(FRONTIER, systems / "frontier.TTL")
    status, report, _ = check(str(systems / "frontier.TTL"), cwd=project)
    assert status == 2 and codes(report) == {"file-name"}
    built = run_hpckg("build", "--memory", "--quiet", cwd=project)
    out, err = text(built)
    assert built.returncode == 2
    assert "frontier.TTL" in err and ".ttl" in err and "Traceback" not in err


def test_a_system_file_must_be_named_after_its_slug(project):
    systems = project / "data" / "ttl" / "systems"
    shutil.copy(FRONTIER, systems / "oak-ridge.ttl")
    status, report, _ = check(str(systems / "oak-ridge.ttl"), cwd=project)
    assert status == 2
    assert codes(report) == {"file-name"}
    assert "frontier.ttl" in report["problems"][0]["fix"]


def test_control_and_escape_characters_are_shown_escaped(tmp_path):
    path = tmp_path / "frontier.ttl"
    hostile = FRONTIER.read_text(encoding="utf-8").replace(
        'hpc:slug "frontier" ;', 'hpc:slug "frontier" ; skos:note "TODO \\u001b[31mred\\u0007"@en ;', 1)
    path.write_text(hostile, encoding="utf-8")
    completed = run_hpckg("check", str(path))
    out, err = text(completed)
    assert completed.returncode == 2
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "\\x1b" in out


def test_a_byte_order_mark_is_named_and_its_fix_is_right(tmp_path):
    path = tmp_path / "frontier.ttl"
    path.write_bytes(b"\xef\xbb\xbf" + FRONTIER.read_bytes())
    status, report, _ = check(str(path))
    assert status == 2
    [problem] = report["problems"]
    assert problem["code"] == "byte-order-mark" and problem["line"] == 1
    assert "\ufeff" not in problem["message"]
    assert "without a BOM" in problem["fix"]


def test_a_value_that_breaks_a_derived_claim_fails_check_as_it_fails_build(tmp_path):
    path = tmp_path / "huge.ttl"
    path.write_text(FRONTIER.read_text(encoding="utf-8").replace(
        "hpc:value 1102000.0 ;", "hpc:value 1102000.0 ;", 1) + """
@prefix cmp: <https://w3id.org/hpckg/id/component/> .
@prefix role: <https://w3id.org/hpckg/vocab/role/> .
@prefix site: <https://w3id.org/hpckg/id/site/> .
cmp:frontier-accelerator a hpc:Component ; hpc:componentOf sys:frontier ; hpc:role role:accelerator .
claim:frontier-accelerator-quantity a hpc:Claim ; hpc:about cmp:frontier-accelerator ;
    hpc:property hpc:quantity ; hpc:value 9223372036854775807 ; hpc:tier tier:reported ;
    hpc:basis basis:operator-stated ; prov:hadPrimarySource src:olcf-frontier .
claim:frontier-site a hpc:Claim ; hpc:about sys:frontier ; hpc:property hpc:site ; hpc:value site:acme ;
    hpc:tier tier:reported ; hpc:basis basis:operator-stated ; prov:hadPrimarySource src:olcf-frontier .
""", encoding="utf-8")
    built = run_hpckg("validate", str(path))
    assert built.returncode != 0
    status, report, _ = check(str(path))
    assert status == 2, report


def test_an_unexpected_error_has_its_own_exit_code_one_line_and_json(monkeypatch, capsys, tmp_path):
    # A bug in hpckg itself (here: the checker raising something no one expected) must never pass for
    # "warnings only" (exit 1) or success, and bots still get JSON.
    import hpckg.contribute.check as checker

    def broken(*args, **kwargs):
        raise RuntimeError("something no one expected\nwith a second line")

    monkeypatch.setattr(checker, "check_files", broken)
    status = main(["check", "--format", "json", str(FRONTIER)])
    captured = capsys.readouterr()
    assert status == INTERNAL_ERROR and INTERNAL_ERROR not in (0, 1, 2)
    document = json.loads(captured.out)
    assert document["error"]["kind"] == "internal"
    assert len(captured.err.strip().splitlines()) == 1 and "--debug" in captured.err
    with pytest.raises(RuntimeError):
        main(["--debug", "check", str(FRONTIER)])


def test_user_errors_are_json_too_with_format_json(tmp_path):
    completed = run_hpckg("check", "--format", "json", "--store", str(tmp_path / "no-store"), str(FRONTIER))
    out, err = text(completed)
    assert completed.returncode == 2
    assert json.loads(out)["error"]["message"].startswith("no hpckg store at")


def test_a_symlink_to_a_device_or_outside_the_project_is_not_read(project, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "elsewhere.ttl"
    shutil.copy(FRONTIER, outside)
    systems = project / "data" / "ttl" / "systems"
    os.symlink(outside, systems / "frontier.ttl")
    built = run_hpckg("build", "--memory", "--quiet", cwd=project)
    assert built.returncode == 2
    assert "outside the project" in text(built)[1]
    (systems / "frontier.ttl").unlink()
    os.symlink("/dev/zero", systems / "zero.ttl")
    started = time.monotonic()
    built = run_hpckg("build", "--memory", "--quiet", cwd=project, timeout=60)
    assert built.returncode == 2
    assert "zero.ttl" in text(built)[1] and "not a regular file" in text(built)[1]
    assert time.monotonic() - started < 60
    status, report, _ = check(str(systems / "zero.ttl"), cwd=project)
    assert status == 2 and codes(report) == {"not-a-file"}


def test_rdf_xml_entity_expansion_is_refused_not_expanded(tmp_path):
    laughs = tmp_path / "laughs.rdf"
    entities = "".join(f'<!ENTITY l{i} "{("&l" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
    laughs.write_text('<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [<!ENTITY l0 "ha">' + entities + "]>\n"
                      '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
                      'xmlns:ex="http://example.org/"><rdf:Description rdf:about="http://example.org/a">'
                      "<ex:p>&l9;</ex:p></rdf:Description></rdf:RDF>\n", encoding="utf-8")
    started = time.monotonic()
    completed = run_hpckg("validate", str(laughs), timeout=60)
    out, err = text(completed)
    assert completed.returncode == 2
    assert "laughs.rdf" in out + err and "DTD" in out + err
    assert time.monotonic() - started < 60


def test_prefixes_and_base_come_from_the_parser_not_from_text(tmp_path):
    path = tmp_path / "frontier.ttl"
    base = FRONTIER.read_text(encoding="utf-8")
    path.write_text(base.replace("@prefix sys:        <https://w3id.org/hpckg/id/system/> .",
                                 "@prefix sys: # a comment\n  <https://w3id.org/hpckg/id/org/> .", 1),
                    encoding="utf-8")
    status, report, _ = check(str(path))
    assert status == 2 and "prefix-redefined" in codes(report)
    path.write_text(base + "\n  @base <https://w3id.org/hpckg/id/system/> .\n", encoding="utf-8")
    status, report, _ = check(str(path))
    assert status == 2 and "base-iri" in codes(report)


def check_step_script() -> str:
    """The shell of the contributors' workflow step that runs `hpckg check`, as GitHub runs it."""
    workflow = (ROOT / ".github" / "workflows" / "check.yml").read_text(encoding="utf-8")
    step = workflow.split("- name: hpckg check", 1)[1]
    body = step.split("run: |\n", 1)[1]
    lines = []
    for line in body.splitlines():
        if line.strip() and not line.startswith(" " * 10):
            break
        lines.append(line[10:])
    return "\n".join(lines)


@pytest.mark.parametrize("corpus_file, status", [
    ("good/frontier.ttl", 0),
    ("bad/conflicting-quantity.ttl", 0),  # warnings only: for a person to review, not a failed job
    ("bad/claim-without-tier.ttl", 2),
])
def test_the_contributors_workflow_fails_only_on_errors(tmp_path, corpus_file, status):
    import subprocess
    import sys

    import stores

    # The step checks against the store the workflow's previous step built beside the checkout (../base):
    # here the session's build of the curated data; the base revision is this checkout's HEAD.
    work = tmp_path / "checkout"
    work.mkdir()
    (tmp_path / "base" / ".hpckg").mkdir(parents=True)
    os.symlink(os.path.realpath(stores.curated().store), tmp_path / "base" / ".hpckg" / "store")
    (work / "changed.txt").write_text(str(ROOT / "tests" / "contributions" / corpus_file) + "\n")
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "BASE": "HEAD",
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    completed = subprocess.run(["bash", "-eo", "pipefail", "-c", check_step_script()], cwd=work, env=env,
                               capture_output=True, text=True, timeout=300, check=False)
    assert completed.returncode == status, completed.stdout + completed.stderr
    assert "hpckg check" in (tmp_path / "summary.md").read_text(encoding="utf-8")


LAUNDERING = {
    "plain-triple": "sys:kalos hpc:operator orgn:bytedance .",
    "relabelled-tier": 'tier:lead skos:prefLabel "verified"@en .',
    "new-class": 'ex:Gadget a owl:Class ; rdfs:label "gadget" .',
    "triple-term": "sys:kalos hpc:read << sys:kalos hpc:operator orgn:bytedance >> .",
}
HEAD = """@prefix hpc: <https://w3id.org/hpckg/ontology#> .
@prefix sys: <https://w3id.org/hpckg/id/system/> .
@prefix orgn: <https://w3id.org/hpckg/id/org/> .
@prefix tier: <https://w3id.org/hpckg/vocab/tier/> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix ex: <http://example.org/> .
"""


@pytest.mark.parametrize("case", sorted(LAUNDERING))
def test_build_and_validate_apply_the_rules_for_what_a_data_file_may_state(project, case):
    path = project / "data" / "ttl" / "notes.ttl"
    path.write_text(HEAD + LAUNDERING[case] + "\n", encoding="utf-8")
    for command in (("build", "--quiet", "--store", str(project / "store")), ("validate",)):
        completed = run_hpckg(*command, cwd=project)
        out, err = text(completed)
        assert completed.returncode == 2, (command, out, err)
        assert "notes.ttl:9" in out + err, out + err
        assert "Traceback" not in err
    assert not (project / "store").exists()
    # The same line given to `hpckg validate` as an extra file, from outside the data folders.
    extra = project / "extra.ttl"
    path.rename(extra)
    completed = run_hpckg("validate", str(extra), cwd=project)
    assert completed.returncode == 2


@pytest.fixture
def repository(project) -> Path:
    """The project copy as a git repository with one commit on main."""
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "base")
    return project


KALOS = "data/ttl/systems/kalos.ttl"
OPERATOR = "hpc:property hpc:operator ; hpc:value orgn:shanghai-ai-lab ;"


def test_editing_a_claim_in_place_is_refused(repository):
    path = repository / KALOS
    path.write_text(path.read_text(encoding="utf-8").replace(OPERATOR, OPERATOR.replace(
        "orgn:shanghai-ai-lab", "orgn:bytedance"), 1), encoding="utf-8")
    status, report, _ = check(KALOS, cwd=repository)
    assert status == 2
    assert {"claim-edited", "missing-change-entry"} <= codes(report)
    [edited] = [p for p in report["problems"] if p["code"] == "claim-edited"]
    assert edited["focus"].endswith("claim/kalos-operator") and edited["line"] == 37


def test_deleting_a_claim_is_refused(repository):
    path = repository / KALOS
    text_ = path.read_text(encoding="utf-8")
    start = text_.index("claim:kalos-operator a hpc:Claim")
    end = text_.index("\n\n", start)
    path.write_text(text_[:start] + text_[end + 2:], encoding="utf-8")
    status, report, _ = check(KALOS, cwd=repository)
    assert status == 2
    assert "claim-removed" in codes(report)


def test_a_correction_as_a_new_claim_with_the_old_one_deprecated_passes(repository):
    path = repository / KALOS
    text_ = path.read_text(encoding="utf-8")
    old_rank = "hpc:basis basis:operator-stated ; hpc:rank rank:preferred ;\n    prov:hadPrimarySource src:arxiv-2403"
    assert old_rank in text_
    new_rank = ("hpc:basis basis:operator-stated ; hpc:rank rank:deprecated ;\n"
                "    hpc:supersededBy claim:kalos-operator-2026 ;\n    prov:hadPrimarySource src:arxiv-2403")
    text_ = text_.replace(old_rank, new_rank, 1)
    text_ += """
claim:kalos-operator-2026 a hpc:Claim ;
    hpc:about sys:kalos ; hpc:property hpc:operator ; hpc:value orgn:shanghai-ai-lab ;
    hpc:tier tier:reported ; hpc:basis basis:operator-stated ; hpc:rank rank:preferred ;
    prov:hadPrimarySource src:arxiv-2403-07648 ; hpc:asOf "2024-03"^^xsd:gYearMonth .

chg:kalos-2026-11-30 a hpc:ChangeEntry ;
    hpc:changedEntity sys:kalos ;
    dcterms:date "2026-11-30"^^xsd:date ;
    rdfs:comment "Operator claim restated from the paper's second version"@en .
"""
    path.write_text(text_, encoding="utf-8")
    status, report, _ = check(KALOS, cwd=repository)
    assert not {"claim-edited", "claim-removed", "missing-change-entry"} & codes(report), report
    # Against the base revision given explicitly, and a base that does not exist.
    status, report, _ = check("--base", "main", KALOS, cwd=repository)
    assert not {"claim-edited", "claim-removed"} & codes(report)
    completed = run_hpckg("check", "--base", "no-such-rev", KALOS, cwd=repository)
    assert completed.returncode == 2 and "--base no-such-rev" in text(completed)[1]


# A plain triple outside the vocabulary, owl:sameAs, an IRI that is a project namespace but for case, a
# bidirectional override: each refused by `hpckg check` and by `hpckg validate`, naming file:line, the rule,
# the node and the value.
UNSAFE = {
    "outside-vocabulary": ("outside-vocabulary.ttl", "http://example.org/owns"),
    "same-as": ("owl-same-as.ttl", "sys:kalos"),
    "iri-case": ("iri-case.ttl", "https://W3ID.ORG/hpckg/id/system/example-cluster"),
    "bidi-control": ("bidi-override.ttl", "\\u202e"),
}


@pytest.mark.parametrize("rule", sorted(UNSAFE))
def test_check_and_validate_refuse_what_reads_as_something_else(project, rule):
    name, value = UNSAFE[rule]
    path = project / "data" / "ttl" / "systems" / "example-cluster.ttl"
    shutil.copy(ROOT / "tests" / "contributions" / "bad" / name, path)
    status, report, _ = check(str(path), cwd=project)
    assert status == 2 and codes(report) == {rule}, report
    problem = report["problems"][0]
    assert problem["line"] and problem["details"]["rule"] == rule and problem["details"]["node"]
    assert value in problem["message"] + problem["focus"], problem
    completed = run_hpckg("validate", cwd=project)
    out, err = text(completed)
    assert completed.returncode == 2, out + err
    assert f"example-cluster.ttl:{problem['line']}" in out + err and f"[{rule}]" in out + err, out + err
    assert "Traceback" not in err
