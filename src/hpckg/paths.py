"""Where the ontology, shapes, queries and curated data of the current project live (see hpckg.project)."""

from __future__ import annotations

from pathlib import Path

from hpckg import project


def resource_root() -> Path:
    """The project root: the folder holding ontology/, shapes/, queries/ and data/ttl/."""
    return project.current().root


def ontology_dir() -> Path:
    return project.current().ontology_dir


def shapes_dir() -> Path:
    return project.current().shapes_dir


def queries_dir() -> Path:
    return project.current().queries_dir


def rules_dir() -> Path:
    return project.current().rules_dir


def data_dir() -> Path:
    return project.current().data_dir


def relative_name(path: Path) -> str:
    """A stable, portable name for a file: relative to the project root when inside it."""
    return project.current().relative_name(path)
