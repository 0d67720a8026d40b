"""``reactfuzz bench``: the costs that decide how much a fuzz suite finds per minute.

Everything is measured side by side in one process, in alternating rounds of
equal-length passes on CPU time (machines are noisy, and a loaded one stretches wall time
unevenly), and reported as medians, with the wall time beside them, and as ratios to an
in-run reference -- a bare ``re`` parse of the same completions, or a hand-written
composite Hypothesis strategy -- never as absolute promises. Each row says which target
it is held to and whether it met it, and the run records the machine's load average
before and after, since others' work on a shared machine moves the figures.

The grammar parser is timed on four workloads, each against a bare ``re`` on the same
texts: the one canonical completion (for continuity with earlier runs), realistic
multi-step runs the project writes itself (:func:`realistic_runs`), every abuse
operator's completions, and optionally a JSON Lines file of the user's own completions
(:func:`read_completions`).

``bench --sizes`` (:mod:`.sizes`) times how parsing grows with the input, from 100 B to
1 MB and from 10 to 10,000 transcript steps, and fits the growth exponent.

``bench --target SPEC`` adds the user's parser (:mod:`.user`): its own parse in process,
one completion per round trip to its worker against a batch, and exploration with and
without batches, held to a ratio of the own parse.

Modules: :mod:`.run` (the measurements and the table), :mod:`.timing` (CPU time in
equal-length alternating passes), :mod:`.sizes` (growth with size), :mod:`.user` (a
user's target) and :mod:`.workloads` (the texts parsed: canonical, realistic runs, the
user's file).
This facade keeps the import paths.
"""

from __future__ import annotations

from .run import ACTION_RE, BenchResult, BenchRow, render_bench, run_bench  # noqa: F401
from .sizes import SizeSeries, render_sizes, size_scaling
from .workloads import TEXT, read_completions, realistic_runs  # noqa: F401

__all__ = [
    "BenchRow",
    "SizeSeries",
    "read_completions",
    "realistic_runs",
    "render_bench",
    "render_sizes",
    "run_bench",
    "size_scaling",
]
