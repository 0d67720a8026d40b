"""The JSON protocol families: ``action_input_json`` and ``json_blob``, their formats and TOML."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from reactfuzz import BUILTIN_FORMATS, Call, FinalAnswer, grammar_parse, parse_transcript
from reactfuzz.engine import FuzzConfig, run_fuzz
from reactfuzz.errors import FormatError
from reactfuzz.formats import Format, load_format
from reactfuzz.render import render, representable, written_form

NEW = ["action-input-json", "json-blob", "json-blob-fenced"]


def write(tmp_path: Path, text: str, name: str = "fmt.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def user_formats() -> dict[str, Format]:
    """One TOML-shaped variant per family (built without files: the same data)."""
    aij = BUILTIN_FORMATS["action-input-json"].model_dump(exclude={"notes", "source"})
    blob = BUILTIN_FORMATS["json-blob"].model_dump(exclude={"notes", "source"})
    return {
        "lagent-like": Format.model_validate({
            **aij, "name": "lagent-like", "grammar": None, "fence": "json",
            "fence_optional": True, "labels": {**aij["labels"], "observation": "Response"},
            "stop": ("\nResponse:",)}),
        "swarms-keys": Format.model_validate({
            **blob, "name": "swarms-keys", "grammar": None, "args_key": "parameters",
            "fence": "", "labels": {**blob["labels"], "answer": "Final Answer"},
            "finish_action": None}),
    }


# --------------------------------------------------------------------------- round trip

SPECIAL = [*',[]{}"\\:\n\r\t \u2028\x85`', "```", "```json", "Action:", "Action Input:",
           "Observation:", "Final Answer:", "final_answer", "\nAction: x", "}}"]
scalars = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=10),
    st.lists(st.sampled_from([*SPECIAL, "a", "Paris", " "]), max_size=5).map("".join),
    st.integers(-10**6, 10**6),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.dates(dt.date(1990, 1, 1), dt.date(2040, 1, 1)),
)
values = st.one_of(scalars, st.lists(scalars, max_size=3),
                   st.dictionaries(st.sampled_from(["a", "b", "name"]), scalars, max_size=2))
keys = st.sampled_from(["query", "customer_id", "since", "name", "arguments", "answer", "a b"])


@st.composite
def calls(draw: st.DrawFn) -> Call:
    tool = draw(st.sampled_from(["search", "list_invoices", "get_charge", "final_answer",
                                 "Final Answer", "my tool", "ns.tool"]))
    n = draw(st.integers(0, 3))
    names = draw(st.lists(keys, min_size=n, max_size=n, unique=True))
    return Call(tool, tuple(draw(values) for _ in range(n)), tuple(names))


answers = st.one_of(st.sampled_from(["done", "x, y", "a\nb", " padded ", ""]),
                    st.text(max_size=12)).map(FinalAnswer)
every_format = st.sampled_from([*(BUILTIN_FORMATS[n] for n in NEW), *user_formats().values()])


@given(intent=st.one_of(calls(), answers), fmt=every_format,
       thought=st.sampled_from([None, "look it up", "Final Answer: maybe {\"name\": 1}"]))
def test_grammar_reads_back_what_render_writes(intent, fmt: Format, thought) -> None:
    """representable(i) => grammar_parse(render(i)) == written_form(i), for every JSON format."""
    assume(representable(intent, fmt))
    text = render(intent, fmt, thought=thought)
    step = grammar_parse(text, fmt)
    assert step.invalid is None, (text, step.invalid)
    assert step.intent() == written_form(intent, fmt), text


@given(call=calls())
def test_named_calls_are_representable_unless_they_name_the_answer_action(call: Call) -> None:
    for name in NEW:
        fmt = BUILTIN_FORMATS[name]
        r = representable(call, fmt)
        assert bool(r) == (call.tool != fmt.finish_action), (name, r.reason)


@pytest.mark.parametrize(
    ("fmt", "intent", "reason_part"),
    [
        ("json-blob", Call("final_answer", ("x",), ("answer",)), "answer action"),
        ("json-blob-fenced", Call("search", ("x",)), "positional"),
        ("action-input-json", Call("search", ("x",)), "positional"),
        ("action-input-json", Call(" search", (), ()), "not a word"),
        ("action-input-json", FinalAnswer("a\n\nb"), "blank lines"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_not_representable_says_why(fmt: str, intent, reason_part: str) -> None:
    r = representable(intent, fmt)
    assert not r and reason_part in r.reason


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("action-input-json", 'Thought: t\nAction: list_invoices\n'
         'Action Input: {"customer_id": "cus_8812", "since": "2026-07-01"}'),
        ("json-blob", 'Thought: t\nAction: {"name": "list_invoices", "arguments":'
         ' {"customer_id": "cus_8812", "since": "2026-07-01"}}'),
        ("json-blob-fenced", 'Thought: t\nAction:\n```json\n{"action": "list_invoices",'
         ' "action_input": {"customer_id": "cus_8812", "since": "2026-07-01"}}\n```'),
    ],
)
def test_render_billing_call(fmt: str, expected: str) -> None:
    call = Call.named("list_invoices", customer_id="cus_8812", since=dt.date(2026, 7, 1))
    assert render(call, fmt, thought="t") == expected


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("action-input-json", "Final Answer: once"),
        ("json-blob", 'Action: {"name": "final_answer", "arguments": {"answer": "once"}}'),
        ("json-blob-fenced",
         'Action:\n```json\n{"action": "Final Answer", "action_input": "once"}\n```'),
    ],
)
def test_render_answer(fmt: str, expected: str) -> None:
    assert render(FinalAnswer("once"), fmt) == expected
    assert grammar_parse(expected, fmt).intent() == FinalAnswer("once")


# --------------------------------------------------------------------------- reading


@pytest.mark.parametrize(
    ("fmt", "text", "intent"),
    [
        ("action-input-json", 'Action: search\nAction Input:\n{\n  "query": "a"\n}',
         Call("search", ("a",), ("query",))),
        ("action-input-json", 'Action: search\n\nAction Input: {}', Call("search", (), ())),
        ("json-blob", 'I will search.\nAction:\n{\n "name": "search",\n "arguments": {"q": 1}\n}',
         Call("search", (1,), ("q",))),
        ("json-blob", 'Action: {"name": "s", "arguments": {"a": {"b": [1, {}]}}}\r\n',
         Call("s", ({"b": [1, {}]},), ("a",))),
        ("json-blob-fenced", 'Action:\n```json\n{"action": "s",\n "action_input": {}}\n\n```\n\n',
         Call("s", (), ())),
        ("json-blob-fenced", 'Action: ```json\n{"action": "Final Answer", "action_input": ""}\n```',
         FinalAnswer("")),
    ],
)
def test_grammar_reads(fmt: str, text: str, intent) -> None:
    step = grammar_parse(text, fmt)
    assert step.invalid is None, step.invalid
    assert step.intent() == intent


@pytest.mark.parametrize(
    ("fmt", "text", "code", "message"),
    [
        ("action-input-json", "Action: search", "malformed-action", "no 'Action Input:' line"),
        ("action-input-json", "Action: search\nAction Input: query", "malformed-action", ""),
        ("action-input-json", 'Action: s\nAction Input: {"q": 1, "q": 2}', "duplicate-arg",
         "'q' is given twice"),
        ("action-input-json", 'Action: s\nAction Input: ```json\n{}\n```', "malformed-action",
         "writes it bare"),
        ("action-input-json", 'Action: s\nAction Input: {}\nObservation: x',
         "fabricated-observation", ""),
        ("action-input-json", "I know.", "no-action", ""),
        ("json-blob", 'Action: {"name": "s"}', "malformed-action", "no arguments under"),
        ("json-blob", 'Action: {"arguments": {}}', "malformed-action", "no tool name under"),
        ("json-blob", 'Action: {"name": "s", "arguments": [1]}', "malformed-action",
         "not a JSON object"),
        ("json-blob", 'Action: {"name": "s", "arguments": {}, "x": 1}', "malformed-action",
         "unexpected key 'x'"),
        ("json-blob", 'Action: {"name": "s", "name": "t", "arguments": {}}', "duplicate-arg",
         "'name' is given twice"),
        ("json-blob", 'Action: {"name": "final_answer", "arguments": {"text": "x"}}',
         "malformed-action", '{"answer": "..."}'),
        ("json-blob", "Final Answer: x", "no-action", ""),
        ("json-blob", 'Action: {"name": "s", "arguments": {}} please', "trailing-text", ""),
        ("json-blob", "Action: {'name': 's', 'arguments': {}}", "malformed-action", ""),
        ("json-blob-fenced", 'Action: {"action": "s", "action_input": {}}', "malformed-action",
         "not inside a ```json code fence"),
        ("json-blob-fenced", 'Action:\n```py\n{"action": "s", "action_input": {}}\n```',
         "malformed-action", "says 'py'"),
        ("json-blob-fenced", 'Action:\n```json\n{"action": "Final Answer", "action_input": 3}\n```',
         "malformed-action", "not a JSON string"),
        ("json-blob-fenced", 'Action:\n```json\n{"action": "s", "action_input": {}}\n',
         "syntax", "unexpected"),
    ],
)
def test_grammar_refuses_with_a_reason(fmt: str, text: str, code: str, message: str) -> None:
    step = grammar_parse(text, fmt)
    assert step.invalid is not None, step
    assert step.invalid.code == code, step.invalid
    assert message in step.invalid.message


@pytest.mark.parametrize("fmt", NEW)
def test_transcript_of_two_steps(fmt: str) -> None:
    f = BUILTIN_FORMATS[fmt]
    text = "\n".join([
        "Question: q",
        render(Call("search", ("x",), ("query",)), f, thought="look"),
        f"{f.label('observation')} found\nmore",
        render(FinalAnswer("done"), f, thought="enough"),
    ]) + "\n"
    t = parse_transcript(text, f)
    assert t.ok, t.invalid
    assert t.steps() == (2 if f.labels.answer is None else 1)


# --------------------------------------------------------------------------- fuzzing


@pytest.mark.parametrize("fmt", NEW)
def test_clean_renderings_have_no_findings(fmt: str) -> None:
    run = run_fuzz(FuzzConfig(targets=["grammar"], format=fmt, seed=1, max_examples=40,
                              corpus=None, abuses=["clean.render"]))
    assert run.findings == [] and run.protocol_notes == []


@pytest.mark.parametrize("fmt", NEW)
def test_every_applicable_operator_runs_without_design_findings(fmt: str) -> None:
    run = run_fuzz(FuzzConfig(targets=["grammar"], format=fmt, seed=1, max_examples=5,
                              corpus=None))
    assert run.findings == []
    assert run.exit_code == 0


# --------------------------------------------------------------------------- TOML


def test_toml_action_input_json_for_lagent(tmp_path: Path) -> None:
    p = write(tmp_path, """
base = "action-input-json"
description = "lagent's ReAct protocol"
stop = ["\\nResponse:"]
fence = "json"
fence_optional = true
[labels]
observation = "Response"
""")
    fmt = load_format(p)
    assert fmt.family.name == "action_input_json" and fmt.fence == "json"
    text = render(Call("search", ("x",), ("query",)), fmt)
    assert text == 'Action: search\nAction Input:\n```json\n{"query": "x"}\n```'
    bare = 'Action: search\nAction Input: {"query": "x"}\nResponse: y'
    assert grammar_parse(text, fmt).intent() == Call("search", ("x",), ("query",))
    assert grammar_parse(bare, fmt).invalid.code == "fabricated-observation"


def test_toml_json_blob_chat_style_from_syntax(tmp_path: Path) -> None:
    p = write(tmp_path, """
name = "chat"
syntax = "json-blob"
arguments = "json"
finish_action = "Final Answer"
tool_key = "action"
args_key = "action_input"
answer_key = ""
fence = ""
[labels]
answer = "AI"
""")
    with pytest.raises(FormatError, match=r"key '\(top level\)': answer_key must not be an empty"):
        load_format(p)
    p.write_text(p.read_text().replace('answer_key = ""\n', ""))
    fmt = load_format(p)
    assert render(FinalAnswer("hi"), fmt) == "AI: hi"
    assert render(Call("s", (1,), ("a",)), fmt) == (
        'Action:\n```\n{"action": "s", "action_input": {"a": 1}}\n```')
    blob = 'Action:\n```\n{"action": "Final Answer", "action_input": {"answer": "x"}}\n```'
    assert grammar_parse(blob, fmt).intent() == FinalAnswer("x")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("base = 'json-blob'\nfence = '```json'\n", r"key '\(top level\)': fence '```json'"
         r" must be a code fence's info string"),
        ("base = 'json-blob'\nfence_optional = true\n", r"fence_optional needs a fence"),
        ("base = 'json-blob'\nfence_optional = 'yes'\n", r"key 'fence_optional': "),
        ("base = 'json-blob'\ntool_key = 'arguments'\n", r"tool_key and args_key are both"),
        ("base = 'json-blob'\nargs_key = 3\n", r"key 'args_key': "),
        ("base = 'bracket'\nfence = 'json'\n", r"'fence' is read only by the action_input_json"
         r" and json_blob families, not by bracket"),
        ("base = 'action-input-json'\ntool_key = 'tool'\n",
         r"'tool_key' is read only by the bare_json and json_blob and tag families, not by action_input_json"),
        ("base = 'json-blob'\nfinish_action = ''\n[labels]\nanswer = 'x:'\n",
         r"key 'labels.answer': .*colon"),
        ("syntax = 'json-blob'\narguments = 'comma'\n", r"does not go with arguments"),
        ("base = 'json-blob'\n[labels]\nanswer = ''\n", r"key 'labels.answer'"),
    ],
    ids=["fence-backticks", "optional-without-fence", "optional-type", "same-keys",
         "key-type", "fence-on-bracket", "tool-key-on-action-input", "label-colon",
         "syntax-arguments", "empty-label"],
)
def test_bad_json_family_values_are_one_line(tmp_path: Path, text: str, message: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(FormatError, match=message) as info:
        load_format(p)
    assert str(info.value).startswith(str(p)) and "\n" not in str(info.value)


def test_base_json_blob_without_finish_action_or_answer_label(tmp_path: Path) -> None:
    p = write(tmp_path, "base = 'json-blob'\nfinish_action = 'done'\nanswer_key = 'text'\n")
    fmt = load_format(p)
    text = render(FinalAnswer("ok"), fmt)
    assert text == 'Action: {"name": "done", "arguments": {"text": "ok"}}'
    assert grammar_parse(text, fmt).intent() == FinalAnswer("ok")


def test_toml_picks_a_family_by_name(tmp_path: Path) -> None:
    fmt = load_format(write(tmp_path, 'family = "json-blob"\nargs_key = "parameters"\n'))
    assert fmt.family.name == "json_blob" and fmt.labels.answer == "Answer"
    assert render(Call("s", (1,), ("a",)), fmt) == 'Action: {"name": "s", "parameters": {"a": 1}}'
    fmt = load_format(write(tmp_path, 'family = "action_input_json"\n[labels]\n'
                                      'action_input = "Action Input"\n'))
    assert (fmt.syntax, fmt.arguments) == ("action-input", "json")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("family = 'json-blobs'\n", r"key 'family': 'json-blobs' is not a format family"
         r" \(use one of bracket, .*json-blob"),
        ("family = 3\n", r"key 'family': 3 is not a format family"),
        ("family = 'json-blob'\nsyntax = 'bracket'\n", r"key 'syntax': 'bracket' contradicts"
         r" family 'json-blob'"),
        ("family = 'action-input-json'\n", r"needs labels.action_input"),
    ],
    ids=["unknown", "not-a-string", "contradiction", "needs-label"],
)
def test_bad_family_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(FormatError, match=message) as info:
        load_format(p)
    assert str(info.value).startswith(str(p)) and "\n" not in str(info.value)

