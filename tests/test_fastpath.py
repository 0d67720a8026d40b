"""The grammar parser's regex fast path reads exactly what Lark reads, or steps aside."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reactfuzz import get_format
from reactfuzz.bench.workloads import realistic_runs
from reactfuzz.formats import load_format
from reactfuzz.formats.fastpath import fast_path
from reactfuzz.formats.grammars import grammar_parse, partial_stop_tail
from reactfuzz.strategies import adversarial_text, scenarios
from reactfuzz.tools import default_registry

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))

# --- the shapes the fast path reads besides bare one-line actions: JSON-quoted arguments
# (escapes, commas and brackets inside), thoughts quoting a title, multi-line answers.
# Each is drawn well formed and then, now and then, broken (a raw control character, an
# escape JSON does not know, a quote left open, text after the action).

_TRICKY = st.sampled_from([*',[]"\\/ \t\x00\x1f\x7f\u2028\x85\ufeff\xe9\U0001f600\ud800',
                           "Observation:", "Action: s[x]", "\nAnswer: y", "a, b", "[1]", '"q"',
                           "\\n"])
_VALUES = st.lists(st.one_of(st.sampled_from(["a", "Paris", "cus_8812", "2026-07-01", ""]),
                             _TRICKY, st.text(max_size=3)), max_size=5).map("".join)
_ESCAPES = st.sampled_from(['\\/', '\\u00e9', '\\ud83d\\ude00', '\\ud800', '\\"', '\\\\',
                            '\\b\\f\\n\\r\\t', "\\q", "\\u12", "\\x41", '\\', "\t"])


@st.composite
def _quoted_arg(draw: st.DrawFn) -> str:
    value = draw(_VALUES)
    body = json.dumps(value, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):  # an escape written by hand, known to JSON or not
        at = draw(st.integers(1, len(body) - 1))
        body = body[:at] + draw(_ESCAPES) + body[at:]
    pad = st.sampled_from(["", "", " ", "\t", "  "])
    return draw(pad) + body + draw(pad)


_BARE_ARG = st.one_of(st.sampled_from(["a", " Paris ", "cus_8812", "", "  ", 'say "hi"', "x y"]),
                      _VALUES)
_ARGS = st.lists(st.one_of(_quoted_arg(), _BARE_ARG), min_size=1, max_size=4).map(",".join)
_TITLE = st.one_of(st.sampled_from(["Refund policy annual plans", "", "a, b [c]"]), _VALUES)


@st.composite
def _thoughts(draw: st.DrawFn) -> list[str]:
    lines = []
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["Thought: a", "preamble", 'He said "x".'])))
    title = draw(_TITLE)
    lines.append(f'Thought: The first result, "{title}", looks relevant.')
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(['"quoted" line', "Thought: b", " more", "Answer: early",
                                           "", "Action: s[x]", "\x0c"])))
    return lines


@st.composite
def _quoted_action(draw: st.DrawFn) -> str:
    tail = draw(st.sampled_from(["", "", "\n", " \n", "\n\n", " x", "]", '"', "\nObserv"]))
    return "\n".join([*draw(_thoughts()), f"Action: {draw(st.sampled_from(['s', 'send_email']))}"
                      f"[{draw(_ARGS)}]{tail}"])


_ANSWER_LINES = st.sampled_from([
    "1. Open Billing in the account settings.", '2. Choose the invoice and follow "Request".',
    "", "   ", "\t", "trailing  ", "\x0c", "\u2028x", "  Action: s[x]", "Observation: o",
    "Thought: t", "Answer: again", "Answer 2: n", "Question: q", "Observ", "O", "Actions: x",
])


@st.composite
def _long_answer(draw: st.DrawFn) -> str:
    first = draw(st.sampled_from(["According to policies/refunds.md, this can be done:", "",
                                  ' "quoted" ', "No."]))
    rest = draw(st.lists(st.one_of(_ANSWER_LINES, _VALUES.filter(lambda v: "\r" not in v)),
                         min_size=1, max_size=5))
    end = draw(st.sampled_from(["", "", "\n", "\n\n", " O", "\nObs"]))
    return "\n".join([*draw(_thoughts()), f"Answer:{first}", *rest]) + end


new_shapes = st.one_of(_quoted_action(), _long_answer())

lines = st.one_of(
    adversarial_text("bracket", long=False),
    st.sampled_from(["Thought: a", "Thought:", "Thought 1: a", "Action: s[a, b]", "Answer: x",
                     "Answer:", "  Action: s[x]", "Action: s[]", "Action:s[a,,b]  ",
                     "Action: s[a] b", "Observation: o", "Question: q", "Thoughtful", " ",
                     'Action: s["a, b"]', "Action: s[a]\r", "Answer 2: x",
                     'Action: s[ "a\\"]" , b]', 'Action: s["\\u00e9\\/", "[x]"]', 'Action: s["a"b]',
                     'Action: s["a\\q"]', 'Thought: see "x"', "", "  ", "Obs"]),
)


def _fast(text: str, fmt: str = "bracket"):
    """What the fast path reads of ``text``, after the stop-word tail the grammar drops."""
    f = get_format(fmt)
    tail = partial_stop_tail(text, f)
    return fast_path(f).parse(text[:-len(tail)] if tail else text)


@SETTINGS
@given(st.lists(lines, min_size=1, max_size=5).map("\n".join))
def test_fast_path_agrees_with_lark_on_adversarial_text(text: str) -> None:
    fast = _fast(text)
    if fast is not None:
        assert fast == grammar_parse(text, "bracket", fast=False), text


@SETTINGS
@given(text=new_shapes)
def test_fast_path_agrees_with_lark_on_quoted_arguments_and_long_answers(text: str) -> None:
    fast = _fast(text)
    if fast is not None:
        assert fast == grammar_parse(text, "bracket", fast=False), text


@SETTINGS
@given(text=st.one_of(scenarios(default_registry(), "bracket").map(lambda sc: sc.completion),
                      new_shapes))
def test_fast_path_agrees_with_lark_on_every_operator(text: str) -> None:
    # every operator's scenarios, and the quoted arguments and multi-line answers the fast
    # path reads too (operators seldom write them)
    assert grammar_parse(text, "bracket") == grammar_parse(text, "bracket", fast=False), text


def test_fast_path_takes_the_common_case_and_leaves_the_rest() -> None:
    fp = fast_path(get_format("bracket"))
    taken = ["Thought: a\nAction: list_invoices[cus_8812, 2026-07-01]",
             " continuing\nmore\nThought: b\nAnswer: done",
             'Thought: The first result, "Refunds", is vague.\nAction: search[refunds 2026]',
             'Action: send_email[a@b.c, Hi, "Hi, tomorrow [rain] \\"maybe\\"\\u00e9\\n"]\n',
             'Action: s[ "a" ,b, ""]', "Thought: x\nAnswer: a\n\n1. b\n  c  \n"]
    for text in taken:
        assert fp.parse(text) == grammar_parse(text, "bracket", fast=False), text
    assert fp.parse('Action: s["a, b", "[c]"]').action.args == ("a, b", "[c]")
    assert fp.parse("Answer: a\nb\n\nc").answer == "a\nb\n\nc"
    for text in ["Thought: a\n\nAction: s[x]", "Action: s[x]\r\n", "Action: s[\"a\\q\"]",
                 'Action: s["a"b]', 'Action: s["a]', "Thought 1: a\nAction: s[x]",
                 "Action: s[x]\nAction: t[y]", "Answer: a\nObservation: b"]:
        assert fp.parse(text) is None, text
    assert fast_path(get_format("paper")) is None  # numbered: Lark only


def test_fast_path_takes_every_realistic_completion() -> None:
    # the bench's realistic runs: quoted arguments, quoted titles, multi-line answers
    fp = fast_path(get_format("bracket"))
    for completions, _ in realistic_runs(8):
        for text in completions:
            assert fp.parse(text) == grammar_parse(text, "bracket", fast=False), text


def test_fast_path_follows_a_user_formats_labels(tmp_path) -> None:
    p = tmp_path / "de.toml"
    p.write_text('base = "bracket"\n[labels]\nthought = "Gedanke"\naction = "Aktion"\n'
                 'answer = "Antwort"\n')
    fmt = load_format(p)
    text = "Gedanke: x\nAktion: suche[a]"
    assert fast_path(fmt).parse(text) == grammar_parse(text, fmt, fast=False)
    assert fast_path(fmt).parse("Thought: x\nAction: s[a]") is None
