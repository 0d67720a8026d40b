"""What a user parser returned, made safe to compare, print, pickle and store.

A parser may return anything: a list that contains itself, an object whose ``__eq__``,
``__repr__`` or ``__str__`` raises, a string of fifty megabytes. Each would abort the run
somewhere downstream (a RecursionError in a check, a MemoryError in a report), so results
are sanitised where they cross into reactfuzz: cycles and hostile objects become marker
strings, huge strings a marker with their length and hash. The result is still wrong,
so it is still a finding, only a bounded one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..limits import cut_text
from ..model import Action, Step
from .base import ParseResult

__all__ = ["MAX_VALUE_CHARS", "bounded_text", "sanitise_result"]

MAX_VALUE_CHARS = 4 * 1024 * 1024
"""The longest string a parser's result may hold: above any completion reactfuzz writes
(a size operator's longest run is 1 MiB of one or two characters, at the largest budget),
so a longer one cannot be what the completion meant; longer ones are cut."""

_MAX_DEPTH = 32
_MAX_ITEMS = 10_000
_KEEP = 200


def bounded_text(text: str, limit: int = MAX_VALUE_CHARS) -> str:
    """``text``, or its start and a marker with its length and SHA-256 when it is longer
    than ``limit`` characters."""
    return cut_text(text, limit, _KEEP)


def _marker(value: Any, what: str) -> str:
    return f"<{type(value).__name__} whose {what}>"


def _value(value: Any, depth: int, active: set[int]) -> Any:
    """A copy of ``value`` without cycles, hostile objects or huge strings."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return bounded_text(str.__str__(value))
    if isinstance(value, (bytes, bytearray)):
        return bytes(value[:MAX_VALUE_CHARS])
    if depth > _MAX_DEPTH:
        return _marker(value, f"nesting is deeper than {_MAX_DEPTH}")
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        if id(value) in active:
            return _marker(value, "items contain itself (a cycle)")
        if len(value) > _MAX_ITEMS:
            return _marker(value, f"length {len(value)} is over {_MAX_ITEMS}")
        active.add(id(value))
        try:
            if isinstance(value, dict):
                return {(_value(k, depth + 1, active) if isinstance(k, str) else k):
                        _value(v, depth + 1, active) for k, v in list(value.items())}
            items = [_value(v, depth + 1, active) for v in list(value)]
            if isinstance(value, list):
                return items
            if isinstance(value, tuple) and not hasattr(value, "_fields"):
                return tuple(items)
            return value if isinstance(value, tuple) else items
        except Exception:  # a hostile key, a container that changes while read
            return _marker(value, "items cannot be read")
        finally:
            active.discard(id(value))
    # any other object: keep it if it compares, prints and stays small
    try:
        text = repr(value)
        str(value)
        bool(value == value)
    except Exception as exc:
        return _marker(value, f"__eq__, __repr__ or __str__ raised {type(exc).__name__}")
    if len(text) > MAX_VALUE_CHARS:
        return bounded_text(text)
    return value


def _same(new: Any, old: Any) -> bool:
    """Whether sanitising kept ``old`` as it was (the same objects, item by item)."""
    if new is old:
        return True
    return (type(new) is tuple and type(old) is tuple and len(new) == len(old)
            and all(n is o for n, o in zip(new, old)))


def _step(step: Step) -> Step:
    """``step`` made safe; the very same object when nothing in it had to change (the
    common case, and no copy is made per call)."""
    thought = bounded_text(step.thought) if isinstance(step.thought, str) else ""
    if step.action is not None:
        a = step.action
        active: set[int] = set()
        args = tuple(_value(v, 1, active) for v in a.args) if a.args is not None else None
        names = tuple(bounded_text(str(n)) for n in a.names) if a.names is not None else None
        tool, raw = bounded_text(a.tool), bounded_text(a.raw)
        if (thought is step.thought and tool is a.tool and raw is a.raw
                and _same(args, a.args) and _same(names, a.names)):
            return step
        return replace(step, thought=thought, action=Action(tool, raw, args, names))
    if step.answer is not None:
        answer = bounded_text(step.answer)
        if thought is step.thought and answer is step.answer:
            return step
        return replace(step, thought=thought, answer=answer)
    assert step.invalid is not None
    message = step.invalid.message
    text = bounded_text(str(message))
    if thought is step.thought and text is message:  # an exact str, within bounds
        return step
    invalid = replace(step.invalid, message=text)
    return replace(step, thought=thought, invalid=invalid)


def sanitise_result(result: ParseResult) -> ParseResult:
    """``result`` with its Step made safe (see the module); an unreadable one is a crash."""
    if result.step is None:
        if result.error is not None and len(result.error) > MAX_VALUE_CHARS:
            return replace(result, error=bounded_text(result.error))
        return result
    try:
        step = _step(result.step)
        return result if step is result.step else replace(result, step=step)
    except Exception as exc:
        return ParseResult(
            error=f"the parser's result cannot be read: {type(exc).__name__}",
            elapsed=result.elapsed,
        )
