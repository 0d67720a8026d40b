"""JSON arguments: nested objects, comments, a label inside a string with a real line break.

For families whose arguments are one JSON value (:attr:`Family.json_arguments`). Missing,
extra and duplicate keys, single quotes and trailing commas are the ``missing.*``,
``extra.*`` and ``malformed.invalid-json`` operators; these add what they do not write.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from ...model import Call
from ...oracle import Expectation
from ..catalogue import ANY_REFUSAL, Context, Writing, register_abuse
from ..values import validates
from ._parts import args_object, free_call


def _blob(ctx: Context, call: Call) -> tuple[str, int, int, dict[str, Any]]:
    """The rendered text, where its JSON arguments start and end, and the object."""
    text = ctx.render(call)
    start, end, obj = args_object(text, call)
    return text, start, end, obj


@register_abuse(
    "json.nested", family="json",
    description="the arguments one level down: `{\"query\": {\"query\": \"x\"}}`, "
    "`{\"args\": {...}}`, `{\"input\": {...}}`",
    why="a decoder that unwraps a single key, or passes the inner object on as the value, "
    "runs a call nobody validated",
    expects="refused (malformed-arg / missing-arg / extra-arg / unparseable)",
    applies=lambda f: f.family.json_arguments,
    breaks_none_because="no classic regex design reads JSON arguments",
)
def _nested(ctx: Context) -> Writing:
    base = ctx.call(lambda t: bool(t.required_names), optional=False)
    text, start, end, obj = _blob(ctx, base)
    how = ctx.draw(st.sampled_from(["wrapper", "self"]))
    new: dict[str, object]
    if how == "wrapper":
        key = ctx.draw(st.sampled_from(["args", "arguments", "input", "action_input"]))
        assume(key not in ctx.registry[base.tool].names)
        new = {key: obj}
    else:
        first = next(iter(obj))
        new = {**obj, first: {first: obj[first]}}
    nested = json.dumps(new, ensure_ascii=False)
    return Writing(base, text[:start] + nested + text[end:], Expectation(
        frozenset({"malformed-arg", "missing-arg", "extra-arg", "unparseable"}),
        allow_intended=False, note="the arguments are nested one level too deep"))


@register_abuse(
    "json.comment", family="json",
    description="a comment inside the JSON arguments (`// ...`, `/* ... */`, `# ...`)",
    why="JSON has no comments; a lenient decoder (JSON5, a regex strip) reads them and may "
    "take a commented-out value",
    expects="the intended call, or refused (unparseable)",
    applies=lambda f: f.family.json_arguments,
    breaks_none_because="no classic regex design reads JSON arguments",
)
def _comment(ctx: Context) -> Writing:
    base = ctx.call(lambda t: bool(t.required_names), optional=False)
    text, start, end, obj = _blob(ctx, base)
    style = ctx.draw(st.sampled_from(["//", "/*", "#"]))
    note = json.dumps(obj)
    body = json.dumps(obj, ensure_ascii=False)
    comment = f"/* was {note} */" if style == "/*" else f"{style} was {note}\n"
    blob = "{" + comment + body[1:] if ctx.draw(st.booleans()) else body[:-1] + comment + "}"
    return Writing(base, text[:start] + blob + text[end:], Expectation(ANY_REFUSAL))


@register_abuse(
    "json.label-in-string", family="json",
    description="a JSON string holding a real line break followed by a label "
    "(`{\"query\": \"x<newline>Answer: y\"}`)",
    why="the label now starts a line: a line-based reader sees an answer, a strict JSON "
    "decoder sees a control character",
    expects="refused (unparseable / ambiguous), or the intended call",
    applies=lambda f: f.family.json_arguments,
    breaks_none_because="no classic regex design reads JSON arguments",
)
def _label_in_string(ctx: Context) -> Writing:
    base, name = free_call(ctx, lambda t: len(t.required_names) >= 1, optional=False)
    role = ctx.draw(st.sampled_from(
        [r for r in ("answer", "observation", "action", "thought") if
         getattr(ctx.fmt.labels, r)]))
    label = ctx.fmt.label(role, 2)
    value = f"x\n{label} y"
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(validates(ctx.registry, intent))
    text = ctx.render(intent).replace("\\n" + label, "\n" + label, 1)
    return Writing(intent, text, Expectation(frozenset({"unparseable", "ambiguous"})))
