"""A running `hpckg serve` and `hpckg build` at once: the server moves to a new build between requests, as
a whole, says so in its log, and never answers from the old and the new generation in turn, also after a
query worker was killed for running past the time limit and respawned."""

from __future__ import annotations

import shutil
import time

import httpx
import pytest

from serve_live import start_server

from conftest import ROOT, run_hpckg, text

pytestmark = pytest.mark.abuse

FRONTIER = ROOT / "tests" / "contributions" / "good" / "frontier.ttl"
ASK_FRONTIER = "ASK { sys:frontier a hpc:System }"
SLOW = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?a ?d ?g LIMIT 1"


def ask(client: httpx.Client, url: str) -> bool:
    response = client.get(url + "/sparql", params={"query": ASK_FRONTIER},
                          headers={"Accept": "application/sparql-results+json"})
    assert response.status_code == 200, response.text
    return response.json()["boolean"]


def test_serve_switches_to_a_new_build_as_a_whole(project):
    store = project / ".hpckg" / "store"
    assert run_hpckg("build", "--quiet", cwd=project).returncode == 0
    server = start_server(store, "--workers", "2", "--timeout", "2", "--rate-limit", "0", "--answer-cache", "0",
                          "--log-level", "info")
    try:
        with httpx.Client(timeout=60) as client:
            assert ask(client, server.url) is False
            shutil.copy(FRONTIER, project / "data" / "ttl" / "systems" / "frontier.ttl")
            built = run_hpckg("build", "--quiet", cwd=project)
            assert built.returncode == 0, text(built)[1]
            # From the first request after the build on, every answer comes from the new generation.
            answers = [ask(client, server.url) for _ in range(10)]
            assert answers == [True] * 10
            page = client.get(server.url + "/page/system/frontier")
            assert page.status_code == 200
            # A query past the time limit kills its worker; the respawned worker reads the new build too.
            slow = client.get(server.url + "/sparql", params={"query": SLOW},
                              headers={"Accept": "application/sparql-results+json"})
            assert slow.status_code == 503
            answers = [ask(client, server.url) for _ in range(20)]
            assert answers == [True] * 20
    finally:
        server.stop()
    log = server.process.stderr.read().decode("utf-8", "replace")
    assert "switched to the store generation" in log


def test_two_builds_and_a_serving_process_at_once_never_corrupt_or_mix(project):
    import subprocess

    from conftest import hpckg_executable

    store = project / ".hpckg" / "store"
    target = project / "data" / "ttl" / "systems" / "frontier.ttl"
    assert run_hpckg("build", "--quiet", cwd=project).returncode == 0
    server = start_server(store, "--workers", "2", "--rate-limit", "0", "--answer-cache", "0")
    try:
        with httpx.Client(timeout=60) as client:
            present = False
            for _round in range(2):
                # Both builds make the same change; whichever finishes first switches the server, and from
                # then on it must never answer from the older generation again. Two rounds: a system added,
                # then removed (a third round repeated the first, 13 s of two builds with their pages).
                if present:
                    target.unlink()
                else:
                    shutil.copy(FRONTIER, target)
                builds = [subprocess.Popen([hpckg_executable(), "build", "--quiet"], cwd=project,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(2)]
                answers = []
                while any(b.poll() is None for b in builds):
                    answers.append(ask(client, server.url))
                    time.sleep(0.05)  # a reader's pace: asking flat out took a core from the builds it watches
                assert [b.wait() for b in builds] == [0, 0], [b.stderr.read() for b in builds]
                answers += [ask(client, server.url) for _ in range(5)]
                expected = not present
                first_new = answers.index(expected)
                assert all(a == expected for a in answers[first_new:]), answers
                assert all(a == present for a in answers[:first_new]), answers
                present = expected
                assert run_hpckg("query", "-e", "ASK { ?s ?p ?o }", cwd=project).returncode == 0
    finally:
        server.stop()
