"""Epoch AI's "Data on Machine Learning Hardware" (ml_hardware.csv): one part model per row, with its
maker, category, release date and the specifications a cluster's accelerators are compared by.

Every value is a claim citing the Epoch dataset (tier reported, basis imported), dated by the row's "Last
modified" and noting the row it came from. Epoch gives figures in FLOP/s, bytes and byte/s; the graph
holds them in the units its ontology states (TFLOP/s, GB, GB/s). Empty cells state nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pyoxigraph as ox

from hpckg.claims import claim_quads, entity_quads, make_claim, source_quads
from hpckg.importers.epoch_csv import data_rows
from hpckg.importers.run import current_log
from hpckg.names import SlugError, slugify
from hpckg.namespaces import entity
from hpckg.reference import Reference as Names
from hpckg.values import Iri

TITLE = "Epoch AI, 'Data on Machine Learning Hardware'"
WHERE = "https://epoch.ai/data/machine-learning-hardware (ml_hardware.csv)"
PATTERNS = ("ml_hardware.csv",)

SOURCE = "epoch-ml-hardware"
PUBLISHER = "epoch-ai"
USES_REFERENCE = True  # makers are named through hpckg.reference
LICENCE = "https://creativecommons.org/licenses/by/4.0/"
REQUIRED_COLUMNS = ("Hardware name", "Manufacturer", "Type", "Release date", "Last modified")

# Epoch's column -> (ontology property, factor from Epoch's unit to the ontology's)
SPECIFICATIONS: dict[str, tuple[str, Decimal]] = {
    "FP64 (double precision) performance (FLOP/s)": ("peakTflopsFP64", Decimal("1e-12")),
    "FP32 (single precision) performance (FLOP/s)": ("peakTflopsFP32", Decimal("1e-12")),
    "TF32 (TensorFloat-32) performance (FLOP/s)": ("peakTflopsTF32", Decimal("1e-12")),
    "Tensor-FP16/BF16 performance (FLOP/s)": ("peakTflopsTensor16", Decimal("1e-12")),
    "FP8 performance (FLOP/s)": ("peakTflopsFP8", Decimal("1e-12")),
    "INT8 performance (OP/s)": ("peakTopsINT8", Decimal("1e-12")),
    "Memory size per board (Byte)": ("memoryGB", Decimal("1e-9")),
    "Memory bandwidth (byte/s)": ("memoryBandwidthGBps", Decimal("1e-9")),
    "TDP (W)": ("tdpWatts", Decimal(1)),
    "Process size (nm)": ("processNm", Decimal(1)),
}
# Epoch's Type -> the part category (role: concept); types not listed state no category.
CATEGORIES = {"GPU": "accelerator", "GPGPU": "accelerator", "TPU": "accelerator", "NPU": "accelerator",
              "XPU": "accelerator", "XPU-R": "accelerator", "ASIC": "accelerator", "LPU": "accelerator",
              "DCU (GPGPU)": "accelerator", "Hybrid CPU": "cpu"}


def graph_key(path: Path) -> str:
    return "ml-hardware"


def part_slug(name: str) -> str:
    """The slug of the part model Epoch calls `name`; the GPU clusters importer links its chips by it.

    Epoch's parenthesised words tell variants apart ("MetaX MXC500 (PCIe)" and "(OAM)"), so they stay in
    the slug, where slugify would drop a trailing qualifier and merge the two. Raises SlugError for a name
    with no ASCII letters or digits."""
    return slugify(name.replace("(", " ").replace(")", " "))


def _number(text: str, factor: Decimal) -> Decimal | None:
    """A positive finite number in the ontology's unit, rounded to 6 significant digits (Epoch's figures
    carry float noise such as 958571428571.4286); None for an empty or unusable cell."""
    try:
        value = Decimal(text.strip()) * factor
    except (InvalidOperation, ValueError):
        return None
    if not value.is_finite() or value <= 0:
        return None
    return Decimal(f"{value:.6g}")


def _date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text.strip()[:10])
    except ValueError:
        return None


def rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """The data rows with the line each starts on (quoted notes span several lines)."""
    for _, line, cells in data_rows(path, REQUIRED_COLUMNS, expected="ml_hardware.csv", where=WHERE):
        yield line, cells


def read(path: Path, graph: str, *, names: Names) -> Iterator[ox.Quad]:
    # orgn:epoch-ai is defined in data/ttl/organisations.ttl (one definition, not one per graph).
    yield from source_quads(SOURCE, title="Data on Machine Learning Hardware", kind="dataset-release",
                            url="https://epoch.ai/data/machine-learning-hardware", publisher=PUBLISHER,
                            creators=[PUBLISHER], graph=graph)
    yield ox.Quad(ox.NamedNode(entity("source", SOURCE)), ox.NamedNode("http://purl.org/dc/terms/license"),
                  ox.NamedNode(LICENCE), ox.NamedNode(graph))
    makers: set[str] = set()
    log = current_log()
    for line, row in rows(path):
        log.row()
        quads = list(row_quads(row, f"{path.name} line {line}", graph, makers, names))
        if not quads:  # row_quads states nothing only for a row without a usable name
            log.skip(line, "Hardware name", "no usable name, so no part model to state anything about")
        yield from quads


def row_quads(row: dict[str, str], note: str, graph: str, makers: set[str], names: Names) -> Iterator[ox.Quad]:
    """One row: the part model, its maker (once per import; named through the curated `names`) and a claim
    per filled cell."""
    name = row["Hardware name"].strip()
    try:
        slug = part_slug(name)
    except SlugError:
        return  # a row with no usable name cannot become an entity; nothing else in it can be cited
    part = entity("part", slug)
    as_of = _date(row["Last modified"])

    def claim(prop: str, value) -> list[ox.Quad]:
        return claim_quads(make_claim(part, prop, value, tier="reported", basis="imported", sources=[SOURCE],
                                      as_of=as_of, note=note, qualifier="epoch"), graph=graph)

    yield from entity_quads("part", slug, label=name, graph=graph)
    maker = row["Manufacturer"].strip()
    if maker:
        # A maker the curated files define (NVIDIA, Intel...) is named, not restated here.
        known = names.find("org", maker)
        if known is None:
            maker_slug = slugify(maker)
            known = entity("org", maker_slug)
            if maker_slug not in makers:
                makers.add(maker_slug)
                yield from entity_quads("org", maker_slug, label=maker, graph=graph)
        yield from claim("maker", Iri(known))
    category = CATEGORIES.get(row["Type"].strip())
    if category:
        yield from claim("partCategory", Iri(f"https://w3id.org/hpckg/vocab/role/{category}"))
    released = _date(row["Release date"])
    if released:
        yield from claim("releaseDate", released)
    for column, (prop, factor) in SPECIFICATIONS.items():
        value = _number(row.get(column) or "", factor)
        if value is not None:
            yield from claim(prop, value)
