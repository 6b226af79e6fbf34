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
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pyoxigraph as ox

from hpckg import numbers
from hpckg.claims import Claim, iri_ref, labels, read_claims
from hpckg.namespaces import ONTOLOGY, PREFIXES
from hpckg.page.model import Link
from hpckg.values import Iri

if TYPE_CHECKING:
    from hpckg.store import GraphStore

BOUND_SYMBOLS = {"minExclusive": ">", "minInclusive": "≥", "maxExclusive": "<", "maxInclusive": "≤"}
CITED_SHOWN = 200  # claims listed on a source's page; the rest are one query away
SYSTEMS_SHOWN = 100  # systems an entity page lists, the largest first; the count says how many there are
RANKED_SHOWN = 20  # sites and operators a country page lists
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
                                              _descending(claim_date(c)), c.iri))
        return ClaimTable([ClaimRow(
            about=self.link(c.about, names.get(c.about) or readable(c.about)),
            property=names.get(c.property, readable(c.property)),
            value=self.value_cell(c, names),
            unit=units.get(c.property, "") if isinstance(c.value, int | Decimal) or c.bounds else "",
            tier=names.get(c.tier or "", readable(c.tier or "")),
            tier_class=(c.tier or "").rsplit("/", 1)[-1],
            as_of=claim_date(c),
            sources=[self.link(s, source_names.get(s) or readable(s)) for s in c.sources],
            no_sources=f"derived from {len(c.derived_from)} claims" if c.derived else "",
            deprecated=(c.rank or "").endswith("/deprecated"),
            claim=self.link(c.iri, "claim")) for c in ordered], show_about)

    # ---- systems --------------------------------------------------------------------------------------

    def system_table(self, pattern: str, *, hide: tuple[str, ...] = (), note: str | None = None,
                     tally: tuple[str, ...] = ()) -> SystemTable:
        """The systems `pattern` (SPARQL binding ?s, started from the page's entity) finds, as a table: the
        SYSTEMS_SHOWN largest (Rmax, then accelerators) with their name, operator, site, country and their last
        and best TOP500 rank. Each query starts from the entity; only the shown systems are read one by one
        (VALUES), so a country of 6,000 systems costs what a site of six does, plus two index scans. `tally`
        names properties (site, operator) whose values are counted over all the systems in the same pass."""
        rows: dict[str, SystemRow] = {}
        typed: set[str] = set()
        tallied: list[tuple[str, str, str]] = []  # (system, property, value)
        branches = "".join(f' UNION {{ ?s hpc:{name} ?v BIND("{name}" AS ?k) }}' for name in tally)
        for row in self.select(f"""SELECT DISTINCT ?s ?k ?v WHERE {{ {pattern}
                {{ ?s a hpc:System BIND("a" AS ?k) }} UNION {{ ?s hpc:rmax ?v BIND("rmax" AS ?k) }}
                UNION {{ ?s hpc:acceleratorCount ?v BIND("accelerators" AS ?k) }}{branches} }}"""):
            iri, kind = row["s"].value, row["k"].value
            found = rows.setdefault(iri, SystemRow(Link(readable(iri), iri)))
            if kind == "a":
                typed.add(iri)
            elif kind == "rmax":
                found.rmax = Decimal(row["v"].value)
            elif kind == "accelerators":
                found.accelerators = int(row["v"].value)
            else:
                tallied.append((iri, kind, row["v"].value))
        rows = {iri: row for iri, row in rows.items() if iri in typed}
        counts: dict[str, Counter[str]] = {name: Counter() for name in tally}
        for system, name, value in tallied:
            if system in typed:
                counts[name][value] += 1
        shown_iris = sorted(rows, key=lambda iri: rows[iri].size)[:SYSTEMS_SHOWN]
        if shown_iris:
            for row in self.select(f"""SELECT ?s ?k ?v WHERE {{ VALUES ?s {{ {values_of(shown_iris)} }}
                {{ ?s hpc:name ?v BIND("name" AS ?k) }} UNION {{ ?s rdfs:label ?v BIND("label" AS ?k) }}
                UNION {{ ?s hpc:operator ?v BIND("operator" AS ?k) }} UNION {{ ?s hpc:site ?v BIND("site" AS ?k) }}
                UNION {{ ?s hpc:country ?v BIND("country" AS ?k) }} }} ORDER BY ?s ?k ?v"""):
                found, kind, value = rows[row["s"].value], row["k"].value, row["v"].value
                if kind == "name" or (kind == "label" and found.system.text == readable(row["s"].value)):
                    found.system = Link(value, found.system.href)
                elif kind in ("operator", "site", "country") and getattr(found, kind) is None:
                    setattr(found, kind, Link(value, value))
        shown = [rows[iri] for iri in shown_iris]
        if shown_iris:
            # every rank the shown systems had, one pass: the last edition's and the best
            for row in self.select(f"""SELECT ?s ?rank ?when WHERE {{ VALUES ?s {{ {values_of(shown_iris)} }}
                ?c hpc:about ?s ; hpc:property hpc:listRank ; hpc:value ?rank ; hpc:pointInTime ?when }}"""):
                found, rank, when = rows[row["s"].value], int(row["rank"].value), str(row["when"].value)[:7]
                if found.listed is None or when > found.listed:
                    found.listed, found.rank = when, rank
                found.best_rank = rank if found.best_rank is None else min(found.best_rank, rank)
        named = labels(self.store, [link.href or "" for row in shown for link in (row.operator, row.site,
                                                                                   row.country) if link])
        for row in shown:
            row.system = self.link(row.system.href or "", row.system.text)
            for column in ("operator", "site", "country"):
                link = getattr(row, column)
                if link is not None:
                    setattr(row, column, self.link(link.href, named.get(link.href) or readable(link.href)))
        return SystemTable(shown, len(rows), hide, note, counts)

    # ---- pages ----------------------------------------------------------------------------------------

    def heading(self, iri: str) -> Heading:
        rows = self.select(f"SELECT ?read WHERE {{ {iri_ref(iri)} hpc:read ?read }}")
        name = labels(self.store, [iri]).get(iri, readable(iri))
        return Heading(name, [r["read"].value for r in rows])

    def site(self, iri: str) -> dict[str, object]:
        own = read_claims(self.store, about=[iri])
        e_iri = iri_ref(iri)
        systems = self.system_table(f"?c hpc:value {e_iri} . ?c hpc:property hpc:site . ?c hpc:about ?s ."
                                    " FILTER NOT EXISTS { ?c hpc:rank rank:deprecated }", hide=("site",))
        # A system no claim places here whose record gives this site's address (an Epoch AI cluster in an
        # Epoch AI data center: two datasets nothing links), said as such.
        same_address = self.system_table(
            f"{e_iri} hpc:location ?address . ?s hpc:location ?address . FILTER NOT EXISTS {{"
            f" ?c hpc:value {e_iri} . ?c hpc:property hpc:site . ?c hpc:about ?s }}", hide=("site",),
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
        predecessors = [r["o"].value for r in self.select(
            f"SELECT DISTINCT ?o WHERE {{ ?c hpc:about ?o ; hpc:property ?p ; hpc:value {e_iri} . "
            "?p a hpc:LineageProperty }")]
        operated = self.system_table(f"?c hpc:value {e_iri} . ?c hpc:property hpc:operator . ?c hpc:about ?s .",
                                     hide=("operator",))
        sites = [r["s"].value for r in self.select(
            f"SELECT DISTINCT ?s WHERE {{ ?c hpc:value {e_iri} . ?c hpc:property hpc:operator . ?c hpc:about ?s ."
            " ?s a/rdfs:subClassOf* hpc:Site }")]
        tickers = [r["t"].value for r in self.select(f"SELECT ?t WHERE {{ {e_iri} hpc:ticker ?t }} ORDER BY ?t")]
        supplied = self.system_table(f"?c hpc:value {e_iri} . ?c hpc:property hpc:supplierAtBuild ."
                                     " ?c hpc:about ?cmp . ?cmp hpc:componentOf ?s .")
        return {"facts": self.claims_table(read_claims(self.store, about=[iri])), "rollup": self.links(rollup),
                "predecessors": self.links(predecessors),
                "operated": [row.system for row in operated.rows], "operated_table": operated,
                "sites": sorted(self.links(sites), key=lambda link: link.text.casefold()), "tickers": tickers,
                "supplied": [row.system for row in supplied.rows], "supplied_table": supplied}

    def part(self, iri: str) -> dict[str, object]:
        used = self.system_table(f"?c hpc:value {iri_ref(iri)} . ?c hpc:property hpc:partModel ."
                                 " ?c hpc:about ?cmp . ?cmp hpc:componentOf ?s .")
        return {"facts": self.claims_table(read_claims(self.store, about=[iri])),
                "used": [row.system for row in used.rows], "used_table": used}

    def country(self, iri: str) -> dict[str, object]:
        """A country: its systems (the largest first), the sites and operators with the most systems there,
        and its share of the latest TOP500 edition."""
        e_iri = iri_ref(iri)
        # one pass over the country's systems: their sizes, and the site and operator of each, counted
        table = self.system_table(f"?s hpc:country {e_iri} .", hide=("country",), tally=("site", "operator"))
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
        """The country's systems and Rmax in the latest TOP500 edition, of the edition's total: the edition's
        Rmax claims (500, read once per reader) and its country claims naming this country."""
        edition = self.latest_rmax()
        if edition is None:
            return None
        date, by_system = edition
        listed = {r["s"].value for r in self.select(f"""SELECT DISTINCT ?s WHERE {{ ?c hpc:value {iri_ref(iri)} .
            ?c hpc:edition {iri_ref(self._edition or "")} . ?c hpc:property hpc:country . ?c hpc:about ?s }}""")}
        mine = [rmax for system, rmax in by_system.items() if system in listed]
        return Share(date, len(listed), len(by_system), sum(mine, Decimal(0)),
                     sum(by_system.values(), Decimal(0)))

    _edition: str | None = None
    _latest: tuple[str, dict[str, Decimal]] | None = None

    def latest_rmax(self) -> tuple[str, dict[str, Decimal]] | None:
        """The latest TOP500 edition's date and its systems' Rmax, read once per reader (store generation)."""
        if self._latest is None:
            latest = self.select("SELECT ?e ?issued WHERE { ?e a hpc:ListEdition ; dcterms:issued ?issued }"
                                 " ORDER BY DESC(?issued) LIMIT 1")
            if not latest:
                return None
            self._edition = latest[0]["e"].value
            rows = self.select(f"""SELECT ?s ?rmax WHERE {{ ?m hpc:edition {iri_ref(self._edition)} .
                ?m hpc:property hpc:rmax . ?m hpc:about ?s ; hpc:value ?rmax }}""")
            self._latest = (str(latest[0]["issued"].value)[:7],
                            {r["s"].value: Decimal(r["rmax"].value) for r in rows})
        return self._latest

    def source(self, iri: str) -> dict[str, object]:
        e_iri = iri_ref(iri)
        meta = self.select(f"SELECT ?p ?o WHERE {{ {e_iri} ?p ?o FILTER(?p != rdf:type) }} ORDER BY ?p")
        names = labels(self.store, [r["p"].value for r in meta] + [
            r["o"].value for r in meta if isinstance(r["o"], ox.NamedNode)])
        # A TOP500 edition is the source of some 20,000 claims: the page lists the first CITED_SHOWN (by IRI,
        # so the same ones each time) and links to the query that lists them all.
        citing = f"SELECT ?c WHERE {{ ?c prov:hadPrimarySource {e_iri} }}"
        [total] = self.select(f"SELECT (COUNT(?c) AS ?n) WHERE {{ ?c prov:hadPrimarySource {e_iri} }}")
        cited = read_claims(self.store, iris=[r["c"].value for r in self.select(
            f"{citing} ORDER BY ?c LIMIT {CITED_SHOWN}")])
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
                "cited": self.claims_table(cited, show_about=True), "cited_total": int(total["n"].value),
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


def claim_date(claim: Claim) -> str:
    """The date a claim's value refers to: its point in time, else its as-of date, else when it started."""
    for when in (claim.point_in_time, claim.as_of, claim.start):
        if when is not None:
            return str(when)
    return ""


def _descending(text: str) -> tuple:
    return (*(-ord(ch) for ch in text), 1)
