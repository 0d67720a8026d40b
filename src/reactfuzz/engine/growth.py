"""How a parse's time grows with its input: a long input timed beside a quarter of it.

One slow parse says nothing about growth: a pure-Python decoder is linear and still a
hundred times slower than a regex on the same text. Two parses of one input's shapes at
two lengths do: a linear parser takes about four times as long on four times the text, a
quadratic one sixteen times. :func:`measure_growth` times the quarter of a long input that
took a noticeable share of the time limit (its first and last eighths, so the labels and
the call around a long run stay and only the run shrinks), and :class:`Growth` says
whether the time grew faster than the length. Where the target measures the CPU time of
its parses and the long parse spent a working share of its time on the CPU (not sleeping
or waiting), the ratio is taken on CPU time, which a loaded machine does not stretch;
otherwise on wall time, each try's fastest kept. The time allowed for one parse
(:func:`~reactfuzz.limits.time_allowed`) is absolute and so depends on the machine; the
ratio does not, so a quadratic parser shows at lengths where it still keeps within its
limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..targets import ParseResult, Target

__all__ = ["GROWTH_FLOOR", "GROWTH_MIN_LENGTH", "GROWTH_RATIO", "Growth", "measure_growth",
           "quarter", "worked"]

GROWTH_MIN_LENGTH = 8192
"""The shortest input whose growth is measured: its quarter keeps a kilobyte at each end,
more than the labels and the call around a long run take."""

GROWTH_FLOOR = 0.25
"""The share of the time limit a parse must take before its growth is measured: shorter
times are not a cost at that length, and too short to time well."""

GROWTH_RATIO = 8.0
"""How many times as long four times the text may take: a linear parser takes about 4
(n log n about 4.6), a quadratic one 16."""


SEAM = 4
"""How many characters before each side of :func:`quarter`'s join must be the same."""
SEAM_HEAD_REACH = 16
"""How far back from its eighth the first part of :func:`quarter` may end."""
SEAM_TAIL_REACH = 64
"""How far either way from its eighth the last part of :func:`quarter` may start."""


def quarter(text: str) -> str:
    """The first and last eighths of ``text``: the same shape at a quarter of the length
    when most of it is one long run (a thought, an argument, whitespace).

    Each side moves by a few characters where that makes the :data:`SEAM` characters
    before the join the same on both: a run of units (`a12="1", `) then joins between two
    units, not inside one, whose broken join a parser would refuse at the middle, timing
    a quarter cheaper than its share of the text."""
    k = len(text) // 8
    tail = len(text) - k
    if k > SEAM_TAIL_REACH + SEAM:
        near = sorted(range(tail - SEAM_TAIL_REACH, tail + SEAM_TAIL_REACH + 1),
                      key=lambda at: abs(at - tail))
        for head in range(k, k - SEAM_HEAD_REACH - 1, -1):
            seam = text[head - SEAM:head]
            at = next((at for at in near if text[at - SEAM:at] == seam), None)
            if at is not None:
                return text[:head] + text[at:]
    return text[:k] + text[tail:]


@dataclass(frozen=True)
class Growth:
    """One long input's parse time beside its quarter's (the faster of two tries each)."""

    length: int
    seconds: float
    short_length: int
    short_seconds: float

    @property
    def ratio(self) -> float:
        """How many times as long the long input took (the quarter at 0.1 ms at least; a
        quarter past its limit gives 0)."""
        return self.seconds / max(self.short_seconds, 1e-4)

    @property
    def super_linear(self) -> bool:
        """Whether the time grew faster than the length: :data:`GROWTH_RATIO` or more."""
        return self.ratio >= GROWTH_RATIO

    def describe(self) -> str:
        """The two timings and their ratio, in words."""
        return (f"parsing {self.length} characters took {self.seconds:.3g}s and a quarter of"
                f" them ({self.short_length}) {self.short_seconds:.3g}s: {self.ratio:.0f}"
                " times as long for 4 times the text (a linear parser takes about 4)")


CPU_BOUND = 0.1
"""The share of a long parse's wall time its CPU time must reach for the parse to count
as work, and the ratio to be taken on CPU time: a machine four times oversubscribed still
gives a working parse a quarter of it, while a parse that sleeps or waits spends next to
none."""


def worked(elapsed: float, cpu: float | None) -> bool:
    """Whether a parse measured its CPU time and spent a working share of its wall time on
    it (:data:`CPU_BOUND`): its time is then read on the CPU clock, which load does not
    stretch; a parse that sleeps or waits is read on the wall clock."""
    return cpu is not None and cpu >= CPU_BOUND * elapsed


def _work(long_runs: list[ParseResult], short_runs: list[ParseResult]) -> bool:
    """Whether every parse measured its CPU time and the long ones :func:`worked`."""
    runs = [r for r in long_runs + short_runs if not r.timed_out]
    return all(r.cpu is not None for r in runs) and all(
        worked(r.elapsed, r.cpu) for r in long_runs if not r.timed_out)


def _seconds(results: list[ParseResult], cpu: bool) -> float:
    """The fastest of some tries of one parse: CPU or wall seconds; infinite when every
    try ran past its limit."""
    times = [(r.cpu if cpu and r.cpu is not None else r.elapsed) for r in results
             if not r.timed_out]
    return min(times) if times else math.inf


def measure_growth(target: Target, text: str, first: ParseResult,
                   time_limit: float) -> Growth | None:
    """The growth of ``target``'s parse time from the quarter of ``text`` to ``text``, whose
    parse gave ``first``; None when ``text`` is short or its parse fast.

    The quarter is timed twice and the faster kept (a quarter past the limit makes no
    growth: the time limit is the finding then); a long parse that looks super-linear is
    timed again and the faster kept, so one pause on a loaded machine does not make a
    finding. CPU time is compared where every parse was work (see the module docstring).
    """
    long_runs = [first]
    if len(text) < GROWTH_MIN_LENGTH or long_runs[0].elapsed < GROWTH_FLOOR * time_limit:
        return None
    short = quarter(text)
    short_runs = [target.run(short), target.run(short)]
    cpu = _work(long_runs, short_runs)
    growth = Growth(len(text), _seconds(long_runs, cpu), len(short),
                    _seconds(short_runs, cpu))
    if growth.super_linear:
        long_runs.append(target.run(text))
        cpu = _work(long_runs, short_runs)
        growth = Growth(len(text), _seconds(long_runs, cpu), len(short),
                        _seconds(short_runs, cpu))
    return growth
