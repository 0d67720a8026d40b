"""``reactfuzz bench --target``: a user's parser timed in process, through the worker one
completion at a time and batched, and explored with and without batches."""

from __future__ import annotations

import pytest

from reactfuzz.bench import render_bench, run_bench
from reactfuzz.bench.user import user_target_rows

SPEC = "tests.regexagent:parse"  # a classic regex parser as a module function


@pytest.mark.slow
def test_user_target_rows_time_the_parser_and_hold_a_ratio() -> None:
    rows = user_target_rows(SPEC, "bracket", quick=True, rounds=1,
                            abuses=["injected.answer-label-in-thought", "malformed.empty"],
                            say=lambda s: None)
    by = {r.name.removeprefix(f"{SPEC}: ").removeprefix(f"explore {SPEC}: "): r for r in rows}
    assert set(by) == {"own parse in process", "one completion per round trip",
                       "batched round trip, per completion", "per scenario, one per round trip",
                       "per scenario, batched", "per scenario vs the bare call"}
    assert all(r.value > 0 for r in rows)
    held = by["per scenario, batched"]
    assert held.target == "<= 15x" and held.met is not None  # a ratio, held in every run
    assert held.ratio == pytest.approx(held.value / by["own parse in process"].value)
    # batching changes the speed, never the run: both explorations fail the same scenarios
    assert "same failing count: yes" in held.note
    assert "bare call" in by["own parse in process"].note
    bare = by["per scenario vs the bare call"]  # the bare call timed in the same run
    assert bare.target == "<= 20x" and bare.met is not None and bare.unit == "x"
    assert bare.value > held.ratio and "timed in this run" in bare.note


@pytest.mark.slow
def test_bench_quick_with_a_user_target_reports_its_rows() -> None:
    result = run_bench(quick=True, rounds=1, target=SPEC)
    names = [r.name for r in result.rows]
    assert f"explore {SPEC}: per scenario, batched" in names
    assert f"parse {SPEC}" in names
    workers = next(r for r in result.rows if r.name == "2 workers vs 1")
    assert workers.met is not None or workers.note.startswith("skipped: ")
    rate = next(r for r in result.rows if r.name == "explore: scenarios per second")
    assert rate.target == "" and rate.met is None  # absolute: shown, not held
    assert "load average" in render_bench(result)
