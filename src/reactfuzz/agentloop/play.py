"""Play one script through the user's loop: ``run(llm, tools, task) -> str``, with fakes.

The loop runs in this process (its fakes record what it does), under the time limit every
in-process target has (:func:`~reactfuzz.targets.callables.call_with_alarm`: a ``SIGALRM``
in the main thread; a loop that spins without asking the model ends as ``timeout``);
elsewhere only the model's call bound holds. What came out is a
:class:`LoopRun`: every model call, every tool call, and how the loop ended.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..targets.adapters import describe_exception
from ..targets.callables import SoftTimeout, alarm_usable, call_with_alarm
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


def play(loop: LoopFn, script: Script, registry: ToolRegistry, *, max_calls: int = 30,
         time_limit: float = 10.0) -> LoopRun:
    """Run ``loop`` once on ``script``: the fake model plays it, fake tools record calls."""
    model = ScriptedModel(script, max_calls=max_calls)
    tools = FakeTools(registry, model)
    ended: Ended = "returned"
    answer = error = None
    def call() -> Any:
        return loop(model, tools, script.task)

    try:
        # the time limit every in-process target has (a SIGALRM in the main thread)
        limited = time_limit > 0 and alarm_usable()
        result = call_with_alarm(call, time_limit) if limited else call()
        answer = result if isinstance(result, str) else repr(result)
    except StepBoundExceeded:
        ended = "step-bound"
    except SoftTimeout:
        ended = "timeout"
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # the loop died: SystemExit too is the loop's, not ours
        ended, error = "raised", describe_exception(exc)
    return LoopRun(script, tuple(model.calls), tuple(tools.calls), ended, answer, error,
                   max_calls)
