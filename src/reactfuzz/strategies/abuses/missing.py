"""Missing arguments: a required one dropped, empty brackets, no input line."""

from __future__ import annotations

from hypothesis import strategies as st

from ...model import Call
from ...oracle import Expectation
from ..catalogue import (
    Context,
    Writing,
    multi_arg,
    register_abuse,
)


@register_abuse(
    "missing.argument-dropped", family="missing",
    description="a required argument is left out",
    why="the classic loop calls fn(*args): TypeError kills it, or the others shift position",
    expects="refused as missing-arg (positional text may also read as malformed)",
    breaks=("classic", "classic-unanchored", "classic-action-input"),
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
    breaks=("classic", "classic-unanchored"),
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
)
def _no_action_input(ctx: Context) -> Writing:
    base = ctx.call(lambda t: len(t.required_names) == 1, optional=False)
    text = ctx.render(base)
    role = ctx.fmt.family.input_role
    assert role is not None
    label = f"\n{getattr(ctx.fmt.labels, role)}:"
    text = text[: text.find(label)]
    return Writing(Call.named(base.tool), text, Expectation(frozenset({"unparseable"})))
