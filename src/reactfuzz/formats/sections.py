"""The ``sections`` family: every output field under a ``[[ ## field ## ]]`` header line.

The shape of dspy's chat adapter over the ReAct step signature::

    [[ ## next_thought ## ]]
    I should look the invoice up.

    [[ ## next_tool_name ## ]]
    search

    [[ ## next_tool_args ## ]]
    {"query": "INV-2041"}

    [[ ## completed ## ]]

The format's data says everything else: the field names are its label words
(``labels.thought``, ``labels.action``, ``labels.action_input``; ``labels.answer`` for a
format whose answer has a field of its own), the header template is ``Format.section``
(``{}`` stands for the field name), the end marker's field is ``Format.section_end``,
and the tool that ends the loop is ``Format.finish_action``: its step's thought is the
final answer (dspy's ReAct then extracts the answer from the trajectory; the step's own
text is the thought). The ``observation`` and header labels stay ``Label:`` lines: a
transcript's observations are written by the harness, not by the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from lark import Token, Tree

from ..model import Action, Call, FinalAnswer, Intent, Invalid, Step
from .family import Family, Representability, caret_context, register_family
from .json_args import JsonArgsFamily
from .json_blocks import call_object, decode_object

if TYPE_CHECKING:
    from .spec import Format

__all__ = ["SECTIONS", "SectionsFamily", "check_section_fields", "header", "json_text"]

_FIELDS = ("section", "section_end")
_DEFAULTS: dict[str, Any] = {"section": "[[ ## {} ## ]]", "section_end": "completed"}
ODD_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Characters ``str.splitlines()`` ends a line at besides ``\\n``: a reader that splits
lines so sees a new line where the grammar does not."""


def header(fmt: Format, field: str) -> str:
    """The header line of ``field`` in ``fmt`` (``[[ ## next_thought ## ]]``)."""
    return fmt.section.replace("{}", field)


def json_text(value: Any) -> str:
    """A JSON value on one line, the line breaks ``str.splitlines()`` knows escaped."""
    out = json.dumps(value, ensure_ascii=False)
    return "".join(f"\\u{ord(c):04x}" if c in ODD_BREAKS else c for c in out)


def check_section_fields(fmt: Format) -> str | None:
    """Why ``fmt``'s ``section``/``section_end`` keys are wrong (one line), or ``None``."""
    try:
        family = fmt.family
    except ValueError:  # no family reads the pair: the format's own check says so
        return None
    if family.name != SectionsFamily.name:
        for key in _FIELDS:
            if getattr(fmt, key) != _DEFAULTS[key]:
                return (f"{key!r} is read only by the sections family, not by"
                        f" {family.name} (syntax {fmt.syntax!r})")
        return None
    if fmt.section.count("{}") != 1 or "\n" in fmt.section or fmt.section == "{}":
        return (f"section {fmt.section!r} must be one line with one '{{}}' for the field"
                " name and marker text around it (e.g. '[[ ## {} ## ]]')")
    fields = [w for w in (fmt.labels.thought, fmt.labels.action, fmt.labels.action_input,
                          fmt.labels.answer, fmt.section_end) if w]
    if len(set(fields)) != len(fields):
        return f"the sections format's field names must differ: {fields}"
    return None


class SectionsFamily(Family):
    """Output fields under header lines: thought, tool name, JSON arguments, end marker."""

    name = "sections"
    syntax = "sections"
    arguments = "json"
    needs_labels: ClassVar[Mapping[str, str]] = {"action_input": "next_tool_args"}
    grammar_file = "sections.lark"
    advice = ("Split on section markers only at a line start and refuse a field given"
              " twice instead of keeping one copy.")
    classic: ClassVar[Mapping[str, str]] = {
        "dspy-react": "split on [[ ## field ## ]] anywhere, the first copy of a field wins",
    }
    rules = ("completion", "transcript", "action", "object")
    terminals = ("NAME", "S_THOUGHT", "S_ACTION", "S_INPUT", "S_ANSWER", "S_END")
    action_shape = "a tool name section and a JSON object arguments section"
    open, close, separator, quote = "{", "}", ",", '"'
    named_args = True
    json_arguments = True
    delimiters: tuple[str, ...] = ('"', "\\", "}", "{", ",", ":", "[[ ## ")
    leading_thought = False  # every field has its header; no prompt ends in one

    def check_format(self, fmt: Format) -> str | None:
        if fmt.labels.answer is None and fmt.finish_action is None:
            return "the sections family needs labels.answer or finish_action (e.g. 'finish')"
        return None

    def kept_text(self, completion: str, fmt: Format, *, acted: bool) -> str:
        """The client keeps the fields it parsed, not the text: what follows the end
        marker is no output field and is dropped (a repeated field loses to the first),
        and the arguments are kept as decoded JSON, written back escaped, so a line break
        inside an argument starts no line of the next prompt."""
        kept = completion
        if fmt.section_end:
            at = kept.find("\n" + header(fmt, fmt.section_end))
            kept = kept if at < 0 else kept[:at]
        if fmt.labels.action_input:
            args = header(fmt, fmt.labels.action_input)
            start = kept.find(args)
            if start >= 0:
                body = start + len(args)
                nxt = kept.find("\n" + fmt.section.split("{}")[0], body)
                kept = kept[:body] + ("" if nxt < 0 else kept[nxt:])
        return kept

    # ---- writer

    def _end(self, fmt: Format) -> list[str]:
        return ["", header(fmt, fmt.section_end)] if fmt.section_end else []

    def write_thought(self, text: str, fmt: Format, *, step: int = 1) -> list[str]:
        return [header(fmt, fmt.labels.thought), text, ""]

    def write_turn(self, intent: Intent, fmt: Format, *, thought: str | None = None,
                   step: int = 1, quote: bool = False) -> list[str]:
        """An answer that lives in the finish step's thought writes no other thought."""
        if isinstance(intent, FinalAnswer) and fmt.labels.answer is None:
            return self.write_answer(intent, fmt, step=step)
        return super().write_turn(intent, fmt, thought=thought, step=step, quote=quote)

    def write_answer(self, answer: FinalAnswer, fmt: Format, *, step: int = 1) -> list[str]:
        """The answer field, else the finish tool's step with the answer as its thought."""
        if fmt.labels.answer is not None:
            return [header(fmt, fmt.labels.answer), answer.text, *self._end(fmt)]
        # check_format: a format without an answer field has a finish tool
        assert fmt.finish_action is not None
        return [*self.write_thought(answer.text, fmt),
                *self._call_lines(fmt.finish_action, {}, fmt)]

    def _call_lines(self, tool: str, args: Any, fmt: Format) -> list[str]:
        return [header(fmt, fmt.labels.action), tool, "",
                header(fmt, fmt.labels.action_input or ""), json_text(args), *self._end(fmt)]

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        return self._call_lines(call.tool, call_object(call), fmt)

    def answer_representable(self, answer: FinalAnswer, fmt: Format) -> Representability:
        """A field value: trimmed, no blank lines, no line that starts a section or label."""
        text = answer.text
        if text != text.strip() or text == "":
            return Representability(False, "an answer with outer whitespace or empty is trimmed")
        if "\n\n" in text or any(line != line.rstrip() for line in text.split("\n")):
            return Representability(False, "blank lines or trailing spaces inside an answer")
        if any(c in text for c in ODD_BREAKS):
            return Representability(False, "a Unicode line break inside an answer")
        starts = (self._prefix(fmt), f"{fmt.labels.observation}:",
                  *(f"{h}:" for h in fmt.labels.headers))
        if any(line.strip().startswith(starts) for line in text.split("\n")):
            return Representability(False, "a line of the answer starts a section or a label")
        return Representability(True)

    def call_representable(self, call: Call, fmt: Format, *, quote: bool = False
                           ) -> Representability:
        if fmt.finish_action is not None and call.tool == fmt.finish_action:
            return Representability(False, f"{call.tool!r} is the format's finish tool")
        return _JSON_ARGS.call_representable(call, fmt, quote=quote)

    written_call = JsonArgsFamily.written_call

    def written_value(self, value: str) -> str:
        return json_text(value)

    # ---- grammar reading

    def _prefix(self, fmt: Format) -> str:
        """The header text before the field name (what every header line starts with)."""
        return fmt.section.split("{}")[0]

    def grammar_overrides(self, fmt: Format) -> tuple[str, ...]:
        """The header terminals and text lines that start none, from the format's data."""
        labels = fmt.labels
        heads = {"S_THOUGHT.3": labels.thought, "S_ACTION.3": labels.action,
                 "S_INPUT.3": labels.action_input, "S_ANSWER.3": labels.answer,
                 "S_END.3": fmt.section_end}
        lines: list[str] = []
        for term, field in heads.items():
            source = re.escape(header(fmt, field)) if field else r"\x00(?!)"
            if term.startswith("S_END"):
                source += "[ \t]*"
            lines.append(f"%override {term}: /{source.replace('/', chr(92) + '/')}/")
        others = [re.escape(f"{fmt.labels.observation}:"),
                  *(re.escape(f"{h}:") for h in labels.headers)]
        prefix = self._prefix(fmt)
        starts = [re.escape(prefix)] if prefix.strip() else [
            re.escape(header(fmt, f)) for f in heads.values() if f]
        cont = "|".join([*starts, *others]).replace("/", chr(92) + "/")
        lines.append(f"%override CONT: /(?!{cont})[^\\n]+/")
        if labels.answer is None:
            lines += ["%override completion: _EOL* preamble? thought* action",
                      "%override final: thought* action"]
        return tuple(lines)

    def read_answer(self, node: Tree, text: str, fmt: Format) -> str:
        from .fastpath import join_value

        return join_value([c.value.rstrip("\r") for c in node.children
                           if isinstance(c, Token) and c.type in ("TEXT", "CONT")])

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        name = next(c for c in node.children if isinstance(c, Token) and c.type == "NAME")
        obj = next(c for c in node.children if isinstance(c, Tree) and c.data == "object")
        tool = name.value.strip()
        args, bad = decode_object(obj, text, "argument")
        if bad is not None or args is None:
            return Step(thought=thought, invalid=bad)
        if fmt.finish_action is not None and tool == fmt.finish_action:
            if not thought:
                line, column = name.line or 1, name.column or 1
                return Step(thought=thought, invalid=Invalid(
                    "malformed-action", f"the {tool!r} step has no thought to answer with",
                    line, column, (), caret_context(text, line, column)))
            return Step(thought=thought, answer=thought)
        raw = text[obj.meta.start_pos : obj.meta.end_pos]
        return Step(thought=thought, action=Action(tool, raw, tuple(args.values()), tuple(args)))

    # ---- operator data

    def args_start(self, text: str, fmt: Format) -> int:
        """Where the arguments object starts (after the arguments header)."""
        at = text.find(header(fmt, fmt.labels.action_input or ""))
        return text.find("{", max(at, 0))

    def action_line_end(self, text: str, fmt: Format) -> int:
        """The end of the arguments line (before the end marker)."""
        at = text.find(header(fmt, fmt.labels.action_input or ""))
        end = text.find("\n", max(at, 0))
        end = text.find("\n", end + 1) if end >= 0 else -1
        return len(text) if end < 0 else end


_JSON_ARGS = JsonArgsFamily()
SECTIONS = register_family(SectionsFamily())
