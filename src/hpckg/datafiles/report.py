"""What `hpckg check` found: problems with a code, a place and a suggested fix, and a summary of what the
contribution adds, rendered as Markdown a maintainer can paste into a pull request or as JSON for bots."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from hpckg.claims import shorten
from hpckg.errors import printable

ERROR = "error"
WARNING = "warning"

# Every problem code `hpckg check` reports, with its severity and what it means. CONTRIBUTING.md lists them.
CODES: dict[str, tuple[str, str]] = {
    "not-a-file": (ERROR, "the path is missing, a folder, or not a regular file inside the project"),
    "file-name": (ERROR, "a data file's name is not <slug>.ttl (lowercase .ttl, a system file named after its slug)"),
    "empty-file": (ERROR, "the file states nothing: it is empty or holds only comments and prefixes"),
    "byte-order-mark": (ERROR, "the file starts with a byte-order mark (BOM)"),
    "triple-term": (ERROR, "the file uses an RDF 1.2 triple term << ... >>, which the data model has no place for"),
    "file-too-large": (ERROR, "the file is larger than a one-system contribution can be"),
    "not-turtle": (ERROR, "the file is not a .ttl Turtle file"),
    "not-utf8": (ERROR, "the file is not valid UTF-8"),
    "invalid-iri": (ERROR, "an IRI contains a space, a control character or another forbidden character"),
    "syntax-error": (ERROR, "the Turtle does not parse"),
    "base-iri": (ERROR, "the file sets @base/BASE, which silently changes what relative IRIs mean"),
    "prefix-redefined": (ERROR, "a prefix is declared twice, or a project prefix points somewhere else"),
    "owl-imports": (ERROR, "the file declares owl:imports; hpckg never fetches imports, so it is ignored"),
    "rdf-list": (ERROR, "the file uses RDF collections ( ... ), which the data model has no place for"),
    "blank-node": (ERROR, "a blank node where the data model needs an IRI"),
    "ill-typed-literal": (ERROR, "a literal does not match its datatype (text typed as an integer)"),
    "unsafe-url": (ERROR, "an IRI uses a scheme other than http(s), doi:, urn: or mailto: (javascript:, data:, file:)"),
    "machine-record": (ERROR, "a data file states something as the work of hpckg itself (an import or a source check)"),
    "declares-term": (ERROR, "a data file declares a class, property or concept, which only ontology/ may do"),
    "unknown-term": (ERROR, "a term in the hpckg ontology or vocabulary namespaces that they do not define"),
    "outside-vocabulary": (ERROR, "a plain triple with a property outside hpckg's vocabulary (no claim: no source, "
                                  "no tier)"),
    "same-as": (ERROR, "the file asserts owl:sameAs, a silent merge; hpc:sameMachineAs claims say it with evidence"),
    "iri-case": (ERROR, "an IRI differs from one of the project's namespaces only by case"),
    "bidi-control": (ERROR, "text or an IRI holds a bidirectional control character (U+202E...), shown out of order"),
    "iri-convention": (ERROR, "an IRI does not follow https://w3id.org/hpckg/id/<kind>/<slug>"),
    "placeholder": (ERROR, "a 'TODO' placeholder from `hpckg new` is still there"),
    "todo-prefix-left": (WARNING, "no placeholder is left, but the file still declares the todo: prefix "
                                  "`hpckg new` wrote"),
    "undefined-entity": (ERROR, "the file refers to a system, site, organisation, part, country or source that no "
                                "file defines"),
    "shape-violation": (ERROR, "the graph with the contribution breaks a rule in shapes/"),
    "shape-warning": (WARNING, "the graph with the contribution triggers a warning rule in shapes/"),
    "redefines-entity": (ERROR, "the file writes about an entity another data file defines"),
    "duplicate-system": (ERROR, "a new system's name or alias matches an existing system"),
    "possible-duplicate": (WARNING, "a new system's name, less descriptive words and its operator's, site's and "
                                    "country's, is an existing system's, and they agree on country, operator or site"),
    "claim-removed": (ERROR, "a claim of an existing file was deleted; claims are deprecated, never deleted"),
    "claim-edited": (ERROR, "a claim of an existing file states something else now; corrections are new claims"),
    "missing-change-entry": (ERROR, "an added or changed system has no hpc:ChangeEntry in the file"),
    "as-of-after-source": (WARNING, "a claim's as-of date is after the date of every source it cites"),
    "conflict": (WARNING, "a claim disagrees with an existing claim from a different source"),
}


@dataclass
class Problem:
    code: str
    message: str
    fix: str = ""
    file: str | None = None
    line: int | None = None
    column: int | None = None
    focus: str | None = None
    details: dict | None = None

    @property
    def severity(self) -> str:
        return CODES[self.code][0]

    def location(self) -> str:
        if not self.file:
            return "<graph>"
        where = self.file
        if self.line:
            where += f":{self.line}"
            if self.column:
                where += f":{self.column}"
        return where

    def to_dict(self) -> dict:
        data = asdict(self)
        data["severity"] = self.severity
        return data


_SINGULAR = {"systems": "system", "organisations": "organisation", "parts": "part", "components": "component",
             "sites": "site", "sources": "source", "source checks": "source check",
             "change entries": "change entry", "countries": "country"}


@dataclass
class Additions:
    """What a contribution adds, by kind (IRIs), and its claims counted by tier."""

    entities: dict[str, list[str]] = field(default_factory=dict)  # "systems" -> [IRI, ...]
    claims_by_tier: dict[str, int] = field(default_factory=dict)
    altered: list[str] = field(default_factory=list)  # existing claims the change alters (tier, rank, note...)

    def line(self) -> str:
        parts = [f"{len(iris)} {kind if len(iris) != 1 else _SINGULAR.get(kind, kind)}"
                 for kind, iris in self.entities.items() if iris]
        claims = sum(self.claims_by_tier.values())
        if claims:
            tiers = ", ".join(f"{n} {tier}" for tier, n in self.claims_by_tier.items())
            parts.append(f"{claims} claim{'s' if claims != 1 else ''} ({tiers})")
        if self.altered:
            parts.append(f"alters {len(self.altered)} existing claim{'s' if len(self.altered) != 1 else ''}")
        return ", ".join(parts) or "nothing"


@dataclass
class ClaimReview:
    """What one claim of a contribution does to the graph: about which entity, and whether it adds a fact,
    agrees with existing claims, adds another value of a property that holds several, or conflicts."""

    claim: str
    about: str
    about_label: str
    property: str
    value: str
    verdict: str  # "adds", "agrees", "another value", "conflicts"
    others: list[str] = field(default_factory=list)  # the existing claims it agrees or conflicts with, or beside

    def line(self) -> str:
        others = ", ".join(shorten(o) for o in self.others)
        said = {"adds": f"adds: no claim gives its {shorten(self.property)} yet",
                "agrees": f"agrees with {others}",
                "another value": f"adds a value beside {others} ({shorten(self.property)} holds several)",
                "conflicts": f"conflicts with {others} (see the problems below)"}[self.verdict]
        about = shorten(self.about) + (f" ({self.about_label})" if self.about_label else "")
        return f"- {shorten(self.claim)}: {about} {shorten(self.property)} = {shorten(self.value)}: {said}"

    def to_dict(self) -> dict:
        return {"claim": self.claim, "about": self.about, "property": self.property, "value": self.value,
                "verdict": self.verdict, "others": self.others}


@dataclass
class CheckReport:
    files: list[str]
    problems: list[Problem] = field(default_factory=list)
    additions: Additions = field(default_factory=Additions)
    claims: list[ClaimReview] = field(default_factory=list)  # per added claim, once checked in context
    graph_checked: bool = False  # False when file-level errors stopped the checks in context
    notes: list[str] = field(default_factory=list)

    def add(self, code: str, message: str, **kwargs) -> Problem:
        if code not in CODES:
            raise ValueError(f"unknown problem code {code!r}")
        # Messages quote the file; its control characters must not reach a terminal or a review raw.
        kwargs = {key: printable(value) if isinstance(value, str) else value for key, value in kwargs.items()}
        problem = Problem(code, printable(message), **kwargs)
        self.problems.append(problem)
        return problem

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == WARNING]

    @property
    def exit_code(self) -> int:
        """0 clean, 1 warnings only, 2 errors."""
        return 2 if self.errors else 1 if self.warnings else 0

    def codes(self) -> set[str]:
        return {p.code for p in self.problems}

    def to_json(self) -> str:
        return json.dumps({
            "files": self.files,
            "exit_code": self.exit_code,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "graph_checked": self.graph_checked,
            "adds": {"entities": self.additions.entities, "claims_by_tier": self.additions.claims_by_tier,
                     "alters": self.additions.altered},
            "claims": [c.to_dict() for c in self.claims],
            "problems": [p.to_dict() for p in self.problems],
            "notes": self.notes,
        }, indent=2)

    def to_text(self) -> str:
        """A Markdown review: verdict, what the contribution adds, then each problem with its fix."""
        verdict = {0: "passes every check", 1: "passes, with warnings to review",
                   2: "does not pass"}[self.exit_code]
        out = [f"### hpckg check: {', '.join(self.files)} {verdict}", ""]
        out.append(f"**Adds:** {self.additions.line()}")
        for kind, iris in self.additions.entities.items():
            if iris and kind != "claims":
                out.append(f"- {kind}: {', '.join(shorten(i) for i in iris)}")
        if self.additions.altered:
            out.append(f"- alters: {', '.join(shorten(i) for i in self.additions.altered)}")
        if self.claims:
            out += ["", "**Claims**, each against what the graph already says:"]
            out += [review.line() for review in self.claims]
        out.append("")
        n_err, n_warn = len(self.errors), len(self.warnings)
        out.append(f"**Problems:** {n_err} error{'s' if n_err != 1 else ''}, "
                   f"{n_warn} warning{'s' if n_warn != 1 else ''}")
        for problem in self.problems:
            out.append(f"- **{problem.severity}** `{problem.location()}` [{problem.code}] {problem.message}")
            if problem.code == "conflict" and problem.details:
                out += _conflict_table(problem.details)
            if problem.fix:
                out.append(f"  - fix: {problem.fix}")
        for note in self.notes:
            out.append(f"\n_{note}_")
        return "\n".join(out)


def _conflict_table(details: dict) -> list[str]:
    rows = ["", "  | | this contribution | existing |", "  |---|---|---|"]
    mine, theirs = details["contribution"], details["existing"]
    for key in ("claim", "value", "tier", "sources", "as_of", "file"):
        a, b = mine.get(key), theirs.get(key)
        if isinstance(a, list):
            a = ", ".join(shorten(x) for x in a)
        if isinstance(b, list):
            b = ", ".join(shorten(x) for x in b)
        rows.append(f"  | {key} | {shorten(a) if a else '-'} | {shorten(b) if b else '-'} |")
    rows.append("")
    return rows
