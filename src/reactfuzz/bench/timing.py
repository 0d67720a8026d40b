"""How ``reactfuzz bench`` times things: CPU time, in equal-length alternating passes.

A loaded machine stretches wall time by however long others' work holds the cores, and
by a different amount from one moment to the next, so two wall-clock passes of very
different lengths see different loads and their ratio moves from run to run. CPU time
leaves out the time a process waits for a core. So every side of a comparison is timed
on CPU time, in passes of one CPU length: each side is calibrated once, gets the number
of items that fills one pass, and then the sides alternate A, B, A, B ... with that same
count in every pass. A side's figure is the median over its passes of the CPU cost per
item. Wall time is measured on the same passes and printed beside it, so a reader sees
what the load did.

The CPU clock is the calling thread's (:func:`time.thread_time`). Work a worker process
does for a side is that process's own CPU time: read from the kernel while it runs
(:func:`process_cpu`), or from ``RUSAGE_CHILDREN`` once it has ended and been waited for
(:func:`children_cpu`).
"""

from __future__ import annotations

import gc
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "PASS_CPU",
    "Pass",
    "Timing",
    "alternate",
    "children_cpu",
    "process_cpu",
    "repeat",
    "worker_cpu",
]

PASS_CPU = 0.1
"""CPU seconds one pass of a parser side takes (a tenth of a second: many scheduler
slices, so a slice taken by others' work changes little)."""

Side = Callable[[int, int], object]
"""One side of a comparison: ``side(count, round)`` does ``count`` items of work
(``round`` is -1 while calibrating, so a side that draws can seed by it)."""


@dataclass(frozen=True)
class Pass:
    """One timed pass: how many items, and the CPU and wall seconds the whole pass took."""

    count: int
    cpu: float
    wall: float


@dataclass(frozen=True)
class Timing:
    """One side's figures: medians over its passes, per item."""

    cpu: float  # the median CPU seconds per item: the figure ratios are made of
    wall: float  # the median wall seconds per item, on the same passes
    count: int  # the items in every pass of this side
    passes: tuple[Pass, ...]


def repeat(fn: Callable[[], object]) -> Side:
    """A side that calls ``fn`` once per item."""

    def side(count: int, _round: int) -> None:
        for _ in range(count):
            fn()

    return side


def _timed(side: Side, count: int, rnd: int, other: Callable[[], float] | None,
           cpu_clock: Callable[[], float], wall_clock: Callable[[], float],
           no_gc: bool, collect: bool = False) -> Pass:
    """One pass of ``count`` items; ``other`` adds a worker's CPU over the same pass."""
    if collect:  # untimed: every pass starts from the same heap
        gc.collect()
    before = other() if other is not None else 0.0
    enabled = gc.isenabled()
    if no_gc:  # as timeit does: a collection mid-pass would charge it for the whole heap
        gc.disable()
    try:
        wall, cpu = wall_clock(), cpu_clock()
        side(count, rnd)
        cpu, wall = cpu_clock() - cpu, wall_clock() - wall
    finally:
        if no_gc and enabled:
            gc.enable()
    if other is not None:
        cpu += other() - before
    return Pass(count, cpu, wall)


def _calibrate(side: Side, budget: float, other: Callable[[], float] | None,
               cpu_clock: Callable[[], float], wall_clock: Callable[[], float],
               no_gc: bool, collect: bool) -> float:
    """CPU seconds per item: one warm-up item (compiled grammars, caches), then growing
    counts until a pass takes ``budget``; the last pass decides."""
    side(1, -1)
    count = 1
    while True:
        p = _timed(side, count, -1, other, cpu_clock, wall_clock, no_gc, collect)
        if p.cpu >= budget or count >= 1 << 24:
            return max(p.cpu, 1e-9) / count
        count = count * 2 if p.cpu <= 0 else max(count + 1, min(
            count * 8, int(count * budget / p.cpu * 1.2)))


def alternate(sides: Mapping[str, Side], rounds: int, *, pass_cpu: float = PASS_CPU,
              groups: Sequence[Sequence[str]] = (),
              others: Mapping[str, Callable[[], float]] | None = None,
              fixed: Mapping[str, int] | None = None, no_gc: bool = True,
              collect: bool = False,
              cpu_clock: Callable[[], float] = time.thread_time,
              wall_clock: Callable[[], float] = time.perf_counter) -> dict[str, Timing]:
    """Time every side in ``rounds`` alternating passes of ``pass_cpu`` CPU seconds each.

    Each side is calibrated once and gets the count of items that fills one pass; every
    pass of a side then has that count. A side in ``fixed`` has the count given there
    instead (after one warm-up item): for sides whose items differ, where the count
    decides which items a pass holds (a Hypothesis run draws different examples for a
    different count), so a count calibrated afresh would time a different sample in
    every run. The sides of
    one of ``groups`` are compared with each other: when one item of one of them takes
    longer than ``pass_cpu``, all their passes are as long as that item. ``others`` gives,
    for a side whose work partly runs in another process, a reader of that process's CPU
    seconds; what it reads more after a pass than before is added to the pass.

    ``no_gc`` turns the cyclic garbage collector off during each pass, as timeit does: a
    full collection that happens to fall in a pass charges it for the whole heap, others'
    objects included (a tenth of a second and more once Hypothesis has run). ``collect``
    also collects before each pass, untimed, so each starts from the same heap: for sides
    that make much garbage of their own (Hypothesis runs).
    """
    others = others or {}
    fixed = fixed or {}
    for k in fixed:
        sides[k](1, -1)  # the warm-up item
    cost = {k: _calibrate(fn, pass_cpu / 4, others.get(k), cpu_clock, wall_clock, no_gc,
                          collect) for k, fn in sides.items() if k not in fixed}
    length = dict.fromkeys(cost, pass_cpu)
    for group in groups:
        longest = max([pass_cpu, *(cost[k] for k in group)])
        for k in group:
            length[k] = longest
    counts = {k: fixed[k] if k in fixed else max(1, round(length[k] / cost[k]))
              for k in sides}
    passes: dict[str, list[Pass]] = {k: [] for k in sides}
    for rnd in range(rounds):
        for k, fn in sides.items():
            passes[k].append(_timed(fn, counts[k], rnd, others.get(k), cpu_clock,
                                    wall_clock, no_gc, collect))
    return {k: Timing(statistics.median(p.cpu / p.count for p in ps),
                      statistics.median(p.wall / p.count for p in ps), counts[k], tuple(ps))
            for k, ps in passes.items()}


def children_cpu() -> float:
    """CPU seconds (user and system) of the child processes that have ended and been
    waited for, their own waited-for children included (``RUSAGE_CHILDREN``)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_cpu(pids: Sequence[int]) -> float | None:
    """CPU seconds the living processes ``pids`` have used so far, every thread of each
    (Linux: ``/proc/PID/task/TID/schedstat``, in nanoseconds); ``None`` when none of it
    can be read. A process that has ended counts nothing."""
    if not sys.platform.startswith("linux"):
        return None
    total, read = 0, False
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as fh:
                    total += int(fh.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            read = True
    return total / 1e9 if read else None


def worker_cpu(target: object) -> Callable[[], float] | None:
    """A reader of the CPU seconds a target's worker process has used (its process and
    every descendant, the loop that parses included), or ``None`` for a target without a
    worker or where the kernel's figures cannot be read. A new worker (after a timeout or
    a crash) is followed from the next read on; the one it replaced is not counted."""
    from ..targets.processes import descendants

    current: list[tuple[int, list[int]]] = []

    def pids() -> list[int]:
        pid = getattr(target, "worker_pid", None)
        if pid is None:
            return []
        if not current or current[0][0] != pid:
            current[:] = [(pid, [pid, *descendants(pid)])]
        return current[0][1]

    if not pids() or process_cpu(pids()) is None:
        return None
    return lambda: process_cpu(pids()) or 0.0
