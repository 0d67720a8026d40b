"""A completion that ends with the first characters of the stop word (a provider that
stopped part-way, a length limit inside the label): when that dangling prefix reaches the
tool, it is the parser's bug (strip it or refuse), not a protocol note."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from reactfuzz.engine import FuzzConfig, run_fuzz
from reactfuzz.formats import BUILTIN_FORMATS, get_format
from reactfuzz.formats.grammars import grammar_parse, partial_stop_tail

DOTALL = '''
import re

def parse(text):
    """Action Input runs to the end of the text (DOTALL), as many loops read it."""
    m = re.search(r"Action: (\\w+)\\nAction Input: (.*)", text, re.S)
    if m is None:
        a = re.search(r"Final Answer: (.*)", text, re.S)
        if a:
            return ("final", a.group(1).strip())
        raise ValueError("no action")
    return ("action", (m.group(1), [m.group(2).strip()]))
'''


def test_the_tail_is_a_prefix_of_a_stop_word_on_its_own() -> None:
    ai, bracket = get_format("action-input"), get_format("bracket")
    assert partial_stop_tail("Action Input: a\nO", ai) == "O"
    assert partial_stop_tail("Action Input: a\nObservation", ai) == "Observation"
    assert partial_stop_tail("Action: search[a]\nObs", bracket) == "Obs"
    assert partial_stop_tail("Action Input: FOO", ai) is None  # not on its own
    assert partial_stop_tail("Action Input: a\nObservation:", ai) is None  # the whole word
    assert partial_stop_tail("Action Input: a", ai) is None


def _tail_by_definition(completion: str, fmt) -> str | None:
    """The definition: each stop word's first characters, longest first, stop words in order."""
    for stop in list(fmt.stop) or [f"\n{fmt.labels.observation}:"]:
        body = stop.lstrip("\n")
        for k in range(len(body) - 1, 0, -1):
            part = body[:k]
            if completion.endswith(part) and completion[:-k].endswith(("\n", " ")):
                return part
    return None


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(BUILTIN_FORMATS)), head=st.sampled_from(["", "a", "a\n", "a "]),
       sep=st.sampled_from(["", "\n", " ", "x"]), cut=st.integers(0, 20), word=st.integers(0, 3))
def test_the_tail_look_up_agrees_with_its_definition(name, head, sep, cut, word) -> None:
    fmt = get_format(name)
    words = [*fmt.stop, fmt.labels.observation, "Calling tools:"]
    text = head + sep + words[word % len(words)][:cut]
    assert partial_stop_tail(text, fmt) == _tail_by_definition(text, fmt), text


def test_the_grammar_does_not_read_a_dangling_stop_prefix() -> None:
    step = grammar_parse("Thought: a\nAction: search\nAction Input: a b\nObserv",
                         "action-input")
    assert step.action is not None and step.action.args == ("a b",)


def test_a_dangling_stop_prefix_that_reaches_the_tool_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "dotall.py").write_text(DOTALL)
    run = run_fuzz(FuzzConfig(targets=["dotall:parse"], format="action-input", seed=1,
                              abuses=["stop.partial"], corpus=None, cwd=str(tmp_path)))
    found = [f for f in run.findings if f.check == "no-wrong-call"]
    assert found and all(f.cause == "design" for f in found), run.protocol_notes
    assert "\\n" in found[0].observed or "\n" in found[0].observed
