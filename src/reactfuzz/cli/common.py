"""Helpers the commands share: selecting abuse operators, writing an output file."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..errors import UsageError

if TYPE_CHECKING:
    from ..engine.events import EngineEvent
    from ..engine.signals import Interrupts


def expand_abuses(patterns: list[str] | None) -> list[str] | None:
    """Abuse ids from the command line; ``family.*`` or ``family`` selects a family."""
    from ..strategies import ABUSES

    if not patterns:
        return None
    out: list[str] = []
    for pat in patterns:
        if pat in ABUSES:
            out.append(pat)
            continue
        prefix = pat[:-2] if pat.endswith(".*") else pat
        matched = [a for a in ABUSES if a.startswith(prefix + ".")]
        if not matched:
            raise UsageError(
                f"unknown abuse {pat!r}: use an id or family from 'reactfuzz abuses'"
            )
        out.extend(matched)
    return list(dict.fromkeys(out))



def write_text(path: str, text: str, *, json: bool = False) -> None:
    """Write a report the way every report is written: sanitised, atomically."""
    from ..reporting.common import write_atomic

    try:
        write_atomic(path, text, json=json)
    except OSError as e:
        raise UsageError(f"{path}: cannot write: {e.strerror or e}") from None


def progress_color(args: argparse.Namespace) -> bool | None:
    """``--color`` as a progress printer takes it: forced on or off, else ``None`` (the
    printer decides from its stream and ``NO_COLOR``)."""
    return {"always": True, "never": False}.get(args.color)


class EventOutput:
    """Where a run's engine events go: the progress printer and the ``--events`` log,
    through one ``emit``. When the run finishes a signal waits (``interrupts.hold``), so
    the reports are written whole; :meth:`close` brings the live area down."""

    def __init__(self, interrupts: Interrupts, printer: Any, events: str | None) -> None:
        from ..reporting import NdjsonLog

        self.interrupts = interrupts
        self.printer = printer
        self.log = NdjsonLog(events) if events else None

    def __call__(self, event: EngineEvent) -> None:
        from ..engine.events import RunFinished

        if isinstance(event, RunFinished):
            self.interrupts.hold()  # the run is over: a signal now waits for the reports
        for sink in (self.printer, self.log):
            if sink is not None:
                sink(event)

    def close(self) -> None:
        if self.printer is not None:
            self.printer.close()  # the live area comes down however the run ended
        if self.log is not None:
            self.log.close()
