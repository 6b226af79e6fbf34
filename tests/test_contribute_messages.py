"""Messages that say what to do: a reference to an entity no file defines, a mistyped source, a misspelt
term, placeholders with the values that may replace them. Each message names the file, the line, the code
and the fix (the file to edit or the command to run); allowed values come from the ontology."""

from __future__ import annotations

from pathlib import Path

from hpckg.contribute.check import check_files
from hpckg.namespaces import hpc
from hpckg.vocabulary import vocabulary

from conftest import run_hpckg, session_project, text

GOOD = Path(__file__).parent / "contributions" / "good" / "frontier.ttl"
PREFIXES = ("@prefix part: <https://w3id.org/hpckg/id/part/> .\n@prefix cmp: <https://w3id.org/hpckg/id/component/> .\n"
            "@prefix site: <https://w3id.org/hpckg/id/site/> .\n@prefix role: <https://w3id.org/hpckg/vocab/role/> .\n")
REFERENCES = """
claim:frontier-site a hpc:Claim ;
    hpc:about sys:frontier ; hpc:property hpc:site ; hpc:value site:bristol-ncc ;
    hpc:tier tier:reported ; hpc:basis basis:operator-stated ; hpc:rank rank:preferred ;
    prov:hadPrimarySource src:olcf-frontier .

cmp:frontier-accelerator a hpc:Component ;
    hpc:componentOf sys:frontier ; hpc:role role:accelerator ;
    rdfs:label "Frontier accelerators"@en .

claim:frontier-accelerator-part a hpc:Claim ;
    hpc:about cmp:frontier-accelerator ; hpc:property hpc:partModel ; hpc:value part:nvidia-gh200 ;
    hpc:tier tier:reported ; hpc:basis basis:operator-stated ; hpc:rank rank:preferred ;
    prov:hadPrimarySource src:olcf-frontier .
"""


def draft(tmp_path: Path, *replacements: tuple[str, str], extra: str = "") -> Path:
    """The worked example with some text replaced, written as a new file."""
    body = GOOD.read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in body, old
        body = body.replace(old, new)
    path = tmp_path / "frontier.ttl"
    path.write_text(PREFIXES + body + extra, encoding="utf-8")
    return path


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


def test_undefined_part_site_and_country_say_what_they_should_be_and_where_to_add_them(tmp_path: Path):
    path = draft(tmp_path, ("hpc:value country:US", "hpc:value country:UK"), extra=REFERENCES)
    report = check_files([path], project=session_project())
    assert report.codes() == {"undefined-entity"}, report.to_text()
    by_focus = {p.focus.rsplit("/", 1)[-1]: p for p in report.problems}
    part = by_focus["nvidia-gh200"]
    assert part.message == "`part:nvidia-gh200` is not defined (expected a part model)"
    assert part.fix == "add it to `data/ttl/parts.ttl` or run `hpckg new part`"
    assert part.line == line_of(path, "part:nvidia-gh200") and part.file == str(path)
    assert by_focus["bristol-ncc"].message == "`site:bristol-ncc` is not defined (expected a site)"
    assert "data/ttl/sites/" in by_focus["bristol-ncc"].fix and "hpckg new site" in by_focus["bristol-ncc"].fix
    # Every ISO country exists; "UK" is not ISO's code for the United Kingdom (GB).
    assert by_focus["UK"].message == "`country:UK` is not defined (expected a country)"
    assert by_focus["UK"].fix.startswith("add it to `data/ttl/countries.ttl` or run `hpckg new country`")
    # Reported once each, not also as the ~300-character range rule they break.
    assert "value-matches-range" not in report.to_text()


def test_mistyped_source_is_not_defined_with_the_nearest_suggested(tmp_path: Path):
    path = draft(tmp_path, ("prov:hadPrimarySource src:olcf-frontier .\n\nclaim:frontier-status",
                            "prov:hadPrimarySource src:arxiv-2403-0764 .\n\nclaim:frontier-status"))
    report = check_files([path], project=session_project())
    [problem] = report.problems
    assert problem.code == "undefined-entity"
    assert problem.message == ("`src:arxiv-2403-0764` is not defined (expected a source); "
                               "did you mean `src:arxiv-2403-07648`?")
    assert problem.fix.startswith("correct the IRI to `src:arxiv-2403-07648`")
    assert problem.line == line_of(path, "src:arxiv-2403-0764 ")
    assert "must cite at least one source" not in report.to_text()


def test_misspelt_vocabulary_value_and_term_suggest_the_defined_one(tmp_path: Path):
    path = draft(tmp_path, ("hpc:tier tier:reported ; hpc:basis basis:measured ; hpc:rank rank:preferred ;\n"
                            "    prov:hadPrimarySource src:top500-2022-06 ;\n    skos:note",
                            "hpc:tier tier:reproted ; hpc:basis basis:measured ; hpc:rank rank:preferred ;\n"
                            "    prov:hadPrimarySource src:top500-2022-06 ;\n    skos:note"),
                 ("sys:frontier a hpc:System", "sys:frontier a hpc:Sytem"))
    report = check_files([path], project=session_project())
    messages = {p.focus: p for p in report.problems}
    tier = messages["https://w3id.org/hpckg/vocab/tier/reproted"]
    assert tier.code == "unknown-term"
    assert tier.message == "tier:reproted is not defined in ontology/; did you mean tier:reported?"
    assert tier.line == line_of(path, "tier:reproted")
    assert "did you mean hpc:System" in messages[hpc("Sytem")].message


def test_placeholders_are_each_reported_with_the_allowed_values(tmp_path: Path):
    path = draft(tmp_path, ("hpc:tier tier:verified", "hpc:tier todo:tier"), ("hpc:value status:operational",
                                                                             "hpc:value todo:status"),
                 ("@prefix sys:", "@prefix todo: <https://w3id.org/hpckg/id/todo/> .\n@prefix sys:"))
    report = check_files([path], project=session_project())
    assert report.codes() == {"placeholder"}
    tiers = [p for p in report.problems if p.focus.endswith("/todo/tier")]
    # Two claims still have todo:tier (operator, country): both are reported, each on its own line.
    assert len(tiers) == 2 and len({p.line for p in tiers}) == 2
    assert {p.line for p in tiers} == {n for n, line in enumerate(path.read_text().splitlines(), 1)
                                       if "todo:tier" in line}
    scheme = vocabulary(session_project().ontology_dir).schemes[hpc("TierScheme")]
    assert [c.notation for c in scheme.concepts] == ["verified", "reported", "lead"]
    assert "tier:verified, tier:reported or tier:lead" in tiers[0].fix
    [status] = [p for p in report.problems if p.focus.endswith("/todo/status")]
    for concept in vocabulary(session_project().ontology_dir).schemes[hpc("StatusScheme")].concepts:
        assert concept.iri.rsplit("/", 1)[-1] in status.fix


def test_validate_reports_an_undefined_reference_as_what_to_do(tmp_path: Path):
    path = draft(tmp_path, extra=REFERENCES)
    completed = run_hpckg("validate", str(path))
    out, err = text(completed)
    assert completed.returncode == 1, out + err
    assert ("`part:nvidia-gh200` is not defined (expected a part model); add it to `data/ttl/parts.ttl` or run "
            "`hpckg new part`") in out
    assert "must be an IRI typed with the range class" not in out
