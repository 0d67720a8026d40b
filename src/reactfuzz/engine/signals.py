"""SIGTERM as an interruption, and signals held off while findings and reports are written.

A CI cancel sends SIGTERM; it must cost no report, so it stops a run exactly as Ctrl-C
does (:class:`Terminated` is a ``KeyboardInterrupt``) and only the exit code differs
(143). While findings are saved and reports written, a signal is noted rather than
raised, so what is on disk and what the reports say stay the same.
"""

from __future__ import annotations

import contextlib
import gc
import signal
from collections.abc import Iterator
from typing import Any

from ..frames import in_gc_callback
from ..targets.processes import in_main_thread

__all__ = ["Interrupts", "Terminated", "check_stop", "deferred_signals", "request_stop",
           "reset_stop", "sigterm_interrupts"]


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: stop like Ctrl-C, keep what was found, exit 143."""


_PENDING: list[type[KeyboardInterrupt]] = []
"""The stop asked for by a signal, until the run ends: an exception raised by a handler
can be lost (Python only prints one raised inside a garbage-collector callback, as
Hypothesis installs), so the search also looks here before every example."""


class Interrupts:
    """What :func:`sigterm_interrupts` yields. Once :meth:`hold` is called a signal is
    noted in :attr:`held` instead of raised: from the moment a run has finished until
    its reports are written, a Ctrl-C must not cost the reports."""

    def __init__(self) -> None:
        self.holding = False
        self.held: list[int] = []

    def hold(self) -> None:
        self.holding = True


_ACTIVE: list[Interrupts] = []
"""The :class:`Interrupts` of the :func:`sigterm_interrupts` block in force, if any."""


def _kind(signum: int) -> type[KeyboardInterrupt]:
    return Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def _interrupt(signum: int, frame: Any) -> None:
    if _ACTIVE and _ACTIVE[-1].holding:
        _ACTIVE[-1].held.append(signum)
        return
    kind = _kind(signum)
    if not _PENDING:
        _PENDING.append(kind)
    if gc.callbacks and in_gc_callback(frame):
        return  # remembered: the search raises it before its next example
    raise kind


def request_stop(signum: int = signal.SIGINT, frame: Any = None) -> None:
    """A handler for engine workers: stop at the next example rather than in the middle
    of a statement; asked twice, stop now."""
    if _PENDING:
        raise _PENDING[0]
    _PENDING.append(_kind(signum))


def reset_stop() -> None:
    """Forget a stop asked for earlier (a new process, or a new run in this one)."""
    _PENDING.clear()


def check_stop() -> None:
    """Raise the interruption a signal asked for, if one did (see :data:`_PENDING`)."""
    if _PENDING:
        raise _PENDING[0]


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[Interrupts]:
    """While active (main thread only), SIGTERM raises :class:`Terminated` and SIGINT a
    ``KeyboardInterrupt``, and either is remembered until the block ends; after
    :meth:`Interrupts.hold` both are only noted."""
    control = Interrupts()
    if not in_main_thread():
        yield control
        return
    _PENDING.clear()
    previous = {s: signal.signal(s, _interrupt) for s in (signal.SIGINT, signal.SIGTERM)}
    _ACTIVE.append(control)
    try:
        yield control
    finally:
        _ACTIVE.remove(control)
        for s, handler in previous.items():
            signal.signal(s, handler)
        _PENDING.clear()


@contextlib.contextmanager
def deferred_signals(*, reraise: bool = True) -> Iterator[list[int]]:
    """Hold SIGINT and SIGTERM off while the block runs; the list names what arrived.

    With ``reraise``, the first signal that arrived is raised when the block ends (as
    ``KeyboardInterrupt`` or :class:`Terminated`); otherwise the caller reads the list.
    Outside the main thread nothing is held.
    """
    got: list[int] = []
    if not in_main_thread():
        yield got
        return

    def note(signum: int, frame: Any) -> None:
        got.append(signum)

    previous = {s: signal.signal(s, note) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield got
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if got and reraise:
        raise Terminated if got[0] == signal.SIGTERM else KeyboardInterrupt


def stopped_by(exc: BaseException | None, got: list[int] | None = None) -> str:
    """``"terminated"`` for SIGTERM, ``"interrupted"`` otherwise (what ended a run)."""
    if isinstance(exc, Terminated) or (got and got[0] == signal.SIGTERM):
        return "terminated"
    return "interrupted"
