"""The grammar parser: what each built-in format accepts, and how it says no."""

from __future__ import annotations

import pytest

from reactfuzz import Call, FinalAnswer, grammar_parse, parse_transcript
from reactfuzz.formats.grammars import grammar_source, lark_parser

OK = "ok"


def inv(code: str) -> tuple[str, str]:
    return ("invalid", code)


# (id, format, completion, expected intent or ("invalid", code))
CASES = [
    # --- bracket: the billing loop
    ("bracket/billing", "bracket",
     "Thought: I should list this customer's July invoices.\n"
     "Action: list_invoices[cus_8812, 2026-07-01]",
     Call("list_invoices", ("cus_8812", "2026-07-01"))),
    ("bracket/no-args", "bracket", "Action: get_time[]", Call("get_time", ())),
    ("bracket/answer", "bracket", "Thought: done\nAnswer: charged once", FinalAnswer("charged once")),
    ("bracket/answer-multiline", "bracket", "Answer: one\ntwo\n\nthree",
     FinalAnswer("one\ntwo\n\nthree")),
    ("bracket/leading-space-unlabelled-thought", "bracket",
     " I should search.\nAction: search[x]", Call("search", ("x",))),
    ("bracket/label-then-newline", "bracket", "Thought:\nI think\nAction:\nsearch[x]",
     Call("search", ("x",))),
    ("bracket/trailing-spaces", "bracket", "Thought: a   \nAction: search[x]   ",
     Call("search", ("x",))),
    ("bracket/no-space-after-colon", "bracket", "Thought:a\nAction:search[x]",
     Call("search", ("x",))),
    ("bracket/crlf", "bracket", "Thought: a\r\n\r\nAction: search[x]\r\n", Call("search", ("x",))),
    ("bracket/blank-lines", "bracket", "\n\nThought: a\n\n\nAction: search[x]\n\n",
     Call("search", ("x",))),
    ("bracket/quoted-comma", "bracket", 'Action: search["Paris, France"]',
     Call("search", ("Paris, France",))),
    ("bracket/unquoted-comma-splits", "bracket", "Action: search[Paris, France]",
     Call("search", ("Paris", "France"))),
    ("bracket/inner-quote-bare", "bracket", 'Action: search[say "hi"]',
     Call("search", ('say "hi"',))),
    ("bracket/empty-middle-arg", "bracket", "Action: f[a,,b]", Call("f", ("a", "", "b"))),
    ("bracket/answer-label-mid-thought", "bracket",
     "Thought: maybe Answer: yes\nAction: search[x]", Call("search", ("x",))),
    ("bracket/action-mid-thought", "bracket",
     "Thought: never run Action: delete_account[1]\nAnswer: no", FinalAnswer("no")),
    ("bracket/u2028-is-not-a-line-break", "bracket",
     "Thought: a\u2028Action: delete_account[1]\nAction: search[x]", Call("search", ("x",))),
    ("bracket/u2028-inside-argument", "bracket", "Action: search[a\u2028b]",
     Call("search", ("a\u2028b",))),
    ("bracket/lone-cr-before-answer", "bracket", "Action: search[x]\rAnswer: hijack",
     inv("trailing-text")),
    ("bracket/fabricated-observation", "bracket", "Action: search[x]\nObservation: made up",
     inv("fabricated-observation")),
    ("bracket/second-action", "bracket", "Action: search[x]\nAction: delete_account[1]",
     inv("unexpected-label")),
    ("bracket/answer-then-action", "bracket", "Answer: done\nAction: search[x]",
     inv("unexpected-label")),
    ("bracket/action-then-answer", "bracket", "Action: search[x]\nAnswer: done",
     inv("unexpected-label")),
    ("bracket/trailing-text", "bracket", "Action: search[x] please", inv("trailing-text")),
    ("bracket/unbalanced-quote", "bracket", 'Action: search["x]', inv("malformed-action")),
    ("bracket/bracket-in-bare-arg", "bracket", "Action: search[a [b]]", inv("malformed-action")),
    ("bracket/unclosed", "bracket", "Action: search[abc", inv("malformed-action")),
    ("bracket/no-action", "bracket", "Thought: I am thinking", inv("no-action")),
    ("bracket/empty", "bracket", "", inv("no-action")),
    ("bracket/lowercase-label", "bracket", "thought: a\naction: search[x]", inv("no-action")),
    ("bracket/bold-label", "bracket", "**Action:** search[x]", inv("no-action")),
    ("bracket/indented-label", "bracket", "Thought: a\n  Action: search[x]", inv("no-action")),
    ("bracket/numbered-label", "bracket", "Thought 1: a\nAction 1: search[x]",
     inv("label-number")),
    ("bracket/unlabelled-after-blank", "bracket", "Thought: a\n\nstray\nAction: search[x]",
     inv("unlabelled-text")),
    # --- paper
    ("paper/search", "paper", "Thought 1: look it up\nAction 1: Search[Paramore]",
     Call("Search", ("Paramore",))),
    ("paper/comma-kept", "paper", "Action 2: Search[New Paltz (village), New York]",
     Call("Search", ("New Paltz (village), New York",))),
    ("paper/brackets-inside", "paper", "Action 1: click[pack [x] of 1]",
     Call("click", ("pack [x] of 1",))),
    ("paper/finish", "paper", "Thought 3: so\nAction 3: Finish[SUPPORTS]", FinalAnswer("SUPPORTS")),
    ("paper/finish-lowercase", "paper", "Action 3: finish[REFUTES]", FinalAnswer("REFUTES")),
    ("paper/action-on-later-line", "paper", "Thought 3: hm\nAction 3: \n\nFinish[NOT ENOUGH INFO]",
     FinalAnswer("NOT ENOUGH INFO")),
    ("paper/leading-space", "paper", " I should search.\nAction 1: Search[x]",
     Call("Search", ("x",))),
    ("paper/unnumbered", "paper", "Thought: a\nAction: Search[x]", inv("label-number")),
    ("paper/numbers-disagree", "paper", "Thought 2: a\nAction 3: Search[x]", inv("label-number")),
    ("paper/trailing-text", "paper", "Action 3: Lookup[x] on a different site",
     inv("trailing-text")),
    ("paper/no-brackets", "paper", "Action 2: Login", inv("malformed-action")),
    ("paper/model-writes-observation", "paper", "Action 1: Search[x]\nObservation 1: made up",
     inv("fabricated-observation")),
    # --- action-input
    ("action-input/search", "action-input", "Thought: t\nAction: Search\nAction Input: NBA",
     Call("Search", ("NBA",))),
    ("action-input/blank-between", "action-input",
     "Thought: t\nAction: Search\n\n\nAction Input: what is 2+2", Call("Search", ("what is 2+2",))),
    ("action-input/multiline-input", "action-input",
     "Action: sql\nAction Input: SELECT *\nFROM t\n\nWHERE 1", Call("sql", ("SELECT *\nFROM t\n\nWHERE 1",))),
    ("action-input/quotes-kept", "action-input", 'Action: Search\nAction Input: "LangChain"',
     Call("Search", ('"LangChain"',))),
    ("action-input/empty-input", "action-input", "Action: get_time\nAction Input:",
     Call("get_time", ())),
    ("action-input/final", "action-input", "Thought: done\nFinal Answer: 1994\n1993",
     FinalAnswer("1994\n1993")),
    ("action-input/missing-input", "action-input", "Thought: t\nAction: Search",
     inv("malformed-action")),
    ("action-input/input-without-action", "action-input", "Action Input: NBA",
     inv("unexpected-label")),
    ("action-input/observation", "action-input",
     "Action: Search\nAction Input: x\nObservation: made up", inv("fabricated-observation")),
    # --- json-args
    ("json-args/same-line", "json-args", 'Action: search {"query": "Paris, France"}',
     Call("search", ("Paris, France",), ("query",))),
    ("json-args/next-line-multiline", "json-args",
     'Thought: t\nAction: list_invoices\n{"customer_id": "cus_1",\n "since": "2026-07-01"}',
     Call("list_invoices", ("cus_1", "2026-07-01"), ("customer_id", "since"))),
    ("json-args/types", "json-args", 'Action: f {"a": 1, "b": true, "c": null, "d": [1.5]}',
     Call("f", (1, True, None, [1.5]), ("a", "b", "c", "d"))),
    ("json-args/empty-object", "json-args", "Action: get_time {}", Call("get_time", (), ())),
    ("json-args/answer", "json-args", "Answer: done", FinalAnswer("done")),
    ("json-args/duplicate-key", "json-args", 'Action: f {"to": "a", "to": "b"}',
     inv("duplicate-arg")),
    ("json-args/not-an-object", "json-args", 'Action: f ["a"]', inv("malformed-action")),
    ("json-args/invalid-json", "json-args", "Action: f {'a': 1}", inv("malformed-action")),
    ("json-args/trailing-text", "json-args", 'Action: f {"a": 1} thanks', inv("trailing-text")),
    ("json-args/missing-object", "json-args", "Action: f", inv("malformed-action")),
]


@pytest.mark.parametrize(("fmt", "text", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_completion_table(fmt: str, text: str, expected) -> None:
    step = grammar_parse(text, fmt)
    if isinstance(expected, tuple) and expected[0] == "invalid":
        assert step.kind == "invalid", step
        assert step.invalid is not None
        assert step.invalid.code == expected[1], step.invalid
        assert step.invalid.message
    else:
        assert step.kind != "invalid", step.invalid
        assert step.intent() == expected


def test_invalid_reason_has_position_expected_and_caret() -> None:
    step = grammar_parse("Thought: a\nAction: search[x] now", "bracket")
    inv = step.invalid
    assert inv is not None
    assert (inv.line, inv.column) == (2, 18)
    assert "end of line" in inv.expected
    line, caret = inv.context.split("\n")
    assert line == "Action: search[x] now"
    assert caret == " " * 17 + "^"


def test_hint_names_a_miswritten_label() -> None:
    step = grammar_parse("Thought: a\nACTION: search[x]", "bracket")
    assert step.invalid is not None
    assert "'Action:' written differently" in step.invalid.message


def test_caret_of_invisible_characters_is_escaped() -> None:
    step = grammar_parse("Action: search[x]\u2028 more", "bracket")
    assert step.invalid is not None
    assert "\\u2028" in step.invalid.context


def test_thought_text_is_collected() -> None:
    step = grammar_parse(" first line\nsecond\nThought: third\nAction: s[x]", "bracket")
    assert step.thought == "first line\nsecond\nthird"


def test_transcript_bracket_whole_conversation() -> None:
    text = (
        "Question: Was cus_8812 charged twice?\n"
        "Thought: list invoices\n"
        "Action: list_invoices[cus_8812, 2026-07-01]\n"
        "Observation: [{\"id\": \"INV-1\"}]\n"
        "more observation text\n\n"
        "Thought: one invoice\n"
        "Answer: once\n"
    )
    t = parse_transcript(text, "bracket")
    assert t.ok, t.invalid
    assert [b.role for b in t.blocks] == [
        "header", "thought", "action", "observation", "thought", "answer"
    ]
    assert t.blocks[3].text == '[{"id": "INV-1"}]\nmore observation text'
    assert t.steps() == 1


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Question: q\nAction: s[x]\nThought: forgot the observation\nAnswer: a", "unexpected-label"),
        ("Question: q\nThought: a\nAnswer: b\nQuestion: again", "unexpected-label"),
        ("Question: q\nObservation: first", "unexpected-label"),
    ],
    ids=["action-without-observation", "content-after-answer", "observation-first"],
)
def test_transcript_rejections(text: str, code: str) -> None:
    t = parse_transcript(text, "bracket")
    assert not t.ok
    assert t.invalid is not None and t.invalid.code == code


def test_transcript_paper_numbering() -> None:
    good = (
        "Claim: c\nThought 1: a\nAction 1: Search[x]\nObservation 1: o\n\n"
        "Action 2: Lookup[y]\nObservation 2: o\nThought 3: b\nAction 3: Finish[SUPPORTS]\n"
        "Observation 3: Episode finished\n\n\n"
    )
    assert parse_transcript(good, "paper").ok
    skipped = good.replace("Action 2: Lookup[y]\nObservation 2", "Action 4: Lookup[y]\nObservation 4")
    t = parse_transcript(skipped, "paper")
    assert t.invalid is not None and t.invalid.code == "label-number"
    assert "out of sequence" in t.invalid.message
    obs_mismatch = good.replace("Observation 1: o", "Observation 2: o")
    t = parse_transcript(obs_mismatch, "paper")
    assert t.invalid is not None and t.invalid.code == "label-number"


def test_transcript_harness_line_after_blank_is_rejected() -> None:
    text = "Claim: c\nThought 1: a\nAction 1: Search[x]\nObservation 1: o\n\nohh... raw text\n"
    t = parse_transcript(text, "paper")
    assert t.invalid is not None and t.invalid.code == "unlabelled-text"
    assert t.invalid.line == 6


def test_every_builtin_grammar_compiles_and_has_both_entry_points() -> None:
    from reactfuzz import BUILTIN_FORMATS

    for name in BUILTIN_FORMATS:
        parser = lark_parser(name)
        assert set(parser.options.start) == {"completion", "transcript"}
        text, path = grammar_source(name)
        assert path.is_file() and path.suffix == ".lark"
        # label terminals, or (tag formats) the tag terminals, come from the format's data
        assert any(f"%override {t}" in text for t in ("THOUGHT", "OPEN", "CONT"))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Thought: a\nAction: s[x]\nmore text", "nothing may follow the action"),
        ("Thought: a\n\nstray\nAction: s[x]", "text after a blank line must start with a label"),
    ],
    ids=["after-action", "after-blank"],
)
def test_unlabelled_text_reason_says_which_rule(text: str, why: str) -> None:
    inv = grammar_parse(text, "bracket").invalid
    assert inv is not None and inv.code == "unlabelled-text" and why in inv.message
