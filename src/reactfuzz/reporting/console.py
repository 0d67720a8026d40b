"""The terminal views: the run report (:func:`render_console`) and engine events as progress
lines (:class:`ProgressPrinter`)."""

from __future__ import annotations

import json
import math
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from ..engine.advice import advice_for
from ..engine.events import (
    CellFinished,
    CorpusReplayed,
    EngineEvent,
    ExamplesRan,
    FindingFound,
    Interrupted,
    OperatorFinished,
    OperatorStarted,
    RunFinished,
    RunStarted,
    StudyFinished,
    StudyStarted,
)
from ..results import RunSummary
from .common import (
    _chunks,
    _count_table,
    _counts_line,
    _exit_meaning,
    _family,
    _free,
    _plural,
    _replay,
    _seconds,
    _sorted,
    _targets,
    visible,
)

__all__ = ["ProgressPrinter", "render_console"]

# --------------------------------------------------------------------------------------
# Console.

_ANSI = {"critical": "1;31", "high": "31", "medium": "33", "low": "36", "none": "2"}


def _paint(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if color and code else text


def _wrap_parts(parts: Sequence[str], width: int, sep: str = " · ",
                indent: str = "  ") -> list[str]:
    """Join parts with ``sep``, starting a new line rather than exceed ``width``."""
    lines: list[str] = []
    cur = ""
    for p in parts:
        if cur and len(cur) + len(sep) + len(p) > width:
            lines.append(cur)
            cur = indent + p
        else:
            cur = f"{cur}{sep}{p}" if cur else p
    return [*lines, cur] if cur else lines


def _header_parts(summary: RunSummary) -> list[str]:
    targets = ", ".join(summary.targets) or "(none)"
    parts = [
        f"reactfuzz: seed {summary.seed}",
        f"{'targets' if len(summary.targets) > 1 else 'target'} {targets}",
        f"format {summary.format}",
        f"dispatcher {summary.dispatcher}",
    ]
    if summary.tools != "default":
        parts.append(f"tools {summary.tools}")
    parts.append(f"{summary.examples} examples in {_seconds(summary.elapsed)}")
    parts.append(f"corpus: {summary.replayed} replayed, {summary.reproduced} reproduced"
                 + (f", {summary.replay_skipped} of checks not loaded here skipped (--plugin)"
                    if summary.replay_skipped else ""))
    return parts


def _text_table(header: list[str], rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(r: list[str]) -> str:
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
        return (indent + "  ".join(cells)).rstrip()

    return [line(header), *(line(r) for r in rows)]



def render_console(summary: RunSummary, *, color: bool = False, width: int = 100) -> str:
    """The terminal report of a run (plain text unless ``color``; lines fit ``width``)."""
    width = max(width, 40)
    bold = "1"
    out = _wrap_parts(_header_parts(summary), width)
    if summary.interrupted:
        out.append(_paint("interrupted: the results below are partial", "33", color))
    out.append("")
    header, rows = _count_table(summary)
    out.append(_paint("findings by check and abuse class", bold, color))
    out += _text_table(header, rows)

    findings = _sorted(summary.findings)
    if findings:
        out.append("")
    label_w = 12
    text_w = width - 3 - label_w

    def field_(name: str, lines: list[str]) -> None:
        for j, text in enumerate(lines):
            out.append(f"   {(name if j == 0 else '').ljust(label_w)}{text}".rstrip())

    for i, f in enumerate(findings, 1):
        parts = [f"{i}. {f.severity.upper()} {f.failure}", f"check {f.check}",
                 f"abuse {f.abuse} ({_family(f.abuse)})"]
        if len(_targets(summary)) > 1:
            parts.append(f"target {f.target}")
        head = _wrap_parts(parts, width, indent="   ")
        sev = _paint(f.severity.upper(), _ANSI.get(f.severity, ""), color)
        head[0] = head[0].replace(f.severity.upper(), sev, 1)
        out += head
        field_("completion", _chunks(f.completion, text_w))
        for name, text in (("expected", f.expected), ("observed", f.observed),
                           ("why", f.explanation), ("fix", advice_for(f))):
            field_(name, _wrap(text, text_w))
        field_("replay", [_replay(summary, f)])
        out.append("")
    if not findings:
        out.append("")

    notes = _sorted(summary.protocol_notes)
    if notes:
        said = (f"{_plural(len(notes), 'protocol note')}: the format cannot carry these "
                "intents; not counted as failures")
        out += [_paint(line, bold, color) for line in textwrap.wrap(said, width)]
        for f in notes:
            lead = f"  - {f.failure} · {f.abuse} · {f.target}: "
            out.append(lead + visible(f.completion, limit=max(10, width - len(lead))))
        out.append("")

    counts = _counts_line(summary)
    code = "1;31" if summary.findings else "1;32"
    out += [_paint(line, code, color) for line in textwrap.wrap(counts, width)]
    out += textwrap.wrap(_exit_meaning(summary), width)
    return "\n".join(out) + "\n"


def _wrap(text: str, width: int) -> list[str]:
    """Wrap free text (escaping what would break the layout) to ``width``."""
    return textwrap.wrap(_free(text), width, break_on_hyphens=False, drop_whitespace=True) or [""]


# --------------------------------------------------------------------------------------
# Progress.


class ProgressPrinter:
    """Prints the engine's typed events as progress lines (on stderr by default).

    One line per event, chosen by the event's type (:mod:`reactfuzz.engine.events`);
    :class:`~reactfuzz.engine.events.ExamplesRan` and
    :class:`~reactfuzz.engine.events.CellFinished` lines come at most every ``every``
    seconds, and on a terminal they rewrite one status line, elsewhere they are plain lines.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        every: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self._clock = clock
        self._last = -math.inf
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty()) if callable(isatty) else False
        self._status = 0  # length of the status line currently shown (TTY only)

    def __call__(self, event: EngineEvent) -> None:
        if isinstance(event, (ExamplesRan, CellFinished)):
            now = self._clock()
            if now - self._last < self.every:
                return
            self._last = now
            line = self._progress(event)
            if self.tty:
                pad = " " * max(0, self._status - len(line))
                self.stream.write(f"\r{line}{pad}")
                self._status = len(line)
                self.stream.flush()
                return
            self._line(line)
            return
        self._line(self._describe(event))

    def _line(self, line: str) -> None:
        if self._status:
            self.stream.write("\r" + " " * self._status + "\r")
            self._status = 0
        self.stream.write(line + "\n")
        self.stream.flush()

    @staticmethod
    def _op(target: str, abuse: str) -> str:
        return " · ".join(x for x in (target, abuse) if x) or "operator"

    def _progress(self, event: ExamplesRan | CellFinished) -> str:
        if isinstance(event, CellFinished):
            return (f"  [{event.done}/{event.total}] {event.design} × {event.abuse}"
                    f" ({event.bad}/{event.n} not ok)")
        tail = f", {event.failing} failing" if event.failing else ""
        return f"  {self._op(event.target, event.abuse)}: {event.examples} examples{tail}"

    def _describe(self, event: EngineEvent) -> str:
        if isinstance(event, RunStarted):
            parts = [f"reactfuzz: seed {event.seed}"]
            if event.targets:
                parts.append("targets " + ", ".join(event.targets))
            parts += [f"format {event.format}", f"dispatcher {event.dispatcher}",
                      _plural(event.abuses, "operator")]
            if event.workers > 1:
                parts.append(_plural(event.workers, "worker"))
            return " · ".join(parts)
        if isinstance(event, CorpusReplayed):
            state = "reproduced" if event.reproduced else "no longer reproduces"
            return f"replay {event.path}: {state}"
        if isinstance(event, OperatorStarted):
            return self._op(event.target, event.abuse)
        if isinstance(event, FindingFound):
            f = event.finding
            comp = visible(f.completion, limit=60)
            if f.cause == "protocol":
                return f"  protocol note: {f.failure} · {f.abuse}: {comp}"
            return f"  FINDING {f.severity} {f.failure} · {f.check} · {f.abuse}: {comp}"
        if isinstance(event, OperatorFinished):
            fails = sum(event.failures.values())
            by = ""
            if fails:
                by = " (" + ", ".join(f"{k} {v}" for k, v in event.failures.items() if v) + ")"
            return (f"  done {self._op(event.target, event.abuse)}: {event.examples} examples,"
                    f" {fails} failing{by} in {_seconds(event.elapsed)}")
        if isinstance(event, RunFinished):
            return (f"done: {_plural(event.findings, 'finding')}, "
                    f"{_plural(event.protocol_notes, 'protocol note')}, "
                    f"{event.examples} examples in {_seconds(event.elapsed)}")
        if isinstance(event, Interrupted):
            return "interrupted: stopping; the findings so far are kept"
        if isinstance(event, StudyStarted):
            return (f"reactfuzz study: seed {event.seed} · {len(event.designs)} designs × "
                    f"{event.abuses} operators · {event.examples} examples per cell")
        if isinstance(event, StudyFinished):
            return f"done: {_plural(event.cells, 'cell')} in {_seconds(event.elapsed)}"
        # an event type this printer does not know yet: its serialised form
        return f"{event.kind}: {json.dumps(event.to_dict()['data'], ensure_ascii=False)}"
