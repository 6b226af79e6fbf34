"""hpckg.importers.top500_sites: which site record a TOP500 entry is at, from small in-code list rows (the
rules), and the full import's figures in tests/test_top500_import.py (real editions)."""

from __future__ import annotations

from hpckg.importers.top500_files import Entry
from hpckg.importers.top500_sites import Sites, anonymised, operating_organisation_name


def row(edition: str, rank: int, site: str, *, site_id: str | None = None, system_id: str | None = None,
        country: str = "United States") -> Entry:
    return Entry(edition=edition, rank=rank, row=rank + 1, computer="Cluster", site=site, site_id=site_id,
                 system_id=system_id, country=country)


def test_an_entry_without_a_site_id_is_at_its_machines_site():
    # top500-178117: listed at Site ID 50376 in the editions with IDs, by name only in 2015-06.
    sites = Sites([row("2014-11", 9, "Service Provider", site_id="50376", system_id="178117", country="China"),
                   row("2017-11", 40, "Service Provider", site_id="50376", system_id="178117", country="China")])
    choice = sites.choose(row("2015-06", 12, "Service Provider", country="China"), "178117", "178117")
    assert (choice.slug, choice.basis) == ("top500-site-50376", "same system")


def test_a_machine_whose_anonymised_site_gains_a_letter_stays_at_its_site():
    sites = Sites([row("2014-11", 9, "Service Provider", site_id="50329", system_id="178311", country="China")])
    choice = sites.choose(row("2016-06", 30, "Service Provider T", country="China"), "178311", "178311")
    assert choice.slug == "top500-site-50329"


def test_a_name_resolves_to_the_one_site_id_it_has_in_that_country():
    sites = Sites([row("2014-11", 3, "CINECA", site_id="47495", system_id="1", country="Italy")])
    assert sites.choose(row("2015-06", 5, "CINECA", country="Italy"), None, "2015-06-rank-5").slug == \
        "top500-site-47495"
    # Not in another country: the name keys its own record there.
    assert sites.choose(row("2015-06", 6, "CINECA", country="France"), None, "2015-06-rank-6").slug == \
        "top500-site-cineca"


def test_anonymised_sites_keep_their_letter_and_country():
    sites = Sites([])
    slugs = {sites.choose(row("2016-06", n, name), None, f"2016-06-rank-{n}").slug
             for n, name in enumerate(("Energy Company (A)", "Energy Company (D)", "Energy Company (DD)"), 1)}
    assert slugs == {"top500-site-energy-company-a-united-states", "top500-site-energy-company-d-united-states",
                     "top500-site-energy-company-dd-united-states"}
    # Same letter, other country: another site.
    assert sites.choose(row("2016-06", 9, "Energy Company (A)", country="Norway"), None, "x").slug == \
        "top500-site-energy-company-a-norway"


def test_an_anonymised_name_without_a_letter_is_never_one_site_for_two_machines():
    sites = Sites([row("2014-11", 1, "Government", site_id="10", system_id="1", country="China"),
                   row("2014-11", 2, "Government", site_id="11", system_id="2", country="China")])
    first = sites.choose(row("2016-06", 7, "Government", country="China"), None, "2016-06-rank-7")
    second = sites.choose(row("2016-06", 8, "Government", country="China"), None, "2016-06-rank-8")
    assert first.slug != second.slug and first.basis == second.basis == "anonymous"
    # Even where only one "Government" site has an ID: the name alone does not say it is that one.
    lone = Sites([row("2014-11", 1, "Government", site_id="10", system_id="1", country="Germany")])
    assert lone.choose(row("2016-06", 7, "Government", country="Germany"), None, "2016-06-rank-7").basis == "anonymous"


def test_site_ids_that_follow_one_another_under_one_name_are_one_site():
    # Lawrence Livermore: 1026 until 2011-06, 48247 from 2011-11 (the list renumbered its sites).
    sites = Sites([row("2011-06", 1, "Lawrence Livermore National Laboratory", site_id="1026", system_id="1"),
                   row("2011-11", 1, "Lawrence Livermore National Laboratory", site_id="48247", system_id="2")])
    old = sites.choose(row("2011-06", 1, "Lawrence Livermore National Laboratory", site_id="1026"), "1", "1")
    assert old.slug == "top500-site-48247" and old.site_ids == ("1026", "48247")


def test_site_ids_listed_at_the_same_time_stay_apart():
    sites = Sites([row("2020-06", 1, "Microsoft Azure", site_id="50001", system_id="1"),
                   row("2020-06", 2, "Microsoft Azure", site_id="50002", system_id="2")])
    assert sites.choose(row("2020-06", 1, "Microsoft Azure", site_id="50001"), "1", "1").slug == "top500-site-50001"
    assert sites.choose(row("2020-06", 2, "Microsoft Azure", site_id="50002"), "2", "2").slug == "top500-site-50002"


def test_one_machine_under_two_ids_with_one_name_ties_them():
    sites = Sites([row("2018-06", 4, "Atos", site_id="50630", system_id="7", country="France"),
                   row("2019-06", 4, "Atos", site_id="50919", system_id="7", country="France"),
                   row("2019-06", 9, "Atos", site_id="50630", system_id="8", country="France")])
    assert sites.canonical["50630"] == sites.canonical["50919"]


def test_anonymised_names_and_real_ones():
    assert anonymised("Energy Company (A)") == ("Energy Company", "A")
    assert anonymised("Service Provider T") == ("Service Provider", "T")
    assert anonymised("Government") == ("Government", None)
    assert anonymised("IT Service Provider") == ("IT Service Provider", None)
    for real in ("Saudi Aramco", "Forschungszentrum Juelich (FZJ)", "DOE/SC/Oak Ridge National Laboratory",
                 "Intel", "Software Company Ltd Oy"):
        assert anonymised(real) is None, real
    assert operating_organisation_name("Lawrence Livermore National Laboratory")
    assert not operating_organisation_name("Software Company (M)")


def test_one_machine_under_two_anonymised_sites_does_not_tie_them():
    sites = Sites([row("2011-11", 4, "Government", site_id="47947", system_id="7"),
                   row("2012-06", 4, "Government", site_id="50046", system_id="7"),
                   row("2012-06", 9, "Government", site_id="47947", system_id="8")])
    assert sites.canonical["47947"] != sites.canonical["50046"]


def test_anonymised_names_carry_codes_of_several_shapes():
    assert anonymised("Bank (S1)") == ("Bank", "S1")
    assert anonymised("Software Company (M) SA") == ("Software Company", "M SA")
    assert anonymised("Software Company MGER") == ("Software Company", "MGER")
    assert anonymised("Chinese Bank A") == ("Chinese Bank", "A")
    assert anonymised("E&amp;P Company (D)") == ("E&amp;P Company", "D")
    for company in ("China Telecom", "Korea Telecom", "Air Force Research Laboratory", "IBM Research"):
        assert anonymised(company) is None, company
    sites = Sites([])
    assert sites.choose(row("2016-06", 1, "Software Company (M) SA", country="Saudi Arabia"), None, "x").slug == \
        "top500-site-software-company-m-sa-saudi-arabia"


def test_an_anonymised_site_renumbered_in_2011_is_one_site_through_its_renumbered_machine():
    # "Geoscience (P)" was Site ID 2688 until 2011-06 and 49877 from 2011-11, its machine 10620 then 177239
    # (top500_identity's renumbering): one machine under one lettered name is one site. Before, the machine's
    # two System IDs hid that, and once they were tied the machine sat on two site records.
    listed = [row("2011-06", 90, "Geoscience (P)", site_id="2688", system_id="10620"),
              row("2011-11", 120, "Geoscience (P)", site_id="49877", system_id="177239"),
              row("2011-06", 91, "Government", site_id="2700", system_id="10621"),
              row("2011-11", 121, "Government", site_id="49900", system_id="177240")]
    renumbered = {"10620": ("2011-06", "177239"), "10621": ("2011-06", "177240")}
    sites = Sites(listed, renumbered=renumbered)
    assert sites.canonical["2688"] == sites.canonical["49877"] == "49877"
    # a name without its letter names no one site, renumbered machine or not
    assert sites.canonical["2700"] != sites.canonical["49900"]
    # without the renumbering there is no evidence
    assert Sites(listed).canonical["2688"] == "2688"


def test_one_organisation_per_name_however_many_site_ids_the_list_gives_it():
    # The list keeps several Site IDs for one organisation (AT&T nine at once, BellSouth five, a site
    # registered again): one organisation per Site ID made "BellSouth" five organisations, and a spelling
    # apart ("West Deutsche Landesbank") a second one. Its name is the one most site records give it.
    sites = Sites([])
    sites.record_names = {"top500-site-1": "AT&T", "top500-site-2": "AT&T",
                          "top500-site-3": "West Deutsche Landesbank", "top500-site-4": "Westdeutsche Landesbank",
                          "top500-site-5": "Westdeutsche Landesbank", "top500-site-6": "Government"}
    assert sites.operator("top500-site-1", "AT&T") == sites.operator("top500-site-2", "AT&T") == (
        "top500-operator-at-and-t", "AT&T")
    westlb = ("top500-operator-westdeutsche-landesbank", "Westdeutsche Landesbank")
    assert sites.operator("top500-site-3", "West Deutsche Landesbank") == westlb
    assert sites.operator("top500-site-5", "Westdeutsche Landesbank") == westlb
    assert sites.operator("top500-site-6", "Government") is None  # anonymised: names no organisation
    # a record the folder's editions do not name (Sites made without its folder) is its own name's
    assert sites.operator("top500-site-7", "Some Lab") == ("top500-operator-some-lab", "Some Lab")
