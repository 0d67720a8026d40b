"""The ``json_blob`` family: one JSON object naming the tool and its arguments.

``Action: {"name": "search", "arguments": {"query": "x"}}``, the shape of smolagents'
tool-calling text and of the JSON-blob chat agents (``{"action": ..., "action_input":
...}`` in a ```` ```json ```` fence). The format's data says which keys name the tool
and its arguments (``Format.tool_key``, ``Format.args_key``), which code fence stands
around the blob (``Format.fence``), and how the final answer is written: an answer label
(``Final Answer: text``), or the blob of a reserved tool name (``Format.finish_action``)
whose argument ``Format.answer_key`` holds the answer (``answer_key = None``: the
arguments value itself is the answer string).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from lark import Tree

from ..fixes import JSON_FIELD
from ..model import Action, Call, FinalAnswer, Invalid, Step
from .family import Family, Representability, caret_context, register_family
from .json_blocks import (
    JSON_DELIMITERS,
    call_object,
    decode_object,
    fence_problem,
    fenced,
    json_value_text,
)

if TYPE_CHECKING:
    from .spec import Format

__all__ = ["JSON_BLOB", "JsonBlobFamily"]


class JsonBlobFamily(Family):
    """One JSON object of a tool name and its named arguments after the action label."""

    name = "json_blob"
    syntax = "json-blob"
    arguments = "json"
    needs_labels: ClassVar[Mapping[str, str]] = {}
    format_fields: ClassVar[tuple[str, ...]] = (
        "fence", "fence_optional", "tool_key", "args_key", "answer_key",
    )
    grammar_file = "json_blob.lark"
    advice = JSON_FIELD
    classic: ClassVar[Mapping[str, str]] = {
        "json-blob": "JSON sliced from the first '{' to the last '}' of the text",
        "json-blob-fenced": "the first code fence anywhere is the action",
    }
    rules = ("completion", "transcript", "action", "object", "fenced_object")
    terminals = ("FENCE_OPEN",)
    action_shape = 'one JSON object {"name": tool, "arguments": {...}}'
    delimiters = JSON_DELIMITERS
    open, close, separator, quote = "{", "}", ",", '"'
    named_args = True
    json_arguments = True

    # ---- writer

    def _blob(self, fmt: Format, tool: str, args: Any, step: int) -> list[str]:
        blob = json_value_text({fmt.tool_key: tool, fmt.args_key: args})
        lines = fenced(blob, fmt)
        label = fmt.label("action", step)
        if len(lines) == 1:
            return [f"{label} {blob}"]
        return [label, *lines]

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        return self._blob(fmt, call.tool, call_object(call), step)

    def write_answer(self, answer: FinalAnswer, fmt: Format, *, step: int = 1) -> list[str]:
        """The answer label if the format has one, else the finish action's blob."""
        if fmt.labels.answer is not None or fmt.finish_action is None:
            return super().write_answer(answer, fmt, step=step)
        args: Any = answer.text if fmt.answer_key is None else {fmt.answer_key: answer.text}
        return self._blob(fmt, fmt.finish_action, args, step)

    def answer_representable(self, answer: FinalAnswer, fmt: Format) -> Representability:
        """A JSON string carries any answer exactly; an answer label trims it."""
        if fmt.labels.answer is None:
            return Representability(True)
        return super().answer_representable(answer, fmt)

    def tool_name_ok(self, tool: str) -> bool:
        """Any non-empty name: a JSON string carries it exactly."""
        return bool(tool)

    def call_representable(self, call: Call, fmt: Format, *, quote: bool = False
                           ) -> Representability:
        if fmt.finish_action is not None and call.tool == fmt.finish_action:
            return Representability(False, f"{call.tool!r} is the format's answer action")
        if call.names is None and call.args:
            return Representability(
                False, f"{fmt.name} names every argument; the call is positional"
            )
        if call.names is not None and len(set(call.names)) != len(call.names):
            return Representability(False, "an argument name is given twice")
        return Representability(True)

    def written_call(self, call: Call, fmt: Format) -> Call:
        obj = call_object(call)
        return Call(call.tool, tuple(obj.values()), tuple(obj))

    def written_value(self, value: str) -> str:
        return json_value_text(value)

    # ---- grammar reading

    def grammar_overrides(self, fmt: Format) -> tuple[str, ...]:
        """Without an answer label, a completion ends in an action (the answer is one)."""
        if fmt.labels.answer is not None:
            return ()
        return ("%override completion: _EOL* preamble? thought* action",
                "%override final: action")

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        bad = fence_problem(node, text, fmt)
        if bad is not None:
            return Step(thought=thought, invalid=bad)
        obj = next(c for c in node.children
                   if isinstance(c, Tree) and c.data in ("object", "fenced_object"))
        blob, bad = decode_object(obj, text, "key")
        if bad is not None or blob is None:
            return Step(thought=thought, invalid=bad)

        def refuse(message: str) -> Step:
            line, column = obj.meta.line, obj.meta.column
            return Step(thought=thought, invalid=Invalid(
                "malformed-action", message, line, column,
                (repr(fmt.tool_key), repr(fmt.args_key)), caret_context(text, line, column),
            ))

        tool = blob.get(fmt.tool_key)
        if not isinstance(tool, str) or not tool:
            return refuse(f"the JSON object has no tool name under {fmt.tool_key!r}")
        if fmt.args_key not in blob:
            return refuse(f"the JSON object has no arguments under {fmt.args_key!r}")
        others = sorted(set(blob) - {fmt.tool_key, fmt.args_key})
        if others:
            return refuse(f"unexpected key {others[0]!r} in the JSON object (the"
                          f" {fmt.name} format writes {fmt.tool_key!r} and {fmt.args_key!r})")
        args = blob[fmt.args_key]
        if fmt.finish_action is not None and tool == fmt.finish_action:
            return self._answer(args, fmt, thought, refuse)
        if not isinstance(args, dict):
            return refuse(f"the arguments under {fmt.args_key!r} are not a JSON object")
        return Step(thought=thought, action=Action(
            tool, json_value_text(args), tuple(args.values()), tuple(args)))

    def _answer(self, args: Any, fmt: Format, thought: str,
                refuse: Callable[[str], Step]) -> Step:
        """The Step of the finish action's blob: the answer text, or why it is refused."""
        if fmt.answer_key is None:
            if not isinstance(args, str):
                return refuse(f"the answer under {fmt.args_key!r} is not a JSON string")
            return Step(thought=thought, answer=args)
        if (not isinstance(args, dict) or set(args) != {fmt.answer_key}
                or not isinstance(args[fmt.answer_key], str)):
            want = json.dumps({fmt.answer_key: "..."})
            return refuse(f"the {fmt.finish_action!r} arguments are not {want}")
        return Step(thought=thought, answer=args[fmt.answer_key])


JSON_BLOB = register_family(JsonBlobFamily())
