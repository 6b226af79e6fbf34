"""Which project a command works on: the checkout found from the working directory, --root, HPCKG_ROOT or
the packaged copy, and its [tool.hpckg] / hpckg.toml configuration; tested through the real command."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hpckg import project

from conftest import ROOT, copy_project, curated_root, run_hpckg, text

KALOS = "data/ttl/systems/kalos.ttl"


@pytest.fixture(scope="module")
def wheel_install(tmp_path_factory) -> Path:
    """hpckg installed the way the contributors' workflow installs it: `pip install .`, not editable, so
    the package (with its packaged copy of the data) sits outside the checkout."""
    target = tmp_path_factory.mktemp("site-packages")
    completed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(ROOT)], capture_output=True, text=True, timeout=300, check=False)
    assert completed.returncode == 0, completed.stderr
    assert (target / "hpckg" / "_resources" / "ontology" / "hpckg.ttl").is_file()
    return target


def run_installed(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONUTF8": "1"}
    env.pop("HPCKG_ROOT", None)
    return subprocess.run([sys.executable, "-c", "import sys; from hpckg.cli import main; sys.exit(main())",
                           *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def test_non_editable_install_checks_the_checkout_it_runs_in(wheel_install):
    located = run_installed(wheel_install, "--version", cwd=ROOT)
    assert located.returncode == 0
    which = subprocess.run([sys.executable, "-c", "import hpckg; print(hpckg.__file__)"],
                           env={**os.environ, "PYTHONPATH": str(wheel_install)}, capture_output=True, text=True,
                           check=True)
    assert which.stdout.strip().startswith(str(wheel_install)), "the test must run the installed copy"
    completed = run_installed(wheel_install, "check", KALOS, cwd=ROOT)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "is defined in" not in completed.stdout


def test_non_editable_install_outside_a_checkout_uses_its_packaged_copy(wheel_install, tmp_path):
    completed = run_installed(wheel_install, "build", "--memory", "--quiet", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert f"root: {wheel_install / 'hpckg' / '_resources'} (packaged copy" in completed.stdout


def test_root_is_found_from_a_subfolder_of_the_checkout():
    # The session's copy of the checkout (conftest): the checkout itself may hold a developer's imports.
    completed = run_hpckg("build", "--no-pages", "--memory", "--quiet", cwd=curated_root() / "data" / "ttl" / "systems")
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert f"root: {curated_root()} (checkout found from the working directory)" in out


def test_root_option_and_environment_choose_another_project(tmp_path):
    other = copy_project(tmp_path / "other")
    # A change only the other project has: one more system than this checkout.
    here = run_hpckg("build", "--no-pages", "--memory", "--no-validate", "--quiet", cwd=curated_root())
    systems_here = int(re.search(r"^systems: (\d+)$", text(here)[0], re.M).group(1))
    shutil.copy(other / KALOS, other / "data/ttl/systems/kalosb.ttl")
    text_ = (other / "data/ttl/systems/kalosb.ttl").read_text(encoding="utf-8")
    (other / "data/ttl/systems/kalosb.ttl").write_text(
        text_.replace("sys:kalos ", "sys:kalosb ").replace('hpc:slug "kalos"', 'hpc:slug "kalosb"')
        .replace("claim:kalos-", "claim:kalosb-").replace("cmp:kalos-", "cmp:kalosb-")
        .replace("chg:kalos-", "chg:kalosb-").replace("chk:kalos-", "chk:kalosb-"), encoding="utf-8")
    by_option = run_hpckg("--root", str(other), "build", "--memory", "--no-validate", "--quiet")
    out, err = text(by_option)
    assert by_option.returncode == 0, err
    assert f"root: {other} (--root)" in out
    assert f"systems: {systems_here + 1}" in out
    env_completed = subprocess.run([sys.executable, "-m", "hpckg", "build", "--memory", "--no-validate",
                                    "--quiet"], cwd=ROOT, capture_output=True, text=True, check=False,
                                   env={**os.environ, "HPCKG_ROOT": str(other)})
    assert env_completed.returncode == 0, env_completed.stderr
    assert f"root: {other} (HPCKG_ROOT)" in env_completed.stdout


def test_configured_store_is_where_build_writes_and_query_reads(tmp_path):
    other = copy_project(tmp_path / "other")
    (other / "hpckg.toml").write_text('store = "built/graph"\n', encoding="utf-8")
    built = run_hpckg("build", "--no-pages", "--quiet", cwd=other)
    assert built.returncode == 0, text(built)[1]
    assert f"store: {other / 'built' / 'graph'}" in text(built)[0]
    assert (other / "built" / "graph" / "CURRENT").is_file()
    asked = run_hpckg("query", "-e", "ASK { sys:kalos a hpc:System }", "--format", "csv", cwd=other / "data")
    assert asked.returncode == 0, text(asked)[1]
    assert text(asked)[0].strip().endswith("true")


def test_pyproject_tool_table_configures_the_project(tmp_path):
    other = copy_project(tmp_path / "other")
    (other / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.hpckg]\nstore = "s"\n'
                                          'graphs = "machine"\n', encoding="utf-8")
    configured = project.discover(workdir=other)
    assert configured.store == other.resolve() / "s"
    assert configured.graphs == other.resolve() / "machine"
    assert configured.config_file == other / "pyproject.toml"
    assert configured.data == (other.resolve() / "data" / "ttl",)


@pytest.mark.parametrize("config, message", [
    ("store = [", "not valid TOML"),
    ('colour = "blue"', "unknown hpckg setting(s) colour"),
    ("data = 3", "data must be a path or a list of paths"),
])
def test_bad_configuration_is_a_clear_error(tmp_path, config, message):
    other = copy_project(tmp_path / "other")
    (other / "hpckg.toml").write_text(config + "\n", encoding="utf-8")
    completed = run_hpckg("build", "--no-pages", "--memory", cwd=other)
    out, err = text(completed)
    assert completed.returncode == 2
    assert message in err and "hpckg.toml" in err
    assert "Traceback" not in err


def test_root_that_is_not_a_project_is_refused(tmp_path):
    completed = run_hpckg("--root", str(tmp_path), "build", "--memory")
    assert completed.returncode == 2
    assert "not an hpckg project" in text(completed)[1]
