"""Canned queries (queries/*.rq, the file name is the identifier) and formatting of query results."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from hpckg.claims import shorten
from hpckg.errors import InputError, UnknownNameError
from hpckg.formats import (
    GRAPH_FORMATS,
    QUAD_ONLY_FORMATS,
    RESULTS_FORMATS,
    SELECT_FORMATS,
    TABLE,
    rdf_format,
    results_format,
    sparql_csv,
)
from hpckg.namespaces import PREFIXES
from hpckg.project import Project
from hpckg.querytext import PAGING, header_lines, with_paging_line
from hpckg.querytext import PLAN_AS_WRITTEN as PLAN_AS_WRITTEN  # re-exported: tests and servers.py name it here
from hpckg.store import QueryResult
from hpckg.terms import XSD_BOOLEAN, XSD_INTEGER, XSD_STRING
from hpckg.vocabulary import Scheme, suggestion_text, vocabulary

# "# param NAME: DEFAULT [TYPE] what it means" in a canned query's header; TYPE is a concept scheme of the
# ontology (hpc:TierScheme: the value is one of its concepts), xsd:boolean, xsd:integer or xsd:string, or
# hpc:ListEdition (YYYY-MM, bound as the edition's IRI) or hpc:System (slugs, bound as the systems' IRIs).
PARAM_LINE = re.compile(r"^#\s*param\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*:\s*(?P<default>\S+)\s+"
                        r"\[(?P<type>[\w-]+:[\w-]+)\]\s*(?P<description>.*)$")
LITERAL_TYPES = {"xsd:boolean": XSD_BOOLEAN, "xsd:integer": XSD_INTEGER, "xsd:string": XSD_STRING}
# A TOP500 edition named YYYY-MM, bound as its IRI (ds:top500-YYYY-MM): a query starting from the IRI runs in
# a fraction of a second where matching the edition's dcterms:issued text scans every edition.
EDITION_TYPE = "hpc:ListEdition"
EDITION_NAME = re.compile(r"(?:19|20)\d\d-(?:0[1-9]|1[0-2])")
# Systems named by their slugs, comma-separated ("kalos,seren"), bound as their IRIs (sys:kalos sys:seren) in
# one VALUES line: a query starting from the IRIs looks each system up, where building them with
# BIND(IRI(CONCAT(...))) makes Oxigraph scan the claims (seconds on the full graph). The word `all` binds
# UNDEF: every system, a whole-graph answer (past the endpoint's result cap on the full imports, so never a
# default).
SYSTEM_TYPE = "hpc:System"
ALL_SYSTEMS = "all"
SYSTEM_SLUG = re.compile(r"[A-Za-z0-9_~-]+")


@dataclass(frozen=True)
class Parameter:
    """A value a canned query takes, declared in its header and bound in its `VALUES ?name { ... }` line."""

    name: str
    default: str
    type: str  # a prefixed name: hpc:TierScheme, xsd:boolean...
    description: str
    ontology_dir: Path  # the ontology whose concept schemes a scheme-typed parameter takes its values from

    def allowed(self) -> list[str] | None:
        """The values a scheme-typed parameter takes (concept notations, in the scheme's order)."""
        if self.type in (EDITION_TYPE, SYSTEM_TYPE):
            return None
        if self.type in LITERAL_TYPES:
            return ["true", "false"] if self.type == "xsd:boolean" else None
        return [c.notation for c in self._scheme().concepts]

    def _scheme(self) -> Scheme:
        prefix, _, local = self.type.partition(":")
        scheme = vocabulary(self.ontology_dir).schemes.get(PREFIXES.get(prefix, "") + local)
        if scheme is None:
            raise InputError(f"parameter {self.name} is declared with type {self.type}, which is neither a concept "
                             f"scheme of the ontology nor one of {', '.join(LITERAL_TYPES)}")
        return scheme

    def term(self, value: str) -> ox.NamedNode | ox.Literal:
        """The RDF term for `value`, checked against the declared type; an error names the allowed values."""
        if self.type == "xsd:boolean":
            if value.lower() not in ("true", "false"):
                raise InputError(f"parameter {self.name} is true or false, not {value!r}")
            return ox.Literal(value.lower(), datatype=ox.NamedNode(XSD_BOOLEAN))
        if self.type == "xsd:integer":
            if not re.fullmatch(r"[+-]?\d{1,18}", value):
                raise InputError(f"parameter {self.name} is a whole number, not {value!r}")
            return ox.Literal(str(int(value)), datatype=ox.NamedNode(XSD_INTEGER))
        if self.type == "xsd:string":
            return ox.Literal(value)
        if self.type == EDITION_TYPE:
            if not EDITION_NAME.fullmatch(value):
                raise InputError(f"parameter {self.name} is a TOP500 edition written YYYY-MM (2025-06), not {value!r}")
            return ox.NamedNode(f"{PREFIXES['ds']}top500-{value}")
        if self.type == SYSTEM_TYPE:
            if not SYSTEM_SLUG.fullmatch(value):
                raise InputError(f"parameter {self.name} is a system's slug (letters, digits, - _ ~), not {value!r}")
            return ox.NamedNode(f"{PREFIXES['sys']}{value}")
        scheme = self._scheme()
        for concept in scheme.concepts:
            if value in (concept.notation, concept.iri, shorten(concept.iri)):
                return ox.NamedNode(concept.iri)
        hint = suggestion_text(value, [c.notation for c in scheme.concepts])
        raise InputError(f"parameter {self.name} is one of {', '.join(c.notation for c in scheme.concepts)} "
                         f"({scheme.label.lower()}), not {value!r}; {hint}".rstrip("; "))

    def terms(self, value: str) -> list[ox.NamedNode | ox.Literal] | list[str]:
        """The RDF terms `value` binds: one, or for hpc:System each comma-separated system slug's IRI (or
        UNDEF, every system, for `all`)."""
        if self.type != SYSTEM_TYPE:
            return [self.term(value)]
        if value.strip().lower() == ALL_SYSTEMS:
            return ["UNDEF"]
        slugs = [slug for slug in re.split(r"[,\s]+", value) if slug]
        bad = [slug for slug in slugs if not SYSTEM_SLUG.fullmatch(slug) or slug.lower() == ALL_SYSTEMS]
        if not slugs or bad:
            raise InputError(f"parameter {self.name} is one or more system slugs, comma-separated (kalos,seren), "
                             f"or {ALL_SYSTEMS}, not {value!r}")
        return [ox.NamedNode(PREFIXES["sys"] + slug) for slug in slugs]

    def summary(self) -> str:
        """'min_tier=lead (one of verified, reported, lead): the lowest tier counted...'."""
        allowed = self.allowed()
        kind = f"one of {', '.join(allowed)}" if allowed else self.type
        return f"{self.name}={self.default} ({kind}): {self.description}"


# The kinds of question the ready-made queries answer, in the order the website lists them (`# group: KEY`).
GROUPS = {
    "lists": "Lists: TOP500 editions, Epoch AI's clusters, sites, organisations, parts",
    "statistics": "Statistics per edition and over time",
    "accelerators": "Accelerator totals",
    "systems": "One system, or several side by side",
    "changes": "What changed: edits, Rmax, moves",
    "suppliers": "Suppliers and who owns them today",
    "sourcing": "Sourcing: leads, conflicts, derived facts, links between records",
}


@dataclass(frozen=True)
class CannedQuery:
    name: str
    path: Path
    description: str
    ontology_dir: Path  # the project's ontology: the concept schemes its parameters take values from

    @property
    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        return header_parameters(self.text, self.ontology_dir)

    @property
    def needs(self) -> tuple[str, ...]:
        """The imported datasets the query is about (`# needs: top500` in its header): on a graph without
        them it answers no rows, by design."""
        return tuple(self.header_field("needs").replace(",", " ").split())

    @property
    def group(self) -> str:
        """The kind of question it answers (`# group: lists` in its header), one of GROUPS: how the website's
        list of queries is sectioned."""
        return self.header_field("group")

    def header_field(self, name: str) -> str:
        """What the header's `# NAME: ...` line says ("" without one)."""
        for line in header_lines(self.text):
            if line.startswith(f"# {name}:"):
                return line.removeprefix(f"# {name}:").strip()
        return ""

    def bind(self, values: Mapping[str, str] | None = None) -> str:
        """The query text with each parameter's VALUES line holding the given value (else its default), as an
        RDF term checked against the parameter's type: user text never becomes query text."""
        return bind_parameters(self.text, values or {}, self.ontology_dir, label=self.name)


def header_parameters(text: str, ontology_dir: Path) -> tuple[Parameter, ...]:
    """The parameters a query's header comment declares (scheme-typed ones take their values from the concept
    schemes of the ontology in `ontology_dir`)."""
    found: list[Parameter] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        match = PARAM_LINE.match(stripped)
        if match:
            found.append(Parameter(match["name"], match["default"], match["type"], match["description"].strip(),
                                   ontology_dir))
        elif found and re.match(r"#\s{2,}\S", stripped):  # an indented line continues the description
            last = found[-1]
            found[-1] = Parameter(last.name, last.default, last.type, f"{last.description} {stripped[1:].strip()}",
                                  ontology_dir)
    return tuple(found)


def bind_parameters(text: str, values: Mapping[str, str], ontology_dir: Path, *, label: str = "query") -> str:
    parameters = {p.name: p for p in header_parameters(text, ontology_dir)}
    unknown = sorted(set(values) - set(parameters))
    if unknown:
        takes = ", ".join(parameters) if parameters else "no parameters"
        raise InputError(f"{label} has no parameter {', '.join(unknown)}; it takes {takes}")
    for name, parameter in parameters.items():
        if name in PAGING:
            text = _bind_paging(text, parameter, values.get(name, parameter.default), label)
            continue
        terms = " ".join(map(str, parameter.terms(values.get(name, parameter.default))))
        # Each `VALUES ?name { ... }` line holds the value: a query whose subqueries each start from the value
        # (top500-list) repeats the line in each, since a subquery sees no outer binding.
        pattern = re.compile(r"VALUES\s+\?" + re.escape(name) + r"\s*\{[^}]*\}")
        if not pattern.search(text):
            raise InputError(f"{label} declares parameter {name} but has no `VALUES ?{name} {{ ... }}` line "
                             "to bind it in")
        bound = f"VALUES ?{name} {{ {terms} }}"
        text = pattern.sub(lambda _, bound=bound: bound, text)  # a function: the term's text is not a template
    return text


def _bind_paging(text: str, parameter: Parameter, value: str, label: str) -> str:
    """The query text with its outermost `LIMIT n` (or `OFFSET n`) line holding `value`, a whole number checked
    as such: a page of a long answer (the endpoint refuses answers over its result cap)."""
    if parameter.type != "xsd:integer":
        raise InputError(f"{label} declares parameter {parameter.name} as {parameter.type}; {parameter.name} is "
                         "a whole number (xsd:integer)")
    number = int(parameter.term(value).value)
    if number < 0:
        raise InputError(f"parameter {parameter.name} is a whole number of rows, 0 or more, not {value!r}")
    keyword = PAGING[parameter.name]
    bound = with_paging_line(text, keyword, f"{keyword} {number}")
    if bound is None:
        raise InputError(f"{label} declares parameter {parameter.name} but has no `{keyword} n` line to bind it in")
    return bound


DESCRIPTION_CHARACTERS = 240  # what a list of queries shows of one: about two lines of a page


def header_description(text: str) -> str:
    """What the query answers: the first sentence of its header comment, read across the comment's lines (the
    first line alone cut "for each system (named by its slug), each of its" short), shortened at a comma or
    semicolon with an ellipsis when longer than DESCRIPTION_CHARACTERS."""
    words: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#"):
            break
        comment = stripped.lstrip("#").strip()
        if not comment or re.match(r"(param\s+\w+:|needs:|group:)", comment):
            break
        words.append(comment)
    paragraph = " ".join(words)
    ended = re.search(r"(?<=[.!?])\s+(?=[A-Z(`?])", paragraph)
    sentence = paragraph[:ended.start()] if ended else paragraph
    if len(sentence) <= DESCRIPTION_CHARACTERS:
        return sentence
    # the last comma, semicolon, colon or opening parenthesis in reach that leaves no parenthesis open
    cuts = [m.start() for m in re.finditer(r", |; |: | \(", sentence[:DESCRIPTION_CHARACTERS])
            if sentence[:m.start()].count("(") == sentence[:m.start()].count(")") and m.start() > 40]
    return (sentence[:cuts[-1]] if cuts else sentence[:sentence.rfind(" ", 0, DESCRIPTION_CHARACTERS)]) + " …"


def canned_queries(project: Project) -> list[CannedQuery]:
    """The project's canned queries (queries/*.rq), by name."""
    return [CannedQuery(p.stem, p, header_description(p.read_text(encoding="utf-8")), project.ontology_dir)
            for p in sorted(project.queries_dir.glob("*.rq"))]


def canned_query(project: Project, name: str) -> CannedQuery:
    queries = canned_queries(project)
    for query in queries:
        if query.name == name:
            return query
    names = ", ".join(q.name for q in queries)
    raise UnknownNameError(f"no canned query named {name!r}; available: {names}")


def resolve_query(project: Project, ref: str, params: Mapping[str, str] | None = None) -> tuple[str, str]:
    """(label, SPARQL text) for a canned query name or a path to a .rq/.sparql file, its parameters bound."""
    path = Path(ref)
    if ref.endswith((".rq", ".sparql")) or path.is_file():
        if not path.is_file():
            raise InputError(f"query file not found: {ref}")
        return str(path), bind_parameters(path.read_text(encoding="utf-8"), params or {}, project.ontology_dir,
                                          label=str(path))
    query = canned_query(project, ref)
    return query.name, query.bind(params)


def _cell(term: ox.NamedNode | ox.BlankNode | ox.Literal | None) -> str:
    if term is None:
        return ""
    if isinstance(term, ox.NamedNode):
        return shorten(term.value)
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    if isinstance(term, ox.Literal):
        return term.value
    return str(term)


def format_table(result: ox.QuerySolutions) -> str:
    """An aligned text table with prefixed IRIs, as a person reads it in a terminal."""
    names = [v.value for v in result.variables]
    rows = [[_cell(solution[name]) for name in names] for solution in result]
    widths = [max([len(n), *(len(r[i]) for r in rows)]) for i, n in enumerate(names)]
    line = "  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True))
    out = [line.rstrip(), "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out) + "\n"


def format_result(result: QueryResult, format: str | None = None) -> bytes:
    """Serialise a query result: SELECT/ASK as table, csv, tsv, json or xml; CONSTRUCT/DESCRIBE as any RDF
    format (default Turtle)."""
    if isinstance(result, ox.QueryTriples):
        fmt = rdf_format(format or "ttl")
        if fmt.name in QUAD_ONLY_FORMATS:
            raise InputError(f"--format {format} is a dataset format; graph results take one of: "
                             + ", ".join(GRAPH_FORMATS))
        return ox.serialize(list(result), format=fmt.oxigraph) or b""
    name = (format or TABLE).lower()
    if isinstance(result, ox.QueryBoolean):
        if name == TABLE:
            return (b"true\n" if bool(result) else b"false\n")
    elif name == TABLE:
        return format_table(result).encode("utf-8")
    if name not in RESULTS_FORMATS:
        raise InputError(f"--format {format} does not apply to SELECT/ASK results; use one of: "
                         + ", ".join(SELECT_FORMATS))
    if name == "csv" and not isinstance(result, ox.QueryBoolean):
        variables = [v.value for v in result.variables]
        return sparql_csv(variables, ([_csv_cell(solution[v]) for v in variables] for solution in result))
    buffer = io.BytesIO()
    result.serialize(buffer, format=results_format(name).oxigraph)
    return buffer.getvalue()


def _csv_cell(term: ox.NamedNode | ox.BlankNode | ox.Literal | None) -> str:
    if term is None:
        return ""
    return f"_:{term.value}" if isinstance(term, ox.BlankNode) else term.value
