"""Benchmark validation: pySHACL (hpckg.validate.pyshacl_engine) against the SPARQL fast path
(hpckg.validate.sparql_engine).

The large graph is the curated data replicated N times: every IRI under https://w3id.org/hpckg/id/ gets a
"-rN" suffix per copy (systems, components, claims, sources, organisations...), the ontology and shapes are
loaded once, and the build's materialisation runs over the whole thing, so each copy is a seed-like,
conforming set of claims.

    python bench/validate_bench.py --copies 60             # fast path only, ~230k triples
    python bench/validate_bench.py --copies 10 --pyshacl   # both, and check they agree
"""

from __future__ import annotations

import argparse
import time

import pyoxigraph as ox

from hpckg.build import materialise, populate
from hpckg.namespaces import DERIVED_GRAPH, GRAPH, ID
from hpckg.project import discover
from hpckg.store import Store
from hpckg.validate import validate

CHECKOUT = discover()  # the project of the working directory (run from the checkout)


def replicated_store(copies: int) -> Store:
    seed = Store(None)
    populate(seed, CHECKOUT)
    data_graphs = [g for g in seed.named_graphs() if g.startswith(GRAPH + "data/")]
    quads = [q for g in data_graphs for q in seed.quads(graph=g)]

    def rename(term: ox.NamedNode | ox.BlankNode | ox.Literal, suffix: str):
        if isinstance(term, ox.NamedNode) and term.value.startswith(ID) and not term.value.startswith(
                ID + "country/"):
            return ox.NamedNode(term.value + suffix)
        return term

    store = Store(None)
    for g in seed.named_graphs():
        if not g.startswith(GRAPH + "data/") and g != DERIVED_GRAPH:
            store.load_quads(seed.quads(graph=g))
    for copy in range(copies):
        suffix = f"-r{copy}"
        store.load_quads(ox.Quad(rename(q.subject, suffix), q.predicate, rename(q.object, suffix),
                                 ox.NamedNode(q.graph_name.value + suffix)) for q in quads)
    materialise(store, CHECKOUT.rules_dir)
    return store


def timed(label: str, run):
    start = time.perf_counter()
    report = run()
    seconds = time.perf_counter() - start
    print(f"{label:<28} {seconds:8.2f} s  {len(report.violations)} violations")
    return report, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=60, help="copies of the curated data (default 60)")
    parser.add_argument("--pyshacl", action="store_true", help="also run pySHACL (slow on big graphs)")
    options = parser.parse_args()

    start = time.perf_counter()
    store = replicated_store(options.copies)
    claims = int(next(iter(store.query("SELECT (COUNT(?c) AS ?n) WHERE { ?c a hpc:Claim }")))["n"].value)
    print(f"{options.copies} copies: {store.triple_count()} triples, {claims} claims "
          f"(built in {time.perf_counter() - start:.1f} s)")
    fast, _ = timed("fast path (Oxigraph SPARQL)", lambda: validate(store, "fast", project=CHECKOUT))
    if options.pyshacl:
        reference, _ = timed("pySHACL, parse cached", lambda: validate(store, "pyshacl", project=CHECKOUT))
        same = ({(v.rule, v.focus, v.path, v.value) for v in fast.violations}
                == {(v.rule, v.focus, v.path, v.value) for v in reference.violations})
        print(f"same violations: {same}")


if __name__ == "__main__":
    main()
