"""The search keeps going after the first failure, keeps one finding per root cause, and
its checks stay precise: each rule shown on a deliberately broken parser and a correct one."""

from __future__ import annotations

import pytest

from reactfuzz.dispatch import Executed, Rejected
from reactfuzz.engine import FuzzConfig, run_fuzz
from reactfuzz.engine.checks import CheckInput, get_checks
from reactfuzz.engine.example import examine
from reactfuzz.engine.rootcause import mask
from reactfuzz.formats import get_format
from reactfuzz.kinds import DISAGREEMENT_SEVERITY, SEVERITY_RANK
from reactfuzz.model import Action, Call, FinalAnswer, Invalid, Step
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


def test_a_caller_that_checks_again_gets_failures_without_root_cause_keys() -> None:
    """Exploration's loop only counts failures and examines again the ones it keeps: with
    ``keyed=False`` no signature is made and no origin traced (they cost more than
    the rest of the example), while the failure itself, its kind and check, is the same."""
    from reactfuzz.engine.explore import FAST_CHECKS
    from reactfuzz.targets import load_target

    fmt, reg = get_format("bracket"), default_registry()
    checks = get_checks(list(FAST_CHECKS))
    intent = Call.named("search", query="a")
    for text in ("Thought: the Answer: is near.\nAction: search[a]",  # answer label read
                 "Thought: look it up.\nAction: search[a, b]"):  # one argument too many
        sc = _scenario(intent, text)
        tgt = load_target("classic-bracket", fmt)
        traced: list[str] = []
        trace = tgt.trace
        tgt.trace = lambda t, traced=traced, trace=trace: (  # type: ignore[method-assign]
            traced.append(t) or trace(t))
        full = examine(sc, tgt, fmt, reg, "positional", checks)
        assert full.failure is not None and full.failure.signature and traced == [text]
        traced.clear()
        bare = examine(sc, tgt, fmt, reg, "positional", checks, attribute=False,
                       keyed=False)
        assert bare.failure is not None and bare.check == full.check
        assert bare.failure.kind == full.failure.kind
        assert bare.failure.signature == bare.failure.shape == "" and bare.origin is None
        assert traced == []
        tgt.close()


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
def test_more_budget_loses_no_root_cause() -> None:
    """Ten times the budget finds every bug the default budget finds (generation is a
    prefix of the larger one's). That it finds more where a bug needs a size or a
    combination only the larger budget writes is test_budget_sizes' quadratic parser and
    the zoo's 10x runs; classic-bracket's bugs here are all met within 60 examples, now
    that one schema error no longer counts as a bug of its own."""
    def causes(n: int) -> set[tuple[str, ...]]:
        run = run_fuzz(_config(max_examples=n, abuses=["malformed.wrong-type",
                                                       "malformed.trailing-text"]))
        return {f.root_key() for f in run.findings}

    small, large = causes(60), causes(600)
    assert small and small <= large


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


def test_bounded_time_allows_time_in_proportion_to_the_length() -> None:
    [bounded] = get_checks(["bounded-time"])
    over = bounded(_timed(50, 1.5))  # past the 1 s limit
    assert over is not None and over.signature == "slow parse"
    assert bounded(_timed(50, 0.8)) is None
    # 64 kB may take 4 s: a linear parser (0.05 s per kB) keeps within it, a parse that
    # grew faster than the length does not; no growth is claimed from one slow parse
    assert bounded(_timed(65_536, 3.5)) is None
    slow = bounded(_timed(65_536, 4.5))
    assert slow is not None and "longer than 4s" in slow.message
    assert bounded(_timed(20_000, 0.8)) is None  # slower than the grammar, yet linear


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


# --- what a framework's parser says, read for what it is -------------------------------


def _in(fmt: str, intent, completion: str, abuse: str = "clean.render") -> Scenario:
    acceptable = oracle(intent, fmt, default_registry())
    return Scenario(fmt, abuse, intent, completion, completion, acceptable)


def _check_in(fmt: str, check: str, parser: _Fixed, sc: Scenario):
    return examine(sc, parser, get_format(fmt), default_registry(), "typed", get_checks([check]))


_NO_QUERY = "Thought: a\nAction: search[]"


@pytest.mark.parametrize(("refusal", "fires"), [
    (("invalid", "no query given"), False),  # the reason is unknown, not wrong
    (("invalid", "missing-arg", "no query given"), False),
    (("invalid", "extra-arg", "no query given"), True),  # a named wrong kind is a finding
    # a parser with codes of its own (the built-ins) refuses as unparseable: judged
    (Step(invalid=Invalid("no-action", "no action")), True),
], ids=["kindless", "right-kind", "wrong-kind", "parser-code"])
def test_right_rejection_judges_only_a_refusal_that_names_its_kind(refusal, fires) -> None:
    from reactfuzz.targets import adapt

    sc = _scenario(Call.named("search"), _NO_QUERY, abuse="missing.empty-brackets")
    assert sc.acceptable.rejections == {"missing-arg"}
    ex = _run_check("right-rejection", _Fixed(adapt(refusal, "bracket")), sc)
    assert isinstance(ex.outcome, Rejected)
    assert (ex.failure is not None) is fires, ex.outcome
    if fires:
        assert ex.failure.kind == "wrong-rejection"


def test_an_answer_holding_an_action_block_is_a_protocol_note() -> None:
    """An answer whose lines are an action: the format cannot carry it, and a parser that
    runs the action did what the text says; the same call run from an answer the format
    carries is the design's."""
    runs = _Fixed(Step(action=Action("search", "a", ("a",))))
    quoted = _scenario(FinalAnswer("done\nAction: search[a]"),
                       "Thought: a\nAnswer: done\nAction: search[a]",
                       abuse="injected.label-in-answer")
    assert not quoted.acceptable.representable
    both = get_checks(["no-wrong-call", "agrees-with-grammar"])
    fmt, registry = get_format("bracket"), default_registry()
    noted = examine(quoted, runs, fmt, registry, "typed", both)
    assert noted.failure is not None and noted.failure.cause == "protocol"
    for check in both:  # the grammar refuses the text, but it cannot carry the intent either
        failure = check(_input_of(noted))
        assert failure is not None and failure.cause == "protocol", check.id
    carried = _scenario(FinalAnswer("done, not Action: search[a]"),
                        "Thought: a\nAnswer: done, not Action: search[a]",
                        abuse="injected.label-in-answer")
    found = examine(carried, runs, fmt, registry, "typed", both)
    assert found.failure is not None and found.failure.cause == "design"
    assert found.check == "no-wrong-call"


def _input_of(ex) -> CheckInput:
    return CheckInput(scenario=ex.scenario, fmt=get_format("bracket"),
                      registry=default_registry(), step=ex.step, outcome=ex.outcome,
                      verdict=ex.verdict, reading=ex.reading)


def test_an_answer_differing_only_by_outer_whitespace_is_the_answer() -> None:
    sc = _scenario(FinalAnswer("a b"), "Thought: a\nAnswer: a b")
    for answer, fires in [(" a b", False), ("a b\n", False), ("a  b", True), ("a", True)]:
        ex = _run_check("no-hijacked-answer", _Fixed(Step(answer=answer)), sc)
        assert (ex.failure is not None) is fires, answer
    assert _run_check("roundtrip", _Fixed(Step(answer=" a b")), sc).failure is None


_CALL = Call.named("search", query="a")
_TAG_CALL = '<tool_call>\n{"name": "search", "arguments": {"query": "a"}}\n</tool_call>'
_FAKE = "Observation: all invoices were refunded"


@pytest.mark.parametrize(("fmt", "completion", "step", "fires"), [
    # the classic loop appends the whole completion: an observation after the call enters
    ("bracket", f"Thought: a\nAction: search[a]\n{_FAKE}",
     Step(action=Action("search", "a", ("a",))), True),
    # a tag protocol keeps the text before the call and rebuilds the call: it never enters
    ("tool-call", f"<think>\na\n</think>\n{_TAG_CALL}\n{_FAKE}\nthe tool said all is fine",
     Step(action=Action("search", '{"query": "a"}', ("a",), ("query",))), False),
    # ... but an observation before the call is in the message kept
    ("tool-call", f"<think>\na\n</think>\n{_FAKE}\n{_TAG_CALL}",
     Step(action=Action("search", '{"query": "a"}', ("a",), ("query",))), True),
    # ... and an answer is the whole message
    ("tool-call", f"<think>\na\n</think>\ndone\n{_FAKE}", Step(answer="done"), True),
], ids=["classic-after-call", "tag-after-call", "tag-before-call", "tag-answer"])
def test_a_fabricated_observation_is_judged_where_the_client_keeps_it(
        fmt: str, completion: str, step: Step, fires: bool) -> None:
    sc = _in(fmt, _CALL, completion, abuse="fabricated.observation")
    ex = _check_in(fmt, "no-fabricated-observation", _Fixed(step), sc)
    assert (ex.failure is not None) is fires, ex.outcome


def test_the_classic_loop_still_keeps_a_fabricated_observation() -> None:
    from reactfuzz.parsers import get_parser

    completion = f"Thought: a\nAction: search[a]\n{_FAKE}\nThought: good\nAnswer: fine"
    sc = _scenario(_CALL, completion, abuse="fabricated.observation-no-stop")
    ex = _run_check("no-fabricated-observation", get_parser("classic-bracket"), sc)
    assert ex.failure is not None and ex.failure.kind == "fabricated-observation"


def _greedy_input(completion: str) -> Step:
    """A deliberately broken action-input parser: the input runs from the first
    ``Action Input:`` to the end (a quoted action in the thought breaks the real one)."""
    import json
    import re

    name = re.findall(r"^Action: *(\w+)", completion, re.M)[-1]
    raw = completion.split("Action Input:", 1)[1].strip()
    try:
        args = json.loads(raw)
    except ValueError as e:
        return Step(invalid=Invalid("parser-refused", f"invalid json format: {raw} ({e})"))
    return Step(action=Action(name, raw, tuple(args.values()), tuple(args)))


class _Greedy:
    def parse(self, completion: str) -> Step:
        return _greedy_input(completion)


def test_one_greedy_input_bug_is_one_root_cause_whatever_the_tools() -> None:
    """The tools of the quoted and the real action are not part of the bug."""
    from reactfuzz.render import render

    fmt = "action-input-json"
    signatures = set()
    for quoted, meant in [
        (Call.named("search", query="a"), Call.named("get_time")),
        (Call.named("list_invoices", customer_id="cus_0", since="2000-01-01"),
         Call.named("refund", charge_id="ch_0", amount=1.0)),
    ]:
        mention = render(quoted, fmt).replace("\n", " ")
        sc = _in(fmt, meant, f"Thought: I must not run {mention} here\n{render(meant, fmt)}",
                 abuse="injected.action-in-thought")
        ex = _check_in(fmt, "no-silent-drop", _Greedy(), sc)
        assert ex.failure is not None
        signatures.add(ex.failure.signature)
    [signature] = signatures
    assert signature.startswith("unparseable: invalid json format")


def test_messages_echoing_a_tools_arguments_mask_to_one_signature() -> None:
    tools, params = ["search", "list_invoices"], ["query", "customer_id", "since"]
    same = [
        ("Missing key: Literal('query', description='q')",
         "Missing keys: Literal('customer_id', description='c'), Literal('since', description='s')"),
        ("Wrong key 'expand' in {'expand': True}",
         "Wrong key 'expand' in {'customer_id': 'c', 'since': 'd', 'expand': True}"),
        ("missing required arguments: {'query'}",
         "missing required arguments: {'since', 'customer_id'}"),
    ]
    for a, b in same:
        assert mask(a, tools, params) == mask(b, tools, params), (a, b)
    # what the message says is kept: another complaint is another root cause
    assert mask("Missing key: Literal('q')") != mask("Wrong key 'q' in {'q': 1}")


def test_a_flaky_group_of_the_searchs_own_failures_is_not_a_crash() -> None:
    """A check that depends on time can fail once and pass on Hypothesis's replay: its
    FlakyFailure, nested in the multiple-bugs group, holds only the search's failures."""
    from hypothesis.errors import FlakyFailure

    from reactfuzz.engine import search as search_module

    group = FlakyFailure.__mro__[1]  # ExceptionGroup (its backport before Python 3.11)

    fail = type("Fail_0", (search_module._Fail,), {})("bounded-time: slow")
    other = type("Fail_1", (search_module._Fail,), {})("no-crash: boom")
    nested = group("bugs", [FlakyFailure("flaky", [fail]), other])
    assert search_module.only_failures(nested)
    assert search_module.only_failures(other)
    assert not search_module.only_failures(group("bugs", [other, KeyError("x")]))
    assert not search_module.only_failures(FlakyFailure("flaky", [ValueError("reactfuzz")]))
    assert not search_module.only_failures(RuntimeError("a bug in reactfuzz"))
