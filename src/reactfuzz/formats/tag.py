"""The ``tag`` family: a call in a tag, ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``.

The Hermes/Nous function-calling text protocol (Qwen's default, camel-ai's ShareGPT
reader) and its attribute variant ``<function=NAME>{...}</function>`` (camel-ai's tool
prompt), chosen by ``Format.tag_style``. A thought is free text before the tag, or a
``<think>...</think>`` block; a completion with no tag is the final answer, all of its
text after an optional think block. The tag names and JSON keys are the format's data
(``tag``, ``think_tag``, ``tool_key``, ``args_key``), and so is where the writer puts a
thought (``think``: a think block before calls only, by default; before answers too; or
free text before a call).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from lark import Token, Tree

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
from ..model import to_jsonable as _jsonable
from .family import Family, Representability, caret_context, register_family
from .json_args import JsonArgsFamily

if TYPE_CHECKING:
    from .spec import Format

__all__ = ["TAG", "TagFamily"]


class TagFamily(Family):
    """One tagged JSON call at a line start after optional thought text; no tag: the answer."""

    name = "tag"
    syntax = "tag"
    arguments = "json"
    grammar_file = "tag.lark"
    advice = ("Read only the first complete tag after the thought, decode its body with"
              " `json.loads`, and refuse tags inside a think block or prose.")
    classic: ClassVar[Mapping[str, str]] = {
        "tool-call": "the first <tool_call> tag anywhere runs, think block and prose too",
        "function-tag": "one-line <function=...> regex anywhere; no match: the text answers",
    }
    rules = ("completion", "transcript", "action", "answer", "object")
    terminals: tuple[str, ...] = ("OPEN", "CLOSE")
    action_shape = '<tool_call>{"name": ..., "arguments": {...}}</tool_call>'
    bare_answer = True
    format_fields: ClassVar[tuple[str, ...]] = ("tool_key", "args_key", "think")
    open, close, separator, quote = "{", "}", ",", '"'
    named_args = True
    json_arguments = True
    # the JSON arguments sit inside the tag; '<' starts a closing tag a splitter may cut at
    delimiters: tuple[str, ...] = ('"', "\\", "}", "{", ",", ":", "<")

    def check_format(self, fmt: Format) -> str | None:
        if fmt.labels.answer is not None or fmt.finish_action is not None:
            return ("the tag family writes a final answer as plain text, with no answer label"
                    " or finish action: start from base = 'tool-call' or 'function-tag'")
        return None

    # ---- writer

    def open_tag(self, fmt: Format, tool: str) -> str:
        """The opening tag of a call of ``tool``."""
        return f"<{fmt.tag}={tool}>" if fmt.tag_style == "attribute" else f"<{fmt.tag}>"

    def writes_thought(self, intent: Intent, fmt: Format) -> bool:
        """A thought before an answer only where the format keeps a think block there."""
        return fmt.think == "always" or not isinstance(intent, FinalAnswer)

    def write_thought(self, text: str, fmt: Format, *, step: int = 1) -> list[str]:
        """A ``<think>`` block, or (``think = "never"``) the thought as free text."""
        if fmt.think == "never":
            return [text]
        return [f"<{fmt.think_tag}>", text, f"</{fmt.think_tag}>"]

    def write_answer(self, answer: FinalAnswer, fmt: Format, *, step: int = 1) -> list[str]:
        return [answer.text]

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        if call.names is not None:
            args = dict(zip(call.names, (_jsonable(a) for a in call.args)))
        else:
            args = {f"arg{i}": _jsonable(a) for i, a in enumerate(call.args)}
        if fmt.tag_style == "attribute":
            # camel-ai's prompt writes the whole call on one line
            return [f"{self.open_tag(fmt, call.tool)}{json.dumps(args, ensure_ascii=False)}"
                    f"</{fmt.tag}>"]
        blob = {fmt.tool_key: call.tool, fmt.args_key: args}
        return [f"<{fmt.tag}>", json.dumps(blob, ensure_ascii=False), f"</{fmt.tag}>"]

    def answer_representable(self, answer: FinalAnswer, fmt: Format) -> Representability:
        """The answer is all the text: trimmed, and no line may open a tag or start a label."""
        text = answer.text
        if text != text.strip() or text == "":
            return Representability(False, "an answer with outer whitespace or empty is trimmed")
        if any(line != line.rstrip() for line in text.split("\n")):
            return Representability(False, "trailing spaces inside an answer")
        if self._line_starts(fmt)[0] in text:
            # the call tag is a reserved token (a special token in Qwen's and Hermes' chat
            # templates): readers find it anywhere, and no quoting exists for it
            return Representability(False, "the answer holds the call tag, which the"
                                           " protocol reserves for calls")
        starts = self._line_starts(fmt)
        if any(line.startswith(starts) for line in text.split("\n")):
            return Representability(False, "a line of the answer opens a tag or starts a label")
        if "\r" in text:
            return Representability(False, "a carriage return inside an answer")
        return Representability(True)

    def _line_starts(self, fmt: Format) -> tuple[str, ...]:
        """What a text line may not start with: the tags and the transcript's labels."""
        opener = f"<{fmt.tag}=" if fmt.tag_style == "attribute" else f"<{fmt.tag}>"
        return (opener, f"<{fmt.think_tag}>", f"{fmt.labels.observation}:",
                *(f"{h}:" for h in fmt.labels.headers))

    # named JSON arguments are carried as json-args carries them
    call_representable = JsonArgsFamily.call_representable
    written_call = JsonArgsFamily.written_call
    written_value = JsonArgsFamily.written_value

    # ---- grammar reading

    def grammar_overrides(self, fmt: Format) -> tuple[str, ...]:
        """The tag terminals, and text lines that open no tag, from the format's data."""
        think = re.escape(fmt.think_tag)
        opener = (rf"<{re.escape(fmt.tag)}=\w+>" if fmt.tag_style == "attribute"
                  else f"<{re.escape(fmt.tag)}>")
        labels = "|".join(re.escape(s) for s in self._line_starts(fmt)[2:])
        terminals = {
            "OPEN.3": opener,
            "CLOSE.3": f"</{re.escape(fmt.tag)}>",
            "THINK.3": rf"<{think}>(?:(?!</{think}>)[\s\S])*</{think}>[ \t]*",
            "CONT": rf"(?!{opener}|<{think}>|{labels})[^\n]+",
        }
        return tuple(f"%override {name}: /{source.replace('/', chr(92) + '/')}/"
                     for name, source in terminals.items())

    def read_answer(self, node: Tree, text: str, fmt: Format) -> str:
        raw = text[node.meta.start_pos : node.meta.end_pos]
        return "\n".join(line.rstrip() for line in raw.split("\n")).strip()

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        opener = next(c for c in node.children if isinstance(c, Token) and c.type == "OPEN")
        obj = next(c for c in node.children if isinstance(c, Tree) and c.data == "object")
        raw = text[obj.meta.start_pos : obj.meta.end_pos]
        line, column = obj.meta.line, obj.meta.column

        def refuse(code: str, why: str) -> Step:
            return Step(thought=thought, invalid=Invalid(
                code, why, line, column, (), caret_context(text, line, column)))

        try:
            decoded = json.loads(raw, object_pairs_hook=no_duplicate_keys)
        except DuplicateKeyError as e:
            return refuse("duplicate-arg", f"key {e.key!r} is given twice in the JSON object")
        if fmt.tag_style == "attribute":
            tool = opener.value[len(fmt.tag) + 2 : -1]
            args = decoded
        else:
            keys = {fmt.tool_key, fmt.args_key}
            extra = sorted(set(decoded) - keys)
            if extra:
                return refuse("malformed-action", f"unexpected key {extra[0]!r} in the call"
                              f" (expected {fmt.tool_key!r} and {fmt.args_key!r})")
            tool = decoded.get(fmt.tool_key)
            if not isinstance(tool, str):
                return refuse("malformed-action", f"the call has no string {fmt.tool_key!r}")
            args = decoded.get(fmt.args_key)
            if not isinstance(args, dict):
                return refuse("malformed-action",
                              f"the call's {fmt.args_key!r} is not a JSON object")
            raw = json.dumps(args, ensure_ascii=False)
        return Step(thought=thought, action=Action(tool, raw, tuple(args.values()), tuple(args)))

    # ---- operator data

    def args_start(self, text: str, fmt: Format) -> int:
        """Where the arguments object starts (inside the tag, after the name key)."""
        at = self._open_at(text, fmt)
        if fmt.tag_style == "attribute":
            return text.find("{", at)
        key = text.find(json.dumps(fmt.args_key), at)
        return text.find("{", key if key >= 0 else at)

    def action_line_end(self, text: str, fmt: Format) -> int:
        """Right after the closing tag (text trailing the call goes there)."""
        close = f"</{fmt.tag}>"
        at = text.find(close, self._open_at(text, fmt))
        return len(text) if at < 0 else at + len(close)

    def _open_at(self, text: str, fmt: Format) -> int:
        opener = f"<{fmt.tag}=" if fmt.tag_style == "attribute" else f"<{fmt.tag}>"
        at = text.find("\n" + opener)
        return 0 if text.startswith(opener) or at < 0 else at + 1

    # ---- the transcript

    def kept_text(self, completion: str, fmt: Format, *, acted: bool) -> str:
        """Once a call ran, the client keeps the message text before the first tag and
        rebuilds the call from what it parsed: text after the tag is never shown nor fed
        back. An answer is the whole message."""
        opener = f"<{fmt.tag}=" if fmt.tag_style == "attribute" else f"<{fmt.tag}>"
        at = completion.find(opener) if acted else -1
        return completion if at < 0 else completion[:at]


TAG = register_family(TagFamily())
