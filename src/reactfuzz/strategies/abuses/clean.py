"""No abuse: the intent written exactly as the format says (the baseline)."""

from __future__ import annotations

from hypothesis import strategies as st

from ...fixes import CLEAN_MISREAD, Advice
from ...model import FinalAnswer
from ..catalogue import (
    Context,
    Writing,
    register_abuse,
    single_arg_ok,
)


@register_abuse(
    "clean.render", family="clean",
    description="no abuse: the intent written exactly as the format says",
    why="the baseline every other operator is measured against; also the round-trip check",
    expects="the intended call or answer",
    breaks=("classic-unanchored",),
    advice=Advice(
        CLEAN_MISREAD,
        "Your parser refuses the format's own clean output: compare its labels, argument"
        " encoding and quoting with `reactfuzz parse --format FORMAT` and fix the pattern.",
        checks={"no-crash": CLEAN_MISREAD}),
)
def _clean(ctx: Context) -> Writing:
    if ctx.draw(st.booleans()):
        answer = FinalAnswer(ctx.thought())
        return Writing(answer, ctx.render(answer))
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    return Writing(intent, ctx.render(intent))
