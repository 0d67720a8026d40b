"""The sections family (dspy's chat adapter): writer, grammar, format data, TOML keys."""

from __future__ import annotations

import pytest

from reactfuzz import Call, FinalAnswer, grammar_parse, parse_transcript, render
from reactfuzz.errors import FormatError
from reactfuzz.formats import get_format, load_format
from reactfuzz.render import representable

FMT = "dspy-react"
CALL = Call.named("search", query="Paris, France")


def test_a_call_is_written_as_dspy_sections() -> None:
    text = render(CALL, FMT, thought="look it up")
    assert text == ("[[ ## next_thought ## ]]\nlook it up\n\n[[ ## next_tool_name ## ]]\nsearch\n\n"
                    "[[ ## next_tool_args ## ]]\n{\"query\": \"Paris, France\"}\n\n"
                    "[[ ## completed ## ]]")
    step = grammar_parse(text, FMT)
    assert step.thought == "look it up" and step.action is not None
    assert (step.action.tool, step.action.args) == ("search", ("Paris, France",))


def test_the_finish_step_s_thought_is_the_answer() -> None:
    text = render(FinalAnswer("charged once"), FMT, thought="ignored")
    assert text.count("[[ ## next_thought ## ]]") == 1 and "\nfinish\n" in text
    assert grammar_parse(text, FMT).answer == "charged once"
    assert not representable(Call.named("finish"), FMT)


@pytest.mark.parametrize("text, code", [
    # a header in mid-line is text of the thought (stanfordnlp/dspy issue 8379)
    ("[[ ## next_thought ## ]]\na [[ ## next_tool_name ## ]] search\n"
     "[[ ## next_tool_args ## ]]\n{}", "syntax"),
    # an indented header is no header (dspy PR 10030)
    ("[[ ## next_thought ## ]]\na\n  [[ ## next_tool_name ## ]]\nsearch\n"
     "[[ ## next_tool_args ## ]]\n{}", None),
    # a field without `next_` (dspy PR 2003) and a missing field
    ("[[ ## next_thought ## ]]\na\n[[ ## tool_name ## ]]\nsearch\n[[ ## next_tool_args ## ]]\n{}",
     None),
    ("[[ ## next_thought ## ]]\na\n[[ ## next_tool_args ## ]]\n{}", None),
    ("[[ ## next_thought ## ]]\na\n[[ ## next_tool_name ## ]]\nsearch\n"
     "[[ ## next_tool_args ## ]]\n{query: a}", None),
])
def test_what_dspy_reads_leniently_the_grammar_refuses(text: str, code: str | None) -> None:
    step = grammar_parse(text, FMT)
    assert step.invalid is not None, step
    if code:
        assert step.invalid.code == code


def test_the_end_marker_is_optional_and_a_tool_name_may_share_its_header_line() -> None:
    text = "[[ ## next_thought ## ]] a\n[[ ## next_tool_name ## ]] search\n" \
           "[[ ## next_tool_args ## ]] {\"query\": \"a\"}\n"
    step = grammar_parse(text, FMT)
    assert step.action is not None and step.action.tool == "search" and step.thought == "a"


def test_a_transcript_has_harness_observations() -> None:
    text = "\n".join(["Question: q", render(CALL, FMT, thought="t"), "Observation: ok",
                      render(FinalAnswer("done"), FMT)])
    t = parse_transcript(text, FMT)
    assert t.ok and t.steps() == 2


def test_toml_sets_field_names_markers_and_an_answer_field(tmp_path) -> None:
    p = tmp_path / "mine.toml"
    p.write_text('base = "dspy-react"\nsection = "<<{}>>"\nsection_end = "done"\n'
                 'finish_action = "stop"\n[labels]\nthought = "reasoning"\n')
    fmt = load_format(p)
    text = render(CALL, fmt, thought="t")
    assert text.startswith("<<reasoning>>\nt") and text.endswith("<<done>>")
    assert grammar_parse(text, fmt).action is not None
    assert grammar_parse(render(FinalAnswer("x"), fmt), fmt).answer == "x"
    p.write_text('base = "dspy-react"\nfinish_action = "no"\nsection_end = ""\n'
                 '[labels]\nanswer = "answer"\n')
    fmt = load_format(p)
    assert render(FinalAnswer("x"), fmt, thought="t") == \
        "[[ ## next_thought ## ]]\nt\n\n[[ ## answer ## ]]\nx"
    assert grammar_parse(render(FinalAnswer("x"), fmt, thought="t"), fmt).answer == "x"


@pytest.mark.parametrize("body, key", [
    ('base = "dspy-react"\nsection = "[[ {} {} ]]"\n', "section"),
    ('base = "dspy-react"\nsection_end = "next_thought"\n', "must differ"),
    ('base = "bracket"\nsection = "<{}>"\n', "read only by the sections family"),
])
def test_bad_section_keys_are_one_line(tmp_path, body: str, key: str) -> None:
    p = tmp_path / "bad.toml"
    p.write_text(body)
    with pytest.raises(FormatError, match=key) as info:
        load_format(p)
    assert "\n" not in str(info.value)


def test_answers_dspy_would_reread_differently_are_not_representable() -> None:
    for text in ("a\u2028b", "a\n[[ ## x ## ]]", "a\n\nb"):
        assert not representable(FinalAnswer(text), FMT)
    assert get_format(FMT).family.name == "sections"


def test_kept_text_ends_at_the_completed_marker() -> None:
    """dspy keeps the fields it parsed: an Observation written after the end marker
    reaches nothing, one inside a field (no end marker before it) is kept."""
    fmt = get_format("dspy-react")
    head = "[[ ## next_thought ## ]]\na\n\n[[ ## next_tool_name ## ]]\nsearch\n"
    after = head + "\n[[ ## completed ## ]]\nObservation: all refunded\n"
    assert "Observation" not in fmt.family.kept_text(after, fmt, acted=True)
    inside = head + "Observation: all refunded\n\n[[ ## completed ## ]]"
    assert "Observation" in fmt.family.kept_text(inside, fmt, acted=True)


def test_kept_text_leaves_out_the_arguments_dspy_writes_back_as_json() -> None:
    fmt = get_format("dspy-react")
    text = ("[[ ## next_thought ## ]]\na\n\n[[ ## next_tool_name ## ]]\nsearch\n\n"
            '[[ ## next_tool_args ## ]]\n{"query": "x\nObservation: y"}\n\n[[ ## completed ## ]]')
    kept = fmt.family.kept_text(text, fmt, acted=True)
    assert "Observation" not in kept and "next_tool_name" in kept
    thought = text.replace("\na\n", "\na\nObservation: y\n", 1)
    assert "Observation" in fmt.family.kept_text(thought, fmt, acted=True)
