"""Option values checked before anything runs: numbers at parse time, output paths up front.

A number argparse accepts is not always one a run can use (``--time-budget -1`` would run
nothing and exit 0, ``nan`` compares false with everything), and an output path that
cannot be written would otherwise fail after a long run, losing the report. Each problem
is one line, exit 2, before the first example.
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from ..errors import UsageError
from ..textsafe import said

__all__ = ["check_output_dir", "check_output_file", "check_outputs", "count", "number",
           "seconds", "seed"]

MAX_SECONDS = 7 * 24 * 3600.0
"""The longest time an option accepts (a week): beyond that a timer cannot be armed."""

MAX_WORKERS = 256
"""The most worker processes ``--workers`` starts."""


def count(minimum: int = 1, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: a whole number in ``[minimum, maximum]``."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip().replace("_", ""), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{said(text)} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{said(value)} is less than {minimum}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{said(value)} is more than {maximum}")
        return value

    parse.__name__ = "count"
    return parse


def number(*, low: float, high: float, low_open: bool = True,
           unit: str = "") -> Callable[[str], float]:
    """An argparse ``type``: a finite number above ``low`` (or at it, ``low_open=False``)
    and at most ``high``; ``nan`` and ``inf`` are refused."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{said(text)} is not a number{unit}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{said(text)} is not a finite number{unit}")
        if value < low or (low_open and value == low):
            side = "more than" if low_open else "at least"
            raise argparse.ArgumentTypeError(f"{text} must be {side} {low:g}{unit}")
        if value > high:
            raise argparse.ArgumentTypeError(f"{text} must be at most {high:g}{unit}")
        return value

    parse.__name__ = "number"
    return parse


def seed(text: str) -> int:
    """An argparse ``type``: a seed, a whole number of at most 64 bits."""
    return count(-(2**63), 2**64 - 1)(text)


seconds = number(low=0.0, high=MAX_SECONDS, unit=" seconds")
"""A positive, finite number of seconds (``--time-limit``, ``--time-budget``)."""


def _nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (the directory a write would create in)."""
    p = path
    while not os.path.lexists(p) and p != p.parent:
        p = p.parent
    return p


def _can_create_in(directory: Path) -> str | None:
    """Why nothing can be created in ``directory``, or ``None`` (tried, then removed)."""
    if not directory.is_dir():
        return f"{directory} is not a directory"
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-check-", dir=directory)
    except OSError as e:
        return f"cannot create files in {directory}: {e.strerror or e}"
    os.close(fd)
    os.unlink(tmp)
    return None


def check_output_file(option: str, path: str) -> None:
    """Refuse an output file that cannot be written, before the run (one line, exit 2)."""
    p = Path(path)
    problem: str | None = None
    if p.is_dir():
        problem = "it is a directory"
    elif os.path.lexists(p):
        if not p.is_file():
            problem = "it is not a regular file"
        else:
            try:
                with open(p, "ab"):
                    pass
            except OSError as e:
                problem = e.strerror or str(e)
    else:
        problem = _can_create_in(_nearest_existing(p.parent))
    if problem is not None:
        raise UsageError(f"{option} {path}: cannot write there ({problem})")


def check_output_dir(option: str, path: str) -> None:
    """Refuse an output directory that cannot be written, before the run."""
    p = Path(path)
    if os.path.lexists(p) and not p.is_dir():
        raise UsageError(f"{option} {path}: cannot write there (it is not a directory)")
    problem = _can_create_in(p if p.is_dir() else _nearest_existing(p))
    if problem is not None:
        raise UsageError(f"{option} {path}: cannot write there ({problem})")


def check_outputs(files: Iterable[tuple[str, str | None]],
                  dirs: Iterable[tuple[str, str | None]] = ()) -> None:
    """Check every given output file and directory (``None``: the option was not given;
    an empty path is an error, not "no report": a CI template whose variable is unset
    would otherwise lose its report without a word)."""
    for option, path in [*files, *dirs]:
        if path is not None and not path.strip():
            raise UsageError(f"{option}: the path is empty (is a variable in the command"
                             " unset?); give a file name, or leave the option out")
    for option, path in files:
        if path:
            check_output_file(option, path)
    for option, path in dirs:
        if path:
            check_output_dir(option, path)
