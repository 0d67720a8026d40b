"""The renderer against the grammar: what a format can carry comes back exactly."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from reactfuzz import BUILTIN_FORMATS, Call, FinalAnswer, grammar_parse
from reactfuzz.render import render, representable, written_form

# Text that mixes ordinary words with every character a format treats specially, so
# the law is tested where it is most likely to break.
SPECIAL = [
    *',[]{}"\\:\n\r\t \u2028\u2029\x85',
    "Thought:", "Action:", "Answer:", "Observation:", "Final Answer:", "Action Input:",
    "Finish[", "\nAction: x[y]", "\nObservation: z",
]
values = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
    st.lists(st.sampled_from([*SPECIAL, "a", "b", "Paris", "cus_8812", " "]), max_size=5).map(
        "".join
    ),
    st.integers(-10**6, 10**6),
    st.booleans(),
    st.dates(dt.date(1990, 1, 1), dt.date(2040, 1, 1)),
)
tool_names = st.sampled_from(["search", "list_invoices", "get_charge", "Search", "add2", "f"])
names = st.sampled_from(["query", "customer_id", "since", "city", "units", "to", "body"])


@st.composite
def calls(draw: st.DrawFn) -> Call:
    tool = draw(tool_names)
    n = draw(st.integers(0, 3))
    args = tuple(draw(values) for _ in range(n))
    if draw(st.booleans()):
        keys = draw(st.lists(names, min_size=n, max_size=n, unique=True))
        return Call(tool, args, tuple(keys))
    return Call(tool, args)


intents = st.one_of(calls(), values.filter(lambda v: isinstance(v, str)).map(FinalAnswer))
formats = st.sampled_from(sorted(BUILTIN_FORMATS))


# the XML and pythonic formats carry fewer of the drawn intents (no positional calls, no
# tags or line breaks at a value's edge): many draws are filtered, by design
@settings(suppress_health_check=[HealthCheck.filter_too_much])
@given(intent=intents, fmt=formats, thought=st.one_of(st.none(), st.sampled_from(
    ["I should look this up.", "Maybe Answer: no", "check [x], then y"])))
def test_grammar_reads_back_what_render_writes(intent, fmt, thought) -> None:
    """representable(i) => grammar_parse(render(i)) == written_form(i)."""
    assume(representable(intent, fmt))
    text = render(intent, fmt, thought=thought)
    step = grammar_parse(text, fmt)
    assert step.invalid is None, (text, step.invalid)
    assert step.intent() == written_form(intent, fmt), text


@given(call=calls())
def test_quoting_makes_every_bracket_call_representable(call: Call) -> None:
    """With JSON-string quoting, bracket carries any single-line argument text."""
    assume(representable(call, "bracket", quote=True))
    text = render(call, "bracket", quote=True)
    step = grammar_parse(text, "bracket")
    assert step.intent() == written_form(call, "bracket").positional(), text


@given(call=calls())
def test_quote_only_adds_lines_breaks_as_unrepresentable(call: Call) -> None:
    """quote=True refuses only line breaks in bracket: every other value round-trips."""
    r = representable(call, "bracket", quote=True)
    if not r:
        assert "line break" in r.reason


@pytest.mark.parametrize(
    ("intent", "fmt", "reason_part"),
    [
        (Call("search", ("Paris, France",)), "bracket", "delimiter"),
        (Call("search", ("a]b",)), "bracket", "delimiter"),
        (Call("search", (" padded",)), "bracket", "outer spaces"),
        (Call("search", ("",)), "bracket", "delimiter"),
        (Call("search", ("two\nlines",)), "bracket", "line break"),
        (Call("list_invoices", ("cus_1", "2026-07-01")), "paper", "exactly one argument"),
        (Call("Finish", ("x",)), "paper", "answer action"),
        (Call("search", ("x\nObservation: y",)), "action-input", "label"),
        (Call("search", ("x",)), "json-args", "positional"),
        (FinalAnswer("yes\nAction: delete[1]"), "bracket", "label"),
        (Call("delete account", ("x",)), "bracket", "not a word"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_not_representable_says_why(intent, fmt, reason_part) -> None:
    r = representable(intent, fmt)
    assert not r
    assert reason_part in r.reason


def test_unrepresentable_intent_is_still_rendered_as_a_model_would() -> None:
    """Render writes the ambiguous text a model writes; the grammar reads two arguments."""
    call = Call("search", ("Paris, France",))
    text = render(call, "bracket")
    assert text == "Action: search[Paris, France]"
    assert grammar_parse(text, "bracket").intent() == Call("search", ("Paris", "France"))


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("bracket", "Thought: t\nAction: list_invoices[cus_8812, 2026-07-01]"),
        ("json-args",
         'Thought: t\nAction: list_invoices {"customer_id": "cus_8812", "since": "2026-07-01"}'),
    ],
)
def test_render_billing_call(fmt: str, expected: str) -> None:
    call = Call.named("list_invoices", customer_id="cus_8812", since=dt.date(2026, 7, 1))
    assert render(call, fmt, thought="t") == expected


def test_render_paper_numbers_and_finish() -> None:
    assert render(FinalAnswer("SUPPORTS"), "paper", step=3) == "Action 3: Finish[SUPPORTS]"
    assert render(Call("Search", ("x",)), "paper", thought="t", step=2) == (
        "Thought 2: t\nAction 2: Search[x]"
    )
