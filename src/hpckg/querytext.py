"""A person's SPARQL, read for the two mistakes that cost the most time: a syntax error, said as a line, a
column and a short message (not the parser's list of every token and Unicode range it would have accepted),
and a term the ontology does not define (`hpc:Sytem`), which parses, runs and silently matches nothing.
Used by `hpckg query` and by the server's query editor and endpoint.

Also the query's header comment (its leading `#` lines: hpckg.query reads a canned query's description and
parameters there) and whether it asks for the written join order, which the store reads before sending a query
to a server: kept here, below both, so that hpckg.store need not import hpckg.query, which imports it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hpckg.namespaces import ONTOLOGY, PREFIXES, VOCAB, shorten

_POSITION = re.compile(r"error at (\d+):(\d+): (.*)", re.S)
# A token the parser lists that a person can act on: a keyword or punctuation, not a character class.
_READABLE = re.compile(r'^"[^"]{1,12}"$|^[A-Z][A-Za-z]{1,15}$')
_MAX_EXPECTED = 6


@dataclass(frozen=True)
class SyntaxProblem:
    line: int
    column: int
    message: str  # short: "unexpected '}'", "the query ends before it is complete"

    def __str__(self) -> str:
        return f"SPARQL syntax error at line {self.line}, column {self.column}: {self.message}"


def syntax_problem(text: str, parser_message: str, *, prepended_lines: int = 0) -> SyntaxProblem | None:
    """The parser's 'error at L:C: expected one of ...' as a line, a column in the user's own text (lines
    hpckg prepended subtracted) and a short message; None when the message gives no position."""
    match = _POSITION.search(parser_message)
    if not match:
        return None
    line, column = int(match[1]) - prepended_lines, int(match[2])
    lines = text.splitlines()
    before = after = ""
    if 1 <= line <= len(lines):
        cut = max(column - 1, 0)
        before = "\n".join(lines[:line - 1] + [lines[line - 1][:cut]])
        after = lines[line - 1][cut:] + "\n" + "\n".join(lines[line:])
    previous = re.search(r"([^\s{}()]+|[{}()])\s*$", before)
    following = re.match(r"\s*([^\s{}()]+|[{}()])", after)
    if "Prefix not found" in parser_message:
        name = re.search(r"([\w-]*):[\w-]*\s*$", before) or re.match(r"\s*([\w-]*):", after)
        said = f"the prefix {name.group(1) + ':' if name else ''} is not declared; add a PREFIX line for it"
        return SyntaxProblem(line, column, said)
    if following is None:
        said = "the query ends too early" + (f", after {previous.group(1)[:30]!r}" if previous else "")
        return SyntaxProblem(line, column, said + ": is a closing '}' or ')', or part of a triple, missing?")
    said = f"unexpected {following.group(1)[:30]!r}"
    expected = _expected(match[3])
    if expected:
        said += f"; expected {' or '.join(expected)}" if len(expected) <= 2 else \
            f"; expected one of {', '.join(expected)}"
    return SyntaxProblem(line, column, said)


def _expected(detail: str) -> list[str]:
    """The tokens the parser expected, when they are few and readable; else none (the position says enough)."""
    found = re.search(r"expected one of (.*)|expected (.*)", " ".join(detail.split()))
    if not found:
        return []
    items = [item.strip() for item in (found[1] or found[2]).split(", ")]
    readable = [item for item in items if _READABLE.match(item)]
    if len(readable) != len(items) or len(readable) > _MAX_EXPECTED:
        return []
    return readable


def header_lines(text: str) -> list[str]:
    """The query's header comment: its leading `#` lines, stripped."""
    lines = []
    for line in text.lstrip().splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.strip())
    return lines


# A header line asking a server that plans joins by its own statistics to take them as written (the queries are
# written for Oxigraph, which mostly does); the server profile says what that server needs for it
# (hpckg.servers.ServerProfile.written_order). Virtuoso 07.20.3229 planned `top500-list` through the graph
# group so badly it gave no answer in 120 s on the full import; in the written order it answers in 7 s.
PLAN_AS_WRITTEN = "# plan: as written"


def asks_written_order(text: str) -> bool:
    """Whether the query's header comment holds the PLAN_AS_WRITTEN line."""
    return PLAN_AS_WRITTEN in header_lines(text)


_PREFIX_DECL = re.compile(r"PREFIX\s+([\w-]*):\s*<([^>]*)>", re.I)
# Read left to right, so a '#' inside an IRI or a string is not taken for a comment.
_TOKENS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
                     r"|<(?P<iri>[^<>\s]*)>|#[^\n]*")
_PREFIXED = re.compile(r"(?<![\w:/#?$-])([A-Za-z][\w-]*)?:([A-Za-z_][\w-]*(?:\.[\w-]+)*)")


def undefined_terms(text: str, ontology_dir: Path) -> list[str]:
    """A warning for each term in the hpckg ontology or vocabulary namespaces that the ontology does not
    define, with the nearest defined term: 'hpc:Sytem is not defined in the ontology; did you mean
    hpc:System? (the query matches nothing with it)'. The ontology is the one in `ontology_dir`."""
    from hpckg.vocabulary import suggestion_text, vocabulary  # reads the ontology: only when asked

    prefixes = dict(PREFIXES)
    prefixes.update({name: iri for name, iri in _PREFIX_DECL.findall(text)})
    used: list[str] = []

    def blank(match: re.Match) -> str:
        if match["iri"] is not None:
            used.append(match["iri"])
        return " "

    code = _TOKENS.sub(blank, _PREFIX_DECL.sub(" ", text))
    for prefix, local in _PREFIXED.findall(code):
        if prefix in prefixes:
            used.append(prefixes[prefix] + local)
    terms = vocabulary(ontology_dir).terms
    warnings = []
    for iri in dict.fromkeys(used):
        if not iri.startswith((ONTOLOGY, VOCAB)) or iri in terms or iri.endswith(("/", "#")):
            continue
        hint = suggestion_text(iri, terms)
        warnings.append(f"{shorten(iri)} is not defined in the ontology; {hint}"
                        "(the query matches nothing with it; `hpckg vocab` lists the terms)")
    return warnings


# Parameters that page a long answer: `# param limit: 100 [xsd:integer]` binds the query's last `LIMIT n` line
# (`offset` its `OFFSET n` line) instead of a VALUES line: SPARQL has no variable for either.
PAGING = {"limit": "LIMIT", "offset": "OFFSET"}


def with_paging_line(text: str, keyword: str, line: str) -> str | None:
    """The query with its outermost `LIMIT n` (or `OFFSET n`) line, a line of its own that closes the text's
    last query, replaced by `line` ('' drops it); None when it has no such line."""
    found = list(re.finditer(rf"^{keyword}\s+\d+[ \t]*$", text, flags=re.MULTILINE))
    if not found:
        return None
    return f"{text[:found[-1].start()]}{line}{text[found[-1].end():]}"


def unpaged(text: str) -> str:
    """The query without its outermost LIMIT and OFFSET lines: every row (the build counts them all)."""
    for keyword in PAGING.values():
        text = with_paging_line(text, keyword, "") or text
    return text
