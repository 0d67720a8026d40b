"""The ``json_args`` family: ``Action: name {"arg": value}``, named arguments as JSON."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lark import Token, Tree

from ..fixes import JSON_FIELD
from ..model import (
    Action,
    Call,
    DuplicateKeyError,
    Invalid,
    Step,
    no_duplicate_keys,
    to_jsonable,
)
from .family import Family, Representability, caret_context, register_family

if TYPE_CHECKING:
    from .spec import Format

__all__ = ["JSON_ARGS", "JsonArgsFamily"]


class JsonArgsFamily(Family):
    """One JSON object of named arguments after the tool name; a duplicate key is refused."""

    name = "json_args"
    syntax = "json-args"
    arguments = "json"
    grammar_file = "json_args.lark"
    advice = JSON_FIELD
    rules = ("completion", "transcript", "action", "answer", "object")
    terminals = ("NAME",)
    action_shape = 'name {"arg": value}'
    delimiters = ('"', "\\", "}", "{", ",", ":")
    open, close, separator, quote = "{", "}", ",", '"'
    named_args = True
    json_arguments = True

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        if call.names is not None:
            obj = dict(zip(call.names, (to_jsonable(a) for a in call.args)))
        else:
            obj = {f"arg{i}": to_jsonable(a) for i, a in enumerate(call.args)}
        blob = json.dumps(obj, ensure_ascii=False)
        return [f"{fmt.label('action', step)} {call.tool} {blob}"]

    def call_representable(self, call: Call, fmt: Format, *, quote: bool = False
                           ) -> Representability:
        if call.names is None and call.args:
            return Representability(
                False, "json-args names every argument; the call is positional"
            )
        if call.names is not None and len(set(call.names)) != len(call.names):
            return Representability(False, "an argument name is given twice")
        return Representability(True)

    def written_call(self, call: Call, fmt: Format) -> Call:
        names = call.names if call.names is not None else tuple(
            f"arg{i}" for i in range(len(call.args))
        )
        return Call(call.tool, tuple(to_jsonable(a) for a in call.args), names)

    def written_value(self, value: str) -> str:
        return json.dumps(value, ensure_ascii=False)

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        name_tok = next(c for c in node.children if isinstance(c, Token) and c.type == "NAME")
        obj = next(c for c in node.children if isinstance(c, Tree) and c.data == "object")
        raw = text[obj.meta.start_pos : obj.meta.end_pos]
        try:
            decoded = json.loads(raw, object_pairs_hook=no_duplicate_keys)
        except DuplicateKeyError as e:
            line = obj.meta.line
            return Step(
                thought=thought,
                invalid=Invalid(
                    "duplicate-arg",
                    f"argument {e.key!r} is given twice in the JSON object",
                    line, obj.meta.column, (), caret_context(text, line, obj.meta.column),
                ),
            )
        return Step(thought=thought,
                    action=Action(name_tok.value, raw, tuple(decoded.values()), tuple(decoded)))


JSON_ARGS = register_family(JsonArgsFamily())
