"""Server-rendered HTML pages: home, query editor, canned query results, entity pages, error pages.

Every page is a Jinja2 template in hpckg/templates/ (autoescaped; layout.html is the one layout) filled
with plain values this module reads from the store. Every link goes through urls.py. System pages come
from hpckg.page (the same model and article as `hpckg page`); sites, organisations, part models, sources
and other entities are read here.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

import pyoxigraph as ox
from markupsafe import Markup

from hpckg.claims import Claim, iri_ref, labels, read_claims
from hpckg.namespaces import ONTOLOGY, PREFIXES
from hpckg.page import system_page
from hpckg.page.claims import Ontology
from hpckg.page.machine import OneMachine
from hpckg.page.model import Link, Preamble
from hpckg.page.read import read_preamble
from hpckg.page.render import render
from hpckg.publish.schemaorg import machine_jsonld
from hpckg.query import CannedQuery
from hpckg.serve import urls
from hpckg.serve.charts import Chart
from hpckg.serve.compare import MOST, SYSTEM, Comparison
from hpckg.serve.entities import BOUND_SYMBOLS
from hpckg.serve.lists import PAGE_SIZES, TIERS, figure_text, fraction, items
from hpckg.serve.lists import Page as ListPage
from hpckg.serve.search import Hit, SearchIndex
from hpckg.serve.sparql import json_term_text
from hpckg.values import Iri

if TYPE_CHECKING:
    from pathlib import Path

    from hpckg.store import GraphStore

TWIN_TYPES = {"ttl": "text/turtle", "jsonld": "application/ld+json", "json": "application/json",
              "nt": "application/n-triples", "rdf": "application/rdf+xml"}
ENTITY_TEMPLATES = {"system": "system.html", "site": "site.html", "org": "organisation.html",
                    "part": "part.html", "source": "source.html"}
BUILTIN_EXAMPLES = {
    "Systems and their operators":
        "SELECT ?system ?operator WHERE { ?system a hpc:System ; hpc:operator ?operator }",
    "Claims by tier":
        "SELECT ?tier (COUNT(?c) AS ?claims) WHERE { ?c a hpc:Claim ; hpc:tier ?tier } GROUP BY ?tier",
    "Everything said about Kalos": "DESCRIBE sys:kalos",
}


@dataclass
class Html:
    """A page to render: its template and variables, with the twins announced in <link rel="alternate">
    and the Link header, and the entity's JSON-LD embedded when there is one."""

    title: str
    template: str
    context: dict[str, object] = field(default_factory=dict)
    alternates: dict[str, str] = field(default_factory=dict)  # URL -> media type
    jsonld: bytes | None = None
    # schema.org and DCAT-AP markup (templates/_jsonld.html): JSON-LD documents, as dicts or serialized
    structured_data: list[dict | bytes] = field(default_factory=list)

    def render(self) -> str:
        documents = [d.decode("utf-8") if isinstance(d, bytes) else json.dumps(d, ensure_ascii=False, indent=1)
                     for d in self.structured_data]
        return render(self.template, **self.context, title=self.title, alternates=self.alternates,
                      jsonld=self.jsonld, structured_data=documents, urls=urls)

    def link_header(self) -> str:
        return ", ".join(f'<{u}>; rel="alternate"; type="{t}"' for u, t in self.alternates.items())


@dataclass(frozen=True)
class Cell:
    """A table cell: text, linked when href is set; numbers are right-aligned."""

    text: str
    href: str | None = None
    numeric: bool = False


@dataclass
class ClaimRow:
    """One claim as the claims table shows it."""

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


@dataclass
class ClaimTable:
    rows: list[ClaimRow]
    show_about: bool = False


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


class Views:
    """Renders pages from the server's read-only store handle."""

    def __init__(self, store: GraphStore, base_iri: str):
        self.store = store
        self.base_iri = base_iri
        self._search_index: SearchIndex | None = None
        self._preamble: Preamble | None = None
        self._search_lock = threading.Lock()

    @property
    def search_index(self) -> SearchIndex:
        """The names of this store generation's systems, sites, organisations and parts, indexed once (a new
        build comes with new Views, so with a new index)."""
        with self._search_lock:
            if self._search_index is None:
                self._search_index = SearchIndex.from_store(self.store)
            return self._search_index

    def search_page(self, text: str, hits: list[Hit]) -> Html:
        return Html(f"Search: {text}" if text else "Search", "search.html",
                    {"text": text, "hits": hits, "href": self.href},
                    {urls.search(text, "json"): "application/json"})

    # ---- shared pieces ------------------------------------------------------------------------------

    def href(self, iri: str) -> str:
        """Where a link to an IRI goes: the server's own page for one of its entities, else the IRI."""
        return urls.page_for_iri(iri, self.base_iri) or iri

    def link(self, iri: str, text: str | None = None) -> Link:
        return Link(text or iri, self.href(iri))

    def term(self, term: ox.NamedNode | ox.Literal | ox.BlankNode | None, names: dict[str, str]) -> Link:
        """A term as a cell: IRIs linked by their label, numbers with thousands separators, other text."""
        if term is None:
            return Link("")
        if isinstance(term, ox.NamedNode):
            return self.link(term.value, names.get(term.value) or short(term.value))
        if isinstance(term, ox.Literal) and term.datatype.value.endswith(("#integer", "#decimal")):
            try:
                number = float(term.value)
                return Link(f"{number:,.0f}" if number.is_integer() else f"{number:,}")
            except ValueError:
                pass
        return Link(term.value)

    def value_cell(self, claim: Claim, names: dict[str, str]) -> Link:
        """A claim's value as a cell: an entity linked by its label, a number with thousands separators, a
        bound as '> 10,000', an unknown value said in words."""
        if claim.value is None:
            if claim.bounds:
                return Link(" and ".join(f"{BOUND_SYMBOLS[k]} {self.value_text(v)}"
                                         for k, v in claim.bounds.items()))
            return Link({"some-value": "not named", "no-value": "none"}.get(claim.unknown or "", ""))
        if isinstance(claim.value, Iri):
            return self.link(claim.value, names.get(claim.value) or short(claim.value))
        return Link(self.value_text(claim.value))

    @staticmethod
    def value_text(value: object) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | Decimal):
            return f"{int(value):,}" if value == int(value) else f"{value:,}"
        return str(value)

    def claims_table(self, rows: list[Claim], *, show_about: bool = False) -> ClaimTable:
        names = labels(self.store, [c.property for c in rows] + [c.about for c in rows] + [
            c.value for c in rows if isinstance(c.value, Iri)] + [
            s for c in rows for s in c.sources] + [c.tier or "" for c in rows])
        return ClaimTable([ClaimRow(
            about=self.link(c.about, names.get(c.about)),
            property=names.get(c.property, short(c.property)),
            value=self.value_cell(c, names),
            tier=names.get(c.tier or "", short(c.tier or "")),
            tier_class=(c.tier or "").rsplit("/", 1)[-1],
            as_of=str(c.as_of) if c.as_of is not None else "",
            sources=[self.link(s, names.get(s) or short(s)) for s in c.sources],
            no_sources=f"derived from {len(c.derived_from)} claims" if c.derived else "",
            deprecated=(c.rank or "").endswith("/deprecated"),
            claim=self.link(c.iri, short(c.iri))) for c in rows], show_about)

    def select(self, sparql: str) -> list[dict[str, ox.NamedNode | ox.Literal]]:
        result = self.store.query(sparql)
        names = [v.value for v in result.variables]
        return [{n: row[n] for n in names if row[n] is not None} for row in result]

    def links(self, iris: list[str]) -> list[Link]:
        """Entities as links by their labels, each once, in the order given."""
        names = labels(self.store, iris)
        return [self.link(i, names.get(i) or short(i)) for i in dict.fromkeys(iris)]

    # ---- home, queries, errors ----------------------------------------------------------------------

    def home(self, stats: dict[str, int], canned: list[CannedQuery],
             structured_data: list[dict | bytes] | None = None) -> Html:
        systems = self.select("SELECT ?x WHERE { ?x a hpc:System } ORDER BY ?x")
        sites = self.select("SELECT DISTINCT ?x WHERE { ?x a/rdfs:subClassOf* hpc:Site } ORDER BY ?x")
        return Html("Home", "home.html", {
            "stats": stats, "canned": canned, "systems": self.links([r["x"].value for r in systems]),
            "sites": self.links([r["x"].value for r in sites])}, {urls.void(): "text/turtle"},
            structured_data=structured_data or [])

    def results(self, document: dict) -> str:
        """A SPARQL JSON results document as an HTML table (or a yes/no for ASK)."""
        if "boolean" in document:
            return Markup(render("results.html", boolean=bool(document["boolean"]), count=0, variables=[],
                                 rows=[]))
        variables = document["head"]["vars"]
        bindings = document["results"]["bindings"]
        iris = [b[v]["value"] for b in bindings for v in variables if b.get(v, {}).get("type") == "uri"]
        names = labels(self.store, [i for i in iris if urls.split_entity_iri(i, self.base_iri)][:2000])
        rows = [[self.cell(binding.get(v), names) for v in variables] for binding in bindings]
        return Markup(render("results.html", boolean=None, count=len(bindings), variables=variables, rows=rows))

    def cell(self, term: dict | None, names: dict[str, str]) -> Cell | None:
        """One SPARQL JSON term as a results cell: IRIs linked, numbers right-aligned, None when unbound."""
        if term is None:
            return None
        if term["type"] == "uri":
            return Cell(names.get(term["value"]) or term["value"], self.href(term["value"]))
        numeric = term.get("datatype", "").rsplit("#", 1)[-1] in ("integer", "decimal", "double")
        return Cell(json_term_text(term), numeric=numeric)

    def canned(self, query: CannedQuery, results: str, params: dict[str, str] | None = None) -> Html:
        # `results` is HTML by contract: results() above, or the server's escaped <pre> or error box.
        params = params or {}
        return Html(query.name, "canned.html", {"query": query, "results": Markup(results), "params": params},
                    {urls.canned(query.name, "csv", params): "text/csv",
                     urls.canned(query.name, "json", params): "application/sparql-results+json"})

    def editor(self, query: str, results: str, canned: list[CannedQuery], warnings: list[str] | None = None) -> Html:
        examples = [(q.name, q.description, q.text) for q in canned]
        examples += [(name, None, text) for name, text in BUILTIN_EXAMPLES.items()]
        return Html("Query editor", "editor.html", {
            "query": query, "results": Markup(results), "examples": examples, "prefixes": list(PREFIXES),
            "warnings": warnings or []})

    def list_page(self, page: ListPage, base: str, heading: str, twins: dict[str, str], query_url: str,
                  editions: list[str] | None = None, *, machines: dict[str, OneMachine] | None = None) -> Html:
        """A list (lists.py) as a sortable, filterable, paged table; twins maps csv/json to their URLs. A row
        whose system is one machine with records of other datasets (machines, hpckg.page.machine) names them:
        "also in Epoch AI as …"."""
        counted = [iri for row in page.rows for column in page.spec.columns if column.items
                   for iri in items(row.get(column.items))]
        also = self.also_in(page.rows, machines or {})
        from hpckg.serve.statistics import absent_editions, top500_org_list  # it builds its pages with Html

        absent = [(e, top500_org_list(e)) for e in absent_editions(editions or [])]
        return Html(heading, "list.html", {
            "also": also, "absent": absent,
            "names": self.system_names(counted) if counted else {},
            "page": page, "base": base, "heading": heading, "twins": twins, "query_url": query_url,
            "editions": editions or [], "href": self.href, "tiers": TIERS, "page_sizes": PAGE_SIZES,
            "fraction": fraction, "figure": figure_text, "items": items},
            {twins["csv"]: "text/csv", twins["json"]: "application/json"})

    def compare_page(self, comparison: Comparison | None, slugs: list[str], text: str, hits: list[Hit],
                     error: str | None, queries: dict[str, str]) -> Html:
        """Systems side by side (compare.py), or the form choosing them with an error saying what is missing;
        hits are systems a search on the page found, to add."""
        iris = [SYSTEM + slug for slug in slugs]
        names = self.system_names(iris) if iris else {}
        chosen = [(slug, comparison.systems[i].name if comparison else names.get(iri, slug))
                  for i, (slug, iri) in enumerate(zip(slugs, iris, strict=True))]
        twins = {fmt: urls.compare(slugs, fmt) for fmt in ("csv", "json")} if comparison else {}
        return Html("Compare" + (": " + " · ".join(name for _, name in chosen) if comparison else ""), "compare.html",
                    {"comparison": comparison, "chosen": chosen, "text": text, "hits": hits, "error": error,
                     "queries": queries, "twins": twins, "href": self.href, "most": MOST,
                     "with_system": lambda slug: urls.compare([*slugs, slug]),
                     "without": lambda slug: urls.compare([s for s in slugs if s != slug])},
                    {twins[fmt]: media for fmt, media in (("csv", "text/csv"), ("json", "application/json"))
                     if fmt in twins})

    def also_in(self, rows: list[dict[str, object]], machines: dict[str, OneMachine]) -> dict[str, list[tuple]]:
        """For the rows' systems that are one machine with other records: system -> [(dataset, other record,
        its name)], the machine's page first."""
        others = {str(row["system"]): machines[str(row["system"])].others(str(row["system"]))
                  for row in rows if str(row.get("system")) in machines}
        names = self.system_names(sorted({o for found in others.values() for o, _ in found})) if others else {}
        return {system: [(dataset, other, names.get(other, short(other))) for other, dataset in found]
                for system, found in others.items()}

    def system_names(self, iris: list[str]) -> dict[str, str]:
        """Systems named as their pages title them: the name the list gave last (hpc:name), else the label."""
        found = labels(self.store, iris)
        for batch in (iris[i:i + 500] for i in range(0, len(iris), 500)):
            rows = self.select("SELECT ?s ?name WHERE { VALUES ?s { " + " ".join(iri_ref(i) for i in batch)
                               + " } ?s hpc:name ?name }")
            found.update({r["s"].value: r["name"].value for r in rows})
        return found

    def charts_page(self, charts: list[Chart], epoch: list[Chart], min_tier: str) -> Html:
        return Html("Charts", "charts.html", {"charts": charts, "epoch": epoch, "min_tier": min_tier,
                                              "tiers": ("lead", "reported", "verified")})

    def lists_index(self, editions: list[dict[str, object]]) -> Html:
        from hpckg.serve.statistics import absent_editions, top500_org_list  # it builds its pages with Html

        absent = [(e, top500_org_list(e)) for e in absent_editions([str(row["edition"]) for row in editions])]
        return Html("Lists", "lists.html", {"editions": editions, "epoch": urls.epoch_clusters(), "absent": absent})

    def vocab(self, ontology_dir: Path) -> Html:
        """The properties and vocabularies of the ontology in `ontology_dir` (the project's)."""
        from hpckg.vocabulary import reference

        return Html("Properties and vocabularies", "vocab.html", {"reference": reference(ontology_dir)})

    def error(self, status: int, code: str, message: str) -> Html:
        return Html(f"Error {status}", "error.html", {"status": status, "code": code, "message": message})

    # ---- entity pages -------------------------------------------------------------------------------

    def entity(self, kind: str, slug: str, iri: str, jsonld: bytes) -> Html | None:
        """The HTML page of an entity, or None when the store says nothing about it."""
        if not self.exists(iri):
            return None
        name = labels(self.store, [iri]).get(iri, slug)
        read = {"system": self.system, "site": self.site, "org": self.organisation, "part": self.part,
                "source": self.source}.get(kind, self.generic)
        context = {"kind": kind, "iri": iri, "heading": None if kind == "system" else self.heading(iri),
                   **read(iri)}
        alternates = {u: TWIN_TYPES[s] for s, u in urls.twins(kind, slug).items()}
        machine = machine_jsonld(self.store, iri) if kind == "system" else None
        return Html(name, ENTITY_TEMPLATES.get(kind, "entity.html"), context, alternates, jsonld,
                    structured_data=[machine] if machine else [])

    def exists(self, iri: str) -> bool:
        return bool(self.store.query(f"ASK {{ {{ {iri_ref(iri)} ?p ?o }} UNION {{ ?s ?p {iri_ref(iri)} }} }}"))

    def heading(self, iri: str) -> Heading:
        rows = self.select(f"SELECT ?read WHERE {{ {iri_ref(iri)} hpc:read ?read }}")
        name = labels(self.store, [iri]).get(iri, short(iri))
        return Heading(name, [r["read"].value for r in rows])

    def system(self, iri: str) -> dict[str, object]:
        page = system_page(self.store, iri, self.preamble())
        return {"page": page, "href": self.href, "history": None}  # the route adds the chart

    def preamble(self) -> Preamble | None:
        """The dataset-wide figures every system page opens with, read once per store generation (graph-wide
        queries taking seconds on the full graph); None on a writable store, where updates change them."""
        if not getattr(self.store, "read_only", False):
            return None
        with self._search_lock:
            if self._preamble is None:
                self._preamble = read_preamble(self.store, Ontology.read(self.store))
            return self._preamble

    def site(self, iri: str) -> dict[str, object]:
        own = read_claims(self.store, about=[iri])
        systems = [r["s"].value for r in self.select(
            f"SELECT DISTINCT ?s WHERE {{ ?c hpc:about ?s ; hpc:property hpc:site ; hpc:value {iri_ref(iri)} ."
            " FILTER NOT EXISTS { ?c hpc:rank rank:deprecated } } ORDER BY ?s")]
        derived = []
        for claim in (c for c in own if c.derived):
            inputs = read_claims(self.store, iris=claim.derived_from) if claim.derived_from else []
            names = labels(self.store, [claim.property, claim.tier or ""] + [i.tier or "" for i in inputs])
            derived.append(Derived(
                property=names.get(claim.property, short(claim.property)),
                value=self.value_cell(claim, {}),
                weakest=names.get(claim.tier or "", short(claim.tier or "")),
                tier_class=(claim.tier or "").rsplit("/", 1)[-1], claim=self.link(claim.iri, short(claim.iri)),
                inputs=self.claims_table(inputs, show_about=True), note=claim.note))
        return {"facts": self.claims_table([c for c in own if not c.derived]), "derived": derived,
                "systems": self.links(systems)}

    def organisation(self, iri: str) -> dict[str, object]:
        e_iri = iri_ref(iri)
        rollup = [r["p"].value for r in self.select(
            f"SELECT ?p WHERE {{ {e_iri} hpc:rollsUpTo ?p FILTER(?p != {e_iri}) }}")]
        predecessors = [r["o"].value for r in self.select(
            f"SELECT DISTINCT ?o WHERE {{ ?c hpc:about ?o ; hpc:property ?p ; hpc:value {e_iri} . "
            "?p a hpc:LineageProperty }")]
        operated = [r["s"].value for r in self.select(
            f"SELECT DISTINCT ?s WHERE {{ ?c hpc:about ?s ; hpc:property hpc:operator ; hpc:value {e_iri} . "
            "?s a hpc:System }")]
        sites = [r["s"].value for r in self.select(
            f"SELECT DISTINCT ?s WHERE {{ ?c hpc:about ?s ; hpc:property hpc:operator ; hpc:value {e_iri} . "
            "?s a/rdfs:subClassOf* hpc:Site }")]
        tickers = [r["t"].value for r in self.select(f"SELECT ?t WHERE {{ {e_iri} hpc:ticker ?t }} ORDER BY ?t")]
        supplied = [r["s"].value for r in self.select(
            f"SELECT DISTINCT ?s WHERE {{ ?c hpc:about ?cmp ; hpc:property hpc:supplierAtBuild ; "
            f"hpc:value {e_iri} . ?cmp hpc:componentOf ?s }}")]
        return {"facts": self.claims_table(read_claims(self.store, about=[iri])), "rollup": self.links(rollup),
                "predecessors": self.links(predecessors), "operated": self.links(operated),
                "sites": self.links(sites), "tickers": tickers, "supplied": self.links(supplied)}

    def part(self, iri: str) -> dict[str, object]:
        used = [r["s"].value for r in self.select(
            f"SELECT DISTINCT ?s WHERE {{ ?c hpc:about ?cmp ; hpc:property hpc:partModel ; "
            f"hpc:value {iri_ref(iri)} . ?cmp hpc:componentOf ?s }}")]
        return {"facts": self.claims_table(read_claims(self.store, about=[iri])), "used": self.links(used)}

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
                "all_cited": urls.query_editor(f"{citing} ORDER BY ?c")}

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


CITED_SHOWN = 200  # claims listed on a source's page; the rest are one query away


def short(iri: str) -> str:
    """A compact name for an IRI: prefix:local when a project prefix covers it, else its last segment."""
    for prefix, namespace in PREFIXES.items():
        if iri.startswith(namespace) and prefix != "hpc":
            return f"{prefix}:{iri[len(namespace):]}"
    if iri.startswith(ONTOLOGY):
        return iri[len(ONTOLOGY):]
    return iri.rstrip("/").rsplit("/", 1)[-1]


def json_dumps(data: object) -> bytes:
    return json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8")
