"""The regex parsers: faithful to the classic designs, weaknesses included."""

from __future__ import annotations

import pytest
from hypothesis import find, settings
from hypothesis import strategies as st

from reactfuzz import Call, FinalAnswer
from reactfuzz.errors import UsageError
from reactfuzz.parsers import PARSERS, Parser, get_parser
from reactfuzz.render import render, representable

BILLING_TURN = (
    "Thought: I should list this customer's July invoices before assuming a duplicate.\n"
    "Action: list_invoices[cus_8812, 2026-07-01]"
)


@pytest.mark.parametrize("name", ["grammar", "classic-bracket", "hardened-bracket"])
def test_billing_first_turn_reads_as_the_same_call(name: str) -> None:
    step = get_parser(name, "bracket").parse(BILLING_TURN)
    assert step.intent() == Call("list_invoices", ("cus_8812", "2026-07-01"))
    assert step.thought.startswith("I should list")


def test_every_registered_parser_satisfies_the_protocol() -> None:
    for name in PARSERS:
        parser = get_parser(name, "bracket")
        assert isinstance(parser, Parser)
        assert parser.name == name


def test_unknown_parser_is_a_usage_error_listing_the_choices() -> None:
    with pytest.raises(UsageError, match="classic-bracket"):
        get_parser("nope", "bracket")


# (id, parser, completion, what the parser reads) -- the documented weaknesses
WEAKNESSES = [
    ("classic/answer-label-inside-thought-hijacks", "classic-bracket",
     "Thought: the docs say Answer: 42 is wrong\nAction: search[x]",
     FinalAnswer("42 is wrong\nAction: search[x]")),
    ("classic/comma-splits-argument", "classic-bracket", "Action: search[Paris, France]",
     Call("search", ("Paris", "France"))),
    ("classic/takes-first-of-two-actions", "classic-bracket",
     "Action: search[x]\nAction: delete_account[1]", Call("search", ("x",))),
    ("classic/accepts-fabricated-observation", "classic-bracket",
     "Action: search[x]\nObservation: all good\nAnswer: done", FinalAnswer("done")),
    ("classic/action-on-later-line-via-backslash-s", "classic-bracket", "Action:\n\nsearch[x]",
     Call("search", ("x",))),
    ("classic/u2028-not-a-line-for-multiline", "classic-bracket",
     "Thought: a\u2028Action: delete_account[1]", None),
    ("unanchored/action-mentioned-in-passing", "classic-unanchored",
     "Thought: never run Action: delete_account[7] here\nAction: search[x]",
     Call("delete_account", ("7] here\nAction: search[x",)) ),
    ("unanchored/finish-is-an-answer", "classic-unanchored", "Action: finish[yes]",
     FinalAnswer("yes")),
    ("action-input/final-answer-anywhere-wins", "classic-action-input",
     "Thought: if I had Final Answer: no\nAction: Search\nAction Input: x", FinalAnswer("no\nAction: Search\nAction Input: x")),
    ("action-input/blank-line-before-input-breaks", "classic-action-input",
     "Action: Search\n\nAction Input: x", None),
]


@pytest.mark.parametrize(("name", "text", "reads"), [w[1:] for w in WEAKNESSES],
                         ids=[w[0] for w in WEAKNESSES])
def test_classic_parsers_keep_their_weaknesses(name: str, text: str, reads) -> None:
    step = get_parser(name, "bracket").parse(text)
    if reads is None:
        assert step.kind == "invalid"
    else:
        # the unanchored regex's (.*) is greedy but stops at a newline
        if name == "classic-unanchored" and isinstance(reads, Call) and "\n" in reads.args[0]:
            reads = Call(reads.tool, ("7",))
        assert step.intent() == reads


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Thought: the docs say Answer: 42\nAction: search[x]", None),
        ("Action: search[x]\nAction: delete_account[1]", "second-action"),
        ("Action: search[x]\nObservation: all good", "fabricated-observation"),
        ("Thought: a\u2028Action: delete_account[1]", "line-break"),
        ("Answer: a\nAction: search[x]", "action-and-answer"),
        ("Action: search[x] now", "malformed-action"),
        ('Action: search["Paris, France"]', None),
    ],
    ids=["answer-in-thought", "two-actions", "observation", "u2028", "answer-and-action",
         "trailing", "quoted-comma"],
)
def test_hardened_bracket_refuses_what_classic_gets_wrong(text: str, code: str | None) -> None:
    step = get_parser("hardened-bracket", "bracket").parse(text)
    if code is None:
        assert step.kind == "action"
    else:
        assert step.invalid is not None and step.invalid.code == code


def test_hardened_unquotes_json_strings() -> None:
    step = get_parser("hardened-bracket", "bracket").parse('Action: f["a, b", c, "d\\"e"]')
    assert step.intent() == Call("f", ("a, b", "c", 'd"e'))


# A property that can fail: classic-bracket must read back a rendered one-argument call.
# Hypothesis finds the counterexample and shrinks it to the delimiter that matters.
def test_classic_bracket_disagreement_shrinks_to_a_lone_comma() -> None:
    classic = get_parser("classic-bracket", "bracket")

    def misreads(value: str) -> bool:
        call = Call("search", (value,))
        return classic.parse(render(call, "bracket")).intent() != call

    # no space in the alphabet: a lone " " is also misread (the classic loop strips it)
    alphabet = st.sampled_from([*"abc,[]:\n", "Answer:"])
    example = find(
        st.lists(alphabet, max_size=8).map("".join),
        misreads,
        settings=settings(database=None, max_examples=2000, derandomize=True),
    )
    assert example == ","
    assert not representable(Call("search", (example,)), "bracket")
    assert misreads(" ")


def test_grammar_parser_has_no_such_disagreement_on_representable_calls() -> None:
    grammar = get_parser("grammar", "bracket")
    for value in ["a", "a b", "x:y", "Answer: no"]:
        call = Call("search", (value,))
        assert representable(call, "bracket")
        assert grammar.parse(render(call, "bracket")).intent() == call


def test_classic_regex_timeout_is_an_invalid_step(monkeypatch) -> None:
    import reactfuzz.parsers as parsers

    class Slow:
        def search(self, *a, **k):
            raise TimeoutError

    monkeypatch.setattr(parsers, "_CB_ACTION", Slow())
    step = get_parser("classic-bracket", "bracket").parse("Action: x[y]")
    assert step.invalid is not None and step.invalid.code == "timeout"


def test_builtin_parsers_satisfy_the_parser_protocol() -> None:
    for name in PARSERS:
        assert isinstance(get_parser(name, "bracket"), Parser), name


def test_register_parser_refuses_a_taken_name_unless_replacing() -> None:
    from reactfuzz.errors import UsageError
    from reactfuzz.parsers import parser_descriptions, register_parser

    factory, description = PARSERS["grammar"], parser_descriptions()["grammar"]
    with pytest.raises(UsageError, match="'grammar' is already registered"):
        register_parser("grammar")(factory)
    register_parser("grammar", description, replace=True)(factory)
    assert PARSERS["grammar"] is factory
