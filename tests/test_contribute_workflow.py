"""The contributors' workflow (.github/workflows/check.yml) as CI runs it, on a scratch clone of a branch, and
`hpckg import --from-release`, which gives that CI the imported datasets' graphs a laptop imports from files.

Issue 36: an enrichment of an imported machine passed `hpckg check` on a laptop (whose store holds the
imports) and failed in CI (`undefined-entity sys:top500-180357`), where only the curated data was built. The
workflow's steps run here as GitHub runs them: each step's `run` script in bash, its `if` and `${{ … }}`
expressions evaluated from the pull request's context, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY as files. Two
steps are GitHub's own and are not run: actions/checkout (the scratch clone is the checkout) and
actions/setup-python with `pip install .` (the hpckg under test is the one installed in this session).
"""

from __future__ import annotations

import functools
import gzip
import http.server
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
import yaml

import stores
from hpckg.contribute.scaffold import prefix_block

from conftest import ROOT, copy_project, hpckg_executable, run_hpckg, text

pytestmark = pytest.mark.imports
# The prefixes `hpckg new` writes, less todo: (a finished contribution has no placeholder left).
TURTLE_PREFIXES = re.sub(r"@prefix todo:.*\n", "", prefix_block())

WORKFLOW = ROOT / ".github" / "workflows" / "check.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
CONDITION = re.compile(r"^\s*([\w.]+)\s*(==|!=)\s*'([^']*)'\s*$")
JUPITER = "sys:top500-180357"  # JUPITER Booster, TOP500 June 2025: in the website store's imports

ENRICHMENT = TURTLE_PREFIXES + """\
# JUPITER Booster (imported from TOP500): what it is for, from Jülich's announcement.

claim:top500-180357-purpose-news a hpc:Claim ;
    hpc:about sys:top500-180357 ; hpc:property hpc:purpose ; hpc:value "AI and simulation at exascale" ;
    hpc:tier tier:reported ; hpc:basis basis:reported ; hpc:rank rank:normal ;
    prov:hadPrimarySource src:example-news-jupiter .

src:example-news-jupiter a hpc:Source ;
    dcterms:title "JUPITER, Europe's first exascale supercomputer, enters service"@en ;
    schema:url <https://news.example.org/jupiter-enters-service> ;
    dcterms:issued "2025-06-10"^^xsd:date ;
    hpc:sourceKind sourcekind:news-article .

chg:top500-180357-2026-12-07 a hpc:ChangeEntry ;
    hpc:changedEntity sys:top500-180357 ;
    dcterms:date "2026-12-07"^^xsd:date ;
    rdfs:comment "JUPITER Booster: its purpose, from a news article"@en .
"""


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}).stdout.strip()


def scratch_branch(folder: Path, files: dict[str, str]) -> tuple[Path, str, str]:
    """A repository holding this checkout's project and workflow on `main`, and a clone of it checked out at
    a branch that adds `files`: (the clone, the base commit, the branch's head)."""
    origin = copy_project(folder / "origin")
    (origin / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(WORKFLOW, origin / ".github" / "workflows" / "check.yml")
    git("init", "-q", "-b", "main", cwd=origin)
    git("add", "-A", cwd=origin)
    git("commit", "-q", "-m", "base", cwd=origin)
    git("checkout", "-q", "-b", "contribution", cwd=origin)
    for name, content in files.items():
        (origin / name).parent.mkdir(parents=True, exist_ok=True)
        (origin / name).write_text(content, encoding="utf-8")
    git("add", "-A", cwd=origin)
    git("commit", "-q", "-m", "a contribution", cwd=origin)
    clone = folder / "work" / "checkout"  # the workflow's worktree goes beside it, in ../base
    clone.parent.mkdir()
    git("clone", "-q", "--branch", "contribution", str(origin), str(clone), cwd=folder)
    return clone, git("rev-parse", "main", cwd=origin), git("rev-parse", "HEAD", cwd=clone)


def run_workflow(clone: Path, context: dict[str, str]) -> tuple[list[tuple[str, subprocess.CompletedProcess]], str]:
    """Each step of the workflow's job as GitHub runs it (see the module docstring), until one fails: each
    step's name and process, and the job summary written."""
    job = next(iter(yaml.safe_load(WORKFLOW.read_text())["jobs"].values()))
    output, summary = clone.parent / "github-output", clone.parent / "step-summary.md"
    output.touch()
    summary.touch()
    outputs: dict[str, str] = {}

    def value(name: str) -> str:
        if name in context:
            return context[name]
        if name.startswith("steps.") and name in outputs:
            return outputs[name]
        if name.startswith(("vars.", "secrets.")):
            return ""  # an unset repository variable; no token outside GitHub
        raise AssertionError(f"the workflow uses an expression this runner does not know: {name}")

    def expand(text: str) -> str:
        return EXPRESSION.sub(lambda m: value(m.group(1)), text)

    path = os.pathsep.join([str(Path(hpckg_executable()).parent), os.environ.get("PATH", "")])
    ran = []
    for step in job["steps"]:
        if "uses" in step or step.get("name") == "Install hpckg":
            continue
        if "if" in step:
            match = CONDITION.match(step["if"])
            assert match, f"the workflow uses a condition this runner does not know: {step['if']}"
            left, operator, right = match.groups()
            if (value(left) == right) != (operator == "=="):
                continue
        env = {**os.environ, "PATH": path, "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
               **{key: expand(str(v)) for key, v in step.get("env", {}).items()}}
        process = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", expand(step["run"])], cwd=clone, env=env,
                                 capture_output=True, text=True, timeout=900)
        ran.append((step["name"], process))
        for line in output.read_text().splitlines():
            key, _, val = line.partition("=")
            outputs[f"steps.{step.get('id')}.outputs.{key}"] = val
        if process.returncode != 0:
            break
    return ran, summary.read_text()


# The release's graphs: the TOP500 editions of the website's store and the graph their sites and organisations
# are in (which cites the editions' sources). A release holds every graph; leaving out Epoch AI's keeps the
# workflow's build of the base branch small (`hpckg release`'s own dumps are tested in test_release.py, and
# --from-release takes only import graphs whatever else a dump holds).
RELEASED_PREFIX = "https://w3id.org/hpckg/graph/import/top500/"


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """A release folder: the N-Quads of the TOP500 graphs of the website's store (built from the real files),
    gzip-compressed, with its SHA256SUMS."""
    import hashlib

    import pyoxigraph as ox

    folder = tmp_path_factory.mktemp("releases") / "2026-12"
    folder.mkdir()
    store = ox.Store.read_only(str(stores.website().store))
    graphs = sorted(g.value for g in store.named_graphs() if g.value.startswith(RELEASED_PREFIX))
    assert len(graphs) == 3, graphs  # two editions and their shared graph
    with gzip.open(folder / "hpckg.nq.gz", "wb", compresslevel=1) as packed:
        for graph in graphs:
            ox.serialize(store.quads_for_pattern(None, None, None, ox.NamedNode(graph)), packed,
                         ox.RdfFormat.N_QUADS)
    digest = hashlib.sha256((folder / "hpckg.nq.gz").read_bytes()).hexdigest()
    (folder / "SHA256SUMS").write_text(f"{digest}  hpckg.nq.gz\n")
    return folder


def test_an_enrichment_and_a_correction_of_an_imported_machine_pass_the_workflow_with_the_release(tmp_path, release):
    # Two of issue 36's three contributions in one pull request (one build of its base branch): JUPITER's
    # purpose (an enrichment: clean) and its power preferred over the TOP500's (a correction: a conflict for
    # the reviewer, exit 1, which is a review and not a failure), both about the imported record.
    from test_contribute_new_claim import CORRECTION

    clone, base, head = scratch_branch(tmp_path, {
        "data/ttl/systems/jupiter-purpose.ttl": ENRICHMENT,
        "data/ttl/claims/top500-180357.ttl": CORRECTION.replace("RANK", "rank:preferred")})
    context = {"github.event.pull_request.base.sha": base, "github.sha": head, "vars.HPCKG_RELEASE": str(release),
               "github.event.pull_request.number": "7"}
    ran, summary = run_workflow(clone, context)
    names = [name for name, _ in ran]
    assert names[-1] != "Build the base branch with the imported datasets", ran[-1][1].stderr[-3000:]
    assert names == ["List the changed Turtle files", "Build the base branch with the imported datasets",
                     "hpckg check", "Post the review on the pull request", "Summarise the change"], names
    failed = [(name, p.stdout[-2000:], p.stderr[-2000:]) for name, p in ran if p.returncode != 0]
    assert not failed, failed
    # the base branch's store holds the release's imports: the system the claims are about is there
    assert "undefined-entity" not in summary, summary
    assert "jupiter-purpose.ttl" in summary and "top500-180357.ttl" in summary, summary
    problems = [line for line in summary.splitlines() if line.startswith("- **")]
    assert problems and not [line for line in problems if "jupiter-purpose.ttl" in line], summary
    # the correction: the imported claim it overrides, and what the build does with the two
    assert "sys:top500-180357 (JUPITER Booster) hpc:powerKW = 13000.5: conflicts with" in summary, summary
    assert "claim:top500-180357-power-kw-2025-06" in summary and "the build takes its value as the best" in summary


def test_a_new_system_and_a_duplicate_are_told_apart_in_the_workflow_with_the_release(tmp_path, release):
    # Issue 36's other two contributions, in one pull request (one build of its base branch): a new planned
    # system (Argonne's Equinox) whose operator is the TOP500's record of Argonne, found by name as a
    # contributor's `hpckg new system` finds it, with 10,000 of the TOP500's H100 part (a count in all:
    # --quantity), filled in: clean. And a new record of TOP500's Frontier (the good corpus's, clean against the
    # curated graph): "a duplicate of an imported machine passes CI" when the workflow saw only curated data.
    from test_contribute_new_claim import filled_system

    project = copy_project(tmp_path / "project")
    (project / ".hpckg").mkdir()
    os.symlink(os.path.realpath(stores.website().store), project / ".hpckg" / "store")
    done = run_hpckg("new", "system", "Equinox", "--operator", "DOE/SC/Argonne National Laboratory", "--country",
                     "US", "--status", "planned", "--part", "part:top500-nvidia-h100-sxm5-80gb", "--quantity", "10000",
                     cwd=project)
    assert done.returncode == 0, text(done)
    path = project / "data" / "ttl" / "systems" / "equinox.ttl"
    assert "orgn:top500-operator-" in path.read_text(encoding="utf-8")  # the imported record, not a second one
    filled_system(path)
    frontier = (ROOT / "tests" / "contributions" / "good" / "frontier.ttl").read_text(encoding="utf-8")
    clone, base, head = scratch_branch(tmp_path, {"data/ttl/systems/equinox.ttl": path.read_text(encoding="utf-8"),
                                                  "data/ttl/systems/frontier.ttl": frontier})
    ran, summary = run_workflow(clone, {"github.event.pull_request.base.sha": base, "github.sha": head,
                                        "vars.HPCKG_RELEASE": str(release), "github.event.pull_request.number": "8"})
    assert [name for name, _ in ran][-1] == "hpckg check", [name for name, _ in ran]  # the review is not posted
    assert dict(ran)["hpckg check"].returncode == 2, dict(ran)["hpckg check"].stdout[-2000:]
    problems = [line for line in summary.splitlines() if line.startswith("- **")]
    assert problems and all("frontier.ttl" in line for line in problems), summary
    assert any("duplicate-system" in line and "sys:top500-180047" in line for line in problems), summary
    assert "undefined-entity" not in summary and "sys:equinox" in summary, summary


def test_without_a_release_the_workflow_says_what_it_cannot_see(tmp_path):
    # The same contribution where no release is configured: the imported system is unknown, as on a laptop
    # that has not imported the datasets, and the job fails with the reason in its summary.
    clone, base, head = scratch_branch(tmp_path, {"data/ttl/systems/jupiter-purpose.ttl": ENRICHMENT})
    ran, summary = run_workflow(clone, {"github.event.pull_request.base.sha": base, "github.sha": head,
                                        "github.event.pull_request.number": "7"})
    assert [name for name, _ in ran][-1] == "hpckg check"  # the job stops there: the review is not posted
    assert dict(ran)["hpckg check"].returncode == 2
    assert "undefined-entity" in summary and JUPITER in summary, summary


# ---- hpckg import --from-release -------------------------------------------------------------------------

def test_a_release_gives_the_import_graphs_the_importers_wrote(tmp_path, release):
    # Each import graph of the release lands in the file its importer writes, with the same quads.
    import pyoxigraph as ox

    project = copy_project(tmp_path / "project")
    stdout, _ = text(run_hpckg("import", "--from-release", str(release), cwd=project))
    assert "from release 2026-12" in stdout, stdout
    website = stores.website().project / ".hpckg" / "graphs" / "import"
    restored = project / ".hpckg" / "graphs" / "import"
    expected = sorted(p.relative_to(website) for p in (website / "top500").glob("*.nq"))
    assert sorted(p.relative_to(restored) for p in restored.rglob("*.nq")) == expected
    def loaded(path: Path) -> set:  # as a build loads it: a store keeps values, not spellings ("1.50" is 1.5)
        store = ox.Store()
        store.bulk_load(path=str(path), format=ox.RdfFormat.N_QUADS)
        return set(store)

    for relative in expected:
        assert loaded(restored / relative) == loaded(website / relative), relative


def test_a_release_is_read_over_http_and_checked_against_its_sums(tmp_path, release):
    served = tmp_path / "site" / "releases"
    shutil.copytree(release, served / "2026-12")
    broken = served / "2026-12b"
    shutil.copytree(release, broken)
    (broken / "SHA256SUMS").write_text("0" * 64 + "  hpckg.nq.gz\n")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path / "site"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/releases"
    project = copy_project(tmp_path / "project")
    try:
        stdout, _ = text(run_hpckg("import", "--from-release", f"{url}/2026-12/", cwd=project))
        assert "from release 2026-12" in stdout
        failed = run_hpckg("import", "--from-release", f"{url}/2026-12b/", cwd=project)
        assert failed.returncode == 2
        assert "does not match its release's SHA256SUMS" in text(failed)[1]
        missing = run_hpckg("import", "--from-release", f"{url}/2027-01/", cwd=project)
        assert missing.returncode == 2 and "answered 404" in text(missing)[1]
    finally:
        server.shutdown()


def test_a_dump_without_import_graphs_is_refused_and_changes_nothing(tmp_path):
    project = copy_project(tmp_path / "project")
    dump = tmp_path / "hpckg.nq"
    dump.write_text("<urn:a> <urn:b> <urn:c> <https://w3id.org/hpckg/graph/data/ttl/x.ttl> .\n")
    failed = run_hpckg("import", "--from-release", str(dump), cwd=project)
    assert failed.returncode == 2 and "holds no imported dataset's graph" in text(failed)[1]
    broken = tmp_path / "broken.nq"
    broken.write_text("<https://a> <https://b> <https://c> <https://w3id.org/hpckg/graph/import/top500/x> .\n<urn:x\n")
    failed = run_hpckg("import", "--from-release", str(broken), cwd=project)
    assert failed.returncode == 2 and "is not a readable N-Quads dump" in text(failed)[1]
    assert not list((project / ".hpckg" / "graphs").rglob("*.nq"))  # neither left a graph behind
