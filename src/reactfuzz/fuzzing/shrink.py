"""Shrinking a failing fuzzer input to the few characters that matter.

A coverage-guided fuzzer keeps whatever input first reached a failure: a seed completion
with a mutation somewhere in it. Before it becomes a corpus finding it is shrunk the way
a person would: whole lines dropped first, then runs of characters of halving length,
each cut kept only while the same failure (check, kind, root-cause signature) remains.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["shrink_text"]


def _drop_lines(text: str, fails: Callable[[str], bool], budget: list[int]) -> str:
    lines = text.split("\n")
    i = 0
    while i < len(lines) and budget[0] > 0 and len(lines) > 1:
        trial = "\n".join(lines[:i] + lines[i + 1:])
        budget[0] -= 1
        if fails(trial):
            lines = lines[:i] + lines[i + 1:]
        else:
            i += 1
    return "\n".join(lines)


def _drop_runs(text: str, fails: Callable[[str], bool], budget: list[int]) -> str:
    size = max(len(text) // 2, 1)
    while size >= 1 and budget[0] > 0:
        i = 0
        while i < len(text) and budget[0] > 0:
            trial = text[:i] + text[i + size:]
            budget[0] -= 1
            if trial != text and fails(trial):
                text = trial
            else:
                i += size
        size //= 2
    return text


def shrink_text(text: str, fails: Callable[[str], bool], *, budget: int = 4000,
                seconds: float | None = None) -> str:
    """The shortest variant of ``text`` found for which ``fails`` still holds.

    ``fails(text)`` must hold on entry; at most ``budget`` calls are made, and none after
    ``seconds`` (a slow parse makes every call slow). Without ``seconds`` it is
    deterministic: the same text and predicate give the same result.
    """
    left = [budget]
    deadline = None if seconds is None else time.perf_counter() + seconds

    def still(candidate: str) -> bool:
        if deadline is not None and time.perf_counter() >= deadline:
            left[0] = 0
            return False
        return fails(candidate)

    while left[0] > 0:
        before = text
        text = _drop_lines(text, still, left)
        text = _drop_runs(text, still, left)
        if text == before:
            break
    return text
