"""Records of one machine in two datasets are linked with their evidence, as leads (hpckg.linking)."""

from hpckg.linking import Record, agreement, dataset_of, find_links, word_windows
from hpckg.names import name_keys


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
