"""Where the writer and the operators put things: thoughts, argument edits, observation labels.

A tag format writes a thought where its ``think`` data says (before calls only, by
default: an answer is the whole message text); the JSON operators edit the arguments
object itself, inside a template's placeholder, a tag or a wrapper object, never the
text around it; a format's observation label may be a non-word token (griptape's
``<|Response|>``), so a fabricated observation is written as a model following that
prompt writes it. Each is shown against a parser that reads the format as its
frameworks do (left alone) and one that does not (caught).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from reactfuzz import Call, FinalAnswer, grammar_parse
from reactfuzz.dispatch import bind_typed
from reactfuzz.errors import FormatError
from reactfuzz.formats import Format, get_format, load_format
from reactfuzz.model import Step
from reactfuzz.oracle import judge
from reactfuzz.render import render, representable, written_form
from reactfuzz.strategies import Scenario, scenarios
from reactfuzz.tools import default_registry

ROOT = Path(__file__).resolve().parent.parent
GRIPTAPE = str(ROOT / "zoo" / "formats" / "griptape.toml")
REG = default_registry()


def _settings(n: int) -> settings:
    return settings(database=None, max_examples=n, derandomize=True, deadline=None,
                    phases=[Phase.generate], suppress_health_check=list(HealthCheck))


def _fault(parse, fmt: Format | str):
    """A predicate: the parser's reading of a scenario is the parser's fault."""
    def wrong(sc: Scenario) -> bool:
        outcome = bind_typed(parse(sc.completion), REG)
        v = judge(outcome, sc.acceptable, REG, completion=sc.completion, fmt=fmt)
        return not v.ok and v.cause == "design"
    return wrong


def _with(fmt: str, tmp_path: Path, **data: str) -> Format:
    lines = [f'base = "{fmt}"', *(f"{k} = {json.dumps(v)}" for k, v in data.items())]
    path = tmp_path / "f.toml"
    path.write_text("\n".join(lines) + "\n")
    return load_format(path)


# --------------------------------------------------------------------------- think blocks

CALL = Call("search", ("Paris",), ("query",))


def test_tag_formats_write_a_think_block_before_calls_and_none_before_answers() -> None:
    assert render(CALL, "tool-call", thought="look").startswith("<think>\nlook\n</think>\n")
    assert render(CALL, "function-tag", thought="look").startswith("<think>\nlook\n</think>\n")
    for fmt in ("tool-call", "function-tag"):
        assert render(FinalAnswer("Paris."), fmt, thought="look") == "Paris."


def test_think_is_format_data(tmp_path: Path) -> None:
    always = _with("tool-call", tmp_path, think="always")
    assert render(FinalAnswer("Paris."), always, thought="ok") == "<think>\nok\n</think>\nParis."
    never = _with("function-tag", tmp_path, think="never")
    assert render(CALL, never, thought="look") == (
        'look\n<function=search>{"query": "Paris"}</function>')
    assert render(FinalAnswer("Paris."), never, thought="look") == "Paris."
    # every placement reads back the same
    for fmt in (always, never):
        for intent in (CALL, FinalAnswer("Paris.")):
            step = grammar_parse(render(intent, fmt, thought="look it up"), fmt)
            assert step.intent() == written_form(intent, fmt)


@given(think=st.sampled_from(["calls", "always", "never"]),
       base=st.sampled_from(["tool-call", "function-tag"]),
       intent=st.sampled_from([CALL, FinalAnswer("Paris, France."), Call.named("get_time")]),
       thought=st.sampled_from(["a", "I must not run <tool_call> here", "x: y"]))
@settings(max_examples=30, deadline=None, database=None)
def test_every_think_placement_reads_back(think, base, intent, thought) -> None:
    fmt = get_format(base).model_validate(get_format(base).model_dump() | {"think": think})
    assert representable(intent, fmt)
    step = grammar_parse(render(intent, fmt, thought=thought), fmt)
    assert step.intent() == written_form(intent, fmt), step


def _whole_text_answer(fmt: Format):
    """How camel-ai reads a tag protocol: a call if the grammar finds one, else the whole
    message text is the answer (think block included)."""
    def parse(text: str) -> Step:
        step = grammar_parse(text, fmt)
        return step if step.action is not None else Step(answer=text)
    return parse


@pytest.mark.parametrize("base", ["tool-call", "function-tag"])
def test_clean_answers_are_read_right_by_a_whole_message_reader(base: str, tmp_path: Path
                                                                ) -> None:
    fmt = get_format(base)
    with pytest.raises(NoSuchExample):
        find(scenarios(REG, fmt, abuses=["clean.render"]), _fault(_whole_text_answer(fmt), fmt),
             settings=_settings(40))
    # the same reader is caught where the format keeps a think block before answers
    always = _with(base, tmp_path, think="always")
    sc = find(scenarios(REG, always, abuses=["clean.render"]),
              _fault(_whole_text_answer(always), always), settings=_settings(40))
    assert sc.completion.startswith("<think>")


def test_operators_that_need_a_thought_still_write_one() -> None:
    sc = find(scenarios(REG, "tool-call", abuses=["injected.action-in-thought"]),
              lambda s: True, settings=_settings(5))
    assert sc.completion.startswith("<think>\nI must not run <tool_call>")


def test_think_is_read_only_by_the_tag_family(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="'think' is read only by the tag family"):
        _with("json-blob", tmp_path, think="never")
    with pytest.raises(FormatError, match="think"):
        _with("tool-call", tmp_path, think="sometimes")
