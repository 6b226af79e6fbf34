"""Records of one machine in two datasets are linked with their evidence, as leads (hpckg.linking)."""

import re

import pyoxigraph as ox
import pytest

from hpckg.linking import MAX_WORDS, MIN_KEY, Record, agreement, dataset_of, find_links, word_windows
from hpckg.names import ascii_fold, name_key, name_keys


def record(iri, dataset, names, countries=(), makers=(), years=()):
    r = Record(iri, dataset, countries=set(countries), makers=set(makers), years=set(years))
    for name in names:
        r.names |= {k for k in name_keys(name) if len(k) >= 5}
        r.windows |= word_windows(name)
    return r


def test_a_shared_distinctive_name_with_agreeing_facts_links_two_datasets():
    top = record("sys:top500-180307", "top500", ["El Capitan", "HPE Cray EX255a (DOE/NNSA/LLNL)"], ["US"],
                 ["orgn:amd"], [2024])
    epoch = record("sys:el-capitan", "epoch-clusters", ["El-Capitan (LLNL)"], ["US"], ["orgn:amd"], [2024])
    [link] = find_links({r.iri: r for r in (top, epoch)})
    assert {link.a.iri, link.b.iri} == {top.iri, epoch.iri}
    assert link.evidence == ["the name 'elcapitan'", "the country", "the accelerator's maker", "the year in service"]


def test_a_contradicting_country_or_one_dataset_never_links():
    assert agreement(record("a", "top500", ["X"], ["US"]), record("b", "epoch-clusters", ["X"], ["CN"])) is None
    same_dataset = [record(f"sys:{i}", "top500", ["Frontier"]) for i in range(2)]
    assert find_links({r.iri: r for r in same_dataset}) == []


def test_a_name_many_records_share_is_not_distinctive():
    many = [record(f"sys:t{i}", "top500", ["Cluster Platform 3000"]) for i in range(4)]
    one = record("sys:e", "epoch-clusters", ["Cluster Platform 3000"])
    assert find_links({r.iri: r for r in (*many, one)}) == []


def test_datasets_come_from_the_graph_a_record_was_written_in():
    assert dataset_of("https://w3id.org/hpckg/graph/import/top500/2019-06") == "top500"
    assert dataset_of("https://w3id.org/hpckg/graph/data/ttl/systems/kalos.ttl") == "curated"


def test_a_name_inside_another_name_needs_two_agreements():
    top = record("sys:top500-180307", "top500", ["El Capitan"], ["US"], ["orgn:amd"], [2024])
    epoch = record("sys:epoch-el-capitan", "epoch-clusters", ["Lawrence Livermore NL El Capitan Phase 2"], ["US"],
                   ["orgn:amd"], [2024])
    [link] = find_links({r.iri: r for r in (top, epoch)})
    assert link.evidence[0] == "the name 'elcapitan' within the other's" and len(link.evidence) == 4
    only_country = record("sys:epoch-el-capitan", "epoch-clusters", ["Lawrence Livermore NL El Capitan"], ["US"])
    assert find_links({r.iri: r for r in (top, only_country)}) == []


def test_a_link_on_labels_alone_cites_the_first_source_of_a_claim_about_either_record():
    """Names read from rdfs:label carry no source, so the link cites what its two records rest on: the
    alphabetically first source of the claims about either one (the same every build). Only the linked
    systems are looked up: other systems' claims do not count."""
    from hpckg.claims import claim_quads, make_claim
    from hpckg.linking import LINKS_GRAPH, link_quads
    from hpckg.namespaces import hpc
    from hpckg.store import Store
    from hpckg.terms import RDF_TYPE

    store = Store(None)
    top = record("https://w3id.org/hpckg/id/system/top500-1", "top500", ["Frontier"], ["US"], ["orgn:amd"], [2022])
    epoch = record("https://w3id.org/hpckg/id/system/frontier", "epoch-clusters", ["Frontier"], ["US"],
                   ["orgn:amd"], [2022])
    other = "https://w3id.org/hpckg/id/system/other"
    claims = [make_claim(top.iri, "rmax", 1.1e18, tier="reported", sources=["https://w3id.org/hpckg/id/source/b",
                                                                          "https://w3id.org/hpckg/id/source/c"]),
              make_claim(epoch.iri, "country", "US", tier="reported", sources="https://w3id.org/hpckg/id/source/d"),
              make_claim(other, "country", "US", tier="reported", sources="https://w3id.org/hpckg/id/source/a")]
    graph = "https://w3id.org/hpckg/graph/test"
    for claim in claims:
        store.load_quads(claim_quads(claim, graph=graph))
    store.load_quads(ox.Quad(ox.NamedNode(iri), ox.NamedNode(RDF_TYPE), ox.NamedNode(hpc("System")),
                             ox.NamedNode(graph)) for iri in (top.iri, epoch.iri, other))
    [link] = find_links({r.iri: r for r in (top, epoch)})
    quads = list(link_quads(store, [link]))
    cited = sorted(q.object.value for q in quads if q.predicate.value == "http://www.w3.org/ns/prov#hadPrimarySource")
    assert cited == ["https://w3id.org/hpckg/id/source/b", "https://w3id.org/hpckg/id/source/d"]
    assert {q.graph_name.value for q in quads} == {LINKS_GRAPH}


@pytest.mark.parametrize("name", ["El Capitan", "HPE Cray EX255a (DOE/NNSA/LLNL)", "Jülich JUWELS Booster Module",
                                  "Sеrеn-2 А100 Cluster", "ABCI 3.0", "Tianhe-2A_TH-IVB-FEP", "日本 Fugaku 富岳",
                                  "x", ""])
def test_a_names_word_runs_are_keyed_as_name_key_keys_the_run(name):
    # The link step keys each word once and joins the keys of a run (name_key on every run was most of its
    # time); that must give what name_key gives for the run itself, accents and look-alike letters included.
    words = re.findall(r"[^\W_]+", ascii_fold(name))
    expected = {key for size in range(1, MAX_WORDS + 1) for start in range(len(words) - size + 1)
                if len(key := name_key(" ".join(words[start:start + size]))) >= MIN_KEY}
    assert word_windows(name) == expected
