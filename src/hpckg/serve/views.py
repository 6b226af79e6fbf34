"""Server-rendered HTML pages: home, query editor, canned query results, entity pages, error pages.

Pages are plain HTML built from fixed fragments with every value escaped; templates/base.html is the one
layout. Every link goes through urls.py. System pages come from hpckg.page (the same model as
`hpckg page`); sites, organisations, part models and sources are rendered here.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from string import Template

import pyoxigraph as ox

from hpckg.namespaces import ONTOLOGY, PREFIXES
from hpckg.query import CannedQuery
from hpckg.serve import urls
from hpckg.serve.entities import Claim, claims, iri_ref, labels
from hpckg.serve.sparql import json_term_text

LAYOUT = Template((Path(__file__).parent / "templates" / "base.html").read_text(encoding="utf-8"))
TWIN_TYPES = {"ttl": "text/turtle", "jsonld": "application/ld+json", "json": "application/json",
              "nt": "application/n-triples", "rdf": "application/rdf+xml"}
e = html.escape


@dataclass
class Html:
    """A rendered page, with the twins announced in <link rel="alternate"> and the Link header."""

    title: str
    body: str
    alternates: dict[str, str] = field(default_factory=dict)  # URL -> media type
    jsonld: bytes | None = None

    def render(self) -> str:
        head = "".join(f'<link rel="alternate" type="{e(t)}" href="{e(u)}">\n'
                       for u, t in self.alternates.items())
        if self.jsonld is not None:
            data = self.jsonld.decode("utf-8").replace("</", "<\\/")
            head += f'<script type="application/ld+json">\n{data}\n</script>'
        nav = " ".join(f'<a href="{e(u)}">{e(t)}</a>' for u, t in (
            (urls.home(), "hpckg"), (urls.query_editor(), "Query"), (urls.sparql(), "SPARQL endpoint"),
            (urls.void(), "VoID")))
        formats = ", ".join(f'<a href="{e(u)}">{e(t.split("/")[-1])}</a>'
                            for u, t in self.alternates.items()) or "the SPARQL endpoint"
        return LAYOUT.substitute(title=e(self.title), head=head, nav=nav, body=self.body, formats=formats)

    def link_header(self) -> str:
        return ", ".join(f'<{u}>; rel="alternate"; type="{t}"' for u, t in self.alternates.items())


class Views:
    """Renders pages from the server's read-only store handle."""

    def __init__(self, store, base_iri: str):
        self.store = store
        self.base_iri = base_iri

    # ---- shared pieces ------------------------------------------------------------------------------

    def href(self, iri: str) -> str:
        """Where a link to an IRI goes: the server's own page for one of its entities, else the IRI."""
        return urls.page_for_iri(iri, self.base_iri) or iri

    def link(self, iri: str, text: str | None = None) -> str:
        page = urls.page_for_iri(iri, self.base_iri)
        shown = e(text or iri)
        return f'<a href="{e(page)}">{shown}</a>' if page else f'<a href="{e(iri)}">{shown}</a>'

    def term(self, term: ox.NamedNode | ox.Literal | ox.BlankNode | None, names: dict[str, str]) -> str:
        if term is None:
            return ""
        if isinstance(term, ox.NamedNode):
            return self.link(term.value, names.get(term.value) or short(term.value))
        if isinstance(term, ox.Literal) and term.datatype.value.endswith(("#integer", "#decimal")):
            try:
                number = float(term.value)
                return f"{number:,.0f}" if number.is_integer() else f"{number:,}"
            except ValueError:
                pass
        return e(term.value)

    def claims_table(self, rows: list[Claim], *, show_about: bool = False) -> str:
        if not rows:
            return '<p class="muted">No claims.</p>'
        names = labels(self.store, [c.property for c in rows] + [c.about for c in rows] + [
            c.value.value for c in rows if isinstance(c.value, ox.NamedNode)] + [
            s for c in rows for s in c.sources] + [c.tier or "" for c in rows])
        head = "<tr>" + ("<th>About</th>" if show_about else "") + (
            "<th>Property</th><th>Value</th><th>Tier</th><th>As of</th><th>Sources</th><th>Claim</th></tr>")
        body = []
        for c in rows:
            value = self.term(c.value, names) if c.value is not None else e(c.value_text)
            tier = names.get(c.tier or "", short(c.tier or ""))
            sources = ", ".join(self.link(s, names.get(s) or short(s)) for s in c.sources)
            if c.derived:
                sources = sources or f"derived from {len(c.inputs)} claims"
            css = ' class="deprecated"' if (c.rank or "").endswith("/deprecated") else ""
            body.append(f"<tr{css}>" + (f"<td>{self.link(c.about, names.get(c.about))}</td>"
                                         if show_about else "")
                        + f"<td>{e(names.get(c.property, short(c.property)))}</td><td>{value}</td>"
                        f'<td class="tier-{e((c.tier or "").rsplit("/", 1)[-1])}">{e(tier)}</td>'
                        f"<td>{e(c.as_of or '')}</td><td>{sources}</td>"
                        f"<td>{self.link(c.iri, short(c.iri))}</td></tr>")
        return f"<table>{head}{''.join(body)}</table>"

    def select(self, sparql: str) -> list[dict[str, ox.NamedNode | ox.Literal]]:
        result = self.store.query(sparql)
        names = [v.value for v in result.variables]
        return [{n: row[n] for n in names if row[n] is not None} for row in result]

    def iri_list(self, iris: list[str]) -> str:
        if not iris:
            return '<p class="muted">None.</p>'
        names = labels(self.store, iris)
        return "<ul>" + "".join(f"<li>{self.link(i, names.get(i) or short(i))}</li>"
                                for i in dict.fromkeys(iris)) + "</ul>"

    # ---- home, queries, errors ----------------------------------------------------------------------

    def home(self, stats: dict[str, int], canned: list[CannedQuery]) -> Html:
        rows = "".join(f'<tr><td>{e(k)}</td><td class="num">{v:,}</td></tr>' for k, v in stats.items())
        queries = "".join(
            f'<tr><td><a href="{e(urls.canned(q.name))}">{e(q.name)}</a></td><td>{e(q.description)}</td>'
            f'<td><form method="get" action="{e(urls.canned(q.name))}"><button type="submit">Run</button>'
            f'</form></td><td><a href="{e(urls.canned(q.name, "csv"))}">CSV</a> '
            f'<a href="{e(urls.canned(q.name, "json"))}">JSON</a></td></tr>' for q in canned)
        systems = self.select("SELECT ?x WHERE { ?x a hpc:System } ORDER BY ?x")
        sites = self.select("SELECT ?x WHERE { ?x a hpc:Site } ORDER BY ?x")
        body = (
            "<h1>hpckg: supercomputers and AI clusters, every fact sourced</h1>"
            "<p>A knowledge graph where every fact is a claim with its sources and a confidence tier. "
            f'Query it at the <a href="{e(urls.sparql())}">SPARQL endpoint</a> or in the '
            f'<a href="{e(urls.query_editor())}">query editor</a>.</p>'
            f'<h2>Dataset</h2><table class="stats">{rows}</table>'
            f'<h2>Canned queries</h2><table id="canned-queries"><tr><th>Query</th><th>What it answers</th>'
            f"<th></th><th>Download</th></tr>{queries}</table>"
            f"<h2>Systems</h2>{self.iri_list([r['x'].value for r in systems])}"
            f"<h2>Sites</h2>{self.iri_list([r['x'].value for r in sites])}")
        return Html("Home", body, {urls.void(): "text/turtle"})

    def results(self, document: dict) -> str:
        """A SPARQL JSON results document as an HTML table (or a yes/no for ASK)."""
        if "boolean" in document:
            return f'<p class="boolean">{"yes" if document["boolean"] else "no"}</p>'
        variables = document["head"]["vars"]
        bindings = document["results"]["bindings"]
        head = "".join(f"<th>{e(v)}</th>" for v in variables)
        iris = [b[v]["value"] for b in bindings for v in variables if b.get(v, {}).get("type") == "uri"]
        names = labels(self.store, [i for i in iris if urls.split_entity_iri(i, self.base_iri)][:2000])
        rows = []
        for binding in bindings:
            cells = []
            for v in variables:
                term = binding.get(v)
                if term is None:
                    cells.append("<td></td>")
                elif term["type"] == "uri":
                    cells.append(f"<td>{self.link(term['value'], names.get(term['value']))}</td>")
                else:
                    numeric = term.get("datatype", "").rsplit("#", 1)[-1] in ("integer", "decimal", "double")
                    cells.append(f'<td{" class=num" if numeric else ""}>{e(json_term_text(term))}</td>')
            rows.append("<tr>" + "".join(cells) + "</tr>")
        count = f'<p class="muted">{len(bindings):,} results</p>'
        return f'{count}<table class="results"><tr>{head}</tr>{"".join(rows)}</table>'

    def canned(self, query: CannedQuery, results: str) -> Html:
        body = (f"<h1>{e(query.name)}</h1><p>{e(query.description)}</p>"
                f'<p>Download: <a href="{e(urls.canned(query.name, "csv"))}">CSV</a> · '
                f'<a href="{e(urls.canned(query.name, "json"))}">JSON</a> · '
                f'<a href="{e(urls.query_editor(query.text))}">open in the query editor</a></p>'
                f'<section id="results">{results}</section>'
                f"<details><summary>The query</summary><pre>{e(query.text)}</pre></details>")
        return Html(query.name, body, {urls.canned(query.name, "csv"): "text/csv",
                                       urls.canned(query.name, "json"): "application/sparql-results+json"})

    def editor(self, query: str, results: str, canned: list[CannedQuery]) -> Html:
        examples = "".join(f'<li><a href="{e(urls.query_editor(q.text))}">{e(q.name)}</a>: '
                           f"{e(q.description)}</li>" for q in canned)
        builtin = {
            "Systems and their operators":
                "SELECT ?system ?operator WHERE { ?system a hpc:System ; hpc:operator ?operator }",
            "Claims by tier":
                "SELECT ?tier (COUNT(?c) AS ?claims) WHERE { ?c a hpc:Claim ; hpc:tier ?tier } GROUP BY ?tier",
            "Everything said about Kalos": "DESCRIBE sys:kalos",
        }
        examples += "".join(f'<li><a href="{e(urls.query_editor(text))}">{e(name)}</a></li>'
                            for name, text in builtin.items())
        prefixes = ", ".join(f"{p}:" for p in PREFIXES)
        body = (
            "<h1>Query editor</h1>"
            f'<form method="get" action="{e(urls.QUERY_EDITOR)}">'
            f'<textarea name="query" rows="12" spellcheck="false">{e(query)}</textarea>'
            '<p><button type="submit">Run</button> '
            '<span class="muted">(Ctrl+Enter) · results below; the same query as data: '
            f'<a href="{e(urls.sparql(query, format="json"))}">JSON</a>, '
            f'<a href="{e(urls.sparql(query, format="csv"))}">CSV</a></span></p></form>'
            f'<p class="muted">These prefixes are predeclared: {e(prefixes)}.</p>'
            f'<section id="results">{results}</section><h2>Examples</h2><ul>{examples}</ul>')
        return Html("Query editor", body)

    def error(self, status: int, code: str, message: str) -> Html:
        body = (f'<h1>{status}: {e(code)}</h1><div class="error"><p>{e(message)}</p></div>'
                f'<p><a href="{e(urls.home())}">Home</a> · <a href="{e(urls.query_editor())}">Query editor</a></p>')
        return Html(f"Error {status}", body)

    # ---- entity pages -------------------------------------------------------------------------------

    def entity(self, kind: str, slug: str, iri: str, jsonld: bytes) -> Html | None:
        """The HTML page of an entity, or None when the store says nothing about it."""
        if not self.exists(iri):
            return None
        name = labels(self.store, [iri]).get(iri, slug)
        render = {"system": self.system, "site": self.site, "org": self.organisation, "part": self.part,
                  "source": self.source}.get(kind, self.generic)
        body = render(iri)
        alternates = {u: TWIN_TYPES[s] for s, u in urls.twins(kind, slug).items()}
        return Html(name, f'<p class="muted">{e(kind)} · <code>{e(iri)}</code></p>{body}', alternates, jsonld)

    def exists(self, iri: str) -> bool:
        return bool(self.store.query(f"ASK {{ {{ {iri_ref(iri)} ?p ?o }} UNION {{ ?s ?p {iri_ref(iri)} }} }}"))

    def heading(self, iri: str) -> str:
        rows = self.select(f"SELECT ?read WHERE {{ {iri_ref(iri)} hpc:read ?read }}")
        name = labels(self.store, [iri]).get(iri, short(iri))
        read = "".join(f"<p>{e(r['read'].value)}</p>" for r in rows)
        return f"<h1>{e(name)}</h1>{read}"

    def system(self, iri: str) -> str:
        try:
            from hpckg.page import render_html, system_page
        except ImportError:
            return self.generic(iri)
        return render_html(system_page(self.store, iri), standalone=False, link_to=self.href)

    def site(self, iri: str) -> str:
        own = claims(self.store, [iri])
        derived = [c for c in own if c.derived]
        systems = [r["s"].value for r in self.select(
            f"SELECT DISTINCT ?s WHERE {{ ?c hpc:about ?s ; hpc:property hpc:site ; hpc:value {iri_ref(iri)} ."
            " FILTER NOT EXISTS { ?c hpc:rank rank:deprecated } } ORDER BY ?s")]
        parts = [self.heading(iri), "<h2>Facts</h2>", self.claims_table([c for c in own if not c.derived]),
                 "<h2>Derived totals</h2>"]
        if not derived:
            parts.append('<p class="muted">No derived totals.</p>')
        for claim in derived:
            inputs = claims(self.store, iris=claim.inputs) if claim.inputs else []
            names = labels(self.store, [claim.property, claim.tier or ""] + [i.tier or "" for i in inputs])
            weakest = names.get(claim.tier or "", short(claim.tier or ""))
            value = self.term(claim.value, {}) if claim.value is not None else e(claim.value_text)
            parts.append(
                f'<section class="derived"><h3>{e(names.get(claim.property, short(claim.property)))}: '
                f'<span class="total">{value}</span></h3>'
                f'<p>Derived by the build from {len(inputs)} input claims; weakest tier of the inputs: '
                f'<strong class="tier-{e((claim.tier or "").rsplit("/", 1)[-1])}">{e(weakest)}</strong>. '
                f"Claim {self.link(claim.iri, short(claim.iri))}.</p>"
                f"{self.claims_table(inputs, show_about=True)}"
                + (f"<p class=muted>{e(claim.note)}</p>" if claim.note else "") + "</section>")
        parts += ["<h2>Systems at this site</h2>", self.iri_list(systems)]
        return "".join(parts)

    def organisation(self, iri: str) -> str:
        e_iri = iri_ref(iri)
        rollup = [r["p"].value for r in self.select(
            f"SELECT ?p WHERE {{ {e_iri} hpc:rollsUpTo ?p FILTER(?p != {e_iri}) }}")]
        predecessors = [r["o"].value for r in self.select(
            f"SELECT DISTINCT ?o WHERE {{ ?c hpc:about ?o ; hpc:property ?p ; hpc:value {e_iri} . "
            "?p a hpc:LineageProperty }")]
        operated = [r["s"].value for r in self.select(
            f"SELECT DISTINCT ?s WHERE {{ ?c hpc:about ?s ; hpc:property hpc:operator ; hpc:value {e_iri} }}")]
        supplied = [r["s"].value for r in self.select(
            f"SELECT DISTINCT ?s WHERE {{ ?c hpc:about ?cmp ; hpc:property hpc:supplierAtBuild ; "
            f"hpc:value {e_iri} . ?cmp hpc:componentOf ?s }}")]
        return "".join([
            self.heading(iri), "<h2>Facts and lineage</h2>", self.claims_table(claims(self.store, [iri])),
            "<h2>Rolls up to (today)</h2>", self.iri_list(rollup),
            "<h2>Acquired or renamed from</h2>", self.iri_list(predecessors),
            "<h2>Systems operated</h2>", self.iri_list(operated),
            "<h2>Systems supplied</h2>", self.iri_list(supplied)])

    def part(self, iri: str) -> str:
        used = [r["s"].value for r in self.select(
            f"SELECT DISTINCT ?s WHERE {{ ?c hpc:about ?cmp ; hpc:property hpc:partModel ; "
            f"hpc:value {iri_ref(iri)} . ?cmp hpc:componentOf ?s }}")]
        return "".join([self.heading(iri), "<h2>Specifications</h2>",
                        self.claims_table(claims(self.store, [iri])), "<h2>Used in</h2>", self.iri_list(used)])

    def source(self, iri: str) -> str:
        e_iri = iri_ref(iri)
        meta = self.select(f"SELECT ?p ?o WHERE {{ {e_iri} ?p ?o FILTER(?p != rdf:type) }} ORDER BY ?p")
        names = labels(self.store, [r["p"].value for r in meta] + [
            r["o"].value for r in meta if isinstance(r["o"], ox.NamedNode)])
        rows = "".join(f"<tr><th>{e(names.get(r['p'].value, short(r['p'].value)))}</th>"
                       f"<td>{self.term(r['o'], names)}</td></tr>" for r in meta)
        cited = claims(self.store, iris=[r["c"].value for r in self.select(
            f"SELECT ?c WHERE {{ ?c prov:hadPrimarySource {e_iri} }}")])
        checks = self.select(f"""SELECT ?chk ?when ?system ?result ?term ?count ?by WHERE {{
            ?chk a hpc:SourceCheck ; prov:used {e_iri} .
            OPTIONAL {{ ?chk prov:endedAtTime ?when }} OPTIONAL {{ ?chk hpc:checkedSystem ?system }}
            OPTIONAL {{ ?chk hpc:checkResult ?result }} OPTIONAL {{ ?chk hpc:termFound ?term }}
            OPTIONAL {{ ?chk hpc:countFound ?count }} OPTIONAL {{ ?chk hpc:checkedBy ?by }}
        }} ORDER BY DESC(?when)""")
        check_names = labels(self.store, [t.value for r in checks for t in r.values()
                                          if isinstance(t, ox.NamedNode)])
        history = "".join("<tr>" + "".join(f"<td>{self.term(r.get(k), check_names)}</td>" for k in (
            "when", "system", "result", "term", "count", "by", "chk")) + "</tr>" for r in checks)
        history_table = (f'<table id="source-checks"><tr><th>When</th><th>System</th><th>Result</th>'
                         f"<th>Term found</th><th>Count found</th><th>Checked by</th><th>Check</th></tr>"
                         f"{history}</table>") if checks else '<p class="muted">No source checks recorded.</p>'
        return "".join([self.heading(iri), f"<table>{rows}</table>", "<h2>Source-check history</h2>",
                        history_table, "<h2>Claims citing this source</h2>",
                        self.claims_table(cited, show_about=True)])

    def generic(self, iri: str) -> str:
        e_iri = iri_ref(iri)
        out = self.select(f"SELECT ?p ?o WHERE {{ {e_iri} ?p ?o }} ORDER BY ?p")
        inbound = self.select(f"SELECT ?s ?p WHERE {{ ?s ?p {e_iri} }} ORDER BY ?p LIMIT 500")
        names = labels(self.store, [r["p"].value for r in out + inbound] + [
            t.value for r in out + inbound for t in r.values() if isinstance(t, ox.NamedNode)])
        rows = "".join(f"<tr><th>{e(names.get(r['p'].value, short(r['p'].value)))}</th>"
                       f"<td>{self.term(r['o'], names)}</td></tr>" for r in out)
        links = "".join(f"<tr><td>{self.term(r['s'], names)}</td>"
                        f"<td>{e(names.get(r['p'].value, short(r['p'].value)))}</td></tr>" for r in inbound)
        own = claims(self.store, [iri])
        return "".join([self.heading(iri), f"<table>{rows}</table>",
                        "<h2>Claims</h2>" + self.claims_table(own) if own else "",
                        f"<h2>Linked from</h2><table>{links}</table>" if links else ""])


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
