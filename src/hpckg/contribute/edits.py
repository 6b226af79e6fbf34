"""What a contribution changes in files that already exist: claims are never edited or deleted in place.

`hpckg check` compares each file with its version at a base revision (`--base REV`; by default the merge
base of HEAD with the main branch, so a pull request is compared with where it branched off, and work on
main with HEAD). A claim that disappeared is `claim-removed`; a claim whose subject, property or value
changed is `claim-edited` (a corrected value is a new claim, and the old one is deprecated, pointing at it
with hpc:supersededBy); any other change to a claim (its tier, rank, sources, note) needs a new
hpc:ChangeEntry in the file, as an added claim does.
"""

from __future__ import annotations

import subprocess
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from hpckg.claims import shorten
from hpckg.datafiles.filecheck import ParsedFile
from hpckg.datafiles.report import CheckReport
from hpckg.errors import InputError, RdfSyntaxError
from hpckg.formats import rdf_format
from hpckg.namespaces import hpc
from hpckg.store import parse_rdf
from hpckg.terms import CLAIM_TYPES, RDF_TYPE, VALUE_PROPERTIES

# What a claim states; changing any of these is a new claim, not an edit.
STATEMENT = frozenset({hpc("about"), hpc("property"), *VALUE_PROPERTIES})
CHANGE_ENTRY = hpc("ChangeEntry")
MAIN_BRANCHES = ("origin/HEAD", "origin/main", "main", "origin/master", "master")


def _git(root: Path, *args: str) -> str | None:
    completed = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    return completed.stdout.decode("utf-8", "replace") if completed.returncode == 0 else None


def default_base(root: Path) -> str | None:
    """The merge base of HEAD with the main branch, else HEAD; None outside a git checkout."""
    if _git(root, "rev-parse", "--verify", "HEAD") is None:
        return None
    for branch in MAIN_BRANCHES:
        base = _git(root, "merge-base", "HEAD", branch)
        if base:
            return base.strip()
    return "HEAD"


def git_root(path: Path) -> Path | None:
    top = _git(path.parent if path.parent.exists() else Path.cwd(), "rev-parse", "--show-toplevel")
    return Path(top.strip()) if top else None


def claims_of(quads: list[ox.Quad]) -> tuple[dict[str, dict[str, set[str]]], set[str]]:
    """Claims (IRI -> predicate -> objects) and change entries of one file's quads."""
    types: dict[str, set[str]] = defaultdict(set)
    for quad in quads:
        if quad.predicate.value == RDF_TYPE and isinstance(quad.subject, ox.NamedNode):
            types[quad.subject.value].add(quad.object.value)
    claims: dict[str, dict[str, set[str]]] = {}
    for quad in quads:
        if types.get(quad.subject.value, set()) & CLAIM_TYPES:
            claims.setdefault(quad.subject.value, defaultdict(set))[quad.predicate.value].add(str(quad.object))
    entries = {s for s, kinds in types.items() if CHANGE_ENTRY in kinds}
    return claims, entries


@dataclass(frozen=True)
class BaseVersion:
    """A contribution file as it was at the base revision."""

    revision: str
    relative: str
    quads: list[ox.Quad]


def base_version(item: ParsedFile, base: str | None = None) -> BaseVersion | None:
    """The file at the base revision (`base`, else the merge base with the main branch); None for a new file,
    outside a git checkout, or when the base version does not parse."""
    root = git_root(item.path.resolve())
    if root is None:
        return None
    revision = base or default_base(root)
    if revision is None:
        return None
    if base is not None and _git(root, "rev-parse", "--verify", f"{base}^{{commit}}") is None:
        raise InputError(f"--base {base}: not a revision of the repository at {root}")
    try:
        relative = item.path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None
    old_text = _git(root, "show", f"{revision}:{relative}")
    if old_text is None:
        return None  # a new file: everything in it is an addition
    try:
        return BaseVersion(revision, relative, parse_rdf(old_text, format=rdf_format("ttl"),
                                                         path=f"{revision}:{relative}"))
    except RdfSyntaxError:
        return None  # the base did not parse; nothing to compare with


def altered_claims(old: BaseVersion, item: ParsedFile) -> list[str]:
    """Claims of the base version whose triples differ now (tier, rank, sources, note, or the statement)."""
    old_claims, _ = claims_of(old.quads)
    new_claims, _ = claims_of(item.quads)
    return sorted(iri for iri in set(old_claims) & set(new_claims) if old_claims[iri] != new_claims[iri])


def check_edits(parsed: list[ParsedFile], report: CheckReport, *, base: str | None = None,
                versions: dict[Path, BaseVersion | None] | None = None) -> None:
    """Report removed and edited claims, and changed claims without a new change entry, per file; `versions`
    holds the base versions already read (see base_version)."""
    for item in parsed:
        old = versions[item.path] if versions is not None and item.path in versions else base_version(item, base)
        if old is None:
            continue
        revision, relative = old.revision, old.relative
        old_claims, old_entries = claims_of(old.quads)
        new_claims, new_entries = claims_of(item.quads)
        changed = False
        for iri in sorted(set(old_claims) - set(new_claims)):
            changed = True
            report.add("claim-removed", f"{shorten(iri)} was in {relative} at {revision[:12]} and is gone; claims "
                       "are never deleted, so what was once cited stays traceable",
                       fix=f"restore {shorten(iri)} and mark it hpc:rank rank:deprecated (with hpc:supersededBy "
                           "its replacement, or a note saying why)", file=item.display, focus=iri)
        for iri in sorted(set(old_claims) & set(new_claims)):
            before, after = old_claims[iri], new_claims[iri]
            if before == after:
                continue
            changed = True
            edited = sorted(shorten(p) for p in STATEMENT if before.get(p, set()) != after.get(p, set()))
            if edited:
                report.add("claim-edited", f"{shorten(iri)} now states something else ({', '.join(edited)} changed "
                           f"since {revision[:12]}); a claim is never edited in place",
                           fix=f"put {shorten(iri)} back as it was, mark it hpc:rank rank:deprecated with "
                               "hpc:supersededBy a new claim that states the corrected value",
                           file=item.display, line=item.line_of_iri(iri), focus=iri)
        if changed and not new_entries - old_entries:
            report.add("missing-change-entry", f"{item.display} changes or removes existing claims but adds no "
                       "hpc:ChangeEntry saying what changed and when", fix="add a chg:<system-slug>-<yyyy-mm-dd> "
                       "entry with hpc:changedEntity, dcterms:date and rdfs:comment", file=item.display)
