"""Super-linear parsing shows as growth: a slow long parse timed beside its own quarter.

The time a parse is allowed is absolute (and so depends on the machine); the ratio of two
timings of one input's shape is not. A parser four times as slow on four times the text is
linear; sixteen times is quadratic, a finding even while each parse keeps within its limit.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reactfuzz.engine import FuzzConfig, run_fuzz
from reactfuzz.engine.growth import (
    GROWTH_MIN_LENGTH,
    Growth,
    measure_growth,
    quarter,
)
from reactfuzz.model import Step
from reactfuzz.targets import ParseResult, Target, load_target


def test_a_quarter_keeps_both_ends_of_the_text() -> None:
    text = "Thought: " + "a " * 8000 + "\nAction: search[x]"
    q = quarter(text)
    assert abs(len(q) - 2 * (len(text) // 8)) <= 128
    assert q.startswith("Thought: a a") and q.endswith("\nAction: search[x]")


def test_a_quarter_of_a_run_of_units_joins_between_two_units() -> None:
    # an unclosed argument run: cut at one eighth from each end, the join would fall inside
    # an argument (`a5` + `12="1"` reads, `"1", a` + `"1", a3600` does not) and a parser
    # would refuse the quarter at its middle, timing it cheaper than its share
    text = "[f(" + ", ".join(f'a{i}="1"' for i in range(4096))
    q = quarter(text)
    assert abs(len(q) - 2 * (len(text) // 8)) <= 128
    assert re.fullmatch(r'\[f\((a\d+="1", )*a\d+="1"', q), q[len(q) // 2 - 40:len(q) // 2 + 40]


def test_growth_is_super_linear_from_eight_times_on() -> None:
    assert not Growth(40_000, 0.4, 10_000, 0.1).super_linear  # linear
    assert not Growth(40_000, 0.47, 10_000, 0.1).super_linear  # n log n
    assert Growth(40_000, 1.6, 10_000, 0.1).super_linear  # quadratic
    assert Growth(40_000, 0.5, 10_000, 0.0).ratio == pytest.approx(5000)  # 0.1 ms at least
    assert not Growth(40_000, 0.5, 10_000, math.inf).super_linear  # the quarter timed out
    assert "16 times as long for 4 times the text" in Growth(40_000, 1.6, 10_000, 0.1).describe()


def _sleeper(power: float, at_16k: float) -> Callable[[str], tuple[str, str]]:
    """A parser taking ``at_16k`` seconds on 16 kB and growing with the length's ``power``."""
    def parse(completion: str) -> tuple[str, str]:
        time.sleep(at_16k * (len(completion) / 16384) ** power)
        return ("final", "done")
    return parse


def _target(power: float, at_16k: float) -> Target:
    return load_target(_sleeper(power, at_16k), "bracket", timeout=0.1)


@pytest.mark.parametrize("power, super_linear", [(1, False), (2, True), (3, True)])
def test_a_slow_long_parse_is_timed_beside_its_quarter(power: float,
                                                       super_linear: bool) -> None:
    # 0.06 s on 16 kB: over a quarter of the 0.1 s limit and within it
    target, text = _target(power, 0.06), "Answer: " + "x" * 16376
    growth = measure_growth(target, text, target.run(text), 0.1)
    assert growth is not None and growth.short_length == 4096
    assert growth.super_linear is super_linear, growth.describe()


def test_fast_or_short_parses_are_not_timed_again() -> None:
    calls: list[int] = []

    class Counting(Target):
        name, kind = "counting", "callable"

        def run(self, completion: str):  # type: ignore[no-untyped-def]
            calls.append(len(completion))
            return _target(2, 0.0).run(completion)

    long_text = "x" * (4 * GROWTH_MIN_LENGTH)
    def took(seconds: float) -> ParseResult:
        return ParseResult(step=Step(answer="done"), elapsed=seconds)

    assert measure_growth(Counting(), long_text, took(0.02), 0.1) is None  # a fifth of it
    assert measure_growth(Counting(), "x" * (GROWTH_MIN_LENGTH - 1), took(5.0), 0.1) is None
    assert calls == []


QUADRATIC = '''
import time
def parse(completion):
    time.sleep({at_16k} * (len(completion) / 16384) ** {power})
    answer = completion.rfind("Answer:")
    if answer >= 0:
        return ("final", completion[answer + 7:].strip())
    raise ValueError("no answer")
'''


def _bounded_time_findings(tmp_path: Path, power: int) -> list[str]:
    (tmp_path / f"grows{power}.py").write_text(QUADRATIC.format(at_16k=0.05, power=power))
    config = FuzzConfig(targets=[f"grows{power}:parse"], format="bracket", cwd=str(tmp_path),
                        checks=["bounded-time"], abuses=["size.repeated-call-start"],
                        seed=1, time_limit=0.1, format_fit=False, replay_corpus=False)
    return [f.explanation for f in run_fuzz(config).findings]


@pytest.mark.slow  # a worker process sleeping through some thirty long parses
def test_the_default_budget_finds_a_quadratic_parse_within_its_limit(tmp_path: Path) -> None:
    # 0.05 s on 16 kB: half the limit, never past it; only the growth shows
    found = _bounded_time_findings(tmp_path, 2)
    assert len(found) == 1 and "times as long for 4 times the text" in found[0], found
    assert _bounded_time_findings(tmp_path, 1) == []  # as slow, but linear


class _Timed(Target):
    """A target whose parses report fixed wall and CPU times: a machine under load."""

    name, kind = "timed", "callable"

    def __init__(self, long: tuple[float, float], short: tuple[float, float]) -> None:
        self.times = {True: long, False: short}

    def run(self, completion: str) -> ParseResult:
        wall, cpu = self.times[len(completion) > 10_000]
        return ParseResult(step=Step(answer="x"), elapsed=wall, cpu=cpu)


def test_a_working_parse_is_compared_on_cpu_time_which_load_does_not_stretch() -> None:
    text = "Answer: " + "x" * 16376
    # the long parse was descheduled: 2 s of wall for 0.4 s of CPU; its quarter 0.1 s each
    loaded = _Timed(long=(2.0, 0.4), short=(0.1, 0.1))
    growth = measure_growth(loaded, text, loaded.run(text), 0.1)
    assert growth is not None and not growth.super_linear, growth.describe()
    # truly quadratic work shows on CPU time as well
    quadratic = _Timed(long=(1.6, 1.6), short=(0.1, 0.1))
    growth = measure_growth(quadratic, text, quadratic.run(text), 0.1)
    assert growth is not None and growth.super_linear
    # a parse that sleeps (no CPU) is compared on wall time, as before
    sleeper = _Timed(long=(1.6, 0.0001), short=(0.1, 0.0001))
    growth = measure_growth(sleeper, text, sleeper.run(text), 0.1)
    assert growth is not None and growth.super_linear
