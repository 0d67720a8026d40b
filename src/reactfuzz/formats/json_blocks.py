"""What the JSON protocol families share: writing a JSON value in its fence, reading it back.

The ``action_input_json`` and ``json_blob`` families both carry one JSON object that a
format may wrap in a markdown code fence (``Format.fence``: the fence's info string,
``"json"`` for a ```` ```json ```` fence). Their grammars read the fence with the generic
terminals ``FENCE_OPEN`` (```` ``` ```` and any info string) and ``FENCE_CLOSE``; whether
this format wants the fence, and with which info string, is checked here after parsing,
so a TOML format that changes the fence needs no grammar of its own.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from lark import Token, Tree

from ..model import Call, DuplicateKeyError, Invalid, no_duplicate_keys, to_jsonable
from .family import caret_context

if TYPE_CHECKING:
    from .spec import Format

__all__ = ["JSON_DELIMITERS", "call_object", "decode_object", "fence_problem", "fenced"]

JSON_DELIMITERS = ('"', "\\", "}", "{", ",", ":", "```")
"""Strings that end or break a JSON argument, simplest first (what injection draws)."""


def call_object(call: Call) -> dict[str, Any]:
    """A call's arguments as the JSON object of named arguments the families write."""
    if call.names is not None:
        return dict(zip(call.names, (to_jsonable(a) for a in call.args)))
    return {f"arg{i}": to_jsonable(a) for i, a in enumerate(call.args)}


def fenced(blob: str, fmt: Format) -> list[str]:
    """``blob`` on its own lines inside the format's code fence (one line when it has none)."""
    if fmt.fence is None:
        return [blob]
    return [f"```{fmt.fence}", blob, "```"]


def fence_problem(node: Tree, text: str, fmt: Format) -> Invalid | None:
    """Why the fence (or its absence) around the JSON under ``node`` breaks the format."""
    opener = next(
        (c for c in node.children if isinstance(c, Token) and c.type == "FENCE_OPEN"), None
    )
    if opener is None:
        if fmt.fence is None or fmt.fence_optional:
            return None
        line, column = node.meta.line, node.meta.column
        return Invalid(
            "malformed-action",
            f"the JSON is not inside a ```{fmt.fence} code fence",
            line, column, (f"'```{fmt.fence}'",), caret_context(text, line, column),
        )
    info = opener.value[3:].strip()
    line, column = opener.line or 0, opener.column or 0
    if fmt.fence is None:
        return Invalid(
            "malformed-action",
            f"a code fence ({opener.value.strip()!r}) around the JSON: the {fmt.name} format"
            " writes it bare",
            line, column, ("'{'",), caret_context(text, line, column),
        )
    if info != fmt.fence:
        return Invalid(
            "malformed-action",
            f"the code fence says {info!r}: the {fmt.name} format writes ```{fmt.fence}",
            line, column, (f"'```{fmt.fence}'",), caret_context(text, line, column),
        )
    return None


def decode_object(obj: Tree, text: str, what: str) -> tuple[dict[str, Any] | None,
                                                           Invalid | None]:
    """The JSON object under the parse tree ``obj``, or why it is refused (a key twice)."""
    raw = text[obj.meta.start_pos : obj.meta.end_pos]
    try:
        decoded = json.loads(raw, object_pairs_hook=no_duplicate_keys)
    except DuplicateKeyError as e:
        line, column = obj.meta.line, obj.meta.column
        return None, Invalid(
            "duplicate-arg",
            f"{what} {e.key!r} is given twice in the JSON object",
            line, column, (), caret_context(text, line, column),
        )
    assert isinstance(decoded, dict)
    return decoded, None


def json_value_text(value: Any) -> str:
    """One JSON value as the families write it (non-ASCII kept, as models write it)."""
    return json.dumps(value, ensure_ascii=False)
