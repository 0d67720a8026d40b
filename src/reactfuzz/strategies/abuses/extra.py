"""Extra arguments: one positional too many, an undeclared name, a name given twice."""

from __future__ import annotations

import json

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import BIND, LAST_KEY, Advice
from ...model import Call
from ...oracle import Expectation
from ..catalogue import (
    Context,
    Writing,
    multi_arg,
    register_abuse,
)
from ..values import is_free_string
from ._parts import args_object


@register_abuse(
    "extra.positional", family="extra",
    description="one more positional value than the tool takes",
    why="Python binds it to an optional parameter, or the call dies with TypeError",
    expects="refused as extra-arg",
    applies=lambda f: multi_arg(f) and not f.family.named_args,
    breaks=("classic-bracket", "classic-unanchored"),
    advice=Advice(
        BIND,
        "Bind declared optional parameters in order; refuse only values beyond the declared"
        " ones.",
        checks={"no-crash": BIND}),
)
def _extra_positional(ctx: Context) -> Writing:
    base = ctx.call(optional=True)
    extra = ctx.draw(st.sampled_from(["true", "en", "2", "all"]))
    intent = Call(base.tool, (*base.args, extra))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "extra.undeclared-name", family="extra",
    description="a named argument the tool does not declare",
    why="`fn(**kwargs)` raises TypeError; a lenient binder silently drops it",
    expects="refused as extra-arg (or dropped, if the policy says so)",
    applies=lambda f: f.family.named_args,
    breaks_none_because="no classic regex design reads named arguments",
    advice=Advice(
        "Validate the arguments against a schema that forbids undeclared names"
        " (`additionalProperties: false`, pydantic `extra=\"forbid\"`) and refuse them.",
        "Refuse an undeclared argument as extra-arg with its name, or drop it on purpose; do not"
        " refuse the whole text as unreadable.",
        checks={"no-crash": BIND}),
)
def _undeclared(ctx: Context) -> Writing:
    base = ctx.call()
    key = ctx.draw(st.sampled_from(["expand", "lang", "force", "debug"]))
    assume(key not in ctx.registry[base.tool].names)
    intent = Call.named(base.tool, **(base.kwargs() | {key: True}))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "extra.duplicate-name", family="extra",
    description="the same argument name twice with two values",
    why="a reader that keeps the first value, or a hand-made one that merges them, runs a"
        " call no JSON parser would",
    expects="refused (extra-arg / ambiguous), or run with the last value, as JSON parsers"
            " read a repeated key; never with the first",
    applies=lambda f: f.family.named_args,
    breaks_none_because="no classic regex design reads named arguments",
    advice=Advice(LAST_KEY, checks={"no-crash": LAST_KEY}),
)
def _duplicate(ctx: Context) -> Writing:
    base = ctx.call(lambda t: any(is_free_string(t, n) for n in t.required_names),
                    optional=False)
    tool = ctx.registry[base.tool]
    name = next(n for n in tool.required_names if is_free_string(tool, n))
    text = ctx.render(base)
    other = json.dumps(f"{base.kwargs()[name]} (2)")
    # inside the arguments object, before its closing brace (not beside a wrapper's keys)
    _, end, _ = args_object(text, base)
    text = text[: end - 1] + f", {json.dumps(name)}: {other}" + text[end - 1 :]
    # RFC 8259 leaves a repeated name to the implementation; JSON.parse, Python's json and
    # every JSON library we know keep the last pair, so the text means the last value
    last = Call.named(base.tool, **(base.kwargs() | {name: json.loads(other)}))
    return Writing(last, text, Expectation(frozenset({"extra-arg", "ambiguous", "unparseable"}),
                                          note="a name given twice: JSON keeps the last"))
