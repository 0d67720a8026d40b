"""The bench rows for ``reactfuzz bench --target``: a user's parser and what reaching it costs.

A ``module:function`` target runs in a worker process, so every completion crosses a
pipe. These rows time, side by side in alternating rounds: the parser's own parse in
this process (the same call and adaptation the worker makes, with no process boundary),
one completion per round trip (what a Hypothesis example pays), a batch per round trip,
and exploration per scenario with and without batches (the target's own batch size).
The held targets are ratios measured in the same run: exploration per scenario within
15x the parser's own parse, and within 20x its bare call (the function alone, no
adaptation), both processes' CPU counted.

Times are CPU time of both processes: this one's thread, and the worker's own, read from
the kernel while it runs (round trips) or from ``RUSAGE_CHILDREN`` once it has ended
(explorations, which start and stop their own worker: what starting and stopping one
costs is measured apart and taken out).
"""

from __future__ import annotations

import gc
import statistics
from collections.abc import Callable

from .run import BenchRow
from .timing import PASS_CPU, alternate, children_cpu, repeat, worker_cpu
from .workloads import TEXT

__all__ = ["BARE_RATIO", "EXPLORE_RATIO", "user_target_rows"]

EXPLORE_RATIO = 15.0
"""Exploration per scenario through the worker, at most this many times the own parse."""

BARE_RATIO = 20.0
"""Exploration per scenario through the worker, at most this many times the bare call."""

BATCH = 64


def _in_process(spec: str, fmt: str) -> tuple[Callable[[str], object], Callable[[], object]]:
    """The target's parse in this process (as a Step), and its bare call when it has one."""
    from ..targets import FunctionTarget, load_target
    from ..targets.callables import CallableTarget
    from ..targets.user_code import resolve_parser

    tgt = load_target(spec, fmt)
    if not isinstance(tgt, FunctionTarget):
        return tgt.run, lambda: None
    fn = resolve_parser(spec, tgt.cwd)
    tgt.close()
    own = CallableTarget(fn, fmt, timeout=None, name=spec)  # no alarm: the call alone

    def bare() -> object:
        try:
            return fn(TEXT)
        except Exception as exc:  # a refusal is a parse too
            return exc

    return own.run, bare


def _startup_cpu(spec: str, fmt: str) -> float:
    """CPU seconds child processes use to start and stop the target's worker (the import
    probe and the worker's start included): the median of three, zero for a target that
    starts none. An exploration's worker pays it once besides its loop."""
    from ..targets import load_target

    costs = []
    for _ in range(3):
        before = children_cpu()
        load_target(spec, fmt).close()
        costs.append(children_cpu() - before)
    return statistics.median(costs)


def user_target_rows(spec: str, fmt: str, *, quick: bool, rounds: int,
                     abuses: list[str] | None,
                     say: Callable[[str], None]) -> list[BenchRow]:
    """Rows for ``spec``: own parse, round trip one at a time vs batched, exploration."""
    from ..engine.explore import ExploreConfig, explore
    from ..targets import load_target

    say(f"your target {spec}")
    own, bare = _in_process(spec, fmt)
    tgt = load_target(spec, fmt)
    batch = [TEXT] * BATCH
    reader = worker_cpu(tgt)
    both = {"one": reader, "batch": reader} if reader is not None else {}
    whose = ("CPU of both processes" if reader is not None else
             "this process's CPU" if getattr(tgt, "worker_pid", None) is None else
             "this process's CPU only (the worker's cannot be read here)")
    try:
        med = alternate({"own": repeat(lambda: own(TEXT)), "bare": repeat(bare),
                         "one": repeat(lambda: tgt.run(TEXT)),
                         "batch": repeat(lambda: tgt.run_many(batch))},
                        rounds, pass_cpu=PASS_CPU * (0.05 if quick else 1.0), others=both)
    finally:
        tgt.close()
    own_s, one_s, batch_s = med["own"].cpu, med["one"].cpu, med["batch"].cpu / BATCH
    rows = [
        BenchRow(f"{spec}: own parse in process", own_s * 1e6, "us", 1.0, "itself", "", None,
                 f"the worker's call and adaptation, no process; the bare call"
                 f" {med['bare'].cpu * 1e6:.1f} us; {med['own'].count:,} calls a pass",
                 wall=med["own"].wall * 1e6),
        BenchRow(f"{spec}: one completion per round trip", one_s * 1e6, "us", one_s / own_s,
                 "own parse", "", None, f"what each Hypothesis example pays; {whose};"
                 f" {med['one'].count:,} a pass", wall=med["one"].wall * 1e6),
        BenchRow(f"{spec}: batched round trip, per completion", batch_s * 1e6, "us",
                 batch_s / own_s, "own parse", "", None,
                 f"{BATCH} completions a message; {one_s / batch_s:.1f}x less than one at a"
                 f" time; {whose}; {med['batch'].count:,} batches a pass",
                 wall=med["batch"].wall / BATCH * 1e6),
    ]
    # exploration with and without batches, alternating; the loop alone (no shrinking)
    say(f"exploring {spec}")
    cfg = ExploreConfig(target=spec, format=fmt, scenarios=400 if quick else 20_000, seed=1,
                        pool_per_operator=2 if quick else 10, abuses=abuses, shrink=False)
    # both explorations run the same scenarios (their failing counts are compared), so
    # their passes are of one count, not one length; None is the target's own batch
    sizes: tuple[int | None, ...] = (1, None)
    per: dict[int | None, list[float]] = {s: [] for s in sizes}
    walls: dict[int | None, list[float]] = {s: [] for s in sizes}
    failing: dict[int | None, set[int]] = {s: set() for s in sizes}
    startup = _startup_cpu(spec, fmt)
    for _ in range(1 if quick else 3):
        for size in sizes:
            cfg.batch = size
            gc.collect()  # from a collected heap, as every exploration the bench times
            before = children_cpu()
            r = explore(cfg)
            worker = max(0.0, children_cpu() - before - startup)
            per[size].append((r.loop_cpu + worker) / max(1, r.scenarios))
            walls[size].append(r.loop_seconds / max(1, r.scenarios))
            failing[size].add(r.failing)
    serial, batched = statistics.median(per[1]), statistics.median(per[None])
    same = failing[1] == failing[None] and len(failing[1]) == 1
    ratio = batched / own_s
    bare_s = med["bare"].cpu
    its_batch = getattr(tgt, "batch", BATCH)
    rows += [
        BenchRow(f"explore {spec}: per scenario, one per round trip", serial * 1e6, "us",
                 serial / own_s, "own parse", "", None,
                 f"{cfg.scenarios:,} scenarios, batch 1 (before batching); the loop's CPU and"
                 f" the worker's (less {startup * 1e3:.0f} ms to start and stop one)",
                 wall=statistics.median(walls[1]) * 1e6),
        BenchRow(f"explore {spec}: per scenario, batched", batched * 1e6, "us", ratio,
                 "own parse", f"<= {EXPLORE_RATIO:g}x", ratio <= EXPLORE_RATIO,
                 f"batch {its_batch}; {serial / batched:.1f}x faster than batch 1;"
                 f" same failing count: {'yes' if same else 'NO'}"
                 f" ({', '.join(map(str, sorted(failing[1] | failing[None])))})",
                 wall=statistics.median(walls[None]) * 1e6),
    ]
    if bare_s > 1e-7:  # a function of the user's: what exploring costs beside calling it
        bare_ratio = batched / bare_s
        rows.append(BenchRow(
            f"explore {spec}: per scenario vs the bare call", bare_ratio, "x", None, "",
            f"<= {BARE_RATIO:g}x", bare_ratio <= BARE_RATIO,
            f"{batched * 1e6:.1f} us a scenario (both processes) against the bare call's"
            f" {bare_s * 1e6:.2f} us, timed in this run; {cfg.scenarios:,} scenarios"))
    return rows
