"""What validation found, in the words a contributor needs: one `Violation` per SHACL result, and the
`ValidationReport` both engines return and the CLI prints as text or JSON."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from hpckg.claims import shorten
from hpckg.errors import RdfSyntaxError


@dataclass
class Violation:
    """One SHACL result, in the words a contributor needs."""

    rule: str  # the shape's sh:name (or local name), e.g. "claim-source"
    message: str
    focus: str
    path: str | None = None
    value: str | None = None
    severity: str = "Violation"
    file: str | None = None
    line: int | None = None

    def location(self) -> str:
        if self.file and self.line:
            return f"{self.file}:{self.line}"
        return self.file or "<graph>"


@dataclass
class ValidationReport:
    conforms: bool
    violations: list[Violation] = field(default_factory=list)
    syntax_errors: list[RdfSyntaxError] = field(default_factory=list)
    triples: int = 0

    @property
    def usable(self) -> bool:
        return not self.syntax_errors

    @property
    def exit_code(self) -> int:
        """`hpckg validate`'s exit code: 0 conforms, 1 violations, 2 unusable input (syntax errors)."""
        if self.syntax_errors:
            return 2
        return 0 if self.conforms else 1

    def to_json(self) -> str:
        return json.dumps({
            "conforms": self.conforms and self.usable,
            "triples": self.triples,
            "syntax_errors": [{"file": e.path, "line": e.line, "column": e.column, "message": e.message}
                              for e in self.syntax_errors],
            "violations": [asdict(v) for v in self.violations],
        }, indent=2)

    def to_text(self) -> str:
        lines = [str(e) for e in self.syntax_errors]
        by_focus: dict[str, list[Violation]] = {}
        for v in self.violations:
            by_focus.setdefault(v.focus, []).append(v)
        for focus, results in by_focus.items():
            lines.append(f"{results[0].location()}: {shorten(focus)}")
            for v in results:
                detail = []
                if v.path:
                    detail.append(f"property {shorten(v.path)}")
                if v.value is not None:
                    detail.append(f"value {shorten(v.value)}")
                suffix = f" ({', '.join(detail)})" if detail else ""
                lines.append(f"  [{v.rule}] {v.message}{suffix}")
        if self.usable:
            n = len(self.violations)
            lines.append("conforms: the graph follows every sourcing rule" if self.conforms
                         else f"{n} violation{'s' if n != 1 else ''} in {len(by_focus)} "
                              f"node{'s' if len(by_focus) != 1 else ''}")
        return "\n".join(lines)


def sort_violations(violations: list[Violation]) -> list[Violation]:
    """The order both engines report in: by focus node, then rule, path and value."""
    return sorted(violations, key=lambda v: (v.focus, v.rule, v.path or "", v.value or ""))
