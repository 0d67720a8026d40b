"""SARIF 2.1.0: the log validates against the official OASIS schema, has one rule per check
and one result per finding, and points at the parser's own source line."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import jsonschema
import pytest

from reactfuzz.engine import FuzzConfig, run_fuzz
from reactfuzz.engine.results import RunSummary
from reactfuzz.reporting.sarif import source_location, summary_to_sarif, write_sarif

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"

BROKEN = textwrap.dedent('''
    import re

    ACTION = re.compile(r"Action: (\\w+)\\[(.*)\\]")


    def parse(text):
        if "Answer:" in text:
            return {"answer": text.split("Answer:", 1)[1].strip()}
        m = ACTION.search(text)
        if m is None:
            return {"error": "no action"}
        return {"tool": m.group(1), "args": m.group(2).split(",")}
''')


def validate(log: dict) -> None:
    """Fail with the schema's own words if ``log`` is not valid SARIF 2.1.0."""
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def test_the_vendored_schema_is_the_official_one() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    assert schema["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
    validator = jsonschema.Draft4Validator(schema)
    assert not validator.is_valid({"version": "2.1.0", "runs": [{"results": []}]})  # no tool


@pytest.mark.slow  # a user parser in a worker process: about 1 s
def test_a_user_parser_s_findings_point_at_its_source_line(tmp_path: Path, local_module,
                                                           monkeypatch) -> None:
    """A ``module:function`` target: every result is at the line the parser decided at
    (the return it took), with the check as its rule, a level from its severity, the
    completion and the replay command; the log is valid SARIF."""
    module = local_module("sarif_broken_agent", BROKEN)
    monkeypatch.chdir(Path(module.__file__).parent)
    run = run_fuzz(FuzzConfig(targets=["sarif_broken_agent:parse"], seed=1, max_examples=5,
                              abuses=["injected.second-action"],
                              corpus=str(tmp_path / "corpus")))
    assert run.findings
    log = summary_to_sarif(run)
    validate(log)
    (sarif_run,) = log["runs"]
    rules = sarif_run["tool"]["driver"]["rules"]
    assert sarif_run["tool"]["driver"]["name"] == "reactfuzz"
    assert [r["id"] for r in rules] == run.checks  # one rule per check
    results = sarif_run["results"]
    assert len(results) == len(run.findings)
    lines = BROKEN.splitlines()
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        where = result["locations"][0]["physicalLocation"]
        assert where["artifactLocation"] == {"uri": "sarif_broken_agent.py",
                                             "uriBaseId": "%SRCROOT%"}
        line = where["region"]["startLine"]
        assert lines[line - 1].strip().startswith("return ")
        assert line == result["properties"]["origin"]["site"]["line"]
        props = result["properties"]
        assert props["replay"].startswith("reactfuzz replay ")
        assert "--target sarif_broken_agent:parse" in props["replay"]
        assert result["level"] == {"critical": "error", "high": "error", "medium": "warning",
                                   "low": "note"}[props["severity"]]
        assert props["completion"] in {f.completion for f in run.findings}
        assert result["baselineState"] == "new"


def test_a_module_function_target_points_at_its_def_line(local_module) -> None:
    """The location comes from the module the run imported (here: imported by the test),
    read with ``inspect``: the file, relative to the root, and the ``def`` line."""
    module = local_module("sarif_located_agent", BROKEN)
    root = Path(module.__file__).parent
    run = run_fuzz(FuzzConfig(targets=["classic-bracket"], seed=1, max_examples=3,
                              abuses=["injected.second-action"]))
    run.targets = ["sarif_located_agent:parse"]
    # no origin (a finding read from an older corpus file): the location is the def line
    run.findings = [f.model_copy(update={"target": "sarif_located_agent:parse", "origin": None})
                    for f in run.findings]
    log = summary_to_sarif(run, root=root)
    validate(log)
    line = BROKEN.splitlines().index("def parse(text):") + 1
    for result in log["runs"][0]["results"]:
        where = result["locations"][0]["physicalLocation"]
        assert where["artifactLocation"] == {"uri": "sarif_located_agent.py",
                                             "uriBaseId": "%SRCROOT%"}
        assert where["region"] == {"startLine": line}
    outside = summary_to_sarif(run, root=root / "elsewhere")
    uri = outside["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
        "artifactLocation"]["uri"]
    assert uri.startswith("file://") and uri.endswith("/sarif_located_agent.py")


def test_other_targets_point_at_the_corpus_or_format_file(tmp_path: Path) -> None:
    """A built-in parser has no source of the user's: results point at the finding's corpus
    file, or at the TOML format file when the run read one; a fixed parser gives an empty,
    valid log."""
    run = run_fuzz(FuzzConfig(targets=["classic-bracket"], seed=1, max_examples=5,
                              abuses=["injected.second-action"], corpus=str(tmp_path / "c")))
    log = summary_to_sarif(run, root=tmp_path)
    validate(log)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in log["runs"][0]["results"]}
    assert run.findings and uris == {f"c/{f.filename}" for f in run.findings}
    fmt = tmp_path / "mine.toml"
    fmt.write_text("")
    log = summary_to_sarif(run, root=tmp_path, format_file=str(fmt))
    validate(log)
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in log["runs"][0]["results"]} == {"mine.toml"}
    clean = RunSummary(seed=1, targets=["grammar"], format="bracket", dispatcher="typed",
                       tools="default", checks=["no-crash"], abuses=["label.case"])
    path = write_sarif(clean, tmp_path / "out" / "clean.sarif")
    empty = json.loads(path.read_text(encoding="utf-8"))
    validate(empty)
    assert empty["runs"][0]["results"] == []


def test_known_findings_are_unchanged_and_advice_is_carried(tmp_path: Path) -> None:
    """A finding the corpus held is ``baselineState: unchanged``; a finding's advice, when
    findings carry one, goes into the message and the properties."""
    run = run_fuzz(FuzzConfig(targets=["classic-bracket"], seed=1, max_examples=5,
                              abuses=["injected.second-action"]))
    run.known_ids = [run.findings[0].id]
    log = summary_to_sarif(run)
    states = {r["partialFingerprints"]["reactfuzz/finding"]: r["baselineState"]
              for r in log["runs"][0]["results"]}
    assert states[run.findings[0].id] == "unchanged"
    from reactfuzz.engine.advice import advice_for

    for result in log["runs"][0]["results"]:
        f = next(f for f in run.findings
                 if f.id == result["partialFingerprints"]["reactfuzz/finding"])
        assert result["properties"]["advice"] == advice_for(f) != ""
        assert f"- **fix:** {advice_for(f)}" in result["message"]["markdown"]
        assert result["message"]["text"].endswith(f"Fix: {advice_for(f)}")
    validate(log)


def test_source_location_imports_nothing() -> None:
    """Only modules already imported are read: a name never imported is not looked up."""
    import sys

    assert source_location("surely_not_imported_module_xyz:parse") is None
    assert "surely_not_imported_module_xyz" not in sys.modules
    assert source_location("classic-bracket") is None
    assert source_location("regex:Action: (.*)") is None
    where = source_location("reactfuzz.reporting.sarif:source_location")
    assert where is not None and where[0].endswith("sarif.py") and where[1] > 1
