"""Missing pieces: a required argument dropped, empty brackets, no input line, no closing tag."""

from __future__ import annotations

import json
from functools import lru_cache

from hypothesis import strategies as st

from ...fixes import BIND, CALL_SHAPE, Advice
from ...formats import Format
from ...model import Call
from ...oracle import Expectation
from ...render import render
from ..catalogue import (
    ANY_REFUSAL,
    Context,
    Writing,
    multi_arg,
    register_abuse,
)
from ._parts import PROBE, args_object, outer_value, with_json


@register_abuse(
    "missing.argument-dropped", family="missing",
    description="a required argument is left out",
    why="the classic loop calls fn(*args): TypeError kills it, or the others shift position",
    expects="refused as missing-arg (positional text may also read as malformed)",
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(
        BIND,
        "Let the schema decide: an omitted optional argument takes its default and the call"
        " runs.",
        checks={"no-crash": BIND}),
)
def _arg_dropped(ctx: Context) -> Writing:
    base = ctx.call(lambda t: len(t.required_names) >= 1, optional=False)
    tool = ctx.registry[base.tool]
    name = ctx.draw(st.sampled_from(list(tool.required_names)))
    kwargs = {k: v for k, v in base.kwargs().items() if k != name}
    intent = Call.named(base.tool, **kwargs)
    return Writing(intent, ctx.render(intent), Expectation(frozenset({"unparseable"})))


@register_abuse(
    "missing.empty-brackets", family="missing",
    description="the action is written with no arguments at all",
    why="`name[]` splits into one empty argument for a classic loop",
    expects="refused as missing-arg",
    applies=multi_arg,
    breaks=("classic-bracket", "classic-unanchored"),
    advice=Advice(
        BIND,
        "Read `name[]` as a call with no arguments and let the schema decide whether that is"
        " enough.",
        checks={"no-crash": BIND}),
)
def _empty_brackets(ctx: Context) -> Writing:
    base = ctx.call(lambda t: len(t.required_names) >= 1, optional=False)
    intent = Call.named(base.tool)
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "missing.no-action-input", family="missing",
    description="the `Action Input:` line is missing",
    why="the MRKL regex needs both lines; a lenient one may run the tool with no input",
    expects="refused (unparseable / missing-arg)",
    applies=lambda f: f.family.input_role is not None,
    breaks_none_because="classic-action-input finds no Action/Action Input pair and refuses",
    advice=Advice(
        "Refuse an action without its `Action Input:` line (or with an empty one when the tool"
        " needs an argument) instead of running the tool with no input.",
        "Accept the `Action Input:` line with the spacing and case the format allows.",
        checks={"no-crash": BIND}),
)
def _no_action_input(ctx: Context) -> Writing:
    base = ctx.call(lambda t: len(t.required_names) == 1, optional=False)
    text = ctx.render(base)
    role = ctx.fmt.family.input_role
    assert role is not None
    label = f"\n{getattr(ctx.fmt.labels, role)}:"
    text = text[: text.find(label)]
    return Writing(Call.named(base.tool), text, Expectation(frozenset({"unparseable"})))


@lru_cache(maxsize=64)
def closing_mark(fmt: Format) -> str | None:
    """What closes a call as the format writes it and nothing else needs: the call tag's
    closing tag or the fence after a JSON blob; ``None`` when a call has no such end."""
    text = render(PROBE, fmt)
    for mark in (f"</{fmt.tag}>", "```"):
        if text.rstrip().endswith(mark) and text.count(mark) == (2 if mark == "```" else 1):
            return mark
    return None


@register_abuse(
    "missing.close-tag", family="missing",
    description="the call's closing tag or fence left out at the end of the completion, "
    "its JSON written compact or as the format writes it",
    why="a pattern that needs the closing tag finds no call and the text, tag included, "
    "becomes the answer; a fallback for the missing tag may read only one JSON spacing",
    expects="the intended call, or refused",
    applies=lambda f: closing_mark(f) is not None,
    needs="a closing tag or fence after each call",
    breaks_none_because="the classic formats close a call with a bracket, not a tag",
    advice=Advice(
        "Read a call whose closing tag or fence is missing at the end of the message (decode the"
        " JSON after the opening tag, whatever its spacing) or refuse it with a reason; never"
        " show the raw call to the user as the answer.",
        CALL_SHAPE),
)
def _close_tag(ctx: Context) -> Writing:
    base = ctx.call()
    text = ctx.render(base)
    mark = closing_mark(ctx.fmt)
    assert mark is not None
    cut = text.rstrip()
    cut = cut[: len(cut) - len(mark)].rstrip()
    if ctx.draw(st.booleans()):  # `{"name":"search",...}`: spacing a fallback may not read
        where = outer_value(cut, base)  # the whole call object, else the arguments
        start, end = where if where is not None else args_object(cut, base)[:2]
        cut = with_json(cut, start, end, json.loads(cut[start:end]), "compact")
    return Writing(base, cut, Expectation(ANY_REFUSAL))
