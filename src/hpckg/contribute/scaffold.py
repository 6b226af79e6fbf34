"""`hpckg new system`: write the skeleton of a system's Turtle file, every required field present as a
marked placeholder ("TODO: ..." text or an IRI under https://w3id.org/hpckg/id/todo/) that `hpckg check`
reports until it is filled in."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pyoxigraph as ox

from hpckg.datafiles.filecheck import TODO_NS
from hpckg.errors import InputError, RdfSyntaxError
from hpckg.formats import rdf_format
from hpckg.names import SlugError, is_slug, name_keys, slugify
from hpckg.namespaces import PREFIXES, entity, hpc
from hpckg.project import Project
from hpckg.store import parse_file
from hpckg.terms import RDF_TYPE, RDFS_LABEL, SCHEMA_URL, SKOS_ALT_LABEL

LABELS = (RDFS_LABEL, SKOS_ALT_LABEL, hpc("slug"))
# What an as-of date is, where `hpckg new` cannot know it; `hpckg check` explains it until it is replaced.
AS_OF_PLACEHOLDER = "TODO: the date the source gives for this fact, such as 2024-06, or delete this line"
DATE_TYPES = {4: "gYear", 7: "gYearMonth", 10: "date"}  # a date's datatype by the length of YYYY[-MM[-DD]]


def date_literal(text: str, error: str) -> str:
    """A source's or claim's date as Turtle ('"2024-06"^^xsd:gYearMonth') from YYYY, YYYY-MM or YYYY-MM-DD;
    an InputError saying `error` for any other text."""
    if not re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", text):
        raise InputError(error)
    return f'"{text}"^^xsd:{DATE_TYPES[len(text)]}'
PREFIX_NAMES = ("hpc", "rdfs", "skos", "xsd", "prov", "dcterms", "schema", "sys", "site", "orgn", "part",
                "cmp", "src", "claim", "chg", "country", "tier", "basis", "rank", "status", "kind", "role",
                "sourcekind", "orgtype")


def find_entity(data_dir: Path, rdf_class: str, name: str) -> str | None:
    """The IRI of an entity of `rdf_class` in the curated data folder `data_dir` (Project.data_dir) whose slug,
    label or alias matches `name`."""
    wanted = name_keys(name) | {name}
    try:
        wanted.add(slugify(name))
    except SlugError:
        pass  # a name in another script is matched by its keys and its exact text
    index = curated_index(data_dir)
    for iri in sorted(index.typed.get(rdf_class, ())):
        if index.names.get(iri, set()) & wanted:
            return iri
    return None


@dataclass(frozen=True)
class CuratedIndex:
    """What the scaffolds look up in data/ttl/: each class's entities, each entity's names, the sources' web
    addresses."""

    typed: dict[str, set[str]]  # class IRI -> entities typed with it
    names: dict[str, set[str]]  # entity -> its slug, labels and aliases, with their name keys
    urls: dict[str, str]  # schema:url -> the source at it


def curated_index(data_dir: Path) -> CuratedIndex:
    """The index of the .ttl files under `data_dir`, read once while none of them changes: one scaffold looks
    up its entity, its values and its source in it (each lookup parsed every file again)."""
    files = tuple((str(path), path.stat().st_mtime_ns, path.stat().st_size) for path in sorted(data_dir.rglob("*.ttl")))
    return _index(files)


@lru_cache(maxsize=2)
def _index(files: tuple[tuple[str, int, int], ...]) -> CuratedIndex:
    typed: dict[str, set[str]] = {}
    names: dict[str, set[str]] = {}
    urls: dict[str, str] = {}
    for name, _, _ in files:
        try:
            quads = parse_file(Path(name), format=rdf_format("ttl"))
        except RdfSyntaxError:
            continue  # a broken file is `hpckg check`'s to report, not the scaffold's
        for q in quads:
            if q.predicate.value == RDF_TYPE:
                typed.setdefault(q.object.value, set()).add(q.subject.value)
            elif q.predicate.value in LABELS and isinstance(q.object, ox.Literal):
                names.setdefault(q.subject.value, set()).update(name_keys(q.object.value) | {q.object.value})
            elif q.predicate.value == SCHEMA_URL:
                urls.setdefault(q.object.value, q.subject.value)
    return CuratedIndex(typed, names, urls)


@dataclass
class Accelerators:
    """The accelerator component `hpckg new system --part --nodes --per-node` (or `--quantity`) writes."""

    part: str  # the part model's IRI
    nodes: int | None = None
    per_node: int | None = None
    quantity: int | None = None  # how many in all, when the source gives no nodes x per node


def check_accelerators(part: str | None, nodes: int | None, per_node: int | None, quantity: int | None,
                       flags: tuple[str, str, str]) -> None:
    """An InputError for counts that cannot be written: not positive, without a part, or a quantity that
    nodes x per node contradicts. `flags`: how the three counts are called (--nodes, --per-node, --quantity)."""
    for flag, number in zip(flags, (nodes, per_node, quantity), strict=True):
        if number is not None and number < 1:
            raise InputError(f"{flag} {number} is not a positive whole number")
    if (nodes is not None or per_node is not None or quantity is not None) and part is None:
        raise InputError(f"{', '.join(flags)} describe the accelerator component: give its part too")
    if quantity is not None and nodes is not None and per_node is not None and quantity != nodes * per_node:
        raise InputError(f"{flags[2]} {quantity:,} is not {flags[0]} x {flags[1]} ({nodes * per_node:,}): give "
                         "the count the source gives, or only nodes and per node (the build derives the quantity)")


def new_system(project: Project, name: str, *, operator: str, country: str, out_dir: Path | None = None,
               slug: str | None = None, today: dt.date | None = None, part: str | None = None,
               nodes: int | None = None, per_node: int | None = None, site: str | None = None,
               source_url: str | None = None, source: str | None = None, status: str | None = None,
               quantity: int | None = None) -> Path:
    """Write <out_dir>/<slug>.ttl (by default in the project's data folder) for a new system and return its
    path; refuse to overwrite a file.

    The slug is made from the name unless given; a name with no ASCII letters (such as "日本") needs one.
    With `part` (a part model in data/ttl/, by slug or name), `nodes` and `per_node` the accelerator component
    is written too (its quantity is derived: nodes x per node), or with `quantity` (the count in all); with
    `site` the site claim; with `source_url` the source's address (a source data/ttl/ or the built store
    already has at that address is cited instead of a second one), or `source` (an existing source's slug)
    cited instead of a new source; with `status` (a notation such as planned) the status. Today's date is
    the change entry's date, never a claim's as-of date."""
    slug = _system_slug(name, slug)
    data_dir = project.data_dir
    out_dir = Path(out_dir) if out_dir is not None else data_dir / "systems"
    target = out_dir / f"{slug}.ttl"
    if target.exists():
        raise InputError(f"{target} already exists; edit it, or choose another name (the file name is the "
                         f"slug {slug!r} of the system's name)")
    country = country.strip().upper()
    if len(country) != 2 or not country.isalpha():
        raise InputError(f"--country {country!r} is not an ISO 3166-1 alpha-2 code such as US or CN")
    check_accelerators(part, nodes, per_node, quantity, ("--nodes", "--per-node", "--quantity"))
    operator_iri = find_entity(data_dir, hpc("Organisation"), operator)
    if operator_iri is None:  # an imported operator (TOP500's, Epoch AI's) rather than a second record of it
        from hpckg.contribute.scaffold_claim import find_record

        operator_iri = find_record(project, {hpc("Organisation")}, operator, "--operator")
    country_known = find_entity(data_dir, hpc("Country"), country) is not None
    accelerators = Accelerators(require_entity(data_dir, hpc("PartModel"), part, "--part", "part", project), nodes,
                                per_node, quantity) if part else None
    site_iri = require_entity(data_dir, hpc("Site"), site, "--site", "site", project) if site else None
    if source_url is not None and not source_url.startswith(("https://", "http://")):
        raise InputError(f"--source-url {source_url!r} is not a web address (https://...)")
    if source is not None and source_url is not None:
        raise InputError("give --source (a source data/ttl/ already has) or --source-url (a new one), not both")
    from hpckg.contribute.scaffold_claim import source_at
    from hpckg.contribute.scaffold_entities import vocabulary_value

    cited = (require_entity(data_dir, hpc("Source"), source, "--source", "source", project) if source
             else source_at(project, source_url) if source_url else None)
    status_value = vocabulary_value(status, "status", "--status", project.ontology_dir) if status else None
    text = render(name, slug, operator, operator_iri, country, country_known, today or dt.date.today(),
                  accelerators=accelerators, site=site_iri, source_url=source_url,
                  cited="src:" + cited.rsplit("/", 1)[-1] if cited else None, status=status_value)
    out_dir.mkdir(parents=True, exist_ok=True)
    with target.open("x", encoding="utf-8") as handle:  # "x": never overwrite, even in a race
        handle.write(text)
    return target


def draft_system(name: str, *, operator: str, country: str, known: Callable[[str], bool], today: dt.date,
                 part: str | None = None, nodes: int | None = None, per_node: int | None = None,
                 site: str | None = None, source_url: str | None = None, tier: str | None = None,
                 as_of: str | None = None, quantity: int | None = None) -> str:
    """The Turtle `hpckg new system` writes, as text (the site's Contribute form): operator, part and site are
    slugs or names, looked up with `known` (does the graph define this IRI?) instead of data/ttl/; a part or
    site that is not defined is still written, for the review to name. With `tier`, every claim gets it
    instead of the placeholder; with `as_of` (YYYY, YYYY-MM or YYYY-MM-DD, the source's date), the status."""
    slug = _system_slug(name, None)
    country = country.strip().upper()
    if len(country) != 2 or not country.isalpha():
        raise InputError(f"the country {country!r} is not an ISO 3166-1 alpha-2 code such as US or GB")
    check_accelerators(part, nodes, per_node, quantity, ("nodes", "per node", "accelerators in all"))
    if source_url is not None and not source_url.startswith(("https://", "http://")):
        raise InputError(f"the source URL {source_url!r} is not a web address (https://...)")
    operator_iri = entity("org", _operator_slug(operator))
    accelerators = Accelerators(entity("part", slugify(part)), nodes, per_node, quantity) if part else None
    text = render(name, slug, operator, operator_iri if known(operator_iri) else None, country,
                  known(entity("country", country)), today, accelerators=accelerators,
                  site=entity("site", slugify(site)) if site else None, source_url=source_url)
    if tier is not None:
        text = text.replace("hpc:tier todo:tier", f"hpc:tier tier:{tier}")
    if as_of is not None:
        dated = date_literal(as_of, f"the as-of date {as_of!r} is not YYYY, YYYY-MM or YYYY-MM-DD")
        text = text.replace(f'hpc:asOf "{AS_OF_PLACEHOLDER}"', f"hpc:asOf {dated}")
    return text


def require_entity(data_dir: Path, rdf_class: str, name: str, flag: str, command: str,
                   project: Project | None = None) -> str:
    """The IRI of the entity `name` names in the data folder `data_dir`, else (given the project) in its built
    store, imported records included; or an error saying how to add it first."""
    classes = (rdf_class, hpc("Datacenter")) if rdf_class == hpc("Site") else (rdf_class,)
    found = next((iri for iri in (find_entity(data_dir, c, name) for c in classes) if iri), None)
    if found is None and project is not None:
        from hpckg.contribute.scaffold_claim import find_record

        found = find_record(project, set(classes), name, flag)
    if found is None:
        where = "data/ttl/ nor in the built store" if project is not None else "data/ttl/"
        raise InputError(f"{flag} {name!r} is neither in {where}; add it first with `hpckg new {command} ...` "
                         f"(or give the slug of one that is; `hpckg search` finds imported records)"
                         if project is not None else
                         f"{flag} {name!r} is not in {where}; add it first with `hpckg new {command} ...` "
                         f"(or give the slug of one that is)")
    return found


def _system_slug(name: str, slug: str | None) -> str:
    if slug is not None:
        if not is_slug(slug):
            raise InputError(f"--slug {slug!r} is not a slug: use lowercase ASCII letters, digits and single "
                             "hyphens, such as 'fugaku' or 'isambard-ai'")
        return slug
    try:
        return slugify(name)
    except SlugError:
        raise SlugError(f"cannot make a slug from the name {name!r}: it has no ASCII letters or digits; "
                        "give the slug (used in the IRI and the file name) with --slug, such as "
                        "--slug fugaku") from None


def _operator_slug(operator: str) -> str:
    try:
        return slugify(operator)
    except SlugError:
        raise SlugError(f"--operator {operator!r} is not in data/ttl/ and has no ASCII letters or digits to "
                        "make its slug from; give the slug of an organisation in data/ttl/ (such as "
                        "--operator riken), or add the organisation first") from None


def prefix_block(names=PREFIX_NAMES) -> str:
    """@prefix lines for the project prefixes `names` and todo:, aligned."""
    width = max(len(p) for p in names) + 2
    text = "".join(f"@prefix {p + ':':<{width}}<{PREFIXES[p]}> .\n" for p in names)
    return text + f"@prefix {'todo:':<{width}}<{TODO_NS}> .\n"


def claim_block(claim: str, about: str, prop: str, value: str, source: str, *, as_of: bool = False) -> str:
    """One claim with its tier and basis left as placeholders (they are the contributor's judgement); with
    as_of, an as-of placeholder explaining that it is the source's date, not today's."""
    lines = [f"claim:{claim} a hpc:Claim",
             f"    hpc:about {about} ; hpc:property {prop} ; hpc:value {value}",
             "    hpc:tier todo:tier ; hpc:basis todo:basis ; hpc:rank rank:preferred",
             f"    prov:hadPrimarySource {source}"]
    if as_of:
        lines.append(f'    hpc:asOf "{AS_OF_PLACEHOLDER}"')
    return "\n" + " ;\n".join(lines) + " .\n"


@dataclass(frozen=True)
class SourceDescription:
    """What a scaffold says of a new source; what is not given is written as a `todo:` placeholder (creator and
    publisher as IRIs: `orgn:...` names)."""

    title: str | None = None
    issued: str | None = None  # YYYY, YYYY-MM or YYYY-MM-DD
    kind: str | None = None  # a sourcekind: name (vocabulary_value)
    creator: str | None = None
    publisher: str | None = None


def source_lines(ref: str, url: str | None, described: SourceDescription, *, flag: str = "--issued",
                 placeholders: tuple[str, ...] = ()) -> list[str]:
    """The Turtle statements of a new source `ref` (a src: name), as lines ending in ' ;' but the last one's
    '.' for the caller to add: title, address, creator and publisher when given (else a placeholder when named
    in `placeholders`), date and kind."""
    issued = (date_literal(described.issued, f"{flag} {described.issued!r} is not a date such as 2024-06-10, "
                                             "2024-06 or 2024")
              if described.issued is not None else '"TODO: the date the document was published, such as 2024-06-10"')
    title = _escape(described.title) if described.title else "TODO: the document's title"
    lines = [f"{ref} a hpc:Source", f'    dcterms:title "{title}"@en',
             f"    schema:url {f'<{url}>' if url else 'todo:source-url'}"]
    for name, value in (("publisher", described.publisher), ("creator", described.creator)):
        if value or name in placeholders:
            lines.append(f"    dcterms:{name} {value or f'todo:{name}'}")
    lines.append(f"    dcterms:issued {issued}")
    lines.append(f"    hpc:sourceKind {described.kind or 'todo:source-kind'}")
    return lines


def render(name: str, slug: str, operator: str, operator_iri: str | None, country: str,
           country_known: bool, today: dt.date, *, accelerators: Accelerators | None = None,
           site: str | None = None, source_url: str | None = None, cited: str | None = None,
           status: str | None = None) -> str:
    """The system file's Turtle. `cited`: an existing source's prefixed name, cited instead of a new source;
    `status`: the status concept's prefixed name instead of the placeholder."""
    prefixes = prefix_block()
    if operator_iri:
        org = "orgn:" + operator_iri.rsplit("/", 1)[-1]
        org_block = ""
    else:
        org_slug = _operator_slug(operator)
        org = f"orgn:{org_slug}"
        org_block = f"""
# --- Operator: not in data/ttl/ yet, so it is defined here ---------------------------------------------

{org} a hpc:Organisation ;
    rdfs:label "{_escape(operator)}"@en ;
    hpc:slug "{org_slug}" .

claim:{org_slug}-type a hpc:Claim ;
    hpc:about {org} ; hpc:property hpc:organisationType ; hpc:value todo:org-type ;
    hpc:tier todo:tier ; hpc:basis todo:basis ;
    prov:hadPrimarySource src:{slug}-source .
"""
    country_note = "" if country_known else (
        f"# country:{country} is not in data/ttl/countries.ttl yet: add it there in the same pull request.\n")
    date = today.isoformat()
    source = cited or f"src:{slug}-source"
    claims = [("operator", "hpc:operator", org), ("country", "hpc:country", f"country:{country}"),
              ("status", "hpc:status", status or "todo:status"), ("kind", "hpc:systemKind", "todo:kind")]
    if site:
        claims.append(("site", "hpc:site", f"site:{site.rsplit('/', 1)[-1]}"))
    # The status holds "as of" the date a source last confirmed it: that date is the source's, not today's.
    claim_text = "".join(claim_block(f"{slug}-{local}", f"sys:{slug}", prop, value, source,
                                     as_of=local == "status") for local, prop, value in claims)
    if accelerators:
        claim_text += _accelerator_block(name, slug, accelerators, source)
    source_block = ("\n# --- Sources: one per cited document " + "-" * 66 + "\n\n"
                    + " ;\n".join(source_lines(f"src:{slug}-source", source_url, SourceDescription(),
                                               placeholders=("publisher", "creator"))) + " .\n"
                    if cited is None else "")
    return f"""# {name}: written by `hpckg new system`. Replace every TODO (text and todo: IRIs); `hpckg check`
# fails until none is left. Tiers: verified needs independent support (a second source that is not the
# operator's own output); machine-generated analysis and aggregator-only figures stay lead. See
# CONTRIBUTING.md.
{prefixes}
sys:{slug} a hpc:System ;
    rdfs:label "{_escape(name)}"@en ;
    hpc:slug "{slug}" ;
    hpc:read "TODO: what the machine is, who runs it, how sure we are (every figure also a claim)"@en .
{org_block}
# --- System facts: one claim per fact (tier:verified, tier:reported or tier:lead) ------------------------
{country_note}{claim_text}{source_block}
# --- Change history -----------------------------------------------------------------------------------

chg:{slug}-{date} a hpc:ChangeEntry ;
    hpc:changedEntity sys:{slug} ;
    dcterms:date "{date}"^^xsd:date ;
    rdfs:comment "{_escape(name)} added"@en .
"""


def _accelerator_block(name: str, slug: str, accelerators: Accelerators, source: str) -> str:
    component = f"cmp:{slug}-accelerator"
    part = "part:" + accelerators.part.rsplit("/", 1)[-1]
    layout = (f": {accelerators.nodes} nodes x {accelerators.per_node} per node" if accelerators.nodes
              and accelerators.per_node else "")
    derived = ("" if accelerators.quantity is not None and not layout
               else " (the build derives the quantity from nodes x per node)")
    text = f"""
# --- Accelerators{layout}{derived} ---

{component} a hpc:Component ;
    hpc:componentOf sys:{slug} ; hpc:role role:accelerator ;
    rdfs:label "{_escape(name)} accelerators"@en .
"""
    text += claim_block(f"{slug}-accelerator-part", component, "hpc:partModel", part, source)
    if accelerators.nodes is not None:
        text += claim_block(f"{slug}-accelerator-nodes", component, "hpc:nodeCount", str(accelerators.nodes), source)
    if accelerators.per_node is not None:
        text += claim_block(f"{slug}-accelerator-per-node", component, "hpc:perNode", str(accelerators.per_node),
                            source)
    if accelerators.quantity is not None:
        text += claim_block(f"{slug}-accelerator-quantity", component, "hpc:quantity", str(accelerators.quantity),
                            source)
    return text


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
