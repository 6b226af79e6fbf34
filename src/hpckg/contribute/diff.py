"""`hpckg diff`: how the curated data changed between two git revisions, claim by claim.

Files are read with `git show REV:path` (the working tree when the second revision is omitted), parsed,
and compared by IRI: claims added, removed, and changed in tier, value (hpc:value or bounds) or otherwise,
grouped by the entity they are about; entities added and removed are listed too.
"""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from hpckg.claims import shorten
from hpckg.errors import InputError, RdfSyntaxError
from hpckg.formats import rdf_format
from hpckg.namespaces import hpc
from hpckg.store import parse_rdf
from hpckg.terms import CLAIM_TYPES, RDF_TYPE
from hpckg.terms import VALUE_PROPERTIES as VALUE_KEYS


@dataclass
class Snapshot:
    """The claims and entities of data/ttl/ at one revision."""

    claims: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # IRI -> predicate -> objects
    claim_files: dict[str, str] = field(default_factory=dict)
    entities: dict[str, str] = field(default_factory=dict)  # IRI -> file
    unreadable: list[str] = field(default_factory=list)


@dataclass
class DiffResult:
    old: str
    new: str
    # about -> list of (change, claim IRI, detail)
    by_subject: dict[str, list[dict]] = field(default_factory=lambda: defaultdict(list))
    entities_added: list[str] = field(default_factory=list)
    entities_removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        counts = {"added": 0, "removed": 0, "changed": 0}
        for changes in self.by_subject.values():
            for change in changes:
                counts[change["change"]] += 1
        return counts

    def to_json(self) -> str:
        return json.dumps({"old": self.old, "new": self.new, "claims": self.counts(),
                           "by_subject": self.by_subject, "entities_added": self.entities_added,
                           "entities_removed": self.entities_removed, "notes": self.notes}, indent=2)

    def to_text(self) -> str:
        c = self.counts()
        out = [f"hpckg diff {self.old}..{self.new}: {c['added']} claims added, {c['removed']} removed, "
               f"{c['changed']} changed; {len(self.entities_added)} entities added, "
               f"{len(self.entities_removed)} removed"]
        for subject in sorted(self.by_subject):
            out.append(f"\n{shorten(subject)}")
            for change in self.by_subject[subject]:
                mark = {"added": "+", "removed": "-", "changed": "~"}[change["change"]]
                out.append(f"  {mark} {shorten(change['claim'])}  {change['summary']}")
        if self.entities_added:
            out.append("\nentities added: " + ", ".join(shorten(e) for e in self.entities_added))
        if self.entities_removed:
            out.append("entities removed: " + ", ".join(shorten(e) for e in self.entities_removed))
        out += [f"note: {n}" for n in self.notes]
        return "\n".join(out)


def _git(root: Path, *args: str) -> bytes:
    result = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    if result.returncode != 0:
        raise InputError(f"git {' '.join(args)} failed: {result.stderr.decode('utf-8', 'replace').strip()}")
    return result.stdout


def repository_root(start: Path | None = None) -> Path:
    try:
        return Path(_git(start or Path.cwd(), "rev-parse", "--show-toplevel").decode().strip())
    except InputError:
        raise InputError("hpckg diff needs a git repository: run it inside the data repository") from None


def _term(term: ox.Term) -> str:
    return term.value if isinstance(term, ox.NamedNode | ox.Literal) else str(term)


def read_snapshot(root: Path, rev: str | None, data_dir: str) -> Snapshot:
    """Every .ttl file under data_dir at `rev` (None: the working tree)."""
    if rev is None:
        files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / data_dir).rglob("*.ttl"))}
    else:
        _git(root, "rev-parse", "--verify", f"{rev}^{{commit}}")
        names = _git(root, "ls-tree", "-r", "--name-only", rev, "--", data_dir).decode().splitlines()
        files = {n: _git(root, "show", f"{rev}:{n}") for n in names if n.endswith(".ttl")}
    snap = Snapshot()
    for name, data in files.items():
        try:
            quads = parse_rdf(data, format=rdf_format("ttl"), path=name)
        except RdfSyntaxError as error:
            snap.unreadable.append(f"{rev or 'working tree'}: {error} (skipped)")
            continue
        typed: dict[str, set[str]] = defaultdict(set)
        for q in quads:
            if q.predicate.value == RDF_TYPE and isinstance(q.subject, ox.NamedNode):
                typed[q.subject.value].add(q.object.value)
        for q in quads:
            s = q.subject.value
            if typed.get(s, set()) & CLAIM_TYPES:
                snap.claims.setdefault(s, defaultdict(list))[q.predicate.value].append(_term(q.object))
                snap.claim_files[s] = name
        for s, types in typed.items():
            if not types & CLAIM_TYPES:
                snap.entities.setdefault(s, name)
    return snap


def _one(claim: dict[str, list[str]], predicate: str) -> str | None:
    values = sorted(claim.get(predicate, []))
    return ", ".join(values) if values else None


def _value(claim: dict[str, list[str]]) -> str:
    parts = []
    for key in sorted(VALUE_KEYS):
        for v in sorted(claim.get(key, [])):
            parts.append(shorten(v) if key == hpc("value") else f"{key.rsplit('#', 1)[-1]} {v}")
    return " ".join(parts) or "-"


def _tier(claim: dict[str, list[str]]) -> str:
    tier = _one(claim, hpc("tier"))
    return tier.rsplit("/", 1)[-1] if tier else "no tier"


def _describe(claim: dict[str, list[str]]) -> str:
    prop = _one(claim, hpc("property"))
    return f"{shorten(prop) if prop else '?'} = {_value(claim)} [{_tier(claim)}]"


def diff_revisions(old: str, new: str | None = None, *, data_dir: str = "data/ttl",
                   root: Path | None = None) -> DiffResult:
    """Compare data_dir at revision `old` with revision `new` (None: the working tree)."""
    root = root or repository_root()
    before, after = read_snapshot(root, old, data_dir), read_snapshot(root, new, data_dir)
    result = DiffResult(old=old, new=new or "working tree", notes=before.unreadable + after.unreadable)
    for iri in sorted(set(before.claims) | set(after.claims)):
        a, b = before.claims.get(iri), after.claims.get(iri)
        about = _one(b or a, hpc("about")) or "(no hpc:about)"
        if a is None:
            entry = {"change": "added", "claim": iri, "summary": _describe(b), "file": after.claim_files[iri]}
        elif b is None:
            entry = {"change": "removed", "claim": iri, "summary": _describe(a), "file": before.claim_files[iri]}
        else:
            norm_a = {p: sorted(v) for p, v in a.items()}
            norm_b = {p: sorted(v) for p, v in b.items()}
            if norm_a == norm_b:
                continue
            parts = []
            if _value(a) != _value(b):
                parts.append(f"value {_value(a)} -> {_value(b)}")
            if _tier(a) != _tier(b):
                parts.append(f"tier {_tier(a)} -> {_tier(b)}")
            others = sorted(shorten(p) for p in set(norm_a) | set(norm_b)
                            if p not in VALUE_KEYS | {hpc("tier")} and norm_a.get(p) != norm_b.get(p))
            if others:
                parts.append("also " + ", ".join(others))
            entry = {"change": "changed", "claim": iri, "summary": "; ".join(parts),
                     "tier_changed": _tier(a) != _tier(b), "value_changed": _value(a) != _value(b),
                     "file": after.claim_files[iri]}
        result.by_subject[about].append(entry)
    result.by_subject = dict(result.by_subject)
    result.entities_added = sorted(set(after.entities) - set(before.entities))
    result.entities_removed = sorted(set(before.entities) - set(after.entities))
    return result
