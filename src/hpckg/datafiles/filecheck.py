"""File-level checks of a contribution, run before anything is loaded into a graph: size, encoding,
syntax, prefixes, @base, owl:imports, RDF lists and blank nodes, ill-typed literals, terms the ontology
does not define, IRI conventions and placeholders left by `hpckg new`."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path

import pyoxigraph as ox

from hpckg.claims import find_iri, shorten
from hpckg.datafiles.placeholders import TODO_NS, check_placeholders
from hpckg.datafiles.report import CheckReport
from hpckg.errors import RdfSyntaxError
from hpckg.formats import rdf_format
from hpckg.names import COUNTRY_SLUG_RE, SLUG_RE
from hpckg.namespaces import BASE, ENTITY_KINDS, GRAPH, ID, ONTOLOGY, PREFIXES, VOCAB, entity, hpc
from hpckg.project import FileRefused, Project, read_file
from hpckg.store import parse_rdf
from hpckg.terms import OWL_IMPORTS, RDF_FIRST, RDF_REST, RDF_TYPE, XSD
from hpckg.vocabulary import suggestion_text, vocabulary

# One system's file is a few tens of kilobytes; anything this big is not a hand-written contribution.
MAX_BYTES = 2_000_000
HPC_SLUG = hpc("slug")
PROV_SPECIALIZATION_OF = PREFIXES["prov"] + "specializationOf"
PROV_WAS_ASSOCIATED_WITH = PREFIXES["prov"] + "wasAssociatedWith"
# The IRI schemes a data file may use: web addresses and documented identifier schemes.
SAFE_SCHEMES = frozenset({"http", "https", "doi", "urn", "mailto"})
_OWL, _RDFS, _SKOS = PREFIXES["owl"], PREFIXES["rdfs"], PREFIXES["skos"]
# What only the ontology may state: that something is a class, a property or a concept, and its place.
TERM_CLASSES = frozenset({_OWL + "Class", _RDFS + "Class", PREFIXES["rdf"] + "Property", _OWL + "ObjectProperty",
                          _OWL + "DatatypeProperty", _OWL + "AnnotationProperty", _SKOS + "Concept",
                          _SKOS + "ConceptScheme", hpc("ClaimProperty"), hpc("PerformanceProperty"),
                          hpc("ComponentProperty"), hpc("TimelineProperty"), hpc("LineageProperty"),
                          hpc("DatacenterMetricProperty")})
TERM_PREDICATES = frozenset({_RDFS + "subClassOf", _RDFS + "subPropertyOf", _RDFS + "domain", _RDFS + "range",
                             _OWL + "equivalentClass", _OWL + "equivalentProperty", _SKOS + "inScheme"})
HPC_ABOUT = hpc("about")
OWL_SAME_AS = _OWL + "sameAs"
_DC, _PROV = PREFIXES["dcterms"], PREFIXES["prov"]
# The terms of other vocabularies a data file states directly (names, sources, change entries, provenance);
# every other fact is a claim with an hpckg property (hpc:property), or no fact of this graph at all.
DATA_PREDICATES = frozenset({
    RDF_TYPE, _RDFS + "label", _RDFS + "comment", _RDFS + "seeAlso",
    _SKOS + "prefLabel", _SKOS + "altLabel", _SKOS + "hiddenLabel", _SKOS + "notation", _SKOS + "note",
    _SKOS + "definition",
    _PROV + "hadPrimarySource", _PROV + "wasDerivedFrom", _PROV + "used", _PROV + "startedAtTime",
    _PROV + "endedAtTime", _PROV + "generatedAtTime", _PROV + "wasAssociatedWith", _PROV + "wasGeneratedBy",
    _PROV + "specializationOf",
    _DC + "title", _DC + "publisher", _DC + "creator", _DC + "identifier", _DC + "date", _DC + "issued",
    _DC + "modified", _DC + "isPartOf", _DC + "description", _DC + "license", _DC + "source",
    PREFIXES["schema"] + "url",
})
# Predicates with rules of their own (declares-term, owl-imports, rdf-list).
REPORTED_ELSEWHERE = TERM_PREDICATES | {OWL_IMPORTS, RDF_FIRST, RDF_REST}
# Bidirectional controls (embeddings, overrides, isolates, marks): text holding one is shown in an order
# other than the one it is stored in, so a name can read as another.
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# The project's own namespaces: an IRI equal to one of them but for case is another IRI that reads the same.
PROJECT_NAMESPACES = (BASE, ID, ONTOLOGY, VOCAB, GRAPH)

_TZ = r"(?:Z|[+-]\d{2}:\d{2})?"
_LEXICAL = {
    "integer": r"[+-]?\d+", "int": r"[+-]?\d+", "long": r"[+-]?\d+",
    "nonNegativeInteger": r"\+?\d+", "positiveInteger": r"\+?0*[1-9]\d*",
    "decimal": r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)",
    "double": r"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|INF)|NaN",
    "float": r"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|INF)|NaN",
    "boolean": r"true|false|1|0",
    "gYear": r"-?\d{4,}" + _TZ,
    "gYearMonth": r"-?\d{4,}-(?:0[1-9]|1[0-2])" + _TZ,
    "date": r"-?\d{4,}-\d{2}-\d{2}" + _TZ,
    "dateTime": r"-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?" + _TZ,
}


@dataclass
class ParsedFile:
    """A contribution file that parsed, with what later checks need to point at lines."""

    path: Path
    display: str
    text: str
    quads: list[ox.Quad]
    prefixes: dict[str, str] = field(default_factory=dict)
    directives: Directives | None = None

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def line_of_iri(self, iri: str, *, statement: bool = True) -> int | None:
        """The first line where `iri` starts a statement (else where it appears), full or prefixed."""
        found = find_iri(iri, self.lines, prefixes=self.prefixes)
        return (found.statement or found.mention) if statement else found.mention

    def line_of_text(self, needle: str) -> int | None:
        for number, text in enumerate(self.lines, start=1):
            if needle in text and not text.lstrip().startswith("#"):
                return number
        return None


@lru_cache(maxsize=4)
def defined_terms(ontology_dir: Path) -> frozenset[str]:
    """Every IRI the ontology and vocabularies in `ontology_dir` define (subjects of its *.ttl)."""
    terms: set[str] = set()
    for path in sorted(ontology_dir.glob("*.ttl")):
        for quad in parse_rdf(path.read_bytes(), format=rdf_format("ttl"), path=str(path)):
            if isinstance(quad.subject, ox.NamedNode):
                terms.add(quad.subject.value)
    return frozenset(terms)


def check_file(path: Path, report: CheckReport, project: Project) -> ParsedFile | None:
    """Every file-level rule on one file of the project: read and parse it, then its directives, name and
    terms. None when it could not be read or parsed (the problem is in the report)."""
    parsed = read_and_parse(path, report, project.root)
    if parsed is not None:
        check_directives(parsed, report)
        check_file_name(parsed, report, project.data)
        check_terms(parsed, report, project.ontology_dir)
    return parsed


def read_and_parse(path: Path, report: CheckReport, root: Path) -> ParsedFile | None:
    """Stage one: the path is a regular Turtle file of sensible size, UTF-8 without a BOM, and parses (a
    symlink only to a file inside the project root `root`). None when it does not (the problem is in the
    report)."""
    display = str(path)
    if path.suffix.lower() != ".ttl":
        report.add("not-turtle", f"{display} is not a .ttl file; contributions are Turtle",
                   fix="save the data as Turtle with a .ttl extension", file=display)
        return None
    if path.suffix != ".ttl":
        report.add("file-name", f"{display} ends in {path.suffix}; the build reads only files ending in .ttl, "
                   "so this file would be reviewed here and then silently left out",
                   fix=f"rename it to {path.stem}.ttl", file=display)
        return None
    try:
        # A symlink is followed only to a file inside the project.
        data = read_file(path, limit=MAX_BYTES, inside=root if path.is_symlink() else None)
    except FileRefused as error:
        code = "file-too-large" if "larger than" in error.reason else "not-a-file"
        fix = ("split the data into one file per system under data/ttl/systems/" if code == "file-too-large"
               else "give the path of a Turtle file inside the project")
        report.add(code, f"{display}: {error.reason}", fix=fix, file=display)
        return None
    return parse_data(data, path, display, report)


def parse_data(data: bytes, path: Path, display: str, report: CheckReport) -> ParsedFile | None:
    """Stage one after reading: UTF-8 without a BOM, and parses (a file's bytes, or a draft pasted into the
    site's Contribute page). None when it does not (the problem is in the report)."""
    if data.startswith(b"\xef\xbb\xbf"):
        report.add("byte-order-mark", "the file starts with a UTF-8 byte-order mark (bytes EF BB BF), which "
                   "some tools then show as an invisible first character", fix="save the file as UTF-8 "
                   "without a BOM (in most editors: encoding 'UTF-8', not 'UTF-8 with BOM')", file=display,
                   line=1, column=1)
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        report.add("not-utf8", f"byte 0x{data[error.start]:02x} at offset {error.start} is not UTF-8",
                   fix="save the file as UTF-8", file=display, line=line, column=column)
        return None
    try:
        quads, directives = parse_turtle(data, display)
    except RdfSyntaxError as error:
        code = "invalid-iri" if "Invalid IRI" in error.message else "syntax-error"
        fix = ("write spaces as %20 and remove control characters from the IRI; entity IRIs use slugs"
               if code == "invalid-iri" else "fix the Turtle at that position (a missing '.', ';' or quote?)")
        report.add(code, error.message, fix=fix, file=display, line=error.line, column=error.column)
        return None
    parsed = ParsedFile(path=path, display=display, text=text, quads=quads, prefixes=dict(directives.prefixes),
                        directives=directives)
    if any(isinstance(q.subject, ox.Triple) or isinstance(q.object, ox.Triple) for q in quads):
        report.add("triple-term", "an RDF 1.2 triple term << ... >> states a statement about a statement, "
                   "which hpckg models as a claim with its own IRI", fix="write the fact as an hpc:Claim "
                   "(see data/ttl/systems/kalos.ttl)", file=display, line=parsed.line_of_text("<<"))
        return None
    if not quads:
        report.add("empty-file", f"{display} states nothing: it is empty or holds only comments and prefixes",
                   fix="add the system's data (`hpckg new system` writes a skeleton), or drop the file",
                   file=display, line=1)
        return None
    return parsed


@dataclass
class Directives:
    """What the parser, not a regular expression, says a file declared: its final prefixes, each prefix
    that changed meaning after triples had used it, and its base IRI."""

    prefixes: dict[str, str] = field(default_factory=dict)
    redefined: list[tuple[str, str, str]] = field(default_factory=list)  # (prefix, first IRI, later IRI)
    base_iri: str | None = None


def parse_turtle(data: bytes, display: str) -> tuple[list[ox.Quad], Directives]:
    """Parse Turtle, watching the parser's prefix map after every triple: a prefix whose namespace differs
    from the one earlier triples were read with was redefined in between."""
    directives = Directives()
    seen: dict[str, str] = {}
    quads: list[ox.Quad] = []
    try:
        parser = ox.parse(data, format=ox.RdfFormat.TURTLE)
        for quad in parser:
            quads.append(quad)
            for name, iri in parser.prefixes.items():
                if name in seen and seen[name] != iri:
                    directives.redefined.append((name, seen[name], iri))
                seen[name] = iri
        directives.prefixes = dict(parser.prefixes)
        directives.base_iri = parser.base_iri
    except SyntaxError as error:
        message = str(error)
        if ": " in message and message.startswith("Parser error"):
            message = message.split(": ", 1)[1]
        raise RdfSyntaxError(display, error.lineno, error.offset, message) from None
    except ValueError as error:
        raise RdfSyntaxError(display, None, None, str(error)) from None
    return quads, directives


def _directive_line(parsed: ParsedFile, pattern: str) -> int | None:
    """The line of a directive, for pointing at it (what it declares comes from the parser)."""
    regex = re.compile(pattern, re.IGNORECASE)
    for number, text in enumerate(parsed.lines, start=1):
        if regex.search(text.split("#", 1)[0]):
            return number
    return None


def check_directives(parsed: ParsedFile, report: CheckReport) -> None:
    """@base, prefix redefinitions and hijacked project prefixes, and owl:imports."""
    directives = parsed.directives
    if directives.base_iri is not None:
        report.add("base-iri", f"the file sets a base IRI <{directives.base_iri}>, so relative IRIs like <kalos> "
                   "silently become IRIs of the base's choosing", fix="remove @base and write full or prefixed "
                   "IRIs", file=parsed.display, line=_directive_line(parsed, r"@base\b|\bBASE\s*<"))
    for name, first, later in directives.redefined:
        report.add("prefix-redefined", f"prefix {name}: is declared again as <{later}> (it was <{first}>); "
                   "later lines silently change meaning", fix=f"declare {name}: once", file=parsed.display,
                   line=_directive_line(parsed, rf"(@prefix|\bPREFIX)\s+{re.escape(name)}:"))
    for name, iri in directives.prefixes.items():
        if name in PREFIXES and PREFIXES[name] != iri:
            report.add("prefix-redefined", f"prefix {name}: is bound to <{iri}>, but hpckg's {name}: is "
                       f"<{PREFIXES[name]}>", fix=f"use @prefix {name}: <{PREFIXES[name]}> .",
                       file=parsed.display, line=_directive_line(parsed, rf"(@prefix|\bPREFIX)\s+{re.escape(name)}:"))
    for quad in parsed.quads:
        if quad.predicate.value == OWL_IMPORTS:
            report.add("owl-imports", f"owl:imports {quad.object} is ignored: hpckg never fetches or loads "
                       "imports, only the files in the repository", fix="remove the owl:imports triple",
                       file=parsed.display, line=parsed.line_of_text("imports"), focus=str(quad.object.value))


def check_file_name(parsed: ParsedFile, report: CheckReport, data_folders: Iterable[Path]) -> None:
    """A file under a data folder's systems/ (of `data_folders`, Project.data) is named after the system it
    defines: <slug>.ttl."""
    folder = parsed.path.absolute().parent
    if not any(folder == (data / "systems").absolute() for data in data_folders):
        return
    slugs = sorted({q.object.value for q in parsed.quads if q.predicate.value == HPC_SLUG
                    and (q.subject, ox.NamedNode(RDF_TYPE), ox.NamedNode(hpc("System"))) in _typed(parsed)})
    if slugs and parsed.path.name not in {f"{slug}.ttl" for slug in slugs}:
        report.add("file-name", f"{parsed.display} defines {', '.join('sys:' + s for s in slugs)}, so its name "
                   "must be the system's slug", fix=f"rename the file to {slugs[0]}.ttl", file=parsed.display,
                   line=parsed.line_of_iri(entity("system", slugs[0])))


def _typed(parsed: ParsedFile) -> set[tuple]:
    return {(q.subject, q.predicate, q.object) for q in parsed.quads if q.predicate.value == RDF_TYPE}


def check_terms(parsed: ParsedFile, report: CheckReport, ontology_dir: Path) -> None:
    """Lists, blank nodes, literals, ontology terms (of the ontology in `ontology_dir`), IRI conventions and
    placeholders."""
    seen: set[tuple[str, str]] = set()

    def once(code: str, key: str) -> bool:
        if (code, key) in seen:
            return False
        seen.add((code, key))
        return True

    list_nodes = {q.subject for q in parsed.quads if q.predicate.value in (RDF_FIRST, RDF_REST)}
    if list_nodes:
        report.add("rdf-list", f"the file uses RDF collections ({len(list_nodes)} list nodes); no hpckg "
                   "property takes a list", fix="state each value as its own claim",
                   file=parsed.display, line=_first_code_line(parsed, "("))
    other_blanks = {t for q in parsed.quads for t in (q.subject, q.object)
                    if isinstance(t, ox.BlankNode) and t not in list_nodes}
    if other_blanks:
        report.add("blank-node", f"{len(other_blanks)} blank node(s): every entity, claim and source needs "
                   "an IRI so others can refer to it and `hpckg diff` can follow it",
                   fix="give the node an IRI such as claim:<entity-slug>-<property>",
                   file=parsed.display, line=_first_code_line(parsed, "[") or _first_code_line(parsed, "_:"))
    hpckg_software = entity("software", "hpckg")
    for quad in parsed.quads:
        impersonates = ((quad.predicate.value == PROV_SPECIALIZATION_OF and quad.object.value == hpckg_software)
                        or (quad.predicate.value == PROV_WAS_ASSOCIATED_WITH
                            and quad.object.value.startswith(hpckg_software)))
        if impersonates and once("machine-record", quad.subject.value):
            report.add("machine-record", f"{shorten(quad.subject.value)} claims to be the work of hpckg itself "
                       f"({shorten(quad.predicate.value)} {shorten(quad.object.value)}); hpckg's imports and "
                       "source checks are written by hpckg import and hpckg verify into machine-written graphs, "
                       "and a verified tier rests only on those", fix="remove it and run `hpckg verify`; a "
                       "check you made yourself is a note or a lead, not the verifier's record",
                       file=parsed.display, line=parsed.line_of_iri(quad.subject.value), focus=quad.subject.value)
    declared = [q for q in parsed.quads if q.predicate.value in TERM_PREDICATES
                or (q.predicate.value == RDF_TYPE and q.object.value in TERM_CLASSES)]
    for quad in declared:
        if once("declares-term", quad.subject.value):
            statement = f"{shorten(quad.predicate.value)} {shorten(quad.object.value)}"
            report.add("declares-term", f"{shorten(quad.subject.value)} is declared as a term ({statement}); "
                       "classes, properties and concepts are defined once, in ontology/",
                       fix="use a term the ontology defines, or propose the new term in a separate change to "
                           "ontology/hpckg.ttl or ontology/vocabularies.ttl",
                       file=parsed.display, line=parsed.line_of_iri(quad.subject.value), focus=quad.subject.value)
    slugs = {q.subject.value: q.object.value for q in parsed.quads if q.predicate.value == HPC_SLUG}
    abouts = {q.subject.value: q.object.value for q in parsed.quads
              if q.predicate.value == HPC_ABOUT and isinstance(q.object, ox.NamedNode)}
    terms = defined_terms(ontology_dir)
    for quad in parsed.quads:
        for term in (quad.subject, quad.predicate, quad.object):
            if isinstance(term, ox.Literal):
                _check_literal(term, parsed, report, once)
            elif isinstance(term, ox.NamedNode):
                iri = term.value
                scheme = iri.split(":", 1)[0].lower()
                if scheme not in SAFE_SCHEMES:
                    if once("unsafe-url", iri):
                        report.add("unsafe-url", f"<{iri[:80]}> uses the {scheme}: scheme; pages link to source "
                                   "URLs, and a javascript:, data: or file: link runs or reads something in the "
                                   "reader's browser", fix="cite an http(s) URL (or a doi: identifier)",
                                   file=parsed.display, line=parsed.line_of_text(iri[:40]), focus=iri)
                elif iri.startswith(TODO_NS):
                    continue  # reported with what may replace it by check_placeholders
                elif iri.startswith((ONTOLOGY, VOCAB)) and iri not in terms:
                    if once("unknown-term", iri):
                        hint = suggestion_text(iri, terms)
                        report.add("unknown-term", f"{shorten(iri)} is not defined in ontology/"
                                   + (f"; {hint.strip()}" if hint else ""),
                                   fix=(f"{hint}use a term ontology/hpckg.ttl or vocabularies.ttl defines "
                                        "(`hpckg vocab` lists them), or propose the new term in a separate change "
                                        "to ontology/hpckg.ttl"),
                                   file=parsed.display, line=parsed.line_of_iri(iri, statement=False),
                                   focus=iri)
                elif iri.startswith(ID):
                    problem = _iri_problem(iri, slugs.get(iri), abouts.get(iri))
                    if problem and once("iri-convention", iri):
                        report.add("iri-convention", problem, file=parsed.display, focus=iri,
                                   line=parsed.line_of_iri(iri, statement=False),
                                   fix="see 'IRIs and slugs' in CONTRIBUTING.md")
    check_outside_vocabulary(parsed, report, terms, once)
    check_placeholders(parsed, report, vocabulary(ontology_dir))


def check_outside_vocabulary(parsed: ParsedFile, report: CheckReport, terms: frozenset[str], once) -> None:
    """What a file may not state even when it parses and uses valid terms: a property outside hpckg's
    vocabulary as a plain triple (unsourced, untiered: no claim), owl:sameAs (a silent merge of two
    records), an IRI that is one of the project's namespaces but for case, and text with bidirectional
    controls."""
    # A project prefix bound elsewhere (prefix-redefined) already explains every term it spells.
    hijacked = any(p.code == "prefix-redefined" and p.file == parsed.display for p in report.problems)
    for quad in parsed.quads:
        subject, predicate = quad.subject.value, quad.predicate.value
        if predicate == OWL_SAME_AS:
            if once("same-as", subject):
                report.add("same-as", f"{shorten(subject)} owl:sameAs {shorten(quad.object.value)}: owl:sameAs "
                           "merges two records silently, with no source and no tier",
                           fix="state it as a claim with hpc:property hpc:sameMachineAs, its source and tier",
                           file=parsed.display, line=parsed.line_of_text("sameAs"), focus=subject,
                           details={"rule": "same-as", "node": subject, "value": quad.object.value})
        elif (not hijacked and predicate not in terms and predicate not in DATA_PREDICATES
              and predicate not in REPORTED_ELSEWHERE and not predicate.startswith((ONTOLOGY, VOCAB, TODO_NS))):
            if once("outside-vocabulary", predicate):
                report.add("outside-vocabulary", f"{shorten(subject)} {shorten(predicate)} "
                           f"{shorten(quad.object.value)}: {shorten(predicate)} is no property of hpckg's "
                           "vocabulary, and a plain triple has no source or tier",
                           fix="state the fact as a claim with an hpckg property (`hpckg vocab` lists them), or "
                               "propose the property in a separate change to ontology/hpckg.ttl",
                           file=parsed.display, line=parsed.line_of_iri(predicate, statement=False)
                           or parsed.line_of_iri(subject), focus=subject,
                           details={"rule": "outside-vocabulary", "node": subject, "value": predicate})
        for term in (quad.subject, quad.predicate, quad.object):
            if isinstance(term, ox.NamedNode):
                iri = term.value
                lowered = iri.lower()
                near = next((ns for ns in PROJECT_NAMESPACES
                             if lowered.startswith(ns.lower()) and not iri.startswith(ns)), None)
                if near and once("iri-case", iri):
                    report.add("iri-case", f"<{iri}> differs from the project's namespace <{near}> only by "
                               "case: it is another IRI, which reads as one of hpckg's",
                               fix=f"write the namespace as <{near}> (w3id.org and hpckg in lowercase)",
                               file=parsed.display, line=parsed.line_of_text(iri[:40]), focus=iri,
                               details={"rule": "iri-case", "node": iri, "value": near})
            text = term.value if isinstance(term, ox.Literal | ox.NamedNode) else ""
            found = BIDI_CONTROLS.search(text)
            if found and once("bidi-control", text):
                report.add("bidi-control", f"{shorten(subject)} {shorten(predicate)} holds U+{ord(found.group()):04X} "
                           f"in \"{text[:60]}\", a bidirectional control that shows text in another order "
                           "than it is stored", fix="remove the control character; write the text in the order "
                           "it is read", file=parsed.display, line=parsed.line_of_text(text[:found.start()][:40])
                           if found.start() else parsed.line_of_iri(subject), focus=subject,
                           details={"rule": "bidi-control", "node": subject, "value": text})


def _iri_problem(iri: str, slug_literal: str | None, about: str | None) -> str | None:
    parts = iri[len(ID):].split("/")
    if len(parts) != 2 or parts[0] not in ENTITY_KINDS:
        return (f"<{iri}> is not https://w3id.org/hpckg/id/<kind>/<slug> with kind one of "
                f"{', '.join(ENTITY_KINDS)}")
    kind, slug = parts
    pattern = COUNTRY_SLUG_RE if kind == "country" else SLUG_RE
    if not pattern.match(slug):
        what = "an ISO 3166-1 alpha-2 code" if kind == "country" else "lowercase ASCII, digits and hyphens"
        return f"the slug of {shorten(iri)} must be {what}"
    if slug_literal is not None and slug_literal != slug:
        return f"hpc:slug \"{slug_literal}\" does not match the IRI's slug {slug!r}"
    if kind == "claim" and about and about.startswith(ID):
        entity_slug = about.rsplit("/", 1)[-1]
        if slug != entity_slug and not slug.startswith(entity_slug + "-"):
            return f"claim slug {slug!r} must start with its entity's slug {entity_slug!r}"
    return None


def _check_literal(term: ox.Literal, parsed: ParsedFile, report: CheckReport, once) -> None:
    value = term.value
    if value.startswith("TODO"):
        return  # reported with what may replace it by check_placeholders
    datatype = term.datatype.value
    if not datatype.startswith(XSD):
        return
    name = datatype[len(XSD):]
    if name in _LEXICAL and not _valid_lexical(name, value) and once("ill-typed-literal", f"{value}|{name}"):
        report.add("ill-typed-literal", f"\"{value}\" is not a valid xsd:{name}",
                   fix=f"write a valid xsd:{name} or drop the datatype (and use a text property)",
                   file=parsed.display, line=parsed.line_of_text(f'"{value}"'), focus=value)


def _valid_lexical(name: str, value: str) -> bool:
    if not re.fullmatch(_LEXICAL[name], value):
        return False
    try:
        if name in ("date", "dateTime"):
            core = re.sub(r"(Z|[+-]\d{2}:\d{2})$", "", value)
            (dt.date.fromisoformat if name == "date" else dt.datetime.fromisoformat)(core)
        elif name == "decimal":
            Decimal(value)
    except (ValueError, InvalidOperation):
        return False
    return True


def _first_code_line(parsed: ParsedFile, char: str) -> int | None:
    for number, text in enumerate(parsed.lines, start=1):
        code = text.split("#", 1)[0] if '"' not in text else text
        if char in code and not text.lstrip().startswith("#"):
            return number
    return None
