"""The shapes both engines run: shapes/*.ttl as one rdflib graph, and the rule name a result is shown under."""

from __future__ import annotations

import re
from pathlib import Path

import rdflib
from rdflib.namespace import SH


def load_shapes(shapes_dir: Path) -> rdflib.Graph:
    """Every shapes file of a folder (Project.shapes_dir) as one graph."""
    graph = rdflib.Graph()
    for path in sorted(shapes_dir.glob("*.ttl")):
        graph.parse(path, format="turtle")
    return graph


def rule_name(shape: rdflib.term.Node, shapes: rdflib.Graph) -> str:
    """The shape's sh:name, else its owner's, else its local name."""
    # Property shapes are usually blank nodes inside a node shape: name them after the owner's sh:name
    # (or the owner itself) so the message says which rule broke.
    name = shapes.value(shape, SH.name)
    if name is not None:
        return str(name)
    if isinstance(shape, rdflib.BNode):
        owner = shapes.value(None, SH.property, shape)
        if owner is not None:
            return rule_name(owner, shapes)
    text = str(shape)
    return re.split(r"[#/]", text)[-1]
