"""The ``paper`` family: the ReAct paper's ``Tool[argument]``, one argument, ``Finish[...]``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lark import Token, Tree

from ..fixes import ANCHOR
from ..model import Action, Call, Step
from .family import Family, Representability, encode_text, register_family

if TYPE_CHECKING:
    from .spec import Format

__all__ = ["PAPER", "PaperFamily"]

_CALL_RE = re.compile(r"(\w+)\[(.*)\]", re.S)


class PaperFamily(Family):
    """``Tool[argument]``: all text between the first ``[`` and the last ``]``, kept exactly.

    The format's ``finish_action`` (``Finish[answer]``) is read as the final answer.
    """

    name = "paper"
    syntax = "bracket"
    arguments = "single"
    grammar_file = "paper.lark"
    advice = ANCHOR
    rules = ("completion", "transcript", "action")
    terminals = ("CALL",)
    action_shape = "Tool[argument]"
    delimiters = ("]", "[", ",")
    open, close = "[", "]"
    max_args = 1

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        arg = encode_text(call.args[0]) if len(call.args) == 1 else ", ".join(
            encode_text(a) for a in call.args
        )
        return [f"{fmt.label('action', step)} {call.tool}[{arg}]"]

    def call_representable(self, call: Call, fmt: Format, *, quote: bool = False
                           ) -> Representability:
        if len(call.args) != 1:
            return Representability(False, f"{fmt.name} actions carry exactly one argument")
        v = encode_text(call.args[0])
        if "\n" in v:
            return Representability(False, "the argument holds a line break")
        if fmt.finish_action and call.tool.lower() == fmt.finish_action.lower():
            return Representability(False, f"{call.tool} is the format's answer action")
        return Representability(True)

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        call = next(c for c in node.children if isinstance(c, Token) and c.type == "CALL")
        m = _CALL_RE.fullmatch(call.value)
        assert m is not None
        tool, raw = m.group(1), m.group(2)
        if fmt.finish_action and tool.lower() == fmt.finish_action.lower():
            return Step(thought=thought, answer=raw)
        return Step(thought=thought, action=Action(tool, raw, (raw,)))


PAPER = register_family(PaperFamily())
