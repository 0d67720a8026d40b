"""Markup: markdown around each part of an action, headings, bullets, multi-line inputs.

Chat models format their text: a bold label, a bold tool name, arguments in backticks,
the action in a fence, a heading or a bullet before a label, an argument over several
lines. Where the markup sits is taken from the written completion (the action label's
line, the argument's written form), never from a hard-coded label.
"""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import MULTILINE_ARG, NAMES, STRIP_MARKUP, Advice
from ...model import Call
from ...oracle import Expectation
from ..catalogue import (
    ANY_REFUSAL,
    Context,
    Writing,
    register_abuse,
    single_arg_ok,
    writes_label,
)
from ..values import validates
from ._parts import args_object, free_call, render_with, with_json

_WRAPS = (("**", "**"), ("`", "`"), ("__", "__"), ("*", "*"))
"""Markdown emphasis and code spans, as (opening, closing)."""


def _wrap_part(ctx: Context, text: str, part: str) -> str:
    """``text`` with one part of its action line wrapped in drawn markdown."""
    op, cl = ctx.draw(st.sampled_from(_WRAPS))
    m = ctx.fmt.line_start_re("action").search(text)
    assume(m is not None)
    assert m is not None
    line_end = text.find("\n", m.end())
    line_end = len(text) if line_end < 0 else line_end
    if part == "label":
        return text[: m.start()] + op + m[0] + cl + text[m.end():]
    if part == "line":
        return text[: m.start()] + op + text[m.start(): line_end] + cl + text[line_end:]
    # the tool name: the first word after the label
    rest = text[m.end(): line_end]
    name_at = m.end() + len(rest) - len(rest.lstrip())
    name_end = name_at
    while name_end < line_end and (text[name_end].isalnum() or text[name_end] == "_"):
        name_end += 1
    return text[:name_at] + op + text[name_at:name_end] + cl + text[name_end:]


@register_abuse(
    "markup.emphasis", family="markup",
    description="bold, italic or a code span around one part of the action: the label, the "
    "tool name, or the whole line",
    why="chat models format their replies; `\\w+` reads `__search__` as the name and "
    "`tools[name]` dies with KeyError",
    expects="the intended call, or refused (unparseable / unknown-tool)",
    applies=writes_label("action"), needs="an action label the format writes at a line start",
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(STRIP_MARKUP, checks={"no-crash": NAMES}),
)
def _emphasis(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    part = ctx.draw(st.sampled_from(["label", "name", "line"]))
    return Writing(intent, _wrap_part(ctx, ctx.render(intent), part), Expectation(ANY_REFUSAL))


@register_abuse(
    "markup.argument", family="markup",
    description="an argument wrapped in bold or backticks",
    why="the markup is decoration, not data: a parser that keeps it runs the tool with "
    "`**Paris**`",
    expects="the intended call, or refused; a call with the markup kept is the format's "
    "reading (a protocol note)",
    breaks_none_because="the classic designs keep the markup, as the format's grammar does",
    advice=Advice(
        "Strip markdown emphasis around a whole argument (`**Paris**`) or refuse it; never run"
        " the tool with the markup as data.",
        STRIP_MARKUP,
        protocol="The format reads markup around an argument as data: tell the model to write"
                 " arguments without markdown, or strip emphasis before validating."),
)
def _argument(ctx: Context) -> Writing:
    base, name = free_call(ctx)
    word = ctx.draw(st.sampled_from(["Paris", "a"]))
    op, cl = ctx.draw(st.sampled_from(_WRAPS))
    intent = Call.named(base.tool, **(base.kwargs() | {name: word}))
    assume(validates(ctx.registry, intent))
    written = op + ctx.fmt.family.written_value(word) + cl
    return Writing(intent, render_with(ctx, base, name, written), Expectation(ANY_REFUSAL))


@register_abuse(
    "markup.block", family="markup",
    description="a fence (with or without a language) around the action alone, a heading or "
    "a bullet before a label, a quote marker",
    why="the label is no longer at column 1, or the action sits between fence lines",
    expects="the intended call, or refused (unparseable)",
    applies=writes_label("action"), needs="an action label the format writes at a line start",
    breaks_none_because="the anchored classic patterns see no action line and refuse; the "
    "unanchored one runs the action as meant",
    advice=Advice(STRIP_MARKUP),
)
def _block(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    how = ctx.draw(st.sampled_from(["fence", "heading", "bullet", "quote"]))
    m = ctx.fmt.line_start_re().search(text) if how != "fence" else None
    if how == "fence":
        at = ctx.fmt.line_start_re("action").search(text)
        assume(at is not None)
        assert at is not None
        lang = ctx.draw(st.sampled_from(["", "text", "json", "python"]))
        new = text[: at.start()] + f"```{lang}\n" + text[at.start():] + "\n```"
    else:
        assume(m is not None)
        prefix = {"heading": ctx.draw(st.sampled_from(["# ", "## ", "### "])),
                  "bullet": ctx.draw(st.sampled_from(["- ", "* ", "1. "])),
                  "quote": "> "}[how]
        every = ctx.draw(st.booleans())
        new = ctx.fmt.line_start_re().sub(lambda x: prefix + x[0], text,
                                           count=0 if every else 1)
    return Writing(intent, new, Expectation(ANY_REFUSAL))


@register_abuse(
    "markup.multiline-input", family="markup",
    description="an argument written over several lines (a pretty-printed JSON object, or "
    "text with line breaks)",
    why="`(.+)` without DOTALL keeps the first line; a parser that reads to the end keeps "
    "them all",
    expects="the intended call (the whole text), or refused where the format cannot carry "
    "a line break",
    breaks=("classic-action-input",),
    advice=Advice(MULTILINE_ARG),
)
def _multiline(ctx: Context) -> Writing:
    if ctx.fmt.family.json_arguments:
        base = ctx.call(lambda t: bool(t.required_names), optional=False)
        text = ctx.render(base)
        start, end, blob = args_object(text, base)
        indent = ctx.draw(st.sampled_from([2, 4]))
        return Writing(base, with_json(text, start, end, blob, "indented", indent=indent))
    base, name = free_call(ctx)
    lines = ctx.draw(st.sampled_from([["a", "b"], ["first line", "second", "third"]]))
    intent = Call.named(base.tool, **(base.kwargs() | {name: "\n".join(lines)}))
    assume(validates(ctx.registry, intent))
    return Writing(intent, ctx.render(intent), Expectation(frozenset({"unparseable"})))
