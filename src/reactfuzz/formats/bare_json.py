"""The ``bare_json`` family: the whole completion is one JSON object naming a tool.

``{"name": "search", "parameters": {"query": "x"}}`` and nothing else: no thought, no
label, no fence. The shape of swarms' JSON tool runner (``parse_and_execute_json`` decodes
the stripped completion with ``json.loads``) and of Llama-style JSON tool calls. Which
keys name the tool and its arguments is the format's data (``Format.tool_key``,
``Format.args_key``). A final answer is a completion that is not a JSON object: plain
text, none of whose lines starts with ``{`` or ``[`` and which does not decode as JSON
(what a JSON tool runner refuses to decode is text for the conversation).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from lark import Token, Tree

from ..fixes import STRICT_JSON
from ..model import (
    Action,
    Call,
    DuplicateKeyError,
    FinalAnswer,
    Intent,
    Invalid,
    Step,
    no_duplicate_keys,
)
from .family import Family, Representability, caret_context, register_family
from .json_args import JsonArgsFamily
from .json_blocks import JSON_DELIMITERS, call_object, json_value_text

if TYPE_CHECKING:
    from .spec import Format

__all__ = ["BARE_JSON", "BareJsonFamily"]


class BareJsonFamily(Family):
    """One JSON object and nothing else; anything that is not JSON is the final answer."""

    name = "bare_json"
    syntax = "bare-json"
    arguments = "json"
    format_fields: ClassVar[tuple[str, ...]] = ("tool_key", "args_key")
    grammar_file = "bare_json.lark"
    advice = STRICT_JSON
    classic: ClassVar[Mapping[str, str]] = {
        "json-bare": "json.loads of the whole text, else the text is the answer",
    }
    rules = ("completion", "transcript", "action", "answer")
    terminals = ("OBJ_OPEN",)
    action_shape = 'one JSON object {"name": tool, "parameters": {...}}'
    bare_answer = True
    leading_thought = False  # text before the object makes it no JSON
    open, close, separator, quote = "{", "}", ",", '"'
    named_args = True
    json_arguments = True
    delimiters = tuple(d for d in JSON_DELIMITERS if d != "```")

    def check_format(self, fmt: Format) -> str | None:
        if fmt.labels.answer is not None or fmt.finish_action is not None:
            return ("the bare-json family writes a final answer as plain text, with no answer"
                    " label or finish action: start from base = 'json-bare'")
        return None

    # ---- writer

    def write_thought(self, text: str, fmt: Format, *, step: int = 1) -> list[str]:
        """No thought: any text around the object would make it invalid JSON."""
        return []

    def write_turn(self, intent: Intent, fmt: Format, *, thought: str | None = None,
                   step: int = 1, quote: bool = False) -> list[str]:
        return self.write(intent, fmt, step=step, quote=quote)

    def write_answer(self, answer: FinalAnswer, fmt: Format, *, step: int = 1) -> list[str]:
        return [answer.text]

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        return [json_value_text({fmt.tool_key: call.tool, fmt.args_key: call_object(call)})]

    def tool_name_ok(self, tool: str) -> bool:
        """Any non-empty name: a JSON string carries it exactly."""
        return bool(tool)

    def answer_representable(self, answer: FinalAnswer, fmt: Format) -> Representability:
        """Plain text that is not JSON: trimmed, no line opening a JSON value or a label."""
        text = answer.text
        if text != text.strip() or text == "":
            return Representability(False, "an answer with outer whitespace or empty is trimmed")
        if any(line != line.rstrip() for line in text.split("\n")) or "\r" in text:
            return Representability(False, "trailing spaces or a carriage return in an answer")
        starts = ("{", "[", f"{fmt.labels.observation}:", *(f"{h}:" for h in fmt.labels.headers))
        if any(line.lstrip(" \t").startswith(starts) for line in text.split("\n")):
            return Representability(False, "a line of the answer opens a JSON value or a label")
        try:
            json.loads(text)
        except ValueError:
            return Representability(True)
        return Representability(False, "the answer is itself JSON (a JSON reader decodes it)")

    call_representable = JsonArgsFamily.call_representable
    written_call = JsonArgsFamily.written_call
    written_value = JsonArgsFamily.written_value

    # ---- grammar reading

    def grammar_overrides(self, fmt: Format) -> tuple[str, ...]:
        """Answer text lines open no JSON value and start no label (from the format's data)."""
        labels = "|".join(re.escape(f"{w}:") for w in (fmt.labels.observation,
                                                       *fmt.labels.headers))
        cont = rf"(?![ \t]*[\[{{]|{labels})[^\n]+".replace("/", "\\/")
        return (f"%override CONT: /{cont}/",)

    def read_answer(self, node: Tree, text: str, fmt: Format) -> str:
        raw = text[node.meta.start_pos : node.meta.end_pos]
        return "\n".join(line.rstrip() for line in raw.split("\n")).strip()

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        opener = node.children[0]
        assert isinstance(opener, Token)
        assert opener.end_pos is not None
        start = opener.end_pos - 1  # the '{' (spaces before it are part of the token)
        line, column = opener.line or 1, (opener.end_column or 2) - 1
        try:
            blob, _ = json.JSONDecoder(object_pairs_hook=no_duplicate_keys).raw_decode(
                text, start)
        except DuplicateKeyError as e:
            return Step(thought=thought, invalid=Invalid(
                "duplicate-arg", f"key {e.key!r} is given twice in the JSON object",
                line, column, (), caret_context(text, line, column)))

        def refuse(message: str) -> Step:
            return Step(thought=thought, invalid=Invalid(
                "malformed-action", message, line, column,
                (repr(fmt.tool_key), repr(fmt.args_key)), caret_context(text, line, column)))

        tool = blob.get(fmt.tool_key)
        if not isinstance(tool, str) or not tool:
            return refuse(f"the JSON object has no tool name under {fmt.tool_key!r}")
        others = sorted(set(blob) - {fmt.tool_key, fmt.args_key})
        if others:
            return refuse(f"unexpected key {others[0]!r} in the JSON object (the {fmt.name}"
                          f" format writes {fmt.tool_key!r} and {fmt.args_key!r})")
        args = blob.get(fmt.args_key)
        if not isinstance(args, dict):
            return refuse(f"the arguments under {fmt.args_key!r} are not a JSON object")
        return Step(thought=thought, action=Action(
            tool, json_value_text(args), tuple(args.values()), tuple(args)))

    # ---- operator data

    def args_start(self, text: str, fmt: Format) -> int:
        """Where the arguments object starts (after the arguments key)."""
        key = text.find(json.dumps(fmt.args_key))
        return text.find("{", key if key >= 0 else 1)

    def action_line_end(self, text: str, fmt: Format) -> int:
        return len(text)


BARE_JSON = register_family(BareJsonFamily())
