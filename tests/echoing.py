"""Hand-written parsers in the echoing idiom, each beside its quiet twin.

Many real parsers raise ``ValueError(f"Could not parse LLM output: {text}")``: every
distinct completion then makes a distinct message. Each parser here has its bugs planted
and listed in its docstring; ``<name>`` quotes the completion in what it raises and
``<name>_quiet`` is the same code with the completion left out of every message. One bug
must give one finding whichever of the two runs (``tests/test_bugs.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "action_input",
    "action_input_quiet",
    "both_labels",
    "both_labels_quiet",
    "bracket",
    "bracket_quiet",
    "json_blob",
    "json_blob_quiet",
]


def _say(message: str, text: str, echo: bool) -> str:
    return f"{message}: `{text}`" if echo else message


Parse = Callable[[str], tuple[str, Any]]


def _twins(parse: Callable[[str, bool], tuple[str, Any]]) -> tuple[Parse, Parse]:
    """A parser that quotes the completion in its errors, and its quiet twin."""

    def loud(text: str) -> tuple[str, Any]:
        return parse(text, True)

    def quiet(text: str) -> tuple[str, Any]:
        return parse(text, False)

    return loud, quiet


# ---------------------------------------------------------------- action-input (format)

_ACTION = re.compile(r"Action:\s*(.*?)\n")
_INPUT = re.compile(r"Action Input:\s*(.*)", re.DOTALL)


def _action_input(text: str, echo: bool) -> tuple[str, Any]:
    """Planted bugs:

    1. ``"Final Answer:" in text`` wins over an action (a label inside a thought or an
       argument hijacks the answer);
    2. the first ``Action:`` anywhere names the tool (an unanchored search): an action
       quoted in a thought, or the first of two actions, is the one read;
    3. no action found: the whole text is the answer (a raw-text fallback);
    4. an ``Action:`` line with no ``Action Input:`` crashes (``IndexError``).
    """
    if "Final Answer:" in text:
        return ("final", text.split("Final Answer:")[-1].strip())
    action = _ACTION.search(text)
    if action is None:
        if "Action:" in text:
            raise ValueError(_say("Could not parse LLM output", text, echo))
        return ("final", text.strip())
    tool = action.group(1).strip()
    if not tool:
        raise ValueError(_say("Could not parse tool name in", text, echo))
    tail = text.split("Action Input:")[1]  # bug 4: IndexError without the label
    raw = _INPUT.search(text)
    value = raw.group(1).strip() if raw else tail
    return ("action", (tool, value))


action_input, action_input_quiet = _twins(_action_input)


# ------------------------------------------------------------------- json-blob (format)

def _json_blob(text: str, echo: bool) -> tuple[str, Any]:
    """Planted bugs:

    1. the blob is the slice from the first ``{`` to the last ``}`` of the whole text: a
       brace in the thought makes a valid call fail;
    2. a call object without ``arguments`` crashes (``KeyError``).
    """
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError(_say("No JSON blob found in", text, echo))
    try:
        blob = json.loads(text[start:end + 1])
    except json.JSONDecodeError as exc:
        raise ValueError(_say(f"Could not decode the JSON blob ({exc.msg})", text, echo)) \
            from None
    if not isinstance(blob, dict):
        raise ValueError(_say("The JSON blob is not an object", text, echo))
    name = blob.get("name")
    if name is None:
        raise ValueError(_say("The JSON blob names no tool", text, echo))
    args = blob["arguments"]  # bug 2
    if name == "final_answer":
        answer = args.get("answer") if isinstance(args, dict) else args
        return ("final", str(answer))
    return ("action", (name, args))


json_blob, json_blob_quiet = _twins(_json_blob)


# --------------------------------------------------------------------- bracket (format)

_BRACKET = re.compile(r"^Action:\s*(\w+)\[(.*)\]", re.MULTILINE)


def _bracket(text: str, echo: bool) -> tuple[str, Any]:
    """Planted bugs:

    1. ``"Answer:" in text`` wins over an action and the answer is the text after it;
    2. quoted arguments are never decoded: ``search["Paris"]`` runs with the quotes kept;
    3. the argument runs to the last ``]`` on the line: ``search[a[]`` runs with ``a[``;
    4. two actions in one completion: the first runs and the second is dropped.
    """
    if "Answer:" in text:
        return ("final", text.split("Answer:", 1)[1].strip())
    match = _BRACKET.search(text)
    if match is None:
        raise ValueError(_say("Parsed neither an answer nor an action from", text, echo))
    args = [a.strip() for a in match.group(2).split(",")] if match.group(2).strip() else []
    return ("action", (match.group(1), args))


bracket, bracket_quiet = _twins(_bracket)


# ---------------------------------------------------- action-input, refusing both (format)

_BOTH = re.compile(r"Action\s*:\s*(.*?)\s*Action\s*Input\s*:\s*(.*)", re.DOTALL)


def _both_labels(text: str, echo: bool) -> tuple[str, Any]:
    """Planted bugs:

    1. an answer label anywhere beside an action refuses the whole step, even one quoted
       in an argument or a thought: a valid call is dropped;
    2. the tool name runs from the first ``Action:`` anywhere to ``Action Input:`` (a
       label quoted in a thought, or a second action, names the tool);
    3. the input is stripped of quotes: ``"Paris"`` runs as ``Paris`` and a value that
       ends in a quote loses it;
    4. the answer is the text after the *last* answer label: an answer that quotes the
       label is cut there.
    """
    has_answer = "Final Answer:" in text
    match = _BOTH.search(text)
    if match and has_answer:
        raise ValueError(_say("Parsed both an answer and an action from", text, echo))
    if match:
        return ("action", (match.group(1).strip(), match.group(2).strip().strip('"')))
    if has_answer:
        return ("final", text.split("Final Answer:")[-1].strip())
    raise ValueError(_say("Could not parse LLM output", text, echo))


both_labels, both_labels_quiet = _twins(_both_labels)
