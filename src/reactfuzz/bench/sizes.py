"""How parse time grows with input size: ``reactfuzz bench --sizes``.

A parser that is linear in its input costs ten times more on a text ten times longer; one
that backtracks or rebuilds context per line costs a hundred. This module times the
grammar parser (with and without its fast path) and the classic regex parser on
completions from 100 B to 1 MB, and the transcript parser on transcripts from 10 to
10,000 steps, and fits the growth exponent ``k`` in ``time ~ size ** k`` on the largest
sizes, where fixed per-call costs no longer hide the growth. ``k`` near 1 is linear; the
bench holds the grammar parser to ``k <= 1.1``. Times are the calling thread's CPU time
(a loaded machine stretches wall time by however long others hold the cores, and by a
different amount at each size); the wall time is measured beside it and printed for the
largest size.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = [
    "EXPONENT_LIMIT",
    "SizeSeries",
    "fit_exponent",
    "growth",
    "render_sizes",
    "size_scaling",
]

EXPONENT_LIMIT = 1.1
"""The largest growth exponent the grammar parser is held to."""

COMPLETION_SIZES = (100, 1_000, 10_000, 100_000, 1_000_000)
TRANSCRIPT_STEPS = (10, 100, 1_000, 10_000)
FIT_POINTS = 3
"""How many of the largest sizes the exponent is fitted on (the small ones measure the
fixed cost of a call, not its growth)."""


@dataclass
class SizeSeries:
    """One parser on one workload: sizes, best-of-``repeat`` CPU seconds, fitted exponent."""

    parser: str
    workload: str
    unit: str  # what the size counts: "bytes" or "steps"
    sizes: list[int]
    seconds: list[float]  # CPU seconds
    reference: list[float]  # a linear pass over the same texts, timed beside each
    held: bool = False  # whether the parser is held to EXPONENT_LIMIT
    wall: list[float] = field(default_factory=list)  # wall seconds, best of the same calls

    @property
    def exponent(self) -> float:
        """The growth exponent fitted on the largest sizes (CPU time as measured)."""
        return fit_exponent(self.sizes[-FIT_POINTS:], self.seconds[-FIT_POINTS:])

    @property
    def relative_exponent(self) -> float:
        """The growth exponent with the machine's own cost per byte taken out: 1 plus the
        slope of the time *relative to the linear reference pass* on the same texts.

        Past a few hundred kB every byte costs more (fresh memory pages, caches), for a
        bare ``str.split`` too; dividing by such a pass measured beside the parser leaves
        the parser's own growth.
        """
        ratios = [t / max(r, 1e-9) for t, r in zip(self.seconds, self.reference, strict=True)]
        return 1.0 + fit_exponent(self.sizes[-FIT_POINTS:], ratios[-FIT_POINTS:])

    @property
    def met(self) -> bool | None:
        """Whether a held parser's relative exponent stays within :data:`EXPONENT_LIMIT`
        (``None``: the parser is not held to it)."""
        return self.relative_exponent <= EXPONENT_LIMIT if self.held else None


def fit_exponent(sizes: Sequence[float], seconds: Sequence[float]) -> float:
    """The least-squares slope of log(time) against log(size)."""
    if len(sizes) != len(seconds) or len(sizes) < 2:
        raise ValueError("need at least two (size, time) points of equal count")
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(t, 1e-9)) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    num = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    den = sum((x - mx) ** 2 for x in xs)
    return num / den


_THOUGHT = ("Thought: The customer says the charge on the card is wrong, so I will look up"
            " the invoice, compare the amounts and check the refund policy first.\n")
_ACTION = "Action: search[refund policy for a duplicate charge]"


def long_thought(size: int) -> str:
    """A completion of ``size`` characters: many thought lines, then one action."""
    body = _THOUGHT * (size // len(_THOUGHT) + 1)
    return body[: max(0, size - len(_ACTION) - 1)].rstrip("\n") + "\n" + _ACTION


def long_argument(size: int) -> str:
    """A completion of ``size`` characters whose one argument is almost all of it."""
    head = "Thought: I will search for the whole message.\nAction: search["
    words = "duplicate charge refund "
    arg = (words * (size // len(words) + 1))[: max(1, size - len(head) - 1)].strip()
    return head + arg + "]"


def transcript(steps: int) -> str:
    """A bracket-format transcript of ``steps`` tool steps and a final answer, built from
    the realistic support-agent runs of :func:`~.workloads.realistic_runs`."""
    question, blocks = _step_blocks()
    out = [question]
    out += [blocks[i % len(blocks)] for i in range(steps)]
    out.append("Thought: I have what I need.\nAnswer: Done: the refund is on its way.")
    return "\n".join(out) + "\n"


@lru_cache(maxsize=1)
def _step_blocks() -> tuple[str, tuple[str, ...]]:
    """The question line and the Thought/Action/Observation blocks of the realistic runs."""
    from .workloads import realistic_runs

    blocks: list[str] = []
    question = ""
    for _, text in realistic_runs(24, seed=0):
        lines = text.splitlines()
        question = question or lines[0]
        # the step blocks: Thought / Action / Observation, three lines each
        body = [ln for ln in lines[1:] if not ln.startswith(("Answer:",))]
        for i in range(0, len(body) - 2, 3):
            block = body[i:i + 3]
            if (block[0].startswith("Thought:") and block[1].startswith("Action:")
                    and block[2].startswith("Observation:")):
                blocks.append("\n".join(block))
    return question, tuple(blocks)


def _best(fn: Callable[[str], object], text: str, repeat: int,
          budget: float) -> tuple[float, float]:
    """The best CPU time and the best wall time of up to ``repeat`` calls (fewer when one
    call passes ``budget`` CPU seconds)."""
    best, best_wall = math.inf, math.inf
    gc.collect()
    gc.disable()  # as timeit does: a collection mid-call charges one call for the heap
    try:
        for _ in range(repeat):
            wall, start = time.perf_counter(), time.thread_time()
            fn(text)
            took, wall = time.thread_time() - start, time.perf_counter() - wall
            best, best_wall = min(best, took), min(best_wall, wall)
            if took > budget:
                break
    finally:
        gc.enable()
    return best, best_wall


def size_scaling(*, quick: bool = False, repeat: int = 5,
                 progress: Callable[[str], None] | None = None) -> list[SizeSeries]:
    """Time every parser on every size; ``quick`` stops a decade early (for tests)."""
    from ..formats import get_format
    from ..formats.grammars import grammar_parse, parse_transcript
    from ..parsers import get_parser

    say = progress or (lambda _m: None)
    bracket = get_format("bracket")
    classic = get_parser("classic-bracket", bracket)
    sizes = list(COMPLETION_SIZES[:-1] if quick else COMPLETION_SIZES)
    steps = list(TRANSCRIPT_STEPS[:-1] if quick else TRANSCRIPT_STEPS)
    grammar_parse(long_thought(200), bracket, fast=False)  # compile outside the timing
    parsers: list[tuple[str, Callable[[str], object], bool]] = [
        ("grammar", lambda t: grammar_parse(t, bracket), True),
        ("grammar (Lark only)", lambda t: grammar_parse(t, bracket, fast=False), True),
        ("classic-bracket (regex)", classic.parse, False),
    ]
    out: list[SizeSeries] = []
    for workload, make in (("long thought", long_thought), ("long argument", long_argument)):
        for name, fn, held in parsers:
            say(f"sizes: {name}, {workload}")
            out.append(growth(name, fn, workload, make, sizes, held=held, repeat=repeat))
    say("sizes: transcripts")
    out.append(growth("grammar transcript", lambda t: parse_transcript(t, bracket),
                      "transcript", transcript, steps, unit="steps", repeat=repeat))
    return out


def growth(parser: str, fn: Callable[[str], object], workload: str,
           make: Callable[[int], str], sizes: Sequence[int], *, unit: str = "bytes",
           held: bool = True, repeat: int = 5) -> SizeSeries:
    """Time ``fn`` on ``make(n)`` for each size, beside the linear reference pass."""
    texts = [make(n) for n in sizes]
    secs, refs, walls = _timed(fn, texts, repeat)
    measured = [len(t) for t in texts] if unit == "bytes" else list(sizes)
    return SizeSeries(parser, workload, unit, measured, secs, refs, held, walls)


def _reference_pass(text: str) -> object:
    """A linear pass that reads and copies every byte once, as any line parser must."""
    return text.split("\n")


def _timed(fn: Callable[[str], object], texts: list[str],
           repeat: int) -> tuple[list[float], list[float], list[float]]:
    """The parser's and the reference pass's best CPU times on each text, side by side,
    and the parser's best wall times."""
    secs: list[float] = []
    refs: list[float] = []
    walls: list[float] = []
    for text in texts:
        refs.append(_best(_reference_pass, text, repeat, 2.0)[0])
        cpu, wall = _best(fn, text, repeat, 2.0)
        secs.append(cpu)
        walls.append(wall)
    return secs, refs, walls


def _fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:,.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:,.1f} ms"
    return f"{seconds:,.2f} s"


def _fmt_size(n: int, unit: str) -> str:
    if unit == "steps":
        return f"{n:,} steps"
    return f"{n / 1e6:g} MB" if n >= 1_000_000 else (
        f"{n / 1e3:g} kB" if n >= 1_000 else f"{n} B")


def render_sizes(series: list[SizeSeries], *, markdown: bool = False) -> str:
    """One table: each parser and workload, its time at every size and its exponent."""
    header = ["parser", "workload", "cpu time at each size", "wall, largest", "exponent",
              "relative exponent", "target", "met"]
    rows = []
    for s in series:
        times = ", ".join(f"{_fmt_size(n, s.unit)} {_fmt_time(t)}"
                          for n, t in zip(s.sizes, s.seconds, strict=True))
        met = "" if s.met is None else ("yes" if s.met else "NO")
        rows.append([s.parser, s.workload, times, _fmt_time(s.wall[-1]) if s.wall else "",
                     f"{s.exponent:.2f}", f"{s.relative_exponent:.2f}",
                     f"<= {EXPONENT_LIMIT}" if s.held else "", met])
    note = ("times are the best CPU time of the calls; wall, largest: the best wall time at"
            " the largest size, beside it; "
            f"exponent: slope of log(time) on log(size) over the {FIT_POINTS} largest"
            " sizes (1.0 is linear, 2.0 quadratic); relative exponent: the same with the"
            " time divided by a str.split of the same text timed beside it, which takes"
            " out the machine's rising cost per byte on large texts; the target holds it")
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + f"\n\n{note}."
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    return "\n".join(lines) + f"\n{note}"
