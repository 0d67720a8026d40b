"""Helpers the newer operator modules share: a free-text argument, a marked rendering, and
JSON written (validly or as lenient decoders read it) into a completion."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from ...model import Call
from ...tools import Tool
from ..catalogue import Context, free_params, single_arg_ok

__all__ = ["ESCAPES", "LENIENT_JSON", "MARK", "PROBE", "args_object", "free_call",
           "outer_value", "render_with", "with_json", "written_json"]

MARK = "zqxmarkqxz"
"""A placeholder argument value: rendered, then replaced with the operator's own writing."""
PROBE = Call.named("probe", query="zqxprobeqxz")
"""A call of one free-text argument that no tool has: operators render it to read where a
format puts a call's parts (its tags, its call object, its arguments)."""


def free_call(ctx: Context, fits: Callable[[Tool], bool] | None = None,
              **kw: Any) -> tuple[Call, str]:
    """A drawn call with a free-text argument, and that argument's name.

    ``fits`` narrows the tools beyond having a free-text parameter (default: the format
    can carry the call); ``kw`` goes to :meth:`Context.call` (``optional=False``).
    """
    def ok(t: Tool) -> bool:
        return bool(free_params(t)) and (single_arg_ok(ctx.fmt, t) if fits is None else fits(t))

    base = ctx.call(ok, **kw)
    tool = ctx.registry[base.tool]
    names = [n for n in free_params(tool) if n in (base.names or ())]
    assume(names)  # the tool's free strings may all be optional and left out
    return base, ctx.draw(st.sampled_from(names))


def render_with(ctx: Context, base: Call, name: str, written: str, *,
                thought: str | None = None) -> str:
    """``base`` rendered with argument ``name`` written exactly as ``written`` (its whole
    written form: a JSON family's quotes are part of it)."""
    marked = Call.named(base.tool, **(base.kwargs() | {name: MARK}))
    text = ctx.render(marked, thought=thought)
    return text.replace(ctx.fmt.family.written_value(MARK), written, 1)


def args_object(text: str, call: Call) -> tuple[int, int, dict[str, Any]]:
    """Where the JSON object of ``call``'s named arguments is written in ``text``: its start,
    its end and the object (the first object whose keys are the call's argument names,
    so a wrapper such as ``{"name": ..., "arguments": {...}}`` is looked into).
    Nothing found: the example is discarded."""
    decoder = json.JSONDecoder()
    want = set(call.names or ())
    at = text.find("{")
    while at >= 0:
        try:
            obj, end = decoder.raw_decode(text, at)
        except ValueError:
            obj, end = None, at + 1
        if isinstance(obj, dict) and set(obj) == want:
            return at, end, obj
        at = text.find("{", at + 1)
    assume(False)
    raise AssertionError("unreachable")  # pragma: no cover


def outer_value(text: str, call: Call) -> tuple[int, int] | None:
    """Where the JSON value that holds ``call``'s arguments object starts and ends, when it
    holds more than that object (a wrapper or a list around it); else ``None``."""
    decoder = json.JSONDecoder()
    a_start, a_end, _ = args_object(text, call)
    for at, ch in enumerate(text[:a_start]):
        if ch not in "[{":
            continue
        try:
            _, end = decoder.raw_decode(text, at)
        except ValueError:
            continue
        if end >= a_end:
            return at, end  # the first (outermost) value around the arguments
    return None


ESCAPES = ("as-is", "ascii", "solidus", "ascii+solidus")
"""How JSON strings are escaped: as ``json.dumps(ensure_ascii=False)`` writes them, with
``\\u`` escapes for what is not ASCII (``ensure_ascii=True``, surrogate pairs beyond
the BMP), with ``/`` written ``\\/`` (as PHP's ``json_encode`` does), or both: the
same JSON strings, which a decoder that repairs something else may decode differently."""
LENIENT_JSON = ("trailing-comma", "bare-keys", "single-quotes", "python")
"""The syntaxes lenient decoders (JSON5, repair libraries, ``ast.literal_eval``) read and
JSON does not: a trailing comma, bare keys, single-quoted strings, a Python literal."""


def written_json(value: Any, how: str = "spaced", *, escapes: str = "as-is",
                 indent: int = 2) -> str:
    """``value`` written ``how``: valid JSON, ``compact`` (``{"a":1}``, no spaces),
    ``spaced`` (JSON's default spacing, ``{"a": 1}``) or ``indented`` (``indent`` spaces
    a level), or an object in one of the :data:`LENIENT_JSON` syntaxes; its strings
    escaped as :data:`ESCAPES` says (a Python literal has its own escapes and no
    ``\\/``)."""
    ascii_only = "ascii" in escapes
    if how == "python":
        return repr(value)

    def dumps(v: Any, **kw: Any) -> str:
        return json.dumps(v, ensure_ascii=ascii_only, **kw)

    if how == "compact":
        text = dumps(value, separators=(",", ":"))
    elif how == "spaced":
        text = dumps(value)
    elif how == "indented":
        text = dumps(value, indent=indent)
    elif how == "trailing-comma":
        text = dumps(value)
        text = text[:-1] + "," + text[-1]
    elif how == "bare-keys":
        text = "{" + ", ".join(f"{k}: {dumps(v)}" for k, v in value.items()) + "}"
    elif how == "single-quotes":  # JSON5 strings: ' delimits, an inner ' is escaped
        def single(v: Any) -> str:
            if not isinstance(v, str):
                return dumps(v)
            return "'" + dumps(v)[1:-1].replace('\\"', '"').replace("'", "\\'") + "'"
        text = "{" + ", ".join(f"{single(k)}: {single(v)}" for k, v in value.items()) + "}"
    else:
        raise ValueError(f"unknown way of writing JSON {how!r}")
    # outside strings JSON has no '/', so every one is inside a string
    return text.replace("/", "\\/") if "solidus" in escapes else text


def with_json(text: str, start: int, end: int, value: Any, how: str = "spaced", *,
              escapes: str = "as-is", indent: int = 2) -> str:
    """``text`` with its ``[start:end]`` replaced by ``value`` written ``how`` (see
    :func:`written_json`): the one way operators splice JSON into a completion."""
    return text[:start] + written_json(value, how, escapes=escapes, indent=indent) + text[end:]
