"""Synthetic import-shaped graphs at N times the real import, with a fixed seed: the input of bench/scale_bench.py.

The template is a real import folder (`.hpckg/graphs/import/` after `hpckg import --all`: 63 TOP500 editions,
TOP500's shared graph, Epoch AI's hardware, clusters and data centres). Copy 1 is the template itself, so 1×
is the real import to the quad; copy c > 1 writes every template file again as `<name>-x<c>.nq`, streamed line
by line (constant memory, linear time), with:

- every IRI under https://w3id.org/hpckg/id/ that the curated data does not define (systems, claims,
  components, sources, list editions, references, organisations and sites the importers mint) and every
  graph name suffixed `-x<c>`, so each copy is a new world of systems with the same claim shapes, tiers,
  sources, editions, components, lineage, timelines and provenance (`hpc:Import`) as the real one, pointing
  at the same curated countries, vendors and parts;
- `hpc:slug` values suffixed the same way (slugs stay their IRI's last segment);
- names (rdfs:label, skos:altLabel, string hpc:value) made distinct per copy by a substitution of the ASCII
  letters drawn from the seed and the copy ("El Capitan" -> "Qv Rsfjysq"): lengths, words, case and
  digits stay, so the build's record linking finds the same pairs inside each copy as in the real import
  (a tag appended to words would lengthen "GPT-4" past linking's five-letter minimum and link more) and
  never across copies (a name shared by all copies would stop being distinctive, and partial-name matches
  would link copy to copy);
- the words that name a partition ("GPU", "Booster", "Partition": hpckg.linking.PARTITION_WORDS) kept, so
  linking tells a machine's partitions apart in every copy as in the real import ("Raven-GPU" ->
  "Xqkfs-GPU");
- TOP500 System IDs (the values of hpc:top500SystemId claims, and the ID in a cited top500.org/system/N
  page) given the copy's number as two more digits (180357 -> 18035702), so an Epoch row of a copy that
  cites a TOP500 system page is linked to that copy's TOP500 record, as in the real import, and never to
  another copy's;
- everything else (numbers, dates, tiers, bases, other URLs, locators) unchanged, so the shapes hold as they
  do for the real import.

A JSON manifest (`synthetic.json` beside the import folder) gives per-file quads and, per copy, the counts
the docs compare with the real import (quads per graph kind, claims per tier, systems, list editions).

    python bench/synthetic.py --template .hpckg/graphs/import --scale 10 --out /tmp/p10/.hpckg/graphs/import
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import string
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox

from hpckg.linking import PARTITION_WORDS

ID = "https://w3id.org/hpckg/id/"
GRAPH = "https://w3id.org/hpckg/graph/"
HPC = "https://w3id.org/hpckg/ontology#"
SLUG = f"<{HPC}slug>"
NAME_PREDICATES = {"<http://www.w3.org/2000/01/rdf-schema#label>", "<http://www.w3.org/2004/02/skos/core#altLabel>",
                   f"<{HPC}value>"}
TIER = f"<{HPC}tier>"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
COUNTED_TYPES = {f"<{HPC}System>": "systems", f"<{HPC}ListEdition>": "list editions", f"<{HPC}Claim>": "claims",
                 f"<{HPC}Component>": "components", f"<{HPC}Source>": "sources",
                 f"<{HPC}Organisation>": "organisations", f"<{HPC}Site>": "sites"}

_IRI = re.compile(r"<(https://w3id\.org/hpckg/(?:id|graph)/[^>]*)>")
# The object of an N-Quads line when it is a literal: "..." with escapes, then @lang or ^^<datatype>.
_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"(@[A-Za-z0-9-]+|\^\^<[^>]*>)?')
# An N-Quads string escape (left as it is: \n, \u00e9) or a run of anything else.
_PIECE = re.compile(r"(\\(?:u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.))|([^\\]+)")
_STRING = "^^<http://www.w3.org/2001/XMLSchema#string>"
VALUE = f"<{HPC}value>"
SYSTEM_ID_CLAIM = "-top500-system-id-"  # in the IRI of a TOP500 record's hpc:top500SystemId claim
_TOP500_PAGE = re.compile(r"(top500\.org/system/)(\d+)")
_KEPT_WORD = re.compile(rf"\b(?:{'|'.join(PARTITION_WORDS)})\b", re.IGNORECASE)


def curated_entities(project: Path) -> set[str]:
    """The IRIs under /id/ that the project's people-written files define (subjects of its Turtle): the
    synthetic copies point at these and never rename them."""
    found: set[str] = set()
    for folder in ("ontology", "shapes", "data"):
        for path in sorted((project / folder).rglob("*.ttl")):
            for quad in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
                if isinstance(quad.subject, ox.NamedNode) and quad.subject.value.startswith(ID):
                    found.add(quad.subject.value)
    return found


def letter_table(seed: int, copy: int) -> dict[int, int]:
    """The substitution of one copy's names: a permutation of a-z (the same on A-Z) drawn from the seed and
    the copy, with no letter left in place."""
    rng = random.Random(f"{seed}:{copy}")
    letters = string.ascii_lowercase
    while True:
        shuffled = "".join(rng.sample(letters, len(letters)))
        if all(a != b for a, b in zip(letters, shuffled, strict=True)):
            break
    return str.maketrans(letters + letters.upper(), shuffled + shuffled.upper())


class Renamer:
    """Rewrites one N-Quads line into copy `copy`'s world (see the module's description)."""

    def __init__(self, curated: set[str], copy: int, seed: int):
        self.curated = curated
        self.suffix = f"-x{copy}"
        self.id_digits = f"{copy:02d}"
        self.table = letter_table(seed, copy)

    def iri(self, match: re.Match) -> str:
        value = match.group(1)
        if value.startswith(GRAPH) or value not in self.curated:
            return f"<{value}{self.suffix}>"
        return match.group(0)

    def words(self, text: str) -> str:
        return _PIECE.sub(lambda m: m.group(1) or self.letters(m.group(2)), text)

    def letters(self, run: str) -> str:
        """A run of text with its letters substituted, the words naming a partition kept."""
        kept = [(m.start(), m.end()) for m in _KEPT_WORD.finditer(run)]
        out, at = [], 0
        for start, end in kept:
            out += [run[at:start].translate(self.table), run[start:end]]
            at = end
        return "".join(out) + run[at:].translate(self.table)

    def line(self, line: str) -> str:
        if line.startswith("#"):
            return line.rstrip("\n") + f" synthetic-copy={self.suffix[2:]}\n"
        subject, predicate, rest = line.split(" ", 2)
        renamed_subject = _IRI.sub(self.iri, subject)
        if rest.startswith('"'):
            literal = _LITERAL.match(rest)
            if literal is None:
                raise ValueError(f"not an N-Quads literal: {rest[:80]}")
            text, suffix = literal.group(1), literal.group(2) or ""
            if predicate == SLUG and renamed_subject != subject:
                text += self.suffix
            elif predicate == VALUE and SYSTEM_ID_CLAIM in subject:
                text += self.id_digits
            elif predicate in NAME_PREDICATES and (suffix == "" or suffix.startswith("@") or suffix == _STRING):
                text = self.words(text)
            rest = f'"{text}"{suffix}' + _IRI.sub(self.iri, rest[literal.end():])
        else:
            rest = _IRI.sub(self.iri, rest)
        rest = _TOP500_PAGE.sub(lambda m: m.group(1) + m.group(2) + self.id_digits, rest)
        return f"{renamed_subject} {predicate} {rest}"


def template_files(template: Path) -> list[Path]:
    """The graph files a build loads from an import folder (parts of a shared graph are not loaded)."""
    return sorted(p for p in template.rglob("*.nq") if not p.name.endswith(".part.nq"))


def graph_kind(path: Path, template: Path) -> str:
    """What a file is, for the comparison: a TOP500 edition, TOP500's shared graph, or an Epoch file."""
    relative = path.relative_to(template)
    importer = relative.parts[0]
    if importer == "top500":
        return "top500 shared" if relative.stem == "shared" else "top500 editions"
    return f"{importer}/{relative.stem}"


def stream(path: Path, renamer: Renamer | None) -> Iterator[str]:
    with path.open("r", encoding="utf-8") as source:
        for line in source:
            yield line if renamer is None else renamer.line(line)


def counts_of(lines: Iterator[str], out, tally: Counter) -> int:
    """Write lines to `out`, tallying quads, types and tiers; returns the quads written."""
    quads = 0
    for line in lines:
        out.write(line)
        if line.startswith("#") or not line.strip():
            continue
        quads += 1
        _, predicate, rest = line.split(" ", 2)
        if predicate == TYPE:
            kind = COUNTED_TYPES.get(rest.split(" ", 1)[0])
            if kind:
                tally[kind] += 1
        elif predicate == TIER:
            tally["claims " + rest.split(" ", 1)[0].rsplit("/", 1)[-1].rstrip(">")] += 1
    return quads


def generate(template: Path, out: Path, scale: int, *, project: Path, seed: int = 15,
             log=print) -> dict:
    """Write `scale` copies of the template's graph files into `out` (an import folder); returns the
    manifest (also written to out/../synthetic.json)."""
    if scale < 1 or int(scale) != scale:
        raise ValueError("--scale is a whole number of copies of the real import (1, 3, 10, 30, 100)")
    files = template_files(template)
    if not files:
        raise ValueError(f"{template}: no import graph files (*.nq) to use as the template")
    curated = curated_entities(project)
    if out.exists():
        shutil.rmtree(out)
    manifest: dict = {"template": str(template), "scale": scale, "seed": seed, "copies": []}
    started = time.perf_counter()
    for copy in range(1, scale + 1):
        renamer = None if copy == 1 else Renamer(curated, copy, seed)
        tally: Counter = Counter()
        by_kind: Counter = Counter()
        for path in files:
            relative = path.relative_to(template)
            name = relative if copy == 1 else relative.with_name(f"{relative.stem}{renamer.suffix}.nq")
            target = out / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("w", encoding="utf-8") as handle:
                by_kind[graph_kind(path, template)] += counts_of(stream(path, renamer), handle, tally)
        manifest["copies"].append({"copy": copy, "quads": sum(by_kind.values()), "by_kind": dict(by_kind),
                                   "counts": dict(tally)})
        log(f"copy {copy}/{scale}: {sum(by_kind.values()):,} quads, {time.perf_counter() - started:.0f} s")
    manifest["quads"] = sum(c["quads"] for c in manifest["copies"])
    manifest["seconds"] = round(time.perf_counter() - started, 1)
    (out.parent / "synthetic.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--template", type=Path, required=True, help="a real import folder (.hpckg/graphs/import)")
    parser.add_argument("--scale", type=int, required=True, help="copies of the real import: 1, 3, 10, 30, 100")
    parser.add_argument("--out", type=Path, required=True, help="the import folder to write")
    parser.add_argument("--project", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the project whose curated data the copies point at (default this checkout)")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    manifest = generate(args.template, args.out, args.scale, project=args.project, seed=args.seed,
                        log=lambda m: print(m, file=sys.stderr, flush=True))
    print(json.dumps({k: manifest[k] for k in ("scale", "quads", "seconds")}))


if __name__ == "__main__":
    main()
