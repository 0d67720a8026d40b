"""The ``action_input`` family: ``Action: tool`` then ``Action Input: text`` (MRKL style)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from lark import Token, Tree

from ..fixes import ANCHOR
from ..model import Action, Call, Step
from .family import (
    Family,
    Representability,
    encode_text,
    label_free,
    register_family,
    rest_text,
)

if TYPE_CHECKING:
    from .spec import Format

__all__ = ["ACTION_INPUT", "ActionInputFamily"]


class ActionInputFamily(Family):
    """The tool name is the rest of the action line; the input runs to the end, trimmed."""

    name = "action_input"
    syntax = "action-input"
    arguments = "single"
    needs_labels: ClassVar[Mapping[str, str]] = {"action_input": "Action Input"}
    grammar_file = "action_input.lark"
    advice = ANCHOR
    rules = ("completion", "transcript", "action", "answer", "action_input")
    terminals = ("TEXT",)
    action_shape = "a tool name"
    delimiters = ("\n", ",", '"')
    input_role = "action_input"
    max_args = 1

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        arg = ", ".join(encode_text(a) for a in call.args)
        return [f"{fmt.label('action', step)} {call.tool}",
                f"{fmt.label('action_input', step)} {arg}"]

    def tool_name_ok(self, tool: str) -> bool:
        """Any one-line name without outer spaces (the whole rest of the line is the name)."""
        return super().tool_name_ok(tool) or bool(
            tool == tool.strip() and tool and "\n" not in tool
        )

    def call_representable(self, call: Call, fmt: Format, *, quote: bool = False
                           ) -> Representability:
        if len(call.args) != 1:
            return Representability(False, f"{fmt.name} actions carry exactly one argument")
        v = encode_text(call.args[0])
        if v == "" or v != v.strip():
            return Representability(False, "an input that is empty or has outer spaces is trimmed")
        if not label_free(v, fmt) or "\n\n" in v or any(x != x.rstrip() for x in v.split("\n")):
            return Representability(False, "a line of the input starts with a label or is blank")
        return Representability(True)

    def written_call(self, call: Call, fmt: Format) -> Call:
        return Call(call.tool.strip(), tuple(encode_text(a) for a in call.args))

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        name_tok = next(c for c in node.children if isinstance(c, Token) and c.type == "TEXT")
        inp = next(c for c in node.children if isinstance(c, Tree) and c.data == "action_input")
        value = rest_text(inp, text)
        return Step(thought=thought,
                    action=Action(name_tok.value.strip(), value, (value,) if value else ()))


ACTION_INPUT = register_family(ActionInputFamily())
