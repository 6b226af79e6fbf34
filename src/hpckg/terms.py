"""The well-known term IRIs hpckg reads and writes, each defined once.

W3C vocabularies (rdf:, rdfs:, skos:, prov:, dcterms:, schema:, xsd:) and the hpckg concepts the code
itself needs to recognise (tiers, ranks, bases, precisions). The ontology's own properties and classes are
built with `namespaces.hpc("about")`; everything else is data and comes from the store.
"""

from __future__ import annotations

from hpckg.namespaces import PREFIXES, VOCAB, hpc

RDF = PREFIXES["rdf"]
RDFS = PREFIXES["rdfs"]
XSD = PREFIXES["xsd"]
SKOS = PREFIXES["skos"]
PROV = PREFIXES["prov"]
DCTERMS = PREFIXES["dcterms"]
SCHEMA = PREFIXES["schema"]
OWL = PREFIXES["owl"]

RDF_TYPE = RDF + "type"
RDF_FIRST = RDF + "first"
RDF_REST = RDF + "rest"
RDF_LANG_STRING = RDF + "langString"
RDFS_LABEL = RDFS + "label"
RDFS_COMMENT = RDFS + "comment"
RDFS_SUBCLASS_OF = RDFS + "subClassOf"
SKOS_PREF_LABEL = SKOS + "prefLabel"
SKOS_ALT_LABEL = SKOS + "altLabel"
SKOS_HIDDEN_LABEL = SKOS + "hiddenLabel"
SKOS_NOTE = SKOS + "note"
OWL_IMPORTS = OWL + "imports"

PROV_HAD_PRIMARY_SOURCE = PROV + "hadPrimarySource"
PROV_WAS_DERIVED_FROM = PROV + "wasDerivedFrom"
PROV_WAS_GENERATED_BY = PROV + "wasGeneratedBy"
PROV_WAS_ASSOCIATED_WITH = PROV + "wasAssociatedWith"
PROV_ENDED_AT_TIME = PROV + "endedAtTime"
PROV_USED = PROV + "used"

DCTERMS_TITLE = DCTERMS + "title"
DCTERMS_CREATOR = DCTERMS + "creator"
DCTERMS_PUBLISHER = DCTERMS + "publisher"
DCTERMS_ISSUED = DCTERMS + "issued"
DCTERMS_DATE = DCTERMS + "date"
SCHEMA_URL = SCHEMA + "url"

XSD_STRING = XSD + "string"
XSD_BOOLEAN = XSD + "boolean"
XSD_INTEGER = XSD + "integer"
XSD_DECIMAL = XSD + "decimal"
XSD_DOUBLE = XSD + "double"
XSD_DATE = XSD + "date"
XSD_DATE_TIME = XSD + "dateTime"
XSD_G_YEAR_MONTH = XSD + "gYearMonth"
XSD_G_YEAR = XSD + "gYear"
XSD_ANY_URI = XSD + "anyURI"

# The hpckg classes a claim can be, and the properties that carry its value or its bounds.
CLAIM = hpc("Claim")
DERIVED_CLAIM = hpc("DerivedClaim")
CLAIM_TYPES = frozenset({CLAIM, DERIVED_CLAIM})
BOUNDS = ("minExclusive", "minInclusive", "maxExclusive", "maxInclusive")
VALUE_PROPERTIES = frozenset(hpc(name) for name in ("value", *BOUNDS))

# Concept schemes: the namespace of each, and the concepts the code acts on.
TIER = VOCAB + "tier/"
RANK = VOCAB + "rank/"
BASIS = VOCAB + "basis/"
PRECISION = VOCAB + "precision/"
SOURCE_KIND = VOCAB + "source-kind/"

TIER_VERIFIED, TIER_REPORTED, TIER_LEAD = TIER + "verified", TIER + "reported", TIER + "lead"
TIERS = (TIER_VERIFIED, TIER_REPORTED, TIER_LEAD)  # surest first, as hpc:tierRank orders them
RANK_PREFERRED, RANK_NORMAL, RANK_DEPRECATED = RANK + "preferred", RANK + "normal", RANK + "deprecated"
BASIS_MACHINE_GENERATED = BASIS + "machine-generated"
BASIS_DERIVED = BASIS + "derived"
PRECISION_EXACT = PRECISION + "exact"

# Claims over time, unknown values, references (docs/decisions/20261130-claims-over-time-identity-references.md)
SOME_VALUE_CLAIM = hpc("SomeValueClaim")
NO_VALUE_CLAIM = hpc("NoValueClaim")
BEST_CLAIM = hpc("BestClaim")
REFERENCE = hpc("Reference")
DEPRECATION_REASON = VOCAB + "deprecation-reason/"
