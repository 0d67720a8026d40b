"""The terminal views: the run report (:func:`render_console`); engine events as progress
(:class:`ProgressPrinter`) live in :mod:`reactfuzz.reporting.progress`."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from ..engine.advice import advice_for
from ..engine.results import RunSummary
from .common import (
    chunks,
    count_table,
    counts_line,
    exit_meaning,
    family_of,
    free_text,
    plural,
    reached_line,
    replay_command,
    seconds_text,
    targets_found,
    visible,
    where_line,
    worst_first,
)
from .progress import ProgressPrinter

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
    parts.append(f"{summary.examples} examples in {seconds_text(summary.elapsed)}")
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
    header, rows = count_table(summary)
    out.append(_paint("findings by check and abuse class", bold, color))
    out += _text_table(header, rows)

    findings = worst_first(summary.findings)
    if findings:
        out.append("")
    label_w = 12
    text_w = width - 3 - label_w

    def field_(name: str, lines: list[str]) -> None:
        for j, text in enumerate(lines):
            out.append(f"   {(name if j == 0 else '').ljust(label_w)}{text}".rstrip())

    for i, f in enumerate(findings, 1):
        parts = [f"{i}. {f.severity.upper()} {f.failure}", f"check {f.check}",
                 f"abuse {f.abuse} ({family_of(f.abuse)})"]
        if len(targets_found(summary)) > 1:
            parts.append(f"target {f.target}")
        head = _wrap_parts(parts, width, indent="   ")
        sev = _paint(f.severity.upper(), _ANSI.get(f.severity, ""), color)
        head[0] = head[0].replace(f.severity.upper(), sev, 1)
        out += head
        field_("completion", chunks(f.completion, text_w))
        for name, text in (("where", where_line(f)), ("expected", f.expected),
                           ("observed", f.observed), ("why", f.explanation),
                           ("fix", advice_for(f)), ("reached", reached_line(f))):
            if text:
                field_(name, _wrap(text, text_w))
        for example in f.examples[:2]:
            field_("also", chunks(example, text_w)[:2])
        field_("replay", [replay_command(summary, f)])
        out.append("")
    if not findings:
        out.append("")

    notes = worst_first(summary.protocol_notes)
    if notes:
        said = (f"{plural(len(notes), 'protocol note')}: the format cannot carry these "
                "intents; not counted as failures")
        out += [_paint(line, bold, color) for line in textwrap.wrap(said, width)]
        for f in notes:
            lead = f"  - {f.failure} · {f.abuse} · {f.target}: "
            out.append(lead + visible(f.completion, limit=max(10, width - len(lead))))
        out.append("")

    for cov in summary.coverage:
        said = (f"coverage of {cov.target}: {cov.text} (guided phase: {cov.scenarios:,}"
                f" scenarios, {cov.kept} mutations kept for reaching new lines)")
        out += textwrap.wrap(said, width)
    counts = counts_line(summary)
    code = "1;31" if summary.findings else "1;32"
    out += [_paint(line, code, color) for line in textwrap.wrap(counts, width)]
    out += textwrap.wrap(exit_meaning(summary), width)
    return "\n".join(out) + "\n"


def _wrap(text: str, width: int) -> list[str]:
    """Wrap free text (escaping what would break the layout) to ``width``."""
    lines = textwrap.wrap(free_text(text), width, break_on_hyphens=False, drop_whitespace=True)
    return lines or [""]
