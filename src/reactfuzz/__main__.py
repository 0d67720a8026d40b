"""``python -m reactfuzz``: the same as the ``reactfuzz`` command.

The CLI is imported inside :func:`run` with SIGINT and SIGTERM only noted meanwhile, so a
Ctrl-C or a CI cancel that lands while it loads is one line and exit 130 or 143, like one
that lands later, never a traceback (nor the default action's silent end).
"""

from __future__ import annotations

import signal
import sys
from types import FrameType


class Terminated(KeyboardInterrupt):
    """SIGTERM before a run takes it over: the CLI reports it as ``terminated`` (143)."""


def _terminated(signum: int, frame: FrameType | None) -> None:
    from .frames import in_finaliser

    if in_finaliser(frame):
        # raised here it would be printed and lost (a compiled regex's groups are freed
        # while the CLI loads a grammar): the signal comes again a moment later
        import os
        import threading

        threading.Timer(0.005, os.kill, (os.getpid(), signum)).start()
        return
    raise Terminated


_QUICK = {"--version", "-h", "--help"}


def run() -> None:
    """The console-script entry point: take SIGTERM, import the CLI, then run it.

    While the CLI and the compiled extension every command uses (pydantic's core) load, a
    signal is only noted: one raised inside a Rust extension's import makes it panic,
    with a page of output and a traceback. Once they are loaded it ends the process in
    one line."""
    got: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        got.append(signum)

    try:
        signal.signal(signal.SIGINT, hold)
        signal.signal(signal.SIGTERM, hold)
    except (ValueError, OSError):  # not the main thread, or no such signal here
        pass
    try:
        from .cli import entry

        if _QUICK.isdisjoint(sys.argv[1:2]):  # --version stays fast
            import pydantic_core  # noqa: F401
    finally:
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, _terminated)
        except (ValueError, OSError):
            pass
    if got:
        terminated = got[0] == signal.SIGTERM
        print(f"reactfuzz: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        sys.exit(143 if terminated else 130)
    entry()


if __name__ == "__main__":
    run()
