"""What the server publishes about the dataset: the home page's schema.org Dataset and DCAT-AP description,
a system page's schema.org Product, /.well-known/void held to DCAT-AP, and the dump files at stable URLs
with ETag, Last-Modified, ranges and gzip, against a real `hpckg serve` process on 127.0.0.1."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pyoxigraph as ox
import pytest
import rdflib

from dcat_ap import MANDATORY, RECOMMENDED, as_rdflib, validate
from hpckg.build import build
from hpckg.serve import urls
from hpckg.store import Store
from serve_live import in_process, serve_store, start_server

from conftest import session_project

DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")
DATASET = rdflib.URIRef("https://w3id.org/hpckg/dataset")
HOSTILE = '</script><script>alert("x")</script><!-- & "quotes" \u2028'
HOSTILE_SYSTEM = "https://w3id.org/hpckg/id/system/hostile"


class DataBlocks(HTMLParser):
    """The text of every <script type="application/ld+json"> element of a page."""

    def __init__(self):
        super().__init__()
        self.blocks: list[str] = []
        self._inside = False

    def handle_starttag(self, tag, attrs):
        self._inside = tag == "script" and dict(attrs).get("type") == "application/ld+json"
        if self._inside:
            self.blocks.append("")

    def handle_endtag(self, tag):
        self._inside = False

    def handle_data(self, data):
        if self._inside:
            self.blocks[-1] += data


def data_blocks(html: str) -> list[str]:
    parser = DataBlocks()
    parser.feed(html)
    return parser.blocks


def of_type(blocks: list[str], kind: str) -> dict:
    documents = [json.loads(block) for block in blocks]
    found = [d for d in documents if isinstance(d, dict) and d.get("@type") == kind]
    assert len(found) == 1, [d.get("@type") if isinstance(d, dict) else type(d) for d in documents]
    return found[0]


@pytest.fixture(scope="module")
def web():
    with in_process(serve_store(), timeout=10, workers=1, rate_limit=0) as client:
        yield client


def test_home_page_embeds_a_schema_org_dataset(web):
    response = web.get(urls.home())
    assert response.status_code == 200
    dataset = of_type(data_blocks(response.text), "Dataset")
    assert dataset["@context"] == "https://schema.org/"
    assert dataset["name"] == "hpckg" and len(dataset["description"]) > 50
    assert dataset["license"] == "https://www.apache.org/licenses/LICENSE-2.0"
    assert dataset["creator"]["@type"] == "Organization" and dataset["creator"]["name"]
    assert "version" in dataset["citation"] and dataset["version"] in dataset["citation"]
    start, end = dataset["temporalCoverage"].split("/")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", start) and start <= end
    assert dataset["spatialCoverage"][0]["name"] == "World"
    assert "supercomputer" in dataset["keywords"]
    downloads = {d["encodingFormat"]: d["contentUrl"] for d in dataset["distribution"]}
    assert downloads["application/n-quads"] == "http://127.0.0.1:8000/dumps/hpckg.nq"
    assert len(downloads) == 6
    assert dataset["includedInDataCatalog"]["@type"] == "DataCatalog"


def test_home_page_links_the_dcat_ap_description_which_conforms(web):
    # Linked, not embedded: embedded it was 150 KB of the home page's 100 KB budget (issue 35).
    home = web.get(urls.home()).text
    assert not [b for b in data_blocks(home) if "http://www.w3.org/ns/dcat#" in b]
    linked = re.search(r'<link rel="alternate" type="text/turtle" href="([^"]+)">', home)
    assert linked and linked.group(1) == urls.void()
    graph = as_rdflib(web.get(linked.group(1), headers={"Accept": "text/turtle"}).content, "turtle")
    assert (DATASET, rdflib.RDF.type, DCAT.Dataset) in graph
    assert validate(graph, MANDATORY).violations == 0
    result = validate(graph, RECOMMENDED)
    assert sum(result.severities.values()) == 0, result.text


def test_well_known_void_conforms_to_dcat_ap(web):
    response = web.get(urls.void(), headers={"Accept": "text/turtle"})
    graph = as_rdflib(response.content, "turtle")
    result = validate(graph, MANDATORY)
    assert result.violations == 0, result.text
    assert sum(validate(graph, RECOMMENDED).severities.values()) == 0
    access = {str(u) for u in graph.objects(None, DCAT.accessURL)}
    extensions = ("ttl", "nt", "nq", "trig", "jsonld", "rdf")
    assert access == {f"http://127.0.0.1:8000/dumps/hpckg.{ext}" for ext in extensions}


def test_system_page_describes_the_machine_and_keeps_the_graphs_json_ld(web):
    blocks = data_blocks(web.get(urls.page("system", "kalos")).text)
    machine = of_type(blocks, "Product")
    assert machine["name"] == "Kalos (Shanghai AI Lab)"
    assert machine["additionalType"] == "https://w3id.org/hpckg/ontology#System"
    assert machine["location"]["name"] == "Acme GPU datacenter"
    assert machine["location"]["address"]["addressCountry"] == "China"
    megascale = of_type(data_blocks(web.get(urls.page("system", "bytedance-megascale")).text), "Product")
    assert megascale["manufacturer"]["name"] == "ByteDance"
    own = [b for b in blocks if "https://w3id.org/hpckg/id/system/kalos" in b and '"Product"' not in b]
    assert own and rdflib.Graph().parse(data=own[0], format="json-ld")


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory) -> Path:
    """The curated store plus a system whose label tries to close the script element."""
    path = tmp_path_factory.mktemp("hostile") / "store"
    build(session_project(), store_path=path, validate=False)
    from hpckg.store import current_generation

    store = Store(current_generation(path))
    graph = ox.NamedNode("https://w3id.org/hpckg/graph/test/hostile")
    system = ox.NamedNode(HOSTILE_SYSTEM)
    store.load_quads([ox.Quad(system, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                              ox.NamedNode("https://w3id.org/hpckg/ontology#System"), graph),
                      ox.Quad(system, ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label"),
                              ox.Literal(HOSTILE), graph)])
    store.close()
    return path


def test_a_hostile_label_cannot_close_the_json_ld_block(hostile_store):
    with in_process(hostile_store, timeout=10, workers=1, rate_limit=0) as client:
        response = client.get(urls.page("system", "hostile"))
    assert response.status_code == 200
    assert "<script>alert" not in response.text
    blocks = data_blocks(response.text)
    assert of_type(blocks, "Product")["name"] == HOSTILE  # the label survives, escaped, as the same JSON
    assert all(json.loads(block) for block in blocks)


# ---- a real server process -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    """A releases folder holding one release of the curated graph."""
    from hpckg.build import populate
    from hpckg.publish.release import Origin, release
    from hpckg.publish.settings import PublisherSettings

    store = Store(None)
    populate(store, project=session_project())
    releases = tmp_path_factory.mktemp("releases")
    release(store, releases=releases, origin=Origin("f" * 40, "2026-12-01T09:00:00+00:00", ()),
            settings=PublisherSettings(), version="2026-12")
    return releases


@pytest.fixture(scope="module")
def live(released):
    server = start_server(serve_store(), "--workers", "1", "--releases", str(released))
    try:
        yield server.url
    finally:
        server.stop()


def test_dumps_answer_at_their_stable_urls_with_etag_last_modified_and_304(live):
    with httpx.Client(base_url=live, timeout=60) as client:
        first = client.get(urls.dump("nq"), headers={"Accept-Encoding": "identity"})
        assert first.status_code == 200, first.text
        assert first.headers["content-type"].startswith("application/n-quads")
        etag, modified = first.headers["etag"], first.headers["last-modified"]
        assert len(list(ox.parse(first.content, format=ox.RdfFormat.N_QUADS))) > 3000
        again = client.get(urls.dump("nq"), headers={"Accept-Encoding": "identity", "If-None-Match": etag})
        assert again.status_code == 304 and again.content == b""
        since = client.get(urls.dump("nq"), headers={"Accept-Encoding": "identity", "If-Modified-Since": modified})
        assert since.status_code == 304
        assert client.get("/dumps/hpckg.xyz").status_code == 404


def test_dumps_answer_range_requests(live):
    with httpx.Client(base_url=live, timeout=60) as client:
        whole = client.get(urls.dump("ttl"), headers={"Accept-Encoding": "identity"}).content
        part = client.get(urls.dump("ttl"), headers={"Accept-Encoding": "identity", "Range": "bytes=10-109"})
        assert part.status_code == 206
        assert part.headers["content-range"] == f"bytes 10-109/{len(whole)}"
        assert part.content == whole[10:110]
        tail = client.get(urls.dump("ttl"), headers={"Accept-Encoding": "identity", "Range": "bytes=-50"})
        assert tail.status_code == 206 and tail.content == whole[-50:]
        beyond = client.get(urls.dump("ttl"), headers={"Accept-Encoding": "identity",
                                                        "Range": f"bytes={len(whole) + 10}-"})
        assert beyond.status_code == 416


def test_dumps_are_sent_gzip_encoded_to_clients_that_accept_it(live):
    with httpx.Client(base_url=live, timeout=60) as client:
        plain = client.get(urls.dump("nt"), headers={"Accept-Encoding": "identity"})
        # httpx would decode the body; read the raw bytes to see what went over the wire.
        with client.stream("GET", urls.dump("nt"), headers={"Accept-Encoding": "gzip"}) as response:
            assert response.headers["content-encoding"] == "gzip"
            assert "Accept-Encoding" in response.headers["vary"]
            raw = b"".join(response.iter_raw())
    assert gzip.decompress(raw) == plain.content
    assert len(raw) < len(plain.content) / 3


def test_the_description_points_at_dumps_the_server_answers(live):
    with httpx.Client(base_url=live, timeout=60) as client:
        graph = as_rdflib(client.get(urls.void(), headers={"Accept": "text/turtle"}).content, "turtle")
        urls_described = sorted(str(u) for u in graph.objects(None, DCAT.downloadURL))
        assert len(urls_described) == 12  # the current export and the latest release, six formats each
        for url in urls_described:
            assert url.startswith(live), url
            head = client.head(url, headers={"Accept-Encoding": "identity"})
            assert head.status_code == 200, url
        assert validate(graph, MANDATORY).violations == 0


def test_release_dumps_are_served_with_the_checksums_the_description_gives(live, released):
    spdx = rdflib.Namespace("http://spdx.org/rdf/terms#")
    with httpx.Client(base_url=live, timeout=60) as client:
        graph = as_rdflib(client.get(urls.void(), headers={"Accept": "text/turtle"}).content, "turtle")
        dist = rdflib.URIRef(live + urls.release_file("2026-12", "hpckg.nq.gz"))
        response = client.get(str(dist), headers={"Accept-Encoding": "identity"})
        assert response.status_code == 200 and response.headers["content-type"] == "application/gzip"
        assert response.content == (released / "2026-12" / "hpckg.nq.gz").read_bytes()
        assert int(graph.value(dist, DCAT.byteSize)) == len(response.content)
        checksum = graph.value(dist, spdx.checksum)
        assert str(graph.value(checksum, spdx.checksumValue)) == hashlib.sha256(response.content).hexdigest()
        part = client.get(str(dist), headers={"Accept-Encoding": "identity", "Range": "bytes=0-1"})
        assert part.status_code == 206 and part.content == b"\x1f\x8b"  # gzip's magic number
        etag = response.headers["etag"]
        assert client.get(str(dist), headers={"If-None-Match": etag}).status_code == 304
        assert client.get(urls.release_file("2026-12", "..")).status_code == 404


def test_an_update_is_seen_by_the_description_and_the_dumps(tmp_path):
    store = tmp_path / "store"
    shutil.copytree(serve_store(), store, symlinks=True)
    with in_process(store, workers=1, rate_limit=0, update_token="s3cret") as client:
        def triples() -> int:
            graph = as_rdflib(client.get(urls.void(), headers={"Accept": "text/turtle"}).content, "turtle")
            return int(graph.value(DATASET, rdflib.URIRef("http://rdfs.org/ns/void#triples")))

        before = triples()
        assert b"https://example.org/x" not in client.get(urls.dump("nt")).content
        done = client.post(urls.sparql(), content="INSERT DATA { GRAPH <https://example.org/g> { "
                           "<https://example.org/x> <https://example.org/p> 42 } }", headers={
                               "Content-Type": "application/sparql-update", "Authorization": "Bearer s3cret"})
        assert done.status_code == 204
        assert triples() == before + 1
        assert b"<https://example.org/x>" in client.get(urls.dump("nt")).content
