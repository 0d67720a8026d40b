"""The renderer: the writer's side of a format, ``render(intent, format) -> completion``.

``render`` writes what a model following the format's prompt would write, even when
that text cannot carry the intent (a comma inside a ``bracket`` argument).
:func:`representable` says whether it can, and :func:`written_form` gives the intent as
the format carries it back (text formats carry strings), so a check can tell "the
protocol is ambiguous" from "the parser is wrong". The law, tested as a Hypothesis
property: ``representable(i, f)`` implies ``grammar_parse(render(i, f), f).intent() ==
written_form(i, f)``.
"""

from __future__ import annotations

import datetime as _dt
import enum
import json
import re
from dataclasses import dataclass
from typing import Any

from .formats import Format, get_format
from .model import Call, FinalAnswer, Intent, to_jsonable

__all__ = ["Representability", "encode_text", "render", "representable", "written_form"]


def encode_text(value: Any) -> str:
    """How a text format writes one argument value (dates ISO, booleans lower case)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, enum.Enum):
        return encode_text(value.value)
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return ", ".join(encode_text(v) for v in value)
    return str(value)


_BARE_BAD = re.compile(r'[,\[\]\n"]')


def _needs_quotes(v: str) -> bool:
    return (
        v == ""
        or v != v.strip()
        or _BARE_BAD.search(v) is not None
        or v.lstrip().startswith('"')
    )


def _label_free(text: str, fmt: Format) -> bool:
    """True if no line of ``text`` (after the first) starts with one of the format's labels."""
    labels = fmt.labels.all().values()
    for line in text.split("\n")[1:]:
        for w in labels:
            if re.match(re.escape(w) + r"(?: ?\d+)?:", line):
                return False
    return True


def render(
    intent: Intent,
    fmt: Format | str = "bracket",
    *,
    thought: str | None = None,
    step: int = 1,
    quote: bool = False,
) -> str:
    """Write ``intent`` as a completion in ``fmt`` (what a model would write).

    ``thought`` adds a thought line; ``step`` is the label number for numbered formats;
    ``quote=True`` writes bracket arguments that need it as JSON strings (the canonical
    form) instead of bare, as models do.
    """
    fmt = get_format(fmt)
    lines: list[str] = []
    if thought is not None:
        lines.append(f"{fmt.label('thought', step)} {thought}")
    if isinstance(intent, FinalAnswer):
        if fmt.labels.answer is not None:
            lines.append(f"{fmt.label('answer', step)} {intent.text}")
        else:
            lines.append(f"{fmt.label('action', step)} {fmt.finish_action}[{intent.text}]")
        return "\n".join(lines)
    call = intent
    if fmt.family == "bracket":
        vals = [encode_text(a) for a in call.args]
        if quote:
            vals = [json.dumps(v, ensure_ascii=False) if _needs_quotes(v) else v for v in vals]
        lines.append(f"{fmt.label('action', step)} {call.tool}[{', '.join(vals)}]")
    elif fmt.family == "paper":
        arg = encode_text(call.args[0]) if len(call.args) == 1 else ", ".join(
            encode_text(a) for a in call.args
        )
        lines.append(f"{fmt.label('action', step)} {call.tool}[{arg}]")
    elif fmt.family == "action_input":
        arg = ", ".join(encode_text(a) for a in call.args)
        lines.append(f"{fmt.label('action', step)} {call.tool}")
        lines.append(f"{fmt.label('action_input', step)} {arg}")
    else:
        if call.names is not None:
            obj = dict(zip(call.names, (to_jsonable(a) for a in call.args)))
        else:
            obj = {f"arg{i}": to_jsonable(a) for i, a in enumerate(call.args)}
        blob = json.dumps(obj, ensure_ascii=False)
        lines.append(f"{fmt.label('action', step)} {call.tool} {blob}")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Representability:
    """Whether a format can carry an intent as a model writes it, and if not, why."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


def representable(
    intent: Intent, fmt: Format | str = "bracket", *, quote: bool = False
) -> Representability:
    """Whether ``render(intent, fmt, quote=quote)`` reads back as ``written_form``."""
    fmt = get_format(fmt)
    if isinstance(intent, FinalAnswer):
        text = intent.text
        if text != text.strip() or text == "":
            return Representability(False, "an answer with outer whitespace or empty is trimmed")
        if fmt.labels.answer is None:
            if "\n" in text:
                return Representability(False, f"{fmt.finish_action}[...] fits on one line")
            return Representability(True)
        if not _label_free(text, fmt):
            return Representability(False, "a line of the answer starts with a label")
        if "\n\n" in text or any(line != line.rstrip() for line in text.split("\n")):
            return Representability(False, "blank lines or trailing spaces inside an answer")
        return Representability(True)
    call = intent
    if not re.fullmatch(r"\w+", call.tool):
        if not (fmt.family == "action_input" and call.tool == call.tool.strip() and call.tool
                and "\n" not in call.tool):
            return Representability(False, f"tool name {call.tool!r} is not a word")
    if fmt.family == "bracket":
        for i, a in enumerate(call.args):
            v = encode_text(a)
            if "\n" in v and not quote:
                return Representability(False, f"argument {i + 1} holds a line break")
            if not quote and _needs_quotes(v):
                return Representability(
                    False,
                    f"argument {i + 1} ({v!r}) holds a delimiter, a quote or outer spaces;"
                    " it would need quoting",
                )
        return Representability(True)
    if fmt.family == "paper":
        if len(call.args) != 1:
            return Representability(False, f"{fmt.name} actions carry exactly one argument")
        v = encode_text(call.args[0])
        if "\n" in v:
            return Representability(False, "the argument holds a line break")
        if fmt.finish_action and call.tool.lower() == fmt.finish_action.lower():
            return Representability(False, f"{call.tool} is the format's answer action")
        return Representability(True)
    if fmt.family == "action_input":
        if len(call.args) != 1:
            return Representability(False, f"{fmt.name} actions carry exactly one argument")
        v = encode_text(call.args[0])
        if v == "" or v != v.strip():
            return Representability(False, "an input that is empty or has outer spaces is trimmed")
        if not _label_free(v, fmt) or "\n\n" in v or any(x != x.rstrip() for x in v.split("\n")):
            return Representability(False, "a line of the input starts with a label or is blank")
        return Representability(True)
    if call.names is None and call.args:
        return Representability(False, "json-args names every argument; the call is positional")
    if call.names is not None and len(set(call.names)) != len(call.names):
        return Representability(False, "an argument name is given twice")
    return Representability(True)


def written_form(intent: Intent, fmt: Format | str = "bracket") -> Intent:
    """The intent as the format carries it back: strings for text formats, JSON values else."""
    fmt = get_format(fmt)
    if isinstance(intent, FinalAnswer):
        return intent
    if fmt.family == "json_args":
        names = intent.names if intent.names is not None else tuple(
            f"arg{i}" for i in range(len(intent.args))
        )
        return Call(intent.tool, tuple(to_jsonable(a) for a in intent.args), names)
    if fmt.family == "action_input":
        tool = intent.tool.strip()
        return Call(tool, tuple(encode_text(a) for a in intent.args))
    return Call(intent.tool, tuple(encode_text(a) for a in intent.args))
