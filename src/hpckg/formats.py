"""The one table of RDF and SPARQL-results formats: name, file extension, media type, pyoxigraph format.

Every module that reads or writes a format looks it up here by name, extension or media type, so adding a
format is one row. Unknown names raise UnknownNameError listing the valid ones.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass

import pyoxigraph as ox

from hpckg.errors import UnknownNameError


@dataclass(frozen=True)
class RdfFormatInfo:
    name: str
    extension: str
    media_type: str
    oxigraph: ox.RdfFormat
    label: str

    @property
    def is_quad(self) -> bool:
        """Whether the format keeps named graphs."""
        return self.oxigraph.supports_datasets


RDF_FORMATS: dict[str, RdfFormatInfo] = {
    f.name: f
    for f in (
        RdfFormatInfo("ttl", "ttl", "text/turtle", ox.RdfFormat.TURTLE, "Turtle"),
        RdfFormatInfo("nt", "nt", "application/n-triples", ox.RdfFormat.N_TRIPLES, "N-Triples"),
        RdfFormatInfo("nq", "nq", "application/n-quads", ox.RdfFormat.N_QUADS, "N-Quads"),
        RdfFormatInfo("trig", "trig", "application/trig", ox.RdfFormat.TRIG, "TriG"),
        RdfFormatInfo("jsonld", "jsonld", "application/ld+json", ox.RdfFormat.JSON_LD, "JSON-LD"),
        RdfFormatInfo("xml", "rdf", "application/rdf+xml", ox.RdfFormat.RDF_XML, "RDF/XML"),
    )
}

# Aliases users type for the same formats.
_RDF_ALIASES = {"turtle": "ttl", "ntriples": "nt", "nquads": "nq", "json-ld": "jsonld", "rdfxml": "xml",
                "rdf": "xml", "owl": "xml"}


@dataclass(frozen=True)
class ResultsFormatInfo:
    name: str
    extension: str
    media_type: str
    oxigraph: ox.QueryResultsFormat


RESULTS_FORMATS: dict[str, ResultsFormatInfo] = {
    f.name: f
    for f in (
        ResultsFormatInfo("json", "srj", "application/sparql-results+json", ox.QueryResultsFormat.JSON),
        ResultsFormatInfo("xml", "srx", "application/sparql-results+xml", ox.QueryResultsFormat.XML),
        ResultsFormatInfo("csv", "csv", "text/csv", ox.QueryResultsFormat.CSV),
        ResultsFormatInfo("tsv", "tsv", "text/tab-separated-values", ox.QueryResultsFormat.TSV),
    )
}


# What `hpckg query` can print: a text table or a results format for SELECT/ASK, and the RDF formats that
# hold one graph for CONSTRUCT/DESCRIBE (N-Quads and TriG describe named graphs; a result is one graph).
TABLE = "table"
SELECT_FORMATS = (TABLE, *RESULTS_FORMATS)
QUAD_ONLY_FORMATS = ("nq", "trig")
GRAPH_FORMATS = tuple(name for name in RDF_FORMATS if name not in QUAD_ONLY_FORMATS)


def rdf_format(name: str) -> RdfFormatInfo:
    """The RDF format called `name` (or one of its aliases)."""
    key = _RDF_ALIASES.get(name.lower(), name.lower())
    try:
        return RDF_FORMATS[key]
    except KeyError:
        raise UnknownNameError(
            f"unknown RDF format {name!r}; valid formats: {', '.join(RDF_FORMATS)}"
        ) from None


def rdf_format_for_path(path: str) -> RdfFormatInfo:
    """The RDF format of a file, from its extension."""
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    for info in RDF_FORMATS.values():
        if suffix == info.extension or suffix == info.name:
            return info
    if suffix in ("json", "owl", "n3"):
        return rdf_format({"json": "jsonld", "owl": "xml", "n3": "ttl"}[suffix])
    raise UnknownNameError(
        f"{path}: cannot tell the RDF format from the extension .{suffix}; "
        f"known extensions: {', '.join('.' + f.extension for f in RDF_FORMATS.values())}"
    )


def rdf_format_for_media_type(media_type: str) -> RdfFormatInfo | None:
    media_type = media_type.split(";")[0].strip().lower()
    for info in RDF_FORMATS.values():
        if info.media_type == media_type:
            return info
    return {"application/x-turtle": RDF_FORMATS["ttl"], "application/json": RDF_FORMATS["jsonld"],
            "text/n3": RDF_FORMATS["ttl"], "application/xml": RDF_FORMATS["xml"],
            "text/plain": RDF_FORMATS["nt"]}.get(media_type)


def results_format(name: str) -> ResultsFormatInfo:
    try:
        return RESULTS_FORMATS[name.lower()]
    except KeyError:
        raise UnknownNameError(
            f"unknown results format {name!r}; valid formats: {', '.join(RESULTS_FORMATS)}"
        ) from None


def results_format_for_media_type(media_type: str) -> ResultsFormatInfo | None:
    media_type = media_type.split(";")[0].strip().lower()
    for info in RESULTS_FORMATS.values():
        if info.media_type == media_type:
            return info
    return {"application/json": RESULTS_FORMATS["json"], "application/xml": RESULTS_FORMATS["xml"],
            "text/xml": RESULTS_FORMATS["xml"]}.get(media_type)


def sparql_csv(variables: list[str], rows: Iterable[Iterable[str]]) -> bytes:
    """SPARQL 1.1 CSV results (CRLF lines, RFC 4180 quoting) from the variables and each row's cell texts (an
    IRI's text, `_:id` for a blank node, a literal's lexical form, "" when unbound). Written here with the csv
    module because Oxigraph's writer leaves an IRI holding a comma unquoted (a web.archive.org text fragment
    URL splits into two columns)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(variables)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")
