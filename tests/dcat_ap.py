"""Validating a dataset description against the DCAT-AP 3.0.1 SHACL shapes in ../shared/standards/ with
pySHACL: the mandatory shapes (shapes.ttl with range.ttl and the controlled-vocabulary shapes) and the
recommended ones (shapes_recommended.ttl). Shared by the description, server and release tests."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pyoxigraph as ox
import pyshacl
import rdflib

from conftest import SHARED

DCAT_AP = SHARED / "standards" / "dcat-ap-3.0.1"
MANDATORY = ("shapes.ttl", "range.ttl", "mdr-vocabularies.shape.ttl")
RECOMMENDED = ("shapes_recommended.ttl",)
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")


@dataclass
class Conformance:
    severities: Counter  # "Violation" / "Warning" / "Info" -> number of top-level results
    text: str

    @property
    def violations(self) -> int:
        return self.severities["Violation"]


def shapes(names: tuple[str, ...]) -> rdflib.Graph:
    graph = rdflib.Graph()
    for name in names:
        graph.parse(DCAT_AP / name, format="turtle")
    return graph


def as_rdflib(triples: list[ox.Triple] | bytes, format: str = "nt") -> rdflib.Graph:
    data = triples if isinstance(triples, bytes) else ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES)
    return rdflib.Graph().parse(data=data.decode(), format=format)


def validate(data: rdflib.Graph, names: tuple[str, ...]) -> Conformance:
    _, report, text = pyshacl.validate(data, shacl_graph=shapes(names), inference="none", allow_warnings=False)
    severities = Counter(str(report.value(result, SH.resultSeverity)).rsplit("#", 1)[1]
                         for result in report.objects(None, SH.result))
    return Conformance(severities, text)
