"""Play one script through the user's loop: ``run(llm, tools, task) -> str``, with fakes.

The loop runs in this process (its fakes record what it does), under a time limit: a
``SIGALRM`` timer in the main thread (a loop that spins without asking the model ends as
``timeout``), elsewhere only the model's call bound holds. What came out is a
:class:`LoopRun`: every model call, every tool call, and how the loop ended.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from ..targets.adapters import _describe_exception
from ..tools import ToolRegistry
from .fakes import FakeTools, ModelCall, ScriptedModel, StepBoundExceeded, ToolCall
from .script import Script

__all__ = ["LoopFn", "LoopRun", "play"]

LoopFn = Callable[[Any, Any, str], Any]
"""A user's agent loop: ``run(llm, tools, task) -> str``."""

Ended = Literal["returned", "raised", "step-bound", "timeout"]


@dataclass(frozen=True)
class LoopRun:
    """What the loop did with one script."""

    script: Script
    calls: tuple[ModelCall, ...]
    tools: tuple[ToolCall, ...]
    ended: Ended
    answer: str | None = None
    error: str | None = None
    max_calls: int = 30


class _TimedOut(BaseException):
    """The loop's time limit ran out."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise _TimedOut

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def play(loop: LoopFn, script: Script, registry: ToolRegistry, *, max_calls: int = 30,
         time_limit: float = 10.0) -> LoopRun:
    """Run ``loop`` once on ``script``: the fake model plays it, fake tools record calls."""
    model = ScriptedModel(script, max_calls=max_calls)
    tools = FakeTools(registry, model)
    ended: Ended = "returned"
    answer = error = None
    try:
        with _time_limit(time_limit):
            result = loop(model, tools, script.task)
        answer = result if isinstance(result, str) else repr(result)
    except StepBoundExceeded:
        ended = "step-bound"
    except _TimedOut:
        ended = "timeout"
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # the loop died: SystemExit too is the loop's, not ours
        ended, error = "raised", _describe_exception(exc)
    return LoopRun(script, tuple(model.calls), tuple(tools.calls), ended, answer, error,
                   max_calls)
