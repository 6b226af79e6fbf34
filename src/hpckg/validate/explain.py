"""Violations a reference to an undefined entity causes, said as what to do: a claim whose value is
`part:nvidia-gh200` breaks the range rule only because no file defines that part yet, and a claim citing a
mistyped `src:top500-2024-6` has no source only because that one does not exist. Their message becomes
"`part:nvidia-gh200` is not defined (expected a part model); add it to `data/ttl/parts.ttl` or run
`hpckg new part`", with the nearest defined entity when one is close."""

from __future__ import annotations

from hpckg.references import is_reference, undefined_reference
from hpckg.store import AnyStore
from hpckg.validate.report import Violation
from hpckg.vocabulary import Vocabulary


def explain_undefined(violations: list[Violation], store: AnyStore, vocab: Vocabulary) -> None:
    """Rewrite the message of each violation whose value is an entity IRI that nothing types (the expected
    class named in the words of the ontology `vocab`)."""
    values = {v.value for v in violations if v.value and is_reference(v.value)}
    if not values:
        return
    listed = " ".join(f"<{v}>" for v in sorted(values))
    typed = {row["e"].value for row in store.query(
        f"SELECT DISTINCT ?e WHERE {{ VALUES ?e {{ {listed} }} ?e a ?type }}")}
    undefined = values - typed
    if not undefined:
        return
    namespaces = {value.rsplit("/", 1)[0] + "/" for value in undefined}
    known: set[str] = set()
    for namespace in namespaces:
        known |= {row["s"].value for row in store.query(
            f'SELECT DISTINCT ?s WHERE {{ ?s a ?type FILTER STRSTARTS(STR(?s), "{namespace}") }}')}
    found: dict[tuple[str, str | None], str] = {}
    for v in violations:
        if v.value in undefined:
            key = (v.value, v.path)
            if key not in found:
                reference = undefined_reference(v.value, known, vocab, predicate=v.path)
                said = reference.message(vocab)
                found[key] = said + (" " if said.endswith("?") else "; ") + reference.fix()
            v.message = found[key]
