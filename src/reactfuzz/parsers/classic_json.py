"""The classic parsers of the newer protocol families, each with its family's usual mistake.

One parser per family, written the way such parsers are shipped (from each protocol's
mechanism, not from any framework's code), so the study can compare a shipped design
with the grammar on every format, and so each family's operators have a known-broken
target:

* ``classic-action-input-json``: ``'Final Answer:' in text`` wins; the input is
  ``Action Input:(.*)`` with DOTALL, greedy to the end of the text.
* ``classic-json-blob``: the JSON is sliced from the first ``{`` to the last ``}`` of
  the whole text.
* ``classic-json-blob-fenced``: the first code fence anywhere in the text is the action.
* ``classic-tool-call``: the first ``<tool_call>...</tool_call>`` anywhere runs, in a
  think block or in prose too.
* ``classic-function-tag``: ``<function=(\\w+)>(.*?)</function>`` without DOTALL,
  searched anywhere; no match (or bad JSON) and the text is the answer.
* ``classic-dspy-react``: the text is split on headers found anywhere, not only at a
  line start; the first copy of a field wins.
* ``classic-json-bare``: ``json.loads`` of the whole text; if that fails the text is
  the answer.

They never raise on bad input (an invalid Step instead) and decode JSON with Python's
``json`` (a repeated key: the last value wins). Arguments decoded to an object are
named (``tool(**args)``); anything else is one positional argument.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import regex  # type: ignore[import-untyped, unused-ignore]  # typed by types-regex, if installed

from ..formats import Format
from ..model import Action, Invalid, Step
from . import DEFAULT_TIMEOUT, Parser, register_parser, thought_before, timeout_step

__all__ = [
    "ClassicActionInputJsonParser",
    "ClassicDspyReactParser",
    "ClassicFunctionTagParser",
    "ClassicJsonBareParser",
    "ClassicJsonBlobFencedParser",
    "ClassicJsonBlobParser",
    "ClassicToolCallParser",
]


def _action(tool: str, value: Any, raw: str) -> Action:
    """An action with arguments as ``tool(**value)`` (an object) or ``tool(value)`` would get."""
    if isinstance(value, dict):
        return Action(tool, raw, tuple(value.values()), tuple(str(k) for k in value))
    return Action(tool, raw, (value,))


def _bad_json(name: str, err: ValueError) -> Step:
    return Step(invalid=Invalid("invalid-json", f"{name}: {err}"))


def _label_stripped(head: str, label: str) -> str:
    """The thought before an action: without a trailing ``label`` and a leading ``Thought:``."""
    head = head.strip()
    if head.endswith(label):
        head = head[: -len(label)].strip()
    return thought_before(head, len(head))


# ------------------------------------------------------------------ action-input-json

_AIJ_ACTION = regex.compile(r"Action:[ \t]*(.*)")
_AIJ_INPUT = regex.compile(r"Action Input:(.*)", regex.DOTALL)


@dataclass(frozen=True)
class ClassicActionInputJsonParser:
    """``Action:`` / ``Action Input: {json}``: a final answer anywhere wins, the input is greedy."""

    format: Format
    name: str = "classic-action-input-json"

    def parse(self, completion: str) -> Step:
        """``'Final Answer:' in text`` first, then the first Action and all text after its input."""
        if "Final Answer:" in completion:
            before, _, after = completion.rpartition("Final Answer:")
            return Step(thought=thought_before(before, len(before)), answer=after.strip())
        try:
            tool = _AIJ_ACTION.search(completion, timeout=DEFAULT_TIMEOUT)
            value = _AIJ_INPUT.search(completion, timeout=DEFAULT_TIMEOUT)
        except TimeoutError:
            return timeout_step(self.name)
        if tool is None or value is None:
            return Step(invalid=Invalid("no-action", "no 'Action:' and 'Action Input:'"))
        raw = value.group(1).strip()
        try:
            args = json.loads(raw)
        except ValueError as e:
            return _bad_json(self.name, e)
        return Step(thought=thought_before(completion, tool.start()),
                    action=_action(tool.group(1).strip(), args, raw))


@register_parser("classic-action-input-json",
                 "'Final Answer:' in text wins; Action Input:(.*) DOTALL, json.loads")
def _classic_action_input_json(fmt: Format) -> Parser:
    return ClassicActionInputJsonParser(fmt)


# ------------------------------------------------------------------ json-blob


def _blob_step(name: str, head: str, obj: Any, fmt: Format, raw: str) -> Step:
    """A decoded blob as a Step: the finish action is the answer, else a call."""
    tool_key, args_key = fmt.tool_key, fmt.args_key
    if not isinstance(obj, dict) or not isinstance(obj.get(tool_key), str):
        return Step(invalid=Invalid("no-action", f"{name}: no {tool_key!r} in the JSON blob"))
    tool, args = obj[tool_key], obj.get(args_key, {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            pass
    thought = _label_stripped(head, f"{fmt.labels.action}:")
    if fmt.finish_action is not None and tool == fmt.finish_action:
        if isinstance(args, dict) and fmt.answer_key is not None:
            answer = args.get(fmt.answer_key, "")
        else:
            answer = args
        text = answer if isinstance(answer, str) else json.dumps(answer)
        return Step(thought=thought, answer=text)
    return Step(thought=thought, action=_action(tool, args, raw))


@dataclass(frozen=True)
class ClassicJsonBlobParser:
    """A JSON blob sliced from the first ``{`` to the last ``}`` of the whole text."""

    format: Format
    name: str = "classic-json-blob"

    def parse(self, completion: str) -> Step:
        """``text[text.find('{'):text.rfind('}') + 1]``, then ``json.loads``."""
        first, last = completion.find("{"), completion.rfind("}")
        if first == -1 or last < first:
            return Step(invalid=Invalid("no-action", "no JSON blob in the text"))
        raw = completion[first : last + 1]
        try:
            obj = json.loads(raw, strict=False)
        except ValueError as e:
            return _bad_json(self.name, e)
        return _blob_step(self.name, completion[:first], obj, self.format, raw)


@register_parser("classic-json-blob", "the JSON from the first '{' to the last '}' of the text")
def _classic_json_blob(fmt: Format) -> Parser:
    return ClassicJsonBlobParser(fmt)


_FENCE = regex.compile(r"```(?:json)?(.*?)```", regex.DOTALL)


@dataclass(frozen=True)
class ClassicJsonBlobFencedParser:
    """The first code fence anywhere in the text is the action blob."""

    format: Format
    name: str = "classic-json-blob-fenced"

    def parse(self, completion: str) -> Step:
        """The first ```` ```json ... ``` ```` found anywhere, then ``json.loads``."""
        try:
            m = _FENCE.search(completion, timeout=DEFAULT_TIMEOUT)
        except TimeoutError:
            return timeout_step(self.name)
        if m is None:
            return Step(invalid=Invalid("no-action", "no code fence in the text"))
        raw = m.group(1).strip()
        try:
            obj = json.loads(raw)
        except ValueError as e:
            return _bad_json(self.name, e)
        return _blob_step(self.name, completion[: m.start()], obj, self.format, raw)


@register_parser("classic-json-blob-fenced", "the first code fence anywhere is the action blob")
def _classic_json_blob_fenced(fmt: Format) -> Parser:
    return ClassicJsonBlobFencedParser(fmt)


# ------------------------------------------------------------------ tags

_THINK_END = "</think>"


def after_think(text: str) -> str:
    """The text after the last ``</think>`` (all of it without one), trimmed."""
    return text.rpartition(_THINK_END)[2].strip() if _THINK_END in text else text.strip()


def think_text(text: str) -> str:
    """The think block's text (empty without one)."""
    if _THINK_END not in text:
        return ""
    return text.partition(_THINK_END)[0].replace("<think>", "").strip()


@dataclass(frozen=True)
class ClassicToolCallParser:
    """The first ``<tool_call>...</tool_call>`` anywhere runs; no tag and the text is the answer."""

    format: Format
    name: str = "classic-tool-call"

    def parse(self, completion: str) -> Step:
        """Search the tag pair anywhere (think block and prose included), ``json.loads`` inside."""
        tag = regex.escape(self.format.tag)
        pattern = regex.compile(rf"<{tag}>(.*?)</{tag}>", regex.DOTALL)
        try:
            m = pattern.search(completion, timeout=DEFAULT_TIMEOUT)
        except TimeoutError:
            return timeout_step(self.name)
        if m is None:
            return Step(thought=think_text(completion), answer=after_think(completion))
        raw = m.group(1).strip()
        try:
            obj = json.loads(raw)
        except ValueError as e:
            return _bad_json(self.name, e)
        if not isinstance(obj, dict) or not isinstance(obj.get(self.format.tool_key), str):
            return Step(invalid=Invalid("no-action", f"no {self.format.tool_key!r} in the call"))
        args = obj.get(self.format.args_key, {})
        return Step(thought=think_text(completion[: m.start()]) or completion[: m.start()].strip(),
                    action=_action(obj[self.format.tool_key], args, raw))


@register_parser("classic-tool-call", "the first <tool_call>...</tool_call> anywhere in the text")
def _classic_tool_call(fmt: Format) -> Parser:
    return ClassicToolCallParser(fmt)


@dataclass(frozen=True)
class ClassicFunctionTagParser:
    """``<function=(\\w+)>(.*?)</function>`` without DOTALL, anywhere; else the text answers."""

    format: Format
    name: str = "classic-function-tag"

    def parse(self, completion: str) -> Step:
        """Search the one-line tag anywhere; no match or bad JSON and the text is the answer."""
        tag = regex.escape(self.format.tag)
        pattern = regex.compile(rf"<{tag}=(\w+)>(.*?)</{tag}>")
        try:
            m = pattern.search(completion, timeout=DEFAULT_TIMEOUT)
        except TimeoutError:
            return timeout_step(self.name)
        answer = Step(thought=think_text(completion), answer=after_think(completion))
        if m is None:
            return answer
        raw = m.group(2)
        try:
            args = json.loads(raw)
        except ValueError:
            return answer
        return Step(thought=think_text(completion[: m.start()]),
                    action=_action(m.group(1), args, raw))


@register_parser("classic-function-tag", "<function=(\\w+)>(.*?)</function> anywhere, no DOTALL")
def _classic_function_tag(fmt: Format) -> Parser:
    return ClassicFunctionTagParser(fmt)


# ------------------------------------------------------------------ sections


@dataclass(frozen=True)
class ClassicDspyReactParser:
    """Split on ``[[ ## field ## ]]`` headers found anywhere; the first copy of a field wins."""

    format: Format
    name: str = "classic-dspy-react"

    def parse(self, completion: str) -> Step:
        """``re.split`` on the header pattern, keep each field's first value."""
        header = regex.compile(r"\[\[ ## (\w+) ## \]\]")
        try:
            parts = header.split(completion, timeout=DEFAULT_TIMEOUT)
        except TimeoutError:
            return timeout_step(self.name)
        fields: dict[str, str] = {}
        for key, value in zip(parts[1::2], parts[2::2]):
            fields.setdefault(key, value.strip())
        labels = self.format.labels
        wanted = (labels.thought, labels.action, labels.action_input or "")
        missing = [f for f in wanted if f not in fields]
        if missing:
            return Step(invalid=Invalid("missing-field", f"missing field(s): {', '.join(missing)}"))
        thought, tool, raw = (fields[f] for f in wanted)
        if self.format.finish_action is not None and tool == self.format.finish_action:
            return Step(thought=thought, answer=thought)
        try:
            args = json.loads(raw)
        except ValueError as e:
            return _bad_json(self.name, e)
        return Step(thought=thought, action=_action(tool, args, raw))


@register_parser("classic-dspy-react", "split on [[ ## field ## ]] found anywhere; first copy wins")
def _classic_dspy_react(fmt: Format) -> Parser:
    return ClassicDspyReactParser(fmt)


# ------------------------------------------------------------------ bare JSON


@dataclass(frozen=True)
class ClassicJsonBareParser:
    """``json.loads`` of the whole text; if that fails the text is the answer."""

    format: Format
    name: str = "classic-json-bare"

    def parse(self, completion: str) -> Step:
        """A JSON object with a name is a call; anything that does not decode is the answer."""
        try:
            obj = json.loads(completion)
        except ValueError:
            return Step(answer=completion.strip())
        if not isinstance(obj, dict):
            return Step(answer=completion.strip())
        tool = obj.get(self.format.tool_key)
        if not isinstance(tool, str):
            return Step(invalid=Invalid("no-action", f"no {self.format.tool_key!r} in the JSON"))
        return Step(action=_action(tool, obj.get(self.format.args_key, {}), completion.strip()))


@register_parser("classic-json-bare", "json.loads of the whole text, else the text is the answer")
def _classic_json_bare(fmt: Format) -> Parser:
    return ClassicJsonBareParser(fmt)
