"""Layout: the whole action's JSON spread over several lines, as models pretty-print it.

Where an action is a JSON value larger than its arguments (a ``{"name", "arguments"}``
blob, a tag's call object, a template's action list), models write it indented over
several lines, or put it on the line after the label. The arguments object alone over
several lines is ``markup.multiline-input``; this operator spreads the value around it.
Where that value is and whether it holds more than the arguments is read from a written
action of the format, never from its name.
"""

from __future__ import annotations

import json
from functools import lru_cache

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import MULTILINE_ARG, Advice
from ...formats import Format
from ...formats.grammars import grammar_parse
from ...model import FinalAnswer, Intent
from ...render import render, representable
from ..catalogue import Context, Writing, register_abuse, writes_label
from ._parts import PROBE, outer_value, with_json


@lru_cache(maxsize=64)
def _has_outer_value(fmt: Format) -> bool:
    if not fmt.family.json_arguments:
        return False
    text = render(PROBE, fmt)
    if '"query": "zqxprobeqxz"' not in text:
        return False
    decoder = json.JSONDecoder()
    at = text.find('{"query"')
    for start, ch in enumerate(text[:at]):
        if ch in "[{":
            try:
                _, end = decoder.raw_decode(text, start)
            except ValueError:
                continue
            return end > text.find("}", at)
    return False


@register_abuse(
    "layout.pretty-action", family="layout",
    description="the action's whole JSON value (blob, call object, action list) "
    "pretty-printed over several lines, or begun on the line after the label",
    why="a regex without DOTALL, or a decoder in strict mode, reads one line of an action "
    "the model spread over several: the call is lost",
    expects="the intended call",
    applies=_has_outer_value,
    breaks_none_because="no classic regex design reads a JSON action",
    advice=Advice(MULTILINE_ARG),
)
def _pretty_action(ctx: Context) -> Writing:
    base = ctx.call(lambda t: bool(t.required_names), optional=False)
    text = ctx.render(base)
    where = outer_value(text, base)
    assume(where is not None)
    assert where is not None
    start, end = where
    how = ctx.draw(st.sampled_from(["indent-2", "indent-4", "next-line"]))
    if how == "next-line":
        return Writing(base, text[:start].rstrip(" ") + "\n" + text[start:])
    value = json.loads(text[start:end])
    return Writing(base, with_json(text, start, end, value, "indented", indent=int(how[-1])))


_MOVES = ("no-thought", "value-on-next-line", "blank-line-before")


@register_abuse(
    "layout.part-moved", family="layout",
    description="one part of the protocol left out or moved, the rest as written: no "
    "thought at all, a label's value on the line after the label (`Action:` then "
    "`search[x]`), or a blank line before the action or answer",
    why="a reader that insists on a thought before the action, on the value on the label's "
    "own line (`[ \\t]*` where the format allows a line break) or on adjacent lines drops "
    "a completion the format reads as the same call",
    expects="the intended call or answer",
    applies=writes_label("action", "action_input", "answer"),
    breaks=("classic-unanchored",),
    advice=Advice(
        "Read each label's value from the label to the next label line, a line break after the"
        " label included, and do not require a thought before the action.",
        "Allow a line break after a label, blank lines between blocks and a completion with no"
        " thought, as the format does; refusing them drops valid calls."),
)
def _part_moved(ctx: Context) -> Writing:
    intent: Intent = (ctx.call() if ctx.draw(st.booleans())
                      else FinalAnswer(ctx.thought()))
    assume(representable(intent, ctx.fmt))
    move = ctx.draw(st.sampled_from(_MOVES))
    if move == "no-thought":
        return Writing(intent, render(intent, ctx.fmt, thought=None))
    text = ctx.render(intent)
    # the label that starts the intent's own lines: the input's, else the action's or the
    # answer's (a label word followed by its colon at a line start)
    roles = ("action_input", "action", "answer")
    starts = [m for role in roles if getattr(ctx.fmt.labels, role)
              for m in [ctx.fmt.line_start_re(role).search(text)] if m is not None]
    assume(starts)
    first = min(starts, key=lambda m: m.start())
    if move == "blank-line-before":
        assume(first.start() > 0)
        return Writing(intent, text[: first.start()] + "\n" + text[first.start():])
    # the value of the intent's last label on the next line, where the format reads it
    # the same (an input or an answer runs over lines, a bracket or blob action may start
    # on the next line; a tool name after `Action:` must stay on its line): the format's
    # own grammar says which
    label = max(starts, key=lambda m: m.start())
    end = label.end()
    rest = text[end:]
    assume(rest.startswith(" ") and not rest.startswith(" \n"))
    moved = text[:end] + "\n" + rest[1:]
    assume(grammar_parse(moved, ctx.fmt).intent() == grammar_parse(text, ctx.fmt).intent())
    return Writing(intent, moved)
