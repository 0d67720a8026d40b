"""Parses that repeat: a user parser's return value read once, not once per call.

Exploration parses thousands of texts that differ only inside their thought, and a parser
that leaves the thought out of what it returns gives the same value again and again. A
worker reads such a value (:func:`~.adapters.adapt`, sanitising) the first time only, and
answers a repeat with its index and the call's own timing (:data:`~.base.Repeat`). Only
values made of exact ``str``, ``None`` and ``tuple`` are compared: for them equal values
are the same value, so the result read from the first is the one every repeat would give.
A raise repeats likewise when all its reading depends on is plain (:func:`raised_key`).
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter, thread_time
from typing import Any

from ..formats import Format
from .adapters import adapt, raised_result
from .base import ParseResult, Repeat
from .sanitise import sanitise_result

__all__ = ["CPU_TIMED", "MAX_KEPT", "invoke_repeating", "plain", "raised_key"]

MAX_KEPT = 65_536
"""Distinct values a worker remembers at most (later ones are read every time)."""

CPU_TIMED = 1e-3
"""A repeat's CPU time is read only when the call took at least this many seconds."""

_MAX_DEPTH = 4


def plain(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is made only of exact ``str``, ``None`` and ``tuple`` (a few
    levels deep): equal such values read as the same Step, whatever their identity."""
    kind = type(value)
    if kind is str or value is None:
        return True
    if kind is not tuple or depth >= _MAX_DEPTH:
        return False
    for item in value:
        if type(item) is not str and item is not None and not plain(item, depth + 1):
            return False
    return True


def raised_key(exc: BaseException) -> tuple[Any, ...] | None:
    """What an exception's reading depends on, when that is all plain: a built-in
    exception type with string arguments and no attributes of its own (its message and
    its refusal kind follow), and the lines it was raised through (its origin follows).
    ``None`` for anything else."""
    kind = type(exc)
    if kind.__module__ != "builtins" or getattr(exc, "__dict__", None) \
            or getattr(exc, "__notes__", None) is not None \
            or any(type(a) is not str for a in exc.args):
        return None
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame.f_code, tb.tb_lineno))
        tb = tb.tb_next
    return ("raised", kind, exc.args, tuple(frames))


def _repeat(index: int, elapsed: float, cpu_start: float, quick: float) -> Repeat:
    """A parse that repeated the result numbered ``index``: the bare index when it took
    less than ``quick`` seconds, else its timing too. A thread's CPU clock costs a system
    call, and a parse shorter than :data:`CPU_TIMED` is never timed on it (growth is
    measured only on a slow one)."""
    if elapsed < quick:
        return index
    return (index, elapsed, thread_time() - cpu_start if elapsed >= CPU_TIMED else None)


def invoke_repeating(fn: Callable[[str], Any], completion: str, fmt: Format,
                     seen: dict[Any, int], offset: int, cpu_start: float | None = None,
                     quick: float = 0.0) -> ParseResult | tuple[int, ParseResult] | Repeat:
    """Call ``fn`` once, as :func:`~.adapters.invoke` does (anything it raises is data).

    A plain value already in ``seen`` is a :data:`~.base.Repeat` (its index, plus
    ``offset``; the bare index when the call took less than ``quick`` seconds); a new
    plain one is read and kept, and comes back with its index; any other value, or a
    raise, is an ordinary result. ``cpu_start`` is the thread's CPU time just read by the
    caller (a worker reads it for its progress anyway), so that the call does not read
    that clock, a system call, a second time.
    """
    if cpu_start is None:
        cpu_start = thread_time()
    start = perf_counter()
    try:
        value = fn(completion)
        if plain(value):
            index = seen.get(value)
            if index is not None:
                return _repeat(index + offset, perf_counter() - start, cpu_start, quick)
        else:
            index = -1
        step = adapt(value, fmt)
    except BaseException as exc:  # everything is data in a worker (see workerloop._serve)
        elapsed = perf_counter() - start
        key = raised_key(exc)
        index = seen.get(key) if key is not None else None
        if index is not None:  # a repeat, as above
            return _repeat(index + offset, elapsed, cpu_start, quick)
        raised = sanitise_result(raised_result(exc, elapsed, thread_time() - cpu_start))
        if key is not None and len(seen) < MAX_KEPT:
            seen[key] = index = len(seen)
            return (index + offset, raised)
        return raised
    result = sanitise_result(ParseResult(step=step, elapsed=perf_counter() - start,
                                         cpu=thread_time() - cpu_start))
    if index is None and len(seen) < MAX_KEPT and result.step is not None:
        seen[value] = index = len(seen)
        return (index + offset, result)
    return result
