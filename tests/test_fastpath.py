"""The grammar parser's regex fast path reads exactly what Lark reads, or steps aside."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reactfuzz.fastpath import fast_path
from reactfuzz.formats import load_format
from reactfuzz.grammars import grammar_parse
from reactfuzz.strategies import adversarial_text, scenarios
from reactfuzz.tools import default_registry

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))

lines = st.one_of(
    adversarial_text("bracket", long=False),
    st.sampled_from(["Thought: a", "Thought:", "Thought 1: a", "Action: s[a, b]", "Answer: x",
                     "Answer:", "  Action: s[x]", "Action: s[]", "Action:s[a,,b]  ",
                     "Action: s[a] b", "Observation: o", "Question: q", "Thoughtful", " ",
                     'Action: s["a, b"]', "Action: s[a]\r", "Answer 2: x"]),
)


@SETTINGS
@given(st.lists(lines, min_size=1, max_size=5).map("\n".join))
def test_fast_path_agrees_with_lark_on_adversarial_text(text: str) -> None:
    fast = fast_path(__import__("reactfuzz").get_format("bracket")).parse(text)
    if fast is not None:
        assert fast == grammar_parse(text, "bracket", fast=False), text


@SETTINGS
@given(sc=scenarios(default_registry(), "bracket"))
def test_fast_path_agrees_with_lark_on_every_operator(sc) -> None:
    assert grammar_parse(sc.completion, "bracket") == grammar_parse(
        sc.completion, "bracket", fast=False
    ), sc.completion


def test_fast_path_takes_the_common_case_and_leaves_the_rest() -> None:
    from reactfuzz import get_format

    fp = fast_path(get_format("bracket"))
    assert fp.parse("Thought: a\nAction: list_invoices[cus_8812, 2026-07-01]") is not None
    assert fp.parse(" continuing\nmore\nThought: b\nAnswer: done") is not None
    for text in ["Thought: a\n\nAction: s[x]", 'Action: s["a"]', "Action: s[x]\r\n",
                 "Thought 1: a\nAction: s[x]", "Action: s[x]\nAction: t[y]", "Answer: a\nb"]:
        assert fp.parse(text) is None, text
    assert fast_path(get_format("paper")) is None  # numbered: Lark only


def test_fast_path_follows_a_user_formats_labels(tmp_path) -> None:
    p = tmp_path / "de.toml"
    p.write_text('base = "bracket"\n[labels]\nthought = "Gedanke"\naction = "Aktion"\n'
                 'answer = "Antwort"\n')
    fmt = load_format(p)
    text = "Gedanke: x\nAktion: suche[a]"
    assert fast_path(fmt).parse(text) == grammar_parse(text, fmt, fast=False)
    assert fast_path(fmt).parse("Thought: x\nAction: s[a]") is None
