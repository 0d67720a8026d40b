"""The dispatch model: dispatchers, the oracle and verdicts, as a specification."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reactfuzz import Call, FinalAnswer, grammar_parse
from reactfuzz.designs import BUILTIN_DESIGNS, DECISION_CASES, decision_table
from reactfuzz.dispatch import (
    Crashed,
    Executed,
    Finished,
    Rejected,
    dispatch_positional,
    dispatch_typed,
    get_dispatcher,
)
from reactfuzz.docgen import main as docgen_main
from reactfuzz.errors import UsageError
from reactfuzz.model import Action, Invalid, Step
from reactfuzz.oracle import Expectation, Policy, Verdict, judge, oracle
from reactfuzz.parsers import get_parser
from reactfuzz.render import render, representable
from reactfuzz.tools import default_registry

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def reg():
    return default_registry()


# --- the decision table: what each design does with the abuses that decide ------------

TRIALS = decision_table()
TRIAL_IDS = [f"{t.case} / {t.design}" for t in TRIALS]


def test_decision_table_covers_every_case_and_design() -> None:
    assert len(TRIALS) == len(DECISION_CASES) * 4


def test_classic_design_crashes_runs_unvalidated_and_wrong_calls() -> None:
    kinds = {t.verdict.kind for t in TRIALS if t.design == "classic-bracket"}
    assert {"crash", "unvalidated-call", "wrong-call"} <= kinds


@pytest.mark.parametrize("trial", [t for t in TRIALS if t.design != "classic-bracket"],
                         ids=[i for i, t in zip(TRIAL_IDS, TRIALS)
                              if t.design != "classic-bracket"])
def test_typed_designs_only_run_the_intent_or_refuse_rightly(trial) -> None:
    """Every typed design is ok, except where the bracket protocol cannot carry the intent."""
    if trial.case == "comma inside, optional string after" and trial.design != "grammar-json-args":
        # `send_email[bob@example.com, Hi, Bob]` IS a valid three-argument call in bracket:
        # no parser or schema can know the comma was meant inside the subject.
        assert trial.verdict.kind == "wrong-call"
        assert trial.verdict.cause == "protocol"
        assert "subject='Hi'" in trial.verdict.explanation
        assert not representable(dict(DECISION_CASES)[trial.case], "bracket")
    else:
        assert trial.verdict.ok, trial.verdict
        if isinstance(trial.outcome, Rejected):
            assert trial.outcome.message


@pytest.mark.parametrize(
    ("case", "classic_verdict"),
    [
        ("malformed: a date that is not a date", "unvalidated-call"),
        ("malformed: path traversal", "unvalidated-call"),
        ("missing: a required argument left out", "crash"),
        ("undeclared: one argument too many", "crash"),
        ("comma inside the only argument", "crash"),
        ("comma inside, optional parameter after", "unvalidated-call"),
        ("comma inside, optional string after", "wrong-call"),
        ("comma inside, optional string after (quoted)", "wrong-call"),
    ],
)
def test_classic_verdicts_per_case(case: str, classic_verdict: str) -> None:
    t = next(t for t in TRIALS if t.case == case and t.design == "classic-bracket")
    assert t.verdict.kind == classic_verdict


def test_typed_rejections_have_the_right_kind() -> None:
    want = {
        "malformed: a date that is not a date": "malformed-arg",
        "malformed: an id that breaks its pattern": "malformed-arg",
        "malformed: path traversal": "malformed-arg",
        "missing: a required argument left out": "missing-arg",
        "missing: the only argument left out": "missing-arg",
        "undeclared: one argument too many": "extra-arg",
    }
    for t in TRIALS:
        if t.case in want and t.design != "classic-bracket":
            assert isinstance(t.outcome, Rejected) and t.outcome.reason == want[t.case], t


def test_docs_concepts_table_is_generated_and_current() -> None:
    assert docgen_main(["--check", "--root", str(ROOT)]) == 0, "run python -m reactfuzz.docgen"
    text = (ROOT / "docs" / "concepts.md").read_text()
    assert "send_email[bob@example.com, Hi, Bob]" in text


# --- dispatchers -----------------------------------------------------------------------


def step_for(text: str, fmt: str = "bracket") -> Step:
    return grammar_parse(text, fmt)


def test_positional_binds_like_python_and_records(reg) -> None:
    out = dispatch_positional(step_for("Action: get_weather[Paris, imperial]"), reg)
    assert out == Executed(Call("get_weather", ("Paris", "imperial"), ("city", "units")))
    assert reg.calls == [out.call]


@pytest.mark.parametrize(
    ("text", "outcome_kind", "detail"),
    [
        ("Action: delete_account[1]", "crashed", "KeyError"),
        ("Action: search[]", "crashed", "missing 1 required positional argument"),
        ("Action: get_time[]", "executed", "get_time"),
        ("Action: list_invoices[cus_1]", "crashed", "missing 1 required positional argument"),
        ("Answer: done", "finished", "done"),
        ("Thought: nothing", "rejected", "unparseable"),
    ],
)
def test_positional_outcomes(reg, text: str, outcome_kind: str, detail: str) -> None:
    out = dispatch_positional(step_for(text), reg)
    assert out.kind == outcome_kind
    assert detail in str(out)


@pytest.mark.parametrize(
    ("text", "fmt", "reason"),
    [
        ("Action: delete_account[1]", "bracket", "unknown-tool"),
        ("Action: get_charge[ch_1, x]", "bracket", "extra-arg"),
        ('Action: get_charge {"charge_id": "ch_1", "expand": true}', "json-args", "extra-arg"),
        ('Action: get_charge {"charge_id": "ch_1", "charge_id": "ch_2"}', "json-args", "extra-arg"),
        ("Action: list_invoices[cus_1]", "bracket", "missing-arg"),
        ('Action: list_invoices {"since": "2026-07-01"}', "json-args", "missing-arg"),
        ("Action: refund[ch_1, -5]", "bracket", "malformed-arg"),
        ('Action: refund {"charge_id": "ch_1", "amount": "lots"}', "json-args", "malformed-arg"),
        ("Action: search[x]\nAction: search[y]", "bracket", "unparseable"),
        ("Thought: no action", "bracket", "unparseable"),
    ],
)
def test_typed_refusals(reg, text: str, fmt: str, reason: str) -> None:
    out = dispatch_typed(step_for(text, fmt), reg)
    assert isinstance(out, Rejected), out
    assert out.reason == reason
    assert out.message
    assert reg.calls == []


def test_typed_maps_parser_ambiguity_codes(reg) -> None:
    step = Step(invalid=Invalid("action-and-answer", "an action and an answer together"))
    assert dispatch_typed(step, reg) == Rejected("ambiguous", "an action and an answer together")
    step = get_parser("hardened-bracket", "bracket").parse("Action: a[x]\nAction: b[y]")
    assert dispatch_typed(step, reg).reason == "ambiguous"  # type: ignore[union-attr]


def test_typed_validates_and_coerces(reg) -> None:
    out = dispatch_typed(step_for("Action: list_invoices[cus_8812, 2026-07-01]"), reg)
    assert out == Executed(
        Call("list_invoices", ("cus_8812", dt.date(2026, 7, 1)), ("customer_id", "since"))
    )
    assert reg.calls == [out.call]


def test_typed_with_undecoded_action_takes_raw_as_one_argument(reg) -> None:
    step = Step(action=Action("search", "Paris, France"))
    assert dispatch_typed(step, reg) == Executed(Call("search", ("Paris, France",), ("query",)))


def test_get_dispatcher() -> None:
    assert get_dispatcher("typed") is dispatch_typed
    with pytest.raises(UsageError, match="positional, typed"):
        get_dispatcher("nope")


# --- oracle and verdicts ---------------------------------------------------------------


def test_oracle_valid_call_is_exact(reg) -> None:
    acc = oracle(Call.named("get_weather", city="Paris"), "bracket", reg)
    assert acc.calls == (Call("get_weather", ("Paris", "metric"), ("city", "units")),)
    assert acc.rejections == frozenset()


@pytest.mark.parametrize(
    ("intent", "fmt", "kind"),
    [
        (Call.named("nope", x="1"), "json-args", "unknown-tool"),
        (Call("search", ("a", "b")), "bracket", "extra-arg"),
        (Call.named("search", query="a", lang="en"), "json-args", "extra-arg"),
        (Call.named("list_invoices", customer_id="cus_1"), "json-args", "missing-arg"),
        (Call.named("get_charge", charge_id="INV-1"), "bracket", "malformed-arg"),
    ],
)
def test_oracle_broken_intents_only_allow_their_refusal(reg, intent, fmt, kind) -> None:
    acc = oracle(intent, fmt, reg)
    assert acc.calls == () and acc.rejections == {kind}


def test_oracle_unrepresentable_allows_any_refusal(reg) -> None:
    acc = oracle(Call.named("search", query="a, b"), "bracket", reg)
    assert not acc.representable
    assert {"extra-arg", "ambiguous", "unrepresentable"} <= acc.rejections
    assert acc.calls  # running exactly the intent is still right


def test_oracle_policy_drop_undeclared(reg) -> None:
    intent = Call.named("search", query="x", lang="en")
    acc = oracle(intent, "json-args", reg, Policy(undeclared_args="drop"))
    assert acc.calls == (Call("search", ("x",), ("query",)),)
    assert "extra-arg" in acc.rejections


def test_oracle_expectation_can_forbid_the_intent(reg) -> None:
    exp = Expectation(frozenset({"ambiguous"}), allow_intended=False, note="two actions")
    acc = oracle(Call.named("search", query="x"), "bracket", reg, expectation=exp)
    assert acc.calls == () and acc.rejections == {"ambiguous"}
    assert "two actions" in acc.reason


@pytest.mark.parametrize(
    ("intent", "observed", "kind", "words"),
    [
        (Call.named("search", query="x"), Executed(Call("search", ("x",), ("query",))), "ok", ""),
        (Call.named("search", query="x"), Executed(Call("refund", ("ch_1", 5.0, "duplicate"),
         ("charge_id", "amount", "reason"))), "wrong-call", "refund instead of search"),
        (Call.named("get_weather", city="Paris, France"),
         Executed(Call("get_weather", ("Paris", "France"), ("city", "units"))),
         "unvalidated-call", "units"),
        (Call.named("send_email", to="a@b.co", subject="Hi, Bob"),
         Executed(Call("send_email", ("a@b.co", "Hi", "Bob"), ("to", "subject", "body"))),
         "wrong-call", "subject='Hi' (meant 'Hi, Bob')"),
        (Call.named("search", query="x"), Finished("maybe"), "hijacked-answer", "where the model meant"),
        (FinalAnswer("yes"), Finished("no"), "hijacked-answer", "instead of 'yes'"),
        (FinalAnswer("yes"), Executed(Call("search", ("x",), ("query",))), "wrong-call", "meant to answer"),
        (Call.named("search", query="x"), Crashed("TypeError", "boom"), "crash", "TypeError: boom"),
        (Call.named("search", query="x"), Rejected("malformed-arg", "no"), "silent-drop", "valid intent"),
        (Call.named("list_invoices", customer_id="cus_1"), Rejected("malformed-arg", "no"),
         "wrong-rejection", "missing-arg"),
    ],
)
def test_judge_names_the_verdict(reg, intent, observed, kind: str, words: str) -> None:
    acc = oracle(intent, "json-args", reg)
    v = judge(observed, acc, reg)
    assert isinstance(v, Verdict)
    assert v.kind == kind, v
    assert words in v.explanation
    assert v.severity in {"none", "critical", "high", "medium", "low"}


def test_judge_points_at_the_answer_label_inside_a_thought(reg) -> None:
    text = "Thought: the manual says Answer: 42\nAction: search[x]"
    step = get_parser("classic-bracket", "bracket").parse(text)
    out = dispatch_positional(step, reg)
    v = judge(out, oracle(Call.named("search", query="x"), "bracket", reg), reg,
              completion=text, fmt="bracket")
    assert v.kind == "hijacked-answer" and v.severity == "critical"
    assert "'Answer' stands inside line 1 at column 26" in v.explanation


def test_bool_is_not_an_int_for_the_oracle(reg) -> None:
    acc = oracle(Call.named("refund", charge_id="ch_1", amount=5.0), "json-args", reg)
    wrong_type = Executed(Call("refund", ("ch_1", True, "requested_by_customer"),
                               ("charge_id", "amount", "reason")))
    assert not acc.accepts(wrong_type)


# --- a law: the grammar + typed design is ok on every representable valid call ----------

VALUES = {
    "search": {"query": st.sampled_from(["refund policy", "x", "a: b", "Answer: no", "[1]"])},
    "get_charge": {"charge_id": st.from_regex(r"ch_[A-Za-z0-9]{1,6}", fullmatch=True)},
    "get_weather": {"city": st.sampled_from(["Paris", "São Paulo", "New York"]),
                    "units": st.sampled_from(["metric", "imperial"])},
    "list_invoices": {"customer_id": st.from_regex(r"cus_[0-9]{1,6}", fullmatch=True),
                      "since": st.dates(dt.date(2000, 1, 1), dt.date(2030, 1, 1))},
}


@st.composite
def valid_calls(draw):
    tool = draw(st.sampled_from(sorted(VALUES)))
    return Call.named(tool, **{k: draw(s) for k, s in VALUES[tool].items()})


@given(intent=valid_calls(),
       design=st.sampled_from(["grammar-bracket", "hardened-bracket", "grammar-json-args"]))
def test_typed_designs_run_every_representable_valid_call(intent, design) -> None:
    d = BUILTIN_DESIGNS[design]
    reg = default_registry()
    text = render(intent, d.fmt)
    acc = oracle(intent, d.fmt, reg)
    if not acc.representable:
        return
    _step, out = d.run(text, reg)
    assert judge(out, acc, reg).ok, (text, out)


def test_judge_explains_a_call_the_policy_refuses(reg) -> None:
    from reactfuzz.oracle import Expectation

    exp = Expectation(frozenset({"ambiguous"}), allow_intended=False, note="two actions")
    acc = oracle(Call.named("search", query="x"), "bracket", reg, expectation=exp)
    v = judge(Executed(Call("search", ("x",), ("query",))), acc, reg)
    assert v.kind == "wrong-call"
    assert "should have been refused" in v.explanation and "two actions" in v.explanation


@pytest.mark.parametrize("dispatcher", ["typed", "positional"])
def test_a_refusal_that_names_its_kind_keeps_it(dispatcher: str) -> None:
    """A target that says why it refused is read so; any other code is unparseable."""
    from reactfuzz.dispatch import get_dispatcher
    from reactfuzz.model import Invalid

    dispatch = get_dispatcher(dispatcher)
    named = dispatch(Step(invalid=Invalid("missing-arg", "needs 'query'")), default_registry())
    assert isinstance(named, Rejected) and named.reason == "missing-arg"
    for code in ("parser-refused", "syntax", "missing"):
        other = dispatch(Step(invalid=Invalid(code, "no")), default_registry())
        assert isinstance(other, Rejected) and other.reason == "unparseable", code
