"""A classic ReAct regex parser written as a plain module function (``tests.regexagent:parse``).

It is the kind of parser a user points ``--target module:function`` at: pure Python, a
few microseconds a call, and with the classic weaknesses (the last ``Action:`` line wins,
an answer label anywhere ends the step), so the worker's round trip and exploration are
measured on a cost like a real user's, and the fuzzer has something to find.
"""

from __future__ import annotations

import re

_ACTION = re.compile(r"Action:\s*(\w+)\[(.*)\]", re.DOTALL)
_ANSWER = re.compile(r"Answer:\s*(.*)", re.DOTALL)


def parse(text: str) -> tuple[str, object]:
    """``("final", answer)`` or ``("action", (tool, argument text))``; raises when neither."""
    answer = _ANSWER.search(text)
    if answer is not None:
        return ("final", answer.group(1).strip())
    action = _ACTION.search(text)
    if action is None:
        raise ValueError(f"Could not parse LLM output: {text}")
    return ("action", (action.group(1), action.group(2)))
