"""Where a signal handler runs: an exception it raises inside a finaliser is lost.

Python prints an exception raised in a ``__del__`` or a garbage-collector callback (as
Hypothesis installs) as "Exception ignored" and drops it, so a handler that stops a run by
raising must tell those places apart. Kept free of imports so that the CLI's first
handler, installed before anything loads, can use it too.
"""

from __future__ import annotations

import gc
from types import FrameType

__all__ = ["in_finaliser", "in_gc_callback"]


def in_gc_callback(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs inside a garbage-collector callback."""
    codes = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    while frame is not None:
        if frame.f_code in codes:
            return True
        frame = frame.f_back
    return False


def in_finaliser(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs inside a ``__del__`` or a garbage-collector callback."""
    outer = frame
    while outer is not None:
        if outer.f_code.co_name == "__del__":
            return True
        outer = outer.f_back
    return in_gc_callback(frame)
