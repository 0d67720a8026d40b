"""Quotes a parser strips or keeps: a quoted argument, stray quotes, quoted phrases.

A format with a quote (:attr:`Family.quote`) says what a quoted argument means; a text
with quotes that are content (``"a" b "c"``, a lone ``a"``, typographic quotes) must
reach the tool as written, and a parser that strips quotes it was not asked to strip
runs another value.
"""

from __future__ import annotations

import json

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import WHOLE_TEXT, Advice
from ...model import Call
from ..catalogue import Context, Writing, register_abuse
from ..values import validates
from ._parts import free_call, render_with

TYPOGRAPHIC = (("\u201c", "\u201d"), ("\u2018", "\u2019"), ("\u00ab", "\u00bb"))
"""Typographic quote pairs models write (English double and single, guillemets)."""


@register_abuse(
    "quoting.wrapped", family="quoting",
    description="an argument that needs no quotes written in the format's quotes anyway",
    why="the format's quote is syntax (`search[\"Paris\"]` means Paris); a parser that keeps "
    "it searches for `\"Paris\"`",
    expects="the intended call, without the quotes",
    applies=lambda f: f.family.quote is not None and not f.family.named_args,
    breaks=("classic-bracket", "classic-unanchored"),
    advice=Advice(
        "Decode a quoted argument as its value (`\"Paris\"` means Paris) instead of running the"
        " tool with the quotes kept.",
        WHOLE_TEXT),
)
def _wrapped(ctx: Context) -> Writing:
    base, name = free_call(ctx)
    word = ctx.draw(st.sampled_from(["Paris", "a", "refund policy"]))
    intent = Call.named(base.tool, **(base.kwargs() | {name: word}))
    assume(validates(ctx.registry, intent))
    quote = ctx.fmt.family.quote
    assert quote is not None
    quoted = json.dumps(word) if quote == '"' else f"{quote}{word}{quote}"
    text = render_with(ctx, base, name, quoted)
    return Writing(intent, text, quoted=True)


@register_abuse(
    "quoting.content", family="quoting",
    description="quotes that are content: `\"a\" b \"c\"`, a lone `a\"`, typographic quotes",
    why="`.strip('\"')` turns `\"a\" b \"c\"` into `a\" b \"c`: another query than the model's",
    expects="the text as written, or refused where the format needs quoting for it",
    breaks_none_because="the classic regexes keep every character between the brackets or "
    "after the input label",
    advice=Advice(WHOLE_TEXT),
)
def _content(ctx: Context) -> Writing:
    base, name = free_call(ctx)
    how = ctx.draw(st.sampled_from(["phrases", "trailing", "leading", "typographic"]))
    if how == "phrases":
        value = '"a" b "c"'
    elif how == "trailing":
        value = 'a"'
    elif how == "leading":
        value = '"a'
    else:
        op, cl = ctx.draw(st.sampled_from(TYPOGRAPHIC))
        value = ctx.draw(st.sampled_from([f"{op}a{cl}", f"the {op}a{cl} b"]))
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(validates(ctx.registry, intent))
    return Writing(intent, ctx.render(intent))
