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

from ...formats import Format
from ...render import render
from ..catalogue import Context, Writing, register_abuse
from ._parts import PROBE, outer_value


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
)
def _pretty_action(ctx: Context) -> Writing:
    base = ctx.call(lambda t: bool(t.required_names), optional=False)
    text = ctx.render(base)
    where = outer_value(text, base)
    assume(where is not None)
    assert where is not None
    start, end = where
    value = json.loads(text[start:end])
    how = ctx.draw(st.sampled_from(["indent-2", "indent-4", "next-line"]))
    if how == "next-line":
        written = "\n" + text[start:end]
        start = len(text[:start].rstrip(" "))
    else:
        written = json.dumps(value, indent=int(how[-1]), ensure_ascii=False)
    return Writing(base, text[:start] + written + text[end:])
