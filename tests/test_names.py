"""Slugs, name keys, and finding records that share a name (hpckg.names)."""

from __future__ import annotations

import pytest

from hpckg.errors import InputError
from hpckg.names import NameIndex, SlugError, is_slug, name_key, name_keys, same_name_groups, slugify


@pytest.mark.parametrize(("name", "slug"), [
    ("Kalos (Shanghai AI Lab)", "kalos"),
    ("ByteDance MegaScale Cluster", "bytedance-megascale-cluster"),
    ("JUPITER Booster @ Jülich", "jupiter-booster-julich"),
    ("AT&T  Labs -- Cluster_2", "at-and-t-labs-cluster-2"),
])
def test_slugify(name: str, slug: str):
    assert slugify(name) == slug and is_slug(slug)


def test_a_name_without_ascii_letters_has_no_slug_but_has_a_key():
    with pytest.raises(SlugError, match="no ASCII letters") as raised:
        slugify("日本")
    assert isinstance(raised.value, InputError)  # the CLI prints it as a clean error
    assert name_keys("日本") == name_keys(" 日本 ") == {"日本"}


def test_name_key_ignores_case_accents_and_punctuation():
    assert name_key("KALÓS!") == name_key("kalos") == "kalos"
    assert name_key("Byte-Dance  MegaScale") == name_key("bytedance megascale")
    assert name_keys("Kalos (Shanghai AI Lab)") == {"kalos", "kalosshanghaiailab"}


def test_name_index_finds_records_by_any_name():
    index: NameIndex[str] = NameIndex()
    index.add("sys:kalos", ["Kalos (Shanghai AI Lab)", "Acme Kalos"])
    index.add("sys:seren", ["Seren"])
    assert index.matches(["KALOS"]) == {"sys:kalos"}
    assert index.matches(["acme-kalos", "seren"]) == {"sys:kalos", "sys:seren"}
    assert index.matches(["Frontier"]) == set()


def test_same_name_groups_reconciles_records_transitively():
    records = {
        "top500:1": ["Frontier"], "green500:7": ["FRONTIER (ORNL)", "OLCF-5"], "news:3": ["olcf 5"],
        "top500:2": ["Aurora"], "top500:3": ["Fugaku"], "news:9": ["富岳"], "news:10": ["富岳"],
    }
    groups = sorted(sorted(g) for g in same_name_groups(records))
    assert groups == [["green500:7", "news:3", "top500:1"], ["news:10", "news:9"]]
