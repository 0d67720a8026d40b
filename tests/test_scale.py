"""Speed and scale features: fast exploration, workers, and fuzzing entry points."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactfuzz.engine import FuzzConfig, run_fuzz, run_fuzz_parallel
from reactfuzz.engine.explore import ExploreConfig, explore
from reactfuzz.fuzzing import FuzzFailure, entry_point


def test_explore_finds_classic_failures_and_they_replay(tmp_path) -> None:
    from reactfuzz.engine import replay

    corpus = tmp_path / "c"
    r = explore(ExploreConfig(target="classic-bracket", scenarios=3000, seed=4,
                              pool_per_operator=8, corpus=str(corpus)))
    verdicts = {f.failure for f in r.findings}
    assert {"hijacked-answer", "crash", "wrong-call"} <= verdicts
    assert r.scenarios == 3000 and r.rate > 0
    results = replay([corpus])
    assert results and all(x.reproduced for x in results)


def test_explore_mutations_keep_the_oracle_valid() -> None:
    """The grammar + typed design is never wrong on mutated scenarios: mutations put pieces
    inside thought lines only, where they cannot change what the completion means."""
    r = explore(ExploreConfig(target="grammar", scenarios=3000, seed=4, pool_per_operator=8))
    assert r.findings == []


def test_explore_is_deterministic_by_seed() -> None:
    # shrinking has a time budget: unbounded here, every finding is the same file again
    cfg = ExploreConfig(target="classic-bracket", scenarios=1500, seed=9, pool_per_operator=5,
                        shrink_budget=math.inf)
    a, b = explore(cfg), explore(cfg)
    assert [f.id for f in a.findings] == [f.id for f in b.findings]
    assert a.unshrunk == b.unshrunk == 0


def test_shrinking_is_counted_in_parses_not_timed(monkeypatch) -> None:
    """The default budget is a count of parses: a machine whose clock runs ten times as
    fast while shrinking (as a loaded one's seems to) makes the same findings, shrunk alike,
    as long as the wall-time safety cap is not met; a count of 0 shrinks none."""
    import reactfuzz.engine.explore as ex

    cfg = ExploreConfig(target="classic-bracket", scenarios=1500, seed=9, pool_per_operator=5,
                        shrink_budget=60.0, shrink_parses=150)
    steady = explore(cfg)
    real = ex.time.monotonic
    start = real()
    monkeypatch.setattr(ex.time, "monotonic", lambda: start + 10 * (real() - start))
    hurried = explore(cfg)
    assert [(f.id, f.completion, f.shrunk) for f in steady.findings] == \
        [(f.id, f.completion, f.shrunk) for f in hurried.findings]
    assert not steady.shrink_capped and not hurried.shrink_capped
    assert 0 < steady.unshrunk < len(steady.findings)  # the count, not the clock, ran out
    none = explore(replace(cfg, shrink_parses=0))
    assert none.unshrunk == len(none.findings) > 0


def test_the_shrinking_budget_of_a_run() -> None:
    import time as ex_time

    from reactfuzz.engine.explore import SHRINK_PARSES_FLOOR, SHRINK_PARSES_SHARE
    from reactfuzz.engine.shrinking import ShrinkBudget as _Budget

    cfg = ExploreConfig(target="classic-bracket")
    assert _Budget.for_run(cfg, 20_000, 1.0).parses == \
        SHRINK_PARSES_FLOOR + SHRINK_PARSES_SHARE * 20_000
    assert _Budget.for_run(replace(cfg, shrink_budget=math.inf), 20_000, 1.0).parses == math.inf
    assert not _Budget.for_run(replace(cfg, shrink_budget=0.0), 20_000, 1.0).open()
    late = _Budget(10, deadline=ex_time.monotonic() - 1)  # the safety cap met first
    assert not late.open() and late.capped


def test_explore_keys_bugs_the_same_whatever_the_shrinking_budget(tmp_path) -> None:
    """With no time to shrink, the same bugs are found (from the seed alone); each keeps
    its shortest example, says it is unshrunk, and still replays from its file."""
    from reactfuzz.engine import replay

    cfg = ExploreConfig(target="classic-bracket", scenarios=1500, seed=9, pool_per_operator=5)
    full = explore(replace(cfg, shrink_budget=math.inf))
    none = explore(replace(cfg, shrink_budget=0.0, corpus=str(tmp_path / "c")))
    assert sorted(f.root_key() for f in full.findings) == \
        sorted(f.root_key() for f in none.findings)
    assert none.findings and none.unshrunk == len(none.findings)
    assert not any(f.shrunk for f in none.findings)
    assert all(x.reproduced for x in replay([tmp_path / "c"]))


def test_explore_reports_each_bug_once() -> None:
    """Thousands of failing scenarios, one finding per root cause, counting its scenarios."""
    r = explore(ExploreConfig(target="classic-bracket", scenarios=3000, seed=4,
                              pool_per_operator=8))
    keys = [f.root_key() for f in r.findings]
    assert r.failing > 10 * len(keys) and len(set(keys)) == len(keys)
    assert sum(f.count for f in r.findings) <= r.failing


def test_a_mutation_parsed_like_an_earlier_one_is_judged_as_it_was(monkeypatch) -> None:
    """The loop's cache of verdicts per base changes nothing: judging every scenario in
    full finds the same failing count and the same bugs."""
    import reactfuzz.engine.explore as ex

    cfg = ExploreConfig(target="classic-bracket", scenarios=2000, seed=6, pool_per_operator=6,
                        shrink_budget=0.0)
    cached = explore(cfg)
    monkeypatch.setattr(ex, "_fingerprint", lambda res, slow: None)
    full = explore(cfg)
    assert cached.failing == full.failing > 0
    keys = [f.root_key() for f in cached.findings]
    assert keys == [f.root_key() for f in full.findings]
    assert len(set(keys)) == len(keys) and cached.failing > 10 * len(keys)  # a bug, a finding


def test_mutation_slots_are_inside_the_thought_the_grammar_reads() -> None:
    """Pieces go inside the thought's text only: not in a label, not in a call a tag
    format writes without a label line, and nowhere in a text the grammar refuses."""
    from reactfuzz.engine.mutation import Slots, thought_slots
    from reactfuzz.formats import get_format

    fmt = get_format("bracket")
    text = "Thought: a b\nx\nmore thought\nAction: search[q]"
    assert thought_slots(text, fmt) == [*range(10, 13), 14, *range(16, 28)]
    assert Slots("Action: search[q]", fmt).total == 0
    assert Slots("Thought: a\nAction: search[q", fmt).total == 0  # refused: no thought
    tag = get_format("tool-call")
    text = 'I will look.\n<tool_call>\n{"name": "search", "arguments": {"query": "q"}}\n</tool_call>'
    slots = thought_slots(text, tag)
    assert slots and max(slots) <= text.index("\n<tool_call>")


def test_mutated_findings_are_shrunk_to_the_piece_that_matters() -> None:
    r = explore(ExploreConfig(target="classic-bracket", scenarios=3000, seed=4,
                              pool_per_operator=8, abuses=["clean.render"]))
    hijacks = [f for f in r.findings if f.failure == "hijacked-answer"]
    assert hijacks
    # one inserted answer label is all it takes
    assert all(f.completion.count("Answer:") <= 2 for f in hijacks)


def test_workers_find_the_same_as_one_process() -> None:
    cfg = FuzzConfig(targets=["classic-bracket"], seed=3, max_examples=15, corpus=None,
                     abuses=["injected.delimiter", "injected.second-action", "label.case",
                             "malformed.empty"])
    one, two = run_fuzz(cfg), run_fuzz_parallel(cfg, 2)
    key = lambda s: sorted((f.check, f.failure, f.abuse, f.completion) for f in s.findings)  # noqa: E731
    assert key(one) == key(two) and one.findings


def test_hypothesis_database_is_used_when_given(tmp_path) -> None:
    cfg = FuzzConfig(targets=["classic-bracket"], seed=3, max_examples=10, corpus=None,
                     abuses=["injected.delimiter"], hypothesis_db=str(tmp_path / "db"))
    run_fuzz(cfg)
    assert any((tmp_path / "db").iterdir())


@pytest.mark.parametrize(
    ("target", "data", "kind"),
    [
        ("classic-bracket", b"Thought: x Answer: y\nAction: search[a]", "hijacked-answer"),
        ("classic-bracket", b"Action: search[a, b]", "no-crash"),
        ("classic-unanchored", b"Thought: Action: get_time[] no\nAction: search[a]", "wrong-call"),
    ],
)
def test_entry_point_raises_on_a_broken_parser(target: str, data: bytes, kind: str) -> None:
    fn = entry_point(target, "bracket")
    with pytest.raises(FuzzFailure, match=kind):
        fn(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=120).map(str.encode))
def test_entry_point_never_fails_for_the_grammar_design(data: bytes) -> None:
    entry_point("grammar", "bracket")(data)


def test_entry_point_accepts_valid_completions() -> None:
    for target in ("classic-bracket", "hardened-bracket", "grammar"):
        entry_point(target, "bracket")(b"Thought: a\nAction: list_invoices[cus_1, 2026-07-01]")


def test_bench_quick_reports_every_target(tmp_path) -> None:
    """The bench runs end to end (in seconds, quick) and reports a figure for every target
    of the issue, the grammar on every workload, and the machine's load."""
    import json

    from reactfuzz.bench import render_bench, run_bench

    mine = tmp_path / "mine.jsonl"
    mine.write_text("\n".join(json.dumps({"id": i, "completion": t}) for i, t in enumerate(
        ["Thought: look it up\nAction: search[refund policy]", "Answer: done", "no labels"]
    )) + "\n", encoding="utf-8")
    result = run_bench(quick=True, rounds=1, completions=str(mine), field="completion")
    names = [r.name for r in result.rows]
    for want in ("bare re parse", "parse grammar", "full pipeline per scenario",
                 "transcript generation (ours)", "default fuzz run, one target",
                 "explore: scenarios per second", "2 workers vs 1",
                 "parse grammar, realistic runs", "parse transcript grammar, realistic runs",
                 "parse grammar, abuse mix", "parse grammar, your completions"):
        assert want in names, want
    assert any(n.startswith("first finding: ") for n in names)
    assert any(n.startswith("RSS after") for n in names)
    by_name = {r.name: r for r in result.rows}
    assert "3 completions from" in by_name["parse grammar, your completions"].note
    # the held pipeline row leaves the size family out; the row beside it keeps it
    assert "the size family left out" in by_name["full pipeline per scenario"].note
    assert by_name["full pipeline per scenario, size operators too"].target == ""
    assert all(by_name[n].ratio for n in names if n.startswith("parse grammar, "))
    assert result.load_before is not None and result.load_after is not None
    md = render_bench(result, markdown=True)
    assert md.startswith("Machine: 2 cores," if result.cores == 2 else "Machine: ")
    assert "load average" in md
    assert md.count("\n") == len(result.rows) + 3


def test_realistic_runs_are_valid_multi_step_runs() -> None:
    """The realistic workload is what a well-behaved model writes: every completion and
    every transcript is valid for the grammar, and each run has several steps."""
    from reactfuzz.bench import realistic_runs
    from reactfuzz.formats.grammars import grammar_parse, parse_transcript

    runs = realistic_runs(12, seed=3)
    assert realistic_runs(12, seed=3) == runs  # seeded
    for completions, transcript in runs:
        assert 3 <= len(completions) <= 6
        assert all(grammar_parse(c, "bracket").invalid is None for c in completions)
        assert grammar_parse(completions[-1], "bracket").answer is not None
        assert parse_transcript(transcript, "bracket").ok


@pytest.mark.parametrize(("text", "message"), [
    ("", "no completions"),
    ('{"text": "a"}\n[1]\n', ":2: expected a JSON object with a string 'text'"),
    ('{"text": "a"}\n{oops\n', ":2: invalid JSON"),
])
def test_bench_completions_file_errors_name_the_line(tmp_path, text: str, message: str) -> None:
    from reactfuzz.bench import read_completions
    from reactfuzz.errors import InputFileError

    path = tmp_path / "c.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError, match=message.replace("[", r"\[")):
        read_completions(str(path))


def test_the_loop_calls_a_parse_slow_by_its_cpu_time_where_it_worked() -> None:
    """A loaded machine stretches a working parse's wall time, not its CPU time: the loop
    judges slowness as the time check does, so load neither makes nor hides a slow base; a
    parse that sleeps (next to no CPU) is judged by its wall time."""
    from reactfuzz.engine.explore import _is_slow
    from reactfuzz.model import Step
    from reactfuzz.targets import ParseResult

    def parsed(elapsed: float, cpu: float | None = None) -> ParseResult:
        return ParseResult(Step(answer="a"), elapsed=elapsed, cpu=cpu)

    slow = 0.25
    stretched = parsed(elapsed=1.0, cpu=0.2)  # a fifth of the CPU: four hogs beside it
    assert not _is_slow(stretched, slow) and not _is_slow((0, 1.0, 0.2), slow)
    working = parsed(elapsed=1.0, cpu=0.3)
    assert _is_slow(working, slow) and _is_slow((0, 1.0, 0.3), slow)
    sleeping = parsed(elapsed=1.0, cpu=0.001)
    assert _is_slow(sleeping, slow) and _is_slow((0, 1.0, 0.001), slow)
    assert _is_slow(parsed(elapsed=0.3), slow)  # not measured: the wall clock
    assert not _is_slow(7, slow)  # a bare repeat came back quicker than that
