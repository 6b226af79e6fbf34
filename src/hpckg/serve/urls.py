"""The one URL builder: every path the server answers is made here, and nowhere else.

Entity IRIs https://w3id.org/hpckg/id/<kind>/<slug> are served at /id/<kind>/<slug> (content negotiation),
their HTML pages at /page/<kind>/<slug> and their raw twins at /id/<kind>/<slug>.<ext>.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

from hpckg.namespaces import BASE, ENTITY_KINDS

# Suffix of an entity twin -> the format name it is served in (RDF formats from hpckg.formats, or "json").
TWIN_SUFFIXES = {"ttl": "ttl", "jsonld": "jsonld", "json": "json", "nt": "nt", "rdf": "xml"}

HOME = "/"
SPARQL = "/sparql"
QUERY_EDITOR = "/query"
STORE = "/store"
VOID = "/.well-known/void"
QUERIES = "/queries"
VOCAB = "/vocab"
DUMPS = "/dumps"
RELEASES = "/releases"
LISTS = "/lists"
SEARCH = "/search"
CHARTS = "/charts"
COMPARE = "/compare"
CONTRIBUTE = "/contribute"
STATISTICS = "/statistics"


def home() -> str:
    return HOME


def sparql(query: str | None = None, **params: str) -> str:
    """The SPARQL endpoint, optionally with a query already in the URL (a GET request)."""
    args = {"query": query, **params} if query is not None else params
    return SPARQL + ("?" + urlencode(args) if args else "")


def query_editor(query: str | None = None) -> str:
    return QUERY_EDITOR + ("?" + urlencode({"query": query}) if query is not None else "")


def canned(name: str, format: str | None = None, params: dict[str, str] | None = None) -> str:
    """A canned query from queries/ run on the server: its HTML results page, or a .csv/.json download, with
    the values of the parameters it declares (?min_tier=reported)."""
    return f"{QUERIES}/{quote(name)}" + (f".{format}" if format else "") + ("?" + urlencode(params) if params else "")


def contribute() -> str:
    """The Contribute page: a Turtle draft (or a system's form) reviewed as `hpckg check` does, nothing kept."""
    return CONTRIBUTE


def vocab() -> str:
    """Every property and vocabulary value the ontology defines, with what each expects and means."""
    return VOCAB


def graph_store(graph: str | None = None) -> str:
    """Graph Store Protocol read access: one named graph, or the default graph when graph is None."""
    return STORE + ("?" + urlencode({"graph": graph}) if graph else "?default")


def void() -> str:
    return VOID


def dump(extension: str) -> str:
    """The current export in one format (hpckg.<extension>), a file with ETag, ranges and compression."""
    return f"{DUMPS}/hpckg.{extension}"


def release_file(version: str, name: str | None = None) -> str:
    """A release's folder, or one of its files (dumps, description, CITATION.cff, change log)."""
    return f"{RELEASES}/{quote(version)}/" + (quote(name) if name else "")


def entity(kind: str, slug: str, format: str | None = None) -> str:
    """An entity's linked-data URL (content-negotiated), or its raw twin when format is a twin suffix."""
    return f"/id/{kind}/{quote(slug)}" + (f".{format}" if format else "")


def page(kind: str, slug: str) -> str:
    """An entity's HTML page."""
    return f"/page/{kind}/{quote(slug)}"


def system_chart(slug: str) -> str:
    """A system's TOP500 history chart, the image its page shows."""
    return f"/page/system/{quote(slug)}/history.svg"


def split_entity_iri(iri: str, base_iri: str = BASE) -> tuple[str, str] | None:
    """(kind, slug) of an entity IRI minted under base_iri, or None for any other IRI."""
    prefix = base_iri + "id/"
    if not iri.startswith(prefix):
        return None
    kind, _, slug = iri[len(prefix):].partition("/")
    if kind not in ENTITY_KINDS or not slug or "/" in slug:
        return None
    return kind, slug


def page_for_iri(iri: str, base_iri: str = BASE) -> str | None:
    """The local HTML page of an entity IRI, or None when the IRI is not one of ours."""
    parts = split_entity_iri(iri, base_iri)
    return page(*parts) if parts else None


def twins(kind: str, slug: str) -> dict[str, str]:
    """Every machine-readable twin of an entity page: suffix -> URL."""
    return {suffix: entity(kind, slug, suffix) for suffix in TWIN_SUFFIXES}


def with_query(path: str, params: dict[str, str]) -> str:
    return path + ("?" + urlencode(params) if params else "")


def lists() -> str:
    """Every list of the website: the TOP500 editions, Epoch's clusters, sites, organisations and parts."""
    return LISTS


def top500_editions() -> str:
    return f"{LISTS}/top500"


def top500_list(edition: str, format: str | None = None, params: dict[str, str] | None = None) -> str:
    """One TOP500 edition (2025-06) as a table, or its .csv/.json twin."""
    return with_query(f"{LISTS}/top500/{quote(edition)}" + (f".{format}" if format else ""), params or {})


def epoch_clusters(format: str | None = None, params: dict[str, str] | None = None) -> str:
    """Epoch AI's GPU clusters as a table, or its .csv/.json twin."""
    return with_query(f"{LISTS}/epoch-clusters" + (f".{format}" if format else ""), params or {})


def entity_list(name: str, format: str | None = None, params: dict[str, str] | None = None) -> str:
    """The list of every site, organisation or part (name: sites, organisations, parts) with its systems, or
    its .csv/.json twin."""
    return with_query(f"{LISTS}/{quote(name)}" + (f".{format}" if format else ""), params or {})


def compare(systems: list[str] | None = None, format: str | None = None) -> str:
    """Two to four systems side by side, named by their slugs (?system=a&system=b), or its .csv/.json twin, or
    (format="svg") its chart."""
    path = COMPARE + (f".{format}" if format else "")
    return path + ("?" + urlencode([("system", slug) for slug in systems]) if systems else "")


def search(text: str | None = None, format: str | None = None) -> str:
    """The search page (or its .json twin) for a text: systems, sites, organisations and parts by name."""
    return with_query(SEARCH + (f".{format}" if format else ""), {"q": text} if text else {})


def charts() -> str:
    """The TOP500 over its editions drawn: performance development, share by country and by vendor."""
    return CHARTS


def queries() -> str:
    """The ready-made (canned) queries, each with what it answers, its parameters and its downloads."""
    return QUERIES


def statistics() -> str:
    """The TOP500's statistics: every edition (those top500.org has but the data lacks named), over time."""
    return STATISTICS


def edition_statistics(edition: str, format: str | None = None) -> str:
    """One TOP500 edition's statistics (shares by country, vendor, segment, parts; Green500 and HPCG), or its
    .json twin (every table)."""
    return f"{STATISTICS}/top500/{quote(edition)}" + (f".{format}" if format else "")


def statistics_table(edition: str, table: str, format: str | None = None) -> str:
    """One table of an edition's statistics in full (table: country, vendor, green500 ...), or its .csv/.json
    twin."""
    return f"{STATISTICS}/top500/{quote(edition)}/{quote(table)}" + (f".{format}" if format else "")


def statistics_trend(table: str, format: str | None = None, measure: str | None = None) -> str:
    """One share table over every edition (table: country, vendor ...), or its .csv/.json twin."""
    return with_query(f"{STATISTICS}/{quote(table)}" + (f".{format}" if format else ""),
                      {"measure": measure} if measure else {})
