"""What the built store already calls by a name a contributor is about to give a new entity: "Frontier" is
sys:top500-180047 (TOP500) and sys:epoch-oak-ridge-nl-frontier (Epoch AI). `hpckg new` says so, so a machine
the imports hold is enriched rather than added twice (issue 36). Names compare case- and space-insensitively
on labels, alternative labels and name claims: one scan of the names, about a second on the full import."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from hpckg.names import name_key
from hpckg.namespaces import dataset_of, hpc, shorten, sparql_prefixes

NAMESAKES = sparql_prefixes() + """
SELECT DISTINCT ?entity ?label ?g WHERE {
  ?entity rdfs:label|skos:altLabel|skos:hiddenLabel|hpc:name ?name .
  FILTER (LCASE(STR(?name)) = %(wanted)s)
  GRAPH ?g { ?entity a ?class }
  VALUES ?class { %(classes)s }
  OPTIONAL { ?entity rdfs:label ?label }
}"""


@dataclass(frozen=True)
class Namesake:
    name: str  # sys:top500-180047
    label: str
    dataset: str  # "curated", "top500", "epoch-clusters", ...
    iri: str = ""


def namesakes(store_path: Path | str, name: str, class_local: str | tuple[str, ...]) -> list[Namesake]:
    """Entities of class hpc:`class_local` (or of any of several) in the built store at `store_path` named
    `name` (none when there is no built store on disk)."""
    if not isinstance(store_path, Path) or not store_path.exists():
        return []
    return _namesakes(ox.Store.read_only(str(store_path)), name, class_local, union=True)


def namesakes_in(store, name: str, class_local: str | tuple[str, ...]) -> list[Namesake]:
    """The same in an open hpckg store (embedded or a SPARQL server: the generation the site serves)."""
    return _namesakes(store, name, class_local, union=False)


def _namesakes(store, name: str, class_local: str | tuple[str, ...], *, union: bool) -> list[Namesake]:
    wanted = " ".join(name.split()).lower()
    if not name_key(wanted):
        return []
    # The name goes in as a literal serialised by pyoxigraph (escaped), never as text pasted into the query.
    classes = (class_local,) if isinstance(class_local, str) else class_local
    query = NAMESAKES % {"wanted": str(ox.Literal(wanted)), "classes": " ".join(f"<{hpc(c)}>" for c in classes)}
    found: dict[str, Namesake] = {}
    rows = store.query(query, use_default_graph_as_union=True) if union else store.query(query, prefixes=False)
    for row in rows:
        iri = row["entity"].value
        label = row["label"].value if row["label"] is not None else name
        found.setdefault(iri, Namesake(shorten(iri), label, dataset_of(row["g"].value), iri))
    return sorted(found.values(), key=lambda n: n.name)
