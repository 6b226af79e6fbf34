"""`hpckg page` renders sites, organisations and parts as the site does (the same reading, hpckg.serve.views),
not only systems; system pages compute their sourcing sentence from the graph's own source checks (and say
nothing when there are none) and show the breadcrumb as one line, not a numbered list."""

from __future__ import annotations

import re

import pytest

from hpckg.build import populate
from hpckg.errors import UnknownNameError
from hpckg.page import find_entity, render_html, render_markdown, system_page
from hpckg.store import Store

from conftest import run_hpckg, session_project, text


@pytest.mark.parametrize("ref,kind,iri", [
    ("kalos", "system", "https://w3id.org/hpckg/id/system/kalos"),
    ("site:acme", "site", "https://w3id.org/hpckg/id/site/acme"),
    ("Acme GPU datacenter", "site", "https://w3id.org/hpckg/id/site/acme"),
    ("orgn:nvidia", "org", "https://w3id.org/hpckg/id/org/nvidia"),
    ("nvidia", "org", "https://w3id.org/hpckg/id/org/nvidia"),
    ("https://w3id.org/hpckg/id/part/slurm", "part", "https://w3id.org/hpckg/id/part/slurm"),
    ("NVIDIA A100 SXM4 80GB", "part", "https://w3id.org/hpckg/id/part/nvidia-a100-sxm4-80gb"),
])
def test_find_entity(seed_store, ref, kind, iri):
    assert find_entity(seed_store, ref) == (kind, iri)


def test_find_entity_refuses_what_is_not_a_page(seed_store):
    with pytest.raises(UnknownNameError, match="not a system, site, organisation or part"):
        find_entity(seed_store, "src:arxiv-2403-07648")


def test_site_page_markdown_has_facts_derived_total_and_systems():
    completed = run_hpckg("page", "site:acme", "--memory")
    out, err = text(completed)
    assert completed.returncode == 0, err
    assert out.startswith("Supercomputers / Sites / Acme GPU datacenter\n\n# Acme GPU datacenter\n")
    assert "| operator | Shanghai AI Laboratory | reported | 2024-03 | arXiv 2403.07648 |" in out
    assert "## Accelerators: 4,704" in out
    assert "- Kalos (Shanghai AI Lab) <https://w3id.org/hpckg/id/system/kalos>" in out


def test_organisation_and_part_pages_as_html_as_the_site_shows_them(tmp_path):
    out = tmp_path / "nvidia.html"
    completed = run_hpckg("page", "orgn:nvidia", "--format", "html", "--out", str(out), "--memory")
    assert completed.returncode == 0, text(completed)[1]
    page = out.read_text(encoding="utf-8")
    assert "<h1>NVIDIA</h1>" in page and "Acquired or renamed from" in page
    assert 'href="https://w3id.org/hpckg/id/org/mellanox"' in page  # links go to IRIs, not a server's paths
    part = text(run_hpckg("page", "part:nvidia-a100-sxm4-80gb", "--format", "html", "--memory"))[0]
    assert "Specifications" in part and "Used in" in part and "Kalos (Shanghai AI Lab)" in part


def test_breadcrumb_is_one_line_not_a_numbered_list(seed_store):
    page = render_html(system_page(seed_store, "https://w3id.org/hpckg/id/system/kalos"), standalone=True)
    nav = re.search(r'<nav class="breadcrumb"[^>]*>(.*?)</nav>', page, re.S).group(1)
    assert "<ol" not in nav and "<li" not in nav
    assert re.sub(r"<[^>]+>", "", nav) == "Supercomputers / Systems / Kalos (Shanghai AI Lab)"


def test_without_source_checks_the_page_states_no_sourcing_figures():
    from hpckg.build import sourcing_summary
    from hpckg.namespaces import THIS_DATASET

    store = Store(None)
    populate(store, project=session_project())
    # The build wrote the figures of the seed's checks about the dataset; without checks it writes none.
    assert bool(store.query(f"ASK {{ <{THIS_DATASET}> hpc:systemsWithNamingCitation ?n }}"))
    store.update("DELETE WHERE { GRAPH ?g { ?check a hpc:SourceCheck ; ?p ?o } }")
    store.update(f"DELETE WHERE {{ GRAPH ?g {{ <{THIS_DATASET}> ?p ?o }} }}")
    sourcing_summary(store, session_project().queries_dir)
    page = system_page(store, "https://w3id.org/hpckg/id/system/kalos")
    assert not page.preamble.system_count.present
    markdown = render_markdown(page)
    assert "readable citation" not in markdown and "1092" not in markdown and "1153" not in markdown
