"""Issue 10: the manufacturers the datasets name are organisations in data/ttl/vendors.ttl, with dated names
and lineage, so "supplier at build" rolls up to today's parent and its ticker across thirty years.

The names are read from the real files (../shared/data: every TOP500 edition, XML and spreadsheets alike,
and the Epoch AI supplier and chip-maker columns) and mapped the way the importers map them,
`Reference.of_project(project).find_all("org", name, when=<edition date>)`; the roll-ups are read from the curated
graph built in memory (rules 10 and 20, the supplier-rollup and lineage queries, hpckg.lineage.parent_at).
"""

from __future__ import annotations

import csv
import datetime as dt
from collections import defaultdict

import pytest

from hpckg.importers.top500_files import edition_of, read_entries
from hpckg.lineage import parent_at
from hpckg.namespaces import ID
from hpckg.reference import Reference
from hpckg.store import Store

from conftest import SHARED, run_hpckg, session_project, text

ORG = ID + "org/"
TOP500 = sorted((SHARED / "data" / "top500").glob("TOP500_*"))
EPOCH = SHARED / "data" / "epoch-ai"

# Strings the datasets put in a supplier column that name no organisation, on purpose. "Self-made" is a
# machine its operator built itself (Berkeley NOW, Avalon, CPlant...): it has no supplier, and an importer
# records none. Epoch's "Anonymized" and "Unknown" (and an empty cell) say the supplier is not known.
NOT_AN_ORGANISATION = {"Self-made", "Anonymized", "Unknown", ""}


def edition_date(edition: str) -> dt.date:
    """The day an edition ("2019-06") is dated: the first of its month."""
    year, month = edition.split("-")
    return dt.date(int(year), int(month), 1)


@pytest.fixture(scope="module")
def top500_names() -> dict[str, set[str]]:
    """Every manufacturer string of every TOP500 file (both formats of 2011-11 ... 2014-11), with the
    editions it appears in."""
    names: dict[str, set[str]] = defaultdict(set)
    for path in TOP500:
        for entry in read_entries(path):
            if entry.manufacturer is not None:  # one 1990s row has no manufacturer at all
                names[entry.manufacturer].add(edition_of(path))
    return names


def epoch_names() -> set[str]:
    names: set[str] = set()
    with open(EPOCH / "gpu_clusters.csv", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            names.update((row["GPU Supplier (primary)"], row["GPU supplier (secondary)"]))
    with open(EPOCH / "ml_hardware.csv", encoding="utf-8", newline="") as handle:
        names.update(row["Manufacturer"] for row in csv.DictReader(handle))
    return names


def short(iris: list[str]) -> list[str]:
    return [iri.removeprefix(ORG) for iri in iris]


# --- every name maps -------------------------------------------------------------------------------------

@pytest.mark.imports  # top500_names reads all 70 TOP500 files (10 s)
def test_the_names_come_from_all_63_editions_in_both_formats(top500_names):
    editions = {e for eds in top500_names.values() for e in eds}
    assert len(editions) == 63 and len(TOP500) == 70
    assert len(top500_names) == 184  # 183 in the files select() keeps (and one empty cell), plus the XLS-only one
    assert top500_names["Appro International / Cray Inc."] == {"2012-06", "2012-11"}  # only in the XLS files


@pytest.mark.imports  # top500_names reads all 70 TOP500 files (10 s)
def test_every_top500_manufacturer_maps_to_an_organisation_in_every_edition(top500_names):
    reference = Reference.of_project(session_project())
    unmapped = sorted((name, edition) for name, editions in top500_names.items() if name not in NOT_AN_ORGANISATION
                      for edition in editions if not reference.find_all("org", name, when=edition_date(edition)))
    assert unmapped == []
    organisations = {org for name, editions in top500_names.items() for edition in editions
                     for org in reference.find_all("org", name, when=edition_date(edition))}
    assert len(organisations) > 120


@pytest.mark.imports  # top500_names reads all 70 TOP500 files (10 s)
def test_self_made_is_no_supplier(top500_names):
    """A machine its operator built has no supplier: "Self-made" maps to nothing, at every date it is used."""
    reference = Reference.of_project(session_project())
    assert top500_names["Self-made"]
    for edition in top500_names["Self-made"]:
        assert reference.find_all("org", "Self-made", when=edition_date(edition)) == []
    assert reference.find_all("org", "Self-made") == []


def test_every_epoch_supplier_and_chip_maker_maps():
    reference = Reference.of_project(session_project())
    names = epoch_names()
    assert {"NVIDIA", "Amazon AWS", "Kunlunxin Baidu", "Moore Threads (Tencent)", "Sunway"} <= names
    assert sorted(n for n in names - NOT_AN_ORGANISATION if not reference.find_all("org", n)) == []
    assert [reference.find_all("org", n) for n in ("Anonymized", "Unknown", "")] == [[], [], []]


# --- names whose meaning changed ------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "when", "meant"), [
    ("SGI", "1995-06", ["silicon-graphics"]),
    ("SGI", "2008-11", ["silicon-graphics"]),
    ("SGI", "2009-06", ["sgi"]),                      # Rackable, renamed SGI, bought Silicon Graphics in 2009
    ("SGI", None, ["sgi"]),                           # today's meaning
    ("Cray Inc.", "1993-06", ["cray-research"]),      # the lists say "Cray Inc." for a 1993 Y-MP
    ("Cray Inc.", "2000-06", ["cray"]),
    ("Appro International / Cray Inc.", "2012-11", ["appro-international", "cray"]),
    ("Appro/Cray", "2012-06", ["appro-international", "cray"]),
    ("Dell-Cray", "2003-11", ["dell", "cray"]),
    ("SGI/Siemens-Nixdorf", "1993-06", ["silicon-graphics", "siemens-nixdorf"]),
    ("HPE/SGI", "2016-11", ["hpe", "sgi"]),
    ("Hewlett-Packard", "1998-06", ["hp-enterprise-business"]),  # the server business, not HP Inc.
    ("HP", "2013-06", ["hp-enterprise-business"]),
    ("Cray/HPE", "2020-06", ["cray", "hpe"]),
    ("Raytheon-Aspen Systems/Appro", "2008-06", ["raytheon", "aspen-systems", "appro-international"]),
    ("DELL\\ACS", "2009-06", ["dell", "acs"]),
    ("Langchao", "2004-06", ["inspur"]),
    ("Dawning", "2004-06", ["sugon"]),
    ("Bull, Atos Group", "2016-06", ["groupe-bull"]),
])
def test_a_name_means_what_it_meant_on_the_date(name, when, meant):
    date = edition_date(when) if when else None
    assert short(Reference.of_project(session_project()).find_all("org", name, when=date)) == meant


# --- roll-ups through the lineage to today's parent ------------------------------------------------------

def rollups(store: Store) -> dict[str, tuple[str, str | None]]:
    """Organisation -> (today's parent, its ticker), from the canned supplier-rollup query."""
    text = (session_project().queries_dir / "supplier-rollup.rq").read_text(encoding="utf-8")
    return {row["organisation"].value.removeprefix(ORG): (
        row["parent"].value.removeprefix(ORG), row["ticker"].value if row["ticker"] is not None else None)
        for row in store.query(text, prefixes=False)}


# (name as a dataset writes it, edition, organisations it means, owner of the first on that date,
#  today's parent, its ticker)
ROLLUPS = [
    ("Appro International", "2010-06", ["appro-international"], "appro-international", "hpe", "NYSE:HPE"),
    ("SGI", "2005-06", ["silicon-graphics"], "silicon-graphics", "hpe", "NYSE:HPE"),
    ("SGI", "2012-06", ["sgi"], "sgi", "hpe", "NYSE:HPE"),
    ("Cray Inc.", "1998-06", ["cray-research"], "silicon-graphics", "hpe", "NYSE:HPE"),  # SGI's 1996-2000
    ("Cray Inc.", "2015-06", ["cray"], "cray", "hpe", "NYSE:HPE"),
    ("Linux Networx", "2005-06", ["linux-networx"], "linux-networx", "hpe", "NYSE:HPE"),
    ("Hewlett-Packard", "2010-06", ["hp-enterprise-business"], "hewlett-packard", "hpe", "NYSE:HPE"),
    ("HPE", "2020-06", ["hpe"], "hpe", "hpe", "NYSE:HPE"),
    ("Sun Microsystems", "2005-06", ["sun-microsystems"], "sun-microsystems", "oracle", "NYSE:ORCL"),
    ("Sun", "2008-06", ["sun-microsystems"], "sun-microsystems", "oracle", "NYSE:ORCL"),
    # Eviden is a business line of Atos: today's parent of Bull and of Eviden is Atos, the listed company.
    ("Bull SA", "2006-06", ["groupe-bull"], "groupe-bull", "atos", "EPA:ATO"),
    ("EVIDEN", "2024-06", ["eviden"], "atos", "atos", "EPA:ATO"),
    ("Langchao", "2004-06", ["inspur"], "inspur", "inspur", "SZSE:000977"),
    ("Dawning", "2008-06", ["sugon"], "sugon", "sugon", "SSE:603019"),
    ("IBM", "2000-06", ["ibm"], "ibm", "ibm", "NYSE:IBM"),
    ("Fujitsu-Siemens", "2008-06", ["fujitsu-siemens-computers"], "fujitsu-siemens-computers", "fujitsu", "TYO:6702"),
    ("DELL EMC", "2018-06", ["dell-emc"], "dell-technologies", "dell-technologies", "NYSE:DELL"),
    ("Dell", "2005-06", ["dell"], "dell", "dell-technologies", "NYSE:DELL"),
    ("Lenovo", "2016-06", ["lenovo"], "lenovo", "lenovo", "HKEX:0992"),
    ("Amazon AWS", "2024-06", ["amazon-web-services"], "amazon", "amazon", "NASDAQ:AMZN"),
    ("Google", "2024-06", ["google"], "alphabet", "alphabet", "NASDAQ:GOOGL"),
    ("Facebook", "2017-06", ["meta-platforms"], "meta-platforms", "meta-platforms", "NASDAQ:META"),
    ("Penguin Computing", "2005-06", ["penguin-computing"], "penguin-computing", "smart-global-holdings", None),
    ("Thinking Machines Corporation", "1993-06", ["thinking-machines"], "thinking-machines", "thinking-machines",
     None),  # no successor is claimed (report: left out)
]


@pytest.mark.parametrize(("name", "when", "meant", "owner", "parent", "ticker"), ROLLUPS,
                         ids=[f"{r[0]}@{r[1]}" for r in ROLLUPS])
def test_supplier_at_build_rolls_up_to_todays_parent(seed_store, name, when, meant, owner, parent, ticker):
    orgs = Reference.of_project(session_project()).find_all("org", name, when=edition_date(when))
    assert short(orgs) == meant
    assert parent_at(seed_store, orgs[0], edition_date(when)).removeprefix(ORG) == owner
    assert rollups(seed_store)[meant[0]] == (parent, ticker)


def test_a_joint_name_rolls_up_part_by_part(seed_store):
    orgs = Reference.of_project(session_project()).find_all("org", "IBM / NVIDIA / Mellanox", when=dt.date(2018, 6, 1))
    table = rollups(seed_store)
    assert [table[o.removeprefix(ORG)] for o in orgs] == [
        ("ibm", "NYSE:IBM"), ("nvidia", "NASDAQ:NVDA"), ("nvidia", "NASDAQ:NVDA")]


def test_ibm_x86_servers_were_ibms_until_lenovo_took_them_over(seed_store):
    org = ORG + "ibm-system-x"
    assert parent_at(seed_store, org, "2014-06").removeprefix(ORG) == "ibm"
    assert parent_at(seed_store, org, "2014-10-01").removeprefix(ORG) == "lenovo"
    assert rollups(seed_store)["ibm-system-x"] == ("lenovo", "HKEX:0992")


def test_every_lineage_step_cites_an_encyclopaedia_page(seed_store):
    """Each acquisition, renaming and change of owner (the lineage query's rows) cites a reference work by
    its address, and every step of vendors.ttl is dated where it took effect or ended."""
    text = (session_project().queries_dir / "lineage.rq").read_text(encoding="utf-8")
    rows = list(seed_store.query(text, prefixes=False))
    assert len(rows) >= 30
    for row in rows:
        source = row["source"]
        assert source is not None, row["claim"]
        urls = [r["u"].value for r in seed_store.query(f"SELECT ?u WHERE {{ <{source.value}> schema:url ?u }}")]
        assert urls and all(u.startswith("https://en.wikipedia.org/wiki/") for u in urls), (row["claim"], urls)
    undated = {row["claim"].value.rsplit("/", 1)[1] for row in rows if row["from"] is None and row["until"] is None}
    assert undated == {"amazon-web-services-parent-amazon"}  # a subsidiary since it was founded


def test_listed_parents_have_tickers(seed_store):
    table = rollups(seed_store)
    parents = {table[o] for o in ("ibm", "lenovo", "fujitsu", "nec", "hitachi", "inspur", "sugon", "supermicro",
                                  "dell-emc", "amd", "microsoft", "raytheon")}
    assert all(ticker for _, ticker in parents), parents


# --- the file is clean ------------------------------------------------------------------------------------

def test_vendors_file_is_clean_and_the_build_validates(seed_report):
    completed = run_hpckg("check", "data/ttl/vendors.ttl")
    out, err = text(completed)
    assert completed.returncode == 0, out + err
    assert "0 errors, 0 warnings" in out
    assert seed_report.conforms and seed_report.violations == [], seed_report.violations
