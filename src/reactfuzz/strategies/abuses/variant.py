"""Label variants of every role: case and spacing of thought, input, answer labels too.

The ``label.*`` operators vary the action label; these vary any label the completion
carries (thought, action, action input, answer), in the first, the last or every
position it stands.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import CASE, SPACING, Advice
from ...formats import label_pattern
from ...model import FinalAnswer, Intent
from ...oracle import Expectation
from ..catalogue import (
    ANY_REFUSAL,
    Context,
    Writing,
    register_abuse,
    single_arg_ok,
    writes_label,
)


def _intent(ctx: Context) -> Intent:
    if ctx.draw(st.booleans()):
        return FinalAnswer(ctx.thought())
    return ctx.call(lambda t: single_arg_ok(ctx.fmt, t))


def _roles_in(ctx: Context, text: str) -> list[str]:
    """The label roles written at a line start of ``text``."""
    return [r for r in ctx.fmt.labels.all() if ctx.fmt.line_start_re(r).search(text)]


def _vary(ctx: Context, text: str, new: Callable[[re.Match[str]], str]) -> str:
    """Replace a drawn role's label (first, last or every line) with ``new(match)``."""
    roles = _roles_in(ctx, text)
    assume(roles)
    role = ctx.draw(st.sampled_from(roles))
    word = ctx.fmt.labels.all()[role]
    pat = re.compile(label_pattern([word], line_start=True, capture=True) + "(?P<sp> ?)")
    hits = list(pat.finditer(text))
    where = ctx.draw(st.sampled_from(["first", "last", "every"]))
    chosen = hits if where == "every" else [hits[0] if where == "first" else hits[-1]]
    out = text
    for m in reversed(chosen):
        out = out[: m.start()] + new(m) + out[m.end():]
    return out


@register_abuse(
    "variant.case", family="variant",
    description="any label (thought, action, input, answer) in lower, upper or title case",
    why="models drift in case; a case-sensitive `\"Answer:\" in text` misses `ANSWER:` and a "
    "case-insensitive one finds it in a thought",
    expects="the intended call or answer, or refused (unparseable)",
    applies=writes_label(), needs="labels the format writes at line starts",
    breaks_none_because="every classic pattern is case-sensitive: a variant costs a retry",
    advice=Advice(CASE),
)
def _case(ctx: Context) -> Writing:
    intent = _intent(ctx)
    text = ctx.render(intent)
    how = ctx.draw(st.sampled_from([str.lower, str.upper, str.title, str.swapcase]))

    def new(m: re.Match[str]) -> str:
        return how(m["word"]) + m["num"] + ":" + m["sp"]

    out = _vary(ctx, text, new)
    assume(out != text)
    return Writing(intent, out, Expectation(ANY_REFUSAL))


@register_abuse(
    "variant.spacing", family="variant",
    description="any label with a space before its colon, a tab or no space after it, or "
    "two spaces inside a two-word label",
    why="`\\s*` after the colon is common, a space before it or inside the label is not",
    expects="the intended call or answer, or refused (unparseable)",
    applies=writes_label(), needs="labels the format writes at line starts",
    breaks_none_because="the classic patterns allow any spacing after the colon and refuse "
    "the other variants",
    advice=Advice(SPACING),
)
def _spacing(ctx: Context) -> Writing:
    intent = _intent(ctx)
    text = ctx.render(intent)
    how = ctx.draw(st.sampled_from(["space-before", "tab-after", "none-after", "double"]))

    def new(m: re.Match[str]) -> str:
        word, num, sp = m["word"], m["num"], m["sp"]
        if how == "space-before":
            return f"{word}{num} :{sp}"
        if how == "double":
            return word.replace(" ", "  ") + f"{num}:{sp}"
        return f"{word}{num}:" + ("\t" if how == "tab-after" else "")

    out = _vary(ctx, text, new)
    assume(out != text)
    return Writing(intent, out, Expectation(ANY_REFUSAL))
