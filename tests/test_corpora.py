"""Real traffic written outside this project (read in place, never copied): the grammars
must accept it, and every rejection must point at a real defect in the text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reactfuzz import parse_transcript
from reactfuzz.conform import conform

CORPORA = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"
RUNS = CORPORA / "react_paper_model_runs.jsonl"
PROMPTS = CORPORA / "react_paper_trajectories.jsonl"

pytestmark = pytest.mark.skipif(not RUNS.is_file(), reason="shared corpora not beside checkout")


def test_paper_format_accepts_99_percent_of_real_fever_runs() -> None:
    report = conform(RUNS, "paper")
    assert report.total == 500
    assert report.rate >= 99.0, report.render_text()
    codes = {r.code for r in report.rejections}
    # the known defects: harness debug lines after a blank line, text after `]`,
    # an action without brackets
    assert codes <= {"unlabelled-text", "trailing-text", "malformed-action"}
    for r in report.rejections:
        if r.code == "unlabelled-text":
            assert r.context.startswith("ohh...")


def test_paper_format_accepts_every_numbered_prompt_trajectory() -> None:
    records = [json.loads(line) for line in PROMPTS.open(encoding="utf-8")]
    numbered = [r for r in records if r["format"] == "react-bracket" and r["numbered_labels"]]
    assert numbered
    for r in numbered:
        t = parse_transcript(r["text"], "paper")
        assert t.ok, (r["id"], str(t.invalid))
