"""How the bench times: CPU time, equal-length alternating passes, wall time beside.

The passes are checked on clocks the test drives itself (each item advances a fake CPU
clock by a known cost, and a fake wall clock by a load factor), so nothing here depends
on how fast or how loaded the machine is.
"""

from __future__ import annotations

import os
import sys
import time

import pytest

from reactfuzz.bench import BenchRow, render_bench
from reactfuzz.bench.run import BenchResult
from reactfuzz.bench.timing import alternate, children_cpu, process_cpu


class FakeClocks:
    """A CPU clock that items advance by their cost, and a wall clock ``load`` times it."""

    def __init__(self, load: float = 3.0) -> None:
        self.now = 0.0
        self.load = load
        self.calls: list[tuple[str, int, int]] = []

    def cpu(self) -> float:
        return self.now

    def wall(self) -> float:
        return self.now * self.load

    def side(self, name: str, cost: float):
        def run(count: int, rnd: int) -> None:
            self.calls.append((name, count, rnd))
            self.now += cost * count

        return run


def test_passes_are_equal_length_with_one_count_per_side_and_alternate() -> None:
    clk = FakeClocks(load=3.0)
    out = alternate({"re": clk.side("re", 1e-6), "grammar": clk.side("grammar", 25e-6)},
                    5, pass_cpu=0.01, cpu_clock=clk.cpu, wall_clock=clk.wall)
    re_, grammar = out["re"], out["grammar"]
    # each side has one count, used in every one of its passes
    assert {p.count for p in re_.passes} == {re_.count} and len(re_.passes) == 5
    assert {p.count for p in grammar.passes} == {grammar.count} and len(grammar.passes) == 5
    # the counts differ so that the passes are of one CPU length
    assert re_.count == 10_000 and grammar.count == 400
    for p in (*re_.passes, *grammar.passes):
        assert p.cpu == pytest.approx(0.01, rel=0.01)
    # figures are per item, on CPU time; wall time is measured on the same passes
    assert re_.cpu == pytest.approx(1e-6) and grammar.cpu == pytest.approx(25e-6)
    assert grammar.wall == pytest.approx(3 * grammar.cpu)
    # after calibration (round -1) the sides alternate: re, grammar, re, grammar, ...
    timed = [(name, rnd) for name, _, rnd in clk.calls if rnd >= 0]
    assert timed == [(n, r) for r in range(5) for n in ("re", "grammar")]


def test_a_group_shares_the_length_of_its_longest_item() -> None:
    clk = FakeClocks()
    out = alternate({"re": clk.side("re", 1e-3), "big": clk.side("big", 0.05),
                     "alone": clk.side("alone", 1e-3)},
                    3, pass_cpu=0.01, groups=[("re", "big")], cpu_clock=clk.cpu,
                    wall_clock=clk.wall)
    assert out["big"].count == 1 and out["re"].count == 50  # both passes 50 ms
    assert out["alone"].count == 10  # not in the group: the usual 10 ms


def test_a_workers_cpu_is_added_to_its_side() -> None:
    clk = FakeClocks()
    worker = [0.0]

    def round_trip(count: int, rnd: int) -> None:  # half the work is the worker's
        clk.now += 1e-4 * count
        worker[0] += 1e-4 * count

    out = alternate({"trip": round_trip, "cheap": clk.side("cheap", 1e-6)}, 3,
                    pass_cpu=0.01, others={"trip": lambda: worker[0]},
                    cpu_clock=clk.cpu, wall_clock=clk.wall)
    assert out["trip"].cpu == pytest.approx(2e-4) and out["trip"].count == 50
    assert out["cheap"].cpu == pytest.approx(1e-6)  # nothing of the worker's


def _result() -> BenchResult:
    result = BenchResult(rounds=7, cpu="x86_64", cores=2, python="3.11",
                         load_before=(4.1, 2.0, 1.0), load_after=(4.3, 3.0, 1.5))
    result.rows = [
        BenchRow("bare re parse", 1.2, "us", 1.0, "itself", "", None, "ref", wall=2.9),
        BenchRow("parse grammar", 11.0, "us", 9.2, "bare re", "<= 20x", True, "", wall=30.5),
        BenchRow("first finding: x", 3, "examples", None, "", "<= 100", True, ""),
    ]
    return result


def test_the_table_has_a_cpu_and_a_wall_column() -> None:
    md = render_bench(_result(), markdown=True).splitlines()
    rows = {r[0]: r for r in ([c.strip() for c in line.strip("|").split("|")]
                              for line in md if line.startswith("| "))}
    assert rows["measure"][:4] == ["measure", "median (cpu)", "wall", "ratio"]
    assert rows["parse grammar"][1:4] == ["11.0 us", "30.5 us", "9.20x"]  # CPU, wall beside
    assert rows["first finding: x"][1:3] == ["3", ""]  # not a time: no wall
    plain = render_bench(_result()).splitlines()
    assert plain[2].split()[:4] == ["measure", "median", "(cpu)", "wall"]
    grammar = next(line for line in plain if line.startswith("parse grammar"))
    assert grammar.index("11.0 us") < grammar.index("30.5 us")
    for machine in (md[0], plain[0]):
        assert "load average" in machine and "4.10 / 2.00 / 1.00 before" in machine
        assert "CPU time" in machine and "equal-length passes" in machine


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_process_cpu_reads_a_living_process_and_nothing_of_a_gone_one() -> None:
    first = process_cpu([os.getpid()])
    assert first is not None
    end = time.thread_time() + 0.02
    while time.thread_time() < end:
        pass
    second = process_cpu([os.getpid()])
    assert second is not None and second - first >= 0.015
    assert process_cpu([2**22 + 12345]) is None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a child")
def test_children_cpu_counts_a_child_once_it_has_been_waited_for() -> None:
    before = children_cpu()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        end = time.thread_time() + 0.03
        while time.thread_time() < end:
            pass
        os._exit(0)
    os.waitpid(pid, 0)
    assert children_cpu() - before >= 0.025


@pytest.mark.slow
def test_a_round_trip_counts_the_workers_cpu(tmp_path) -> None:
    from reactfuzz.bench.timing import worker_cpu
    from reactfuzz.bench.workloads import TEXT
    from reactfuzz.targets import load_target

    (tmp_path / "busyparser.py").write_text(
        "import time\n\n\ndef parse(text):\n"
        "    end = time.thread_time() + 0.001  # a millisecond of the worker's CPU a call\n"
        "    while time.thread_time() < end:\n        pass\n"
        "    return ('final', text)\n", encoding="utf-8")
    tgt = load_target("busyparser:parse", "bracket", cwd=tmp_path)
    try:
        reader = worker_cpu(tgt)
        if reader is None:
            pytest.skip("the kernel's per-process CPU figures cannot be read here")
        before = reader()
        for _ in range(50):
            tgt.run(TEXT)
        assert reader() - before >= 0.045  # the worker's 50 ms show, none of it this thread's
    finally:
        tgt.close()
    assert worker_cpu(tgt) is None  # closed: no worker to read


def test_collect_starts_each_pass_from_a_collected_heap_with_the_collector_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    clk = FakeClocks()
    collected: list[bool] = []
    during: list[bool] = []
    monkeypatch.setattr(gc, "collect", lambda *a: collected.append(True) or 0)

    def side(count: int, rnd: int) -> None:
        during.append(gc.isenabled())
        clk.now += 1e-3 * count

    assert gc.isenabled()
    alternate({"a": side}, 4, pass_cpu=0.01, collect=True, cpu_clock=clk.cpu,
              wall_clock=clk.wall)
    timed_passes = len(during) - 1  # less the untimed warm-up item
    assert len(collected) == timed_passes and timed_passes >= 4
    assert not any(during[1:]) and gc.isenabled()  # off while timed, back on after


def test_a_fixed_side_keeps_its_count_in_every_run_and_skips_calibration() -> None:
    for cost in (1e-3, 5e-3):  # a faster or slower machine: the same count, the same sample
        clk = FakeClocks()
        out = alternate({"draws": clk.side("draws", cost), "re": clk.side("re", 1e-4)}, 3,
                        pass_cpu=0.01, fixed={"draws": 40}, cpu_clock=clk.cpu,
                        wall_clock=clk.wall)
        assert out["draws"].count == 40 and {p.count for p in out["draws"].passes} == {40}
        assert out["re"].count == 100  # calibrated as ever
        # the fixed side: one warm-up item, then only its timed passes
        assert [(c, r) for n, c, r in clk.calls if n == "draws"] == [
            (1, -1), (40, 0), (40, 1), (40, 2)]
