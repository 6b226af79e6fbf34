"""Placeholders left by `hpckg new`: a todo: IRI (https://w3id.org/hpckg/id/todo/...) or text starting with
"TODO". Every occurrence is reported on its own line, with what may replace it, read from the ontology: the
values of the property's concept scheme (tiers, statuses, kinds, roles, source kinds, bases...) or the
class of entity it expects."""

from __future__ import annotations

import re

import pyoxigraph as ox

from hpckg.claims import shorten
from hpckg.datafiles.report import CheckReport
from hpckg.namespaces import ID, hpc
from hpckg.terms import DCTERMS_CREATOR, DCTERMS_PUBLISHER, PROV_HAD_PRIMARY_SOURCE, SCHEMA_URL
from hpckg.vocabulary import Vocabulary

TODO_NS = ID + "todo/"
HPC_PROPERTY = hpc("property")
HPC_AS_OF = hpc("asOf")
# Where an entity of a class is defined, for the fix text (CONTRIBUTING.md, "Where things go").
HOME_OF_CLASS = {
    hpc("Organisation"): ("data/ttl/organisations.ttl", "organisation"),
    hpc("PartModel"): ("data/ttl/parts.ttl", "part"),
    hpc("Country"): ("data/ttl/countries.ttl", "country"),
    hpc("Site"): ("data/ttl/sites/<slug>.ttl", "site"),
    hpc("Datacenter"): ("data/ttl/sites/<slug>.ttl", "site"),
    hpc("Source"): ("data/ttl/sources.ttl (or this file, if only this file cites it)", "source"),
    hpc("System"): ("data/ttl/systems/<slug>.ttl", "system"),
}


# Predicates from W3C vocabularies whose values are hpckg entities (the ontology gives no range for them).
HOME_OF_PREDICATE = {PROV_HAD_PRIMARY_SOURCE: hpc("Source"), DCTERMS_CREATOR: hpc("Organisation"),
                     DCTERMS_PUBLISHER: hpc("Organisation")}


def is_placeholder(term: ox.Term) -> bool:
    if isinstance(term, ox.NamedNode):
        return term.value.startswith(TODO_NS)
    return isinstance(term, ox.Literal) and term.value.startswith("TODO")


def check_placeholders(parsed, report: CheckReport, vocab: Vocabulary) -> None:
    """One `placeholder` problem per occurrence, each with the allowed values (of the ontology `vocab`) or the
    expected entity."""
    properties = {q.subject.value: q.object.value for q in parsed.quads if q.predicate.value == HPC_PROPERTY}
    used_lines: set[tuple[int | None, str]] = set()
    quads = sorted((q for q in parsed.quads if is_placeholder(q.object)),
                   key=lambda q: (parsed.line_of_iri(q.subject.value) or 0, q.predicate.value))
    found = []
    for quad in quads:
        token = _token(quad.object, parsed.prefixes)
        line = _occurrence_line(parsed, quad.subject.value, token, used_lines)
        used_lines.add((line, token))
        found.append((line or 0, quad, token))
    for line, quad, token in sorted(found, key=lambda item: item[0]):
        shown = token if isinstance(quad.object, ox.NamedNode) else repr(quad.object.value[:60])
        what = "placeholder" if isinstance(quad.object, ox.NamedNode) else "placeholder text"
        report.add("placeholder", f"{what} {shown} is still there ({shorten(quad.subject.value)} "
                   f"{shorten(quad.predicate.value)})",
                   fix=fix_for(vocab, quad.predicate.value, properties.get(quad.subject.value),
                                   is_iri=isinstance(quad.object, ox.NamedNode)),
                   file=parsed.display, line=line, focus=quad.object.value)
    # A TODO in the subject or predicate position (a placeholder IRI as an entity) is reported once each.
    entities = sorted({t.value for q in parsed.quads for t in (q.subject, q.predicate) if is_placeholder(t)})
    for iri in entities:
        report.add("placeholder", f"placeholder {shorten(iri)} is still there", fix="replace it with a real IRI",
                   file=parsed.display, line=parsed.line_of_iri(iri, statement=False), focus=iri)
    _check_todo_prefix(parsed, report, filled=not found and not entities)


def _check_todo_prefix(parsed, report: CheckReport, *, filled: bool) -> None:
    """The `@prefix todo:` line a scaffold wrote: a warning once every placeholder is filled in, and said with
    the placeholders before that, so that a contributor deletes it in the same pass."""
    for name, namespace in parsed.prefixes.items():
        if namespace != TODO_NS:
            continue
        pattern = re.compile(rf"^\s*(@prefix|PREFIX)\s+{re.escape(name)}:", re.IGNORECASE)
        line = next((n for n, text in enumerate(parsed.text.splitlines(), 1) if pattern.match(text)), None)
        if filled:
            report.add("todo-prefix-left", f"every placeholder is filled in, but the file still declares the prefix "
                       f"{name}: for them", fix="delete the line: a data file declares only the prefixes it uses",
                       file=parsed.display, line=line, focus=TODO_NS)
        else:
            report.notes.append(f"Once every placeholder of {parsed.display} is filled in, also delete its line "
                                f"{line} (`@prefix {name}: <{TODO_NS}>`): nothing will use it.")


def fix_for(vocab: Vocabulary, predicate: str, claim_property: str | None, *, is_iri: bool = True) -> str:
    """What may replace a placeholder written with `predicate` (for hpc:value: the claim's property)."""
    scheme = vocab.scheme_of_value(predicate, claim_property)
    if scheme is not None:
        # A placeholder is a person's to fill: the values only hpckg writes (an importer's basis) are left out.
        return (f"replace it with {scheme.values_text(people=True)} ({scheme.label}; `hpckg vocab` says what each "
                "means)")
    if predicate == HPC_AS_OF:
        return ("replace it with the date the source gives for the fact (its publication date, or the date it "
                'says the fact held), such as "2024-06"^^xsd:gYearMonth; delete hpc:asOf if the source gives none. '
                "Not today's date: that is when you edited the file, not when the fact was true")
    if predicate == SCHEMA_URL:
        return "replace it with the document's web address, such as <https://example.org/page>"
    if not is_iri:
        return "replace it with the real text or value, or delete the line if the source does not give it"
    expected = vocab.expected_class(predicate, claim_property) or HOME_OF_PREDICATE.get(predicate)
    if expected is not None:
        home, command = HOME_OF_CLASS.get(expected, ("data/ttl/", None))
        tail = f" or run `hpckg new {command}`" if command else ""
        return f"replace it with the IRI of {vocab.class_phrase(expected)}, defined in {home}{tail}"
    prop = vocab.properties.get(claim_property if predicate == hpc("value") and claim_property else predicate)
    if prop is not None and prop.range:
        return f"replace it with {prop.expects(vocab)}"
    return "replace it with the real value, or delete the line if the source does not give it"


def _token(term: ox.Term, prefixes: dict[str, str]) -> str:
    if isinstance(term, ox.Literal):
        return term.value[:40]
    for name, namespace in prefixes.items():
        if term.value.startswith(namespace) and re.fullmatch(r"[\w.-]*", term.value[len(namespace):]):
            return f"{name}:{term.value[len(namespace):]}"
    return f"<{term.value}>"


def _occurrence_line(parsed, subject: str, token: str, used: set[tuple[int | None, str]]) -> int | None:
    """The first line holding `token` at or after the statement about `subject` not reported yet."""
    start = parsed.line_of_iri(subject) or 1
    pattern = re.compile(re.escape(token) + (r"(?![\w-])" if not token.startswith(("<", "TODO")) else ""))
    lines = parsed.lines
    for number in [*range(start, len(lines) + 1), *range(1, start)]:
        text = lines[number - 1]
        if not text.lstrip().startswith("#") and pattern.search(text) and (number, token) not in used:
            return number
    return parsed.line_of_text(token)
