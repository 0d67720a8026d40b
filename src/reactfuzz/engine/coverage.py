"""Coverage of the target's code: which of its lines the parses reached, as feedback.

The path a parse takes through the target's code (:mod:`reactfuzz.targets.origin`, the
lines executed in the target's modules and the packages it imports) is what bug keys are
made of; guided exploration keeps every scenario whose parse reached a line no earlier
parse did, and mutates those further, as coverage-guided fuzzers do. The summary says how
many lines were reached of the executable lines in the files the parses ran through.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from types import CodeType

__all__ = ["Coverage", "executable_lines"]


@lru_cache(maxsize=256)
def executable_lines(path: str) -> frozenset[int]:
    """The lines of a Python source file that hold code (what a line tracer can report);
    empty when the file cannot be read or compiled."""
    try:
        with open(path, encoding="utf-8") as fh:
            source = fh.read()
        code = compile(source, path, "exec", dont_inherit=True)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return frozenset()
    lines: set[int] = set()
    stack: list[CodeType] = [code]
    while stack:
        co = stack.pop()
        lines.update(line for _, _, line in co.co_lines() if line is not None)
        stack.extend(c for c in co.co_consts if isinstance(c, CodeType))
    return frozenset(lines)


def _locate(name: str, roots: Iterable[str]) -> str | None:
    """A file named relative to a ``sys.path`` entry, found again under ``roots``."""
    if os.path.isabs(name):
        return name if os.path.isfile(name) else None
    for root in roots:
        candidate = os.path.join(root or ".", name)
        if os.path.isfile(candidate):
            return candidate
    return None


@dataclass
class Coverage:
    """The target's lines reached so far (``(file, line)`` as the tracer names them)."""

    reached: set[tuple[str, int]] = field(default_factory=set)

    def add(self, path: Iterable[tuple[str, int]]) -> int:
        """Record one parse's path; how many of its lines are new."""
        before = len(self.reached)
        self.reached.update(path)
        return len(self.reached) - before

    def files(self) -> set[str]:
        """The files the parses ran through."""
        return {f for f, _ in self.reached}

    def totals(self, cwd: str | None = None) -> tuple[int, int]:
        """``(lines reached, executable lines in the files reached)``; a file that cannot
        be found again counts its reached lines only."""
        roots = [cwd or os.getcwd(), *sys.path]
        total = 0
        for name in self.files():
            where = _locate(name, roots)
            lines = executable_lines(where) if where else frozenset()
            mine = {line for f, line in self.reached if f == name}
            total += len(lines | mine)
        return len(self.reached), total

    def describe(self, cwd: str | None = None) -> str:
        """``41/97 lines (42%) of the target's code in 2 files``, or why there is none."""
        reached, total = self.totals(cwd)
        if not reached:
            return "no line of the target's own Python code was traced"
        files = len(self.files())
        return (f"{reached}/{total} lines ({100 * reached / max(total, 1):.0f}%) of the"
                f" target's code in {files} file{'s' if files != 1 else ''}")
