"""The rules for what a data file may state, applied wherever the project's own Turtle is read.

`filecheck` holds the file-level rules (syntax, encoding, directives, terms, IRIs, file names) and
`report` the problem codes and the review a contributor reads; this module applies them to a set of files
with the ownership rule across them.

`hpckg check` reviews a contribution against them; `hpckg build` and `hpckg validate` apply the same
file-level rules to every file under the data folders (and to extra files they are given), and the
ownership rule across them: an entity, term or shape belongs to the one file that types it, and no other
data file writes about it (a plain `sys:kalos hpc:operator orgn:bytedance` in another file, or a data file
relabelling `tier:lead` as "verified"). A failure names file, line and rule, and the build stops before
anything is loaded.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pyoxigraph as ox

from hpckg.claims import shorten
from hpckg.datafiles.filecheck import ParsedFile, check_file
from hpckg.datafiles.report import CheckReport
from hpckg.errors import InputError
from hpckg.namespaces import hpc
from hpckg.project import Project
from hpckg.store import parse_file
from hpckg.terms import RDF_TYPE

# Predicates another file may write about an entity it does not define (pointing a claim at its successor).
ALLOWED_ON_OTHERS = frozenset({hpc("supersededBy")})


class DataFileRulesFailed(InputError):
    """A data file breaks the rules for what a data file may state."""

    def __init__(self, report: CheckReport):
        self.report = report
        super().__init__("a data file breaks the rules for what a data file may state; nothing was loaded\n"
                         + "\n".join(f"  {p.location()}: [{p.code}] {p.message}; {p.fix}" for p in report.errors))


def owners_of_terms(project: Project) -> dict[str, str]:
    """Every subject the project's ontology and shapes type, with the file that types it."""
    owners: dict[str, str] = {}
    for folder in (project.ontology_dir, project.shapes_dir):
        for path in sorted(folder.glob("*.ttl")):
            name = project.relative_name(path)
            for quad in parse_file(path):
                if quad.predicate.value == RDF_TYPE and isinstance(quad.subject, ox.NamedNode):
                    owners.setdefault(quad.subject.value, name)
    return owners


def check_data_files(files: Iterable[Path], project: Project) -> CheckReport:
    """File-level rules on each file of the project, then ownership across all of them."""
    files = list(files)
    report = CheckReport(files=[str(f) for f in files])
    parsed: list[ParsedFile] = []
    for path in files:
        result = check_file(path, report, project)
        if result is not None:
            parsed.append(result)
    owners = owners_of_terms(project)
    for item in parsed:
        for quad in item.quads:
            if quad.predicate.value == RDF_TYPE and isinstance(quad.subject, ox.NamedNode):
                owners.setdefault(quad.subject.value, item.display)
    for item in parsed:
        written: dict[str, set[str]] = {}
        for quad in item.quads:
            subject = quad.subject.value if isinstance(quad.subject, ox.NamedNode) else None
            if subject in owners and owners[subject] != item.display \
                    and quad.predicate.value not in ALLOWED_ON_OTHERS:
                written.setdefault(subject, set()).add(quad.predicate.value)
        for subject, predicates in written.items():
            report.add("redefines-entity", f"{shorten(subject)} is defined in {owners[subject]}; this file writes "
                       f"{', '.join(sorted(shorten(p) for p in predicates))} about it",
                       fix=f"state facts about {shorten(subject)} as claims with hpc:about, and leave its "
                           f"identity to {owners[subject]}", file=item.display, line=item.line_of_iri(subject),
                       focus=subject)
    return report


def enforce(files: Iterable[Path], project: Project) -> None:
    """Raise DataFileRulesFailed when any file of the project breaks a rule; warnings do not stop a build."""
    report = check_data_files(files, project)
    if report.errors:
        raise DataFileRulesFailed(report)
