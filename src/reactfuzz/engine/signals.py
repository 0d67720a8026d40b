"""SIGTERM as an interruption, and signals held off while findings and reports are written.

A CI cancel sends SIGTERM; it must cost no report, so it stops a run exactly as Ctrl-C
does (:class:`Terminated` is a ``KeyboardInterrupt``) and only the exit code differs
(143). While findings are saved and reports written, a signal is noted rather than
raised, so what is on disk and what the reports say stay the same.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from typing import Any

from ..targets.processes import in_main_thread

__all__ = ["Terminated", "deferred_signals", "sigterm_interrupts"]


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: stop like Ctrl-C, keep what was found, exit 143."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While active (main thread only), SIGTERM raises :class:`Terminated`."""
    if not in_main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
