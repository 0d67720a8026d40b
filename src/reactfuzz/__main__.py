"""``python -m reactfuzz``: the same as the ``reactfuzz`` command.

The CLI is imported inside :func:`run`, so a Ctrl-C that lands while it loads is one line
and exit 130, like one that lands later, never a traceback. SIGTERM is taken over before
anything loads, so a CI cancel in the first second is one line and exit 143 too (the
default action would end the process without a word).
"""

from __future__ import annotations

import signal
import sys
from types import FrameType


class Terminated(KeyboardInterrupt):
    """SIGTERM before a run takes it over: the CLI reports it as ``terminated`` (143)."""


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def run() -> None:
    """The console-script entry point: take SIGTERM, import the CLI, then run it."""
    try:
        signal.signal(signal.SIGTERM, _terminated)
    except (ValueError, OSError):  # not the main thread, or no such signal here
        pass
    try:
        from .cli import entry
    except KeyboardInterrupt as e:
        terminated = isinstance(e, Terminated)
        print(f"reactfuzz: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        sys.exit(143 if terminated else 130)
    entry()


if __name__ == "__main__":
    run()
