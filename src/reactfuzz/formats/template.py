"""The ``template`` family: a user format written from templates and read by its own grammar.

A TOML format with ``syntax = "template"`` writes an action with ``action_template`` and
an answer with ``answer_template``, and reads completions with its own Lark grammar
(``grammar = "mine.lark"``, required). Placeholders are replaced by plain string
substitution, never by ``str.format`` or evaluation:

* ``{tool}`` -- the tool name;
* ``{args}`` -- the positional arguments joined with ``", "``;
* ``{arguments_json}`` -- the named arguments as one JSON object;
* ``{arg1}``, ``{arg2}``, ... -- one argument each;
* ``{answer}`` -- the answer text (``answer_template`` only).

The grammar's ``action`` rule holds a ``TOOL`` terminal (the tool name) and, for an
action with arguments, an ``ARGS`` terminal whose text the format's ``arguments`` reads:
``json`` (a JSON object of named arguments), ``comma`` (split on commas, each trimmed)
or ``single`` (one argument, trimmed). The ``answer`` rule starts with the answer label.
Operator data (where the arguments open and close, which label line carries them) is
read from the action template.
"""

from __future__ import annotations

import copy
import json
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from lark import Token, Tree

from ..model import (
    Action,
    Call,
    DuplicateKeyError,
    FinalAnswer,
    Invalid,
    Step,
    no_duplicate_keys,
    to_jsonable,
)
from .family import Family, Representability, caret_context, encode_text, register_family

if TYPE_CHECKING:
    from .spec import Format

__all__ = ["TEMPLATE_FAMILIES", "TemplateFamily", "fill", "placeholders", "unknown_placeholder"]

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_ARG_N = re.compile(r"arg([1-9][0-9]?)")
_ACTION_NAMES = ("tool", "args", "arguments_json")
_ARGS_OF = {"json": "{arguments_json}", "comma": "{args}"}


def placeholders(template: str) -> list[str]:
    """The placeholder names in ``template``, in order (``{tool}`` gives ``tool``)."""
    return _PLACEHOLDER.findall(template)


def fill(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``{name}`` replaced by ``values[name]``, in one left-to-right
    pass, so a value that itself contains ``{tool}`` is never substituted again."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def unknown_placeholder(template: str, answer: bool) -> str | None:
    """Why ``template`` names a placeholder it may not use (one line), or ``None``."""
    allowed = ("answer",) if answer else _ACTION_NAMES
    for name in placeholders(template):
        if name not in allowed and (answer or not _ARG_N.fullmatch(name)):
            shown = ", ".join("{" + a + "}" for a in allowed)
            more = "" if answer else ", {arg1}, {arg2}, ..."
            return f"unknown placeholder {{{name}}} (use {shown}{more})"
    return None


class TemplateFamily(Family):
    """A user format: writer from templates, reader from the user's grammar (TOOL, ARGS)."""

    syntax = "template"
    grammar_file = ""
    rules = ("completion", "transcript", "action", "answer")
    terminals = ("TOOL",)
    action_shape = "an action as the format's action_template writes it"

    def __init__(self, arguments: str) -> None:
        self.arguments = arguments
        self.name = f"template_{arguments}"
        self.named_args = self.json_arguments = arguments == "json"
        self.max_args = 1 if arguments == "single" else None
        self.separator = "," if arguments == "comma" else None
        self.quote = '"' if arguments == "json" else None
        self.delimiters = (('"', "\\", "}", "{", ",", ":") if arguments == "json"
                           else (",", "\n", '"') if arguments == "comma" else ("\n", ",", '"'))

    # ---- format data

    def check_format(self, fmt: Format) -> str | None:
        if not fmt.action_template or not fmt.answer_template:
            return "syntax 'template' needs action_template and answer_template"
        if not fmt.grammar:
            return "syntax 'template' needs grammar (the Lark file that reads the format)"
        names = placeholders(fmt.action_template)
        if "tool" not in names:
            return "action_template has no {tool} placeholder"
        if "answer" not in placeholders(fmt.answer_template):
            return "answer_template has no {answer} placeholder"
        want = _ARGS_OF.get(self.arguments, "{arg1}")
        if want[1:-1] not in names:
            return f"action_template for arguments {self.arguments!r} needs {want}"
        return None

    def for_format(self, fmt: Format) -> Family:
        if not fmt.action_template:
            return self
        return _specialised(self, fmt.action_template, tuple(fmt.labels.all().items()))

    # ---- writer

    def _values(self, call: Call) -> dict[str, str]:
        texts = [encode_text(a) for a in call.args]
        if call.names is not None:
            named = dict(zip(call.names, (to_jsonable(a) for a in call.args)))
        else:
            named = {f"arg{i}": to_jsonable(a) for i, a in enumerate(call.args)}
        values = {"tool": call.tool, "args": ", ".join(texts),
                  "arguments_json": json.dumps(named, ensure_ascii=False)}
        values.update({f"arg{i + 1}": t for i, t in enumerate(texts)})
        return values

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        assert fmt.action_template is not None
        return fill(fmt.action_template, self._values(call)).split("\n")

    def write_answer(self, answer: FinalAnswer, fmt: Format, *, step: int = 1) -> list[str]:
        assert fmt.answer_template is not None
        return fill(fmt.answer_template, {"answer": answer.text}).split("\n")

    def answer_representable(self, answer: FinalAnswer, fmt: Format) -> Representability:
        text = answer.text
        if text != text.strip() or text == "":
            return Representability(False, "an answer with outer whitespace or empty is trimmed")
        if "\n" in text or "\r" in text:
            return Representability(False, "a template answer is written on one line")
        return Representability(True)

    def call_representable(self, call: Call, fmt: Format, *, quote: bool = False
                           ) -> Representability:
        if self.arguments == "json":
            if call.names is None and call.args:
                return Representability(False, "the format names every argument; the call"
                                        " is positional")
            if call.names is not None and len(set(call.names)) != len(call.names):
                return Representability(False, "an argument name is given twice")
            return Representability(True)
        if self.arguments == "single" and len(call.args) != 1:
            return Representability(False, f"{fmt.name} actions carry exactly one argument")
        for i, a in enumerate(call.args):
            v = encode_text(a)
            bad = ",\n\r" if self.arguments == "comma" else "\n\r"
            if v != v.strip() or v == "" or any(c in v for c in bad):
                return Representability(False, f"argument {i + 1} ({v!r}) is empty, has outer"
                                        " spaces or holds a delimiter")
            if any(c in v for c in "{}"):
                return Representability(False, f"argument {i + 1} holds a brace")
        return Representability(True)

    def written_call(self, call: Call, fmt: Format) -> Call:
        if self.arguments == "json":
            names = call.names if call.names is not None else tuple(
                f"arg{i}" for i in range(len(call.args)))
            return Call(call.tool, tuple(to_jsonable(a) for a in call.args), names)
        return super().written_call(call, fmt)

    def written_value(self, value: str) -> str:
        return json.dumps(value, ensure_ascii=False) if self.json_arguments else value

    # ---- grammar reading

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        tokens = list(node.scan_values(lambda v: isinstance(v, Token)))
        tool = next((t for t in tokens if t.type == "TOOL"), None)
        if tool is None:
            raise ValueError("the grammar's action rule has no TOOL terminal")
        args_tok = next((t for t in tokens if t.type == "ARGS"), None)
        raw = args_tok.value if args_tok is not None else ""
        if self.arguments == "json":
            if not raw.strip():
                return Step(thought=thought, action=Action(tool.value.strip(), raw, (), ()))
            try:
                decoded = json.loads(raw, object_pairs_hook=no_duplicate_keys)
            except (DuplicateKeyError, ValueError) as e:
                assert args_tok is not None
                line, column = args_tok.line or 1, args_tok.column or 1
                why = (f"argument {e.key!r} is given twice" if isinstance(e, DuplicateKeyError)
                       else f"the arguments are not JSON: {e}")
                return Step(thought=thought, invalid=Invalid(
                    "malformed-action", why, line, column, (), caret_context(text, line, column)))
            if not isinstance(decoded, dict):
                return Step(thought=thought, invalid=Invalid(
                    "malformed-action", "the arguments are not a JSON object"))
            return Step(thought=thought, action=Action(
                tool.value.strip(), raw, tuple(decoded.values()), tuple(decoded)))
        if self.arguments == "comma":
            args = tuple(a.strip() for a in raw.split(",")) if raw.strip() else ()
        else:
            args = (raw.strip(),) if raw.strip() else ()
        return Step(thought=thought, action=Action(tool.value.strip(), raw, args))


@lru_cache(maxsize=64)
def _specialised(family: TemplateFamily, template: str, labels: tuple[tuple[str, str], ...]
                 ) -> TemplateFamily:
    """The family with the operator data the action template implies."""
    out = copy.copy(family)
    names = placeholders(template)
    args = next((n for n in names if n in ("args", "arguments_json") or _ARG_N.fullmatch(n)),
                None)
    if args is None:
        return out
    before, _, after = template.partition("{" + args + "}")
    if family.json_arguments:
        out.open, out.close = "{", "}"
    else:
        pairs = {"[": "]", "(": ")", "{": "}", "<": ">"}
        if before and before[-1] in pairs and after.startswith(pairs[before[-1]]):
            out.open, out.close = before[-1], pairs[before[-1]]
    line = before.rsplit("\n", 1)[-1]
    for role, word in labels:
        if role != "action" and line.startswith(f"{word}:"):
            out.input_role = role
    return out


TEMPLATE_FAMILIES = tuple(register_family(TemplateFamily(a)) for a in ("json", "comma", "single"))
"""The template family for each argument encoding (``template_json``, ...)."""
