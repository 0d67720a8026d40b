"""Reports: the console, progress, JSON, NDJSON, JUnit, Markdown and HTML views of results.

Every function here renders data -- a :class:`~reactfuzz.results.RunSummary`, a
:class:`~reactfuzz.results.StudyResult` or engine :class:`~reactfuzz.results.Event` s -- and
reads no clock and no randomness, so each output can be pinned by a snapshot test. HTML is
written by hand (inline CSS, inline SVG, :func:`html.escape`): a report needs no dependency,
no script and no network to be read.

Completions are always shown through :func:`visible`, because the characters that break
parsers (``\\u2028``, ``\\x85``, a zero-width space, a bidi override) are the ones a terminal
or a browser does not show.
"""

from __future__ import annotations

import html
import itertools
import json
import math
import re
import sys
import textwrap
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel

from .corpus import Finding
from .oracle import SEVERITY
from .results import Event, OperatorStats, RunSummary, StudyCell, StudyResult, wilson
from .strategies import ABUSES

__all__ = [
    "FAMILIES",
    "NdjsonLog",
    "ProgressPrinter",
    "render_console",
    "render_html",
    "render_junit",
    "render_markdown",
    "render_study_markdown",
    "study_to_dict",
    "summary_to_dict",
    "visible",
    "write_html",
    "write_json",
    "write_junit",
    "write_markdown",
    "xml_safe",
]

# --------------------------------------------------------------------------------------
# Shared vocabulary: families, severities, verdict kinds.

FAMILIES: dict[str, str] = {
    "clean": "no abuse: the intent written as the format says (the baseline)",
    "malformed": "an argument the schema refuses, or text that is not the format",
    "missing": "an argument (or the whole input) left out",
    "extra": "one argument too many, undeclared, or given twice",
    "injected": "delimiters, labels, stop sequences, actions where they do not belong",
    "label": "labels written the way models drift",
    "fabricated": "the model writes its own observation",
}
"""The abuse families in catalogue order, with one line each (``docs/abuses.md``)."""

_SEVERITIES = ("critical", "high", "medium", "low", "none")
_SEV_RANK = {s: i for i, s in enumerate(_SEVERITIES)}
_VERDICTS = tuple(SEVERITY)  # ok first, then by severity: the stacking order of the charts


def _family(abuse: str) -> str:
    """The family of an abuse id (the registry's, else the id's prefix)."""
    a = ABUSES.get(abuse)
    return a.family if a is not None else abuse.split(".", 1)[0]


def _family_order(families: Iterable[str]) -> list[str]:
    known = list(FAMILIES)
    fams = set(families)
    return [f for f in known if f in fams] + sorted(fams - set(known))


def _by_family(abuses: Iterable[str]) -> list[str]:
    """Abuse ids grouped by family (catalogue order), keeping their order inside a family."""
    abuses = list(dict.fromkeys(abuses))
    rank = {f: i for i, f in enumerate(_family_order(_family(a) for a in abuses))}
    return sorted(abuses, key=lambda a: rank[_family(a)])


def _families(summary: RunSummary) -> list[str]:
    found = [f.abuse for f in (*summary.findings, *summary.protocol_notes)]
    return _family_order(_family(a) for a in [*summary.abuses, *found])


def _checks(summary: RunSummary) -> list[str]:
    found = [f.check for f in (*summary.findings, *summary.protocol_notes)]
    return list(dict.fromkeys([*summary.checks, *found]))


def _targets(summary: RunSummary) -> list[str]:
    found = [f.target for f in (*summary.findings, *summary.protocol_notes)]
    return list(dict.fromkeys([*summary.targets, *found]))


def _sorted(findings: Iterable[Finding]) -> list[Finding]:
    """Worst first, then by check, abuse and target: the order every report uses."""
    return sorted(findings, key=lambda f: (
        _SEV_RANK.get(f.severity, len(_SEVERITIES)), f.check, f.abuse, f.target, f.verdict, f.id,
    ))


def _matrix(summary: RunSummary) -> dict[tuple[str, str], int]:
    """Findings counted by (check, family)."""
    out: dict[tuple[str, str], int] = {}
    for f in summary.findings:
        key = (f.check, _family(f.abuse))
        out[key] = out.get(key, 0) + 1
    return out


def _replay(summary: RunSummary, finding: Finding) -> str:
    if summary.corpus_dir:
        return finding.replay_command(f"{summary.corpus_dir.rstrip('/')}/{finding.filename}")
    return f"(not saved: rerun with --seed {summary.seed} and --corpus DIR to keep it)"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _seconds(s: float) -> str:
    return f"{s:.1f} s"


def _counts_line(summary: RunSummary) -> str:
    """``N findings (M new), K protocol notes``; known = absorbed by a baseline."""
    new = len(summary.new_findings)
    total = len(summary.findings) + summary.baseline_known
    notes = _plural(len(summary.protocol_notes), "protocol note")
    return f"{_plural(total, 'finding')} ({new} new), {notes}"


def _exit_meaning(summary: RunSummary) -> str:
    code = summary.exit_code
    if code == 130:
        return "exit code 130: interrupted; the findings so far are kept"
    if code == 1:
        return "exit code 1: new findings fail the run (protocol notes never do)"
    return "exit code 0: no new findings (protocol notes never fail a run)"


# --------------------------------------------------------------------------------------
# Making invisible characters visible.

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}
# Printable by Unicode's reckoning, yet drawn as nothing (fillers, blank braille, CGJ).
_BLANK_LOOKING = frozenset("\u034f\u115f\u1160\u2800\u3164\uffa0")


def _token(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    if ch == " " or (ch.isprintable() and ch not in _BLANK_LOOKING):
        return ch
    o = ord(ch)
    if o < 0x100:
        return f"\\x{o:02x}"
    if o < 0x10000:
        return f"\\u{o:04x}"
    return f"\\U{o:08x}"


def visible(text: str, *, limit: int | None = None) -> str:
    """``text`` on one line with every invisible character written as an escape.

    ``\\n``, ``\\r`` and ``\\t`` are written so; every other control, format (zero-width,
    bidi), separator or unprintable character as ``\\xNN`` / ``\\uNNNN`` / ``\\UNNNNNNNN``
    (as Python writes them); a backslash is doubled so an escape in the text cannot pass for
    one of ours. Ordinary non-ASCII (``é``, ``中``) stays. With ``limit``, the result is at
    most ``limit`` characters, cut between escapes and ended with ``…``.
    """
    tokens = [_token(ch) for ch in text]
    if limit is None or sum(map(len, tokens)) <= limit:
        return "".join(tokens)
    if limit < 1:
        raise ValueError(f"visible(limit={limit}): the limit must be at least 1")
    out, used = [], 0
    for t in tokens:
        if used + len(t) > limit - 1:
            break
        out.append(t)
        used += len(t)
    return "".join(out) + "…"


def _free(text: str) -> str:
    """Free text (expected, observed, explanation) on one line with invisible characters
    escaped; backslashes stay single, since only the line structure matters there."""
    return "".join("\\" if ch == "\\" else _token(ch) for ch in text)


def _chunks(text: str, width: int) -> list[str]:
    """``visible(text)`` cut into lines of at most ``width`` characters, never in an escape."""
    lines: list[str] = []
    cur, cut = "", 0  # cut: where the line would best end (after an escaped line break)
    for ch in text:
        t = _token(ch)
        if cur and len(cur) + len(t) > width:
            at = cut if cut > width // 2 else len(cur)
            lines.append(cur[:at])
            cur, cut = cur[at:], 0
        cur += t
        if ch in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029":
            cut = len(cur)
    return [*lines, cur] if cur or not lines else lines


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


def _count_table(summary: RunSummary) -> tuple[list[str], list[list[str]]]:
    """Findings by check (rows) and family (columns), with totals; ``.`` for none."""
    fams, checks, m = _families(summary), _checks(summary), _matrix(summary)

    def cell(n: int) -> str:
        return str(n) if n else "."

    rows = []
    for c in checks:
        counts = [m.get((c, f), 0) for f in fams]
        rows.append([c, *map(cell, counts), cell(sum(counts))])
    totals = [sum(m.get((c, f), 0) for c in checks) for f in fams]
    rows.append(["total", *map(cell, totals), cell(sum(totals))])
    return ["check", *fams, "total"], rows


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
            head = f"  - {f.verdict} · {f.abuse} · {f.target}: "
            out.append(head + visible(f.completion, limit=max(10, width - len(head))))
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
        line = self._describe(event)
        if line is not None:
            self._line(line)

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


# --------------------------------------------------------------------------------------
# JSON and NDJSON.


def _jsonable(obj: Any) -> Any:
    """Plain JSON data from results, findings, dataclasses, paths and sets."""
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, RunSummary):
        return summary_to_dict(obj)
    if isinstance(obj, StudyResult):
        return study_to_dict(obj)
    if is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _jsonable(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (set, frozenset)):
        return sorted(_jsonable(v) for v in obj)
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, BaseException):
        return f"{type(obj).__name__}: {obj}"
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def summary_to_dict(summary: RunSummary) -> dict[str, Any]:
    """A run as JSON data; findings as the corpus stores them (``Finding.model_validate``
    reads them back)."""
    return {
        "kind": "run",
        "seed": summary.seed,
        "targets": list(summary.targets),
        "format": summary.format,
        "dispatcher": summary.dispatcher,
        "tools": summary.tools,
        "checks": list(summary.checks),
        "abuses": list(summary.abuses),
        "examples": summary.examples,
        "elapsed": summary.elapsed,
        "interrupted": summary.interrupted,
        "replayed": summary.replayed,
        "reproduced": summary.reproduced,
        "baseline_known": summary.baseline_known,
        "corpus_dir": summary.corpus_dir,
        "exit_code": summary.exit_code,
        "counts": {
            "findings": len(summary.findings),
            "new": len(summary.new_findings),
            "protocol_notes": len(summary.protocol_notes),
            "by_check_family": [
                {"check": c, "family": fam, "findings": n}
                for (c, fam), n in sorted(_matrix(summary).items())
            ],
        },
        "findings": [f.model_dump(mode="json") for f in summary.findings],
        "protocol_notes": [f.model_dump(mode="json") for f in summary.protocol_notes],
        "operators": [_jsonable(o) for o in summary.operators],
    }


def _cell_dict(c: StudyCell) -> dict[str, Any]:
    lo, hi = c.interval()
    return {
        "design": c.design, "abuse": c.abuse, "n": c.n, "counts": dict(c.counts),
        "protocol": c.protocol, "example": c.example, "bad": c.bad(),
        "bad_rate": c.bad_rate(), "interval": [lo, hi],
    }


def study_to_dict(study: StudyResult) -> dict[str, Any]:
    """A study as JSON data: every cell with its rate and 95 % Wilson interval."""
    return {
        "kind": "study",
        "seed": study.seed,
        "examples_per_cell": study.examples_per_cell,
        "elapsed": study.elapsed,
        "designs": list(study.designs),
        "abuses": list(study.abuses),
        "descriptions": dict(study.descriptions),
        "cells": [_cell_dict(c) for c in study.cells],
        "totals": {d: _cell_dict(c) for d, c in study.design_totals().items()},
    }


def write_json(result: RunSummary | StudyResult, path: str | Path) -> Path:
    """Write a run (or a study) as indented JSON; returns the path."""
    data = study_to_dict(result) if isinstance(result, StudyResult) else summary_to_dict(result)
    return _write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _write(path: str | Path, text: str) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


class NdjsonLog:
    """Writes engine events to a file, one JSON object per line, flushed per event.

    Each line is ``{"kind": ..., "data": {...}}``; findings inside ``data`` are dumped as
    the corpus stores them. Lines are pure ASCII (``\\u2028`` and ``\\x85`` escaped), so no
    line splitter can cut a record in two. Use as a context manager or call :meth:`close`.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: TextIO | None = open(self.path, "w", encoding="utf-8")

    def __call__(self, event: Event) -> None:
        if self._fh is None:
            raise ValueError(f"NdjsonLog({str(self.path)!r}) is closed")
        record = {"kind": event.kind, "data": _jsonable(event.data)}
        self._fh.write(json.dumps(record, ensure_ascii=True) + "\n")
        self._fh.flush()

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> NdjsonLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------------------------------
# JUnit XML.

_XML_FORBIDDEN = re.compile(
    "[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


def xml_safe(text: str) -> str:
    """``text`` without the characters XML 1.0 forbids (controls, lone surrogates,
    U+FFFE/U+FFFF): each is replaced by its :func:`visible` escape, so nothing is lost."""
    return _XML_FORBIDDEN.sub(lambda m: _token(m.group()), text)


def _xml_text(text: str) -> str:
    return html.escape(xml_safe(text), quote=False)


def _xml_attr(text: str) -> str:
    # Attribute values are normalised by parsers (a newline becomes a space): encode them.
    esc = html.escape(xml_safe(text), quote=True)
    return esc.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")


def _attrs(**kw: Any) -> str:
    return "".join(f' {k}="{_xml_attr(str(v))}"' for k, v in kw.items())


def _finding_block(summary: RunSummary, f: Finding) -> str:
    return "\n".join([
        f"[{f.severity}] {f.verdict} · {f.abuse} · {f.target}",
        f"  completion: {visible(f.completion)}",
        f"  expected:   {_free(f.expected)}",
        f"  observed:   {_free(f.observed)}",
        f"  why:        {_free(f.explanation)}",
        f"  replay:     {_replay(summary, f)}",
    ])


def render_junit(summary: RunSummary) -> str:
    """JUnit XML: one test case per target × check × abuse family, failing with its findings.

    A family whose operators were all skipped for a target is a skipped case; protocol
    notes go to the case's ``system-out`` (they never fail it).
    """
    checks, fams = _checks(summary), _families(summary)
    cases: list[str] = []
    n_fail = n_skip = 0
    for target in _targets(summary) or ["(none)"]:
        ops_by_fam: dict[str, list[OperatorStats]] = {}
        for o in summary.operators:
            if o.target == target:
                ops_by_fam.setdefault(_family(o.abuse), []).append(o)
        for check in checks:
            for fam in fams:
                def mine(fs: list[Finding], check: str = check, fam: str = fam,
                         target: str = target) -> list[Finding]:
                    return _sorted(f for f in fs if f.target == target and f.check == check
                                   and _family(f.abuse) == fam)

                found, notes = mine(summary.findings), mine(summary.protocol_notes)
                ops = ops_by_fam.get(fam, [])
                secs = sum(o.elapsed for o in ops) / max(1, len(checks))
                head = "    <testcase" + _attrs(classname=f"reactfuzz.{target}",
                                                    name=f"{check} / {fam}", time=f"{secs:.3f}")
                body: list[str] = []
                if found:
                    n_fail += 1
                    kinds = ", ".join(dict.fromkeys(f"{f.verdict} ({f.severity})" for f in found))
                    msg = f"{_plural(len(found), 'finding')}: {kinds}"
                    text = "\n\n".join(_finding_block(summary, f) for f in found)
                    body.append(f"      <failure{_attrs(message=msg, type=found[0].verdict)}>"
                                f"{_xml_text(text)}</failure>")
                elif ops and all(o.skipped for o in ops):
                    n_skip += 1
                    why = "; ".join(dict.fromkeys(f"{o.abuse}: {o.skipped}" for o in ops))
                    body.append(f"      <skipped{_attrs(message=why)}/>")
                if notes:
                    text = "protocol notes (the format cannot carry these intents; not counted "\
                           "as failures):\n" + "\n".join(
                               f"  {f.verdict} · {f.abuse}: {visible(f.completion)}" for f in notes)
                    body.append(f"      <system-out>{_xml_text(text)}</system-out>")
                cases.append(f"{head}>\n" + "\n".join(body) + "\n    </testcase>" if body
                             else f"{head}/>")
    props = {
        "seed": summary.seed, "targets": ", ".join(summary.targets), "format": summary.format,
        "dispatcher": summary.dispatcher, "tools": summary.tools, "examples": summary.examples,
        "replayed": summary.replayed, "reproduced": summary.reproduced,
        "protocol_notes": len(summary.protocol_notes), "exit_code": summary.exit_code,
    }
    suite = _attrs(name="reactfuzz", tests=len(cases), failures=n_fail, errors=0,
                   skipped=n_skip, time=f"{summary.elapsed:.3f}")
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<testsuites{_attrs(name='reactfuzz', tests=len(cases), failures=n_fail, errors=0)}"
        f'{_attrs(time=f"{summary.elapsed:.3f}")}>',
        f"  <testsuite{suite}>",
        "    <properties>",
        *(f"      <property{_attrs(name=k, value=v)}/>" for k, v in props.items()),
        "    </properties>",
        *cases,
        "  </testsuite>",
        "</testsuites>",
    ]
    return "\n".join(lines) + "\n"


def write_junit(summary: RunSummary, path: str | Path) -> Path:
    """Write :func:`render_junit` to ``path``."""
    return _write(path, render_junit(summary))


# --------------------------------------------------------------------------------------
# Markdown.

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|<>#])")


def _md(text: str) -> str:
    """Free text safe in Markdown (and in a table cell): specials escaped, one line."""
    return _MD_SPECIAL.sub(r"\\\1", _free(text).replace("&", "&amp;"))


def _code(text: str, *, cell: bool = False) -> str:
    """An inline code span that holds any backticks in ``text`` (``cell``: inside a table,
    where even a code span needs its ``|`` escaped)."""
    if cell:
        text = text.replace("|", "\\|")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fence(text: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def _md_table(header: list[str], rows: list[list[str]], align: str = "") -> list[str]:
    aligns = align or "l" + "r" * (len(header) - 1)
    sep = ["---:" if a == "r" else ":---:" if a == "c" else "---" for a in aligns]
    return ["| " + " | ".join(r) + " |" for r in [header, sep, *rows]]


def render_markdown(summary: RunSummary) -> str:
    """A pull-request comment: headline, findings by check × family, one collapsed section
    per finding (completion, expected/observed, replay command)."""
    n = len(summary.findings)
    head = f"❌ {_plural(n, 'finding')}" if n else "✅ no findings"
    if summary.interrupted:
        head += " (interrupted: partial results)"
    meta = " · ".join(f"{k} `{v}`" for k, v in [
        ("seed", summary.seed), ("target", ", ".join(summary.targets)),
        ("format", summary.format), ("dispatcher", summary.dispatcher),
    ]) + f" · {summary.examples} examples in {_seconds(summary.elapsed)}" \
        + f" · corpus: {summary.replayed} replayed, {summary.reproduced} reproduced"
    out = [f"## reactfuzz: {head}", "", meta, ""]
    header, rows = _count_table(summary)
    rows = [[_code(r[0], cell=True) if r[0] != "total" else "**total**", *r[1:]] for r in rows]
    out += _md_table(header, [[c.replace(".", "·") if c == "." else c for c in r]
                              for r in rows])
    out.append("")
    multi = len(_targets(summary)) > 1
    for f in _sorted(summary.findings):
        where = f" · `{f.target}`" if multi else ""
        out += [
            "<details>",
            f"<summary><b>{html.escape(f.severity)}</b> · <code>{html.escape(f.verdict)}</code>"
            f" · <code>{html.escape(f.check)}</code> · <code>{html.escape(f.abuse)}</code>"
            f"{html.escape(where).replace('`', '')}</summary>",
            "",
            "Completion (invisible characters written as escapes):",
            "",
            _fence(visible(f.completion), "text"),
            "",
            f"- **expected:** {_code(_free(f.expected))}",
            f"- **observed:** {_code(_free(f.observed))}",
            f"- **why:** {_md(f.explanation)}",
            "",
            _fence(_replay(summary, f), "sh"),
            "",
            "</details>",
            "",
        ]
    notes = _sorted(summary.protocol_notes)
    if notes:
        out += [
            "<details>",
            f"<summary>{_plural(len(notes), 'protocol note')}: the format cannot carry these "
            "intents; not counted as failures</summary>",
            "",
            *(f"- `{f.verdict}` · `{f.abuse}` · `{f.target}`: {_code(visible(f.completion))}"
              for f in notes),
            "",
            "</details>",
            "",
        ]
    out += [f"**{_counts_line(summary)}** · {_exit_meaning(summary)}"]
    return "\n".join(out) + "\n"


def write_markdown(result: RunSummary | StudyResult, path: str | Path) -> Path:
    """Write :func:`render_markdown` (or :func:`render_study_markdown`) to ``path``."""
    text = (render_study_markdown(result) if isinstance(result, StudyResult)
            else render_markdown(result))
    return _write(path, text)


# --------------------------------------------------------------------------------------
# Study rates.


def _percent(r: float, dec: int = 0) -> str:
    """``r`` in percent with ``dec`` decimals, halves rounded up (``round`` would make
    0.5 % read 0 %)."""
    scale = 10**dec
    return f"{math.floor(r * 100 * scale + 0.5 + 1e-9) / scale:.{dec}f}"


def _pct(r: float, dec: int = 0) -> str:
    """A rate in percent; a rate that is not 0 never reads 0 % (nor 100 % when not 1)."""
    p = _percent(r, dec)
    if r > 0 and float(p) == 0:
        return f"<{_percent(10**-(dec + 2), dec)}%"
    if r < 1 and float(p) == 100:
        return f">{_percent(1 - 10**-(dec + 2), dec)}%"
    return f"{p}%"


def _rate_parts(k: int, n: int) -> tuple[str, str]:
    """``("37%", "[29–46]")``: the rate and its 95 % Wilson interval in percent, with the
    decimals it takes for the interval's bounds to differ (a pooled ``[0–0]`` says nothing)."""
    lo, hi = wilson(k, n)
    r = k / n if n else 0.0
    dec = 0
    while dec < 2 and ((hi > lo and _percent(lo, dec) == _percent(hi, dec))
                       or (r > 0 and float(_percent(r, dec)) == 0)):
        dec += 1
    return _pct(r, dec), f"[{_percent(lo, dec)}–{_percent(hi, dec)}]"


def _rate_ci(k: int, n: int) -> str:
    """``37% [29–46]``: the rate and its 95 % Wilson interval, in percent."""
    if n == 0:
        return "no examples"
    return " ".join(_rate_parts(k, n))


def _mark(c: StudyCell) -> str:
    """``†`` every bad verdict is the protocol's; ``‡`` some are."""
    if c.protocol and c.protocol >= c.bad():
        return "†"
    return "‡" if c.protocol else ""


def _worst(c: StudyCell, top: int = 3) -> str:
    bad = sorted(((k, v) for k, v in c.counts.items() if k != "ok" and v),
                 key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{k} {v}" for k, v in bad[:top]) or "none"


def _descriptions(study: StudyResult) -> dict[str, str]:
    from .designs import BUILTIN_DESIGNS

    return {d: study.descriptions.get(d) or (
        BUILTIN_DESIGNS[d].description if d in BUILTIN_DESIGNS else "") for d in study.designs}


_STUDY_LEGEND = [
    "Each cell: the share of examples whose verdict is not `ok`, with its 95 % Wilson "
    "interval in brackets (percent).",
    "`†` every non-ok verdict in the cell is caused by the **protocol** (the format cannot "
    "carry the intent; the design did what the text says); `‡` some are.",
    "`n/a`: the operator does not apply to the design's format.",
    "Totals pool all operators of a design; their interval treats the pooled examples as one "
    "sample.",
]


def render_study_markdown(study: StudyResult) -> str:
    """The study as Markdown: the design × operator matrix (rate and 95 % interval), the
    per-design totals and a legend."""
    out = [
        "## reactfuzz study: verdict rates by design and abuse operator",
        "",
        f"seed `{study.seed}` · {study.examples_per_cell} examples per cell · "
        f"{len(study.designs)} designs × {len(study.abuses)} operators · "
        f"{_seconds(study.elapsed)}",
        "",
    ]
    rows = []
    for a in _by_family(study.abuses):
        row = [_code(a, cell=True)]
        for d in study.designs:
            c = study.cell(d, a)
            if c is None or c.n == 0:
                row.append("n/a")
            else:
                mark = _mark(c)
                row.append(_rate_ci(c.bad(), c.n) + (f" {mark}" if mark else ""))
        rows.append(row)
    out += _md_table(["abuse", *(_code(d, cell=True) for d in study.designs)], rows,
                     "l" + "c" * len(study.designs))
    out += ["", "### Per design, all operators pooled", ""]
    totals = study.design_totals()
    descr = _descriptions(study)
    trows = []
    for d in study.designs:
        t = totals.get(d, StudyCell(d, "all"))
        design_bad = max(0, t.bad() - t.protocol)
        trows.append([_code(d, cell=True), _md(descr.get(d, "")), str(t.n), _rate_ci(t.bad(), t.n),
                      _rate_ci(design_bad, t.n), str(t.protocol), _worst(t)])
    out += _md_table(["design", "what it is", "examples", "not ok", "design faults",
                      "protocol", "most frequent"], trows, "llrrrrl")
    out += ["", "Legend:", "", *(f"- {line}" for line in _STUDY_LEGEND)]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------
# SVG charts.

_MONO = "DejaVu Sans Mono, Menlo, Consolas, ui-monospace, monospace"
_CW = 7.3  # advance of a 12 px monospace character (0.602 em), rounded up
_SEV_COLORS = {"critical": "#a50f15", "high": "#e6550d", "medium": "#fdae6b",
               "low": "#9ecae1", "none": "#d9d9d9"}
_VERDICT_COLORS = {
    "ok": "#c7e9c0", "wrong-call": "#67000d", "hijacked-answer": "#d7301f",
    "fabricated-observation": "#f768a1", "unvalidated-call": "#ec7014", "crash": "#fec44f",
    "timeout": "#8c510a", "silent-drop": "#807dba", "wrong-rejection": "#6baed6",
}
_PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
            "#ff9da7", "#9c755f", "#bab0ac", "#1f3b73", "#8cd17d", "#d4a6c8", "#79706e")


def _hex(c: str) -> tuple[int, int, int]:
    c = c.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def _dark(c: str) -> bool:
    r, g, b = _hex(c)
    return 0.299 * r + 0.587 * g + 0.114 * b < 140


def _ramp(stops: Sequence[tuple[float, str]], x: float) -> str:
    x = min(1.0, max(0.0, x))
    for (x0, c0), (x1, c1) in itertools.pairwise(stops):
        if x <= x1:
            t = (x - x0) / (x1 - x0) if x1 > x0 else 0.0
            rgb = [round(a + (b - a) * t) for a, b in zip(_hex(c0), _hex(c1))]
            return "#{:02x}{:02x}{:02x}".format(*rgb)
    return stops[-1][1]


_REDS = ((0.0, "#fff7ec"), (0.05, "#fee8c8"), (0.15, "#fdbb84"), (0.35, "#ef6548"),
         (0.65, "#b30000"), (1.0, "#5c0000"))
_BLUES = ((0.0, "#f7fbff"), (0.05, "#deebf7"), (0.15, "#9ecae1"), (0.35, "#4292c6"),
          (0.65, "#08519c"), (1.0, "#08306b"))
_ZERO = "#edf8e9"
_NA = "#f0f0f0"


@dataclass
class _Bar:
    segments: list[tuple[str, float]]  # (series, value), stacked left to right
    low: float | None = None  # whisker
    high: float | None = None
    note: str = ""  # written right of the plot


@dataclass
class _Row:
    label: str
    bars: list[_Bar] = field(default_factory=list)
    note: str = ""  # written right of the plot when there are no bars (e.g. skipped)
    header: bool = False  # a group heading, no bars


def _nice_step(xmax: float, ticks: int = 6) -> float:
    raw = xmax / ticks
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def _t(x: float, y: float, text: str, *, size: int = 12, anchor: str = "start",
       weight: str = "normal", fill: str = "#222", extra: str = "", tip: str = "") -> str:
    title = f"<title>{html.escape(tip)}</title>" if tip and tip != text else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}"{extra}>{title}{html.escape(text)}</text>')


def _cut(text: str, n: int, *, middle: bool = False) -> str:
    """At most ``n`` characters; ``middle`` keeps the end (``target: abuse``: the abuse)."""
    if len(text) <= n:
        return text
    if middle:
        tail = (n - 1) * 2 // 3
        return text[: n - 1 - tail] + "…" + text[len(text) - tail:]
    return text[: max(1, n - 1)] + "…"


def _legend(items: Sequence[tuple[str, str]], x0: float, y0: float, width: float,
            kind: str = "box") -> tuple[list[str], float]:
    """Swatches and names left to right, wrapping at ``width``; returns (svg, bottom)."""
    out, x, y = [], x0, y0
    for name, color in items:
        w = 18 + len(name) * _CW + 18
        if x > x0 and x + w > x0 + width:
            x, y = x0, y + 20
        if kind == "whisker":
            out.append(f'<line x1="{x:.1f}" y1="{y + 6}" x2="{x + 12:.1f}" y2="{y + 6}" '
                       f'stroke="{color}" stroke-width="1.5"/>'
                       f'<line x1="{x:.1f}" y1="{y + 1}" x2="{x:.1f}" y2="{y + 11}" '
                       f'stroke="{color}" stroke-width="1.5"/>'
                       f'<line x1="{x + 12:.1f}" y1="{y + 1}" x2="{x + 12:.1f}" y2="{y + 11}" '
                       f'stroke="{color}" stroke-width="1.5"/>')
        else:
            out.append(f'<rect x="{x:.1f}" y="{y}" width="12" height="12" fill="{color}" '
                       'stroke="#555" stroke-width="0.5"/>')
        out.append(_t(x + 18, y + 10.5, name))
        x += w
    return out, y + 14


def _bar_chart(
    *,
    title: str,
    subtitle: str = "",
    ylabel: str,
    xlabel: str,
    rows: list[_Row],
    series: Sequence[tuple[str, str]],
    whisker_label: str = "",
    xmax: float | None = None,
    percent: bool = False,
    inside_labels: bool = False,
    integer: bool = False,
    width: int = 1100,
) -> str:
    """A horizontal bar chart: one row per label, one or more bars per row (grouped), each
    bar stacked from segments; optional whiskers and right-hand notes."""
    pad, bar_h, bar_gap, row_pad = 14, 16, 3, 6
    colors = dict(series)
    # Long labels and notes are cut (full text in a tooltip) so the plot keeps its room.
    max_label, max_note = int(width * 0.38 / _CW), int(340 / _CW)
    label_w = min(max([len(r.label) for r in rows] + [8]), max_label) * _CW + 12
    notes = [b.note for r in rows for b in r.bars] + [r.note for r in rows]
    note_w = min(max([len(n) for n in notes] + [0]), max_note) * _CW + 14
    left = pad + 22 + label_w
    right = width - pad - note_w
    plot_w = right - left

    out: list[str] = []
    y = pad + 16
    out.append(_t(pad, y, title, size=16, weight="bold", extra=' font-family="sans-serif"'))
    if subtitle:
        y += 20
        out.append(_t(pad, y, subtitle, size=12, fill="#555",
                      extra=' font-family="sans-serif"'))
    items = list(series)
    leg, y = _legend(items, pad, y + 14, width - 2 * pad)
    out += leg
    if whisker_label:
        leg, y = _legend([(whisker_label, "#222")], pad, y + 6, width - 2 * pad, "whisker")
        out += leg
    top = y + 14

    if xmax is None:
        xmax = max([sum(v for _, v in b.segments) for r in rows for b in r.bars]
                   + [b.high or 0 for r in rows for b in r.bars] + [0])
        xmax = xmax or (0.1 if percent else 1.0)
    step = _nice_step(xmax)
    if integer:
        step = max(1.0, float(round(step)))
    xmax = math.ceil(xmax / step - 1e-9) * step
    if percent:
        xmax = min(xmax, 1.0)

    def sx(v: float) -> float:
        return left + plot_w * (v / xmax if xmax else 0)

    # Rows: backgrounds first, then the grid, then bars and text (else stripes hide the grid).
    back: list[str] = []
    body: list[str] = []
    yy = top
    zebra = False
    for r in rows:
        if r.header:
            h = 22
            body.append(f'<line x1="{pad + 22}" y1="{yy + 0.5:.1f}" x2="{right:.1f}" '
                        f'y2="{yy + 0.5:.1f}" stroke="#999" stroke-width="0.8"/>')
            body.append(_t(pad + 22, yy + 15, r.label, weight="bold",
                           extra=' font-family="sans-serif"'))
            yy += h
            zebra = False
            continue
        nb = max(1, len(r.bars))
        h = nb * bar_h + (nb - 1) * bar_gap + 2 * row_pad
        if zebra:
            back.append(f'<rect x="{pad + 22}" y="{yy:.1f}" width="{right - pad - 22:.1f}" '
                        f'height="{h}" fill="#f4f4f4"/>')
        zebra = not zebra
        label = _cut(r.label, max_label, middle=True)
        body.append(_t(left - 8, yy + h / 2 + 4, label, anchor="end", tip=r.label))
        for i, b in enumerate(r.bars):
            by = yy + row_pad + i * (bar_h + bar_gap)
            x = 0.0
            for name, v in b.segments:
                if v <= 0:
                    continue
                x0, x1 = sx(x), sx(x + v)
                color = colors.get(name, "#969696")
                tip = f"{r.label} · {name}: {_pct(v) if percent else _num(v)}"
                body.append(f'<rect x="{x0:.1f}" y="{by:.1f}" width="{max(x1 - x0, 0.8):.1f}" '
                            f'height="{bar_h}" fill="{color}" stroke="#fff" stroke-width="0.5">'
                            f"<title>{html.escape(tip)}</title></rect>")
                if inside_labels:
                    txt = _pct(v) if percent else _num(v)
                    if x1 - x0 >= len(txt) * _CW + 6:
                        body.append(_t((x0 + x1) / 2, by + bar_h - 4, txt, size=11,
                                       anchor="middle",
                                       fill="#fff" if _dark(color) else "#111"))
                x += v
            if b.low is not None and b.high is not None and sx(b.high) - sx(b.low) >= 2:
                cy = by + bar_h / 2
                x0, x1 = sx(b.low), sx(b.high)
                caps = (x0, x1) if x1 - x0 >= 10 else (x1,)  # close caps read as an "H"
                body.append(f'<g stroke="#222" stroke-width="1.4"><line x1="{x0:.1f}" '
                            f'y1="{cy:.1f}" x2="{x1:.1f}" y2="{cy:.1f}"/>' + "".join(
                                f'<line x1="{x:.1f}" y1="{cy - 5:.1f}" x2="{x:.1f}" '
                                f'y2="{cy + 5:.1f}"/>' for x in caps) + "</g>")
            if b.note:
                body.append(_t(right + 8, by + bar_h - 4, _cut(b.note, max_note), size=12,
                               fill="#333", tip=b.note))
        if r.note:
            body.append(_t(right + 8, yy + h / 2 + 4, _cut(r.note, max_note), fill="#777",
                           extra=' font-style="italic"', tip=r.note))
        yy += h
    bottom = yy

    # Grid and axis (drawn under the bars: inserted before them).
    grid: list[str] = []
    v = 0.0
    while v <= xmax + 1e-9:
        gx = sx(v)
        grid.append(f'<line x1="{gx:.1f}" y1="{top}" x2="{gx:.1f}" y2="{bottom:.1f}" '
                    f'stroke="{"#888" if v == 0 else "#ddd"}" stroke-width="1"/>')
        grid.append(_t(gx, bottom + 16, _pct(v) if percent else _num(v), size=11,
                       anchor="middle", fill="#444"))
        v += step
    grid.append(f'<line x1="{left}" y1="{bottom:.1f}" x2="{right:.1f}" y2="{bottom:.1f}" '
                'stroke="#888"/>')
    out += back + grid + body
    out.append(_t(left + plot_w / 2, bottom + 36, xlabel, anchor="middle",
                  extra=' font-family="sans-serif"'))
    cy = (top + bottom) / 2
    out.append(_t(pad + 10, cy, ylabel, anchor="middle",
                  extra=f' font-family="sans-serif" transform="rotate(-90 {pad + 10} {cy:.1f})"'))
    height = bottom + 50
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {width} '
            f'{height:.0f}" width="{width}" height="{height:.0f}" '
            f'font-family="{_MONO}" aria-label="{html.escape(title)}">'
            f"<title>{html.escape(title)}</title>" + "".join(out) + "</svg>")


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"


# --------------------------------------------------------------------------------------
# HTML.

_CSS = """
body{margin:0;background:#fff;color:#1b1b1b;font:14px/1.45 system-ui,-apple-system,
 "Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:1140px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:24px;margin:0 0 6px}h2{font-size:19px;margin:34px 0 10px;
 border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:16px;margin:22px 0 8px}
code,pre,.mono{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
pre{background:#f6f8fa;border:1px solid #e1e4e8;border-radius:4px;padding:8px 10px;
 white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0}
.meta{color:#444;margin:4px 0 0}.meta span{margin-right:14px;white-space:nowrap}
.chart{margin:16px 0;overflow-x:auto}.chart svg{max-width:100%;height:auto}
table{border-collapse:collapse;margin:8px 0}
th,td{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top;text-align:left}
th{background:#f6f8fa}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.comp{max-width:420px;overflow-wrap:anywhere}
.sev{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;font-weight:600}
details{border:1px solid #d0d7de;border-radius:4px;margin:8px 0;padding:6px 10px}
details summary{cursor:pointer}
dl.kv{display:grid;grid-template-columns:110px minmax(0,1fr);gap:3px 10px;margin:8px 0}
dl.kv dt{color:#555;padding-top:1px}dl.kv dd{margin:0;overflow-wrap:anywhere}
dl.kv dd pre{margin:0}pre.code{white-space:pre;overflow-x:auto}
.badge{display:inline-block;padding:1px 10px;border-radius:4px;color:#fff;font-size:20px;
 vertical-align:2px;margin-right:6px}.badge.fail{background:#b31d28}
.badge.pass{background:#22863a}.badge.stop{background:#b08800}
.note{color:#555;font-size:13px}
table.matrix{table-layout:fixed;width:100%}
table.matrix th.op{width:270px;font-weight:normal;background:#fff}
table.matrix th.op code{font-weight:600}
table.matrix th.op .d{display:block;color:#666;font-size:11.5px;line-height:1.3}
table.matrix th.design{text-align:center;font-size:13px;vertical-align:bottom}
table.matrix th.design .d{display:block;font-weight:normal;color:#666;font-size:11px;
 line-height:1.25}
table.matrix tr.fam th{background:#e9edf1;text-align:left;font-size:13px}
table.matrix tr.fam th .d{font-weight:normal;color:#555;margin-left:8px}
table.matrix td.cell{text-align:center;padding:5px 4px;font-family:"DejaVu Sans Mono",
 Menlo,Consolas,monospace;line-height:1.25}
td.cell .r{font-size:14px;font-weight:700}td.cell .ci{font-size:11.5px}
td.cell .m{font-size:11px}
td.na{color:#888;background:#f0f0f0;font-style:italic}
.legend{display:flex;flex-wrap:wrap;gap:6px 22px;align-items:center;margin:8px 0;
 font-size:13px}
.legend .sw{display:inline-block;width:26px;height:14px;border:1px solid #999;
 vertical-align:middle;margin-right:6px}
footer{margin-top:40px;color:#777;font-size:12px}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _ticks(escaped: str) -> str:
    """Markdown-style `code` in already escaped text as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)


def _page(title: str, body: list[str], generated: str | None) -> str:
    foot = "reactfuzz report" + (f" · generated {_e(generated)}" if generated else "")
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body><main>",
        *body,
        f"<footer>{foot}</footer>",
        "</main></body>",
        "</html>",
        "",
    ])


def _sev_pill(sev: str) -> str:
    bg = _SEV_COLORS.get(sev, "#d9d9d9")
    fg = "#fff" if _dark(bg) else "#111"
    return f'<span class="sev" style="background:{bg};color:{fg}">{_e(sev)}</span>'


def _meta(pairs: Sequence[tuple[str, Any]]) -> str:
    # The spaces between spans are where the line may break.
    return '<p class="meta">' + " ".join(
        f"<span>{_e(k)} <b>{_e(v)}</b></span>" for k, v in pairs) + "</p>"


def _run_html(summary: RunSummary) -> tuple[str, list[str]]:
    n = len(summary.findings)
    # Not emoji: a machine without an emoji font would draw boxes.
    badge = (f'<span class="badge fail">✗ {_plural(n, "finding")}</span>' if n
             else '<span class="badge pass">✓ no findings</span>')
    if summary.interrupted:
        badge += '<span class="badge stop">interrupted</span>'
    title = f"reactfuzz run: {_plural(n, 'finding') if n else 'no findings'}"
    body = [f"<h1>{badge} reactfuzz run</h1>", _meta([
        ("seed", summary.seed), ("targets" if len(summary.targets) > 1 else "target",
                                 ", ".join(summary.targets)),
        ("format", summary.format), ("dispatcher", summary.dispatcher),
        ("tools", summary.tools), ("examples", summary.examples),
        ("elapsed", _seconds(summary.elapsed)), ("replayed", summary.replayed),
        ("reproduced", summary.reproduced),
    ])]
    if summary.interrupted:
        body.append('<p class="note"><b>Interrupted:</b> the results are partial.</p>')
    body.append(f'<p class="meta">{_e(_counts_line(summary))} · {_e(_exit_meaning(summary))}'
                "</p>")

    # Findings by check, stacked by severity.
    body.append("<h2>Where the findings are</h2>")
    checks = _checks(summary)
    if summary.findings:
        rows = []
        for c in checks:
            fs = [f for f in summary.findings if f.check == c]
            segs = [(s, float(sum(f.severity == s for f in fs))) for s in _SEVERITIES]
            rows.append(_Row(c, [_Bar(segs, note=_plural(len(fs), "finding"))]))
        sevs = [s for s in _SEVERITIES if any(f.severity == s for f in summary.findings)]
        body.append('<div class="chart">' + _bar_chart(
            title="Findings by check", subtitle="distinct findings (shrunk and deduplicated), "
            "by severity", ylabel="check", xlabel="findings", rows=rows, integer=True,
            series=[(s, _SEV_COLORS[s]) for s in sevs]) + "</div>")
    else:
        body.append('<p class="note">No findings: every check held on every example.</p>')

    # Failing examples per operator, stacked by check, grouped by family.
    if summary.operators:
        multi = len({o.target for o in summary.operators}) > 1
        order = {a: i for i, a in enumerate(
            _by_family([*summary.abuses, *(o.abuse for o in summary.operators)]))}
        ops = sorted(summary.operators, key=lambda o: (order[o.abuse], o.target))
        # Only checks that failed somewhere get a colour (and a legend entry).
        failing = [c for c in checks if any(o.failures.get(c) for o in ops)]
        failing += sorted({c for o in ops for c, v in o.failures.items() if v} - set(failing))
        rows = []
        fam = None
        for o in ops:
            if _family(o.abuse) != fam:
                fam = _family(o.abuse)
                rows.append(_Row(fam, header=True))
            label = f"{o.target}: {o.abuse}" if multi else o.abuse
            if o.skipped:
                rows.append(_Row(label, note=f"skipped: {o.skipped}"))
                continue
            segs = [(c, float(o.failures.get(c, 0))) for c in failing]
            fails = max(o.failures.values(), default=0)
            rows.append(_Row(label, [_Bar(segs, note=f"{fails}/{o.examples} examples")]))
        body.append('<div class="chart">' + _bar_chart(
            title="Failing examples per abuse operator",
            subtitle="examples that failed each check; an example failing two checks counts "
            "in both. Right: most failing / examples run",
            ylabel="abuse operator", xlabel="failing examples", rows=rows, integer=True,
            series=[(c, _PALETTE[i % len(_PALETTE)]) for i, c in enumerate(failing)]) + "</div>")
    else:
        body.append('<p class="note">No per-operator statistics in this run.</p>')

    # Findings table and details.
    findings = _sorted(summary.findings)
    if findings:
        body.append("<h2>Findings</h2>")
        body.append("<table><tr><th>#</th><th>severity</th><th>verdict</th><th>check</th>"
                    "<th>abuse</th><th>target</th><th>minimal completion</th></tr>")
        for i, f in enumerate(findings, 1):
            body.append(
                f'<tr><td class="num"><a href="#f-{f.id}">{i}</a></td>'
                f"<td>{_sev_pill(f.severity)}</td><td><code>{_e(f.verdict)}</code></td>"
                f"<td><code>{_e(f.check)}</code></td><td><code>{_e(f.abuse)}</code></td>"
                f"<td><code>{_e(f.target)}</code></td>"
                f'<td class="comp"><code>{_e(visible(f.completion, limit=90))}</code></td></tr>')
        body.append("</table>")
        body.append("<h2>Details</h2>")
        opened = " open" if len(findings) <= 10 else ""
        for i, f in enumerate(findings, 1):
            body += [
                f'<details id="f-{f.id}"{opened}><summary><b>{i}.</b> {_sev_pill(f.severity)} '
                f"<code>{_e(f.verdict)}</code> · <code>{_e(f.check)}</code> · "
                f"<code>{_e(f.abuse)}</code> · <code>{_e(f.target)}</code></summary>",
                '<dl class="kv">',
                f"<dt>completion</dt><dd><pre>{_e(visible(f.completion))}</pre></dd>",
                f"<dt>expected</dt><dd><code>{_e(_free(f.expected))}</code></dd>",
                f"<dt>observed</dt><dd><code>{_e(_free(f.observed))}</code></dd>",
                f"<dt>why</dt><dd>{_e(_free(f.explanation))}</dd>",
                f'<dt>replay</dt><dd><pre class="code">{_e(_replay(summary, f))}</pre></dd>',
                f'<dt>reproduce</dt><dd><pre class="code">{_e(f.reproduction())}</pre></dd>',
                "</dl></details>",
            ]
    notes = _sorted(summary.protocol_notes)
    if notes:
        body.append(f"<h2>{_e(_plural(len(notes), 'protocol note'))}</h2>")
        body.append('<p class="note">The format cannot carry these intents: the design did '
                    "what the text says. Not counted as failures.</p>")
        body.append("<table><tr><th>verdict</th><th>abuse</th><th>target</th>"
                    "<th>completion</th><th>explanation</th></tr>")
        for f in notes:
            body.append(f"<tr><td><code>{_e(f.verdict)}</code></td><td><code>{_e(f.abuse)}"
                        f"</code></td><td><code>{_e(f.target)}</code></td>"
                        f'<td class="comp"><code>{_e(visible(f.completion, limit=90))}</code>'
                        f"</td><td>{_e(_free(f.explanation))}</td></tr>")
        body.append("</table>")
    return title, body


def _cell_style(c: StudyCell) -> tuple[str, str]:
    """Background and text colour of a matrix cell."""
    r = c.bad_rate()
    if c.bad() == 0:
        bg = _ZERO
    elif _mark(c) == "†":
        bg = _ramp(_BLUES, r)
    else:
        bg = _ramp(_REDS, r)
    return bg, "#fff" if _dark(bg) else "#111"


def _matrix_legend() -> str:
    def ramp(stops: Sequence[tuple[float, str]]) -> str:
        grads = "".join(f'<stop offset="{x:.2f}" stop-color="{c}"/>' for x, c in stops)
        gid = "g" + stops[-1][1].lstrip("#")
        return (f'<svg width="150" height="28" viewBox="0 0 150 28" role="img">'
                f'<defs><linearGradient id="{gid}">{grads}</linearGradient></defs>'
                f'<rect x="1" y="1" width="148" height="12" fill="url(#{gid})" stroke="#999"/>'
                f'<text x="1" y="26" font-size="10" fill="#444">0%</text>'
                f'<text x="149" y="26" font-size="10" text-anchor="end" fill="#444">100%</text>'
                "</svg>")

    return ('<div class="legend">'
            f"<span>{ramp(_REDS)} non-ok rate, design faults</span>"
            f"<span>{ramp(_BLUES)} † every non-ok verdict caused by the protocol</span>"
            f'<span><span class="sw" style="background:{_ZERO}"></span>0%: all ok</span>'
            f'<span><span class="sw" style="background:{_NA}"></span>n/a: does not apply'
            "</span><span>‡ some non-ok verdicts caused by the protocol</span></div>")


def _study_html(study: StudyResult) -> tuple[str, list[str]]:
    title = "reactfuzz study: verdict rates by design and abuse operator"
    descr = _descriptions(study)
    body = [f"<h1>{_e(title)}</h1>", _meta([
        ("seed", study.seed), ("examples per cell", study.examples_per_cell),
        ("designs", len(study.designs)), ("operators", len(study.abuses)),
        ("elapsed", _seconds(study.elapsed)),
    ])]
    body.append("<h2>Non-ok rate by design and operator</h2>")
    body.append('<p class="note">Each cell: the share of examples whose verdict is not '
                "<code>ok</code>, and its 95 % Wilson interval (percent). Hover a cell for the "
                "verdict counts and an example.</p>")
    body.append(_matrix_legend())
    body.append('<table class="matrix"><tr><th class="op">abuse operator</th>' + "".join(
        f'<th class="design"><code>{_e(d)}</code><span class="d">{_e(descr.get(d, ""))}'
        "</span></th>" for d in study.designs) + "</tr>")
    fam = None
    for a in _by_family(study.abuses):
        if _family(a) != fam:
            fam = _family(a)
            body.append(f'<tr class="fam"><th colspan="{len(study.designs) + 1}">{_e(fam)}'
                        f'<span class="d">{_e(FAMILIES.get(fam, ""))}</span></th></tr>')
        ab = ABUSES.get(a)
        cells = []
        for d in study.designs:
            c = study.cell(d, a)
            if c is None or c.n == 0:
                cells.append('<td class="cell na" title="the operator does not apply">n/a</td>')
                continue
            bg, fg = _cell_style(c)
            rate, ci = _rate_parts(c.bad(), c.n)
            counts = ", ".join(f"{k} {v}" for k, v in sorted(
                c.counts.items(), key=lambda kv: (-kv[1], kv[0])) if v)
            tip = f"{d} × {a}: n={c.n}; {counts}"
            if c.protocol:
                tip += f"; {c.protocol} caused by the protocol"
            if c.example:
                tip += f"\nexample: {visible(c.example, limit=200)}"
            mark = _mark(c)
            said = "† protocol" if mark == "†" else f"‡ {c.protocol} protocol"
            mark_html = f'<div class="m">{said}</div>' if mark else ""
            cells.append(f'<td class="cell" style="background:{bg};color:{fg}" title="{_e(tip)}">'
                         f'<div class="r">{_e(rate)}</div>'
                         f'<div class="ci">{_e(ci)}</div>{mark_html}</td>')
        desc = f'<span class="d">{_ticks(_e(ab.description))}</span>' if ab else ""
        body.append(f'<tr><th class="op"><code>{_e(a)}</code>{desc}</th>{"".join(cells)}</tr>')
    body.append("</table>")

    totals = study.design_totals()
    body.append("<h2>Per design, all operators pooled</h2>")
    rows = []
    for d in study.designs:
        t = totals.get(d, StudyCell(d, "all"))
        design_bad = max(0, t.bad() - t.protocol)
        lo, hi = wilson(t.bad(), t.n)
        dlo, dhi = wilson(design_bad, t.n)
        rows.append(_Row(d, [
            _Bar([("any non-ok verdict", t.bad_rate())], lo, hi,
                 note=f"{_rate_ci(t.bad(), t.n)}"),
            _Bar([("design fault (protocol excluded)", design_bad / t.n if t.n else 0.0)],
                 dlo, dhi, note=f"{_rate_ci(design_bad, t.n)}"),
        ]))
    body.append('<div class="chart">' + _bar_chart(
        title="Non-ok rate per design", subtitle="all operators pooled; whiskers: 95 % Wilson "
        "interval (pooled examples treated as one sample)", ylabel="design",
        xlabel="share of examples", rows=rows, percent=True,
        series=[("any non-ok verdict", "#fdae6b"),
                ("design fault (protocol excluded)", "#a50f15")],
        whisker_label="95 % interval") + "</div>")

    kinds = list(_VERDICTS) + sorted({k for t in totals.values() for k in t.counts}
                                     - set(_VERDICTS))
    present = [k for k in kinds if any(t.counts.get(k) for t in totals.values())]
    vrows = []
    for d in study.designs:
        t = totals.get(d, StudyCell(d, "all"))
        vrows.append(_Row(d, [_Bar([(k, t.rate(k)) for k in present],
                                   note=f"n={t.n}")]))
    body.append('<div class="chart">' + _bar_chart(
        title="Verdicts per design", subtitle="share of each verdict, all operators pooled "
        "(ok first, then by severity)", ylabel="design", xlabel="share of examples",
        rows=vrows, percent=True, xmax=1.0, inside_labels=True,
        series=[(k, _VERDICT_COLORS.get(k, "#969696")) for k in present]) + "</div>")

    body.append("<h3>Totals</h3>")
    body.append("<table><tr><th>design</th><th>what it is</th><th>examples</th>"
                "<th>not ok</th><th>design faults</th><th>protocol</th><th>most frequent"
                "</th></tr>")
    for d in study.designs:
        t = totals.get(d, StudyCell(d, "all"))
        design_bad = max(0, t.bad() - t.protocol)
        body.append(f"<tr><td><code>{_e(d)}</code></td><td>{_e(descr.get(d, ''))}</td>"
                    f'<td class="num">{t.n}</td><td class="num">{_e(_rate_ci(t.bad(), t.n))}'
                    f'</td><td class="num">{_e(_rate_ci(design_bad, t.n))}</td>'
                    f'<td class="num">{t.protocol}</td><td>{_e(_worst(t))}</td></tr>')
    body.append("</table>")
    body.append('<ul class="note">' + "".join(
        f"<li>{_e(line.replace('`', '').replace('**', ''))}</li>" for line in _STUDY_LEGEND)
        + "</ul>")
    return title, body


def render_html(result: RunSummary | StudyResult, *, generated: str | None = None) -> str:
    """A self-contained HTML page (inline CSS and SVG, no script, no external resource) for a
    run or a study; ``generated`` (e.g. a timestamp) is printed in the footer if given."""
    if isinstance(result, StudyResult):
        title, body = _study_html(result)
    elif isinstance(result, RunSummary):
        title, body = _run_html(result)
    else:
        raise TypeError(f"render_html takes a RunSummary or a StudyResult, not "
                        f"{type(result).__name__}")
    return _page(title, body, generated)


def write_html(result: RunSummary | StudyResult, path: str | Path, *,
               generated: str | None = None) -> Path:
    """Write :func:`render_html` to ``path``."""
    return _write(path, render_html(result, generated=generated))
