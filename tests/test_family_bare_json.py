"""The bare-json family (swarms, Llama-style JSON calls): the completion is the object."""

from __future__ import annotations

import pytest

from reactfuzz import Call, FinalAnswer, grammar_parse, parse_transcript, render
from reactfuzz.errors import FormatError
from reactfuzz.formats import load_format
from reactfuzz.render import representable

FMT = "json-bare"
CALL = Call.named("search", query="a")


def test_a_call_is_the_whole_completion_and_no_thought_is_written() -> None:
    text = render(CALL, FMT, thought="never written")
    assert text == '{"name": "search", "parameters": {"query": "a"}}'
    step = grammar_parse(text, FMT)
    assert step.action is not None and step.action.names == ("query",)
    assert grammar_parse("\n  " + text + "\n\n", FMT).action is not None


def test_text_that_is_not_json_is_the_answer() -> None:
    assert render(FinalAnswer("it is done"), FMT, thought="x") == "it is done"
    assert grammar_parse("it is done\nsecond line", FMT).answer == "it is done\nsecond line"
    for text in ("42", "{a}", "[1]", "ok\n{\"name\": \"x\"}"):
        assert not representable(FinalAnswer(text), FMT)


@pytest.mark.parametrize("text", [
    'I will search\n{"name": "search", "parameters": {"query": "a"}}',
    '{"name": "search", "parameters": {"query": "a"}} done',
    '{"name": "search", "arguments": {"query": "a"}}',
    '{"name": "search", "parameters": {"query": "a", "query": "b"}}',
    '{"name": "search", "parameters": {"query": "a"}}\n{"name": "get_time", "parameters": {}}',
    '{"name": "search", "parameters": {"query": "a"}\n',
])
def test_anything_but_one_object_is_refused(text: str) -> None:
    assert grammar_parse(text, FMT).invalid is not None


def test_a_transcript_alternates_objects_and_observations() -> None:
    text = f'Question: q\n{render(CALL, FMT)}\nObservation: ok\nall done\n'
    assert parse_transcript(text, FMT).ok


def test_keys_are_toml_data(tmp_path) -> None:
    p = tmp_path / "fn.toml"
    p.write_text('base = "json-bare"\ntool_key = "function"\nargs_key = "args"\n')
    fmt = load_format(p)
    text = render(CALL, fmt)
    assert text == '{"function": "search", "args": {"query": "a"}}'
    assert grammar_parse(text, fmt).action is not None
    p.write_text('base = "json-bare"\nfinish_action = "done"\n')
    with pytest.raises(FormatError, match="plain text"):
        load_format(p)


def test_label_leading_space_writes_no_leading_thought_where_none_is_read() -> None:
    from hypothesis import HealthCheck, given, settings

    from reactfuzz.strategies import scenarios
    from reactfuzz.tools import default_registry

    @settings(max_examples=8, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(sc=scenarios(default_registry(), FMT, abuses=["label.leading-space"]))
    def check(sc) -> None:
        assert not sc.completion.startswith(" ")

    check()
