"""`hpckg new part|site|organisation|country|source`: write what a new system refers to, where CONTRIBUTING.md
says it goes. Shared entities (parts, organisations, countries, sources) are appended to their shared file
(data/ttl/parts.ttl...), a site gets a file of its own; facts are claims whose tier and basis stay `todo:`
placeholders until the contributor chooses them, and `hpckg check` says what may replace each one. Values
given on the command line (a part's category, an organisation's type, a source's kind) are checked against
the ontology's vocabularies."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hpckg.claims import shorten
from hpckg.contribute.scaffold import (
    SourceDescription,
    _escape,
    claim_block,
    find_entity,
    prefix_block,
    require_entity,
    source_lines,
)
from hpckg.datafiles.placeholders import TODO_NS
from hpckg.errors import InputError
from hpckg.names import SlugError, is_slug, slugify
from hpckg.namespaces import PREFIXES, hpc
from hpckg.project import Project
from hpckg.vocabulary import suggestion_text, vocabulary

ENTITY_KINDS = ("part", "site", "organisation", "country", "source")


@dataclass
class Written:
    path: Path
    iri: str
    appended: bool  # True: added to a shared file; False: a new file
    also: tuple[Written, ...] = ()  # what was written with it (a source's new creator)


def vocabulary_value(value: str | None, prop: str, flag: str, ontology_dir: Path) -> str | None:
    """The concept `value` names in the scheme of `prop` in the ontology of `ontology_dir` (by notation, such
    as 'accelerator'), or None."""
    if value is None:
        return None
    vocab = vocabulary(ontology_dir)
    scheme = vocab.scheme_of_value(hpc(prop))
    assert scheme is not None, f"hpc:{prop} has no hpc:valueScheme in the ontology"
    for concept in scheme.concepts:
        if value in (concept.notation, concept.iri, shorten(concept.iri)):
            return shorten(concept.iri)
    allowed = "use one of " + ", ".join(c.notation for c in scheme.concepts)
    # a value of another scheme ('imported' is a basis, not a tier): said, rather than the nearest spelling
    elsewhere = [(other, concept) for other in vocab.schemes.values() if other is not scheme
                 for concept in other.concepts if value in (concept.notation, concept.iri, shorten(concept.iri))]
    if elsewhere:
        other, concept = elsewhere[0]
        raise InputError(f"{flag} {value!r} is one of the {other.label.lower()} ({shorten(concept.iri)}), not of "
                         f"the {scheme.label.lower()}: {allowed}")
    hint = suggestion_text(value, [c.notation for c in scheme.concepts])
    raise InputError(f"{flag} {value!r} is not one of the {scheme.label.lower()}: {hint}{allowed}")


def _slug(name: str, slug: str | None, flag: str = "--slug") -> str:
    if slug is not None:
        if not is_slug(slug):
            raise InputError(f"{flag} {slug!r} is not a slug: lowercase ASCII letters, digits and single hyphens")
        return slug
    try:
        return slugify(name)
    except SlugError:
        raise SlugError(f"cannot make a slug from {name!r}; give one with --slug") from None


def _source(data_dir: Path, source: str | None) -> str:
    if source is None:
        return "todo:source"
    return "src:" + require_entity(data_dir, hpc("Source"), source, "--source", "source").rsplit("/", 1)[-1]


def _append(path: Path, block: str, iri: str) -> Written:
    """Append `block` to a shared data file, declaring any project prefix it uses that the file lacks."""
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    declared = set(re.findall(r"@prefix\s+([\w-]*):", existing))
    used = {name for name in re.findall(r"(?<![\w<\"/#-])([a-z]\w*):[\w-]", block)}
    missing = sorted(name for name in used - declared if name in PREFIXES or name == "todo")
    header = "".join(f"@prefix {name}: <{TODO_NS if name == 'todo' else PREFIXES[name]}> .\n" for name in missing)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(("\n" if existing and not existing.endswith("\n") else "") + header + block)
    return Written(path, iri, appended=True)


def _refuse_existing(data_dir: Path, rdf_class: str, slug: str, what: str) -> None:
    if find_entity(data_dir, rdf_class, slug):
        raise InputError(f"{what} {slug!r} is already in data/ttl/; write claims about it instead of a new one")


def new_part(project: Project, name: str, *, slug: str | None = None, maker: str | None = None,
             category: str | None = None, source: str | None = None) -> Written:
    """Append a part model with its maker and category claims to data/ttl/parts.ttl."""
    slug = _slug(name, slug)
    _refuse_existing(project.data_dir, hpc("PartModel"), slug, "part")
    maker_value = ("orgn:" + require_entity(project.data_dir, hpc("Organisation"), maker, "--maker", "organisation",
                                            project).rsplit("/", 1)[-1] if maker else "todo:maker")
    category_value = (vocabulary_value(category, "partCategory", "--category", project.ontology_dir)
                      or "todo:part-category")
    cited = _source(project.data_dir, source)
    block = f"""
# --- {name}: written by `hpckg new part` ---

part:{slug} a hpc:PartModel ;
    rdfs:label "{_escape(name)}"@en ;
    hpc:slug "{slug}" .
""" + claim_block(f"{slug}-maker", f"part:{slug}", "hpc:maker", maker_value, cited) \
        + claim_block(f"{slug}-category", f"part:{slug}", "hpc:partCategory", category_value, cited)
    return _append(project.data_dir / "parts.ttl", block, f"{PREFIXES['part']}{slug}")


def new_organisation(project: Project, name: str, *, slug: str | None = None, org_type: str | None = None,
                     source: str | None = None) -> Written:
    """Append an organisation with its type claim to data/ttl/organisations.ttl."""
    slug = _slug(name, slug)
    _refuse_existing(project.data_dir, hpc("Organisation"), slug, "organisation")
    value = vocabulary_value(org_type, "organisationType", "--type", project.ontology_dir) or "todo:org-type"
    block = f"""
# --- {name}: written by `hpckg new organisation` ---

orgn:{slug} a hpc:Organisation ;
    rdfs:label "{_escape(name)}"@en ;
    hpc:slug "{slug}" .
""" + claim_block(f"{slug}-type", f"orgn:{slug}", "hpc:organisationType", value, _source(project.data_dir, source))
    return _append(project.data_dir / "organisations.ttl", block, f"{PREFIXES['orgn']}{slug}")


def new_country(project: Project, code: str, *, name: str | None = None) -> Written:
    """Append a country (ISO 3166-1 alpha-2 code) to data/ttl/countries.ttl."""
    code = code.strip().upper()
    if len(code) != 2 or not code.isalpha():
        raise InputError(f"{code!r} is not an ISO 3166-1 alpha-2 code such as GB or US")
    _refuse_existing(project.data_dir, hpc("Country"), code, "country")
    label = _escape(name) if name else "TODO: the country's name in English"
    block = f'country:{code} a hpc:Country ; rdfs:label "{label}"@en ; skos:notation "{code}" ; hpc:slug "{code}" .\n'
    return _append(project.data_dir / "countries.ttl", block, f"{PREFIXES['country']}{code}")


def new_source(project: Project, slug: str, *, url: str | None = None, title: str | None = None,
               kind: str | None = None, issued: str | None = None, creator: str | None = None,
               publisher: str | None = None, org_type: str | None = None) -> Written:
    """Append a source to data/ttl/sources.ttl; a creator or publisher no record has yet is appended to
    data/ttl/organisations.ttl too (of type `org_type`), citing the source (Written.also)."""
    _slug(slug, slug, flag="SLUG")
    _refuse_existing(project.data_dir, hpc("Source"), slug, "source")
    if url is not None and not url.startswith(("https://", "http://")):
        raise InputError(f"--url {url!r} is not a web address (https://...)")
    kind_value = vocabulary_value(kind, "sourceKind", "--kind", project.ontology_dir)
    new_organisations: dict[str, str] = {}  # name -> slug: the creators and publishers no record has yet

    def organisation(name: str | None, flag: str) -> str | None:
        """An organisation found by name (curated or imported); one not found anywhere is written too, citing
        this source, so that a source and the organisation behind it are added in one step (an organisation's
        claims need a source, and a source's creator an organisation)."""
        if not name:
            return None
        try:
            return "orgn:" + require_entity(project.data_dir, hpc("Organisation"), name, flag, "organisation",
                                            project).rsplit("/", 1)[-1]
        except InputError:
            new_slug = new_organisations.get(name) or _slug(name, None)
            _refuse_existing(project.data_dir, hpc("Organisation"), new_slug, "organisation")
            new_organisations[name] = new_slug
            return f"orgn:{new_slug}"

    lines = source_lines(f"src:{slug}", url, SourceDescription(title, issued, kind_value,
                                                               organisation(creator, "--creator"),
                                                               organisation(publisher, "--publisher")))
    block = "\n# --- written by `hpckg new source` ---\n\n" + " ;\n".join([*lines, f'    hpc:slug "{slug}"']) + " .\n"
    written = _append(project.data_dir / "sources.ttl", block, f"{PREFIXES['src']}{slug}")
    also = tuple(new_organisation(project, name, slug=new_slug, org_type=org_type, source=slug)
                 for name, new_slug in new_organisations.items())
    return Written(written.path, written.iri, written.appended, also)


def new_site(project: Project, name: str, *, operator: str, country: str, slug: str | None = None,
             source: str | None = None, out_dir: Path | None = None) -> Written:
    """Write data/ttl/sites/<slug>.ttl: the site with its operator and country claims."""
    slug = _slug(name, slug)
    out_dir = Path(out_dir) if out_dir is not None else project.data_dir / "sites"
    target = out_dir / f"{slug}.ttl"
    if target.exists():
        raise InputError(f"{target} already exists; edit it, or give another --slug")
    org = "orgn:" + require_entity(project.data_dir, hpc("Organisation"), operator, "--operator", "organisation",
                                   project).rsplit("/", 1)[-1]
    code = country.strip().upper()
    if find_entity(project.data_dir, hpc("Country"), code) is None:
        raise InputError(f"--country {code!r} is not in data/ttl/countries.ttl; add it first with "
                         f"`hpckg new country {code} --name ...`")
    cited = _source(project.data_dir, source)
    text = f"""# {name}: written by `hpckg new site`. Replace every TODO; `hpckg check` says what may replace each.
{prefix_block(("hpc", "rdfs", "skos", "xsd", "prov", "site", "orgn", "src", "claim", "country", "tier", "basis",
               "rank"))}
site:{slug} a hpc:Site ;
    rdfs:label "{_escape(name)}"@en ;
    hpc:slug "{slug}" .
""" + claim_block(f"{slug}-operator", f"site:{slug}", "hpc:operator", org, cited) \
        + claim_block(f"{slug}-country", f"site:{slug}", "hpc:country", f"country:{code}", cited)
    out_dir.mkdir(parents=True, exist_ok=True)
    with target.open("x", encoding="utf-8") as handle:
        handle.write(text)
    return Written(target, f"{PREFIXES['site']}{slug}", appended=False)
