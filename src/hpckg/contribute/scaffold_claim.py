"""`hpckg new claim ENTITY --property P --value V`: enrich any record, imported ones included.

Most contributions are about machines the imports already hold (an operator's name, a GPU count from a press
release, a status). The entity and an entity value are found by the name a contribution refers to them by
(`sys:top500-180357`), or by their exact name (label, alias or name claim, any case) in data/ttl/ and in the
built store, imports included (`hpckg search` finds them by other names, typos and words); the property and
a vocabulary value are checked against the ontology; a literal is written with the datatype the ontology gives
the property. The claim goes to data/ttl/claims/<entity>.ttl (appended when the
file exists) with its source (an existing one, or a new one from --source-url) and a change entry; what hpckg
cannot know (tier, basis, the source's title) stays a `todo:` placeholder that `hpckg check` explains.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hpckg.contribute.scaffold import (
    SourceDescription,
    _escape,
    curated_index,
    date_literal,
    find_entity,
    prefix_block,
    source_lines,
)
from hpckg.contribute.scaffold_entities import Written, _append, vocabulary_value
from hpckg.errors import InputError
from hpckg.namespaces import PREFIXES, hpc, shorten
from hpckg.project import Project
from hpckg.store import Store
from hpckg.terms import XSD
from hpckg.vocabulary import suggestion_text, vocabulary

# The classes an entity (or an entity value whose property gives no class) is looked up in by name.
NAMED_CLASSES = (hpc("System"), hpc("Site"), hpc("Datacenter"), hpc("Organisation"), hpc("PartModel"),
                 hpc("Country"))
LITERALS = {  # xsd datatype -> (pattern of its lexical form, what to write instead)
    "integer": (r"[+-]?\d+", "a whole number, such as 9408"),
    "nonNegativeInteger": (r"\+?\d+", "a whole number, such as 9408"),
    "positiveInteger": (r"\+?0*[1-9]\d*", "a whole number above zero, such as 9408"),
    "decimal": (r"[+-]?(\d+(\.\d*)?|\.\d+)", "a number, such as 1.102"),
    "double": (r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", "a number, such as 1.102"),
    "date": (r"\d{4}-\d{2}-\d{2}", "a date, such as 2025-06-10"),
    "gYearMonth": (r"\d{4}-\d{2}", "a month, such as 2025-06"),
    "gYear": (r"\d{4}", "a year, such as 2025"),
    "boolean": (r"true|false", "true or false"),
}
UNDESCRIBED = SourceDescription()  # a new source whose title, date, kind, creator and publisher are left to fill in


@dataclass(frozen=True)
class Found:
    iri: str
    label: str
    where: str  # "data/ttl" or "the built store"


# How a scaffold finds the record a name or IRI gives: (text, classes or None for any named class, the flag
# or field it came from) -> Found, or InputError. `hpckg new claim` reads data/ttl/ and the built store
# (resolve); the site's Contribute form reads the store it serves (StoreResolver).
Resolver = Callable[[str, "set[str] | None", str], "Found"]
# The records a name the graph lacks may mean, for "did you mean": (text, classes) -> "orgn:x (Label) or ...",
# or "" (the CLI gives the website's search: hpckg.serve.precompute.close_names)
Suggester = Callable[[str, "set[str]"], str]


def new_claim(project: Project, about: str, *, prop: str, value: str, source: str | None = None,
              source_url: str | None = None, as_of: str | None = None, tier: str | None = None,
              basis: str | None = None, today: dt.date | None = None, title: str | None = None,
              kind: str | None = None, issued: str | None = None, creator: str | None = None,
              publisher: str | None = None, change: str | None = None, suggest: Suggester | None = None) -> Written:
    """Write one claim about the record `about` names (see the module docstring); return where it went. A new
    source (source_url) is described by title, kind (a source kind's notation), issued, creator and publisher
    (organisations' names, imported ones included) where given; `change` says what the change entry adds;
    `suggest` what a name no record has may mean."""
    if source is not None and source_url is not None:
        raise InputError("give the source either as --source (one already in data/ttl/sources.ttl or the built store) "
                         "or as --source-url (a new one), not both")
    if source_url is None and any(v is not None for v in (title, kind, issued, creator, publisher)):
        raise InputError("--title, --kind, --issued, --creator and --publisher describe the new source of "
                         "--source-url; an existing --source is described in data/ttl/sources.ttl already")

    def find(text: str, classes: set[str] | None, flag: str) -> Found:
        return resolve(project, text, classes, flag, suggest)

    described = describe_source(project.ontology_dir, find, title=title, kind=kind, issued=issued, creator=creator,
                                publisher=publisher)

    entity = find(about, None, "the entity")
    target = project.data_dir / "claims" / f"{_local(entity.iri)}.ttl"
    existing = target.read_text(encoding="utf-8") if target.exists() else ""
    source_ref = shorten(find(source, {hpc("Source")}, "--source").iri) if source is not None else None
    block, claim_iri = claim_block(project.ontology_dir, entity, find, prop=prop, value=value, source_ref=source_ref,
                                   source_url=source_url, as_of=as_of, tier=tier, basis=basis,
                                   today=today or dt.date.today(), existing=existing, described=described,
                                   change=change, taken=lambda iri: _stated_in_project(project, iri))
    if existing:
        return _append(target, block, claim_iri)  # declaring todo: when this claim needs it and the file lacks it
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("x", encoding="utf-8") as handle:
        handle.write(claim_file_header(entity) + _prefixes_for(block) + block)
    return Written(target, claim_iri, appended=False)


def describe_source(ontology_dir: Path, find: Resolver, *, title: str | None = None, kind: str | None = None,
                    issued: str | None = None, creator: str | None = None,
                    publisher: str | None = None) -> SourceDescription:
    """A new source as the contributor describes it: the kind by its notation (news-article), the creator and
    publisher by an organisation's name, found with `find` (imported organisations included)."""
    def organisation(name: str | None, flag: str) -> str | None:
        return shorten(find(name, {hpc("Organisation")}, flag).iri) if name and name.strip() else None

    return SourceDescription(title=title.strip() if title and title.strip() else None,
                             issued=issued.strip() if issued and issued.strip() else None,
                             kind=vocabulary_value(kind.strip(), "sourceKind", "--kind", ontology_dir)
                             if kind and kind.strip() else None,
                             creator=organisation(creator, "--creator"),
                             publisher=organisation(publisher, "--publisher"))


def _prefixes_for(block: str) -> str:
    """The prefix block, without the todo: prefix when `block` leaves nothing to fill in (a file declares only
    the prefixes it uses: hpckg check warns of a leftover one)."""
    lines = prefix_block().splitlines(keepends=True)
    return "".join(line for line in lines if "todo:" in block or not line.startswith("@prefix todo:"))


def claim_file_header(entity: Found) -> str:
    return (f"# Claims about {entity.label} ({shorten(entity.iri)}), written by `hpckg new claim`. Replace every "
            "TODO (text and todo:\n# IRIs); `hpckg check` fails until none is left. See CONTRIBUTING.md.\n")


def claim_block(ontology_dir: Path, entity: Found, find: Resolver, *, prop: str, value: str,
                source_ref: str | None, source_url: str | None, as_of: str | None, tier: str | None,
                basis: str | None, today: dt.date, existing: str = "",
                described: SourceDescription = UNDESCRIBED, change: str | None = None,
                taken: Callable[[str], bool] | None = None) -> tuple[str, str]:
    """The Turtle of one claim about `entity` (with a new source at `source_url`, as `described`, or citing
    `source_ref`, else a placeholder) and its change entry (`change` says what it adds) unless `existing` (the
    file's text so far) has today's; and the claim's IRI. An entity value is found with `find`; the claim's and
    source's names are ones neither `existing` nor (`taken`) the graph uses."""
    vocab = vocabulary(ontology_dir)
    prop_iri = _property(prop, vocab)
    value_text = _value(ontology_dir, find, vocab, prop_iri, value)
    local = _local(entity.iri)
    prop_local = prop_iri.rsplit("#", 1)[-1]
    claim = _fresh(f"{local}-{_kebab(prop_local)}", existing, taken)
    if source_url is not None:
        if not source_url.startswith(("https://", "http://")):
            raise InputError(f"--source-url {source_url!r} is not a web address (https://...)")
        source_ref = f"src:{_fresh(f'{claim}-source', existing, taken, 'src')}"
    source_ref = source_ref or "todo:source"
    lines = [f"claim:{claim} a hpc:Claim",
             f"    hpc:about {shorten(entity.iri)} ; hpc:property hpc:{prop_local} ; hpc:value {value_text}",
             f"    hpc:tier {vocabulary_value(tier, 'tier', '--tier', ontology_dir) or 'todo:tier'} ; "
             f"hpc:basis {vocabulary_value(basis, 'basis', '--basis', ontology_dir) or 'todo:basis'} ; "
             "hpc:rank rank:normal",
             f"    prov:hadPrimarySource {source_ref}"]
    if as_of is not None:
        lines.append("    hpc:asOf " + date_literal(as_of, f"--as-of {as_of!r} is not YYYY, YYYY-MM or YYYY-MM-DD "
                                                          "(the date the source gives)"))
    block = f"\n# {entity.label} ({shorten(entity.iri)}, from {entity.where}): {prop_local}\n"
    block += " ;\n".join(lines) + " .\n"
    if source_url is not None:
        block += "\n" + " ;\n".join(source_lines(source_ref, source_url, described, flag="the source's date",
                                                 placeholders=("publisher", "creator"))) + " .\n"
    entry = f"chg:{local}-{today.isoformat()}"
    if f"{entry} a hpc:ChangeEntry" not in existing:
        said = _escape(change.strip()) if change and change.strip() else "TODO: what this change adds, in a few words"
        block += f"""
{entry} a hpc:ChangeEntry ;
    hpc:changedEntity {shorten(entity.iri)} ;
    dcterms:date "{today.isoformat()}"^^xsd:date ;
    rdfs:comment "{_escape(entity.label)}: {said}"@en .
"""
    return block, PREFIXES["claim"] + claim


def draft_claim(ontology_dir: Path, find: Resolver, about: str, *, prop: str, value: str,
                source_url: str | None = None, as_of: str | None = None, tier: str | None = None,
                basis: str | None = None, today: dt.date, described: SourceDescription = UNDESCRIBED,
                change: str | None = None) -> str:
    """The Turtle `hpckg new claim` writes into a new claims file, as text (the site's Contribute form): the
    record and an entity value are found with `find` (StoreResolver: the store the site serves)."""
    entity = find(about, None, "the record")
    block, _ = claim_block(ontology_dir, entity, find, prop=prop, value=value, source_ref=None,
                           source_url=source_url, as_of=as_of, tier=tier, basis=basis, today=today,
                           described=described, change=change, taken=getattr(find, "states", None))
    return claim_file_header(entity) + _prefixes_for(block) + block


class StoreResolver:
    """Finds records in one store (the generation the site serves; a SPARQL server's too): by IRI or prefixed
    name (sys:top500-180357), or by exact name (label, alias or name claim, any case) among `classes`."""

    def __init__(self, store, suggest: Suggester | None = None):
        self.store = store
        self.suggest = suggest  # what a name no record has may mean

    def states(self, iri: str) -> bool:
        """Whether the store says anything about `iri` (a name a scaffold would mint)."""
        return bool(self.store.query(f"ASK {{ <{iri}> ?p ?o }}"))  # `iri` is a prefix and a slug: no '>' in it

    def __call__(self, text: str, classes: set[str] | None, flag: str) -> Found:
        from hpckg.contribute.namesakes import namesakes_in

        text = text.strip()
        if not text:
            raise InputError(f"give {flag}: a name or a sys:/site:/orgn:/part: name")
        iri = _as_iri(text)
        if iri is not None:
            # `iri` matched _as_iri's pattern: no character that could end the IRI
            query = f"SELECT ?label WHERE {{ <{iri}> ?p ?o OPTIONAL {{ <{iri}> rdfs:label ?label }} }} LIMIT 1"
            rows = list(self.store.query(query))
            if not rows:
                raise InputError(f"{flag} {text!r} is not in this graph; the search box finds a record's name")
            label = rows[0]["label"]
            return Found(iri, label.value if label is not None else shorten(iri), "this graph")
        named = namesakes_in(self.store, text, tuple(sorted(c.rsplit("#", 1)[-1] for c in classes or NAMED_CLASSES)))
        found = _the_one(named, text, flag, "this graph")
        if found is not None:
            return found
        close = self.suggest(text, set(classes or NAMED_CLASSES)) if self.suggest is not None else ""
        if close:
            raise InputError(f"{flag} {text!r} is not the name of a record in this graph; did you mean {close}?")
        raise InputError(f"{flag} {text!r} is not the name of a record in this graph; the search box finds records "
                         "by other names and with typos")


def resolve(project: Project, text: str, classes: set[str] | None, flag: str,
            suggest: Suggester | None = None) -> Found:
    """The record `text` names: an IRI or prefixed name (sys:top500-180357), or a name or slug found in
    data/ttl/ or in the built store (one of `classes`, when given); an error listing the candidates when the
    name is ambiguous, or those `suggest` finds when it is unknown."""
    text = text.strip()
    iri = _as_iri(text)
    if iri is not None:
        label = _label_in_store(project, iri)
        for rdf_class in classes or NAMED_CLASSES:
            if find_entity(project.data_dir, rdf_class, iri.rsplit("/", 1)[-1]) == iri:
                return Found(iri, label or text, "data/ttl")
        if label is not None:
            return Found(iri, label, "the built store")
        raise InputError(f"{flag} {text!r} is neither in data/ttl/ nor in the built store; `hpckg search` finds "
                         "a record's name")
    for rdf_class in classes or NAMED_CLASSES:
        found = find_entity(project.data_dir, rdf_class, text)
        if found:
            return Found(found, text, "data/ttl")
    found = _the_one(_named(project, text, set(classes or NAMED_CLASSES)), text, flag, "the built store")
    if found is not None:
        return found
    close = suggest(text, set(classes or NAMED_CLASSES)) if suggest is not None else ""
    if close:
        raise InputError(f"{flag} {text!r} is not a name in data/ttl/ or the built store; did you mean {close}? "
                         "Give it by that name (or, if none is it, `hpckg search` for others)")
    raise InputError(f"{flag} {text!r} is not a name in data/ttl/ or the built store; `hpckg search {text}` finds "
                     "records by other names, typos and words (or `hpckg build` first)")


def _the_one(named: list, text: str, flag: str, where: str) -> Found | None:
    """The one record of `named` (namesakes), None when there is none; an error listing them when several
    records have the name."""
    if len(named) > 1:
        listed = "; ".join(f"{n.name} ({n.label}, {n.dataset})" for n in named)
        raise InputError(f"{flag} {text!r} names {len(named)} records: {listed}; give the one you mean by its "
                         "sys:/site:/orgn:/part: name")
    return Found(named[0].iri, named[0].label, where) if named else None


def _as_iri(text: str) -> str | None:
    if text.startswith("https://w3id.org/hpckg/id/"):
        return text if re.fullmatch(r"https://w3id\.org/hpckg/id/[\w.-]+/[\w.-]+", text) else None
    prefix, colon, local = text.partition(":")
    if colon and prefix in PREFIXES and re.fullmatch(r"[\w.-]+", local) and "/hpckg/id/" in PREFIXES[prefix]:
        return PREFIXES[prefix] + local
    return None


def _open_store(project: Project) -> Store | None:
    store_path = project.store
    if not isinstance(store_path, Path) or not store_path.exists():
        return None
    try:
        return Store(store_path, read_only=True)
    except Exception:  # noqa: BLE001 - no usable store: data/ttl alone is searched
        return None


def _stated_in_project(project: Project, iri: str) -> bool:
    """Whether data/ttl/ or the built store already says anything about `iri` (a name a scaffold would mint)."""
    index = curated_index(project.data_dir)
    return any(iri in subjects for subjects in index.typed.values()) or _label_in_store(project, iri) is not None


def _label_in_store(project: Project, iri: str) -> str | None:
    """The record's label in the built store (its short name when it has none), or None when the store does
    not describe it."""
    store = _open_store(project)
    if store is None:
        return None
    try:  # `iri` matched _as_iri's pattern: no character that could end the IRI
        rows = list(store.query(f"SELECT ?label WHERE {{ <{iri}> ?p ?o OPTIONAL {{ <{iri}> rdfs:label ?label }} }} "
                                "LIMIT 1"))
    finally:
        store.close()
    if not rows:
        return None
    label = rows[0]["label"]
    return label.value if label is not None else shorten(iri)


def _named(project: Project, name: str, classes: set[str]) -> list:
    """The built store's records of `classes` named exactly `name` (label, alias or name claim, any case)."""
    from hpckg.contribute.namesakes import namesakes

    if not isinstance(project.store, Path):
        return []
    return namesakes(project.store, name, tuple(sorted(c.rsplit("#", 1)[-1] for c in classes)))


def source_at(project: Project, url: str | None) -> str | None:
    """The source data/ttl/ or the built store already has at the web address `url`, else None: a second
    source for the same document would split its checks and its citations."""
    if not url:
        return None
    from hpckg.contribute.scaffold import curated_index
    from hpckg.terms import SCHEMA_URL

    if url in (urls := curated_index(project.data_dir).urls):
        return urls[url]
    store = _open_store(project)
    if store is None:
        return None
    try:  # the address enters the query as an IRI term serialised by pyoxigraph, never as pasted text
        rows = list(store.query(f"SELECT ?source WHERE {{ ?source <{SCHEMA_URL}> {ox_iri(url)} }} LIMIT 1"))
    except Exception:  # noqa: BLE001 - not an IRI the store can hold: no source has it
        return None
    finally:
        store.close()
    return rows[0]["source"].value if rows else None


def ox_iri(url: str) -> str:
    import pyoxigraph as ox

    return str(ox.NamedNode(url))


def find_record(project: Project, classes: set[str], name: str, flag: str) -> str | None:
    """The record of one of `classes` the built store has under exactly this name (or IRI / prefixed name), None
    when it has none; an error listing them when several records have the name."""
    iri = _as_iri(name.strip())
    if iri is not None:
        return iri if _label_in_store(project, iri) is not None else None
    named = _named(project, name, classes)
    if len(named) > 1:
        listed = "; ".join(f"{n.name} ({n.label}, {n.dataset})" for n in named)
        raise InputError(f"{flag} {name!r} names {len(named)} records in the built store: {listed}; give the one "
                         "you mean as its sys:/site:/orgn:/part: name")
    return named[0].iri if named else None


def _property(prop: str, vocab) -> str:
    local = prop.removeprefix("hpc:")
    iri = hpc(local)
    claim_properties = {p.iri.rsplit("#", 1)[-1] for p in vocab.properties.values() if p.is_claim_property}
    if local not in claim_properties:
        raise InputError(f"--property {prop!r} is not a claim property of the ontology: "
                         f"{suggestion_text(local, claim_properties)}`hpckg vocab` lists them")
    return iri


def _value(ontology_dir: Path, find: Resolver, vocab, prop_iri: str, value: str) -> str:
    prop = vocab.properties[prop_iri]
    local = prop_iri.rsplit("#", 1)[-1]
    if prop.scheme:
        return vocabulary_value(value, local, "--value", ontology_dir)
    if prop.range and not prop.range.startswith(XSD):
        classes = {prop.range} | ({hpc("Datacenter")} if prop.range == hpc("Site") else set())
        return shorten(find(value, classes, "--value").iri)
    if prop.range:
        datatype = prop.range.removeprefix(XSD)
        pattern, wanted = LITERALS.get(datatype, (None, None))
        if pattern is not None and not re.fullmatch(pattern, value.strip().replace(",", "")):
            raise InputError(f"--value {value!r}: hpc:{local} is {wanted}")
        if datatype in ("integer", "nonNegativeInteger", "positiveInteger", "decimal", "double", "boolean"):
            return value.strip().replace(",", "") if datatype != "double" else f'"{value.strip()}"^^xsd:double'
        return f'"{_escape(value)}"' if datatype == "string" else f'"{_escape(value)}"^^xsd:{datatype}'
    return f'"{_escape(value)}"'


def _local(iri: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", iri.rsplit("/", 1)[-1].lower()).strip("-") or "entity"


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def _fresh(name: str, existing: str, taken: Callable[[str], bool] | None = None, namespace: str = "claim") -> str:
    """`name`, or name-2, name-3… when the file already uses it or (`taken`, asked of the full IRI in
    `namespace`) the graph already states it: an imported record's claim:kalos-purpose is not this one's."""
    candidate, n = name, 1
    while (re.search(rf"[:/]{re.escape(candidate)}\b(?!-)", existing)
           or (taken is not None and taken(PREFIXES[namespace] + candidate))):
        n += 1
        candidate = f"{name}-{n}"
    return candidate
