"""The ``action_input_json`` family: ``Action: tool`` then ``Action Input: {"arg": value}``.

The protocol of qwen-agent's ReAct chat and of lagent: the tool name is the rest of the
action line, the input is one JSON object of named arguments (on the input line or the
next ones, spanning lines as it likes), optionally in a ``` code fence (``Format.fence``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from lark import Token, Tree

from ..fixes import JSON_FIELD
from ..model import Action, Call, Step
from .family import Family, Representability, register_family
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

__all__ = ["ACTION_INPUT_JSON", "ActionInputJsonFamily"]


class ActionInputJsonFamily(Family):
    """The tool name is the rest of the action line; the input line holds one JSON object."""

    name = "action_input_json"
    syntax = "action-input"
    arguments = "json"
    needs_labels: ClassVar[Mapping[str, str]] = {"action_input": "Action Input"}
    format_fields: ClassVar[tuple[str, ...]] = ("fence", "fence_optional")
    grammar_file = "action_input_json.lark"
    advice = JSON_FIELD
    classic: ClassVar[Mapping[str, str]] = {
        "action-input-json": "'Final Answer:' anywhere wins, the input greedy to the end",
    }
    rules = ("completion", "transcript", "action", "answer", "action_input", "object",
             "fenced_object")
    terminals = ("TEXT", "FENCE_OPEN")
    action_shape = 'a tool name, then an input line holding {"arg": value}'
    delimiters = JSON_DELIMITERS
    open, close, separator, quote = "{", "}", ",", '"'
    input_role = "action_input"
    named_args = True
    json_arguments = True

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        blob = json_value_text(call_object(call))
        label = fmt.label("action_input", step)
        lines = fenced(blob, fmt)
        if len(lines) == 1:
            return [f"{fmt.label('action', step)} {call.tool}", f"{label} {blob}"]
        return [f"{fmt.label('action', step)} {call.tool}", label, *lines]

    def tool_name_ok(self, tool: str) -> bool:
        """Any one-line name without outer spaces (the whole rest of the line is the name)."""
        return bool(tool) and tool == tool.strip() and "\n" not in tool

    def call_representable(self, call: Call, fmt: Format, *, quote: bool = False
                           ) -> Representability:
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

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        name_tok = next(c for c in node.children if isinstance(c, Token) and c.type == "TEXT")
        inp = next(c for c in node.children if isinstance(c, Tree) and c.data == "action_input")
        bad = fence_problem(inp, text, fmt)
        if bad is not None:
            return Step(thought=thought, invalid=bad)
        obj = next(c for c in inp.children
                   if isinstance(c, Tree) and c.data in ("object", "fenced_object"))
        decoded, bad = decode_object(obj, text, "argument")
        if bad is not None or decoded is None:
            return Step(thought=thought, invalid=bad)
        raw = text[obj.meta.start_pos : obj.meta.end_pos]
        return Step(thought=thought, action=Action(
            name_tok.value.strip(), raw, tuple(decoded.values()), tuple(decoded)))


ACTION_INPUT_JSON = register_family(ActionInputJsonFamily())
