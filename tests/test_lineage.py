"""Issue 9, item 6: vendor lineage with business lines, splits and dates, in the curated organisations.

Today's parent is the build's hpc:rollsUpTo (rule 20, through the current lineage claims); the parent on a
date is hpckg.lineage.parent_at over the dated claims.
"""

from __future__ import annotations

import pytest

from hpckg.lineage import lineage_steps, parent_at
from hpckg.namespaces import ID

ORG = ID + "org/"


def rollup(store, org: str) -> list[str]:
    return sorted(r["p"].value.removeprefix(ORG) for r in store.query(
        f"SELECT ?p WHERE {{ <{ORG}{org}> hpc:rollsUpTo ?p }}"))


@pytest.mark.parametrize(("org", "today"), [
    ("hewlett-packard", "hp-inc"),            # the company was renamed HP Inc. ...
    ("hp-enterprise-business", "hpe"),        # ... but its server business is HPE's since 2015
    ("compaq", "hp-inc"),                     # Compaq the company merged into Hewlett-Packard
    ("cray-research", "hpe"),                 # Cray Research -> SGI -> Tera/Cray -> HPE
    ("tera-computer", "hpe"),
    ("silicon-graphics", "hpe"),              # Silicon Graphics -> SGI (Rackable) -> HPE
    ("sgi", "hpe"),
    ("groupe-bull", "atos"),                  # Bull -> Atos, its products in Eviden, an Atos business
    ("eviden", "atos"),
    ("mellanox", "nvidia"),
])
def test_rollup_today(seed_store, org, today):
    assert rollup(seed_store, org) == [today]


@pytest.mark.parametrize(("org", "date", "parent"), [
    ("hp-enterprise-business", "2010", "hewlett-packard"),
    ("hp-enterprise-business", "2015-10-31", "hewlett-packard"),
    ("hp-enterprise-business", "2015-11-01", "hpe"),
    ("compaq", "2001", "compaq"),
    ("compaq", "2003", "hewlett-packard"),
    ("compaq", "2016", "hp-inc"),
    ("cray-research", "1995", "cray-research"),
    ("cray-research", "1998", "silicon-graphics"),
    ("cray-research", "2005", "cray"),
    ("cray-research", "2020", "hpe"),
    ("silicon-graphics", "2005", "silicon-graphics"),
    ("silicon-graphics", "2012", "sgi"),
    ("silicon-graphics", "2017", "hpe"),
    ("groupe-bull", "2010", "groupe-bull"),
    ("groupe-bull", "2018", "atos"),
    ("groupe-bull", "2024", "atos"),
    ("eviden", "2024", "atos"),
])
def test_parent_at_a_date(seed_store, org, date, parent):
    assert parent_at(seed_store, ORG + org, date).removeprefix(ORG) == parent


def test_bull_belongs_to_eviden_since_2023_and_atos_before(seed_store):
    steps = {successor.removeprefix(ORG): (start, end)
             for successor, start, end, _ in lineage_steps(seed_store)[ORG + "groupe-bull"]}
    assert steps == {"atos": ("2014-01-01", None), "eviden": ("2023-01-01", None)}


def test_every_dated_lineage_claim_cites_a_source(seed_store):
    assert not list(seed_store.query("""SELECT ?c WHERE {
        ?c hpc:property ?p . ?p a hpc:LineageProperty .
        FILTER NOT EXISTS { ?c prov:hadPrimarySource ?s } }"""))
