"""The pages of sites, organisations, parts, countries, sources and other entities, read from the graph:
`EntityReader` reads each as the plain values its template shows (the server's Views renders them; `hpckg
page` writes them as Markdown). System pages are hpckg.page.read's.

What a reader sees: names, never raw identifiers (a source by its title or host, a claim behind the tier badge
that links to it), every figure with its unit, the date a value refers to in "As of", the latest value of a
dated series first with the earlier ones folded, and the entity's systems as one table sorted by size (Rmax,
then accelerators) with their rank. Every read is one query over the entity's own claims or over the systems
it names (VALUES), never one query per row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pyoxigraph as ox

from hpckg import numbers
from hpckg.claims import Claim, iri_ref, labels, read_claims
from hpckg.namespaces import ONTOLOGY, PREFIXES
from hpckg.page.claims import descending
from hpckg.page.model import Link
from hpckg.page.systemindex import SystemIndex
from hpckg.values import Iri

if TYPE_CHECKING:
    from hpckg.store import GraphStore

BOUND_SYMBOLS = {"minExclusive": ">", "minInclusive": "≥", "maxExclusive": "<", "maxInclusive": "≤"}
CITED_SHOWN = 100  # claims listed on a source's page; the rest are one query away (200 were 0.14 s of a first visit)
SYSTEMS_SHOWN = 100  # systems an entity page lists, the largest first; the count says how many there are
RANKED_SHOWN = 20  # sites and operators a country page lists
TALLIED = {"site": "sites", "operator": "operators"}  # a tally column -> its SystemFacts attribute
BATCH = 1000  # IRIs per VALUES block


def short(iri: str) -> str:
    """A compact name for an IRI: prefix:local when a project prefix covers it, else its last segment."""
    for prefix, namespace in PREFIXES.items():
        if iri.startswith(namespace) and prefix != "hpc":
            return f"{prefix}:{iri[len(namespace):]}"
    if iri.startswith(ONTOLOGY):
        return iri[len(ONTOLOGY):]
    return iri.rstrip("/").rsplit("/", 1)[-1]


def readable(iri: str) -> str:
    """An IRI's last segment, for an entity without a label: never the prefix:local form."""
    return iri.rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1]


@dataclass
class ClaimRow:
    """One claim as the claims table shows it: the value with its unit, the date it refers to, the tier (its
    badge links to the claim) and the sources by their titles."""

    about: Link
    property: str
    value: Link
    tier: str
    tier_class: str
    as_of: str
    sources: list[Link]
    no_sources: str
    deprecated: bool
    claim: Link
    unit: str = ""


@dataclass
class ClaimTable:
    rows: list[ClaimRow]
    show_about: bool = False

    @property
    def current(self) -> list[ClaimRow]:
        """Each entity's latest value of each property (the rows come newest first per property)."""
        return self._split()[0]

    @property
    def earlier(self) -> list[ClaimRow]:
        """The earlier values of a dated series ("Buildings operational" at ten dates), folded on pages."""
        return self._split()[1]

    def _split(self) -> tuple[list[ClaimRow], list[ClaimRow]]:
        seen: set[tuple[str, str]] = set()
        current, earlier = [], []
        for row in self.rows:
            key = (row.about.href or "", row.property)
            (earlier if key in seen and not row.deprecated else current).append(row)
            seen.add(key)
        return current, earlier


@dataclass
class Derived:
    """A derived total on a site page, with the input claims it was computed from."""

    property: str
    value: Link
    weakest: str
    tier_class: str
    claim: Link
    inputs: ClaimTable
    note: str | None


@dataclass
class Heading:
    name: str
    reads: list[str]


@dataclass
class SystemRow:
    """One system in an entity's table: its name, last and best TOP500 rank, Rmax, accelerators, operator, site
    and country."""

    system: Link
    rmax: Decimal | None = None
    accelerators: int | None = None
    rank: int | None = None
    listed: str | None = None  # the last edition (YYYY-MM) it is listed in
    best_rank: int | None = None
    operator: Link | None = None
    site: Link | None = None
    country: Link | None = None

    @property
    def size(self) -> tuple:
        """Largest first: by Rmax, then by accelerator count, then by name."""
        return (self.rmax is None, -(self.rmax or 0), self.accelerators is None, -(self.accelerators or 0),
                self.system.text.casefold())


@dataclass
class SystemTable:
    """An entity's systems, the largest first, SYSTEMS_SHOWN of `total`; `hide` names the columns the page's
    own entity makes redundant (a site page's "Site")."""

    rows: list[SystemRow]
    total: int
    hide: tuple[str, ...] = ()
    note: str | None = None
    tallies: dict[str, Counter[str]] = field(default_factory=dict)  # property -> value -> systems

    @property
    def ranked(self) -> bool:
        return any(row.rank is not None for row in self.rows)

    @property
    def measured(self) -> bool:
        return any(row.rmax is not None for row in self.rows)

    @property
    def accelerated(self) -> bool:
        return any(row.accelerators is not None for row in self.rows)


@dataclass
class Tally:
    """An entity counted on a country page: a site or operator with its number of systems."""

    entity: Link
    systems: int


@dataclass
class Share:
    """A country's share of the latest TOP500 edition: systems and Rmax."""

    edition: str
    systems: int
    total: int
    rmax: Decimal
    total_rmax: Decimal

    @property
    def rmax_percent(self) -> str:
        return f"{self.rmax / self.total_rmax * 100:.1f}" if self.total_rmax else "0"

    @property
    def rmax_text(self) -> str:
        return f"{self.rmax:,.0f}"

    @property
    def total_rmax_text(self) -> str:
        return f"{self.total_rmax:,.0f}"


def values_of(iris: list[str]) -> str:
    return " ".join(iri_ref(i) for i in iris)


class EntityReader:
    """Reads entity pages from a store; `href` (overridden by the server) is where a link to an IRI goes."""

    def __init__(self, store: GraphStore):
        self.store = store
        self._system_index: SystemIndex | None = None

    def href(self, iri: str) -> str:
        return iri

    def link(self, iri: str, text: str | None = None) -> Link:
        return Link(text or iri, self.href(iri))

    def select(self, sparql: str) -> list[dict[str, ox.NamedNode | ox.Literal]]:
        result = self.store.query(sparql)
        names = [v.value for v in result.variables]
        return [{n: row[n] for n in names if row[n] is not None} for row in result]

    def links(self, iris: list[str]) -> list[Link]:
        """Entities as links by their labels, each once, in the order given."""
        names = labels(self.store, iris)
        return [self.link(i, names.get(i) or short(i)) for i in dict.fromkeys(iris)]

    def term(self, term: ox.NamedNode | ox.Literal | ox.BlankNode | None, names: dict[str, str]) -> Link:
        """A term as a cell: IRIs linked by their label, numbers with thousands separators, other text."""
        if term is None:
            return Link("")
        if isinstance(term, ox.NamedNode):
            return self.link(term.value, names.get(term.value) or short(term.value))
        if isinstance(term, ox.Literal) and term.datatype.value.rsplit("#", 1)[-1] in numbers.NUMERIC_TYPES:
            parsed = numbers.parse(term.value)
            return Link(term.value if parsed is None else numbers.number(parsed))
        return Link(term.value)

    # ---- claims -------------------------------------------------------------------------------------

    def value_cell(self, claim: Claim, names: dict[str, str]) -> Link:
        """A claim's value as a cell: an entity linked by its label, a number with thousands separators, a
        bound as '> 10,000', an unknown value said in words."""
        if claim.value is None:
            if claim.bounds:
                return Link(" and ".join(f"{BOUND_SYMBOLS[k]} {self.value_text(v)}"
                                         for k, v in claim.bounds.items()))
            return Link({"some-value": "not named", "no-value": "none"}.get(claim.unknown or "", ""))
        if isinstance(claim.value, Iri):
            return self.link(claim.value, names.get(claim.value) or readable(claim.value))
        return Link(self.value_text(claim.value))

    @staticmethod
    def value_text(value: object) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | Decimal):
            return numbers.number(value)
        return str(value)

    def sources(self, iris: list[str]) -> dict[str, str]:
        """What a source is called on a page: its label, else its title, else its URL's host."""
        found = labels(self.store, iris)
        wanted = [i for i in dict.fromkeys(iris) if i not in found]
        for batch in (wanted[i:i + BATCH] for i in range(0, len(wanted), BATCH)):
            for row in self.select(f"""SELECT ?s ?title ?url WHERE {{ VALUES ?s {{ {values_of(batch)} }}
                OPTIONAL {{ ?s dcterms:title ?title }} OPTIONAL {{ ?s schema:url ?url }} }}"""):
                source = row["s"].value
                title = row["title"].value if "title" in row else None
                host = (urlsplit(row["url"].value).hostname or "").removeprefix("www.") if "url" in row else None
                # an imported citation's title is often its URL: its host reads better
                name = host if title is None or title.startswith(("http://", "https://")) else title
                if name and source not in found:
                    found[source] = name
        return found

    def units(self, properties: list[str]) -> dict[str, str]:
        rows = self.select(f"SELECT ?p ?unit WHERE {{ VALUES ?p {{ {values_of(list(dict.fromkeys(properties)))} }}"
                           " ?p hpc:unit ?unit }") if properties else []
        return {row["p"].value: row["unit"].value for row in rows}

    def claims_table(self, rows: list[Claim], *, show_about: bool = False) -> ClaimTable:
        """Claims as a table, per entity and property the newest first (ClaimTable.current / .earlier)."""
        names = labels(self.store, [c.property for c in rows] + [c.about for c in rows] + [
            c.value for c in rows if isinstance(c.value, Iri)] + [c.tier or "" for c in rows])
        source_names = self.sources([s for c in rows for s in c.sources])
        units = self.units([c.property for c in rows])
        ordered = sorted(rows, key=lambda c: (c.about, names.get(c.property, c.property).casefold(),
                                              descending(c.date), c.iri))
        return ClaimTable([ClaimRow(
            about=self.link(c.about, names.get(c.about) or readable(c.about)),
            property=names.get(c.property, readable(c.property)),
            value=self.value_cell(c, names),
            unit=units.get(c.property, "") if isinstance(c.value, int | Decimal) or c.bounds else "",
            tier=names.get(c.tier or "", readable(c.tier or "")),
            tier_class=(c.tier or "").rsplit("/", 1)[-1],
            as_of=c.date,
            sources=[self.link(s, source_names.get(s) or readable(s)) for s in c.sources],
            no_sources=f"derived from {len(c.derived_from)} claims" if c.derived else "",
            deprecated=(c.rank or "").endswith("/deprecated"),
            claim=self.link(c.iri, "claim")) for c in ordered], show_about)

    # ---- systems --------------------------------------------------------------------------------------

    def system_index(self) -> SystemIndex:
        """Every system's facts a table shows (hpckg.page.systemindex), read once per reader. The server's
        reader answers from its store generation's figures instead (hpckg.serve.precompute replaces this)."""
        if self._system_index is None:
            self._system_index = SystemIndex.read(self.store)
        return self._system_index

    def found(self, pattern: str) -> set[str]:
        """The systems `pattern` (SPARQL binding ?s, started from the page's entity) finds."""
        return {row["s"].value for row in self.select(f"SELECT DISTINCT ?s WHERE {{ {pattern} }}")}

    def system_table(self, found: Iterable[str], *, hide: tuple[str, ...] = (), note: str | None = None,
                     tally: tuple[str, ...] = ()) -> SystemTable:
        """These systems as a table: the SYSTEMS_SHOWN largest (Rmax, then accelerators) with their name,
        operator, site, country and their last and best TOP500 rank, from the system index (IRIs that are not
        systems are left out). `tally` names columns (site, operator) whose values are counted over all."""
        index = self.system_index()
        systems = {iri: index.systems[iri] for iri in found if iri in index.systems}
        counts: dict[str, Counter[str]] = {name: Counter() for name in tally}
        for facts in systems.values():
            for name in tally:
                counts[name].update(getattr(facts, TALLIED[name]))
        rows = {iri: SystemRow(Link(facts.name or readable(iri), iri), rmax=facts.rmax,
                               accelerators=facts.accelerators, rank=facts.rank, listed=facts.listed,
                               best_rank=facts.best_rank) for iri, facts in systems.items()}
        shown_iris = sorted(rows, key=lambda iri: rows[iri].size)[:SYSTEMS_SHOWN]
        columns = {"operator": "operators", "site": "sites", "country": "countries"}
        named = labels(self.store, sorted({values[0] for iri in shown_iris for attribute in columns.values()
                                           if (values := getattr(systems[iri], attribute))}))
        shown = []
        for iri in shown_iris:
            row = rows[iri]
            row.system = self.link(iri, row.system.text)
            for column, attribute in columns.items():
                values = getattr(systems[iri], attribute)
                if values:  # the first of several, as the table has one cell
                    setattr(row, column, self.link(values[0], named.get(values[0]) or readable(values[0])))
            shown.append(row)
        return SystemTable(shown, len(rows), hide, note, counts)

    # ---- pages ----------------------------------------------------------------------------------------

    def heading(self, iri: str) -> Heading:
        rows = self.select(f"SELECT ?read WHERE {{ {iri_ref(iri)} hpc:read ?read }}")
        name = labels(self.store, [iri]).get(iri, readable(iri))
        return Heading(name, [r["read"].value for r in rows])

    def site(self, iri: str) -> dict[str, object]:
        own = read_claims(self.store, about=[iri])
        e_iri = iri_ref(iri)
        systems = self.system_table(self.found(f"?c hpc:value {e_iri} . ?c hpc:property hpc:site . ?c hpc:about ?s ."
                                               " FILTER NOT EXISTS { ?c hpc:rank rank:deprecated }"), hide=("site",))
        # A system no claim places here whose record gives this site's address (an Epoch AI cluster in an
        # Epoch AI data center: two datasets nothing links), said as such.
        same_address = self.system_table(self.found(
            f"{e_iri} hpc:location ?address . ?s hpc:location ?address . FILTER NOT EXISTS {{"
            f" ?c hpc:value {e_iri} . ?c hpc:property hpc:site . ?c hpc:about ?s }}"), hide=("site",),
            note="No claim places these systems at this site: their records give its address.")
        derived = []
        for claim in (c for c in own if c.derived):
            inputs = read_claims(self.store, iris=claim.derived_from) if claim.derived_from else []
            names = labels(self.store, [claim.property, claim.tier or ""] + [i.tier or "" for i in inputs])
            derived.append(Derived(
                property=names.get(claim.property, readable(claim.property)),
                value=self.value_cell(claim, {}),
                weakest=names.get(claim.tier or "", readable(claim.tier or "")),
                tier_class=(claim.tier or "").rsplit("/", 1)[-1], claim=self.link(claim.iri, "claim"),
                inputs=self.claims_table(inputs, show_about=True), note=claim.note))
        return {"facts": self.claims_table([c for c in own if not c.derived]), "derived": derived,
                "systems": [row.system for row in systems.rows], "system_table": systems,
                "same_address": same_address}

    def organisation(self, iri: str) -> dict[str, object]:
        e_iri = iri_ref(iri)
        rollup = [r["p"].value for r in self.select(
            f"SELECT ?p WHERE {{ {e_iri} hpc:rollsUpTo ?p FILTER(?p != {e_iri}) }}")]
        # From the few lineage claims (32 on the full graph), the value compared in a FILTER: with the value in
        # the pattern Oxigraph started from every claim naming the organisation (IBM: 3,181, 0.2 s).
        predecessors = [r["o"].value for r in self.select(
            "SELECT DISTINCT ?o WHERE { ?p a hpc:LineageProperty . ?c hpc:property ?p ; hpc:value ?v . "
            f"FILTER (?v = {e_iri}) ?c hpc:about ?o }}")]
        index = self.system_index()
        operated = self.system_table(index.claimed_of("operator", iri), hide=("operator",))
        # the sites among what its operator claims are about (the index keeps them beside the systems)
        others = [x for x in index.claimed_of("operator", iri) if x not in index.systems]
        sites = [r["s"].value for r in self.select(
            f"SELECT DISTINCT ?s WHERE {{ VALUES ?s {{ {values_of(others)} }} ?s a/rdfs:subClassOf* hpc:Site }}")
        ] if others else []
        tickers = [r["t"].value for r in self.select(f"SELECT ?t WHERE {{ {e_iri} hpc:ticker ?t }} ORDER BY ?t")]
        supplied = self.system_table(index.claimed_of("supplierAtBuild", iri))
        return {"facts": self.claims_table(read_claims(self.store, about=[iri])), "rollup": self.links(rollup),
                "predecessors": self.links(predecessors),
                "operated": [row.system for row in operated.rows], "operated_table": operated,
                "sites": self.operated_sites(sites, index.claimed_of("operator", iri)), "tickers": tickers,
                "supplied": [row.system for row in supplied.rows], "supplied_table": supplied}

    def operated_sites(self, sites: list[str], operated: Iterable[str]) -> list[Link]:
        """An organisation's sites, the most of its `operated` systems first, each with how many and when
        they were last listed: the TOP500 keeps several Site IDs for one organisation ("BellSouth" five),
        which were five links of one name and nothing else."""
        systems = self.system_index().systems
        count: Counter[str] = Counter()
        last: dict[str, str] = {}
        for system in operated:
            facts = systems.get(system)
            if facts is None:  # a site the organisation operates is among what its claims are about
                continue
            for site in facts.sites:
                count[site] += 1
                if facts.listed and facts.listed > last.get(site, ""):
                    last[site] = facts.listed

        def note(site: str) -> str:
            said = f"{count[site]:,} system{'' if count[site] == 1 else 's'}" if count[site] else "no system"
            return said + (f", last listed {last[site]}" if site in last else "")
        unique = list(dict.fromkeys(sites))
        ordered = sorted(zip(unique, self.links(unique), strict=True),
                         key=lambda pair: (-count[pair[0]], pair[1].text.casefold()))
        return [Link(link.text, link.href, note(site)) for site, link in ordered]

    def part(self, iri: str) -> dict[str, object]:
        used = self.system_table(self.system_index().claimed_of("partModel", iri))
        return {"facts": self.claims_table(read_claims(self.store, about=[iri])),
                "used": [row.system for row in used.rows], "used_table": used}

    def country(self, iri: str) -> dict[str, object]:
        """A country: its systems (the largest first), the sites and operators with the most systems there,
        and its share of the latest TOP500 edition."""
        e_iri = iri_ref(iri)
        # one pass over the country's systems: their sizes, and the site and operator of each, counted. Which
        # systems are the country's is the index's too (its countries are the systems' truthy hpc:country):
        # asked of the graph, the US's 5,900 took 0.27 s of a first visit on the full graph.
        index = self.system_index()
        table = self.system_table([s for s, facts in index.systems.items() if iri in facts.countries],
                                  hide=("country",), tally=("site", "operator"))
        tallies = {}
        for column, counts in table.tallies.items():
            top = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:RANKED_SHOWN]
            names = labels(self.store, [x for x, _ in top])
            tallies[column] = [Tally(self.link(x, names.get(x) or readable(x)), n) for x, n in top]
        aliases = [r["a"].value for r in self.select(
            f"SELECT ?a WHERE {{ {e_iri} skos:altLabel|skos:notation ?a }} ORDER BY ?a")]
        return {"system_table": table, "site_count": len(table.tallies["site"]),
                "sites": tallies["site"], "operators": tallies["operator"], "share": self.share(iri),
                "aliases": aliases}

    def share(self, iri: str) -> Share | None:
        """The country's systems and Rmax in the newest TOP500 edition, of the edition's total, as that edition
        gives each system's country and Rmax (from the system index)."""
        index = self.system_index()
        if index.newest_edition is None:
            return None
        listed = [facts for facts in index.systems.values() if iri in facts.newest_countries]
        ranked = [facts.newest_rmax for facts in index.systems.values() if facts.newest_rmax is not None]
        return Share(index.newest_edition, len(listed), len(ranked),
                     sum((facts.newest_rmax for facts in listed if facts.newest_rmax is not None), Decimal(0)),
                     sum(ranked, Decimal(0)))

    def source(self, iri: str) -> dict[str, object]:
        e_iri = iri_ref(iri)
        meta = self.select(f"SELECT ?p ?o WHERE {{ {e_iri} ?p ?o FILTER(?p != rdf:type) }} ORDER BY ?p")
        names = labels(self.store, [r["p"].value for r in meta] + [
            r["o"].value for r in meta if isinstance(r["o"], ox.NamedNode)])
        # A TOP500 edition is the source of some 10,000 claims: the page counts them and lists CITED_SHOWN in
        # the store's own order (Oxigraph's is by a hash of the IRI, so the same ones each time), and links to
        # the query that lists them all. Listing every IRI to keep the first by IRI was
        # 55-120 ms of a first visit on the full graph, ORDER BY ?c in the query 1.2 s; counting and a LIMIT 8 ms.
        citing = f"SELECT ?c WHERE {{ ?c prov:hadPrimarySource {e_iri} }}"
        [counted] = self.store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ ?c prov:hadPrimarySource {e_iri} }}")
        first = [row[0].value for row in self.store.query(f"{citing} LIMIT {CITED_SHOWN}")]
        cited = read_claims(self.store, iris=first)
        checks = self.select(f"""SELECT ?chk ?when ?system ?result ?term ?count ?by WHERE {{
            ?chk a hpc:SourceCheck ; prov:used {e_iri} .
            OPTIONAL {{ ?chk prov:endedAtTime ?when }} OPTIONAL {{ ?chk hpc:checkedSystem ?system }}
            OPTIONAL {{ ?chk hpc:checkResult ?result }} OPTIONAL {{ ?chk hpc:termFound ?term }}
            OPTIONAL {{ ?chk hpc:countFound ?count }} OPTIONAL {{ ?chk hpc:checkedBy ?by }}
        }} ORDER BY DESC(?when)""")
        check_names = labels(self.store, [t.value for r in checks for t in r.values()
                                          if isinstance(t, ox.NamedNode)])
        return {"meta": [(names.get(r["p"].value, short(r["p"].value)), self.term(r["o"], names)) for r in meta],
                "checks": [[self.term(r.get(k), check_names) for k in
                            ("when", "system", "result", "term", "count", "by", "chk")] for r in checks],
                "cited": self.claims_table(cited, show_about=True), "cited_total": int(counted[0].value),
                "all_cited": self.query_url(f"{citing} ORDER BY ?c")}

    def query_url(self, query: str) -> str:
        """Where a link to run `query` goes (the server's query editor)."""
        return ""

    def generic(self, iri: str) -> dict[str, object]:
        e_iri = iri_ref(iri)
        out = self.select(f"SELECT ?p ?o WHERE {{ {e_iri} ?p ?o }} ORDER BY ?p")
        inbound = self.select(f"SELECT ?s ?p WHERE {{ ?s ?p {e_iri} }} ORDER BY ?p LIMIT 500")
        names = labels(self.store, [r["p"].value for r in out + inbound] + [
            t.value for r in out + inbound for t in r.values() if isinstance(t, ox.NamedNode)])
        return {"properties": [(names.get(r["p"].value, short(r["p"].value)), self.term(r["o"], names))
                               for r in out],
                "claims": self.claims_table(read_claims(self.store, about=[iri])),
                "inbound": [(self.term(r["s"], names), names.get(r["p"].value, short(r["p"].value)))
                            for r in inbound]}
