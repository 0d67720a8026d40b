"""The ``bracket`` family: ``Action: name[a, b]``, comma-separated, JSON-string quoting."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from lark import Token, Tree

from ..fixes import QUOTE
from ..model import Action, Call, Step
from .family import Family, Representability, encode_text, register_family

if TYPE_CHECKING:
    from .spec import Format

__all__ = ["BRACKET", "BracketFamily", "needs_quotes", "read_quoted"]

_BARE_BAD = re.compile(r'[,\[\]\n"]')


def read_quoted(token: str) -> str:
    """The argument a ``QUOTED`` token of the grammar (a JSON string, spaces or tabs around
    it) stands for: always a string, its escapes decoded as JSON decodes them. The grammar
    reader and the fast path both read quoted arguments with it."""
    value = json.loads(token.strip(" \t"))
    assert isinstance(value, str)
    return value


def needs_quotes(v: str) -> bool:
    """Whether a bracket argument must be written as a JSON string to read back as ``v``."""
    return (
        v == ""
        or v != v.strip()
        or _BARE_BAD.search(v) is not None
        or v.lstrip().startswith('"')
    )


class BracketFamily(Family):
    """``name[arg1, arg2]`` on the action line; arguments split on commas and trimmed."""

    name = "bracket"
    syntax = "bracket"
    arguments = "comma"
    grammar_file = "bracket.lark"
    advice = QUOTE
    rules = ("completion", "transcript", "action", "answer", "arg")
    terminals = ("TOOL", "LSQB", "RSQB", "BARE", "QUOTED")
    action_shape = "name[arg1, arg2]"
    fast_path = True
    delimiters = (",", "]", "[", '"', "\\")
    open, close, separator, quote = "[", "]", ",", '"'

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        vals = [encode_text(a) for a in call.args]
        if quote:
            vals = [json.dumps(v, ensure_ascii=False) if needs_quotes(v) else v for v in vals]
        return [f"{fmt.label('action', step)} {call.tool}[{', '.join(vals)}]"]

    def call_representable(self, call: Call, fmt: Format, *, quote: bool = False
                           ) -> Representability:
        for i, a in enumerate(call.args):
            v = encode_text(a)
            if "\n" in v and not quote:
                return Representability(False, f"argument {i + 1} holds a line break")
            if not quote and needs_quotes(v):
                return Representability(
                    False,
                    f"argument {i + 1} ({v!r}) holds a delimiter, a quote or outer spaces;"
                    " it would need quoting",
                )
        return Representability(True)

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        tool = lsqb = rsqb = None
        args: list[str] = []
        quoted_any = False
        for ch in node.children:
            if isinstance(ch, Token):
                if ch.type == "TOOL":
                    tool = ch.value
                elif ch.type == "LSQB":
                    lsqb = ch
                elif ch.type == "RSQB":
                    rsqb = ch
            elif isinstance(ch, Tree) and ch.data == "arg":
                if not ch.children:
                    args.append("")
                    continue
                tok = ch.children[0]
                assert isinstance(tok, Token)
                if tok.type == "QUOTED":
                    quoted_any = True
                    args.append(read_quoted(tok.value))
                else:
                    args.append(tok.value.strip())
        assert tool is not None and lsqb is not None and rsqb is not None
        raw = text[lsqb.end_pos : rsqb.start_pos]
        if len(args) == 1 and args[0] == "" and not quoted_any:
            args = []
        return Step(thought=thought, action=Action(tool, raw, tuple(args)))


BRACKET = register_family(BracketFamily())
