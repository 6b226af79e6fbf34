"""References to entities nobody has defined yet: `part:nvidia-gh200` used as a component's part while no
file says `part:nvidia-gh200 a hpc:PartModel`. Said in the words a contributor acts on: what it should be
(from the property's rdfs:range in the ontology, else from the IRI's kind), the file to add it to, the
`hpckg new` command that writes it, and the nearest defined entities of that kind (a typo in a slug)."""

from __future__ import annotations

from dataclasses import dataclass

from hpckg.claims import shorten
from hpckg.namespaces import ID, hpc
from hpckg.vocabulary import Vocabulary, did_you_mean

# The class an entity IRI's kind stands for, where such an entity is defined and the scaffold that writes
# one: the IRI conventions and file layout of CONTRIBUTING.md ("Where things go").
KIND_HOMES: dict[str, tuple[str, str, str | None]] = {
    "system": (hpc("System"), "a new file `data/ttl/systems/<slug>.ttl`", "system"),
    "site": (hpc("Site"), "a new file `data/ttl/sites/<slug>.ttl`", "site"),
    "org": (hpc("Organisation"), "`data/ttl/organisations.ttl`", "organisation"),
    "part": (hpc("PartModel"), "`data/ttl/parts.ttl`", "part"),
    "country": (hpc("Country"), "`data/ttl/countries.ttl`", "country"),
    "source": (hpc("Source"), "`data/ttl/sources.ttl` (or to this file, if only this file cites it)", "source"),
    "component": (hpc("Component"), "the file of the system it belongs to", None),
    "claim": (hpc("Claim"), "the file of the entity it is about", None),
}


def kind_of(iri: str) -> str | None:
    """'part' for https://w3id.org/hpckg/id/part/nvidia-gh200."""
    if not iri.startswith(ID):
        return None
    parts = iri[len(ID):].split("/")
    return parts[0] if len(parts) == 2 else None


def is_reference(iri: str) -> bool:
    """An entity IRI of a kind people define in data/ttl/ (not a machine-written record)."""
    return kind_of(iri) in KIND_HOMES


@dataclass(frozen=True)
class UndefinedReference:
    iri: str
    expected: str | None  # the class IRI it should have
    suggestions: tuple[str, ...]

    @property
    def kind(self) -> str:
        return kind_of(self.iri) or ""

    def message(self, vocab: Vocabulary) -> str:
        """What is wrong, with the expected class named in the words of the ontology `vocab`."""
        expected = f" (expected {vocab.class_phrase(self.expected, iri_too=False)})" if self.expected else ""
        said = f"`{shorten(self.iri)}` is not defined{expected}"
        if self.suggestions:
            said += "; did you mean " + " or ".join(f"`{shorten(s)}`" for s in self.suggestions) + "?"
        return said

    def fix(self) -> str:
        _, home, command = KIND_HOMES.get(self.kind, (None, "data/ttl/", None))
        fix = f"add it to {home}" + (f" or run `hpckg new {command}`" if command else "")
        if self.suggestions:
            fix = f"correct the IRI to `{shorten(self.suggestions[0])}` if that is what you meant; otherwise {fix}"
        return fix


def undefined_reference(iri: str, known: set[str] | frozenset[str], vocab: Vocabulary, *,
                        predicate: str | None = None, claim_property: str | None = None) -> UndefinedReference:
    """Describe `iri`, which has no rdf:type in the graph; `known` holds the entities that do, `vocab` the
    ontology that says which class a predicate expects."""
    expected = vocab.expected_class(predicate, claim_property) if predicate else None
    if expected is None and kind_of(iri) in KIND_HOMES:
        expected = KIND_HOMES[kind_of(iri)][0]
    namespace = iri.rsplit("/", 1)[0] + "/"
    same_kind = [k for k in known if k.startswith(namespace)]
    return UndefinedReference(iri, expected, tuple(did_you_mean(iri, same_kind, n=1)))
