"""Read one system's page from the graph with SPARQL: `find_system` resolves what a user typed,
`system_page` gathers every section into a SystemPage."""

from __future__ import annotations

import difflib
from decimal import Decimal
from typing import TYPE_CHECKING

from hpckg.claims import Claim, labels
from hpckg.errors import UnknownNameError
from hpckg.namespaces import ID, PREFIXES, THIS_DATASET, hpc
from hpckg.page.claims import (
    Formatter,
    Ontology,
    format_number,
    iri_list,
    page_order,
    reachable,
    read_claims,
    select,
    source_link,
    successors,
    weakest,
)
from hpckg.page.listings import listings
from hpckg.page.machine import DATASET_NAMES, SAME_MACHINE, machine_page, read_same_machine
from hpckg.page.model import (
    ChangeEntry,
    ComponentRow,
    Figure,
    Link,
    Preamble,
    Row,
    SourceCheckRow,
    SourceLink,
    SystemPage,
    TimelineEvent,
)
from hpckg.terms import BASIS_DERIVED

if TYPE_CHECKING:
    from hpckg.store import GraphStore

HEADER_PROPERTIES = {hpc("country"): "country", hpc("status"): "status", hpc("systemKind"): "kind",
                     hpc("operator"): "operator", hpc("site"): "site"}
PART_SUMMARY_EXCLUDED = {hpc("maker"), hpc("partCategory")}


def find_system(store: GraphStore, ref: str) -> str:
    """The IRI of the system `ref` names: a slug, an IRI (or sys: CURIE), a label or an alias, in any case.

    Raises UnknownNameError naming the closest known systems when nothing matches."""
    wanted = ref.strip()
    if wanted.startswith("sys:"):
        wanted = PREFIXES["sys"] + wanted[4:]
    rows = select(store, """
        SELECT ?system ?name ?how WHERE {
          ?system a hpc:System .
          { ?system hpc:slug ?name BIND(1 AS ?how) } UNION { ?system rdfs:label ?name BIND(2 AS ?how) }
          UNION { ?system skos:altLabel ?name BIND(3 AS ?how) }
        }""")
    systems = {str(row["system"]) for row in rows}
    if wanted in systems:
        return wanted
    folded = wanted.casefold()
    for how in (1, 2, 3):
        matches = sorted({str(row["system"]) for row in rows
                          if row["how"] == how and str(row["name"]).casefold() == folded})
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise UnknownNameError(f"{ref!r} names several systems: {', '.join(matches)}; "
                                   "give a slug or an IRI instead")
    slugs = {str(row["system"]): str(row["name"]) for row in rows if row["how"] == 1}
    systems_by_name = {str(row["name"]).casefold(): str(row["system"]) for row in rows}
    close_names = difflib.get_close_matches(folded, list(systems_by_name), n=8, cutoff=0.5)
    close_systems = dict.fromkeys(systems_by_name[name] for name in close_names)
    close = [slugs.get(system, system) for system in close_systems][:5]
    if not close:
        close = sorted(slugs.values())[:5]
    hint = f"; closest matches: {', '.join(close)}" if close else "; the graph holds no systems (build it first)"
    raise UnknownNameError(f"no system named {ref!r}{hint}")


# The kinds of entity `hpckg page` renders, by class, in the order a name is looked up (systems first).
PAGE_KINDS = {"system": (hpc("System"),), "site": (hpc("Site"), hpc("Datacenter")),
              "org": (hpc("Organisation"),), "part": (hpc("PartModel"),)}


def find_entity(store: GraphStore, ref: str) -> tuple[str, str]:
    """(kind, IRI) of the system, site, organisation or part `ref` names: an IRI, a CURIE (site:acme,
    orgn:nvidia), a slug, a label or an alias, in any case. Systems are looked up first, so every system
    reference keeps working; another kind's name that is also a system's must be given as a CURIE or IRI."""
    wanted = ref.strip()
    prefix, _, local = wanted.partition(":")
    if local and prefix in PREFIXES and not wanted.startswith(("http:", "https:")):
        wanted = PREFIXES[prefix] + local
    if wanted.startswith(ID):
        kind = {"system": "system", "site": "site", "org": "org", "part": "part"}.get(
            wanted[len(ID):].split("/", 1)[0])
        classes = " ".join(f"<{c}>" for c in PAGE_KINDS[kind]) if kind else ""
        typed = kind is not None and bool(store.query(f"ASK {{ <{wanted}> a ?type VALUES ?type {{ {classes} }} }}"))
        if typed:
            return kind, wanted
        raise UnknownNameError(f"{ref!r} is not a system, site, organisation or part in the graph")
    try:
        return "system", find_system(store, ref)
    except UnknownNameError as not_a_system:
        folded = wanted.casefold()
        for kind in ("site", "org", "part"):
            classes = " ".join(f"<{c}>" for c in PAGE_KINDS[kind])
            rows = select(store, f"""SELECT DISTINCT ?e ?name WHERE {{
                VALUES ?type {{ {classes} }} ?e a ?type .
                {{ ?e hpc:slug ?name }} UNION {{ ?e rdfs:label ?name }} UNION {{ ?e skos:altLabel ?name }} }}""")
            matches = sorted({str(r["e"]) for r in rows if str(r["name"]).casefold() == folded})
            if len(matches) == 1:
                return kind, matches[0]
            if matches:
                raise UnknownNameError(f"{ref!r} names several: {', '.join(matches)}; give a CURIE or an IRI") \
                    from None
        raise UnknownNameError(str(not_a_system).replace("no system named", "no system, site, organisation or "
                                                         "part named", 1)) from None


def system_page(store: GraphStore, iri: str, preamble: Preamble | None = None, *,
                same_machine: bool = True, ontology: Ontology | None = None) -> SystemPage:
    """Everything the page of system `iri` shows, read from the store; `preamble` is the dataset-wide part
    (read_preamble) when the caller keeps it, else it is read here (two graph-wide queries). With
    `same_machine`, the records of the same machine too (hpckg.page.machine): on the machine's page, what each
    of them says; on another record's, the link to the machine's page. `ontology` likewise, when the caller
    keeps it (Ontology.read: 16 ms a page on the full graph)."""
    ontology = ontology or Ontology.read(store)
    identity = select(store, f"""
        SELECT ?label ?name ?slug ?alias ?read WHERE {{
          BIND(<{iri}> AS ?s)
          OPTIONAL {{ ?s rdfs:label ?label FILTER (lang(?label) = "" || langMatches(lang(?label), "en")) }}
          OPTIONAL {{ ?s hpc:name ?name }}
          OPTIONAL {{ ?s hpc:slug ?slug }}
          OPTIONAL {{ ?s skos:altLabel ?alias }}
          OPTIONAL {{ ?s hpc:read ?read }}
        }} ORDER BY ?alias""")
    if not identity or not any(identity):
        raise UnknownNameError(f"no system with IRI {iri}")
    first = identity[0]
    # An imported system's label is its record ("TOP500 system 180307"); its name claim (the truthy one,
    # the latest the list gave) is what people call it, so the page is titled with that.
    title = str(first.get("name") or first.get("label") or iri.rsplit("/", 1)[-1])
    page = SystemPage(iri=iri, label=title,
                      slug=_opt(first.get("slug")), read=_opt(first.get("read")),
                      citation_threshold=ontology.threshold)
    # The list repeats the name among the aliases ("Frontier" is also an alternative label): not shown twice.
    page.aliases = list(dict.fromkeys(str(row["alias"]) for row in identity
                                      if "alias" in row and str(row["alias"]).casefold() != title.casefold()))
    if first.get("name") and first.get("label") and str(first["label"]) != title:
        page.aliases = [str(first["label"]), *(a for a in page.aliases if a != title)]

    components = select(store, f"""
        SELECT ?component ?role ?order WHERE {{
          ?component hpc:componentOf <{iri}> .
          OPTIONAL {{ ?component hpc:role ?role OPTIONAL {{ ?role hpc:displayOrder ?order }} }}
        }}""")
    component_iris = [str(row["component"]) for row in components]
    claims, cited = read_claims(store, [iri, *component_iris])
    part_iris = [str(c.value) for cmp in component_iris for c in claims.get(cmp, [])
                 if c.property == hpc("partModel") and not c.deprecated]
    part_claims, part_cited = read_claims(store, part_iris)
    claims.update(part_claims)
    cited.update(part_cited)

    entity_values = {str(c.value) for group in claims.values() for c in group if isinstance(c.value, str)}
    orgs = {v for v in entity_values if v.startswith(ID + "org/")}
    parents = today_parents(store, orgs)
    editions = {c.edition for group in claims.values() for c in group if c.edition}
    named = (entity_values | editions | set(parents.values()) | {str(r.get("role")) for r in components}
             | {c.basis for group in claims.values() for c in group if c.basis} | {BASIS_DERIVED})
    formatter = Formatter(ontology, labels(store, named), cited)

    system_claims = [c for c in claims.get(iri, []) if not c.deprecated]
    for prop, attribute in HEADER_PROPERTIES.items():
        found = [c for c in system_claims if c.property == prop]
        if found:
            setattr(page, attribute, formatter.figure(found[0]))
    page.performance = performance_rows(system_claims, ontology, formatter)
    page.listings = listings(system_claims, formatter)
    if not page.site.present:
        page.same_address = read_same_address(store, iri)
    page.metrics = rows_of(system_claims, ontology, formatter, "DatacenterMetricProperty")
    page.facts = [row for row in rows_of(system_claims, ontology, formatter, "ClaimProperty")
                  if not _sectioned(ontology, row.property) and row.property != SAME_MACHINE]
    page.timeline = sorted(
        [TimelineEvent(date=row.figure.text, label=row.label, figure=row.figure)
         for row in rows_of(system_claims, ontology, formatter, "TimelineProperty")]
        + qualifier_events(system_claims, ontology, formatter),
        key=lambda event: (event.date, event.label))
    order = {str(row["component"]): float(row.get("order", 1000)) for row in components}  # type: ignore[arg-type]
    roles = {str(row["component"]): str(row.get("role", "")) for row in components}
    page.components = [
        component_row(cmp, roles[cmp], claims, parents, ontology, formatter)
        for cmp in sorted(order, key=lambda c: (order[c], c))]
    page.preamble = preamble if preamble is not None else read_preamble(store, ontology)
    page.changes = read_changes(store, iri)
    page.checks = read_checks(store, iri)
    seen: dict[str, SourceLink] = {}
    for figure in page.figures:
        for source in figure.sources:
            seen.setdefault(source.iri, source)
    for check in page.checks:
        if check.source:
            seen.setdefault(check.source.iri, check.source)
    page.sources = list(seen.values())
    if same_machine:
        add_same_machine(store, page, formatter, preamble=page.preamble, ontology=ontology)
    return page


def read_same_address(store: GraphStore, iri: str) -> list[Link]:
    """The sites whose address is the system's own, for a system no claim places at a site (an Epoch AI
    cluster and the Epoch AI data center it runs in are records of two datasets that nothing links)."""
    rows = select(store, f"""
        SELECT DISTINCT ?site ?name WHERE {{
          <{iri}> hpc:location ?address . ?site hpc:location ?address ; a/rdfs:subClassOf* hpc:Site .
          OPTIONAL {{ ?site rdfs:label ?name }}
        }} ORDER BY ?site LIMIT 5""")
    return [Link(str(row.get("name") or row["site"]), str(row["site"])) for row in rows]


def add_same_machine(store: GraphStore, page: SystemPage, formatter: Formatter, *, preamble: Preamble,
                     ontology: Ontology) -> None:
    """The records of this machine: which one's page is the machine's, and there what each of them says."""
    dataset, links = read_same_machine(store, page.iri, formatter)
    page.dataset = DATASET_NAMES.get(dataset, dataset)
    # link.dataset is the dataset's key until the choice is made, then its name
    chosen = machine_page({page.iri: dataset} | {link.record.href or "": link.dataset
                                                 for link in links if link.confirmed})
    for link in links:
        link.dataset = DATASET_NAMES.get(link.dataset, link.dataset)
        if link.record.href == chosen and chosen != page.iri:
            page.machine_page = link.record
        elif chosen == page.iri and link.confirmed:
            link.page = system_page(store, link.record.href or "", preamble, same_machine=False, ontology=ontology)
    page.same_machine = links


def qualifier_events(claims: list[Claim], ontology: Ontology, formatter: Formatter) -> list[TimelineEvent]:
    """Timeline events read from the time qualifiers of the system's other claims: a value's start and end
    ("site: Building A from", "... until") and each dated entry (a list rank in an edition, an Rmax)."""
    events: list[TimelineEvent] = []
    for claim in claims:
        info = ontology.prop(claim.property)
        if info.is_a("TimelineProperty") or claim.value is None:
            continue
        figure = formatter.figure(claim)
        value = figure.display
        if claim.start:
            events.append(TimelineEvent(date=str(claim.start), label=f"{info.label} → {value}", figure=figure))
        if claim.end:
            events.append(TimelineEvent(date=str(claim.end), label=f"{info.label} {value} ends", figure=figure))
        if claim.point_in_time:
            edition = f" ({formatter.name(claim.edition)})" if claim.edition else ""
            events.append(TimelineEvent(date=str(claim.point_in_time), label=f"{info.label}: {value}{edition}",
                                        figure=figure))
    return events


def _opt(value: object) -> str | None:
    return None if value is None else str(value)


def _sectioned(ontology: Ontology, prop: str | None) -> bool:
    """True for properties shown in a section of their own rather than among the facts."""
    info = ontology.prop(prop or "")
    return any(info.is_a(kind) for kind in (
        "PerformanceProperty", "DatacenterMetricProperty", "TimelineProperty", "LineageProperty"))


def rows_of(claims: list[Claim], ontology: Ontology, formatter: Formatter, kind: str) -> list[Row]:
    """One row per claim whose property is of the given ontology class, in the ontology's display order."""
    chosen = [c for c in claims if ontology.prop(c.property).is_a(kind)]
    chosen.sort(key=lambda c: (ontology.prop(c.property).order, page_order(c)))
    return [Row(ontology.prop(c.property).label, formatter.figure(c), c.property) for c in chosen]


def performance_rows(claims: list[Claim], ontology: Ontology, formatter: Formatter) -> list[Row]:
    """Measured performance: the claimed figures in the ontology's order, Rmax ÷ Rpeak after Rpeak when both
    are claimed. A figure nobody claimed is left out: a table of '-' (an AI cluster has no Rmax) says
    nothing a reader needs."""
    by_property: dict[str, Claim] = {}
    for claim in claims:
        if ontology.prop(claim.property).is_a("PerformanceProperty"):
            by_property.setdefault(claim.property, claim)
    rows: list[Row] = []
    for prop in sorted(by_property, key=lambda p: (ontology.prop(p).order, p)):
        rows.append(Row(ontology.prop(prop).label, formatter.figure(by_property[prop]), prop))
        if prop == hpc("rpeak"):
            ratio = efficiency_row(by_property, ontology, formatter)
            if ratio.figure.present:
                rows.append(ratio)
    return rows


def efficiency_row(by_property: dict[str, Claim], ontology: Ontology, formatter: Formatter) -> Row:
    """Rmax ÷ Rpeak as a percentage, derived from the two claims and as sure as the weaker of them."""
    label = f"{ontology.prop(hpc('rmax')).label} ÷ {ontology.prop(hpc('rpeak')).label}"
    rmax, rpeak = by_property.get(hpc("rmax")), by_property.get(hpc("rpeak"))
    if not (rmax and rpeak and isinstance(rmax.value, int | Decimal) and isinstance(rpeak.value, int | Decimal)
            and rpeak.value):
        return Row(label, Figure(unit="%"))
    ratio = (Decimal(rmax.value) / Decimal(rpeak.value) * 100).quantize(Decimal("0.1"))
    inputs = [formatter.figure(rmax), formatter.figure(rpeak)]
    tier = weakest(f.tier for f in inputs)
    return Row(label, Figure(text=format_number(ratio), unit="%", tier=tier,
                             basis=formatter.link(BASIS_DERIVED),
                             sources=tuple(dict.fromkeys(s for f in inputs for s in f.sources)),
                             lead=any(f.lead for f in inputs), value=ratio))


def today_parents(store: GraphStore, orgs: set[str]) -> dict[str, str]:
    """Each organisation's parent today, where it differs: hpc:rollsUpTo when materialised, else the end of
    the hpc:acquiredBy / hpc:renamedTo chain (read from the truthy triples, one step per query: successors)."""
    values = iri_list(orgs)
    if not values:
        return {}
    parents: dict[str, str] = {}
    for row in select(store, f"""
        SELECT ?org ?parent WHERE {{ VALUES ?org {{ {values} }} ?org hpc:rollsUpTo ?parent }}
        ORDER BY ?org ?parent"""):
        org, parent = str(row["org"]), str(row["parent"])
        if parent != org:
            parents.setdefault(org, parent)
    chain = successors(store, set(orgs) - set(parents), (hpc("acquiredBy"), hpc("renamedTo")))
    for org in set(orgs) - set(parents):
        # the ends of the chain: organisations that were not acquired or renamed again
        ends = sorted(n for n in reachable(chain, org) if n != org and not chain.get(n, set()) - {n})
        if ends:
            parents[org] = ends[0]
    return parents


def component_row(iri: str, role: str, claims: dict[str, list[Claim]], parents: dict[str, str],
                  ontology: Ontology, formatter: Formatter) -> ComponentRow:
    own = [c for c in claims.get(iri, []) if not c.deprecated]
    figures = [formatter.figure(c) for c in own]

    def first(prop: str) -> Figure:
        return next((f for c, f in zip(own, figures, strict=True) if c.property == prop), Figure())

    part_figure = first(hpc("partModel"))
    part_iri = part_figure.entity
    part_own = [c for c in claims.get(part_iri or "", []) if not c.deprecated]
    maker_iri = next((str(c.value) for c in part_own if c.property == hpc("maker")), None)
    specs = [f"{ontology.prop(c.property).label}: {formatter.figure(c).display}"
             for c in sorted(part_own, key=lambda c: (ontology.prop(c.property).order, page_order(c)))
             if c.property not in PART_SUMMARY_EXCLUDED]
    supplier_figure = first(hpc("supplierAtBuild"))
    supplier_iri = supplier_figure.entity
    detail = first(hpc("detail"))
    sources = tuple(dict.fromkeys(s for f in figures for s in f.sources))
    shown = {hpc("partModel"), hpc("supplierAtBuild"), hpc("quantity"), hpc("nodeCount"), hpc("perNode")}
    details = []
    for claim, figure in zip(own, figures, strict=True):
        if claim.property in shown or figure is detail:
            continue
        label = ontology.prop(claim.property).label
        text = figure.display if claim.property != hpc("detail") else figure.text
        marker = " (machine-generated analysis, not a citation)" if figure.machine_generated else ""
        details.append(f"{text}{marker}" if claim.property == hpc("detail") else f"{label}: {text}{marker}")
    return ComponentRow(
        iri=iri, role=formatter.link(role) or Link("-"), part=formatter.link(part_iri),
        detail=detail.text if detail.present else None, specs=specs,
        supplier=formatter.link(supplier_iri), supplier_parent=formatter.link(parents.get(supplier_iri or "")),
        maker=formatter.link(maker_iri), maker_parent=formatter.link(parents.get(maker_iri or "")),
        quantities=[f for c, f in zip(own, figures, strict=True) if c.property == hpc("quantity")],
        nodes=first(hpc("nodeCount")), per_node=first(hpc("perNode")),
        tier=weakest(f.tier for f in figures), sources=sources,
        lead=any(f.lead for f in figures), figures=figures, details=details,
        machine_generated=any(f.machine_generated for f in figures),
        part_figure=part_figure if part_figure.present else None,
        supplier_figure=supplier_figure if supplier_figure.present else None)


def read_preamble(store: GraphStore, ontology: Ontology) -> Preamble:
    """The dataset's description, and the sourcing figures computed from the graph's own source checks (the
    canned queries source-check-summary and weakly-sourced-systems): how many systems have a readable
    citation naming them, of how many, and how many are weakly sourced. No source check, no figures: a
    figure copied from another dataset's pages would describe that dataset, not this graph."""
    rows = select(store, """
        SELECT ?dataset ?description WHERE {
          ?dataset a hpc:Dataset .
          OPTIONAL { ?dataset dcterms:description|rdfs:comment ?description
                     FILTER (lang(?description) = "" || langMatches(lang(?description), "en")) }
        } ORDER BY ?dataset ?description LIMIT 1""")
    preamble = Preamble(dataset=str(rows[0]["dataset"]), description=_opt(rows[0].get("description"))) \
        if rows else Preamble()
    # The build computed the figures (hpckg.build.sourcing_summary) and wrote them about the dataset.
    figures = select(store, f"""
        SELECT ?count ?named ?weak WHERE {{
          <{THIS_DATASET}> hpc:systemCount ?count ; hpc:systemsWithNamingCitation ?named ;
                           hpc:weaklySourcedSystems ?weak }}""")
    if not figures:
        return preamble
    for attribute, key in (("system_count", "count"), ("with_naming_citation", "named"), ("weakly_sourced", "weak")):
        value = int(figures[0][key])
        setattr(preamble, attribute, Figure(text=f"{value:,}", value=value))
    return preamble


def read_changes(store: GraphStore, iri: str) -> list[ChangeEntry]:
    rows = select(store, f"""
        SELECT ?entry ?date ?text WHERE {{
          ?entry a hpc:ChangeEntry ; hpc:changedEntity <{iri}> .
          OPTIONAL {{ ?entry dcterms:date ?date }}
          OPTIONAL {{ ?entry rdfs:comment ?text }}
        }} ORDER BY ?date ?entry""")
    entries: dict[str, ChangeEntry] = {}
    for row in rows:
        entry = str(row["entry"])
        entries.setdefault(entry, ChangeEntry(entry, str(row.get("date", "")), str(row.get("text", ""))))
    return sorted(entries.values(), key=lambda e: (e.date, e.iri))


def read_checks(store: GraphStore, iri: str) -> list[SourceCheckRow]:
    rows = select(store, f"""
        SELECT ?check ?source ?url ?title ?ended ?command ?result ?resultLabel ?passes ?software ?swLabel
               ?term ?count WHERE {{
          ?check a hpc:SourceCheck ; hpc:checkedSystem <{iri}> .
          OPTIONAL {{ ?check prov:used ?source
                      OPTIONAL {{ ?source schema:url ?url }} OPTIONAL {{ ?source dcterms:title ?title }} }}
          OPTIONAL {{ ?check prov:endedAtTime ?ended }}
          OPTIONAL {{ ?check hpc:checkedBy ?command }}
          OPTIONAL {{ ?check hpc:checkResult ?result
                      OPTIONAL {{ ?result rdfs:label ?resultLabel }} OPTIONAL {{ ?result hpc:passes ?passes }} }}
          OPTIONAL {{ ?check prov:wasAssociatedWith ?software OPTIONAL {{ ?software rdfs:label ?swLabel }} }}
          OPTIONAL {{ ?check hpc:termFound ?term }}
          OPTIONAL {{ ?check hpc:countFound ?count }}
        }} ORDER BY ?check ?term ?count""")
    checks: dict[str, SourceCheckRow] = {}
    for row in rows:
        key = str(row["check"])
        check = checks.get(key)
        if check is None:
            ended = _opt(row.get("ended"))
            source = (source_link(str(row["source"]), _opt(row.get("url")), _opt(row.get("title")))
                      if "source" in row else None)
            software = Link(str(row.get("swLabel") or row["software"]), str(row["software"])) \
                if "software" in row else None
            check = checks[key] = SourceCheckRow(
                iri=key, source=source,
                result=str(row.get("resultLabel") or str(row.get("result", "-")).rsplit("/", 1)[-1]),
                passes=row.get("passes") if isinstance(row.get("passes"), bool) else None,
                terms=[], counts=[], checked=ended[:10] if ended else None,
                command=_opt(row.get("command")), software=software, result_iri=_opt(row.get("result")))
        term, count = row.get("term"), row.get("count")
        if term is not None and str(term) not in check.terms:
            check.terms.append(str(term))
        if count is not None and str(count) not in check.counts:
            check.counts.append(str(count))
    # hpckg verify keeps every check; the table shows the latest of each source (its ended time decides).
    ended = {str(row["check"]): _opt(row.get("ended")) or "" for row in rows}
    latest: dict[str, SourceCheckRow] = {}
    for check in sorted(checks.values(), key=lambda c: (ended[c.iri], c.iri)):
        latest[check.source.iri if check.source else check.iri] = check
    return sorted(latest.values(), key=lambda c: (c.source.host if c.source else "", c.checked or "", c.iri))
