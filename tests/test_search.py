"""The search keeps going after the first failure, keeps one finding per root cause, and
its checks stay precise: each rule shown on a deliberately broken parser and a correct one."""

from __future__ import annotations

import pytest

from reactfuzz.checks import CheckInput, get_checks
from reactfuzz.dispatch import Executed, Rejected
from reactfuzz.engine import FuzzConfig, run_fuzz
from reactfuzz.engine.example import examine
from reactfuzz.engine.rootcause import mask
from reactfuzz.formats import get_format
from reactfuzz.kinds import DISAGREEMENT_SEVERITY, SEVERITY_RANK
from reactfuzz.model import Action, Call, Invalid, Step
from reactfuzz.oracle import Verdict, oracle
from reactfuzz.strategies import Scenario
from reactfuzz.tools import default_registry


def _config(**kw) -> FuzzConfig:
    base = dict(targets=["classic-bracket"], format="bracket", seed=1, max_examples=20,
                corpus=None, replay_corpus=False)
    base.update(kw)
    return FuzzConfig(**base)


class _Fixed:
    """A parser that returns the same Step whatever it reads (a deliberately broken one)."""

    def __init__(self, step: Step) -> None:
        self.step = step

    def parse(self, completion: str) -> Step:
        return self.step


def _scenario(intent: Call, completion: str, abuse: str = "clean.render") -> Scenario:
    acceptable = oracle(intent, "bracket", default_registry())
    return Scenario("bracket", abuse, intent, completion, completion, acceptable)


def _run_check(check: str, parser: _Fixed, sc: Scenario):
    fmt = get_format("bracket")
    return examine(sc, parser, fmt, default_registry(), "typed", get_checks([check]))


# --- root causes ---------------------------------------------------------------------


def test_masking_makes_one_crash_of_many_tools() -> None:
    a = mask("TypeError: search() missing 1 required positional argument: 'query'")
    b = mask("TypeError: list_invoices() missing 2 required positional arguments:"
             " 'customer_id' and 'since'")
    assert a == b == "TypeError: f() missing N required positional argument: '…'"
    # a parameter name is masked only where it names a value, never an English word
    assert "unable to parse" in mask("amount: unable to parse", params=["to", "amount"])


def test_one_root_cause_reached_by_many_operators_is_one_finding() -> None:
    run = run_fuzz(_config(checks=["no-crash"], abuses=[
        "missing.empty-brackets", "missing.argument-dropped", "malformed.empty"]))
    missing = [f for f in run.findings if "missing N required" in f.signature]
    assert len(missing) == 1, [f.signature for f in run.findings]
    assert missing[0].abuse == "missing.empty-brackets"
    assert set(missing[0].also_reached) >= {"missing.argument-dropped"}
    assert len({f.root_key() for f in run.findings}) == len(run.findings)


@pytest.mark.slow
def test_workers_merge_root_causes_as_one_process_does() -> None:
    config = _config(abuses=["missing.empty-brackets", "missing.argument-dropped",
                             "malformed.empty", "extra.positional"])
    one, two = run_fuzz(config), run_fuzz(config, workers=2)
    assert [(f.id, f.also_reached) for f in one.findings] == [
        (f.id, f.also_reached) for f in two.findings]


# --- the search keeps going ----------------------------------------------------------


@pytest.mark.slow
def test_more_budget_finds_more_root_causes() -> None:
    def causes(n: int) -> int:
        run = run_fuzz(_config(max_examples=n, abuses=["malformed.wrong-type",
                                                       "malformed.trailing-text"]))
        return len({f.root_key() for f in run.findings})

    assert causes(600) > causes(60)


def test_the_search_does_not_stop_at_the_first_failure() -> None:
    """Every example of the budget is generated, though the first ones fail already."""
    run = run_fuzz(_config(max_examples=40, checks=["no-crash"],
                           abuses=["missing.empty-brackets"]))
    assert run.operators[0].examples >= 40
    assert sum(run.operators[0].failures.values()) > 1


# --- precision -----------------------------------------------------------------------


def test_grammar_disagreements_never_rank_above_medium() -> None:
    assert max(SEVERITY_RANK[s] for s in DISAGREEMENT_SEVERITY.values()) == SEVERITY_RANK[
        "medium"]


def test_agrees_with_grammar_still_fires_on_a_wrong_reading() -> None:
    """A parser that reads another tool than the grammar: a disagreement, graded medium."""
    sc = _scenario(Call.named("search", query="a"), "Thought: a\nAction: search[a]")
    ex = _run_check("agrees-with-grammar", _Fixed(Step(action=Action("get_time", ""))), sc)
    assert ex.failure is not None and ex.failure.kind == "disagrees:other-tool"
    assert ex.failure.severity == "medium"


def test_agrees_with_grammar_is_silent_on_a_refusal_the_oracle_allows() -> None:
    refuse = _Fixed(Step(invalid=Invalid("unparseable", "no action")))
    # the format cannot carry a bracket inside a bare argument: refusing is acceptable
    allowed = _scenario(Call.named("search", query="a]"), "Thought: a\nAction: search[a]]",
                        abuse="injected.delimiter")
    assert isinstance(_run_check("agrees-with-grammar", refuse, allowed).outcome, Rejected)
    assert _run_check("agrees-with-grammar", refuse, allowed).failure is None
    # a clean rendering of a valid call must not be refused: that one still fires
    clean = _scenario(Call.named("search", query="a"), "Thought: a\nAction: search[a]")
    failure = _run_check("agrees-with-grammar", refuse, clean).failure
    assert failure is not None and failure.kind == "disagrees:stricter"


def test_a_bare_newline_the_format_cannot_carry_is_a_protocol_note() -> None:
    completion = "Thought: a\nAction: search[what does\nAnswer: mean]"
    hijack = _Fixed(Step(answer="mean]"))
    noted = _run_check("no-hijacked-answer", hijack,
                       _scenario(Call.named("search", query="what does\nAnswer: mean"),
                                 completion, abuse="injected.label-in-argument"))
    assert noted.failure is not None and noted.failure.cause == "protocol"
    # the same hijack of an argument the format can carry is the design's
    found = _run_check("no-hijacked-answer", hijack,
                       _scenario(Call.named("search", query="what does Answer: mean"),
                                 "Thought: a\nAction: search[what does Answer: mean]",
                                 abuse="injected.label-in-argument"))
    assert found.failure is not None and found.failure.cause == "design"


# --- bounded time --------------------------------------------------------------------


def _timed(n: int, elapsed: float) -> CheckInput:
    intent = Call.named("search", query="a" * n)
    sc = _scenario(intent, f"Thought: a\nAction: search[{'a' * n}]")
    registry = default_registry()
    outcome = Executed(registry.validate("search", {"query": "a" * n}))
    return CheckInput(scenario=sc, fmt=get_format("bracket"), registry=registry,
                      step=Step(action=Action("search", "a" * n)), outcome=outcome,
                      verdict=Verdict("ok", "fine"), elapsed=elapsed, time_limit=1.0)


def test_bounded_time_flags_super_linear_parsing_below_the_limit() -> None:
    [bounded] = get_checks(["bounded-time"])
    slow = bounded(_timed(20_000, 0.8))  # far slower than the grammar on the same text
    assert slow is not None and slow.signature == "slow parse"
    assert bounded(_timed(20_000, 0.001)) is None  # a linear parser
    assert bounded(_timed(50, 0.8)) is None  # too short to say anything about growth
    over = bounded(_timed(50, 1.5))
    assert over is not None and over.signature == "slow parse"


def test_an_interrupt_hidden_in_an_exceptions_context_is_still_an_interrupt() -> None:
    from reactfuzz.engine.search import _interrupted

    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise AssertionError("Hypothesis's own assert during set-up") from None
    except AssertionError as e:
        hidden = e
    assert hidden.__suppress_context__ and _interrupted(hidden)
    assert not _interrupted(ValueError("a bug, not an interrupt"))
