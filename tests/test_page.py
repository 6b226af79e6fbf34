"""System pages rendered from the graph, checked figure by figure against the seed pages
(/work/shared/seeds/000 Kalos, 001 Seren, 004 ByteDance MegaScale), in Markdown and in HTML, through the
library and through the installed `hpckg` command."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from hpckg.build import populate
from hpckg.errors import UnknownNameError
from hpckg.formats import rdf_format_for_path
from hpckg.page import SystemPage, find_system, render_html, render_markdown, system_page
from hpckg.page import text as t
from hpckg.store import Store

from conftest import default_workdir, session_project

SYS = "https://w3id.org/hpckg/id/system/"
ORG = "https://w3id.org/hpckg/id/org/"


@pytest.fixture(scope="module")
def store() -> Store:
    store = Store(None)
    populate(store, project=session_project())
    return store


@pytest.fixture(scope="module")
def pages(store) -> dict[str, SystemPage]:
    return {slug: system_page(store, find_system(store, slug))
            for slug in ("kalos", "seren", "bytedance-megascale", "nsi-zhengzhou-100k-cluster")}


# --- HTML checking ------------------------------------------------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Checker(HTMLParser):
    """Checks that every element is closed in order, and collects table cells and the visible text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.cells: list[str] = []
        self.rows: list[list[str]] = []
        self.text: list[str] = []
        self._cell: list[str] | None = None
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in VOID:
            return
        self.stack.append(tag)
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th"):
            self._cell = []

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}>")
            return
        self.stack.pop()
        if tag in ("td", "th") and self._cell is not None:
            cell = " ".join("".join(self._cell).split())
            self.cells.append(cell)
            self.rows[-1].append(cell)
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def parse_html(document: str) -> Checker:
    checker = Checker()
    checker.feed(document)
    checker.close()
    assert not checker.errors, checker.errors
    assert not checker.stack, f"unclosed elements: {checker.stack}"
    return checker


def visible(checker: Checker) -> str:
    return " ".join("".join(checker.text).split())


def row_starting(rows: list[list[str]], first: str, containing: str = "") -> list[str]:
    found = [row for row in rows if row and row[0] == first and containing in " ".join(row)]
    assert found, f"no table row starting {first!r} containing {containing!r} in {rows}"
    return found[0]


# --- finding systems ----------------------------------------------------------------------------------


@pytest.mark.parametrize("ref", ["kalos", "KALOS", SYS + "kalos", "sys:kalos", "Kalos (Shanghai AI Lab)",
                                 "kalos (shanghai ai lab)"])
def test_find_system_by_slug_iri_label_or_alias(store, ref):
    assert find_system(store, ref) == SYS + "kalos"


def test_find_system_by_alias(store):
    assert find_system(store, "ByteDance 12,288-GPU LLM training cluster") == SYS + "bytedance-megascale"


def test_unknown_system_names_the_closest_matches(store):
    with pytest.raises(UnknownNameError) as caught:
        find_system(store, "kalso")
    assert "no system named 'kalso'" in str(caught.value)
    assert "closest matches: kalos" in str(caught.value)


# --- what the page holds ------------------------------------------------------------------------------


def sourcing_figures(store: Store) -> tuple[int, int, int]:
    """(systems, systems with a passing source check, weakly sourced systems), counted here in SPARQL."""
    systems = len(list(store.query("SELECT DISTINCT ?s WHERE { ?s a hpc:System }")))
    named = len(list(store.query("""SELECT DISTINCT ?s WHERE {
        ?c a hpc:SourceCheck ; hpc:checkedSystem ?s ; hpc:checkResult/hpc:passes true . ?s a hpc:System }""")))
    weak_query = session_project().queries_dir / "weakly-sourced-systems.rq"
    weak = len(list(store.query(weak_query.read_text(encoding="utf-8"),
                                prefixes=False)))
    return systems, named, weak


def test_kalos_header_and_preamble(pages, store):
    page = pages["kalos"]
    assert page.label == "Kalos (Shanghai AI Lab)"
    assert page.aliases == ["Kalos"]
    assert (page.country.text, page.status.text, page.status.as_of, page.kind.text) == (
        "China", "operational", "2023-08", "ai training")
    assert (page.operator.text, page.operator.entity) == ("Shanghai AI Laboratory", ORG + "shanghai-ai-lab")
    # The sourcing figures are the graph's own source checks, not the upstream dataset's "1092 of 1153".
    assert (page.preamble.system_count.value, page.preamble.with_naming_citation.value,
            page.preamble.weakly_sourced.value) == sourcing_figures(store)


def test_measured_performance_lists_claimed_figures_only(pages):
    # Kalos has no TOP500 figure: no table of "-" (issue 35), a sentence saying so instead.
    assert pages["kalos"].performance == []
    assert t.NO_PERFORMANCE in render_markdown(pages["kalos"])


def test_kalos_components(pages):
    rows = {row.role.text: row for row in pages["kalos"].components}
    gpus = rows["Accelerator"]
    assert gpus.part and gpus.part.text == "NVIDIA A100 SXM4 80GB"
    assert "302 nodes of 8" in (gpus.detail or "")
    assert gpus.supplier and gpus.supplier.text == "NVIDIA"
    assert [q.text for q in gpus.quantities] == ["2,416"]
    assert gpus.layout == "302 nodes × 8"
    assert gpus.tier and gpus.tier.label == "reported"
    assert [s.host for s in gpus.sources] == ["arxiv.org"]
    assert gpus.sources[0].url == "https://arxiv.org/abs/2403.07648"
    fabric = rows["Interconnect"]
    assert fabric.part and fabric.part.text == "NVIDIA InfiniBand HDR"
    assert fabric.supplier and fabric.supplier.text == "NVIDIA"
    # Mellanox made HDR InfiniBand; it rolls up to NVIDIA today.
    assert fabric.maker and fabric.maker.href == ORG + "mellanox"
    assert fabric.maker_parent and fabric.maker_parent.text == "NVIDIA"


def test_every_kalos_figure_carries_a_tier_and_a_source(pages):
    figures = pages["kalos"].figures
    assert len(figures) > 20
    for figure in figures:
        assert figure.tier is not None, figure
        assert figure.sources, figure
        assert not figure.lead


def test_kalos_timeline_changes_and_source_check(pages):
    page = pages["kalos"]
    assert [(e.date, e.label) for e in page.timeline] == [("2024-03", "Announced")]
    assert page.timeline[0].figure.sources[0].host == "arxiv.org"
    assert [(c.date, c.text) for c in page.changes] == [
        ("2026-10-02", "Kalos (Shanghai AI Lab) added (2,416 A100, LLM development)")]
    [check] = page.checks
    assert check.source and check.source.host == "arxiv.org"
    assert (check.result, check.passes, check.checked, check.command) == (
        "names system, part and count", True, "2026-10-09", "pnpm verify")
    assert sorted(check.terms) == ["NVIDIA A100 SXM4 80GB", "NVIDIA InfiniBand HDR"]
    assert check.counts == ["2416"]
    assert page.read and page.read.startswith("The newer of the two LLM-development clusters")


def test_seren_page(pages):
    page = pages["seren"]
    gpus = next(row for row in page.components if row.role.text == "Accelerator")
    assert [q.text for q in gpus.quantities] == ["2,288"]
    assert gpus.layout == "286 nodes × 8"
    assert "286 nodes of 8" in (gpus.detail or "")
    assert [(c.date, c.text) for c in page.changes] == [
        ("2026-10-02", "Seren (Shanghai AI Lab) added (2,288 A100, LLM development)")]
    assert page.checks[0].counts == ["2288"]
    assert [(e.date, e.label) for e in page.timeline] == [("2024-03", "Announced")]


def test_megascale_page(pages):
    page = pages["bytedance-megascale"]
    assert page.operator.text == "ByteDance"
    rows = {row.role.text: row for row in page.components}
    assert set(rows) == {"Integrator", "Accelerator", "Interconnect"}
    assert rows["Integrator"].supplier and rows["Integrator"].supplier.text == "ByteDance"
    quantities = [q.text for q in rows["Accelerator"].quantities]
    assert "12,288" in quantities and "more than 10,000" in quantities
    assert rows["Accelerator"].supplier and rows["Accelerator"].supplier.text == "NVIDIA"
    assert rows["Interconnect"].supplier and rows["Interconnect"].supplier.text == "Broadcom"
    mfu = next(row for row in page.performance if row.figure.present)
    assert (mfu.label, mfu.figure.display) == ("Model FLOPs utilization", "55.2 %")
    metric = next(row for row in page.metrics if row.label == "Accelerators")
    assert (metric.figure.display, metric.figure.as_of) == ("12,288 accelerators", "2023-09")
    # stated once on the accelerator row; the system metric is derived from it (issue 9, item 9)
    assert metric.figure.basis and metric.figure.basis.text == "derived"
    assert metric.figure.note == "Sum of the system's accelerator quantities (see its components)."
    assert metric.figure.sources and metric.figure.sources[0].host == "arxiv.org"
    assert page.timeline == []
    assert [(c.date, c.text) for c in page.changes] == [("2026-10-09", "Added ByteDance MegaScale Cluster")]
    [check] = page.checks
    assert (check.result, check.passes, check.checked) == ("does not name this system", False, "2026-10-09")


# --- Markdown -----------------------------------------------------------------------------------------

SECTIONS = ["## Measured performance", "## What this machine is made of", "## The read", "## Timeline",
            "## Change history", "## Source check"]


def test_kalos_markdown(pages, store):
    md = render_markdown(pages["kalos"])
    for heading in SECTIONS:
        assert f"\n{heading}\n" in md
    assert md.startswith("Supercomputers / Systems / Kalos (Shanghai AI Lab)\n\n# Kalos (Shanghai AI Lab)\n")
    assert "China · operational (as of 2023-08) · ai training" in md
    assert "Also known as Kalos" in md
    assert "Operated by Shanghai AI Laboratory" in md
    systems, named, weak = sourcing_figures(store)
    assert f"{named} of {systems} systems have a readable citation that names them, and {weak} are weakly" in md
    assert "1092" not in md and "1153" not in md
    assert "Treat anything below verified as a lead, not a citation." in md
    assert "| Rmax (TFlop/s) |" not in md and "| Rmax ÷ Rpeak (%) |" not in md  # nothing claimed: no row of "-"
    accelerator = next(line for line in md.splitlines() if line.startswith("| Accelerator |"))
    for figure in ("NVIDIA A100 SXM4 80GB", "302 nodes of 8", "| NVIDIA |", "2,416 reported (302 nodes × 8)",
                   "| reported |", "[arxiv.org](https://arxiv.org/abs/2403.07648)"):
        assert figure in accelerator
    interconnect = next(line for line in md.splitlines() if line.startswith("| Interconnect |"))
    assert "Mellanox Technologies (today: NVIDIA)" in interconnect
    assert "200 Gb/s" in interconnect and "about 0.6 µs" in interconnect
    assert pages["kalos"].read in md
    assert "- 2024-03 Announced (reported, source: [arxiv.org](https://arxiv.org/abs/2403.07648))" in md
    assert "- 2026-10-02 Kalos (Shanghai AI Lab) added (2,416 A100, LLM development)" in md
    assert ("| [arxiv.org](https://arxiv.org/abs/2403.07648) | names system, part and count | "
            "NVIDIA A100 SXM4 80GB, NVIDIA InfiniBand HDR · counts: 2416 | 2026-10-09 | pnpm verify |") in md
    assert "Checked 2026-10-09 by pnpm verify." in md


def test_seren_markdown(pages):
    md = render_markdown(pages["seren"])
    for figure in ("2,288 reported (286 nodes × 8)", "286 nodes of 8", "counts: 2288", "2026-10-09",
                   "- 2026-10-02 Seren (Shanghai AI Lab) added (2,288 A100, LLM development)",
                   "- 2024-03 Announced", "Operated by Shanghai AI Laboratory", pages["seren"].read):
        assert figure in md, figure


def test_megascale_markdown(pages):
    md = render_markdown(pages["bytedance-megascale"])
    for heading in [*SECTIONS, "## AI datacenter metrics"]:
        assert f"\n{heading}\n" in md
    for figure in ("12,288 reported; more than 10,000 reported", "| Model FLOPs utilization (%) | 55.2 % |",
                   "| Broadcom |", "| ByteDance |", "| Accelerators | 12,288 accelerators | 2023-09 | "
                   "derived |", "does not name this system", "No dated events recorded.",
                   "- 2026-10-09 Added ByteDance MegaScale Cluster", "Operated by ByteDance",
                   "none of them mentions this system", pages["bytedance-megascale"].read):
        assert figure in md, figure


def test_markdown_escapes_values(pages):
    page = dataclasses.replace(pages["kalos"], label="K*a_l|o<s>", read="[x](javascript:alert(1))")
    md = render_markdown(page)
    assert "# K\\*a\\_l\\|o\\<s\\>" in md
    assert "\\[x\\](javascript:alert(1))" in md


# --- HTML ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", ["kalos", "seren", "bytedance-megascale"])
def test_html_is_a_well_formed_accessible_document(pages, slug):
    document = render_html(pages[slug])
    assert document.startswith("<!DOCTYPE html>\n<html lang=\"en\">")
    checker = parse_html(document)
    tags = [tag for tag, _ in checker.tags]
    assert "script" not in tags
    assert tags.count("h1") == 1 and "main" in tags and "title" in tags
    assert all(attrs.get("scope") == "col" for tag, attrs in checker.tags if tag == "th")
    text = visible(checker)
    for heading in ("Measured performance", "What this machine is made of", "The read", "Timeline",
                    "Change history", "Source check"):
        assert heading in text
    assert tags.count("h2") >= 6 and tags.count("section") == tags.count("h2")
    assert "Treat anything below verified as a lead, not a citation." in text


def test_kalos_html_figures_in_table_cells(pages, store):
    checker = parse_html(render_html(pages["kalos"]))
    text = visible(checker)
    assert "Operated by Shanghai AI Laboratory" in text
    systems, named, _ = sourcing_figures(store)
    assert f"{named} of {systems} systems" in text and "1153" not in text
    assert t.NO_PERFORMANCE in text and not any(row[0] == "Rmax (TFlop/s)" for row in checker.rows)
    gpus = row_starting(checker.rows, "Accelerator")
    assert gpus[1].startswith("NVIDIA A100 SXM4 80GB") and "302 nodes of 8" in gpus[1]
    assert gpus[2:] == ["NVIDIA reported", "2,416 reported (302 nodes × 8)", "reported", "arxiv.org"]
    # Every figure's tier is a badge linking to the claim behind it (here, the IRIs themselves): the header's
    # operator, each row of performance, metrics, timeline and facts, and each component's part, supplier and
    # quantity (node layouts and detail lines are text without badges).
    badges = {attrs["href"] for tag, attrs in checker.tags if tag == "a" and "badge" in attrs.get("class", "")}
    page = pages["kalos"]
    figures = [page.operator, *(row.figure for row in page.performance + page.metrics + page.facts),
               *(event.figure for event in page.timeline),
               *(f for row in page.components for f in (row.part_figure, row.supplier_figure, *row.quantities) if f)]
    claims = {figure.claim for figure in figures if figure.claim}
    assert claims and claims <= badges, sorted(claims - badges)
    fabric = row_starting(checker.rows, "Interconnect")
    assert "made by Mellanox Technologies (today: NVIDIA)" in fabric[1]
    check = row_starting(checker.rows, "arxiv.org", "names system")
    assert check == ["arxiv.org", "names system, part and count",
                     "NVIDIA A100 SXM4 80GB, NVIDIA InfiniBand HDR · counts: 2416", "2026-10-09", "pnpm verify"]
    assert "2024-03 Announced" in text
    assert "2026-10-02 Kalos (Shanghai AI Lab) added (2,416 A100, LLM development)" in text
    assert pages["kalos"].read in text
    links = [attrs.get("href") for tag, attrs in checker.tags if tag == "a"]
    assert "https://arxiv.org/abs/2403.07648" in links


def test_seren_html_figures_in_table_cells(pages):
    checker = parse_html(render_html(pages["seren"]))
    gpus = row_starting(checker.rows, "Accelerator")
    assert "286 nodes of 8" in gpus[1] and gpus[3] == "2,288 reported (286 nodes × 8)"
    assert "counts: 2288" in row_starting(checker.rows, "arxiv.org", "names system")[2]
    assert "2026-10-02 Seren (Shanghai AI Lab) added" in visible(checker)


def test_megascale_html_figures_in_table_cells(pages):
    checker = parse_html(render_html(pages["bytedance-megascale"]))
    assert row_starting(checker.rows, "Model FLOPs utilization (%)")[1] == "55.2 %"
    gpus = row_starting(checker.rows, "Accelerator")
    assert gpus[2] == "NVIDIA reported" and gpus[3] == "12,288 reported; more than 10,000 reported"
    assert row_starting(checker.rows, "Interconnect")[2] == "Broadcom reported"
    assert row_starting(checker.rows, "Integrator")[2] == "ByteDance reported"
    assert row_starting(checker.rows, "Accelerators")[1:5] == [
        "12,288 accelerators", "2023-09", "derived",
        "Sum of the system's accelerator quantities (see its components)."]
    assert row_starting(checker.rows, "arxiv.org", "does not name")[1] == "does not name this system"
    text = visible(checker)
    assert "55.2 percent MFU" in text and "No dated events recorded." in text
    assert "2026-10-09 Added ByteDance MegaScale Cluster" in text


def test_html_fragment_is_one_article(pages):
    fragment = render_html(pages["kalos"], standalone=False)
    assert fragment.startswith("<article") and fragment.rstrip().endswith("</article>")
    assert "<html" not in fragment and "<style" not in fragment
    parse_html(fragment)


def test_html_links_entities_where_the_caller_says(pages):
    local = render_html(pages["kalos"], standalone=False,
                        link_to=lambda iri: "/" + iri.removeprefix("https://w3id.org/hpckg/"))
    hrefs = [attrs.get("href") for tag, attrs in parse_html(local).tags if tag == "a"]
    assert "/id/org/shanghai-ai-lab" in hrefs and "/id/part/nvidia-a100-sxm4-80gb" in hrefs
    assert "https://arxiv.org/abs/2403.07648" in hrefs  # sources with a URL keep it
    assert not any(h.startswith("https://w3id.org/") for h in hrefs)


def test_html_escapes_values(pages):
    page = dataclasses.replace(pages["kalos"], label='<script>alert("x")</script>', read="a & b <i>")
    document = render_html(page)
    assert "<script>" not in document and "<i>" not in document
    assert "&lt;script&gt;alert(" in document  # escaped, however the quotes are spelled (&quot; or &#34;)
    assert "a &amp; b &lt;i&gt;" in document
    text = visible(parse_html(document))
    assert '<script>alert("x")</script>' in text and "a & b <i>" in text


# --- leads --------------------------------------------------------------------------------------------

LEAD_SYSTEM = """
@prefix hpc: <https://w3id.org/hpckg/ontology#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix prov: <http://www.w3.org/ns/prov#> . @prefix schema: <https://schema.org/> .
@prefix sys: <https://w3id.org/hpckg/id/system/> . @prefix claim: <https://w3id.org/hpckg/id/claim/> .
@prefix src: <https://w3id.org/hpckg/id/source/> . @prefix tier: <https://w3id.org/hpckg/vocab/tier/> .
@prefix basis: <https://w3id.org/hpckg/vocab/basis/> . @prefix role: <https://w3id.org/hpckg/vocab/role/> .
@prefix cmp: <https://w3id.org/hpckg/id/component/> . @prefix orgn: <https://w3id.org/hpckg/id/org/> .
sys:test-lead a hpc:System ; rdfs:label "Test lead cluster"@en ; hpc:slug "test-lead" .
src:test-aggregator a hpc:Source ; schema:url "https://news.example.org/item/1" .
claim:test-lead-accelerators a hpc:Claim ; hpc:about sys:test-lead ; hpc:property hpc:acceleratorCount ;
    hpc:value 100000 ; hpc:tier tier:lead ; hpc:basis basis:reported ;
    prov:hadPrimarySource src:test-aggregator .
claim:test-lead-rmax a hpc:Claim ; hpc:about sys:test-lead ; hpc:property hpc:rmax ; hpc:value 784.0 ;
    hpc:tier tier:verified ; hpc:basis basis:measured ; prov:hadPrimarySource src:test-aggregator .
claim:test-lead-rpeak a hpc:Claim ; hpc:about sys:test-lead ; hpc:property hpc:rpeak ; hpc:value 1000 ;
    hpc:tier tier:reported ; hpc:basis basis:measured ; prov:hadPrimarySource src:test-aggregator .
cmp:test-lead-fabric a hpc:Component ; hpc:componentOf sys:test-lead ; hpc:role role:interconnect .
claim:test-lead-fabric-supplier a hpc:Claim ; hpc:about cmp:test-lead-fabric ;
    hpc:property hpc:supplierAtBuild ; hpc:value orgn:mellanox ; hpc:tier tier:reported ;
    hpc:basis basis:reported ; prov:hadPrimarySource src:test-aggregator .
claim:test-lead-fabric-quantity a hpc:Claim ; hpc:about cmp:test-lead-fabric ; hpc:property hpc:quantity ;
    hpc:minExclusive 10000 ; hpc:tier tier:lead ; hpc:basis basis:reported ;
    prov:hadPrimarySource src:test-aggregator .
claim:test-lead-forecast a hpc:Claim ; hpc:about sys:test-lead ; hpc:property hpc:forecast ;
    hpc:value "It will change everything" ; hpc:tier tier:lead ; hpc:basis basis:machine-generated ;
    prov:hadPrimarySource src:test-aggregator .
"""


@pytest.fixture(scope="module")
def lead_page() -> SystemPage:
    store = Store(None)
    store.load(LEAD_SYSTEM, format=rdf_format_for_path("x.ttl"), graph="https://example.org/test-graph")
    populate(store, session_project())  # the derivation rules (truthy triples, roll-up) see the test system too
    return system_page(store, find_system(store, "test-lead"))


def test_efficiency_is_derived_from_rmax_and_rpeak_at_the_weaker_tier(lead_page):
    ratio = next(row for row in lead_page.performance if row.label == "Rmax ÷ Rpeak")
    assert ratio.figure.display == "78.4 %"
    assert ratio.figure.tier and ratio.figure.tier.label == "reported"
    assert ratio.figure.basis and ratio.figure.basis.text == "derived"
    assert "| Rmax ÷ Rpeak (%) | 78.4 % | reported, derived |" in render_markdown(lead_page)


def test_supplier_at_build_shows_the_parent_it_rolls_up_to_today(lead_page):
    [fabric] = lead_page.components
    assert fabric.supplier and fabric.supplier.href == ORG + "mellanox"
    assert fabric.supplier_parent and fabric.supplier_parent.href == ORG + "nvidia"
    assert [q.text for q in fabric.quantities] == ["more than 10,000"]
    checker = parse_html(render_html(lead_page))
    row = row_starting(checker.rows, "Interconnect")
    assert row[2] == "Mellanox Technologies (today: NVIDIA) reported"
    assert row[3] == "more than 10,000 LEAD: not a citation"
    assert row[4] == "LEAD: not a citation"


def test_lead_and_machine_generated_figures_are_marked_as_leads(lead_page):
    page = lead_page
    rows = {row.label: row.figure for row in page.metrics}
    assert rows["Accelerators"].lead and not rows["Accelerators"].machine_generated
    assert rows["Forecast"].lead and rows["Forecast"].machine_generated
    md = render_markdown(page)
    assert "**LEAD: not a citation**" in md
    assert "**LEAD: machine-generated analysis, not a citation**" in md
    checker = parse_html(render_html(page))
    assert row_starting(checker.rows, "Accelerators")[5] == "LEAD: not a citation"
    assert any(tag == "strong" and attrs.get("class") == "lead" for tag, attrs in checker.tags)
    assert "news.example.org" in row_starting(checker.rows, "Forecast")[6]


# --- the installed command ----------------------------------------------------------------------------


def hpckg_command() -> list[str]:
    beside = Path(sys.executable).with_name("hpckg")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("hpckg")
    return [found] if found else [sys.executable, "-m", "hpckg.cli"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([*hpckg_command(), *args], capture_output=True, text=True, cwd=cwd or default_workdir(),
                          env=env, timeout=120, check=False)


def test_cli_renders_kalos_markdown_from_memory():
    result = run("page", "kalos", "--memory")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Supercomputers / Systems / Kalos (Shanghai AI Lab)")
    assert "2,416 reported (302 nodes × 8)" in result.stdout
    assert "Operated by Shanghai AI Laboratory" in result.stdout


def test_cli_writes_html_to_a_file(tmp_path):
    out = tmp_path / "seren.html"
    result = run("page", "Seren (Shanghai AI Lab)", "--memory", "--format", "html", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    checker = parse_html(out.read_text(encoding="utf-8"))
    assert row_starting(checker.rows, "Accelerator")[3] == "2,288 reported (286 nodes × 8)"


def test_cli_unknown_system_exits_2_with_a_clear_message():
    result = run("page", "no-such-machine", "--memory")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "hpckg page: error: no system, site, organisation or part named 'no-such-machine'" in result.stderr


def test_cli_missing_store_exits_2(tmp_path):
    result = run("page", "kalos", "--store", str(tmp_path / "nowhere"))
    assert result.returncode == 2
    assert "run `hpckg build` first" in result.stderr


# --- issue 9, item 10 -------------------------------------------------------------------------------------

def test_component_rows_keep_the_machine_generated_label_and_show_topology_and_extra_details(pages):
    from hpckg.page.text import part_summary, row_tier_text
    rows = {row.role.text: row for row in pages["nsi-zhengzhou-100k-cluster"].components}
    interconnect = rows["Interconnect"]
    assert interconnect.machine_generated
    assert "machine-generated" in row_tier_text(interconnect)
    assert any(line.startswith("topology: distributed mesh") for line in part_summary(interconnect))
    accelerator = rows["Accelerator"]
    assert any("MindSpore" in line and "machine-generated" in line for line in part_summary(accelerator))
    megascale = {row.role.text: row for row in pages["bytedance-megascale"].components}
    assert "topology: three-layer CLOS" in part_summary(megascale["Interconnect"])


def test_preamble_says_each_sentence_once(pages):
    from hpckg.page.text import preamble_sentences
    text = " ".join(preamble_sentences(pages["kalos"])).casefold()
    assert text.count("every claim carries its source") == 1
    assert text.count("lead, not a citation") == 1


def test_news_lead_header_says_the_operator_is_not_named(pages):
    page = pages["nsi-zhengzhou-100k-cluster"]
    assert page.operator.text == "not named" and page.operator.tier and page.operator.tier.label == "lead"
