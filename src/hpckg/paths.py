"""Where the ontology, shapes, queries and curated data live, from a checkout or an installed package."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_CHECKOUT_ROOT = _PACKAGE_DIR.parent.parent


def resource_root() -> Path:
    """The folder holding ontology/, shapes/, queries/ and data/ttl/.

    A checkout (or an editable install) has them at the repository root; a wheel carries a copy in
    hpckg/_resources (see pyproject.toml's force-include).
    """
    if (_CHECKOUT_ROOT / "ontology" / "hpckg.ttl").is_file():
        return _CHECKOUT_ROOT
    return _PACKAGE_DIR / "_resources"


def ontology_dir() -> Path:
    return resource_root() / "ontology"


def shapes_dir() -> Path:
    return resource_root() / "shapes"


def queries_dir() -> Path:
    return resource_root() / "queries"


def rules_dir() -> Path:
    return queries_dir() / "rules"


def data_dir() -> Path:
    return resource_root() / "data" / "ttl"


def relative_name(path: Path) -> str:
    """A stable, portable name for a file: relative to the resource root when inside it."""
    path = Path(path).resolve()
    try:
        return path.relative_to(resource_root().resolve()).as_posix()
    except ValueError:
        return path.as_posix()
