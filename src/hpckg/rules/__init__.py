"""Derivation rules an embedded store runs as Python over its indexes, entity by entity.

Every rule is a CONSTRUCT in queries/rules/ (Project.rules_dir): its meaning, and what a build on a SPARQL
server runs. As one query over the whole graph, Oxigraph holds hash tables of every claim's columns at once,
and those set the build's peak memory (issue 38): alone on the full build's store, rule 10 held 1,077 MB,
rule 14 957 MB, rule 45 960 MB, rule 05 805 MB, rule 40 472 MB and rule 27 440 MB, ten times that at 10x.
The rules registered here give the same triples read one entity (or site, or system) at a time: an entity's
claims and their triples with one SELECT per entity, the entity bound by substitution, so memory holds one
entity's claims whatever the size of the graph (120-273 MB for each rule on the full store, the process
included), at up to five times the CONSTRUCTs' time (a seek per claim instead of scans joined by hash). Where
a triple is stated in two graphs, a CONSTRUCT over the union default graph counts its rows twice and these
count them once; importers state a triple once (docs/architecture.md, "A new importer").
tests/test_streamed_rules.py holds each to its CONSTRUCT, on hand-made edge cases and on real imports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pyoxigraph as ox

from hpckg.rules.disagreements import disagreement_triples
from hpckg.rules.entries import entry_triples
from hpckg.rules.peakcompute import peak_compute_triples
from hpckg.rules.siteoperators import site_operator_triples
from hpckg.rules.sourcing import sourcing_triples
from hpckg.rules.truthy import truthy_triples
from hpckg.store import Store

STREAMED_RULES: dict[str, Callable[[Store], Iterable[ox.Triple]]] = {
    "05-site-operator": site_operator_triples,
    "10-truthy": truthy_triples,
    "14-list-entries": entry_triples,
    "27-cluster-peak-compute": peak_compute_triples,
    "40-system-sourcing": sourcing_triples,
    "45-disagreements": disagreement_triples,
}
