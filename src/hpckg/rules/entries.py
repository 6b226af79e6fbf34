"""Rule 14 streamed (queries/rules/14-list-entries.rq): one hpc:ListEntry per system and list edition, from
the claims naming an edition about the system or its component of an entry property's role, one system at a
time. Which claim property feeds which entry property is the ontology's (hpc:entryValueOf,
hpc:entryComponentRole), read from the store as the rule reads it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pyoxigraph as ox

from hpckg.namespaces import ID, hpc
from hpckg.rules.reading import COMPONENT_OF, ROLE, SYSTEM, TYPE, claims_of, distinct, live, once
from hpckg.store import Store
from hpckg.terms import PROV_WAS_DERIVED_FROM

LIST_ENTRY = ox.NamedNode(hpc("ListEntry"))
ENTRY_OF = ox.NamedNode(hpc("entryOf"))
ENTRY_IN = ox.NamedNode(hpc("entryIn"))
ENTRY_VALUE_OF = ox.NamedNode(hpc("entryValueOf"))
ENTRY_COMPONENT_ROLE = ox.NamedNode(hpc("entryComponentRole"))
DERIVED_FROM = ox.NamedNode(PROV_WAS_DERIVED_FROM)
FIELDS = {hpc(name): name for name in ("edition", "property", "value", "rank", "basis")}


def entry_triples(store: Store) -> Iterator[ox.Triple]:
    """The triples rule 14 constructs, system by system (each system's triples once): its own claims'
    values for the typed systems, its components' claims' values for every system a component names."""
    direct, by_role = entry_properties(store)
    done: set = set()
    for system in distinct(store, TYPE, SYSTEM):
        done.add(system)
        yield from system_entries(store, system, direct, by_role, typed=True)
    for system in distinct(store, COMPONENT_OF):
        if system not in done:
            yield from system_entries(store, system, direct, by_role, typed=False)


def entry_properties(store: Store) -> tuple[dict, dict]:
    """claim property -> entry properties fed by claims about the system itself, and (claim property, role)
    -> entry properties fed by claims about its component of that role."""
    roles: dict = {}
    for quad in store.quads_for_pattern(None, ENTRY_COMPONENT_ROLE, None):
        roles.setdefault(quad.subject, set()).add(quad.object)
    direct: dict = {}
    by_role: dict = {}
    for quad in store.quads_for_pattern(None, ENTRY_VALUE_OF, None):
        entry_property, property = quad.subject, quad.object
        if not isinstance(entry_property, ox.NamedNode):
            continue  # a CONSTRUCT makes no triple with it as the predicate
        if entry_property not in roles:
            direct.setdefault(property, set()).add(entry_property)
        for role in roles.get(entry_property, ()):
            by_role.setdefault((property, role), set()).add(entry_property)
    return direct, by_role


def system_entries(store: Store, system, direct: dict, by_role: dict, *, typed: bool) -> Iterator[ox.Triple]:
    sources = [(subject, None) for subject in ([system] if typed else [])]
    for quad in store.quads_for_pattern(None, COMPONENT_OF, system):
        component = quad.subject
        sources += [(component, role.object) for role in store.quads_for_pattern(component, ROLE, None)]
    yield from once(source_entries(store, system, dict.fromkeys(sources), direct, by_role))


def source_entries(store: Store, system, sources: Iterable, direct: dict, by_role: dict) -> Iterator[ox.Triple]:
    """The entry triples of the claims about a system or its components: (entity, None for the system itself
    or the component's role)."""
    for subject, role in sources:
        for claim, fields in claims_of(store, subject, FIELDS).items():
            if not live(fields):
                continue
            for property in fields.get("property", ()):
                entry_properties = direct.get(property, ()) if role is None else by_role.get((property, role), ())
                for entry_property in entry_properties:
                    for edition in fields.get("edition", ()):
                        entry = entry_iri(edition, system)
                        if entry is None:
                            continue
                        for value in fields.get("value", ()):
                            yield from (ox.Triple(entry, TYPE, LIST_ENTRY), ox.Triple(entry, ENTRY_OF, system),
                                        ox.Triple(entry, ENTRY_IN, edition), ox.Triple(entry, entry_property, value),
                                        ox.Triple(entry, DERIVED_FROM, claim))


def entry_iri(edition, system) -> ox.NamedNode | None:
    """entry:<edition slug>-<system slug>, as the rule's IRI(CONCAT(..., STRAFTER(...))) makes it; None where
    the rule's STR() or IRI() fails."""
    if isinstance(edition, ox.BlankNode) or isinstance(system, ox.BlankNode):
        return None
    try:
        return ox.NamedNode(f"{ID}entry/{after(edition.value, '/id/dataset/')}-{after(system.value, '/id/system/')}")
    except ValueError:
        return None  # not an IRI: the rule's IRI() fails and the row makes no triple


def after(text: str, marker: str) -> str:
    return text.partition(marker)[2]
