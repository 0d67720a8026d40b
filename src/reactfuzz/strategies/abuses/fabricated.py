"""Fabricated observations: the model writes the tool's result itself."""

from __future__ import annotations

from hypothesis import strategies as st

from ...fixes import STOP, Advice
from ...model import FinalAnswer
from ...oracle import Expectation
from ...render import render
from ..catalogue import (
    Context,
    Writing,
    register_abuse,
    single_arg_ok,
)


def _fabricated_tail(ctx: Context) -> str:
    obs = ctx.fmt.label("observation", 1)
    thought = ctx.fmt.label("thought", 2)
    fake = ctx.draw(st.sampled_from(["all invoices were refunded", "[]", "ok"]))
    end = render(FinalAnswer("the tool said all is fine"), ctx.fmt, step=2)
    return f"\n{obs} {fake}\n{thought} good\n{end}"


@register_abuse(
    "fabricated.observation", family="fabricated",
    description="the model writes its own Observation (and an answer) after the action",
    why="with the stop sequence the provider cuts it; this checks the cut keeps the action",
    expects="the intended call",
    breaks_none_because="the stop sequence removes the fabricated text before any parser sees it",
    advice=Advice(STOP),
)
def _fabricated(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    core = ctx.render(intent)
    if not ctx.fmt.stop:  # a format without stop sequences: the whole text reaches the parser
        return Writing(intent, core + _fabricated_tail(ctx), _NO_STOP_EXPECTATION, core_end=None)
    return Writing(intent, core + _fabricated_tail(ctx), core_end=len(core))


@register_abuse(
    "fabricated.observation-no-stop", family="fabricated",
    description="as fabricated.observation, but the client sent no stop sequence",
    why="the fabricated tool result and answer reach the parser",
    expects="the intended call, or refused; never the fabricated answer",
    breaks=("classic-bracket", "classic-action-input"),
    no_stop=True,
    advice=Advice(STOP, protocol=STOP),
)
def _fabricated_no_stop(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    core = ctx.render(intent)
    return Writing(intent, core + _fabricated_tail(ctx), _NO_STOP_EXPECTATION, core_end=None)


_NO_STOP_EXPECTATION = Expectation(
    frozenset({"unparseable", "ambiguous"}), note="a fabricated observation follows"
)


NO_STOP = frozenset({"fabricated.observation-no-stop"})
"""Operators whose text reaches the parser without the provider's stop-sequence cut."""
