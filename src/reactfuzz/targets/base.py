"""The target model: :class:`Target` and the :class:`ParseResult` every call gives.

A target's ``run`` never raises because of the parser under test: a Step, a crash and a
timeout are all data. Every kind of target (built-in, worker process, in-process callable,
regex, grammar) builds on these two classes, so they sit below all of them.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..formats import Format
from ..limits import time_allowed
from ..model import Invalid, Step
from .origin import PROFILE_SLOWDOWN, TRACE_SLOWDOWN, Origin, ProfileRequest, Site, TraceRequest

__all__ = ["DEFAULT_TIMEOUT", "Edit", "ParseResult", "Repeat", "Target", "apply_edit"]

DEFAULT_TIMEOUT = 1.0
"""Seconds one call of a user parser may take before it counts as a timeout finding."""


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class ParseResult:
    """What one call of a target gave: a Step, a crash or a timeout (exactly one).

    ``error`` is ``"Type: message"`` when the parser raised something other than a
    refusal (or its worker process died); ``timed_out`` is set when it ran past its time
    limit; ``elapsed`` is the seconds the call took, ``cpu`` the CPU seconds of the thread
    that made it where the target measured them (a busy machine stretches ``elapsed``, not
    ``cpu``). ``origin`` says where the parser decided: the frames of what it raised
    (always), or the path a traced parse took (:meth:`Target.trace`).
    """

    step: Step | None = None
    error: str | None = None
    timed_out: bool = False
    elapsed: float = 0.0
    origin: Origin | None = None
    cpu: float | None = field(default=None, compare=False)  # a timing, not an identity

    def __reduce__(self) -> tuple[Any, ...]:  # the fields in order: cheaper than by name
        return (ParseResult, (self.step, self.error, self.timed_out, self.elapsed,
                              self.origin, self.cpu))

    def __post_init__(self) -> None:
        n = (self.step is not None) + (self.error is not None) + bool(self.timed_out)
        if n != 1:
            raise ValueError("a ParseResult has exactly one of step, error, timed_out")

    @property
    def crashed(self) -> bool:
        """Whether the parser crashed (raised, or its worker process died)."""
        return self.error is not None

    def to_step(self) -> Step:
        """The Step, or an invalid Step for a crash (``parser-crashed``) or a timeout."""
        if self.step is not None:
            return self.step
        if self.error is not None:
            return Step(invalid=Invalid("parser-crashed", f"the parser crashed: {self.error}"))
        return Step(
            invalid=Invalid(
                "timeout", f"the parser did not finish within its time limit ({self.elapsed:.2f}s)"
            )
        )


Edit = tuple[str, Sequence[tuple[int, str]]]
"""A text and pieces to insert into it: ``(offset, piece)`` pairs, offsets of the text
itself, right to left (highest offset first), so that each stays valid."""

Repeat = int | tuple[int, float, "float | None"]
"""A parse that gave what an earlier one gave: ``(index, elapsed, cpu)``, the index of
that result in :meth:`Target.repeated`, with this parse's own timing (``cpu`` may be
``None`` for a parse too short to time on a CPU clock, see :mod:`.repeats`); or the bare
``index`` of one that took less than the ``quick`` seconds :meth:`Target.run_edits` was
given (a caller that only tells slow parses apart needs no more of it)."""


def apply_edit(edit: Edit) -> str:
    """The text of ``edit`` with its pieces inserted."""
    text, inserts = edit
    for at, piece in inserts:  # right to left, so earlier offsets stay valid
        text = text[:at] + piece + text[at:]
    return text


# --------------------------------------------------------------------------- targets


class Target(abc.ABC):
    """A parser under test: ``run`` gives a :class:`ParseResult`, ``parse`` a Step.

    Targets hold resources (a worker process); ``close()`` them, or use ``with``.
    ``name`` is a spec :func:`load_target` accepts again where possible (it is what a
    finding records to reproduce itself).
    """

    name: str
    format: Format
    kind: str = "target"
    timeout: float | None = None
    batch: int = 64
    """Completions a caller that parses many (exploration) gives :meth:`run_edits` at
    once: enough that a batch's own cost is small beside its parses, few enough that
    its results stay young objects (the garbage collector's cheap generation)."""

    @abc.abstractmethod
    def run(self, completion: str) -> ParseResult:
        """Parse one completion; a crash or a timeout is data, never an exception.

        Targets that read a user parser's return value raise
        :class:`~reactfuzz.targets.UnsupportedResultError` for a value they cannot read.
        """

    def limit_for(self, completion: str) -> float | None:
        """How long a parse of ``completion`` may run before it is stopped: ``timeout`` up
        to 16 kB, then in proportion to the length (:func:`~reactfuzz.limits.time_allowed`),
        so a long input stops only a parser slower than linear; a traced parse
        (:class:`~.origin.TraceRequest`) may take :data:`~.origin.TRACE_SLOWDOWN` times as
        long, a profiled one (:class:`~.origin.ProfileRequest`)
        :data:`~.origin.PROFILE_SLOWDOWN` times."""
        if self.timeout is None:
            return None
        limit = time_allowed(len(completion), self.timeout)
        if isinstance(completion, TraceRequest):
            return limit * TRACE_SLOWDOWN
        return limit * PROFILE_SLOWDOWN if isinstance(completion, ProfileRequest) else limit

    def run_many(self, completions: Sequence[str]) -> list[ParseResult]:
        """Parse several completions, in order; the same results as ``run`` on each.

        A target whose calls cost a round trip (a worker process) overrides this to pay
        it once per batch; the per-call time limit still holds for each completion.
        """
        return [self.run(c) for c in completions]

    def run_edits(self, edits: Sequence[Edit], quick: float = 0.0
                  ) -> list[ParseResult | Repeat]:
        """Parse each edit's text (:func:`apply_edit`), as :meth:`run_many` would; a target
        may answer a parse that gave exactly what an earlier one gave with a
        :data:`Repeat` (a worker process then neither adapts nor sends it again), and one
        that took less than ``quick`` seconds with its bare index."""
        return list(self.run_many([apply_edit(e) for e in edits]))

    def repeated(self, index: int) -> ParseResult:
        """The earlier result a :data:`Repeat` of :meth:`run_edits` names (its timing is
        the first parse's)."""
        raise IndexError(index)

    def trace(self, completion: str) -> Origin | None:
        """Parse ``completion`` again, recording where the target decided (see
        :mod:`.origin`); ``None`` for a target with no Python code of its own to trace,
        or when the traced parse ran out of time."""
        return None

    def hotspot(self, completion: str) -> Site | None:
        """Parse ``completion`` again under the sampling profiler: the busiest line of the
        function of the target's code where most of its time went (see
        :func:`~.origin.sampled_call`); ``None`` for a target with no Python code of its
        own, or when the profiled parse ran out of time."""
        result = self.run_many((ProfileRequest(completion),))[0]
        return None if result.timed_out or result.origin is None else result.origin.hot

    def parse(self, completion: str) -> Step:
        """The :class:`~reactfuzz.parsers.Parser` view: crash and timeout become invalid."""
        return self.run(completion).to_step()

    def close(self) -> None:  # noqa: B027 -- most targets hold nothing
        """Release what the target holds (idempotent)."""

    def __enter__(self) -> Target:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} format={self.format.name!r}>"


def check_timeout(timeout: float | None) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not (
        math.isfinite(timeout) and timeout > 0
    ):
        raise UsageError(f"timeout must be a positive number of seconds, not {timeout!r}")
    return float(timeout)
