"""Speed and scale features: fast exploration, workers, and fuzzing entry points."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactfuzz.engine import FuzzConfig, run_fuzz, run_fuzz_parallel
from reactfuzz.explore import ExploreConfig, explore
from reactfuzz.fuzzing import FuzzFailure, entry_point


def test_explore_finds_classic_failures_and_they_replay(tmp_path) -> None:
    from reactfuzz.engine import replay

    corpus = tmp_path / "c"
    r = explore(ExploreConfig(target="classic-bracket", scenarios=3000, seed=4,
                              pool_per_operator=8, corpus=str(corpus)))
    verdicts = {f.verdict for f in r.findings}
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
    cfg = ExploreConfig(target="classic-bracket", scenarios=1500, seed=9, pool_per_operator=5)
    a, b = explore(cfg), explore(cfg)
    assert [f.id for f in a.findings] == [f.id for f in b.findings]


def test_mutated_findings_are_shrunk_to_the_piece_that_matters() -> None:
    r = explore(ExploreConfig(target="classic-bracket", scenarios=3000, seed=4,
                              pool_per_operator=8, abuses=["clean.render"]))
    hijacks = [f for f in r.findings if f.verdict == "hijacked-answer"]
    assert hijacks
    # one inserted answer label is all it takes
    assert all(f.completion.count("Answer:") <= 2 for f in hijacks)


def test_workers_find_the_same_as_one_process() -> None:
    cfg = FuzzConfig(targets=["classic-bracket"], seed=3, max_examples=15, corpus=None,
                     abuses=["injected.delimiter", "injected.second-action", "label.case",
                             "malformed.empty"])
    one, two = run_fuzz(cfg), run_fuzz_parallel(cfg, 2)
    key = lambda s: sorted((f.check, f.verdict, f.abuse, f.completion) for f in s.findings)  # noqa: E731
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
    """The bench runs end to end and reports a figure for every target of the issue."""
    from reactfuzz.bench import render_bench, run_bench

    result = run_bench(quick=True, rounds=1)
    names = [r.name for r in result.rows]
    for want in ("bare re parse", "parse grammar", "full pipeline per scenario",
                 "transcript generation (ours)", "default fuzz run, one target",
                 "explore: scenarios per second", "2 workers vs 1"):
        assert want in names, want
    assert any(n.startswith("first finding: ") for n in names)
    assert any(n.startswith("RSS after") for n in names)
    md = render_bench(result, markdown=True)
    assert md.count("\n") == len(result.rows) + 1
