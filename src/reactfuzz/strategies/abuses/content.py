"""Argument content as users write it: apostrophes, quotes, backslashes, accents, emoji.

The other operators draw plain words for the values they do not abuse, so a finding names
the operator that made it. Real arguments are not plain words: ``the user's invoice``,
``say "hi"``, ``C:\\Users``, ``Zürich``, ``refund 🎉``. The format writes them as it
writes any text (a JSON family with its escapes, ``\\"`` and ``\\\\``, and now and then
with ``\\u`` escapes for what is not ASCII); a parser that rewrites the text before
reading it (every ``'`` made a ``"`` to "fix" single-quoted JSON, an encoding guessed)
loses the call while the text is valid.

Real text also mixes: a user asks about ``O'Hare [terminal 2]``, quotes a ``</function>``
tag or an ``Action:`` label, and the model writes the arguments compact, with ``\\u``
escapes, over several lines, or in a syntax lenient decoders accept (single quotes, a
trailing comma, bare keys). Many decoders misread only one *combination* of piece and
writing (an escaped emoji behind a trailing comma, a label at the end of a line of a
pretty-printed object), so ``content.mixed-text`` and ``content.lenient-json`` draw
several pieces and a way of writing them: a larger space, where a larger budget meets
combinations a small one does not.
"""

from __future__ import annotations

import math
from functools import lru_cache

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import IN_PLACE, LENIENT, STRICT_JSON, WHOLE_TEXT, Advice
from ...formats import Format
from ...model import Call, FinalAnswer, Intent
from ...oracle import Expectation
from ...render import render, representable
from ..catalogue import Context, Writing, register_abuse
from ..text import all_labels
from ..values import REAL_TEXT, real_text, validates
from ._parts import (
    ESCAPES,
    LENIENT_JSON,
    PROBE,
    args_object,
    free_call,
    render_with,
    with_json,
    written_json,
)


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
    advice=Advice(WHOLE_TEXT),
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
        text = render_with(ctx, base, name, written_json(value, escapes="ascii"))
    else:
        text = render_with(ctx, base, name, family.written_value(value))
    return Writing(intent, text)


TYPE_LOOKALIKES = ("null", "None", "NULL", "nil", "true", "False", "yes", "0", "007",
                   "1e3", "-1", "NaN", "[]", "{}", "0x1F", "1_000")
"""Texts that read as another type to a reader that guesses: JSON and Python literals,
YAML's booleans, a number with a leading zero, an exponent, a hex or underscore form."""


@register_abuse(
    "content.typed-lookalike", family="content",
    description="a free-text argument whose text reads as another type: `null`, `None`, "
    "`true`, `007`, `1e3`, `[]` (a user searching for the word null, an id with a "
    "leading zero), written as the format writes text",
    why="a reader that types values by guessing (`json.loads` then the string, "
    "`ast.literal_eval`, `value.lower() == \"null\"` for every type) instead of by the "
    "tool's schema runs the call with None, a bool or a number where the tool takes text",
    expects="the intended call, with the text exactly as meant",
    breaks_none_because="the classic regexes keep every argument as the text written; the "
    "operator catches readers that type values by their look",
    advice=Advice(
        "Type each value by the tool's schema, not by its look: a string parameter keeps `null`,"
        " `None`, `true` or `007` as text.",
        "Type each value by the tool's schema, not by its look: text that reads as null or a"
        " number is still a valid string."),
)
def _typed_lookalike(ctx: Context) -> Writing:
    base, name = free_call(ctx)
    value = ctx.draw(st.sampled_from(TYPE_LOOKALIKES))
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(validates(ctx.registry, intent))
    assume(representable(intent, ctx.fmt))
    text = render_with(ctx, base, name, ctx.fmt.family.written_value(value))
    return Writing(intent, text)


@lru_cache(maxsize=64)
def special_pieces(fmt: Format) -> tuple[str, ...]:
    """The format's special strings as a value may hold them on one line: its labels, its
    delimiters, the call tag it closes with and its think tags, brackets and a fence;
    never a stop sequence (the provider cuts there: ``injected.stop-in-argument``) nor a
    line break (``injected.unicode-line-break``)."""
    probe = render(PROBE, fmt)
    tags = [f"</{fmt.tag}>", f"<{fmt.tag}>"] if f"</{fmt.tag}>" in probe else []
    if f"</{fmt.think_tag}>" in render(PROBE, fmt, thought="t"):  # a reader may split there
        tags += [f"</{fmt.think_tag}>", f"<{fmt.think_tag}>"]
    # whole lines the writer puts around a call or an answer: headers, tags, fences
    lines = [line.strip() for text in (probe, render(FinalAnswer("zqxprobeqxz"), fmt))
             for line in text.split("\n") if "probe" not in line and len(line) <= 40]
    pieces = [*all_labels(fmt), *tags, *lines, *fmt.family.delimiters,
              "{", "}", "[", "]", "```"]
    return tuple(dict.fromkeys(
        p for p in pieces
        if p.strip() and "\n" not in p and not any(s in p or p in s for s in fmt.stop if s)))


@lru_cache(maxsize=64)  # one strategy object a format: a new one is validated at each draw
def mixed_text(fmt: Format, most: int = 4) -> st.SearchStrategy[str]:
    """Two to ``most`` pieces of :data:`REAL_TEXT` and of the format's special strings,
    joined by spaces (shrinks to ``it's it's``)."""
    piece = st.one_of(st.sampled_from(REAL_TEXT), st.sampled_from(special_pieces(fmt)))
    return st.lists(piece, min_size=2, max_size=most).map(" ".join)


def most_pieces(ctx: Context) -> int:
    """Pieces one mixed text holds at most: four at the default budget, two more each time
    the budget doubles (ten at ten times it), so a larger budget draws the combinations of
    three and four special strings a misreading may need, not only more pairs."""
    return 4 + 2 * int(math.log2(max(1.0, ctx.sizes.scale)))


@register_abuse(
    "content.mixed-text", family="content",
    description="a free-text argument, or a final answer, mixing real text with the "
    "format's own strings on one line (`O'Hare ] </function> 🎉`, `Actions: [ it's`), "
    "written as the format writes it: compact or over several lines, with `\\u` and "
    "`\\/` escapes or without",
    why="a reader that finds a label or a closing tag anywhere, or one line of a "
    "pretty-printed object, misreads only some combinations of piece and layout",
    expects="the intended call, or the intended answer, exactly",
    breaks=("classic-bracket", "classic-action-input", "classic-unanchored"),
    advice=Advice(IN_PLACE),
)
def _mixed_text(ctx: Context) -> Writing:
    value = ctx.draw(mixed_text(ctx.fmt, most_pieces(ctx)))
    family = ctx.fmt.family
    answers = ctx.fmt.labels.answer is not None or bool(ctx.fmt.finish_action)
    if answers and ctx.draw(st.booleans()):
        answer: Intent = FinalAnswer(value)
        assume(representable(answer, ctx.fmt))
        return Writing(answer, ctx.render(answer))
    if not family.json_arguments:
        base, name = free_call(ctx)
        intent = _with_value(ctx, base, name, value)
        return Writing(intent, render_with(ctx, base, name, family.written_value(value)))
    return _rewritten(ctx, value, ["spaced", "indented"])


@register_abuse(
    "content.lenient-json", family="content",
    description="JSON arguments holding real text, in a syntax lenient decoders read and "
    "JSON does not: single quotes, a trailing comma, bare keys, a Python dict; with or "
    "without `\\u` and `\\/` escapes",
    why="a JSON5 or repair decoder reads the syntax, then decodes the text wrong: an "
    "escaped emoji as two lone surrogates, `\\/` as a backslash and a slash",
    expects="the intended call, or refused (unparseable / malformed-arg)",
    applies=lambda f: f.family.json_arguments,
    breaks_none_because="no classic regex design reads JSON arguments",
    advice=Advice(LENIENT, STRICT_JSON),
)
def _lenient_json(ctx: Context) -> Writing:
    value = ctx.draw(st.one_of(real_text(), mixed_text(ctx.fmt, most_pieces(ctx))))
    return _rewritten(ctx, value, list(LENIENT_JSON),
                      Expectation(frozenset({"unparseable", "malformed-arg"})))


def _with_value(ctx: Context, base: Call, name: str, value: str) -> Call:
    """``base`` with its free-text argument ``name`` set to ``value``, if the tool's schema
    and the format both carry it (else the example is discarded)."""
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(validates(ctx.registry, intent))
    assume(representable(intent, ctx.fmt))
    return intent


def _rewritten(ctx: Context, value: str, ways: list[str],
               expect: Expectation | None = None) -> Writing:
    """A call carrying ``value`` whose arguments object is written one of ``ways`` (see
    :func:`~._parts.written_json`), its strings escaped one of :data:`ESCAPES`; the text
    around it stays as the format writes it."""
    base, name = free_call(ctx)
    intent = _with_value(ctx, base, name, value)
    how = ctx.draw(st.sampled_from(ways))
    escapes = ctx.draw(st.sampled_from(ESCAPES))
    text = ctx.render(intent)
    start, end, obj = args_object(text, intent)
    return Writing(intent, with_json(text, start, end, obj, how, escapes=escapes), expect)
