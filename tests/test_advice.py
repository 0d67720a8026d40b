"""Fix-it advice: every failure a built-in check can report on a built-in operator says
what to change for that mechanism, in one or two sentences, in every report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reactfuzz.engine.advice import GENERIC, advice, advice_for, advice_source
from reactfuzz.engine.checks import CHECKS
from reactfuzz.engine.corpus import AcceptableSpec, Finding, IntentSpec
from reactfuzz.engine.results import RunSummary
from reactfuzz.formats import BUILTIN_FORMATS
from reactfuzz.kinds import SEVERITY_SCALE
from reactfuzz.reporting import (
    render_console,
    render_html,
    render_junit,
    render_markdown,
    summary_to_dict,
    write_json,
)
from reactfuzz.strategies import ABUSES

# every failure kind each check reports, as it declares them where it is registered
KINDS: dict[str, tuple[str, ...]] = {c.id: c.kinds for c in CHECKS.values()}
FAMILIES = sorted({f.family.name for f in BUILTIN_FORMATS.values()})


def _sentences(text: str) -> int:
    # a sentence ends in a period, question or exclamation mark before a space or the end,
    # not inside a code span
    prose = re.sub(r"`[^`]*`", "x", text)
    return len(re.findall(r"[.!?](?:\s|$)", prose))


def test_every_builtin_check_names_its_failure_kinds_and_their_severity() -> None:
    for c in CHECKS.values():
        assert c.kinds, f"{c.id} declares no failure kinds"
        assert all(c.severity_of(k) in SEVERITY_SCALE for k in c.kinds), c.id


def test_every_operator_and_check_pair_gets_advice_for_its_mechanism() -> None:
    generic = []
    for abuse in ABUSES:
        for check, kinds in KINDS.items():
            for kind in kinds:
                for family in FAMILIES:
                    source, text = advice_source(check, kind, abuse, "design", family)
                    if source not in ("pair", "check", "operator") or text == GENERIC:
                        generic.append((abuse, check, kind, family, source))
    assert not generic, generic[:10]


def test_every_advice_is_one_or_two_sentences() -> None:
    texts = {advice(check, kind, abuse, cause, family)
             for abuse in ABUSES for check, kinds in KINDS.items() for kind in kinds
             for cause in ("design", "protocol") for family in FAMILIES}
    for text in texts:
        assert 1 <= _sentences(text) <= 2, text
        assert len(text) <= 260, text


def test_advice_follows_the_direction_and_the_family() -> None:
    # the design ran a misreading vs refused a valid text: two different fixes
    wrong = advice("no-wrong-call", "wrong-call", "label.leading-space")
    drop = advice("no-silent-drop", "silent-drop", "label.leading-space")
    assert wrong != drop and "prompt" in drop
    # a delimiter is a comma in brackets and a string in JSON
    assert "commas" in advice("no-wrong-call", "wrong-call", "injected.delimiter", family="bracket")
    assert "json.loads" in advice("no-wrong-call", "wrong-call", "injected.delimiter",
                                  family="json_blob")
    # each mechanism its own change
    assert "line" in advice("no-hijacked-answer", "hijacked-answer",
                            "injected.answer-label-in-thought")
    assert "stop" in advice("no-fabricated-observation", "fabricated-observation",
                            "fabricated.observation-no-stop")
    assert "schema" in advice("no-unvalidated-call", "unvalidated-call", "malformed.wrong-type")
    assert "last value" in advice("no-wrong-call", "wrong-call", "extra.duplicate-name")


def test_protocol_notes_get_the_formats_fix_and_unknown_operators_the_familys() -> None:
    assert advice_source("no-wrong-call", "wrong-call", "injected.delimiter",
                         "protocol")[0] == "protocol"
    # a user's own operator: the family's usual fix, then the generic one
    assert advice_source("no-wrong-call", "wrong-call", "mine.odd", family="json_blob")[0] == \
        "family"
    assert advice_source("my-check", "mine", "mine.odd") == ("generic", GENERIC)


def _finding(abuse: str, kind: str = "wrong-call", check: str = "no-wrong-call",
             fmt: str = "bracket", cause: str = "design") -> Finding:
    return Finding(
        target="classic", format=fmt, dispatcher="positional", check=check, verdict=kind,
        cause=cause, severity="critical", abuse=abuse,
        completion="Thought: a\nAction: search[Paris, France]",
        intent=IntentSpec(kind="call", tool="search", args=["Paris, France"]),
        acceptable=AcceptableSpec(rejections=["unparseable"]), expected="run search",
        observed="crashed", explanation="two arguments", seed=1,
    )


def test_advice_for_reads_the_format_family_from_the_finding(tmp_path: Path) -> None:
    toml = tmp_path / "de.toml"
    toml.write_text('name = "german"\nbase = "json-args"\n', encoding="utf-8")
    assert "commas" in advice_for(_finding("injected.delimiter"))
    assert "json.loads" in advice_for(_finding("injected.delimiter", fmt=str(toml)))
    # a format file gone since the run: advice without the family, no error
    assert advice_for(_finding("injected.delimiter", fmt=str(tmp_path / "gone.toml")))


@pytest.fixture
def summary() -> RunSummary:
    return RunSummary(
        seed=1, targets=["classic"], format="bracket", dispatcher="positional",
        tools="default", checks=["no-wrong-call"], abuses=["injected.delimiter"],
        findings=[_finding("injected.delimiter"),
                  _finding("injected.answer-label-in-thought", "hijacked-answer",
                           "no-hijacked-answer")],
        protocol_notes=[_finding("markup.argument", cause="protocol")], examples=10,
    )


def test_every_report_shows_each_findings_advice(summary: RunSummary, tmp_path: Path) -> None:
    fixes = [advice_for(f) for f in summary.findings]
    console = render_console(summary, width=400, color=False)
    assert sorted(line.split("fix", 1)[1].strip() for line in console.splitlines()
                  if line.strip().startswith("fix ")) == sorted(fixes)
    markdown = render_markdown(summary)
    assert all(f"- **fix:** {fix}" in markdown for fix in fixes)
    junit = render_junit(summary)
    assert all(f"fix:        {fix}" in junit for fix in fixes)
    page = render_html(summary)
    assert page.count('<dt>fix</dt><dd class="fix">') == len(fixes)
    assert "<code>search[&quot;Paris, France&quot;]</code>" in page  # code spans as code
    data = json.loads(write_json(summary, tmp_path / "run.json").read_text(encoding="utf-8"))
    assert data["advice"] == {f.id: advice_for(f)
                              for f in [*summary.findings, *summary.protocol_notes]}
    # the findings stay as the corpus stores them
    assert [Finding.model_validate(f) for f in summary_to_dict(summary)["findings"]] == \
        summary.findings
