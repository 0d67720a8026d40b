"""The terminal views: the run report (:func:`render_console`) and engine events as progress
lines (:class:`ProgressPrinter`)."""

from __future__ import annotations

import json
import math
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from ..results import Event, RunSummary
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
from .json import _jsonable

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
    parts.append(f"corpus: {summary.replayed} replayed, {summary.reproduced} reproduced")
    if summary.baseline_known:
        parts.append(f"baseline: {summary.baseline_known} known")
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
        parts = [f"{i}. {f.severity.upper()} {f.verdict}", f"check {f.check}",
                 f"abuse {f.abuse} ({_family(f.abuse)})"]
        if len(_targets(summary)) > 1:
            parts.append(f"target {f.target}")
        head = _wrap_parts(parts, width, indent="   ")
        sev = _paint(f.severity.upper(), _ANSI.get(f.severity, ""), color)
        head[0] = head[0].replace(f.severity.upper(), sev, 1)
        out += head
        field_("completion", _chunks(f.completion, text_w))
        for name, text in (("expected", f.expected), ("observed", f.observed),
                           ("why", f.explanation)):
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
            lead = f"  - {f.verdict} · {f.abuse} · {f.target}: "
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


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _n(value: Any) -> int:
    """A count given as a number, a list or a dict of counts."""
    if isinstance(value, dict):
        return sum(_n(v) for v in value.values())
    if isinstance(value, (list, tuple, set)):
        return len(value)
    return int(value or 0)


class ProgressPrinter:
    """Prints engine events as progress lines (on stderr by default).

    Reads, where present: ``run-started`` {seed, targets, format, dispatcher, abuses,
    checks}; ``replay`` {path, reproduced} or {replayed, reproduced}; ``operator-started``
    {target, abuse, index, total}; ``progress`` {target, abuse, examples, failures};
    ``finding`` {finding}; ``operator-finished`` {stats} or the fields of
    :class:`OperatorStats`; ``run-finished`` {summary} or {findings, protocol_notes,
    examples, elapsed}; ``interrupted``. ``progress`` lines come at most every ``every``
    seconds; on a terminal they rewrite one status line, elsewhere they are plain lines.
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

    def __call__(self, event: Event) -> None:
        if event.kind == "progress":
            now = self._clock()
            if now - self._last < self.every:
                return
            self._last = now
            line = self._progress(event.data)
            if self.tty:
                pad = " " * max(0, self._status - len(line))
                self.stream.write(f"\r{line}{pad}")
                self._status = len(line)
                self.stream.flush()
                return
            self._line(line)
            return
        said = self._describe(event)
        if said is not None:
            self._line(said)

    def _line(self, line: str) -> None:
        if self._status:
            self.stream.write("\r" + " " * self._status + "\r")
            self._status = 0
        self.stream.write(line + "\n")
        self.stream.flush()

    @staticmethod
    def _op(d: dict[str, Any]) -> str:
        target, abuse = d.get("target"), d.get("abuse")
        return " · ".join(str(x) for x in (target, abuse) if x) or "operator"

    def _progress(self, d: dict[str, Any]) -> str:
        if "design" in d:  # a study: one event per finished cell
            where = f"[{d['done']}/{d['total']}] " if "done" in d and "total" in d else ""
            bad = f" ({d['bad']}/{d['n']} not ok)" if "bad" in d and "n" in d else ""
            return f"  {where}{d['design']} × {d.get('abuse', '')}{bad}"
        fails = _n(d.get("failures"))
        tail = f", {fails} failing" if fails else ""
        return f"  {self._op(d)}: {_n(d.get('examples'))} examples{tail}"

    def _describe(self, event: Event) -> str | None:
        d, kind = event.data, event.kind
        if kind == "run-started" and "designs" in d:  # a study
            return (f"reactfuzz study: seed {d.get('seed')} · {_n(d['designs'])} designs × "
                    f"{_n(d.get('abuses'))} operators · {d.get('examples', '?')} examples "
                    f"per cell")
        if kind == "run-finished" and "cells" in d:
            return (f"done: {_plural(_n(d['cells']), 'cell')} in "
                    f"{_seconds(float(d.get('elapsed', 0.0) or 0.0))}")
        if kind == "run-started":
            targets = d.get("targets") or []
            parts = [f"reactfuzz: seed {d.get('seed')}"]
            if targets:
                parts.append("targets " + ", ".join(map(str, targets)))
            for key in ("format", "dispatcher"):
                if d.get(key):
                    parts.append(f"{key} {d[key]}")
            if d.get("abuses") is not None:
                parts.append(_plural(_n(d["abuses"]), "operator"))
            return " · ".join(parts)
        if kind == "replay":
            if "path" in d:
                state = "reproduced" if d.get("reproduced") else "no longer reproduces"
                return f"replay {d['path']}: {state}"
            return f"replay: {_n(d.get('replayed'))} corpus files, " \
                   f"{_n(d.get('reproduced'))} reproduced"
        if kind == "operator-started":
            where = f"[{d['index']}/{d['total']}] " if "index" in d and "total" in d else ""
            return f"{where}{self._op(d)}"
        if kind == "finding":
            f = d.get("finding")
            if f is None:
                return "  finding"
            comp = visible(str(_get(f, "completion", "")), limit=60)
            if _get(f, "cause") == "protocol":
                return f"  protocol note: {_get(f, 'verdict')} · {_get(f, 'abuse')}: {comp}"
            return (f"  FINDING {_get(f, 'severity')} {_get(f, 'verdict')} · "
                    f"{_get(f, 'check')} · {_get(f, 'abuse')}: {comp}")
        if kind == "operator-finished":
            s = d.get("stats", d)
            op = self._op({"target": _get(s, "target"), "abuse": _get(s, "abuse")})
            if _get(s, "skipped"):
                return f"  skipped {op}: {_get(s, 'skipped')}"
            failures = _get(s, "failures") or {}
            fails = _n(failures)
            by = ""
            if isinstance(failures, dict) and fails:
                by = " (" + ", ".join(f"{k} {v}" for k, v in failures.items() if v) + ")"
            return (f"  done {op}: {_n(_get(s, 'examples'))} examples, {fails} failing{by} "
                    f"in {_seconds(float(_get(s, 'elapsed', 0.0) or 0.0))}")
        if kind == "run-finished":
            s = d.get("summary", d)
            return (f"done: {_plural(_n(_get(s, 'findings')), 'finding')}, "
                    f"{_plural(_n(_get(s, 'protocol_notes')), 'protocol note')}, "
                    f"{_n(_get(s, 'examples'))} examples in "
                    f"{_seconds(float(_get(s, 'elapsed', 0.0) or 0.0))}")
        if kind == "interrupted":
            return "interrupted: stopping; the findings so far are kept"
        return f"{kind}: {json.dumps(_jsonable(d), ensure_ascii=False)}"
