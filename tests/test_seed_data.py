"""The curated seed data, figure by figure: every fact of the four seed documents (/work/shared/seeds/) is
in the graph as a claim with the right value, tier, basis and source, and the graph the build makes from
data/ttl/ parses and conforms to shapes/.

The graph is built once per session in memory (conftest.seed_store: hpckg.build.populate into Store(None)),
so the truthy triples and derived claims of queries/rules/ are there too.
Expected strings are quoted from the seed pages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

import pyoxigraph as ox
import pytest

from hpckg.claims import shorten
from hpckg.namespaces import graph_for
from hpckg.store import Store, parse_file
from hpckg.validate import ValidationReport

from conftest import session_project

ARXIV_ACME = "src:arxiv-2403-07648"
ARXIV_MEGASCALE = "src:arxiv-2402-15627"
AGGREGATOR = "src:aggregator-china-100k-card-cluster"
NSI = "sys:nsi-zhengzhou-100k-cluster"
GBA = "sys:nsi-greater-bay-area-cluster"
MEGASCALE = "sys:bytedance-megascale"

CURATED_FILES = [
    "countries.ttl", "dataset.ttl", "organisations.ttl", "parts.ttl", "software.ttl", "sources.ttl",
    "sites/acme.ttl", "sites/greater-bay-area.ttl", "sites/nsi-zhengzhou-node.ttl",
    "systems/bytedance-megascale.ttl", "systems/kalos.ttl", "systems/nsi-zhengzhou-100k-cluster.ttl",
    "systems/seren.ttl",
]


@dataclass
class Claim:
    iri: str
    tier: str
    value: str | None = None
    basis: str | None = None
    rank: str | None = None
    as_of: str | None = None
    note: str | None = None
    min_exclusive: str | None = None
    max_exclusive: str | None = None
    precision: str | None = None
    excluded: bool = False
    sources: set[str] = field(default_factory=set)

    def number(self) -> Decimal:
        assert self.value is not None, f"{self.iri} has no hpc:value"
        return Decimal(self.value)


def term(node: ox.NamedNode | ox.Literal | ox.BlankNode | None) -> str | None:
    if node is None:
        return None
    return shorten(node.value) if isinstance(node, ox.NamedNode) else node.value


@pytest.fixture
def store(seed_store: Store) -> Store:
    return seed_store


@pytest.fixture
def report(seed_report: ValidationReport) -> ValidationReport:
    return seed_report


def select(store: Store, sparql: str) -> list[dict[str, str | None]]:
    result = store.query(sparql)
    names = [v.value for v in result.variables]
    return [{name: term(row[name]) for name in names} for row in result]


def claims(store: Store, about: str, prop: str) -> list[Claim]:
    """Every claim on `prop` of `about` (prefixed names), with its provenance."""
    rows = select(store, f"""
        SELECT ?c ?tier ?value ?basis ?rank ?asOf ?note ?minEx ?maxEx ?precision ?excluded ?src WHERE {{
          ?c a hpc:Claim ; hpc:about {about} ; hpc:property {prop} ; hpc:tier ?tier .
          OPTIONAL {{ ?c hpc:value ?value }}       OPTIONAL {{ ?c hpc:basis ?basis }}
          OPTIONAL {{ ?c hpc:rank ?rank }}         OPTIONAL {{ ?c hpc:asOf ?asOf }}
          OPTIONAL {{ ?c skos:note ?note }}        OPTIONAL {{ ?c hpc:minExclusive ?minEx }}
          OPTIONAL {{ ?c hpc:maxExclusive ?maxEx }} OPTIONAL {{ ?c hpc:precision ?precision }}
          OPTIONAL {{ ?c hpc:excludedFromTotals ?excluded }}
          OPTIONAL {{ ?c prov:hadPrimarySource ?src }}
        }}""")
    found: dict[str, Claim] = {}
    for r in rows:
        c = found.setdefault(r["c"], Claim(
            iri=r["c"], tier=r["tier"], value=r["value"], basis=r["basis"], rank=r["rank"],
            as_of=r["asOf"], note=r["note"], min_exclusive=r["minEx"], max_exclusive=r["maxEx"],
            precision=r["precision"], excluded=r["excluded"] == "true"))
        if r["src"]:
            c.sources.add(r["src"])
    return list(found.values())


def the_claim(store: Store, about: str, prop: str) -> Claim:
    """The one claim with a value on `prop` of `about` that is preferred (or the only one)."""
    found = [c for c in claims(store, about, prop) if c.value is not None]
    preferred = [c for c in found if c.rank == "rank:preferred"] or found
    assert len(preferred) == 1, f"expected one claim on {prop} of {about}, found {preferred}"
    return preferred[0]


def reported(store: Store, about: str, prop: str, source: str) -> Claim:
    """The claim, asserted to be tier reported and resting on `source`."""
    c = the_claim(store, about, prop)
    assert c.tier == "tier:reported", c
    assert source in c.sources, c
    return c


def truthy(store: Store, subject: str, prop: str) -> list[str | None]:
    return sorted(r["v"] or "" for r in select(store, f"SELECT ?v WHERE {{ {subject} {prop} ?v }}"))


def label(store: Store, subject: str) -> str | None:
    rows = select(store, f"SELECT ?l WHERE {{ {subject} rdfs:label ?l }}")
    return rows[0]["l"] if rows else None


# --- The graph as a whole ------------------------------------------------------------------------------


def test_every_curated_file_exists_and_parses():
    data = session_project().data_dir
    for name in CURATED_FILES:
        assert (data / name).is_file(), f"data/ttl/{name} is missing"
    for path in sorted(data.rglob("*.ttl")):
        assert parse_file(path), f"{path} parsed to no triples"


def test_graph_conforms_to_shapes(report: ValidationReport):
    assert report.conforms, report.to_text()


def test_every_claim_has_one_tier_and_a_source_or_a_derivation(store: Store):
    bad = select(store, """
        SELECT ?c WHERE {
          ?c a hpc:Claim .
          { SELECT ?c (COUNT(?t) AS ?tiers) WHERE { ?c a hpc:Claim . OPTIONAL { ?c hpc:tier ?t } } GROUP BY ?c }
          FILTER (?tiers != 1
                  || (NOT EXISTS { ?c prov:hadPrimarySource ?s . ?s a hpc:Source }
                      && NOT EXISTS { ?c a hpc:DerivedClaim ; prov:wasDerivedFrom ?input }))
        }""")
    assert not bad, bad


def in_seed_files(pattern: str) -> str:
    """`pattern` read from the seed files only: a contribution added as CONTRIBUTING.md teaches (Frontier,
    verified by two independent sources) is not a seed, and an assertion about the seeds must not fail on it."""
    graphs = " ".join(f"<{graph_for(f'data/ttl/{name}')}>" for name in CURATED_FILES)
    return f"VALUES ?seedFile {{ {graphs} }} GRAPH ?seedFile {{ {pattern} }}"


def test_no_curated_claim_is_verified(store: Store):
    # The seeds' only sources are the operators' own papers, an aggregator and reference pages.
    assert select(store, f"SELECT ?c WHERE {{ {in_seed_files('?c a hpc:Claim')} }}"), "no seed claims found"
    assert not select(store, f"SELECT ?c WHERE {{ {in_seed_files('?c a hpc:Claim ; hpc:tier tier:verified')} }}")


def test_every_claim_slug_starts_with_its_entitys_slug(store: Store):
    rows = select(store, """
        SELECT ?c ?slug WHERE {
          ?c a hpc:Claim ; hpc:about ?e . ?e hpc:slug ?slug .
          FILTER (!STRSTARTS(STR(?c), CONCAT("https://w3id.org/hpckg/id/claim/", ?slug)))
        }""")
    assert not rows, rows


def test_every_claim_property_is_defined_in_the_ontology(store: Store):
    rows = select(store, """
        SELECT DISTINCT ?p WHERE {
          ?c a hpc:Claim ; hpc:property ?p .
          FILTER NOT EXISTS { ?p a/rdfs:subClassOf* hpc:ClaimProperty ; rdfs:label ?l ; rdfs:comment ?m }
        }""")
    assert not rows, rows


def test_machine_generated_claims_are_leads_excluded_from_totals(store: Store):
    rows = select(store, """
        SELECT ?c ?tier ?excluded WHERE {
          ?c hpc:basis basis:machine-generated ; hpc:tier ?tier .
          OPTIONAL { ?c hpc:excludedFromTotals ?excluded }
        }""")
    assert len(rows) >= 16, rows  # the sixteen of seed 003, at least
    assert all(r["tier"] == "tier:lead" and r["excluded"] == "true" for r in rows), rows


def test_claims_resting_only_on_the_aggregator_are_leads(store: Store):
    rows = select(store, f"""
        SELECT ?c ?tier WHERE {{
          ?c prov:hadPrimarySource {AGGREGATOR} ; hpc:tier ?tier .
          FILTER NOT EXISTS {{ ?c prov:hadPrimarySource ?other . FILTER (?other != {AGGREGATOR}) }}
        }}""")
    assert len(rows) >= 30
    assert {r["tier"] for r in rows} == {"tier:lead"}


# --- Kalos and Seren (seeds 000 and 001): the Acme GPU datacenter ---------------------------------------

ACME_SYSTEMS = {
    "kalos": dict(label="Kalos (Shanghai AI Lab)", alias="Kalos", gpus=2416, nodes=302, memory=2048,
                  cpus=604, scheduler="part:kubernetes", related="sys:seren",
                  interconnect="NVIDIA Mellanox 200Gbps HDR InfiniBand, four adapters per node for "
                               "application traffic plus one for storage",
                  change="Kalos (Shanghai AI Lab) added (2,416 A100, LLM development)"),
    "seren": dict(label="Seren (Shanghai AI Lab)", alias="Seren", gpus=2288, nodes=286, memory=1024,
                  cpus=572, scheduler="part:slurm", related="sys:kalos",
                  interconnect="NVIDIA Mellanox 200Gbps HDR InfiniBand between nodes, NVLink and NVSwitch "
                               "within a node",
                  change="Seren (Shanghai AI Lab) added (2,288 A100, LLM development)"),
}


@pytest.mark.parametrize("slug", ACME_SYSTEMS)
def test_acme_system_identity_and_facts(store: Store, slug: str):
    seed, system = ACME_SYSTEMS[slug], f"sys:{slug}"
    assert label(store, system) == seed["label"]
    assert truthy(store, system, "skos:altLabel") == [seed["alias"]]
    assert reported(store, system, "hpc:operator", ARXIV_ACME).value == "orgn:shanghai-ai-lab"
    assert label(store, "orgn:shanghai-ai-lab") == "Shanghai AI Laboratory"
    assert reported(store, system, "hpc:country", ARXIV_ACME).value == "country:CN"
    status = reported(store, system, "hpc:status", ARXIV_ACME)
    assert (status.value, status.as_of) == ("status:operational", "2023-08")
    assert reported(store, system, "hpc:systemKind", ARXIV_ACME).value == "kind:ai-training"
    assert reported(store, system, "hpc:purpose", ARXIV_ACME).value == "LLM development"
    assert reported(store, system, "hpc:site", ARXIV_ACME).value == "site:acme"
    assert reported(store, system, "hpc:nodeCount", ARXIV_ACME).number() == seed["nodes"]
    assert reported(store, system, "hpc:workloadTracePeriod", ARXIV_ACME).value == "2023-03/2023-08"
    related = reported(store, system, "hpc:relatedSystem", ARXIV_ACME)
    assert related.value == seed["related"]
    assert related.note == "The paper says Kalos is the newer cluster with better networking."
    # Timeline: "2024-03 Announced"
    assert reported(store, system, "hpc:announced", ARXIV_ACME).value == "2024-03"
    # every claim about the system or its components is reported and rests on the operator's paper
    rows = select(store, f"""
        SELECT ?c ?tier WHERE {{
          ?c hpc:about ?e ; hpc:tier ?tier . FILTER (?e = {system} || EXISTS {{ ?e hpc:componentOf {system} }})
          FILTER NOT EXISTS {{ ?c a hpc:DerivedClaim }}
          FILTER (?tier != tier:reported || NOT EXISTS {{ ?c prov:hadPrimarySource {ARXIV_ACME} }})
        }}""")
    assert not rows, rows


@pytest.mark.parametrize("slug", ACME_SYSTEMS)
def test_acme_system_components(store: Store, slug: str):
    seed = ACME_SYSTEMS[slug]
    gpu = f"cmp:{slug}-accelerator"
    assert reported(store, gpu, "hpc:partModel", ARXIV_ACME).value == "part:nvidia-a100-sxm4-80gb"
    assert reported(store, gpu, "hpc:supplierAtBuild", ARXIV_ACME).value == "orgn:nvidia"
    assert reported(store, gpu, "hpc:quantity", ARXIV_ACME).number() == seed["gpus"]
    assert reported(store, gpu, "hpc:nodeCount", ARXIV_ACME).number() == seed["nodes"]
    assert reported(store, gpu, "hpc:perNode", ARXIV_ACME).number() == 8
    assert seed["nodes"] * 8 == seed["gpus"]
    assert reported(store, gpu, "hpc:detail", ARXIV_ACME).value == \
        f"{seed['nodes']} nodes of 8 NVIDIA A100-SXM 80GB GPUs"

    net = f"cmp:{slug}-interconnect"
    assert reported(store, net, "hpc:partModel", ARXIV_ACME).value == "part:infiniband-hdr-200g"
    assert reported(store, net, "hpc:supplierAtBuild", ARXIV_ACME).value == "orgn:nvidia"
    assert reported(store, net, "hpc:detail", ARXIV_ACME).value == seed["interconnect"]
    assert not claims(store, net, "hpc:quantity")  # the seed shows "-"

    cpu = f"cmp:{slug}-cpu"
    assert reported(store, cpu, "hpc:partModel", ARXIV_ACME).value == "part:intel-xeon-platinum-8358p"
    assert reported(store, cpu, "hpc:supplierAtBuild", ARXIV_ACME).value == "orgn:intel"
    assert reported(store, cpu, "hpc:perNode", ARXIV_ACME).number() == 2
    assert reported(store, cpu, "hpc:nodeCount", ARXIV_ACME).number() == seed["nodes"]
    # the CPU total is derived (nodes × per node, rule 25), never stated: the paper gives the per-node figure
    cpus = the_claim(store, cpu, "hpc:quantity")
    assert (cpus.number(), cpus.tier, cpus.sources) == (seed["cpus"], "tier:reported", set())
    assert cpus.iri == f"claim:{slug}-cpu-quantity-derived" and cpus.as_of
    inputs = {r["i"] for r in select(store, f"SELECT ?i WHERE {{ {cpus.iri} prov:wasDerivedFrom ?i }}")}
    assert inputs == {f"claim:{slug}-cpu-nodes", f"claim:{slug}-cpu-per-node"}
    used = {r["i"] for r in select(store, "SELECT ?i WHERE { act:derive-25-component-quantity prov:used ?i }")}
    assert inputs <= used
    assert seed["cpus"] == 2 * seed["nodes"]

    memory = f"cmp:{slug}-memory"
    assert truthy(store, memory, "hpc:role") == ["role:memory"]
    assert reported(store, memory, "hpc:memoryGB", ARXIV_ACME).number() == seed["memory"]
    assert reported(store, memory, "hpc:nodeCount", ARXIV_ACME).number() == seed["nodes"]

    nvlink = f"cmp:{slug}-intra-node-interconnect"
    assert reported(store, nvlink, "hpc:partModel", ARXIV_ACME).value == "part:nvidia-nvlink-nvswitch"
    assert reported(store, f"cmp:{slug}-storage", "hpc:detail", ARXIV_ACME).value == \
        "All-NVMe shared parallel file system"
    assert reported(store, f"cmp:{slug}-scheduler", "hpc:partModel", ARXIV_ACME).value == seed["scheduler"]


def test_kalos_network_adapters_four_plus_one_for_storage(store: Store):
    app, storage = "cmp:kalos-network-adapter", "cmp:kalos-storage-adapter"
    for component, per_node in ((app, 4), (storage, 1)):
        assert truthy(store, component, "hpc:role") == ["role:network-adapter"]
        assert reported(store, component, "hpc:perNode", ARXIV_ACME).number() == per_node
        assert reported(store, component, "hpc:nodeCount", ARXIV_ACME).number() == 302
    assert "storage" in reported(store, storage, "hpc:detail", ARXIV_ACME).value


def test_hdr_infiniband_part_facts(store: Store):
    part = "part:infiniband-hdr-200g"
    assert label(store, part) == "NVIDIA InfiniBand HDR"
    assert the_claim(store, part, "hpc:topology").value == "Fat tree or dragonfly+"
    assert the_claim(store, part, "hpc:portSpeedGbps").number() == 200
    latency = the_claim(store, part, "hpc:latencyMicroseconds")
    assert (latency.number(), latency.precision) == (Decimal("0.6"), "precision:approximate")
    maker = the_claim(store, part, "hpc:maker")
    assert (maker.value, maker.tier) == ("orgn:mellanox", "tier:reported")
    # designed by Mellanox, which NVIDIA acquired: the maker rolls up to NVIDIA
    assert truthy(store, "orgn:mellanox", "hpc:rollsUpTo") == ["orgn:nvidia"]
    a100 = "part:nvidia-a100-sxm4-80gb"
    assert the_claim(store, a100, "hpc:maker").value == "orgn:nvidia"
    assert the_claim(store, a100, "hpc:architecture").value == "Ampere"
    assert the_claim(store, a100, "hpc:memoryGB").number() == 80
    assert the_claim(store, "part:intel-xeon-platinum-8358p", "hpc:maker").value == "orgn:intel"


@pytest.mark.parametrize("slug,count", [("kalos", 2416), ("seren", 2288)])
def test_acme_source_check_and_change_history(store: Store, slug: str, count: int):
    check = select(store, f"""
        SELECT ?chk ?used ?ended ?by ?result ?passes ?count ?agent WHERE {{
          ?chk a hpc:SourceCheck ; hpc:checkedSystem sys:{slug} ; prov:used ?used ; prov:endedAtTime ?ended ;
               hpc:checkedBy ?by ; hpc:checkResult ?result ; hpc:countFound ?count ;
               prov:wasAssociatedWith ?agent . ?result hpc:passes ?passes .
        }}""")
    assert len(check) == 1, check
    row = check[0]
    assert row["used"] == ARXIV_ACME and row["ended"].startswith("2026-10-09") and row["by"] == "pnpm verify"
    assert (row["result"], row["passes"]) == ("checkresult:names-system-part-count", "true")
    assert int(row["count"]) == count and row["agent"] == "sw:pnpm-verify"
    terms = sorted(r["t"] for r in select(store, f"SELECT ?t WHERE {{ {row['chk']} hpc:termFound ?t }}"))
    assert terms == ["NVIDIA A100 SXM4 80GB", "NVIDIA InfiniBand HDR"]
    change = select(store, f"""
        SELECT ?date ?text WHERE {{ ?e a hpc:ChangeEntry ; hpc:changedEntity sys:{slug} ;
                                    dcterms:date ?date ; rdfs:comment ?text }}""")
    assert change == [{"date": "2026-10-02", "text": ACME_SYSTEMS[slug]["change"]}]


def test_acme_site_is_unlocated_and_totals_4704_reported(store: Store):
    assert truthy(store, "site:acme", "rdf:type") == ["hpc:Datacenter"]
    assert label(store, "site:acme") == "Acme GPU datacenter"
    assert reported(store, "site:acme", "hpc:operator", ARXIV_ACME).value == "orgn:shanghai-ai-lab"
    assert reported(store, "site:acme", "hpc:country", ARXIV_ACME).value == "country:CN"
    assert not claims(store, "site:acme", "hpc:location"), "the paper gives no location"
    total = the_claim(store, "site:acme", "hpc:acceleratorCount")
    assert (total.number(), total.tier) == (4704, "tier:reported")


def test_acme_paper_is_the_operators_own(store: Store):
    rows = select(store, f"""SELECT ?title ?arxiv ?issued ?kind WHERE {{
        {ARXIV_ACME} dcterms:title ?title ; hpc:arxivId ?arxiv ; dcterms:issued ?issued ; hpc:sourceKind ?kind ;
                     dcterms:creator orgn:shanghai-ai-lab }}""")
    assert rows == [{"title": "Characterization of Large Language Model Development in the Datacenter",
                     "arxiv": "2403.07648", "issued": "2024-03", "kind": "sourcekind:paper"}]


# --- ByteDance MegaScale Cluster (seed 004) -------------------------------------------------------------


def test_megascale_identity_and_system_facts(store: Store):
    assert label(store, MEGASCALE) == "ByteDance MegaScale Cluster"
    assert truthy(store, MEGASCALE, "skos:altLabel") == [
        "ByteDance 12, 288-GPU LLM training cluster", "ByteDance 12,288-GPU LLM training cluster"]
    assert reported(store, MEGASCALE, "hpc:operator", ARXIV_MEGASCALE).value == "orgn:bytedance"
    assert the_claim(store, MEGASCALE, "hpc:country").value == "country:CN"
    assert reported(store, MEGASCALE, "hpc:status", ARXIV_MEGASCALE).value == "status:operational"
    assert reported(store, MEGASCALE, "hpc:systemKind", ARXIV_MEGASCALE).value == "kind:ai-training"
    # "Timeline: No dated events recorded."
    assert not select(store, f"""SELECT ?c WHERE {{ ?c hpc:about {MEGASCALE} ; hpc:property ?p .
                                                   ?p a hpc:TimelineProperty }}""")
    # nothing about it is verified or a lead: the paper is ByteDance's own
    assert {c.tier for p in ("hpc:operator", "hpc:acceleratorCount", "hpc:modelFlopsUtilization")
            for c in claims(store, MEGASCALE, p)} == {"tier:reported"}


def test_megascale_rows(store: Store):
    integrator = "cmp:bytedance-megascale-integrator"
    assert truthy(store, integrator, "hpc:role") == ["role:integrator"]
    assert reported(store, integrator, "hpc:supplierAtBuild", ARXIV_MEGASCALE).value == "orgn:bytedance"
    assert reported(store, integrator, "hpc:detail", ARXIV_MEGASCALE).value == \
        "ByteDance built and operates the cluster"

    gpu = "cmp:bytedance-megascale-accelerator"
    assert reported(store, gpu, "hpc:partModel", ARXIV_MEGASCALE).value == "part:nvidia-ampere-gpu"
    assert label(store, "part:nvidia-ampere-gpu") == "NVIDIA Ampere GPU"
    assert the_claim(store, "part:nvidia-ampere-gpu", "hpc:maker").value == "orgn:nvidia"
    assert reported(store, gpu, "hpc:supplierAtBuild", ARXIV_MEGASCALE).value == "orgn:nvidia"
    quantity = reported(store, gpu, "hpc:quantity", ARXIV_MEGASCALE)
    assert (quantity.number(), quantity.rank, quantity.note) == (
        12288, "rank:preferred", "used in the 175B MFU experiments")
    bound = [c for c in claims(store, gpu, "hpc:quantity") if c.value is None]
    assert len(bound) == 1, bound
    assert (Decimal(bound[0].min_exclusive), bound[0].as_of, bound[0].tier, bound[0].note) == (
        10000, "2023-09", "tier:reported", "more than 10,000 NVIDIA Ampere GPUs")
    assert bound[0].rank != "rank:preferred"
    assert [Decimal(v) for v in truthy(store, gpu, "hpc:quantity")] == [12288]  # the bound is never a value
    assert reported(store, gpu, "hpc:detail", ARXIV_MEGASCALE).value == \
        "More than 10,000 NVIDIA Ampere GPUs, 12,288 used in the 175B MFU experiments"

    net = "cmp:bytedance-megascale-interconnect"
    assert reported(store, net, "hpc:partModel", ARXIV_MEGASCALE).value == "part:broadcom-tomahawk-4"
    assert reported(store, net, "hpc:supplierAtBuild", ARXIV_MEGASCALE).value == "orgn:broadcom"
    assert reported(store, net, "hpc:topology", ARXIV_MEGASCALE).value == "three-layer CLOS"
    assert reported(store, net, "hpc:detail", ARXIV_MEGASCALE).value == \
        "Broadcom Tomahawk 4 switches with 64 x 400 Gbps ports in a three-layer CLOS network"
    switch = "part:broadcom-tomahawk-4"
    assert reported(store, switch, "hpc:portCount", ARXIV_MEGASCALE).number() == 64
    assert reported(store, switch, "hpc:portSpeedGbps", ARXIV_MEGASCALE).number() == 400
    assert reported(store, switch, "hpc:maker", ARXIV_MEGASCALE).value == "orgn:broadcom"


def test_megascale_metrics_mfu_and_hopper_plan(store: Store):
    # 12,288 is stated once, on the accelerator row; the system's accelerator count is derived from it
    count = the_claim(store, MEGASCALE, "hpc:acceleratorCount")
    assert (count.number(), count.as_of, count.basis, count.tier) == (
        12288, "2023-09", "basis:derived", "tier:reported")
    assert select(store, f"SELECT ?i WHERE {{ {count.iri} prov:wasDerivedFrom ?i }}") == [
        {"i": "claim:bytedance-megascale-accelerator-quantity"}]
    stated = [c for c in claims(store, MEGASCALE, "hpc:acceleratorCount") if c.basis != "basis:derived"]
    assert not stated
    mfu = reported(store, MEGASCALE, "hpc:modelFlopsUtilization", ARXIV_MEGASCALE)
    assert mfu.number() == Decimal("0.552") and "175B model on 12,288 GPUs" in mfu.note
    assert reported(store, MEGASCALE, "hpc:trainedModelParameters", ARXIV_MEGASCALE).number() == 175 * 10**9
    plan = reported(store, "orgn:bytedance", "hpc:statedPlan", ARXIV_MEGASCALE)
    assert plan.value == "ByteDance said it was also building clusters of NVIDIA Hopper GPUs"


def test_megascale_paper_source_check_and_change(store: Store):
    creators = truthy(store, ARXIV_MEGASCALE, "dcterms:creator")
    assert creators == ["orgn:bytedance", "orgn:peking-university"]
    assert truthy(store, ARXIV_MEGASCALE, "hpc:arxivId") == ["2402.15627"]
    check = select(store, f"""
        SELECT ?used ?ended ?by ?result ?passes WHERE {{
          ?chk a hpc:SourceCheck ; hpc:checkedSystem {MEGASCALE} ; prov:used ?used ; prov:endedAtTime ?ended ;
               hpc:checkedBy ?by ; hpc:checkResult ?result . ?result hpc:passes ?passes }}""")
    assert len(check) == 1 and check[0]["ended"].startswith("2026-10-09")
    assert (check[0]["used"], check[0]["by"], check[0]["result"], check[0]["passes"]) == (
        ARXIV_MEGASCALE, "pnpm verify", "checkresult:does-not-name-system", "false")
    change = select(store, f"""SELECT ?date ?text WHERE {{ ?e a hpc:ChangeEntry ; hpc:changedEntity {MEGASCALE} ;
                                                        dcterms:date ?date ; rdfs:comment ?text }}""")
    assert change == [{"date": "2026-10-09", "text": "Added ByteDance MegaScale Cluster"}]


# --- The 100,000-card news lead (seed 003) --------------------------------------------------------------


def lead(store: Store, about: str, prop: str, *, machine: bool) -> Claim:
    found = claims(store, about, prop)
    assert found, f"no claim on {prop} of {about}"
    c = found[0] if len(found) == 1 else the_claim(store, about, prop)
    assert c.tier == "tier:lead" and c.sources == {AGGREGATOR}, c
    if machine:
        assert c.basis == "basis:machine-generated" and c.excluded, c
    else:
        assert c.basis == "basis:reported" and not c.excluded, c
    return c


def test_news_item_sources(store: Store):
    assert truthy(store, AGGREGATOR, "hpc:sourceKind") == ["sourcekind:aggregator"]
    assert truthy(store, AGGREGATOR, "hpc:citesOriginal") == ["src:pandaily-china-100k-card-cluster"]
    assert truthy(store, "src:pandaily-china-100k-card-cluster", "dcterms:publisher") == ["orgn:pandaily"]


def test_news_key_points_are_reported_leads(store: Store):
    gpu = "cmp:nsi-zhengzhou-100k-cluster-accelerator"
    assert lead(store, gpu, "hpc:quantity", machine=False).number() == 100000
    assert lead(store, gpu, "hpc:partModel", machine=False).value == "part:domestic-ai-accelerator-card"
    assert lead(store, NSI, "hpc:site", machine=False).value == "site:nsi-zhengzhou-node"
    assert lead(store, "site:nsi-zhengzhou-node", "hpc:location", machine=False).value == "Zhengzhou"
    # no source names the operators: some-value claims (issue 9, item 5), and no plain operator triple
    for system in (NSI, GBA):
        operator = lead(store, system, "hpc:operator", machine=False)
        assert operator.value is None
        assert bool(store.query(f"ASK {{ {operator.iri} a hpc:SomeValueClaim }}"))
        assert truthy(store, system, "hpc:operator") == []
    assert lead(store, NSI, "hpc:relatedSystem", machine=False).value == GBA
    assert lead(store, GBA, "hpc:site", machine=False).value == "site:greater-bay-area"
    assert lead(store, GBA, "hpc:status", machine=False).value == "status:under-construction"
    plan = lead(store, "orgn:ndrc", "hpc:statedPlan", machine=False)
    assert plan.value == "NDRC is shaping the next five-year plan around a nationwide compute fabric."
    assert the_claim(store, "orgn:ndrc", "hpc:organisationType").value == "orgtype:government-body"
    # a lead-backed total may exist, but never above lead
    totals = claims(store, "site:nsi-zhengzhou-node", "hpc:acceleratorCount")
    assert all(c.tier == "tier:lead" for c in totals), totals


def test_news_ai_analysis_is_machine_generated(store: Store):
    assert lead(store, NSI, "hpc:memoryTechnology", machine=True).value == "HBM3"
    assert lead(store, NSI, "hpc:interconnectPortSpeedGbps", machine=True).number() == 800
    pue = lead(store, NSI, "hpc:pue", machine=True)
    assert (pue.value, Decimal(pue.max_exclusive)) == (None, Decimal("1.15"))
    target = lead(store, NSI, "hpc:targetModelParameters", machine=True)
    assert (target.value, Decimal(target.min_exclusive)) == (None, 10**12)
    forecasts = {c.value for c in claims(store, NSI, "hpc:forecast")}
    assert forecasts == {
        "Domestic AI model training costs will decrease by 30% within 18 months.",
        "China will achieve parity in large-scale model training throughput with Western clusters by 2027."}
    assert all(c.basis == "basis:machine-generated" for c in claims(store, NSI, "hpc:forecast"))
    net = "cmp:nsi-zhengzhou-100k-cluster-interconnect"
    assert lead(store, net, "hpc:topology", machine=True).value == "distributed mesh"
    assert "RDMA" in lead(store, net, "hpc:detail", machine=True).value
    assert "Liquid" in lead(store, "cmp:nsi-zhengzhou-100k-cluster-cooling", "hpc:detail", machine=True).value
    software = [c for c in claims(store, "cmp:nsi-zhengzhou-100k-cluster-accelerator", "hpc:detail")
                if "MindSpore" in (c.value or "")]
    assert len(software) == 1 and software[0].basis == "basis:machine-generated" and software[0].excluded
    timeline = {prop: lead(store, NSI, prop, machine=True).value for prop in (
        "hpc:programmeAnnounced", "hpc:constructionStarted", "hpc:pilotCompleted", "hpc:operationalSince")}
    assert timeline == {"hpc:programmeAnnounced": "2023-04", "hpc:constructionStarted": "2024-01",
                        "hpc:pilotCompleted": "2025-06", "hpc:operationalSince": "2026-08"}


def test_news_systems_hold_nothing_above_lead(store: Store):
    rows = select(store, f"""
        SELECT ?c ?tier WHERE {{
          ?c a hpc:Claim ; hpc:about ?e ; hpc:tier ?tier . FILTER (?tier != tier:lead)
          FILTER (?e IN ({NSI}, {GBA}, site:nsi-zhengzhou-node, site:greater-bay-area)
                  || EXISTS {{ ?e hpc:componentOf ?s . FILTER (?s IN ({NSI}, {GBA})) }})
        }}""")
    assert not rows, rows


# --- Organisations, lineages and the dataset's own figures ------------------------------------------------

LINEAGES = [
    ("orgn:mellanox", "hpc:acquiredBy", "orgn:nvidia", "2020-04-27", "orgn:nvidia"),
    ("orgn:cray", "hpc:acquiredBy", "orgn:hpe", "2019-09-25", "orgn:hpe"),
    ("orgn:sgi", "hpc:acquiredBy", "orgn:hpe", "2016-11-01", "orgn:hpe"),
    ("orgn:sun-microsystems", "hpc:acquiredBy", "orgn:oracle", "2010-01-27", "orgn:oracle"),
    ("orgn:compaq", "hpc:acquiredBy", "orgn:hewlett-packard", "2002-05-03", "orgn:hp-inc"),
    ("orgn:hewlett-packard", "hpc:renamedTo", "orgn:hp-inc", "2015-11-01", "orgn:hp-inc"),
]


@pytest.mark.parametrize("org,prop,successor,date,today", LINEAGES)
def test_lineage_claims_cite_reference_pages(store: Store, org, prop, successor, date, today):
    c = the_claim(store, org, prop)
    assert (c.value, c.as_of, c.tier) == (successor, date, "tier:reported")
    kinds = {k for s in c.sources for k in truthy(store, s, "hpc:sourceKind")}
    urls = [u for s in c.sources for u in truthy(store, s, "schema:url")]
    assert kinds == {"sourcekind:reference-work"}
    assert urls and all(u.startswith("https://en.wikipedia.org/wiki/") for u in urls)
    assert truthy(store, org, "hpc:rollsUpTo") == [today]


def test_tickers(store: Store):
    """The listed parents of organisations.ttl; data/ttl/vendors.ttl adds the system vendors' own
    (tests/test_vendors.py), and every ticker is exchange-qualified."""
    tickers = {r["o"]: r["t"] for r in select(store, "SELECT ?o ?t WHERE { ?o hpc:ticker ?t }")}
    seed = {"orgn:nvidia": "NASDAQ:NVDA", "orgn:intel": "NASDAQ:INTC", "orgn:broadcom": "NASDAQ:AVGO",
            "orgn:hpe": "NYSE:HPE", "orgn:oracle": "NYSE:ORCL", "orgn:hp-inc": "NYSE:HPQ", "orgn:atos": "EPA:ATO"}
    assert {org: tickers.get(org) for org in seed} == seed
    assert all(re.fullmatch(r"[A-Z]+:[A-Z0-9.]+", ticker) for ticker in tickers.values()), tickers


def test_dataset_sourcing_figures(store: Store):
    ds = "ds:public-supercomputer-dataset"
    figures = {"hpc:systemCount": 1153, "hpc:systemsWithNamingCitation": 1092, "hpc:weaklySourcedSystems": 40}
    for prop, expected in figures.items():
        c = the_claim(store, ds, prop)
        assert (c.number(), c.tier) == (expected, "tier:reported")
        kinds = {k for s in c.sources for k in truthy(store, s, "hpc:sourceKind")}
        assert kinds == {"sourcekind:dataset-page"} and len(c.sources) == 3


# --- The seed pages' "What this machine is made of" rows, rebuilt from the truthy graph ------------------

SEED_ROWS = [  # (system, role label, part label, supplier at build, quantity, detail) as the seeds print them
    ("sys:kalos", "Accelerator", "NVIDIA A100 SXM4 80GB", "NVIDIA", "2,416",
     "302 nodes of 8 NVIDIA A100-SXM 80GB GPUs"),
    ("sys:kalos", "Interconnect", "NVIDIA InfiniBand HDR", "NVIDIA", "-",
     "NVIDIA Mellanox 200Gbps HDR InfiniBand, four adapters per node for application traffic plus one for storage"),
    ("sys:seren", "Accelerator", "NVIDIA A100 SXM4 80GB", "NVIDIA", "2,288",
     "286 nodes of 8 NVIDIA A100-SXM 80GB GPUs"),
    ("sys:seren", "Interconnect", "NVIDIA InfiniBand HDR", "NVIDIA", "-",
     "NVIDIA Mellanox 200Gbps HDR InfiniBand between nodes, NVLink and NVSwitch within a node"),
    # the MegaScale page prints no part ("-"); the graph names the generic part and the switch
    (MEGASCALE, "Integrator", None, "ByteDance", "-", "ByteDance built and operates the cluster"),
    (MEGASCALE, "Accelerator", "NVIDIA Ampere GPU", "NVIDIA", "12,288",
     "More than 10,000 NVIDIA Ampere GPUs, 12,288 used in the 175B MFU experiments"),
    (MEGASCALE, "Interconnect", "Broadcom Tomahawk 4", "Broadcom", "-",
     "Broadcom Tomahawk 4 switches with 64 x 400 Gbps ports in a three-layer CLOS network"),
]


def component_rows(store: Store, system: str) -> list[tuple]:
    rows = select(store, f"""
        SELECT ?role ?part ?supplier ?quantity ?detail WHERE {{
          ?c hpc:componentOf {system} ; hpc:role/skos:prefLabel ?role .
          OPTIONAL {{ ?c hpc:partModel/rdfs:label ?part }}
          OPTIONAL {{ ?c hpc:supplierAtBuild/rdfs:label ?supplier }}
          OPTIONAL {{ ?c hpc:quantity ?quantity }}
          OPTIONAL {{ ?c hpc:detail ?detail }}
        }}""")
    return [(system, r["role"], r["part"], r["supplier"],
             f"{int(r['quantity']):,}" if r["quantity"] else "-", r["detail"]) for r in rows]


@pytest.mark.parametrize("row", SEED_ROWS, ids=lambda row: f"{row[0]}-{row[1]}")
def test_seed_component_row_is_reproducible(store: Store, row: tuple):
    assert row in component_rows(store, row[0])


@pytest.mark.parametrize("system", ["sys:kalos", "sys:seren"])
def test_seed_interconnect_part_cell_is_reproducible(store: Store, system: str):
    # "NVIDIA InfiniBand HDR Interconnect Fat tree or dragonfly+ · 200 Gb/s per port · About 0.6 microseconds"
    rows = select(store, f"""
        SELECT ?part ?topology ?speed ?latency ?precision WHERE {{
          ?c hpc:componentOf {system} ; hpc:role role:interconnect ; hpc:partModel ?p .
          ?p rdfs:label ?part ; hpc:topology ?topology ; hpc:portSpeedGbps ?speed ; hpc:latencyMicroseconds ?latency .
          ?claim hpc:about ?p ; hpc:property hpc:latencyMicroseconds ; hpc:precision ?precision .
        }}""")
    assert len(rows) == 1, rows
    r = rows[0]
    about = "About " if r["precision"] == "precision:approximate" else ""
    cell = (f"{r['part']} Interconnect {r['topology']} · {Decimal(r['speed']).normalize():f} Gb/s per port · "
            f"{about}{Decimal(r['latency']).normalize():f} microseconds")
    assert cell == "NVIDIA InfiniBand HDR Interconnect Fat tree or dragonfly+ · 200 Gb/s per port · " \
                   "About 0.6 microseconds"
