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
from typing import TYPE_CHECKING

from markupsafe import Markup

from hpckg import numbers
from hpckg.claims import iri_ref, labels
from hpckg.namespaces import PREFIXES
from hpckg.page import system_page
from hpckg.page.claims import Ontology
from hpckg.page.entities import EntityReader, short
from hpckg.page.listings import imported_editions
from hpckg.page.machine import OneMachine
from hpckg.page.model import Preamble
from hpckg.page.read import read_preamble
from hpckg.page.render import render
from hpckg.publish.schemaorg import machine_jsonld
from hpckg.query import GROUPS, CannedQuery
from hpckg.serve import urls
from hpckg.serve.charts import Chart
from hpckg.serve.compare import MOST, SYSTEM, Comparison
from hpckg.serve.front import Front, rmax_text, share_text
from hpckg.serve.lists import PAGE_SIZES, TIERS, figure_text, fraction, items
from hpckg.serve.lists import Page as ListPage
from hpckg.serve.search import Hit
from hpckg.serve.sparql import json_term_text

if TYPE_CHECKING:
    from pathlib import Path

    from hpckg.store import GraphStore

TWIN_TYPES = {"ttl": "text/turtle", "jsonld": "application/ld+json", "json": "application/json",
              "nt": "application/n-triples", "rdf": "application/rdf+xml"}
ENTITY_TEMPLATES = {"system": "system.html", "site": "site.html", "org": "organisation.html",
                    "part": "part.html", "source": "source.html", "country": "country.html"}
BUILTIN_EXAMPLES = {
    "Systems and their operators":
        "SELECT ?system ?operator WHERE { ?system a hpc:System ; hpc:operator ?operator }",
    "Claims by tier":
        "SELECT ?tier (COUNT(?c) AS ?claims) WHERE { ?c a hpc:Claim ; hpc:tier ?tier } GROUP BY ?tier",
    "Everything said about Kalos": "DESCRIBE sys:kalos",
    # List entries (queries/rules/14-list-entries.rq): one node per system and edition, its figures direct.
    "Rmax by country in one TOP500 edition, from its list entries":
        "SELECT ?country (COUNT(?entry) AS ?systems) (SUM(?rmax) AS ?rmaxTflops) WHERE {\n"
        "  ?entry hpc:entryIn ds:top500-2025-06 ; hpc:entryCountry ?country ; hpc:entryRmax ?rmax .\n"
        "} GROUP BY ?country ORDER BY DESC(?rmaxTflops)",
    "Summit in every edition that lists it, with the tier of each row":
        "SELECT ?edition ?rank ?rmax ?tier WHERE {\n"
        "  ?entry hpc:entryOf sys:top500-179397 ; hpc:entryIn ?edition ; hpc:entryRank ?rank ; hpc:entryTier ?tier .\n"
        "  OPTIONAL { ?entry hpc:entryRmax ?rmax }\n"
        "} ORDER BY ?edition",
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
    exact: str | None = None  # a rounded number's value as the results give it (its title)


class Views(EntityReader):
    """Renders pages from the server's read-only store handle."""

    def __init__(self, store: GraphStore, base_iri: str):
        super().__init__(store)
        self.base_iri = base_iri
        self._preamble: Preamble | None = None
        self._ontology: Ontology | None = None
        self._editions: list[str] | None = None
        self._read_once_lock = threading.Lock()

    def search_page(self, text: str, hits: list[Hit], searched: str | None = None) -> Html:
        return Html(f"Search: {text}" if text else "Search", "search.html",
                    {"text": text, "hits": hits, "href": self.href, "searched": searched},
                    {urls.search(text, "json"): "application/json"})

    # ---- shared pieces ------------------------------------------------------------------------------

    def href(self, iri: str) -> str:
        """Where a link to an IRI goes: the server's own page for one of its entities, else the IRI."""
        return urls.page_for_iri(iri, self.base_iri) or iri

    def query_url(self, query: str) -> str:
        return urls.query_editor(query)

    # ---- home, queries, errors ----------------------------------------------------------------------

    def home(self, front: Front, latest_release: str | None, structured_data: list[dict | bytes] | None = None) -> Html:
        return Html("Supercomputers and AI clusters", "home.html", {
            "front": front, "countries": self.country_names(sorted({e.country for e in front.top if e.country})),
            "latest_release": latest_release, "rmax": rmax_text, "share": share_text},
            {urls.void(): "text/turtle"}, structured_data=structured_data or [])

    def queries_page(self, canned: list[CannedQuery]) -> Html:
        """The ready-made queries in sections by the kind of question they answer (query.GROUPS); a project's
        own queries that name no known group last, under "Other queries"."""
        sections = [(key, title, [q for q in canned if q.group == key]) for key, title in GROUPS.items()]
        sections.append(("other", "Other queries", [q for q in canned if q.group not in GROUPS]))
        return Html("Ready-made queries", "queries.html", {"sections": [s for s in sections if s[2]]})

    def country_names(self, codes: list[str]) -> dict[str, str]:
        """Country codes -> their English names (one query for the few the home page shows)."""
        if not codes:
            return {}
        iris = " ".join(f"<{self.base_iri}id/country/{code}>" for code in codes)
        rows = self.select(f"""SELECT ?x (MIN(STR(?l)) AS ?label) WHERE {{ VALUES ?x {{ {iris} }}
            ?x rdfs:label ?l FILTER (LANGMATCHES(LANG(?l), "en") || LANG(?l) = "") }} GROUP BY ?x""")
        return {r["x"].value.rsplit("/", 1)[-1]: r["label"].value for r in rows if "label" in r}

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
        if term["type"] == "literal" and term.get("datatype", "").rsplit("#", 1)[-1] in numbers.NUMERIC_TYPES:
            parsed = numbers.parse(term["value"])  # thousands separators, four significant digits
            shown = term["value"] if parsed is None else numbers.number(parsed)
            return Cell(shown, numeric=True, exact=term["value"] if shown != term["value"] else None)
        return Cell(json_term_text(term))

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
            "fraction": fraction, "figure": figure_text, "exact": numbers.exact, "items": items},
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
                "source": self.source, "country": self.country}.get(kind, self.generic)
        context = {"kind": kind, "iri": iri, "heading": None if kind == "system" else self.heading(iri),
                   **read(iri)}
        alternates = {u: TWIN_TYPES[s] for s, u in urls.twins(kind, slug).items()}
        machine = machine_jsonld(self.store, iri) if kind == "system" else None
        return Html(name, ENTITY_TEMPLATES.get(kind, "entity.html"), context, alternates, jsonld,
                    structured_data=[machine] if machine else [])

    def exists(self, iri: str) -> bool:
        return bool(self.store.query(f"ASK {{ {{ {iri_ref(iri)} ?p ?o }} UNION {{ ?s ?p {iri_ref(iri)} }} }}"))

    def system(self, iri: str) -> dict[str, object]:
        page = system_page(self.store, iri, self.preamble(), ontology=self.ontology())
        return {"page": page, "href": self.href, "history": None}  # the route adds the chart

    def imported_editions(self) -> list[str]:
        """The TOP500 editions (YYYY-MM) of this store generation, read once."""
        if self._editions is None:
            self._editions = imported_editions(self.store)
        return self._editions

    def ontology(self) -> Ontology | None:
        """The ontology terms the pages show (labels, units, tiers), read once per store generation; None on a
        writable store, where updates may change them."""
        if not getattr(self.store, "read_only", False):
            return None
        with self._read_once_lock:
            if self._ontology is None:
                self._ontology = Ontology.read(self.store)
            return self._ontology

    def preamble(self) -> Preamble | None:
        """The dataset-wide figures every system page opens with, read once per store generation (graph-wide
        queries taking seconds on the full graph); None on a writable store, where updates change them."""
        if not getattr(self.store, "read_only", False):
            return None
        with self._read_once_lock:
            if self._preamble is None:
                self._ontology = self._ontology or Ontology.read(self.store)
                self._preamble = read_preamble(self.store, self._ontology)
            return self._preamble

def json_dumps(data: object) -> bytes:
    return json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8")
