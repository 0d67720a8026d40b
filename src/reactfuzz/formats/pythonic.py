"""The ``pythonic`` family: the whole completion is a Python list of calls.

``[search(query="Paris"), get_time()]``: the tool-call format of Llama 3.2 and Llama 4
(their chat templates ask for it) that vLLM's and SGLang's ``pythonic`` readers parse.
Arguments are keywords whose values are Python literals (strings, numbers, ``True``,
``False``, ``None``, lists and dicts of them); several calls in the list are parallel
calls and the first runs. There is no thought and no label: a completion none of whose
lines opens a list is the final answer, all its text. A value is decoded with
``ast.literal_eval``, which reads literals and evaluates no code.
"""

from __future__ import annotations

import ast
import json
import keyword
import math
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from lark import Token, Tree

from ..model import Action, Call, FinalAnswer, Invalid, Step, to_jsonable
from .bare_json import BareJsonFamily
from .family import Family, Representability, caret_context, register_family
from .json_args import JsonArgsFamily

if TYPE_CHECKING:
    from .spec import Format

__all__ = ["PYTHONIC", "PythonicFamily", "python_literal"]


def python_literal(value: Any) -> str:
    """``value`` (JSON-able: see :func:`~reactfuzz.model.to_jsonable`) as a Python literal
    that ``ast.literal_eval`` reads back equal: strings double-quoted with JSON's escapes
    (each is a Python escape too), ``True``/``False``/``None``."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(python_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{python_literal(k)}: {python_literal(v)}"
                               for k, v in value.items()) + "}"
    raise TypeError(f"no Python literal for {type(value).__name__}")


def _finite(value: Any) -> bool:
    """No NaN or infinity anywhere in ``value`` (Python writes them as names, not literals)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    return True


class PythonicFamily(Family):
    """A Python list of keyword calls and nothing else; anything else is the final answer."""

    name = "pythonic"
    syntax = "pythonic"
    arguments = "python"
    grammar_file = "pythonic.lark"
    classic: ClassVar[Mapping[str, str]] = {
        "pythonic": "[tool(...)] regex anywhere, arguments split on commas",
    }
    rules = ("completion", "transcript", "action", "answer", "call", "kwarg")
    terminals = ("LIST_OPEN", "NAME")
    inner_terminals = ("NAME", "LPAR", "RPAR", "EQUAL", "RSQB", "_PWS")
    action_shape = '[tool(key="value", ...)]'
    bare_answer = True
    leading_thought = False  # text before the list makes it no Python list
    open, close, separator, quote = "(", ")", ",", '"'
    named_args = True
    delimiters = ('"', "'", "\\", ")", "]", ",", "=", "(")

    def check_format(self, fmt: Format) -> str | None:
        if fmt.labels.answer is not None or fmt.finish_action is not None:
            return ("the pythonic family writes a final answer as plain text, with no answer"
                    " label or finish action: start from base = 'pythonic'")
        return None

    # ---- writer: as the bare JSON family, no thought (text before the list would make it
    # no Python list) and the answer as plain text

    write_thought = BareJsonFamily.write_thought
    write_turn = BareJsonFamily.write_turn
    write_answer = BareJsonFamily.write_answer

    def write_call(self, call: Call, fmt: Format, *, step: int = 1, quote: bool = False
                   ) -> list[str]:
        names = call.names if call.names is not None else tuple(
            f"arg{i}" for i in range(len(call.args)))
        args = ", ".join(f"{n}={python_literal(to_jsonable(v))}"
                         for n, v in zip(names, call.args))
        return [f"[{call.tool}({args})]"]

    def tool_name_ok(self, tool: str) -> bool:
        """A Python identifier that is not a keyword (``[class()]`` is no call)."""
        return tool.isidentifier() and tool.isascii() and not keyword.iskeyword(tool)

    def call_representable(self, call: Call, fmt: Format, *, quote: bool = False
                           ) -> Representability:
        if call.names is None and call.args:
            return Representability(False, "the pythonic family names every argument; the"
                                           " call is positional")
        if call.names is not None and len(set(call.names)) != len(call.names):
            return Representability(False, "an argument name is given twice")
        for name in call.names or ():
            if not self.tool_name_ok(name):
                return Representability(False, f"argument name {name!r} is no Python keyword"
                                               " argument")
        if not all(_finite(to_jsonable(v)) for v in call.args):
            return Representability(False, "NaN and infinity have no Python literal")
        return Representability(True)

    written_call = JsonArgsFamily.written_call
    written_value = JsonArgsFamily.written_value  # a JSON string is a Python literal too

    def answer_representable(self, answer: FinalAnswer, fmt: Format) -> Representability:
        """Plain text: trimmed, no line opening a list or a label, no carriage return."""
        text = answer.text
        if text != text.strip() or text == "":
            return Representability(False, "an answer with outer whitespace or empty is trimmed")
        if any(line != line.rstrip() for line in text.split("\n")) or "\r" in text:
            return Representability(False, "trailing spaces or a carriage return in an answer")
        starts = ("[", f"{fmt.labels.observation}:", *(f"{h}:" for h in fmt.labels.headers))
        if any(line.lstrip(" \t").startswith(starts) for line in text.split("\n")):
            return Representability(False, "a line of the answer opens a list or a label")
        return Representability(True)

    # ---- grammar reading

    def grammar_overrides(self, fmt: Format) -> tuple[str, ...]:
        """Answer text lines open no list and start no label (from the format's data)."""
        import re

        labels = "|".join(re.escape(f"{w}:") for w in (fmt.labels.observation,
                                                       *fmt.labels.headers))
        cont = rf"(?![ \t]*\[|{labels})[^\n]+".replace("/", "\\/")
        return (f"%override CONT: /{cont}/",)

    read_answer = BareJsonFamily.read_answer

    def read_action(self, node: Tree, text: str, fmt: Format, thought: str) -> Step:
        call = next(c for c in node.children if isinstance(c, Tree) and c.data == "call")
        tool = call.children[0]
        assert isinstance(tool, Token)
        names: list[str] = []
        values: list[Any] = []
        for kw in call.children[1:]:
            if not isinstance(kw, Tree):
                continue
            name = kw.children[0]
            assert isinstance(name, Token)
            if name.value in names:
                line, column = name.line or 1, name.column or 1
                return Step(thought=thought, invalid=Invalid(
                    "duplicate-arg", f"keyword argument {name.value!r} is given twice",
                    line, column, (), caret_context(text, line, column)))
            value = kw.children[-1]
            span = (value.start_pos, value.end_pos) if isinstance(value, Token) else (
                value.meta.start_pos, value.meta.end_pos)
            # a literal the grammar accepted: literal_eval reads it and runs nothing (and
            # refuses what Python would, such as a '\N{...}' escape with no such name)
            try:
                with warnings.catch_warnings():
                    # an escape Python does not know ('\F') is read as written, with a
                    # warning that would reach the user's terminal once per value
                    warnings.simplefilter("ignore")
                    values.append(ast.literal_eval(text[span[0] : span[1]]))
            except (ValueError, SyntaxError, MemoryError, RecursionError) as e:
                line, column = name.line or 1, name.column or 1
                return Step(thought=thought, invalid=Invalid(
                    "malformed-arg", f"the value of {name.value!r} is no Python literal:"
                    f" {type(e).__name__}", line, column, (),
                    caret_context(text, line, column)))
            names.append(name.value)
        raw = text[call.meta.start_pos : call.meta.end_pos]
        return Step(thought=thought, action=Action(tool.value, raw, tuple(values), tuple(names)))

    # ---- operator data

    def args_start(self, text: str, fmt: Format) -> int:
        """The first call's opening parenthesis."""
        at = text.find("(")
        return len(text) if at < 0 else at

    def action_line_end(self, text: str, fmt: Format) -> int:
        return len(text)


PYTHONIC = register_family(PythonicFamily())
