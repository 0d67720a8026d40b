"""``content.mixed-text`` and ``content.lenient-json``: real text mixed with the format's
own strings, written compact, escaped, over several lines or in a lenient syntax.

Each catches a tiny deliberately broken reader with the mechanism of a real parser, and
leaves a correct reader of the same format alone:

* the action name read from the *last* ``Action:`` followed by a line break anywhere in
  the text, so a label at the end of a line of a pretty-printed argument names the tool;
* the call cut at the first closing tag, even one inside a JSON string;
* a decoder that falls back to a Python literal when JSON fails, which reads the JSON
  escape of an emoji (``\\ud83c\\udf89``) as two lone surrogates.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

from reactfuzz.dispatch import bind_typed
from reactfuzz.formats import get_format
from reactfuzz.grammars import grammar_parse
from reactfuzz.model import Action, Invalid, Step
from reactfuzz.oracle import judge
from reactfuzz.strategies import ABUSES, Scenario, scenarios
from reactfuzz.strategies.abuses.content import _written_object, special_pieces
from reactfuzz.tools import default_registry

REG = default_registry()
Reader = Callable[[str], Step]


def _settings(n: int) -> settings:
    return settings(database=None, max_examples=n, derandomize=True, deadline=None,
                    phases=(Phase.generate, Phase.shrink),
                    suppress_health_check=list(HealthCheck))


def _at_fault(reader: Reader, fmt: str, sc: Scenario) -> bool:
    v = judge(bind_typed(reader(sc.completion), REG), sc.acceptable, REG,
              completion=sc.completion, fmt=fmt)
    return not v.ok and v.cause == "design"


def _caught(reader: Reader, fmt: str, abuse: str, n: int) -> Scenario:
    return find(scenarios(REG, fmt, abuses=[abuse]), lambda sc: _at_fault(reader, fmt, sc),
                settings=_settings(n))


def _left_alone(reader: Reader, fmt: str, abuse: str, n: int = 60) -> None:
    with pytest.raises(NoSuchExample):
        sc = _caught(reader, fmt, abuse, n)
        pytest.fail(f"{abuse} blames a correct reader: {sc.completion!r}")


def _call(name: str, args: object) -> Step:
    if not isinstance(args, dict):
        return Step(invalid=Invalid("malformed-arg", "not an object"))
    return Step(action=Action(name, json.dumps(args), tuple(args.values()), tuple(args)))


def _last_action_line(text: str) -> Step:
    """The tool named by the last ``Action:`` that a line break ends, anywhere in the text;
    the input from the first ``Action Input:`` to the end (lagent's ReAct reader; its answer
    label is read right here, at a line start, so the action name is the only fault)."""
    answer = re.search(r"(?m)^Final Answer: ?(.*)", text, re.DOTALL)
    if answer is not None and "\nAction:" not in text:
        return Step(answer=answer.group(1))
    names = re.findall(r"Action:(.*?)\n", text)
    inputs = re.findall(r"Action Input:(.*)", text, re.DOTALL)
    if not names or not inputs:
        return Step(invalid=Invalid("no-action", "no action"))
    try:
        return _call(names[-1].strip(), json.loads(inputs[0]))
    except ValueError as e:
        return Step(invalid=Invalid("malformed-arg", str(e)))


def _cut_at_first_close(text: str) -> Step:
    """A ``<tool_call>`` cut at the first ``</tool_call>``, one inside a string included."""
    if "<tool_call>" not in text:
        return Step(answer=text)
    body = text.split("<tool_call>", 1)[1].split("</tool_call>", 1)[0]
    try:
        obj = json.loads(body)
    except ValueError as e:
        return Step(invalid=Invalid("unparseable", str(e)))
    return _call(str(obj.get("name")), obj.get("arguments"))


def _literal_fallback(text: str) -> Step:
    """The grammar's reading, with the arguments decoded by ``json.loads`` and, when that
    fails, by ``ast.literal_eval`` (true/false/null made Python): a Python literal reads
    ``\\ud83c\\udf89`` as two lone surrogates."""
    m = re.search(r"<tool_call>\n(.*)\n</tool_call>", text, re.DOTALL)
    if m is None:
        return Step(answer=text)
    outer = re.match(r'\{"name": "(\w+)", "arguments": (.*)\}$', m.group(1), re.DOTALL)
    if outer is None:
        return Step(invalid=Invalid("malformed-action", "no call object"))
    raw = outer.group(2)
    try:
        args = json.loads(raw)
    except ValueError:
        py = re.sub(r"\b(true|false|null)\b",
                    lambda w: {"true": "True", "false": "False", "null": "None"}[w.group()], raw)
        py = re.sub(r"(?<=[{,])\s*(\w+):", r"'\1':", py)  # bare keys
        try:
            args = ast.literal_eval(py)
        except (ValueError, SyntaxError) as e:
            return Step(invalid=Invalid("unparseable", str(e)))
    return _call(outer.group(1), args)


def test_both_apply_where_they_mean_something() -> None:
    assert ABUSES["content.mixed-text"].applies_to("bracket")
    assert ABUSES["content.lenient-json"].applies_to("tool-call")
    assert not ABUSES["content.lenient-json"].applies_to("bracket")


def test_special_pieces_are_the_formats_own_and_never_a_stop_sequence() -> None:
    tag = special_pieces(get_format("function-tag"))
    assert "</function>" in tag
    assert "[[ ## completed ## ]]" in special_pieces(get_format("dspy-react"))
    action_input = get_format("action-input")
    pieces = special_pieces(action_input)
    assert "Action Input:" in pieces
    assert not any(s in p or p in s for p in pieces for s in action_input.stop)
    assert not any("\n" in p for p in pieces)


def test_lenient_writings_decode_to_the_same_object() -> None:
    obj = {"query": "it's \"x\" \U0001f389 a\\b", "n": 1}
    for ascii_only in (True, False):
        assert json.loads(_written_object(obj, "indented", ascii_only)) == obj
        assert json.loads(_written_object(obj, "compact", ascii_only)) == obj
        single = _written_object(obj, "single-quotes", ascii_only)
        assert single.startswith("{'query': 'it\\'s")
        trailing = _written_object(obj, "trailing-comma", ascii_only)
        assert trailing.endswith(",}") and json.loads(trailing[:-2] + "}") == obj
    assert ast.literal_eval(_written_object(obj, "python", False)) == obj


@pytest.mark.slow  # a rare pair: a few hundred examples before the search meets it
def test_mixed_text_catches_an_action_label_read_anywhere() -> None:
    sc = _caught(_last_action_line, "action-input-json", "content.mixed-text", 300)
    # the pair it takes: a label at the end of a line of an argument spread over lines
    assert re.search(r'Action:"\n\}$', sc.completion), sc.completion


def test_mixed_text_catches_a_cut_at_the_first_closing_tag() -> None:
    sc = _caught(_cut_at_first_close, "tool-call", "content.mixed-text", 200)
    assert sc.completion.count("</tool_call>") >= 2


def test_mixed_text_leaves_the_grammar_alone() -> None:
    for fmt in ("action-input-json", "tool-call"):
        _left_alone(lambda t, f=fmt: grammar_parse(t, f), fmt, "content.mixed-text")


def test_lenient_json_catches_a_python_literal_fallback() -> None:
    sc = _caught(_literal_fallback, "tool-call", "content.lenient-json", 200)
    assert "\\u" in sc.completion  # the escape is what the fallback misreads


def test_lenient_json_leaves_a_strict_reader_alone() -> None:
    _left_alone(lambda t: grammar_parse(t, "tool-call"), "tool-call", "content.lenient-json")
