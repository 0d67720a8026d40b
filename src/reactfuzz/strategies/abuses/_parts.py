"""Helpers the newer operator modules share: a free-text argument and a marked rendering."""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from ...model import Call
from ..catalogue import Context, free_params, single_arg_ok

__all__ = ["MARK", "free_call", "render_with"]

MARK = "zqxmarkqxz"
"""A placeholder argument value: rendered, then replaced with the operator's own writing."""


def free_call(ctx: Context) -> tuple[Call, str]:
    """A drawn call with a free-text argument, and that argument's name."""
    base = ctx.call(lambda t: bool(free_params(t)) and single_arg_ok(ctx.fmt, t))
    tool = ctx.registry[base.tool]
    names = [n for n in free_params(tool) if n in (base.names or ())]
    assume(names)
    return base, ctx.draw(st.sampled_from(names))


def render_with(ctx: Context, base: Call, name: str, written: str, *,
                thought: str | None = None) -> str:
    """``base`` rendered with argument ``name`` written exactly as ``written`` (its whole
    written form: a JSON family's quotes are part of it)."""
    marked = Call.named(base.tool, **(base.kwargs() | {name: MARK}))
    text = ctx.render(marked, thought=thought)
    return text.replace(ctx.fmt.family.written_value(MARK), written, 1)
