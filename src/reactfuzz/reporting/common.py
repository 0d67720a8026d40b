"""What every report shares: abuse families and their order, severities and their colours,
finding order, counts, invisible characters made visible, study rates, writing a file.

Every function here renders data and reads no clock and no randomness. Completions are always
shown through :func:`visible`, because the characters that break parsers (``\\u2028``,
``\\x85``, a zero-width space, a bidi override) are the ones a terminal or a browser does not
show.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path

from ..engine.corpus import Finding
from ..engine.results import RunSummary, StudyCell, StudyResult, wilson
from ..kinds import SEVERITY_SCALE
from ..oracle import SEVERITY
from ..strategies import ABUSES
from ..textsafe import json_safe, terminal_safe, token, visible

__all__ = [
    "DESIGN_COLOR", "FAMILIES", "FAULT_COLORS", "FAULT_LEGEND", "OK_COLOR", "PROTOCOL_COLOR",
    "visible",
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

SEVERITIES = tuple(reversed(SEVERITY_SCALE))  # worst first
_SEV_RANK = {s: i for i, s in enumerate(SEVERITIES)}
VERDICTS = tuple(SEVERITY)  # ok first, then by severity: the stacking order of the charts


def family_of(abuse: str) -> str:
    """The family of an abuse id (the registry's, else the id's prefix)."""
    a = ABUSES.get(abuse)
    return a.family if a is not None else abuse.split(".", 1)[0]


def _family_order(families: Iterable[str]) -> list[str]:
    known = list(FAMILIES)
    fams = set(families)
    return [f for f in known if f in fams] + sorted(fams - set(known))


def by_family(abuses: Iterable[str]) -> list[str]:
    """Abuse ids grouped by family (catalogue order), keeping their order inside a family."""
    abuses = list(dict.fromkeys(abuses))
    rank = {f: i for i, f in enumerate(_family_order(family_of(a) for a in abuses))}
    return sorted(abuses, key=lambda a: rank[family_of(a)])


def families_found(summary: RunSummary) -> list[str]:
    found = [f.abuse for f in (*summary.findings, *summary.protocol_notes)]
    return _family_order(family_of(a) for a in [*summary.abuses, *found])


def checks_found(summary: RunSummary) -> list[str]:
    found = [f.check for f in (*summary.findings, *summary.protocol_notes)]
    return list(dict.fromkeys([*summary.checks, *found]))


def targets_found(summary: RunSummary) -> list[str]:
    found = [f.target for f in (*summary.findings, *summary.protocol_notes)]
    return list(dict.fromkeys([*summary.targets, *found]))


def worst_first(findings: Iterable[Finding]) -> list[Finding]:
    """Worst first, then by check, abuse and target: the order every report uses."""
    return sorted(findings, key=lambda f: (
        _SEV_RANK.get(f.severity, len(SEVERITIES)), f.check, f.abuse, f.target, f.failure, f.id,
    ))


def finding_matrix(summary: RunSummary) -> dict[tuple[str, str], int]:
    """Findings counted by (check, family)."""
    out: dict[tuple[str, str], int] = {}
    for f in summary.findings:
        key = (f.check, family_of(f.abuse))
        out[key] = out.get(key, 0) + 1
    return out


def replay_command(summary: RunSummary, finding: Finding) -> str:
    if summary.corpus_dir:
        return finding.replay_command(f"{summary.corpus_dir.rstrip('/')}/{finding.filename}")
    return f"(not saved: rerun with --seed {summary.seed} and --corpus DIR to keep it)"


def where_line(f: Finding) -> str:
    """Where the parser decided on a finding, in one line ("" when unknown)."""
    return f.origin.describe() if f.origin is not None else ""


def reached_line(f: Finding) -> str:
    """How many failing examples met a finding's bug, and which operators reached it."""
    ops = [f.abuse, *f.also_reached]
    shown = ", ".join(ops[:6]) + (f" and {len(ops) - 6} more" if len(ops) > 6 else "")
    return f"{plural(f.count, 'failing example')} from {plural(len(ops), 'operator')}: {shown}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def seconds_text(s: float) -> str:
    return f"{s:.1f} s"


def known_line(summary: RunSummary) -> str:
    """``K known, M new, F fixed``: known = the corpus or baseline held it and it still
    fails, fixed = it held it and its replay no longer fails."""
    return (f"{summary.known} known, {len(summary.new_findings)} new,"
            f" {summary.fixed} fixed")


def counts_line(summary: RunSummary) -> str:
    """``N findings (K known, M new, F fixed), P protocol notes``."""
    total = summary.known + len(summary.new_findings)
    notes = plural(len(summary.protocol_notes), "protocol note")
    return f"{plural(total, 'finding')} ({known_line(summary)}), {notes}"


def exit_meaning(summary: RunSummary) -> str:
    code = summary.exit_code
    if code == 130:
        return "exit code 130: interrupted; the findings so far are kept"
    if code == 143:
        return "exit code 143: terminated (SIGTERM); the findings so far are kept"
    if code == 1 and not summary.new_findings:
        return ("exit code 1: known findings still fail the run (accept them with --baseline"
                " DIR; protocol notes never fail a run)")
    if code == 1:
        return "exit code 1: new findings fail the run (protocol notes never do)"
    return "exit code 0: no new findings (protocol notes never fail a run)"


# --------------------------------------------------------------------------------------
# Making invisible characters visible.

def free_text(text: str) -> str:
    """Free text (expected, observed, explanation) on one line with invisible characters
    escaped; backslashes stay single, since only the line structure matters there."""
    return "".join("\\" if ch == "\\" else token(ch) for ch in text)


def chunks(text: str, width: int) -> list[str]:
    """``visible(text)`` cut into lines of at most ``width`` characters, never in an escape."""
    lines: list[str] = []
    cur, cut = "", 0  # cut: where the line would best end (after an escaped line break)
    for ch in text:
        t = token(ch)
        if cur and len(cur) + len(t) > width:
            at = cut if cut > width // 2 else len(cur)
            lines.append(cur[:at])
            cur, cut = cur[at:], 0
        cur += t
        if ch in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029":
            cut = len(cur)
    return [*lines, cur] if cur or not lines else lines


def count_table(summary: RunSummary) -> tuple[list[str], list[list[str]]]:
    """Findings by check (rows) and family (columns), with totals; ``.`` for none."""
    fams, checks, m = families_found(summary), checks_found(summary), finding_matrix(summary)

    def cell(n: int) -> str:
        return str(n) if n else "."

    rows = []
    for c in checks:
        counts = [m.get((c, f), 0) for f in fams]
        rows.append([c, *map(cell, counts), cell(sum(counts))])
    totals = [sum(m.get((c, f), 0) for c in checks) for f in fams]
    rows.append(["total", *map(cell, totals), cell(sum(totals))])
    return ["check", *fams, "total"], rows


def write_atomic(path: str | Path, text: str, *, json: bool = False) -> Path:
    """Write a report atomically (a temporary file, then a rename): a run stopped while
    writing never leaves half a report. The text passes the one sanitiser first (JSON as
    ``\\uXXXX`` escapes, so it stays the same data): no report carries a control
    sequence or a bidi override from a completion, a parser or a file."""
    text = json_safe(text) if json else terminal_safe(text)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if not p.parent.is_dir() or (p.exists() and not p.is_file()):
        p.write_text(text, encoding="utf-8")  # a FIFO or device: written in place
        return p
    tmp = p.with_name(f".tmp-{p.name}.{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, p)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return p


# --------------------------------------------------------------------------------------
# Study rates.


def percent_text(r: float, dec: int = 0) -> str:
    """``r`` in percent with ``dec`` decimals, halves rounded up (``round`` would make
    0.5 % read 0 %)."""
    scale = 10**dec
    return f"{math.floor(r * 100 * scale + 0.5 + 1e-9) / scale:.{dec}f}"


def pct(r: float, dec: int = 0) -> str:
    """A rate in percent; a rate that is not 0 never reads 0 % (nor 100 % when not 1)."""
    p = percent_text(r, dec)
    if r > 0 and float(p) == 0:
        return f"<{percent_text(10**-(dec + 2), dec)}%"
    if r < 1 and float(p) == 100:
        return f">{percent_text(1 - 10**-(dec + 2), dec)}%"
    return f"{p}%"


def rate_parts(k: int, n: int) -> tuple[str, str]:
    """``("37%", "[29–46]")``: the rate and its 95 % Wilson interval in percent, with the
    decimals it takes for the interval's bounds to differ (a pooled ``[0–0]`` says nothing)."""
    lo, hi = wilson(k, n)
    r = k / n if n else 0.0
    dec = 0
    while dec < 2 and ((hi > lo and percent_text(lo, dec) == percent_text(hi, dec))
                       or (r > 0 and float(percent_text(r, dec)) == 0)):
        dec += 1
    return pct(r, dec), f"[{percent_text(lo, dec)}–{percent_text(hi, dec)}]"


def rate_ci(k: int, n: int) -> str:
    """``37% [29–46]``: the rate and its 95 % Wilson interval, in percent."""
    if n == 0:
        return "no examples"
    return " ".join(rate_parts(k, n))


def protocol_mark(c: StudyCell) -> str:
    """``†`` every bad verdict is the protocol's; ``‡`` some are."""
    if c.protocol and c.protocol >= c.bad():
        return "†"
    return "‡" if c.protocol else ""


def worst_verdicts(c: StudyCell, top: int = 3) -> str:
    """The most frequent non-ok verdicts, each with how many of them the protocol caused
    (``wrong-call 10 (10 protocol)``): a count never reads as design faults it is not."""
    bad = sorted(((k, v) for k, v in c.counts.items() if k != "ok" and v),
                 key=lambda kv: (-kv[1], kv[0]))

    def said(k: str, v: int) -> str:
        p = c.protocol_counts.get(k, 0)
        return f"{k} {v}" + (f" ({p} protocol)" if p else "")

    return ", ".join(said(k, v) for k, v in bad[:top]) or "none"


def descriptions(study: StudyResult) -> dict[str, str]:
    from ..designs import BUILTIN_DESIGNS

    return {d: study.descriptions.get(d) or (
        BUILTIN_DESIGNS[d].description if d in BUILTIN_DESIGNS else "") for d in study.designs}


def design_blocks(designs: list[str], size: int = 8) -> list[list[str]]:
    """The study's designs in blocks of at most ``size`` (one table each), never parting
    two neighbours of the same format (a classic design and its grammar)."""
    from ..designs import BUILTIN_DESIGNS

    def fmt(d: str) -> str:
        return BUILTIN_DESIGNS[d].format if d in BUILTIN_DESIGNS else d

    blocks: list[list[str]] = []
    i = 0
    while i < len(designs):
        end = min(i + size, len(designs))
        while i + 1 < end < len(designs) and fmt(designs[end - 1]) == fmt(designs[end]):
            end -= 1
        blocks.append(designs[i:end])
        i = end
    return blocks


_Worst = list[tuple[str, str]]


def study_conclusions(study: StudyResult) -> list[tuple[str, list[tuple[str, str, _Worst]]]]:
    """The study's conclusions as text: per format, each design's design-fault rate (with
    its interval) and the operators it fails on most, as ``(operator, "verdict rate")``."""
    from ..engine.study import format_conclusions

    out = []
    for fc in format_conclusions(study):
        rows = [(d.design, rate_ci(d.faults, d.n), [(a, f"{v} {pct(r)}") for a, v, r in d.worst])
                for d in fc.designs]
        out.append((fc.format, rows))
    return out


STUDY_LEGEND = [
    "Each cell: the share of examples whose verdict is not `ok`, with its 95 % Wilson "
    "interval in brackets (percent).",
    "`†` every non-ok verdict in the cell is caused by the **protocol** (the format cannot "
    "carry the intent; the design did what the text says); `‡` some are.",
    "`n/a`: the operator does not apply to the design's format.",
    "Totals pool all operators of a design; their interval treats the pooled examples as one "
    "sample.",
]


# --------------------------------------------------------------------------------------
# The one colour rule: every chart and table of every HTML report draws a verdict by its
# cause -- a design fault in reds, a protocol fault (the format cannot carry the intent; no
# parser can avoid it) in amber, ok (and a right refusal) in green -- and takes its colours
# from here, so a protocol-caused wrong call is never drawn in the design-fault colour.

DESIGN_COLOR = "#b2182b"
"""A design fault: the parser or dispatcher got it wrong (red)."""
PROTOCOL_COLOR = "#e8a317"
"""A protocol fault: the format cannot carry the intent; the design did what the text says
(amber). Reported as a protocol note, never as a finding."""
OK_COLOR = "#a1d99b"
"""ok: the intended call ran, or the completion was refused with the right kind (green)."""

FAULT_COLORS = {"design": DESIGN_COLOR, "protocol": PROTOCOL_COLOR, "ok": OK_COLOR}
"""Verdict cause -> colour: the palette of every verdict chart and table."""

FAULT_LEGEND = (
    ("design fault", DESIGN_COLOR,
     "the parser or dispatcher got it wrong: a finding, fix the design"),
    ("protocol fault", PROTOCOL_COLOR,
     "the format cannot carry the intent: a protocol note, no parser can avoid it"),
    ("ok / right refusal", OK_COLOR,
     "the intended call ran, or the completion was refused with the right kind"),
)
"""The legend every HTML report shows for :data:`FAULT_COLORS` (name, colour, meaning)."""

# Ramps for the matrix cells: a design-fault rate in reds, a protocol-only rate in ambers.
REDS = ((0.0, "#fff5f0"), (0.05, "#fee0d2"), (0.15, "#fc9272"), (0.35, "#ef3b2c"),
         (0.65, "#a50f15"), (1.0, "#67000d"))
AMBERS = ((0.0, "#fffbeb"), (0.05, "#fff0c2"), (0.15, "#fcd667"), (0.35, "#e8a317"),
           (0.65, "#d38b0a"), (1.0, "#b07004"))  # stays amber: never reads as a red
ZERO = "#edf8e9"  # a cell with no non-ok verdict (the pale end of the ok green)
NA = "#f0f0f0"  # the operator does not apply

# Findings are design faults: their severities are shades of the design red.
SEV_COLORS = {"critical": "#67000d", "high": "#b2182b", "medium": "#ef3b2c",
               "low": "#fc9272", "none": "#d9d9d9"}
# A design-caused verdict by kind: shades of the design red, worst darkest. Protocol-caused
# verdicts of any kind are drawn in PROTOCOL_COLOR, ok in OK_COLOR.
VERDICT_COLORS = {
    "ok": OK_COLOR, "wrong-call": "#67000d", "hijacked-answer": "#99000d",
    "fabricated-observation": "#b2182b", "unvalidated-call": "#cb181d", "crash": "#ef3b2c",
    "timeout": "#fb6a4a", "silent-drop": "#fc9272", "wrong-rejection": "#fcbba1",
}


def hex_rgb(c: str) -> tuple[int, int, int]:
    c = c.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def dark(c: str) -> bool:
    r, g, b = hex_rgb(c)
    return 0.299 * r + 0.587 * g + 0.114 * b < 140
