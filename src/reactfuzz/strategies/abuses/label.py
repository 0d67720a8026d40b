"""Label variants: case, spacing, numbering, markdown, indentation, line endings."""

from __future__ import annotations

import re

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import CASE, CRLF, LINES, SPACING, STRIP_MARKUP, Advice
from ...model import Intent
from ...oracle import Expectation
from ...render import render
from ..catalogue import (
    ANY_REFUSAL,
    Context,
    Writing,
    line_of,
    register_abuse,
    single_arg_ok,
    writes_label,
)
from ..text import ODD_LINE_BREAKS


def _variant(intent: Intent, new: str) -> Writing:
    """A label variant: the format refuses it (for any reason: a retry) or reads the intent."""
    return Writing(intent, new, Expectation(ANY_REFUSAL))


@register_abuse(
    "label.case", family="label",
    description="a label in another case (`action:`, `ACTION:`)",
    why="models drift in case; case-sensitive regexes then miss the action",
    expects="the intended call, or refused (unparseable)",
    applies=writes_label("action"), needs="an action label the format writes at a line start",
    breaks_none_because="every classic regex is case-sensitive: the variant costs a retry, "
    "not a wrong call",
    advice=Advice(CASE),
)
def _case(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    label = ctx.fmt.labels.action
    new = ctx.draw(st.sampled_from([label.lower(), label.upper()]))
    assume(new != label)
    return _variant(intent, ctx.fmt.line_start_re("action", number=False, colon=False).sub(
        new, text))


@register_abuse(
    "label.spacing", family="label",
    description="spacing around the label's colon (`Action :`, `Action:   x`, `Action:x`)",
    why="`\\s*` after the colon is common, a space before it is not",
    expects="the intended call, or refused (unparseable)",
    applies=writes_label("action"), needs="an action label the format writes at a line start",
    breaks_none_because="the classic patterns allow any spacing after the colon and refuse a "
    "space before it",
    advice=Advice(SPACING),
)
def _spacing(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    label = ctx.fmt.labels.action
    new = ctx.draw(st.sampled_from([f"{label} :", f"{label}:   ", f"{label}:\t", f"{label}:"]))
    m = ctx.fmt.line_start_re("action").search(text)
    if m is not None:  # the label and one space after its colon give way to the variant
        rest = text[m.end():]
        text = text[: m.start()] + new + (rest[1:] if rest.startswith(" ") else rest)
    return _variant(intent, text)


@register_abuse(
    "label.numbering", family="label",
    description="labels numbered in an unnumbered format, or the numbers dropped",
    why="numbering is the ReAct paper's habit; LangChain's copy removed it",
    expects="the intended call, or refused (unparseable)",
    applies=writes_label(), needs="labels the format writes at line starts",
    breaks_none_because="classic regexes either require the exact label or refuse",
    advice=Advice(
        "Accept a label number (`Action 1:`) in one pattern for every label, or refuse it with a"
        " reason, consistently.",
        "Allow an optional number after each label (`^Action(?: \\d+)?:`)."),
)
def _numbering(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    if ctx.fmt.numbered:
        new = re.sub(r"(?m)^(\w[\w ]*?) \d+:", r"\1:", text)
    else:
        n = ctx.draw(st.integers(1, 9))
        new = ctx.fmt.line_start_re(number=False).sub(lambda m: f"{m['word']} {n}:", text)
    return _variant(intent, new)


@register_abuse(
    "label.markdown", family="label",
    description="markdown around the action: bold labels or a code fence",
    why="chat models format their answers; the label is no longer at column 1",
    expects="the intended call, or refused (unparseable)",
    breaks=("classic-action-input",),
    advice=Advice(STRIP_MARKUP),
)
def _markdown(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    how = ctx.draw(st.sampled_from(["bold", "fence"]))
    if how == "bold":
        new = ctx.fmt.line_start_re("action").sub(lambda m: f"**{m[0]}**", text)
    else:
        new = f"```\n{text}\n```"
    return _variant(intent, new)


@register_abuse(
    "label.leading-space", family="label",
    description="the action label indented, or the completion starting with a space",
    why="a prompt ending in `Thought:` makes every completion start with a space",
    expects="the intended call, or refused (unparseable)",
    breaks_none_because="anchored classic regexes refuse an indented label; the unanchored one "
    "runs it as meant",
    advice=Advice(
        "Strip leading spaces before matching a label (or allow `^\\s*Action:`) the same way for"
        " every label.",
        "Strip leading spaces before matching a label; a prompt ending in `Thought:` makes every"
        " completion start with one."),
)
def _leading_space(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    how = ctx.draw(st.sampled_from(["indent", "leading"]))
    label = ctx.fmt.labels.action
    if how == "indent":
        new = ctx.fmt.line_start_re("action", number=False, colon=False).sub(f"  {label}", text)
        return _variant(intent, new)
    thought = ctx.thought()
    assume(ctx.fmt.family.leading_thought)  # no prompt ends in a thought label to continue
    body = render(intent, ctx.fmt)
    return Writing(intent, f" {thought}\n{body}")


@register_abuse(
    "label.crlf", family="label",
    description="Windows line endings (CRLF) throughout",
    why="clients on Windows or behind proxies add `\\r`; a `$` before `\\r` fails",
    expects="the intended call (the formats accept CRLF)",
    breaks_none_because="the classic patterns end in `\\s*$` or strip, which swallow the `\\r`",
    advice=Advice(CRLF),
)
def _crlf(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent).replace("\n", "\r\n") + "\r\n"
    return Writing(intent, text)


@register_abuse(
    "label.odd-line-break", family="label",
    description="the line break before the action is a Unicode one (`\\u2028`, `\\x85`, `\\r`)",
    why="`re.MULTILINE` and `str.splitlines()` disagree on where the action line starts",
    expects="the intended call, or refused (unparseable)",
    applies=writes_label("action"), needs="an action label the format writes at a line start",
    breaks_none_because="classic regexes see no action line and refuse; none runs another call",
    advice=Advice(LINES),
)
def _odd_break(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    brk = ctx.draw(st.sampled_from(ODD_LINE_BREAKS))
    at = line_of(text, ctx.fmt, "action")
    assume(at > 0)
    return _variant(intent, text[: at - 1] + brk + text[at:])
