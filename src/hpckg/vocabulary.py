"""What the ontology says a contributor may write, read from ontology/*.ttl (the one source of truth): every
class and property with its label and comment, each property's expected value (its rdfs:range, or the
concept scheme named by hpc:valueScheme), every concept scheme with its values and their meanings, and
"did you mean" suggestions among them.

Checks, scaffolds, `hpckg vocab` and the site's vocabulary page all read allowed values from here; no list of
tiers, statuses or kinds is written anywhere in the code.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pyoxigraph as ox

from hpckg.namespaces import ONTOLOGY, hpc, shorten
from hpckg.terms import OWL, RDF, RDF_TYPE, RDFS, RDFS_COMMENT, RDFS_LABEL, SKOS, XSD

RDFS_RANGE = RDFS + "range"
RDFS_DOMAIN = RDFS + "domain"
SKOS_IN_SCHEME = SKOS + "inScheme"
SKOS_NOTATION = SKOS + "notation"
SKOS_DEFINITION = SKOS + "definition"
SKOS_CONCEPT_SCHEME = SKOS + "ConceptScheme"
VALUE_SCHEME = hpc("valueScheme")
DISPLAY_ORDER = hpc("displayOrder")
MACHINE_ONLY = hpc("machineOnly")
MULTI_VALUED = hpc("multiValued")
PROPERTY_TYPES = frozenset({RDF + "Property", OWL + "ObjectProperty", OWL + "DatatypeProperty", hpc("ClaimProperty")})
CLASS_TYPES = frozenset({OWL + "Class", RDFS + "Class"})


@dataclass(frozen=True)
class Concept:
    iri: str
    notation: str
    label: str
    definition: str
    order: int
    machine_only: bool = False  # hpc:machineOnly: only hpckg writes it (an importer's basis, a derivation's)


@dataclass
class Scheme:
    iri: str
    label: str
    comment: str
    concepts: list[Concept] = field(default_factory=list)

    def values_text(self, *, people: bool = False) -> str:
        """'tier:verified, tier:reported or tier:lead'; people=True leaves out the values only hpckg writes."""
        names = [shorten(c.iri) for c in self.concepts if not (people and c.machine_only)]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


@dataclass(frozen=True)
class Property:
    iri: str
    label: str
    comment: str
    range: str | None
    scheme: str | None
    is_claim_property: bool
    kinds: frozenset[str] = frozenset()
    multi_valued: bool = False  # hpc:multiValued: several values at once are not a conflict

    def expects(self, vocabulary: Vocabulary) -> str:
        """What a value of this property is, in words: 'a part model (hpc:PartModel)', 'one of tier:...'."""
        if self.scheme and self.scheme in vocabulary.schemes:
            return f"one of {vocabulary.schemes[self.scheme].values_text()}"
        if self.range is None:
            if OWL + "DatatypeProperty" in self.kinds:
                return "a literal (the ontology gives no rdfs:range; a date for timeline properties)"
            return "an IRI or a literal (the ontology gives no rdfs:range)"
        if self.range.startswith(XSD):
            return f"a literal of type {shorten(self.range)}"
        return vocabulary.class_phrase(self.range)


@dataclass
class Vocabulary:
    labels: dict[str, str]
    comments: dict[str, str]
    classes: dict[str, str]  # class IRI -> label
    properties: dict[str, Property]
    schemes: dict[str, Scheme]
    terms: frozenset[str]

    def class_phrase(self, iri: str, *, iri_too: bool = True) -> str:
        """'a part model (hpc:PartModel)', or 'a part model' without iri_too."""
        label = self.classes.get(iri) or self.labels.get(iri) or shorten(iri)
        article = "an" if label[:1].lower() in "aeiou" else "a"
        phrase = f"{article} {label.lower() if label[1:2].islower() else label}"
        return f"{phrase} ({shorten(iri)})" if iri_too else phrase

    def scheme_of_value(self, predicate: str, claim_property: str | None = None) -> Scheme | None:
        """The concept scheme a value written with `predicate` comes from (for hpc:value: the claim's
        property's scheme), or None when it is not a vocabulary value."""
        prop = self.properties.get(claim_property if predicate == hpc("value") and claim_property else predicate)
        if prop is None or prop.scheme is None:
            return None
        return self.schemes.get(prop.scheme)

    def expected_class(self, predicate: str, claim_property: str | None = None) -> str | None:
        """The rdfs:range class an entity written with `predicate` must have (for hpc:value: the claim's)."""
        prop = self.properties.get(claim_property if predicate == hpc("value") and claim_property else predicate)
        if prop is None or prop.range is None or prop.range.startswith(XSD) or prop.scheme:
            return None
        return prop.range


def _true(values: list[ox.Term]) -> bool:
    """Whether an annotation's values say true (hpc:machineOnly, hpc:multiValued)."""
    return any(isinstance(v, ox.Literal) and v.value in ("true", "1") for v in values)


@lru_cache(maxsize=4)
def _load(files: tuple[tuple[str, int], ...]) -> Vocabulary:
    by_subject: dict[str, dict[str, list[ox.Term]]] = defaultdict(lambda: defaultdict(list))
    for name, _ in files:
        path = Path(name)
        # pyoxigraph directly, not hpckg.store: the store reports query errors with this module's help
        # (through querytext), and the ontology files are hpckg's own, checked by every build.
        for quad in ox.parse(path.read_bytes(), format=ox.RdfFormat.TURTLE, base_iri=path.as_uri()):
            if isinstance(quad.subject, ox.NamedNode):
                by_subject[quad.subject.value][quad.predicate.value].append(quad.object)

    def text(iri: str, predicate: str) -> str:
        values = by_subject[iri].get(predicate, [])
        english = [v.value for v in values if isinstance(v, ox.Literal) and v.language in (None, "en")]
        return english[0] if english else ""

    def first_iri(iri: str, predicate: str) -> str | None:
        values = [v.value for v in by_subject[iri].get(predicate, []) if isinstance(v, ox.NamedNode)]
        return values[0] if values else None

    labels = {iri: text(iri, RDFS_LABEL) for iri in by_subject if text(iri, RDFS_LABEL)}
    comments = {iri: text(iri, RDFS_COMMENT) for iri in by_subject if text(iri, RDFS_COMMENT)}
    types = {iri: {t.value for t in fields.get(RDF_TYPE, [])} for iri, fields in by_subject.items()}
    classes = {iri: labels.get(iri, shorten(iri)) for iri, kinds in types.items() if kinds & CLASS_TYPES}
    properties = {
        iri: Property(iri, labels.get(iri, shorten(iri)), comments.get(iri, ""), first_iri(iri, RDFS_RANGE),
                      first_iri(iri, VALUE_SCHEME), hpc("ClaimProperty") in kinds
                      or any(hpc(k) in kinds for k in ("PerformanceProperty", "ComponentProperty", "TimelineProperty",
                                                       "LineageProperty", "DatacenterMetricProperty")),
                      frozenset(kinds), _true(by_subject[iri].get(MULTI_VALUED, [])))
        for iri, kinds in types.items() if iri.startswith(ONTOLOGY) and (kinds & PROPERTY_TYPES or any(
            k.startswith(ONTOLOGY) and k.endswith("Property") for k in kinds))}
    schemes = {iri: Scheme(iri, labels.get(iri, shorten(iri)), comments.get(iri, ""))
               for iri, kinds in types.items() if SKOS_CONCEPT_SCHEME in kinds}
    for iri, fields in by_subject.items():
        for scheme in fields.get(SKOS_IN_SCHEME, []):
            if scheme.value in schemes:
                order = [int(v.value) for v in fields.get(DISPLAY_ORDER, []) if isinstance(v, ox.Literal)]
                machine = _true(fields.get(MACHINE_ONLY, []))
                schemes[scheme.value].concepts.append(Concept(
                    iri, text(iri, SKOS_NOTATION) or iri.rsplit("/", 1)[-1], labels.get(iri, ""),
                    text(iri, SKOS_DEFINITION) or comments.get(iri, ""), order[0] if order else 0, machine))
    for scheme in schemes.values():
        # Concepts with a display order come in that order (tiers: verified first); the rest by notation.
        scheme.concepts.sort(key=lambda c: (-c.order if scheme.iri == hpc("TierScheme") else c.order, c.notation))
    return Vocabulary(labels, comments, classes, properties, schemes, frozenset(by_subject))


def vocabulary(ontology_dir: Path) -> Vocabulary:
    """The ontology and vocabularies in `ontology_dir` (Project.ontology_dir), re-read when a file there
    changes."""
    files = tuple((str(p), p.stat().st_mtime_ns) for p in sorted(ontology_dir.glob("*.ttl")))
    return _load(files)


def did_you_mean(wanted: str, candidates: list[str] | set[str] | frozenset[str], *, n: int = 3) -> list[str]:
    """The candidates closest to `wanted` by their last segment, best first; candidates in the same namespace
    (tier:reproted among the tiers) are preferred to the rest."""
    namespace = _namespace(wanted)
    same = [c for c in candidates if _namespace(c) == namespace]
    if same and same != list(candidates):
        return did_you_mean(wanted, same, n=n) or did_you_mean(wanted, [c for c in candidates if c not in same], n=n)

    def tail(iri: str) -> str:
        return iri.rstrip("/#").rsplit("/", 1)[-1].rsplit("#", 1)[-1].lower()

    by_tail: dict[str, list[str]] = defaultdict(list)
    for candidate in sorted(candidates):
        by_tail[tail(candidate)].append(candidate)
    close = difflib.get_close_matches(tail(wanted), list(by_tail), n=n, cutoff=0.6)
    return [iri for t in close for iri in by_tail[t]][:n]


def suggestion_text(wanted: str, candidates, *, n: int = 3) -> str:
    """'did you mean tier:reported? ' or '' when nothing is close."""
    close = did_you_mean(wanted, candidates, n=n)
    if not close:
        return ""
    return "did you mean " + " or ".join(shorten(c) for c in close) + "? "


def _namespace(iri: str) -> str:
    cut = max(iri.rfind("/"), iri.rfind("#"))
    return iri[:cut + 1]


def reference(ontology_dir: Path, match: str | None = None) -> dict[str, list[dict]]:
    """What `hpckg vocab` and the site's vocabulary page show: hpc: properties (claim properties first) with
    the value each expects, and every concept scheme with its values, optionally only those matching."""
    vocab = vocabulary(ontology_dir)
    needle = (match or "").lower()

    def hit(*texts: str) -> bool:
        return not needle or any(needle in text.lower() for text in texts)

    properties = sorted(vocab.properties.values(), key=lambda p: shorten(p.iri).lower())
    rows = [{"iri": p.iri, "name": shorten(p.iri), "label": p.label, "expects": p.expects(vocab), "comment": p.comment,
             "claim_property": p.is_claim_property}
            for p in properties if hit(shorten(p.iri), p.label)]
    schemes = []
    for scheme in sorted(vocab.schemes.values(), key=lambda s: s.label):
        values = [{"iri": c.iri, "name": shorten(c.iri), "notation": c.notation, "label": c.label,
                   "definition": c.definition} for c in scheme.concepts]
        if not hit(shorten(scheme.iri), scheme.label):
            values = [v for v in values if hit(shorten(v["iri"]), v["label"])]
            if not values:
                continue
        schemes.append({"iri": scheme.iri, "name": shorten(scheme.iri), "label": scheme.label,
                        "comment": scheme.comment, "values": values})
    return {"claim_properties": [r for r in rows if r["claim_property"]],
            "other_properties": [r for r in rows if not r["claim_property"]], "vocabularies": schemes}
