"""Argument content as users write it: apostrophes, quotes, backslashes, accents, emoji.

The other operators draw plain words for the values they do not abuse, so a finding names
the operator that made it. Real arguments are not plain words: ``the user's invoice``,
``say "hi"``, ``C:\\Users``, ``Zürich``, ``refund 🎉``. The format writes them as it
writes any text (a JSON family with its escapes, ``\\"`` and ``\\\\``, and now and then
with ``\\u`` escapes for what is not ASCII); a parser that rewrites the text before
reading it (every ``'`` made a ``"`` to "fix" single-quoted JSON, an encoding guessed)
loses the call while the text is valid.
"""

from __future__ import annotations

import json

from hypothesis import assume
from hypothesis import strategies as st

from ...model import Call
from ...render import representable
from ..catalogue import Context, Writing, register_abuse
from ..values import real_text, validates
from ._parts import free_call, render_with


@register_abuse(
    "content.real-text", family="content",
    description="a free-text argument holding an apostrophe, a double quote, a backslash, "
    "accented letters, CJK or an emoji (`{\"query\": \"the user's invoice\"}`), written as "
    "the format writes text",
    why="a decoder that turns every `'` into `\"` before `json.loads` (to accept "
    "single-quoted JSON) breaks `it's`, and the call is dropped while the text is valid",
    expects="the intended call, with the text exactly as meant",
    breaks_none_because="the classic regexes keep every character of an argument as "
    "written; the operator catches decoders that rewrite the text before reading it",
)
def _real_text(ctx: Context) -> Writing:
    base, name = free_call(ctx)
    value = ctx.draw(real_text())
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(validates(ctx.registry, intent))
    assume(representable(intent, ctx.fmt))  # what the format carries, and nothing else
    family = ctx.fmt.family
    if family.json_arguments and not value.isascii() and ctx.draw(st.booleans()):
        # `\u00e9` instead of `é`: the same JSON string, as ASCII-only encoders write it
        text = render_with(ctx, base, name, json.dumps(value))
    else:
        text = render_with(ctx, base, name, family.written_value(value))
    return Writing(intent, text)
