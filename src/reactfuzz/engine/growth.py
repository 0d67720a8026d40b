"""How a parse's time grows with its input: a long input timed beside a quarter of it.

One slow parse says nothing about growth: a pure-Python decoder is linear and still a
hundred times slower than a regex on the same text. Two parses of one input's shapes at
two lengths do: a linear parser takes about four times as long on four times the text, a
quadratic one sixteen times. :func:`measure_growth` times the quarter of a long input that
took a noticeable share of the time limit (its first and last eighths, so the labels and
the call around a long run stay and only the run shrinks), and :class:`Growth` says
whether the time grew faster than the length. The time allowed for one parse
(:func:`~reactfuzz.limits.time_allowed`) is absolute and so depends on the machine; the
ratio does not, so a quadratic parser shows at lengths where it still keeps within its
limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..targets import Target

__all__ = ["GROWTH_FLOOR", "GROWTH_MIN_LENGTH", "GROWTH_RATIO", "Growth", "measure_growth",
           "quarter"]

GROWTH_MIN_LENGTH = 8192
"""The shortest input whose growth is measured: its quarter keeps a kilobyte at each end,
more than the labels and the call around a long run take."""

GROWTH_FLOOR = 0.25
"""The share of the time limit a parse must take before its growth is measured: shorter
times are not a cost at that length, and too short to time well."""

GROWTH_RATIO = 8.0
"""How many times as long four times the text may take: a linear parser takes about 4
(n log n about 4.6), a quadratic one 16."""


def quarter(text: str) -> str:
    """The first and last eighths of ``text``: the same shape at a quarter of the length
    when most of it is one long run (a thought, an argument, whitespace)."""
    k = len(text) // 8
    return text[:k] + text[len(text) - k:]


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


def _seconds(target: Target, text: str) -> float:
    """The time one parse of ``text`` took; infinite when it ran past its limit."""
    result = target.run(text)
    return math.inf if result.timed_out else result.elapsed


def measure_growth(target: Target, text: str, elapsed: float,
                   time_limit: float) -> Growth | None:
    """The growth of ``target``'s parse time from the quarter of ``text`` to ``text``, which
    took ``elapsed`` seconds; None when ``text`` is short or its parse fast.

    The quarter is timed twice and the faster kept (a quarter past the limit makes no
    growth: the time limit is the finding then); a long parse that looks super-linear is
    timed again and the faster kept, so one pause on a loaded machine does not make a
    finding.
    """
    if len(text) < GROWTH_MIN_LENGTH or elapsed < GROWTH_FLOOR * time_limit:
        return None
    short = quarter(text)
    growth = Growth(len(text), elapsed, len(short),
                    min(_seconds(target, short), _seconds(target, short)))
    if growth.super_linear:
        growth = replace(growth, seconds=min(elapsed, _seconds(target, text)))
    return growth
