"""The SPARQL 1.1 Protocol side of the server: what a request asks for, which format answers it, and the
serializers that turn pyoxigraph results into bytes.

Whether an operation calls SERVICE or LOAD (an outbound request), carries USING/WITH, or holds several
operations is decided from a real SPARQL parse (rdflib's grammar, see `analyse`), never by matching text. The
token helpers below (prefixes used, volatile functions) only tune caching and prefix passing, where a wrong
guess costs speed, not safety.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import sys
import threading
from dataclasses import dataclass, field

import pyoxigraph as ox

from hpckg.formats import (
    RDF_FORMATS,
    RESULTS_FORMATS,
    RdfFormatInfo,
    ResultsFormatInfo,
    rdf_format_for_media_type,
    results_format_for_media_type,
    sparql_csv,
)
from hpckg.namespaces import PREFIXES
from hpckg.terms import XSD_STRING

# Comments, strings (long first) and IRIREFs: the lexemes in which keywords mean nothing.
_OPAQUE = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""' r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    r'|"(?:[^"\\\n]|\\.)*"' r"|'(?:[^'\\\n]|\\.)*'"
    r'|<[^<>"{}|^`\\\x00-\x20]*>'
    r"|#[^\n]*",
    re.DOTALL,
)
_KEYWORD = r"(?<![\w:?$.\-]){}(?![\w:\-])"
_SERVICE = re.compile(_KEYWORD.format("SERVICE"), re.IGNORECASE)
_FORMS = re.compile(_KEYWORD.format(
    "(SELECT|CONSTRUCT|DESCRIBE|ASK|INSERT|DELETE|LOAD|CLEAR|DROP|CREATE|ADD|MOVE|COPY|WITH)"), re.IGNORECASE)
UPDATE_FORMS = {"INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY", "WITH"}


@functools.lru_cache(maxsize=8)  # a request asks about its text several times (update? SERVICE? volatile?)
def _blank_opaque(text: str) -> str:
    # Replace comments, strings and IRIs with spaces of the same length, keeping positions.
    return _OPAQUE.sub(lambda m: " " * len(m.group(0)), text)


def query_form(text: str) -> str | None:
    """The first operation keyword of a query or update (SELECT, ASK, INSERT...), or None."""
    match = _FORMS.search(_blank_opaque(text))
    return match.group(1).upper() if match else None


_PREFIX_NAME = re.compile(r"([^\W\d_][\w.\-]*):")


def used_prefixes(text: str, prefixes: dict[str, str]) -> dict[str, str]:
    """The entries of `prefixes` whose names a query uses in prefixed names (outside strings, IRIs and
    comments). Over-inclusion is harmless; a query that uses none gets an empty dict. Oxigraph parses every
    prefix it is given on every query, so passing only these keeps cheap queries cheap."""
    blanked = _blank_opaque(text)
    if ":" not in blanked:
        return {}
    names = set(_PREFIX_NAME.findall(blanked)) | {""}  # "" for the empty prefix, as in :name
    return {name: iri for name, iri in prefixes.items() if name in names}


def is_update(text: str) -> bool:
    return query_form(text) in UPDATE_FORMS


_VOLATILE = re.compile(_KEYWORD.format("(RAND|NOW|UUID|STRUUID|BNODE|SERVICE)"), re.IGNORECASE)


def deterministic(text: str) -> bool:
    """Whether two runs of a query over the same data always give the same answer: no RAND, NOW, UUID,
    STRUUID, BNODE or SERVICE token (a conservative check: the words as variables or in IRIs do not count,
    as bare keywords they always do)."""
    return _VOLATILE.search(_blank_opaque(text)) is None


MAX_NESTING = 64  # brackets ({, (, [) open at once; deeper text is refused before any parser sees it
_BRACKETS = re.compile(r"[{}()\[\]]")


def nesting(text: str) -> int:
    """The deepest nesting of brackets outside strings, IRIs and comments (an upper bound of the grammar's
    nesting: a parser recursing on 10,000 nested OPTIONALs crashes, so such text never reaches one)."""
    depth = deepest = 0
    for match in _BRACKETS.finditer(_blank_opaque(text)):
        if match.group(0) in "{([":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(0, depth - 1)
    return deepest


@dataclass(frozen=True)
class Analysis:
    """What a parse of an operation says about it. `parsed` is False when rdflib's grammar refused the text
    (Oxigraph's own parser then answers with its error; the query workers have no network either way)."""

    parsed: bool
    service: bool = False  # a SERVICE clause anywhere (federated query: an outbound request)
    load: bool = False  # a LOAD operation (an outbound request)
    dataset_clause: bool = False  # an update with USING, USING NAMED or WITH
    operations: int = 0  # update operations in the request
    modify_only: bool = True  # every update operation is DELETE/INSERT ... WHERE (or data-only)
    error: str = ""


def _names(node, seen: set[str], keys: set[str]) -> None:
    from rdflib.plugins.sparql.parserutils import CompValue

    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, CompValue):
            seen.add(item.name)
            keys.update(k for k, v in item.items() if v is not None)
            stack.extend(item.values())
        elif isinstance(item, list | tuple) or type(item).__name__ == "ParseResults":
            stack.extend(item)


# Words whose absence from the whole text (any case; SPARQL's \u escapes counted as possibly anything)
# proves the construct is absent, so the parse, ~10-30 ms, is skipped for the common query.
def _may_contain(text: str, word: str) -> bool:
    return word in text.lower() or "\\u" in text.lower()


def needs_parse(text: str) -> bool:
    """Whether `analyse` of a query must parse it (and may take tens of milliseconds)."""
    return _may_contain(text, "service")


# A codepoint escape as rdflib reads it: anywhere in the text, even right after another backslash.
_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
# Strings, IRIs (codepoint escapes allowed in them, as in IRIREF) and comments, leftmost first.
_LEXEMES = re.compile(_OPAQUE.pattern.replace(r'|<[^<>"{}|^`\\\x00-\x20]*>',
                                              r'|<(?:[^<>"{}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>'),
                      re.DOTALL)
# Characters that end or open a lexeme: an escape decoding to one reads differently in the two parsers.
_LEXICAL = set('"\'<>\\{}|^`#')


def escape_problem(text: str) -> str | None:
    """Why the check and the engine would read this text's \\u/\\U escapes differently, or None.

    rdflib (the check) expands codepoint escapes across the whole text before parsing; Oxigraph (the engine)
    only inside strings and IRIs, as one character of that lexeme. The two read the same text alike when
    every escape lies inside a string or an IRI (as Oxigraph's lexer finds them) and decodes to a character
    that cannot end or open a lexeme there; anything else (an escape in a comment or between tokens, or one
    decoding to a quote, a bracket, a backslash, a control character or a line break) is refused."""
    if "\\u" not in text and "\\U" not in text:
        return None
    normal = text.replace("\r\n", "\n").replace("\r", "\n")  # SPARQL ends a comment at CR as at LF
    inside: list[tuple[int, int]] = [match.span() for match in _LEXEMES.finditer(normal)
                                     if not match.group(0).startswith("#")]
    starts = [start for start, _ in inside]
    for match in _ESCAPE.finditer(normal):
        at = match.start()
        index = bisect.bisect_right(starts, at) - 1
        if index < 0 or not (inside[index][0] < at and match.end() <= inside[index][1] - 1):
            line = normal.count("\n", 0, at) + 1
            return (f"the escape {match.group(0)} on line {line} is outside a string or an IRI; SPARQL parsers "
                    "disagree on such escapes, so this server refuses them: write the character itself")
        code = int(match.group(1) or match.group(2), 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF or code <= 0x20 or chr(code) in _LEXICAL:
            line = normal.count("\n", 0, at) + 1
            return (f"the escape {match.group(0)} on line {line} stands for a character that ends or opens a "
                    "token (a quote, bracket, backslash, space or control character); SPARQL parsers disagree "
                    "on such escapes, so this server refuses them: use \\\" or \\n style escapes instead")
    return None


def blank_opaque(text: str) -> str:
    """The text with comments, strings and IRIs replaced by spaces (positions kept)."""
    return _blank_opaque(text)


CACHED_TEXT = 16 * 1024  # longer texts are parsed every time: the cache holds at most 4,096 x 16 KiB


def analyse(text: str, update: bool = False) -> Analysis:
    """Parse a query (or an update) with rdflib's SPARQL grammar and report what it asks for. Cached by
    text (up to CACHED_TEXT characters): a distinct text is parsed once."""
    return _analyse_cached(text, update) if len(text) <= CACHED_TEXT else _analyse(text, update)


PARSE_STACK = 64 << 20  # bytes of stack for a parse (12,000 patterns in one group parse within it)
PARSE_RECURSION = 120_000  # Python frames a parse may use: rdflib recurses per pattern of a group
_PARSE_LOCK = threading.Lock()  # pyparsing fixes its parse actions up on first calls: not thread-safe


def _parse(text: str, update: bool):
    """rdflib's parse tree of an operation, in a thread of its own with a deep stack (a query's own depth is
    bounded by MAX_NESTING before this, but a long group of patterns recurses too); one parse at a time."""
    from rdflib.plugins.sparql.parser import parseQuery, parseUpdate

    # SPARQL ends a comment at CR or LF (EOL ::= [#xA#xD]); rdflib's grammar only at LF.
    normal = text.replace("\r\n", "\n").replace("\r", "\n")
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["tree"] = parseUpdate(normal) if update else parseQuery(normal)
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = error

    with _PARSE_LOCK:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, PARSE_RECURSION))
        previous = threading.stack_size(PARSE_STACK)
        try:
            thread = threading.Thread(target=run, name="hpckg-sparql-parse", daemon=True)
            thread.start()
        finally:
            threading.stack_size(previous)
        thread.join()
        sys.setrecursionlimit(limit)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["tree"]


def _analyse(text: str, update: bool) -> Analysis:
    lowered = text.lower()
    if not update and not _may_contain(lowered, "service"):
        return Analysis(parsed=True)
    problem = escape_problem(text)
    if problem:
        return Analysis(parsed=False, error=problem)
    try:
        tree = _parse(text, update)
    except RecursionError:
        return Analysis(parsed=False, error="too deeply nested")
    except Exception as error:  # noqa: BLE001 - pyparsing raises several types for bad syntax
        return Analysis(parsed=False, error=str(error))
    names: set[str] = set()
    keys: set[str] = set()
    _names(tree, names, keys)
    operations = len(tree.get("request", [])) if update else 1
    modify_only = all(getattr(op, "name", "") in ("Modify", "InsertData", "DeleteData", "DeleteWhere")
                      for op in tree.get("request", [])) if update else True
    return Analysis(parsed=True, service="ServiceGraphPattern" in names, load="Load" in names,
                    dataset_clause="UsingClause" in names or "withClause" in keys, operations=operations,
                    modify_only=modify_only)


# ---- lookups: queries cheap and bounded by their form ---------------------------------------------------

_LOOKUP_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n]+|\#[^\r\n]*)
  | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
  | (?P<string>"[^"\\\r\n]*"(?:@[A-Za-z]+(?:-[A-Za-z0-9]+)*)?)
  | (?P<var>[?$][A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>[0-9]+(?![\w:]))
  | (?P<pname>[A-Za-z][A-Za-z0-9_-]*:[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)
  | (?P<word>[A-Za-z]+(?![\w:-]))
  | (?P<punct>[{}.])
""", re.VERBOSE)


@functools.lru_cache(maxsize=1024)
def _lookup_shape(tokens: tuple[str, ...]) -> bool:
    kinds = list(tokens)
    if not kinds:
        return False
    if kinds[0] == "ASK":
        rest = kinds[1:]
    elif kinds[0] == "SELECT":  # no DISTINCT: it would read a whole index range before the first row
        i = start = 1
        while i < len(kinds) and kinds[i] == "var":
            i += 1
        if i == start:
            return False
        rest = kinds[i:]
    else:
        return False
    if rest[:1] == ["WHERE"]:
        rest = rest[1:]
    # { constant-subject predicate object [.] } [LIMIT n]
    if len(rest) < 5 or rest[0] != "{" or rest[1] not in ("iri", "pname"):
        return False
    if rest[2] not in ("iri", "pname", "var", "a") or rest[3] not in ("iri", "pname", "var", "string"):
        return False
    tail = rest[4:]
    if tail[:1] == ["."]:
        tail = tail[1:]
    return tail in (["}"], ["}", "LIMIT", "number"])


def is_lookup(text: str) -> bool:
    """Whether a query is a lookup: SELECT or ASK over one triple pattern whose subject is an IRI (at most
    a LIMIT after it). Decided by a complete tokenisation of a small sub-grammar of SPARQL (any other token,
    keyword or shape: not a lookup), so the form is known: no SERVICE, no path, no join, no DISTINCT or
    ORDER BY; rows stream from one index range of one subject and reading stops past the result cap, so it
    is cheap enough to run on the server's event loop."""
    if len(text) > 4096:
        return False
    kinds: list[str] = []
    position = 0
    while position < len(text):
        match = _LOOKUP_TOKEN.match(text, position)
        if match is None:
            return False
        position = match.end()
        kind = match.lastgroup
        if kind == "space":
            continue
        if kind == "word":
            word = match.group(0)
            upper = word.upper()
            if word == "a":
                kinds.append("a")
                continue
            if upper not in ("SELECT", "WHERE", "ASK", "LIMIT"):
                return False
            kinds.append(upper)
        elif kind == "punct":
            kinds.append(match.group(0))
        else:
            kinds.append(kind)  # type: ignore[arg-type]
    return _lookup_shape(tuple(kinds))


_analyse_cached = functools.lru_cache(maxsize=4096)(_analyse)


SERVICE_REFUSED = ("federated queries (SERVICE) are disabled on this server, which makes no outbound requests; "
                   "run the query against the remote endpoint, or start hpckg serve with --allow-service")


def uses_service(text: str) -> bool:
    """Whether a query contains a SERVICE clause (federated query), from a parse of the query."""
    return analyse(text).service


@dataclass
class QueryRequest:
    """What a SPARQL protocol request asks: the operation text and its dataset."""

    query: str | None = None
    update: str | None = None
    default_graphs: list[str] = field(default_factory=list)
    named_graphs: list[str] = field(default_factory=list)
    using_graphs: list[str] = field(default_factory=list)  # an update's using-graph-uri
    using_named_graphs: list[str] = field(default_factory=list)  # an update's using-named-graph-uri


# ---- content negotiation --------------------------------------------------------------------------

_FORMAT_NAMES = {"n3": "ttl", "turtle": "ttl", "rdf": "xml", "rdf+xml": "xml", "rdfxml": "xml",
                 "json-ld": "jsonld", "ntriples": "nt", "n-triples": "nt", "srj": "json", "srx": "xml"}


def accepted(accept: str) -> list[str]:
    """Media types of an Accept header, best first (by q, then by position)."""
    ranked = []
    for position, item in enumerate(accept.split(",")):
        media, *params = (part.strip() for part in item.split(";"))
        q = 1.0
        for param in params:
            if param.startswith("q="):
                try:
                    q = float(param[2:])
                except ValueError:
                    q = 0.0
        if media and q > 0:
            ranked.append((-q, position, media.lower()))
    return [media for _, _, media in sorted(ranked)]


def negotiate(accept: str, format: str | None) -> tuple[ResultsFormatInfo, RdfFormatInfo]:
    """The results format (SELECT/ASK) and RDF format (CONSTRUCT/DESCRIBE) a client wants.

    A `format` parameter (a name such as json, csv, ttl, or a media type) wins over Accept; anything
    unknown falls back to SPARQL JSON and Turtle.
    """
    results: ResultsFormatInfo | None = None
    rdf: RdfFormatInfo | None = None
    if format:
        name = _FORMAT_NAMES.get(format.lower(), format.lower())
        results = RESULTS_FORMATS.get(name) or results_format_for_media_type(format)
        rdf = RDF_FORMATS.get("jsonld" if name == "json" else name) or rdf_format_for_media_type(format)
    for media in accepted(accept):
        if results is None and media != "application/json":
            results = results_format_for_media_type(media)
        if rdf is None and media not in ("text/plain", "application/xml", "application/json"):
            rdf = rdf_format_for_media_type(media)
        if media == "application/json" and results is None:
            results = RESULTS_FORMATS["json"]
    return results or RESULTS_FORMATS["json"], rdf or RDF_FORMATS["ttl"]


def wants_html(accept: str) -> bool:
    """Whether a client (a browser) prefers an HTML page over data."""
    ranked = accepted(accept)
    return bool(ranked) and ranked[0] in ("text/html", "application/xhtml+xml")


# ---- serializers ----------------------------------------------------------------------------------

def term_json(term: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> dict:
    """A term in the SPARQL 1.1 Query Results JSON format."""
    if isinstance(term, ox.NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, ox.BlankNode):
        return {"type": "bnode", "value": term.value}
    if isinstance(term, ox.Triple):
        return {"type": "triple", "value": {"subject": term_json(term.subject),
                                            "predicate": term_json(term.predicate),
                                            "object": term_json(term.object)}}
    out: dict = {"type": "literal", "value": term.value}
    if term.language:
        out["xml:lang"] = term.language
    elif term.datatype.value != XSD_STRING:
        out["datatype"] = term.datatype.value
    return out


def solutions_json(variables: list[str], rows: list[ox.QuerySolution]) -> dict:
    bindings = []
    for row in rows:
        binding = {}
        for name in variables:
            value = row[name]
            if value is not None:
                binding[name] = term_json(value)
        bindings.append(binding)
    return {"head": {"vars": variables}, "results": {"bindings": bindings}}


def serialize_results(document: dict, format: ResultsFormatInfo) -> bytes:
    """Serialize a SPARQL JSON results document (solutions or boolean) in any results format."""
    data = json.dumps(document, ensure_ascii=False).encode("utf-8")
    if format.name == "json":
        return data
    if format.name == "csv" and "results" in document:
        variables = document["head"]["vars"]
        return sparql_csv(variables, ([_csv_text(binding.get(v)) for v in variables]
                                      for binding in document["results"]["bindings"]))
    parsed = ox.parse_query_results(data, format=ox.QueryResultsFormat.JSON)
    return parsed.serialize(format=format.oxigraph)


def _csv_text(term: dict | None) -> str:
    if term is None:
        return ""
    return f"_:{term['value']}" if term["type"] == "bnode" else str(term["value"])


def serialize_triples(triples: list[ox.Triple], format: RdfFormatInfo) -> bytes:
    if format.is_quad:
        triples = [ox.Quad(t.subject, t.predicate, t.object) for t in triples]
    prefixes = PREFIXES if format.name in ("ttl", "xml", "trig") else None
    return ox.serialize(triples, format=format.oxigraph, prefixes=prefixes)


def json_term_text(term: dict) -> str:
    """A readable rendering of a SPARQL JSON term (for HTML tables)."""
    return term.get("value", "") if term.get("type") != "triple" else " ".join(
        json_term_text(part) for part in term["value"].values())
