"""A user parser's time limit counts what the parser did, not what a loaded machine took
from it: a parse that needs less CPU than its limit finishes although hogs on its CPU
stretch its wall time past the limit, while a parse that spins or sleeps forever still
times out."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reactfuzz.targets import FunctionTarget, load_target
from reactfuzz.targets.processes import thread_times

PARSER = '''\
import time

def parse(text):
    if text == "sleep":
        time.sleep(60)
    if text.startswith("work "):
        need, start = float(text[5:]), time.thread_time()
        while time.thread_time() - start < need:  # CPU work, however long it waits
            pass
        return ("final", "done")
    if text == "spin":
        while True:
            pass
    return ("final", text)
'''

LINUX_TIMES = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not hasattr(os, "sched_setaffinity")
    or thread_times(os.getpid()) is None, reason="needs Linux thread times and CPU affinity")


@pytest.fixture
def hogged(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A parser module, and one CPU that two busy processes share with whatever is pinned
    to it."""
    (tmp_path / "working.py").write_text(PARSER)
    cpu = min(os.sched_getaffinity(0))
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        for hog in hogs:
            os.sched_setaffinity(hog.pid, {cpu})
        yield tmp_path, cpu
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


@contextlib.contextmanager
def pinned_target(hogged: tuple[Path, int], limit: float) -> Iterator[FunctionTarget]:
    """The parser's worker, its parsing thread pinned to the hogged CPU."""
    directory, cpu = hogged
    with load_target("working:parse", "bracket", cwd=directory, timeout=limit) as target:
        assert isinstance(target, FunctionTarget)
        target.run("warm")  # the worker runs, and has said which thread parses
        worker = target._holder["worker"]
        assert worker is not None
        os.sched_setaffinity(int(worker.progress[3]), {cpu})
        yield target


@LINUX_TIMES
def test_a_parse_within_its_cpu_limit_finishes_on_a_hogged_cpu(
        hogged: tuple[Path, int]) -> None:
    with pinned_target(hogged, 0.3) as target:
        start = time.monotonic()
        result = target.run("work 0.2")  # a third of the CPU: about 0.6 s of wall time
        waited = time.monotonic() - start
    assert not result.timed_out, result
    assert result.step is not None and result.step.answer == "done"
    if waited < 0.3:
        pytest.skip("the hogs did not slow the parse: nothing was shown")


@LINUX_TIMES
def test_spinning_or_sleeping_past_the_limit_still_times_out(
        hogged: tuple[Path, int]) -> None:
    with pinned_target(hogged, 0.2) as target:
        spun, slept, after = target.run("spin"), target.run("sleep"), target.run("Answer")
    assert spun.timed_out and slept.timed_out
    assert after.step is not None and after.step.answer == "Answer"


def test_thread_times_of_a_thread_that_is_not_there() -> None:
    assert thread_times(2**22 + 12345) is None
