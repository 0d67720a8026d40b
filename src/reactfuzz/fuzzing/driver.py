"""A small pure-Python fuzzing driver: seeds mutated with the dictionary, seeded.

It stands in for libFuzzer where Atheris is not installed, and it is what the tests use:
run every seed once, then repeatedly take an input from the pool, apply one to four
mutations (insert a dictionary piece, at a line start or anywhere; replace or delete a
run; duplicate a line; splice with another input; insert a random character) and hand it
to the harness. An input whose outcome is new -- what the target did, how the format
read it, which check failed -- joins the pool: a coarse stand-in for coverage feedback.
The same seed gives the same inputs in the same order.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from ..dispatch import Rejected
from .harness import CampaignStats, Harness

__all__ = ["mutate", "run_driver"]

_Mutation = Callable[[random.Random, str, Sequence[str], Sequence[str]], str]


def _insert(rng: random.Random, s: str, pieces: Sequence[str], pool: Sequence[str]) -> str:
    at = rng.randint(0, len(s))
    return s[:at] + rng.choice(pieces) + s[at:]


def _insert_at_line(rng: random.Random, s: str, pieces: Sequence[str],
                    pool: Sequence[str]) -> str:
    at = s.rfind("\n", 0, rng.randint(0, len(s))) + 1  # the start of a random line
    return s[:at] + rng.choice(pieces) + s[at:]


def _replace(rng: random.Random, s: str, pieces: Sequence[str], pool: Sequence[str]) -> str:
    if not s:
        return rng.choice(pieces)
    a = rng.randrange(len(s))
    b = min(len(s), a + rng.randint(1, 8))
    return s[:a] + rng.choice(pieces) + s[b:]


def _delete(rng: random.Random, s: str, pieces: Sequence[str], pool: Sequence[str]) -> str:
    if not s:
        return s
    a = rng.randrange(len(s))
    return s[:a] + s[a + rng.randint(1, 6):]


def _duplicate_line(rng: random.Random, s: str, pieces: Sequence[str],
                    pool: Sequence[str]) -> str:
    lines = s.split("\n")
    i = rng.randrange(len(lines))
    lines.insert(rng.randint(0, len(lines)), lines[i])
    return "\n".join(lines)


def _splice(rng: random.Random, s: str, pieces: Sequence[str], pool: Sequence[str]) -> str:
    other = rng.choice(pool)
    return s[: rng.randint(0, len(s))] + other[rng.randint(0, len(other)):]


def _char(rng: random.Random, s: str, pieces: Sequence[str], pool: Sequence[str]) -> str:
    at = rng.randint(0, len(s))
    return s[:at] + chr(rng.choice((rng.randint(0, 0x7F), rng.randint(0x80, 0x3000)))) + s[at:]


_MUTATIONS: tuple[_Mutation, ...] = (_insert, _insert, _insert_at_line, _insert_at_line,
                                     _replace, _replace, _delete, _duplicate_line, _splice,
                                     _char)


def mutate(rng: random.Random, text: str, pieces: Sequence[str], pool: Sequence[str]) -> str:
    """One to four mutations of ``text`` with dictionary ``pieces`` and other ``pool``
    inputs to splice with."""
    for _ in range(rng.randint(1, 4)):
        text = rng.choice(_MUTATIONS)(rng, text, pieces, pool)
    return text


def _feature(harness: Harness) -> tuple[str, ...]:
    ex = harness.last
    if ex is None:
        return ()
    out = ex.outcome
    step = ex.step
    reading = ex.reading.outcome() if ex.reading is not None else None
    return (type(out).__name__, out.reason if isinstance(out, Rejected) else "",
            step.kind if step is not None else "none",
            step.invalid.code if step is not None and step.invalid is not None else "",
            type(reading).__name__, ex.check or "", ex.failure.kind if ex.failure else "")


def run_driver(harness: Harness, seeds: Sequence[bytes], pieces: Sequence[str], *,
               seconds: float | None = None, runs: int | None = None, seed: int = 0,
               max_len: int = 1024, progress: Callable[[CampaignStats], None] | None = None,
               ) -> CampaignStats:
    """Fuzz ``harness`` from ``seeds`` until ``seconds`` pass or ``runs`` inputs ran.

    The harness should record failures (``on_failure="record"``); one that raises stops
    the run at the first failure, as libFuzzer does.
    """
    if seconds is None and runs is None:
        raise ValueError("give seconds or runs")
    rng = random.Random(seed)
    pool = list(dict.fromkeys(s.decode("utf-8", errors="replace")[:max_len]
                              for s in seeds)) or [""]
    pieces = list(pieces) or ["\n"]
    features: set[tuple[str, ...]] = set()
    deadline = None if seconds is None else time.perf_counter() + seconds
    n = 0
    queue = list(pool)
    next_report = time.perf_counter() + 10
    while (runs is None or n < runs) and (deadline is None or time.perf_counter() < deadline):
        if queue:
            text = queue.pop(0)
        else:
            text = mutate(rng, rng.choice(pool), pieces, pool)[:max_len]
        n += 1
        harness(text.encode("utf-8", errors="surrogatepass"))
        feat = _feature(harness)
        if feat not in features:
            features.add(feat)
            pool.append(text)
        if progress is not None and time.perf_counter() >= next_report:
            progress(harness.stats)
            next_report += 10
    return harness.stats
