"""`hpckg new`, `hpckg check` and `hpckg diff` through a real `hpckg` process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import default_workdir, session_project

HPCKG = str(Path(sys.executable).parent / "hpckg")
CORPUS = Path(__file__).parent / "contributions"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([HPCKG, *args], capture_output=True, text=True, cwd=cwd or default_workdir(), timeout=300)


def test_new_then_check(tmp_path: Path):
    result = run("new", "system", "Example Cluster", "--operator", "bytedance", "--country", "CN",
                 "--out-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    path = tmp_path / "example-cluster.ttl"
    assert str(path) in result.stdout
    again = run("new", "system", "Example Cluster", "--operator", "bytedance", "--country", "CN",
                "--out-dir", str(tmp_path))
    assert again.returncode == 2 and "already exists" in again.stderr
    check = run("check", str(path))
    assert check.returncode == 2
    assert "[placeholder]" in check.stdout and "todo:tier" in check.stdout


def test_check_exit_codes_and_json():
    good = run("check", str(CORPUS / "good" / "frontier.ttl"))
    assert good.returncode == 0, good.stdout
    assert "passes every check" in good.stdout
    warn = run("check", "--format", "json", str(CORPUS / "bad" / "conflicting-quantity.ttl"))
    assert warn.returncode == 1
    data = json.loads(warn.stdout)
    assert [p["code"] for p in data["problems"]] == ["conflict"]
    bad = run("check", str(CORPUS / "bad" / "iri-with-space.ttl"))
    assert bad.returncode == 2
    assert "iri-with-space.ttl:" in bad.stdout and "[invalid-iri]" in bad.stdout


def test_check_help_has_examples():
    for command in ("new", "check", "diff"):
        result = run(command, "--help")
        assert result.returncode == 0 and "examples:" in result.stdout


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_failing_check_leaves_a_built_store_untouched(tmp_path: Path):
    from hpckg.build import build

    store = tmp_path / "store"
    build(session_project(), store_path=store, validate=False)
    before = _snapshot(store)
    # The store's pointer, its generations and its build lock; check must add nothing beside them.
    beside = sorted(p.name for p in tmp_path.iterdir())
    bad = str(CORPUS / "bad" / "duplicate-system-accents.ttl")
    for args in (("check", bad), ("check", "--store", str(store), bad)):
        result = run(*args)
        assert result.returncode == 2 and "[duplicate-system]" in result.stdout, result.stdout + result.stderr
    assert _snapshot(store) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == beside
    good = run("check", "--store", str(store), str(CORPUS / "good" / "frontier.ttl"))
    assert good.returncode == 0, good.stdout
    assert _snapshot(store) == before


CLAIM = """claim:x-{name} a hpc:Claim ; hpc:about sys:x ; hpc:property hpc:{name} ; hpc:value {value} ;
    hpc:tier tier:{tier} ; prov:hadPrimarySource src:s .
"""
HEAD = """@prefix hpc: <https://w3id.org/hpckg/ontology#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix sys: <https://w3id.org/hpckg/id/system/> .
@prefix src: <https://w3id.org/hpckg/id/source/> .
@prefix claim: <https://w3id.org/hpckg/id/claim/> .
@prefix tier: <https://w3id.org/hpckg/vocab/tier/> .
sys:x a hpc:System .
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, env=env)

    systems = tmp_path / "data" / "ttl" / "systems"
    systems.mkdir(parents=True)
    git("init", "-q")
    (systems / "x.ttl").write_text(HEAD + CLAIM.format(name="rmax", value="1.0", tier="reported")
                                   + CLAIM.format(name="cores", value="10", tier="lead")
                                   + CLAIM.format(name="nodeCount", value="3", tier="lead"), encoding="utf-8")
    git("add", ".")
    git("commit", "-q", "-m", "one")
    (systems / "x.ttl").write_text(HEAD + CLAIM.format(name="rmax", value="2.0", tier="reported")
                                   + CLAIM.format(name="cores", value="10", tier="verified")
                                   + CLAIM.format(name="powerKW", value="5.0", tier="reported")
                                   + "sys:y a hpc:System .\n", encoding="utf-8")
    git("commit", "-q", "-am", "two")
    return tmp_path


def test_diff_between_revisions(repo: Path):
    result = run("diff", "HEAD~1..HEAD", "--format", "json", cwd=repo)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["claims"] == {"added": 1, "removed": 1, "changed": 2}
    changes = {c["claim"].rsplit("/", 1)[-1]: c for c in data["by_subject"]["https://w3id.org/hpckg/id/system/x"]}
    assert changes["x-rmax"]["change"] == "changed" and changes["x-rmax"]["value_changed"]
    assert not changes["x-rmax"]["tier_changed"]
    assert changes["x-cores"]["tier_changed"] and "tier lead -> verified" in changes["x-cores"]["summary"]
    assert changes["x-powerKW"]["change"] == "added"
    assert changes["x-nodeCount"]["change"] == "removed"
    assert data["entities_added"] == ["https://w3id.org/hpckg/id/system/y"]
    text = run("diff", "HEAD~1..HEAD", cwd=repo).stdout
    assert "~ claim:x-rmax  value 1.0 -> 2.0" in text and "- claim:x-nodeCount" in text


def test_diff_against_the_working_tree(repo: Path):
    path = repo / "data" / "ttl" / "systems" / "x.ttl"
    path.write_text(path.read_text(encoding="utf-8").replace("tier:reported", "tier:lead"), encoding="utf-8")
    data = json.loads(run("diff", "HEAD", "--format", "json", cwd=repo).stdout)
    assert data["new"] == "working tree"
    assert data["claims"] == {"added": 0, "removed": 0, "changed": 2}


def test_diff_reports_a_bad_revision(repo: Path):
    result = run("diff", "no-such-rev", cwd=repo)
    assert result.returncode == 2 and "no-such-rev" in result.stderr


def test_new_system_with_a_name_without_ascii_letters(tmp_path: Path):
    """A name like "日本" has no ASCII letters to make a slug from: a clean error naming --slug, no traceback."""
    from conftest import run_hpckg, text

    refused = run_hpckg("new", "system", "日本", "--operator", "x", "--country", "JP", "--out-dir", str(tmp_path))
    out, err = text(refused)
    assert refused.returncode == 2, err
    assert "Traceback" not in err
    assert "no ASCII letters" in err and "--slug" in err
    assert not list(tmp_path.iterdir())

    given = run_hpckg("new", "system", "日本", "--slug", "nihon", "--operator", "x", "--country", "JP",
                      "--out-dir", str(tmp_path))
    out, err = text(given)
    assert given.returncode == 0, err
    written = (tmp_path / "nihon.ttl").read_text(encoding="utf-8")
    assert 'sys:nihon a hpc:System ;\n    rdfs:label "日本"@en ;\n    hpc:slug "nihon"' in written

    bad = run_hpckg("new", "system", "日本", "--slug", "Ni Hon", "--operator", "x", "--country", "JP",
                    "--out-dir", str(tmp_path))
    assert bad.returncode == 2 and "--slug" in text(bad)[1] and "Traceback" not in text(bad)[1]
