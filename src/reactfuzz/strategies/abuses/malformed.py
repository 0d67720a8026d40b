"""Malformed arguments: wrong types, unbalanced brackets and quotes, trailing text, bad JSON."""

from __future__ import annotations

import re

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import BIND, NO_TRAILING, SCHEMA, STRICT_JSON, WHOLE_TEXT, Advice
from ...model import Call
from ...oracle import Expectation
from ...render import encode_text, representable
from ...tools import Tool
from ..catalogue import (
    ANY_REFUSAL,
    Context,
    Writing,
    free_params,
    multi_arg,
    register_abuse,
    single_arg_ok,
    typed_params,
)
from ..values import argument_values, prop_kind, schema_properties, validates
from ._parts import args_object, with_json


@register_abuse(
    "malformed.wrong-type", family="malformed",
    description="a typed argument (date, number, enum, pattern, path) gets a near-valid string",
    why="regex parsers pass text through; only a schema knows 'last July' is not a date",
    expects="refused as malformed-arg",
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(
        SCHEMA,
        "Validate the value against the schema rather than refusing it by its text shape; a"
        " value the schema accepts must run.",
        checks={"no-crash": BIND}),
)
def _wrong_type(ctx: Context) -> Writing:
    base = ctx.call(lambda t: bool(typed_params(t)) and single_arg_ok(ctx.fmt, t), optional=False)
    tool = ctx.registry[base.tool]
    candidates = [n for n in typed_params(tool) if n in (base.names or ())]
    assume(candidates)
    name = ctx.draw(st.sampled_from(candidates))
    bad = ctx.draw(argument_values(tool, name, valid=False))
    kwargs = base.kwargs() | {name: bad}
    intent = Call.named(base.tool, **kwargs)
    assume(not validates(ctx.registry, intent))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "malformed.unbalanced-bracket", family="malformed",
    description="the argument list loses its closing bracket or gains an opening one",
    why="a greedy `(.*)\\]` runs whatever lies between the first `[` and the last `]`",
    expects="the intended call, or refused (unparseable)",
    applies=lambda f: f.family.open is not None,
    breaks=("classic-bracket", "classic-unanchored"),
    advice=Advice(
        "Refuse an argument list whose brackets do not balance instead of a greedy `(.*)\\]`"
        " reading up to the last bracket on the line.",
        NO_TRAILING),
)
def _unbalanced_bracket(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: bool(t.required_names) and single_arg_ok(ctx.fmt, t),
                      optional=False)
    text = ctx.render(intent)
    close, open_ = ctx.fmt.family.close, ctx.fmt.family.open
    assert close is not None and open_ is not None
    if ctx.fmt.family.json_arguments:
        # the arguments object's own braces, wherever the format writes it (a template's
        # placeholder, the inside of a tag or of a wrapper object)
        start, end, _ = args_object(text, intent)
        where = end - 1
    else:
        where = text.rfind(close)
        start = text.find(open_, text.find(ctx.fmt.labels.action + ":"))
    how = ctx.draw(st.sampled_from(["drop-close", "extra-open", "close-early"]))
    if how == "drop-close":
        text = text[:where] + text[where + 1 :]
    elif how == "extra-open":
        text = text[:where] + open_ + text[where:]
    else:
        text = text[: start + 1] + close + text[start + 1 :]
    return Writing(intent, text, Expectation(frozenset({"unparseable", "malformed-arg"})))


@register_abuse(
    "malformed.unbalanced-quote", family="malformed",
    description="a quote opens inside an argument and never closes",
    why="parsers that do not quote pass the stray quote on as part of the value",
    expects="the intended call, or refused (unparseable / malformed-arg)",
    breaks=("classic-bracket", "classic-unanchored"),
    advice=Advice(
        "Decode quoted arguments with a real decoder (`json.loads` on the value) and refuse a"
        " quote that never closes, instead of passing it on inside the value.",
        WHOLE_TEXT),
)
def _unbalanced_quote(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: bool(free_params(t)) and single_arg_ok(ctx.fmt, t),
                      optional=False)
    text = ctx.render(intent)
    free = [n for n in (intent.names or ()) if n in free_params(ctx.registry[intent.tool])]
    assume(free)  # the tool's free strings may all be optional and left out
    value = encode_text(intent.kwargs()[free[0]])
    at = ctx.fmt.family.args_start(text, ctx.fmt)
    head, action = text[:at], text[at:]
    written = ctx.fmt.family.written_value(value)
    # the value itself, not the same letters inside a word of the markup ('a' in
    # '<parameter name=...>')
    m = re.search(rf"(?<!\w){re.escape(written)}(?!\w)", action)
    assume(m is not None)
    assert m is not None
    action = action[: m.start()] + '"' + value + action[m.start() + len(written):]
    text = head + action
    return Writing(intent, text, Expectation(frozenset({"unparseable", "malformed-arg"})))


@register_abuse(
    "malformed.empty", family="malformed",
    description="an argument is written empty",
    why="an empty string is valid text for a regex but rarely for the tool",
    expects="what the schema says of an empty value: run it, or refuse",
    applies=multi_arg,
    breaks=("classic-bracket", "classic-unanchored"),
    advice=Advice(
        SCHEMA,
        "Run an empty value when the schema allows one (an optional string may be empty); refuse"
        " it only by the schema.",
        checks={"no-crash": BIND}),
)
def _empty(ctx: Context) -> Writing:
    base = ctx.call(lambda t: bool(t.required_names), optional=False)
    name = ctx.draw(st.sampled_from(list(base.names or ())))
    intent = Call.named(base.tool, **(base.kwargs() | {name: ""}))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "malformed.trailing-text", family="malformed",
    description="text follows the action on its line",
    why="an unanchored or greedy regex keeps going to the last `]` on the line",
    expects="the intended call, or refused (unparseable)",
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(
        NO_TRAILING,
        "Allow trailing spaces after the action, and refuse other text with a reason the model"
        " can act on."),
)
def _trailing_text(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t), optional=False)
    text = ctx.render(intent)
    tail = ctx.draw(st.sampled_from([" please", " (see [1])", " and then Answer: done", "]"]))
    at = ctx.fmt.family.action_line_end(text, ctx.fmt)
    text = text[:at] + tail + text[at:]
    # the trailing text may end up in the tool name (action-input): unknown-tool is right too
    return Writing(intent, text, Expectation(ANY_REFUSAL | {"unknown-tool"}))


@register_abuse(
    "malformed.invalid-json", family="malformed",
    description="the JSON arguments are not JSON (single quotes, trailing comma, bare key)",
    why="lenient decoders guess; a guess is a call nobody validated",
    expects="the intended call, or refused (unparseable)",
    applies=lambda f: f.family.json_arguments,
    breaks_none_because="no classic regex design reads JSON arguments",
    advice=Advice(
        STRICT_JSON,
        "Decode valid JSON arguments with `json.loads` as written, without a stricter pre-check.",
        checks={"no-crash": STRICT_JSON}),
)
def _invalid_json(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: bool(t.required_names), optional=False)
    text = ctx.render(intent)
    how = ctx.draw(st.sampled_from(["single-quotes", "trailing-comma", "bare-keys", "python"]))
    # only the arguments object: the text around it (a tag, a wrapper object, the rest of
    # a template) stays as the format writes it
    start, end, obj = args_object(text, intent)
    return Writing(intent, with_json(text, start, end, obj, how),
                   Expectation(frozenset({"unparseable", "malformed-arg"})))


_NON_FINITE = ("1e999", "-1e999", "Infinity", "-Infinity", "inf")
"""Numerals with no finite value: an exponent past a float's range, and the words Python's
``float()`` and ``json.loads`` read as infinity (JSON has none of them). Not-a-number is
left out: a call holding it never equals itself, so no check could compare two readings."""
_NUMBER_MARK = 98765.25  # a number each format writes as these very characters


@register_abuse(
    "malformed.non-finite-number", family="malformed",
    description="a number argument written as a numeral with no finite value: `1e999`, "
    "`Infinity`, `-Infinity`, `inf`, where the format writes the number",
    why="a reader that converts with `float()` and then `int()` (to drop a `.0`) raises "
    "OverflowError, which its `except ValueError` does not catch: one value ends the whole "
    "parse",
    expects="the call with an infinite value (the tool's schema decides), or refused; never "
    "an exception",
    applies=lambda f: f.arguments != "single",
    needs="a format that carries a number argument",
    breaks_none_because="the classic regexes keep every argument as text",
    advice=Advice(
        "Catch every error of the number conversion (OverflowError as well as ValueError) and"
        " refuse the value, or keep it as written: a numeral must never raise out of the"
        " parser.",
        "Refuse a number with no finite value as a malformed argument, with a message."),
)
def _non_finite_number(ctx: Context) -> Writing:
    def numeric(t: Tool) -> bool:
        return any(prop_kind(p) == "float" for p in schema_properties(t).values())

    base = ctx.call(numeric, optional=False)
    tool = ctx.registry[base.tool]
    names = [n for n, p in schema_properties(tool).items()
             if prop_kind(p) == "float" and n in (base.names or ())]
    assume(names)
    name = ctx.draw(st.sampled_from(names))
    marked = Call.named(base.tool, **(base.kwargs() | {name: _NUMBER_MARK}))
    assume(validates(ctx.registry, marked) and representable(marked, ctx.fmt))
    text = ctx.render(marked)
    assume(text.count(str(_NUMBER_MARK)) == 1)
    spelling = ctx.draw(st.sampled_from(_NON_FINITE))
    value = float(spelling)
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    # an infinity the schema refuses (-inf for an amount above 0) would make running it
    # unvalidated the finding, which every parser that skips validation has already
    assume(validates(ctx.registry, intent))
    return Writing(intent, text.replace(str(_NUMBER_MARK), spelling),
                   Expectation(ANY_REFUSAL))
