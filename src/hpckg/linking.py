"""Find system records of one machine across datasets (an Epoch AI cluster, a TOP500 system, a curated file)
and link them with `hpc:sameMachineAs` claims that carry their evidence; never a merge.

Two records are proposed as one machine when a distinctive name of one is a name of the other (labels,
alternative labels and name claims, compared by hpckg.names.name_key, so "El Capitan" = "El-Capitan (LLNL)")
and nothing they both state contradicts it: if both give a country, it is the same. A name of one may also
be a run of words inside a name of the other (TOP500's "Frontier" in Epoch's "Oak Ridge NL Frontier", "El
Capitan" in "Lawrence Livermore NL El Capitan Phase 2"); such a partial match needs two agreements besides
the name. Agreements (the country, the accelerator's maker, the year in service within one year) are the
evidence. A name shared by more than three records of one dataset ("Cluster", "Cray XT5") is not distinctive
and links nothing; nor is a name shorter than five letters.

Partitions. TOP500 often lists one machine's partitions apart ("Raven" and "Raven-GPU", "MareNostrum 5 GPP"
and "MareNostrum 5 ACC", "Big Red 200" and "Big Red 200, GPU Partition"). A name that ends in a partition word
(GPU, CPU, ACC, GPP, Booster, "GPU Partition") is also known by the name before it, so Epoch's "Raven" finds
"Raven-GPU". An Epoch GPU cluster is the accelerated partition: when a record with accelerators matches
several records of one dataset and some of them have accelerators, the ones without (the CPU partitions) are
not linked.

Two kinds of evidence, two tiers:
- **Exact citation.** An Epoch row whose own sources cite a top500.org system page
  (`top500.org/system/179413`, also through the Web Archive) names the TOP500 record itself: it is linked to
  `sys:top500-<id>` whenever that record is in the graph, whatever the names say, at tier reported with basis
  dataset-cites-record (the dataset's editors state the identity by citing the page; one dataset's word, not
  corroborated, so not verified). Its sources are the cited page and the dataset; the note names the URL. A
  record with an exact citation gets no name links to other records of that dataset.
- **Name and agreements.** A name link is a machine's guess, so it is a claim of tier lead with basis
  machine-generated (the shapes hold every machine-generated claim to lead, and the truthy rule leaves it out:
  totals keep counting both records until a person confirms the link in a curated file). Its note lists the
  evidence; its sources are the sources of the name claims matched on both sides.

Links go into their own graph (graph/links), written by the build after loading and before the rules,
recorded as an hpc:Derivation.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pyoxigraph as ox

from hpckg.claims import claim_quads, make_claim
from hpckg.names import ascii_fold, name_keys
from hpckg.namespaces import GRAPH, dataset_of, entity, hpc
from hpckg.terms import PROV_ENDED_AT_TIME, PROV_WAS_ASSOCIATED_WITH, RDF_TYPE, XSD_DATE_TIME
from hpckg.values import Iri

if TYPE_CHECKING:
    from hpckg.store import GraphStore

LINKS_GRAPH = GRAPH + "links"
MAX_SHARED_NAME = 3  # records of one dataset that may share a name for it to still identify a machine
MIN_KEY = 5  # "Titan" links, "K" or "JSC" does not
MAX_WORDS = 4  # the longest run of words inside a name tried as another record's name
# A partition's name: the machine's name, then a partition word ("Raven-GPU", "Setonix – GPU", "Big Red 200,
# GPU Partition", "MareNostrum 5 GPP", "JUWELS Booster Module").
PARTITION_KINDS = ("gpu", "cpu", "acc", "gpp", "booster")
PARTITION_WORDS = (*PARTITION_KINDS, "partition", "module")  # bench/synthetic.py keeps these words in its copies
PARTITION = re.compile(
    rf"^(?P<base>.*?\w)[\s,\-–—/_(]+(?:{'|'.join(PARTITION_KINDS)})(?:[\s\-]+(?:partition|module))?\)?\s*$",
    re.IGNORECASE)
# A TOP500 system page, directly or through the Web Archive: https://www.top500.org/system/179413/
TOP500_PAGE = re.compile(r"top500\.org/system/(\d+)")

# One query per kind of evidence: joined in one query, names x countries x makers would multiply.
# Each side of the union starts from what it is about (the systems; the name claims), so Oxigraph does not
# read every claim of every system to find the name claims: that grew faster than the graph (45 s at the full
# import, 443 s at twice it).
NAMES = """
SELECT ?system ?g ?name ?source WHERE {
  { GRAPH ?g { ?system a hpc:System } ?system rdfs:label|skos:altLabel ?name }
  UNION
  { ?claim hpc:property hpc:name ; hpc:about ?system ; hpc:value ?name ; prov:hadPrimarySource ?source .
    GRAPH ?g { ?system a hpc:System } }
}
"""
# The sources that are a TOP500 system page, and the records whose claims cite them (the few Epoch rows that
# do): starts from the sources, so it reads only the claims citing those pages.
CITED_PAGES = """
SELECT DISTINCT ?system ?source ?url WHERE {
  ?source schema:url ?url . FILTER (CONTAINS(STR(?url), "top500.org/system/"))
  ?claim prov:hadPrimarySource ?source ; hpc:about ?system . ?system a hpc:System
}
"""
# The TOP500 System ID each record states (hpc:top500SystemId, the list's own identifier of the machine): a
# cited page's ID is looked up here, not turned into an IRI, so the record that states the ID is the one linked.
SYSTEM_IDS = """SELECT DISTINCT ?system ?id WHERE {
  ?c hpc:property hpc:top500SystemId ; hpc:about ?system ; hpc:value ?id }"""
# Systems with an accelerator component at all (TOP500 names its accelerator; a CPU partition has none).
ACCELERATED = """SELECT DISTINCT ?system WHERE { ?c hpc:componentOf ?system ; hpc:role role:accelerator .
                                                 ?claim hpc:about ?c ; hpc:property hpc:partModel }"""
# Read from claims, not truthy triples: links are made before the rules run (rule 22 reads them).
EVIDENCE = {
    "countries": """SELECT DISTINCT ?system ?value WHERE {
                      ?c hpc:about ?system ; hpc:property hpc:country ; hpc:value ?value . ?system a hpc:System }""",
    "makers": """SELECT DISTINCT ?system ?value WHERE {
                   ?accelerator hpc:componentOf ?system ; hpc:role role:accelerator .
                   ?p hpc:about ?accelerator ; hpc:property hpc:partModel ; hpc:value ?part .
                   ?m hpc:about ?part ; hpc:property hpc:maker ; hpc:value ?value }""",
    "years": """SELECT DISTINCT ?system ?value WHERE {
                  ?c hpc:about ?system ; hpc:property hpc:operationalSince ; hpc:value ?since . ?system a hpc:System
                  BIND (SUBSTR(STR(?since), 1, 4) AS ?value) }""",
}
# A link whose name came from labels (no name claim, so no source) cites the first source of the claims about
# its two records. Asked for the linked systems only (VALUES): over every system it read each claim's
# source by an index seek, 9.6 s at the full import for the few hundred systems ever linked.
SOURCES = """
SELECT ?system (MIN(STR(?source)) AS ?first) WHERE {
  VALUES ?system { %s }
  ?claim hpc:about ?system ; prov:hadPrimarySource ?source .
} GROUP BY ?system
"""


# The source that is the dataset itself, cited beside the page its row cites.
DATASET_SOURCES = {"epoch-clusters": "epoch-gpu-clusters"}


@dataclass
class Record:
    iri: str
    dataset: str
    names: set[str] = field(default_factory=set)
    windows: set[str] = field(default_factory=set)  # keys of runs of up to MAX_WORDS words of its names
    name_sources: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # key -> sources
    countries: set[str] = field(default_factory=set)
    makers: set[str] = field(default_factory=set)
    years: set[int] = field(default_factory=set)
    partitions: set[str] = field(default_factory=set)  # keys of the machine its partition names name
    accelerated: bool = False  # it has an accelerator component naming its part
    system_ids: set[str] = field(default_factory=set)  # the TOP500 System IDs it states
    cited: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # TOP500 id -> citing sources
    cited_urls: dict[str, str] = field(default_factory=dict)  # TOP500 id -> a URL citing it


def read_records(store: GraphStore) -> dict[str, Record]:
    records: dict[str, Record] = {}
    # A name comes back once per claim and label naming it (a TOP500 system's once per edition): its keys
    # are worked out once.
    keyed: dict[str, tuple[list[str], list[str], set[str]]] = {}
    for row in store.query(NAMES):
        iri = row["system"].value
        record = records.get(iri)
        if record is None:
            record = records[iri] = Record(iri, dataset_of(row["g"].value))
        name = row["name"].value
        if name not in keyed:
            # "K", "JSC": too short to tell machines apart
            keyed[name] = (record_keys(name), partition_base_keys(name), word_windows(name))
        keys, partitions, windows = keyed[name]
        record.names.update(keys)
        record.partitions.update(partitions)
        if row["source"] is not None:
            for key in (*keys, *partitions):
                record.name_sources[key].add(row["source"].value)
        record.windows |= windows
    if len({record.dataset for record in records.values()}) < 2:
        return records  # nothing to link: skip reading the evidence
    for row in store.query(SYSTEM_IDS):
        record = records.get(row["system"].value)
        if record is not None:
            record.system_ids.add(row["id"].value)
    for row in store.query(ACCELERATED):
        record = records.get(row["system"].value)
        if record is not None:
            record.accelerated = True
    for row in store.query(CITED_PAGES):
        record = records.get(row["system"].value)
        found = TOP500_PAGE.search(row["url"].value)
        if record is not None and found and record.dataset != "top500":
            record.cited[found.group(1)].add(row["source"].value)
            record.cited_urls.setdefault(found.group(1), row["url"].value)
    for field_name, sparql in EVIDENCE.items():
        for row in store.query(sparql):
            record = records.get(row["system"].value)
            if record is None:
                continue
            value = row["value"].value
            if field_name == "years":
                if value.isdigit():
                    record.years.add(int(value))
            else:
                getattr(record, field_name).add(value)
    return records


def word_windows(name: str) -> set[str]:
    """The name keys of every run of one to MAX_WORDS words of a name."""
    # After ascii_fold the words are ASCII letters and digits, so a word's name_key is its lower case and a
    # run's key is its words' keys joined (name_key per run was most of the build's link step).
    words = [word.lower() for word in re.findall(r"[^\W_]+", ascii_fold(name))]
    keys = set()
    for size in range(1, MAX_WORDS + 1):
        for start in range(len(words) - size + 1):
            key = "".join(words[start:start + size])
            if len(key) >= MIN_KEY:
                keys.add(key)
    return keys


def record_keys(name: str) -> list[str]:
    """The keys a record is known by for a name."""
    return sorted(key for key in name_keys(name) if len(key) >= MIN_KEY)


def partition_base_keys(name: str) -> list[str]:
    """The name keys of the machine a partition's name names ("Raven-GPU" -> "raven"); none for other names."""
    found = PARTITION.match(name.strip())
    return record_keys(found.group("base")) if found else []


@dataclass
class Link:
    a: Record
    b: Record
    name: str
    evidence: list[str]
    cited: str | None = None  # the URL of the TOP500 page a record cites: exact evidence, not a name match


def cited_links(records: dict[str, Record], by_id: dict[str, list[Record]]) -> list[Link]:
    """A link from every record whose sources cite a TOP500 system page to the record stating that System ID."""
    links = []
    for record in records.values():
        for system_id, url in sorted(record.cited_urls.items()):
            for other in by_id.get(system_id, ()):
                a, b = sorted((record, other), key=lambda r: r.iri)
                links.append(Link(a, b, "", [f"{record.dataset}'s row cites {url}"], cited=url))
    return links


def find_links(records: dict[str, Record]) -> list[Link]:
    """Every link: the exact citations first, then the name matches of the pairs they leave open."""
    by_id: dict[str, list[Record]] = defaultdict(list)
    for record in records.values():
        if record.dataset == "top500":
            for system_id in record.system_ids:
                by_id[system_id].append(record)
    exact = cited_links(records, by_id)
    settled = {(record.iri, "top500") for record in records.values()
               if any(system_id in by_id for system_id in record.cited_urls)}
    named = [link for link in name_links(records)
             if (link.a.iri, link.b.dataset) not in settled and (link.b.iri, link.a.dataset) not in settled]
    links = {(link.a.iri, link.b.iri): link for link in named}
    links.update({(link.a.iri, link.b.iri): link for link in exact})
    return sorted(prefer_accelerated(list(links.values())), key=lambda link: (link.a.iri, link.b.iri))


def prefer_accelerated(links: list[Link]) -> list[Link]:
    """Drop the CPU partitions a GPU cluster's name also matched: of the name links from a record with
    accelerators to one dataset, those to records without any, when some record it matched there has some."""
    matched: dict[tuple[str, str], list[Record]] = defaultdict(list)
    for link in links:
        for one, other in ((link.a, link.b), (link.b, link.a)):
            matched[(one.iri, other.dataset)].append(other)
    records = {record.iri: record for link in links for record in (link.a, link.b)}

    def kept(link: Link) -> bool:
        if link.cited:
            return True
        for one, other in ((link.a, link.b), (link.b, link.a)):
            if (records[one.iri].accelerated and not other.accelerated
                    and any(r.accelerated for r in matched[(one.iri, other.dataset)])):
                return False
        return True
    return [link for link in links if kept(link)]


def name_links(records: dict[str, Record]) -> list[Link]:
    by_name: dict[str, dict[str, list[Record]]] = defaultdict(lambda: defaultdict(list))
    for record in records.values():
        for key in record.names | record.partitions:
            by_name[key][record.dataset].append(record)
    # Of the names two records share, the link rests on the most telling (its note and sources are that
    # name's): a whole name before a run of words inside one, the longer first, then in alphabetical order.
    # Taking the first that matched made two builds of the same files differ, as sets of strings iterate in
    # an order each Python process draws anew.
    links: dict[tuple[str, str], tuple[tuple[bool, int, str], Link]] = {}
    for record in records.values():
        for key in record.windows:
            datasets = by_name.get(key)
            # Partitions of one machine sharing its name ("Raven", "Raven-GPU") do not make the name common.
            if not datasets or any(sum(key in r.names for r in group) > MAX_SHARED_NAME
                                   for group in datasets.values()):
                continue
            whole = key in record.names
            preference = (not whole, -len(key), key)
            for dataset, candidates in datasets.items():
                if dataset == record.dataset:
                    continue
                for other in candidates:
                    pair = tuple(sorted((record.iri, other.iri)))
                    if pair in links and links[pair][0] <= preference:
                        continue
                    evidence = agreement(record, other)
                    if evidence is None or (not whole and len(evidence) < 2):
                        continue
                    a, b = sorted((record, other), key=lambda r: r.iri)
                    what = f"the name {key!r}" if whole else f"the name {key!r} within the other's"
                    links[pair] = (preference, Link(a, b, key, [what, *evidence]))
    return sorted((link for _, link in links.values()), key=lambda link: (link.a.iri, link.b.iri))


def agreement(a: Record, b: Record) -> list[str] | None:
    """What else two records agree on, or None when something they both state disagrees."""
    evidence = []
    if a.countries and b.countries:
        if not a.countries & b.countries:
            return None
        evidence.append("the country")
    if a.makers and b.makers and a.makers & b.makers:
        evidence.append("the accelerator's maker")
    if a.years and b.years and any(abs(x - y) <= 1 for x in a.years for y in b.years):
        evidence.append("the year in service")
    return evidence


def first_sources(store: GraphStore, systems: set[str]) -> dict[str, str]:
    """Each system's alphabetically first source among the claims about it (systems without any are left out)."""
    if not systems:
        return {}
    values = " ".join(str(ox.NamedNode(iri)) for iri in sorted(systems))
    return {row["system"].value: row["first"].value for row in store.query(SOURCES % values)
            if row["first"] is not None}


def link_quads(store: GraphStore, links: list[Link]) -> Iterator[ox.Quad]:
    unsourced = [link for link in links
                 if not (link.a.name_sources.get(link.name) or link.b.name_sources.get(link.name))]
    fallback = first_sources(store, {record.iri for link in unsourced for record in (link.a, link.b)})
    for link in links:
        if link.cited:
            yield from cited_quads(link)
            continue
        sources = sorted(link.a.name_sources.get(link.name, set()) | link.b.name_sources.get(link.name, set()))
        sources = sources or sorted(s for s in (fallback.get(link.a.iri), fallback.get(link.b.iri)) if s)
        if not sources:
            continue
        note = (f"Proposed by hpckg's matcher: {link.a.dataset} and {link.b.dataset} records agree on "
                + ", ".join(link.evidence) + "; a lead until a person confirms it.")
        claim = make_claim(link.a.iri, "sameMachineAs", Iri(link.b.iri), tier="lead", basis="machine-generated",
                           sources=sources, note=note, qualifier=link.b.iri.rsplit("/", 1)[-1])
        yield from claim_quads(claim, graph=LINKS_GRAPH)


def cited_quads(link: Link) -> list[ox.Quad]:
    """An exact link: the record citing the page is about, the TOP500 system the value."""
    citing, cited = (link.a, link.b) if link.a.dataset != "top500" else (link.b, link.a)
    system_id = next(i for i in sorted(cited.system_ids) if i in citing.cited)
    dataset = DATASET_SOURCES.get(citing.dataset)
    sources = sorted(citing.cited[system_id] | ({entity("source", dataset)} if dataset else set()))
    note = (f"The {citing.dataset} record's own sources cite this system's TOP500 page ({link.cited}): the "
            "dataset's editors identify the two records. Exact evidence, not a name match.")
    claim = make_claim(citing.iri, "sameMachineAs", Iri(cited.iri), tier="reported", basis="dataset-cites-record",
                       sources=sources, note=note, qualifier=cited.iri.rsplit("/", 1)[-1])
    return claim_quads(claim, graph=LINKS_GRAPH)


def link_systems(store: GraphStore) -> tuple[int, int]:
    """Write the links into the store's links graph; returns how many rest on a dataset's citation of the
    record (exact, reported) and how many on names and agreements (leads)."""
    links = find_links(read_records(store))
    graph = ox.NamedNode(LINKS_GRAPH)
    activity = ox.NamedNode(entity("activity", "derive-same-machine-links"))
    now = ox.Literal(dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(), datatype=ox.NamedNode(XSD_DATE_TIME))
    quads = list(link_quads(store, links))
    quads += [ox.Quad(activity, ox.NamedNode(RDF_TYPE), ox.NamedNode(hpc("Derivation")), graph),
              ox.Quad(activity, ox.NamedNode(hpc("rule")), ox.Literal("same-machine-links"), graph),
              ox.Quad(activity, ox.NamedNode(PROV_ENDED_AT_TIME), now, graph),
              ox.Quad(activity, ox.NamedNode(PROV_WAS_ASSOCIATED_WITH), ox.NamedNode(entity("software", "hpckg")),
                      graph)]
    store.load_quads(quads)
    exact = sum(1 for link in links if link.cited)
    return exact, len(links) - exact
