"""In-process callables, and :func:`function_target`, which picks a worker or in-process.

An already-imported callable (library use) runs in-process with a soft ``SIGALRM``
timeout (main thread, Unix only); an import path runs in a worker process
(:mod:`.worker`) because only a process can be stopped in the middle of C code.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from time import perf_counter
from typing import Any, TypeVar

from ..formats import Format, get_format
from .adapters import check_supported, invoke
from .base import DEFAULT_TIMEOUT, ParseResult, Target, check_timeout
from .origin import Origin, ProfileRequest, TraceRequest
from .sanitise import sanitise_result
from .user_code import parse_callable
from .worker import FunctionTarget

__all__ = [
    "CallableTarget", "SoftTimeout", "alarm_usable", "call_with_alarm", "function_target",
]

class SoftTimeout(BaseException):
    """Raised by the SIGALRM handler; a BaseException so ``except Exception`` lets it pass."""


_T = TypeVar("_T")


def alarm_usable() -> bool:
    """Whether a SIGALRM time limit can be armed here (Unix, the main thread)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def call_with_alarm(call: Callable[[], _T], timeout: float) -> _T:
    """Run ``call`` with a SIGALRM after ``timeout`` seconds (raises :class:`SoftTimeout`).

    The handler raises at most once and disarms itself first, so the cleanup below runs
    to completion; a timer somebody else armed (pytest-timeout) is re-armed afterwards.
    """
    armed = [True]

    def handler(signum: int, frame: Any) -> None:
        if armed[0]:
            armed[0] = False
            raise SoftTimeout

    start = perf_counter()
    outer_delay, outer_interval = 0.0, 0.0
    previous = signal.signal(signal.SIGALRM, handler)
    try:
        outer_delay, outer_interval = signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            return call()
        finally:
            armed[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_delay > 0:
            left = max(outer_delay - (perf_counter() - start), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, left, outer_interval)


class CallableTarget(Target):
    """An already-imported callable (or parser object), run in-process.

    The time limit is a soft ``SIGALRM`` timeout, only on Unix and only when called from
    the main thread (elsewhere there is no limit). Python runs signal handlers between
    bytecodes, so C code that does not return (a catastrophic ``re`` match) cannot be
    interrupted, and a bare ``except:`` in the parser can swallow the timeout; the
    import-path form (:class:`FunctionTarget`) runs in a worker process for that reason.
    """

    kind = "callable"

    def __init__(
        self,
        fn: Any,
        fmt: Format | str = "bracket",
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        name: str | None = None,
    ) -> None:
        self.format = get_format(fmt)
        self.timeout = check_timeout(timeout)
        label = getattr(fn, "__qualname__", None) or type(fn).__qualname__
        module = getattr(fn, "__module__", None) or type(fn).__module__
        self.name = name or f"{module}:{label}"
        self.fn = parse_callable(fn, repr(self.name))

    def run(self, completion: str) -> ParseResult:
        """Call the parser in-process (SystemExit is a crash; Ctrl-C still interrupts); a
        :class:`~.origin.TraceRequest` is parsed under the tracer and a
        :class:`~.origin.ProfileRequest` under the profiler, as a worker does."""
        return self._run(completion, trace=isinstance(completion, TraceRequest),
                         profile=isinstance(completion, ProfileRequest))

    def trace(self, completion: str) -> Origin | None:
        """Parse again under the tracer (with :data:`~.origin.TRACE_SLOWDOWN` times the
        time limit)."""
        result = self._run(completion, trace=True)
        return result.origin

    def _run(self, completion: str, *, trace: bool = False, profile: bool = False
             ) -> ParseResult:
        def call() -> ParseResult:
            return sanitise_result(
                invoke(self.fn, completion, self.format, (Exception, SystemExit),
                        trace=trace, profile=profile))

        limit = self.limit_for(TraceRequest(completion) if trace else
                               ProfileRequest(completion) if profile else completion)
        if limit is None or not alarm_usable():
            return check_supported(call(), self.name, completion)
        start = perf_counter()
        try:
            result = call_with_alarm(call, limit)
        except SoftTimeout:
            return ParseResult(timed_out=True, elapsed=perf_counter() - start)
        return check_supported(result, self.name, completion)


def function_target(
    fn: str | Callable[[str], Any] | Any,
    fmt: Format | str = "bracket",
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    cwd: str | os.PathLike[str] | None = None,
    start_method: str | None = None,
) -> Target:
    """A user parser as a target: ``"module:attr"`` in a worker process, or a callable.

    ``"module:attr"`` names a function ``fn(completion)`` or an object with a ``parse``
    method (a LangChain output parser, say), importable with ``cwd`` (default: the current
    directory) first on the path. The path is resolved in the parent first, so a mistake
    is an immediate :class:`~reactfuzz.errors.UsageError`; calls then run in a worker
    process (``fork`` where available, else ``spawn``; ``start_method`` overrides) with a
    ``timeout`` per call (``None``: no limit). A callable or parser object runs in-process
    (:class:`CallableTarget`, soft timeout).
    """
    if isinstance(fn, str):
        return FunctionTarget(fn, fmt, timeout=timeout, cwd=cwd, start_method=start_method)
    return CallableTarget(fn, fmt, timeout=timeout)
