"""`hpckg vocab` and the site's /vocab page: every property of the ontology with the value it expects and
every vocabulary with its values and meanings, generated from ontology/ (a term added there shows up with
no code change)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from hpckg.claims import shorten
from hpckg.serve import urls
from hpckg.vocabulary import vocabulary
from serve_live import in_process, serve_store

from conftest import ROOT, run_hpckg, session_project, text


def test_every_property_and_every_value_is_listed_with_what_it_expects_and_means():
    completed = run_hpckg("vocab")
    out, err = text(completed)
    assert completed.returncode == 0, err
    vocab = vocabulary(session_project().ontology_dir)
    for prop in vocab.properties.values():
        assert f"{shorten(prop.iri)} " in out, prop.iri
    for scheme in vocab.schemes.values():
        assert f"{scheme.label} ({shorten(scheme.iri)})" in out
        for concept in scheme.concepts:
            assert re.search(re.escape(shorten(concept.iri)) + r" +" + re.escape(concept.definition), out)
    assert "hpc:partModel" in out and "expects a part model (hpc:PartModel)" in out
    assert "hpc:status" in out and "expects one of status:planned, status:under-construction" in out


def test_match_and_json():
    completed = run_hpckg("vocab", "tier", "--format", "json")
    data = json.loads(text(completed)[0])
    assert [v["notation"] for v in data["vocabularies"][0]["values"]] == ["verified", "reported", "lead"]
    assert any(p["name"] == "hpc:tier" for p in data["other_properties"])
    assert run_hpckg("vocab", "no-such-thing-at-all").returncode == 1


def test_a_term_added_to_the_ontology_is_listed(tmp_path):
    for folder in ("ontology", "shapes", "queries", "data"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    with (tmp_path / "ontology" / "vocabularies.ttl").open("a", encoding="utf-8") as handle:
        handle.write('\n<https://w3id.org/hpckg/vocab/status/mothballed> a skos:Concept ;\n'
                     '    skos:inScheme hpc:StatusScheme ; skos:notation "mothballed" ;\n'
                     '    rdfs:label "mothballed"@en ; skos:definition "Switched off but kept."@en ;\n'
                     '    rdfs:comment "Switched off but kept."@en .\n')
    out = text(run_hpckg("vocab", "status", cwd=tmp_path))[0]
    assert re.search(r"status:mothballed +Switched off but kept\.", out), out


@pytest.fixture(scope="module")
def web():
    with in_process(serve_store(), workers=1, rate_limit=0) as client:
        yield client


def test_vocab_page(web):
    page = web.get(urls.vocab())
    assert page.status_code == 200
    for scheme in vocabulary(session_project().ontology_dir).schemes.values():
        assert scheme.label in page.text
        for concept in scheme.concepts:
            assert shorten(concept.iri) in page.text
    assert "hpc:partModel" in page.text and "a part model (hpc:PartModel)" in page.text
    assert f'href="{urls.vocab()}"' in web.get(urls.home()).text
