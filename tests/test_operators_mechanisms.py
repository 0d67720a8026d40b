"""The operators written from tracker reports: each catches the parser mechanism it names
and leaves a correct reader of the same format alone.

``test_operators_new.py`` checks their ``breaks`` claims against the classic designs (none
of them breaks one) and the grammar + typed designs in every built-in format; here each
gets a tiny deliberately broken parser with the mechanism of a real report:

* ``content.real-text``: every ``'`` made a ``"`` before decoding (camel-ai issue 4169);
* ``prose.lone-brace``: the blob sliced from the first ``{`` to the last ``}`` of the
  whole text (smolagents PR 2427 / PR 2587);
* ``prose.plain-answer``: any text without an action is the answer, label and all
  (xorbitsai/inference PR 1098; smolagents issue 1732 is the same completion refused);
* ``prose.opens-with-stop``: an empty completion taken for an empty answer (smolagents
  issue 1109: the stop word at offset 0);
* ``layout.pretty-action``: a call regex without DOTALL (griptape PR 211 / PR 118).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

from reactfuzz.dispatch import bind_typed
from reactfuzz.grammars import grammar_parse
from reactfuzz.model import Action, Invalid, Step
from reactfuzz.oracle import judge
from reactfuzz.strategies import ABUSES, Scenario, scenarios
from reactfuzz.strategies.values import REAL_TEXT, real_text
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


def _caught(reader: Reader, fmt: str, abuse: str, n: int = 60) -> Scenario:
    return find(scenarios(REG, fmt, abuses=[abuse]), lambda sc: _at_fault(reader, fmt, sc),
                settings=_settings(n))


def _left_alone(reader: Reader, fmt: str, abuse: str, n: int = 40) -> None:
    with pytest.raises(NoSuchExample):
        sc = _caught(reader, fmt, abuse, n)
        pytest.fail(f"{abuse} blames a correct reader: {sc.completion!r}")


def _text_is_answer(fmt: str, *, rewrite: Callable[[str], str] = lambda t: t) -> Reader:
    """The grammar's reading of ``rewrite(text)``; where it finds nothing, the whole text is
    the answer (the chat-message fallback of the tag readers and qwen-agent)."""

    def read(text: str) -> Step:
        step = grammar_parse(rewrite(text), fmt)
        return step if step.invalid is None else Step(answer=text)

    return read


def _grammar(fmt: str) -> Reader:
    return lambda text: grammar_parse(text, fmt)


def _blob_step(obj: object) -> Step:
    if not isinstance(obj, dict) or not isinstance(obj.get("arguments"), dict):
        return Step(invalid=Invalid("malformed-action", "no call object"))
    args = obj["arguments"]
    if obj.get("name") == "final_answer":
        return Step(answer=str(args.get("answer")))
    return Step(action=Action(str(obj.get("name")), json.dumps(args), tuple(args.values()),
                              tuple(args)))


def _first_to_last_brace(text: str) -> Step:
    """smolagents' ``parse_json_blob``: from the first ``{`` to the last ``}`` of the text."""
    try:
        return _blob_step(json.loads(text[text.find("{"): text.rfind("}") + 1]))
    except ValueError as e:
        return Step(invalid=Invalid("malformed-action", str(e)))


def _blob_after_label(text: str) -> Step:
    """The blob decoded where the action label's line starts it, and nothing else."""
    m = re.search(r"(?m)^Action: ", text)
    if m is None:
        return Step(invalid=Invalid("no-action", "no action"))
    try:
        obj, _ = json.JSONDecoder().raw_decode(text, m.end())
    except ValueError as e:
        return Step(invalid=Invalid("malformed-action", str(e)))
    return _blob_step(obj)


# --- content.real-text ------------------------------------------------------------------


def test_real_text_starts_with_a_lone_apostrophe() -> None:
    assert REAL_TEXT[0] == "it's"
    assert find(real_text(), lambda s: True, settings=_settings(5)) == "it's"
    assert any('"' in v for v in REAL_TEXT) and any("\\" in v for v in REAL_TEXT)
    assert any(not v.isascii() for v in REAL_TEXT)


def test_real_text_catches_a_quote_replacing_decoder() -> None:
    camel = _text_is_answer("tool-call", rewrite=lambda t: t.replace("'", '"'))
    sc = _caught(camel, "tool-call", "content.real-text")
    assert "it's" in sc.completion  # shrunk to the lone apostrophe


def test_real_text_leaves_a_json_reader_alone() -> None:
    _left_alone(_text_is_answer("tool-call"), "tool-call", "content.real-text")


# --- prose.lone-brace -------------------------------------------------------------------


def test_a_lone_brace_catches_a_first_to_last_brace_slice() -> None:
    sc = _caught(_first_to_last_brace, "json-blob", "prose.lone-brace")
    assert sc.completion.startswith("Thought: {\n") or "{" in sc.completion.split("\n")[0]


def test_a_lone_brace_leaves_a_blob_reader_alone() -> None:
    _left_alone(_blob_after_label, "json-blob", "prose.lone-brace")


# --- prose.plain-answer -----------------------------------------------------------------


def test_plain_answer_catches_text_taken_for_the_answer() -> None:
    sc = _caught(_text_is_answer("json-blob"), "json-blob", "prose.plain-answer")
    assert sc.completion.startswith("Thought:")  # the thought went to the user too


def test_plain_answer_leaves_a_refusing_reader_alone() -> None:
    _left_alone(_grammar("json-blob"), "json-blob", "prose.plain-answer", 20)


# --- prose.opens-with-stop --------------------------------------------------------------


def test_opening_stop_word_catches_an_empty_answer() -> None:
    sc = _caught(_text_is_answer("json-blob"), "json-blob", "prose.opens-with-stop")
    assert sc.completion == ""  # the provider cut at offset 0


def test_opening_stop_word_leaves_the_grammar_alone() -> None:
    _left_alone(_grammar("action-input"), "action-input", "prose.opens-with-stop", 30)


# --- layout.pretty-action ---------------------------------------------------------------


def _one_line_tag(text: str) -> Step:
    """A ``<tool_call>`` regex without DOTALL: the blob must sit on one line."""
    m = re.search(r"<tool_call>\n(\{.*\})\n</tool_call>", text)
    if m is None:
        return Step(answer=text)
    return _blob_step(json.loads(m.group(1)))


def test_a_pretty_action_catches_a_one_line_regex() -> None:
    sc = _caught(_one_line_tag, "tool-call", "layout.pretty-action")
    assert sc.completion.count("\n") > 4


def test_a_pretty_action_leaves_the_grammar_alone() -> None:
    _left_alone(_grammar("tool-call"), "tool-call", "layout.pretty-action", 20)


def test_the_new_operators_apply_where_the_format_has_what_they_need() -> None:
    assert not ABUSES["layout.pretty-action"].applies_to("function-tag")  # arguments only
    assert not ABUSES["prose.plain-answer"].applies_to("bracket")  # has an answer label
    assert not ABUSES["prose.opens-with-stop"].applies_to("tool-call")  # no stop word
    assert ABUSES["content.real-text"].applies_to("bracket")


def test_a_call_lost_from_a_clean_text_is_its_own_root_cause() -> None:
    """camel's dropped call (valid JSON rewritten) is not its broken-JSON message finding."""
    from reactfuzz.dispatch import Finished
    from reactfuzz.engine.rootcause import outcome_signature
    from reactfuzz.formats import get_format
    from reactfuzz.model import Call

    meant, fmt = Call.named("search", query="it's"), get_format("tool-call")
    lost = outcome_signature("hijacked-answer", Finished("x"), meant, (meant,), "x", fmt,
                             refusable=False)
    broken = outcome_signature("hijacked-answer", Finished("x"), meant, (meant,), "x", fmt)
    assert lost != broken and "carries" in lost
