"""The search over scripts: every kind of script against the user's loop, each bug shrunk.

As the parser search does (:mod:`reactfuzz.engine.search`), each script kind runs in two
steps fixed by its seed: generation spends the budget and keeps the first script of every
distinct failure (check, kind); then the same seed is searched again with generation and
shrinking, each failure not yet shrunk raising its own exception class, so Hypothesis
shrinks each to its shortest script. The findings are :class:`~reactfuzz.engine.corpus.
Finding` objects (the reports are ``fuzz``'s) carrying their script, so a corpus file
replays alone.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Unsatisfiable

from ..engine.config import operator_seed
from ..engine.corpus import AcceptableSpec, Finding, IntentSpec
from ..engine.results import OperatorStats
from ..engine.signals import check_stop
from ..formats import Format
from ..model import FinalAnswer
from ..oracle import oracle
from ..tools import ToolRegistry
from .checks import LOOP_CHECKS, LoopFailure, loop_failures
from .play import LoopFn, LoopRun, play
from .script import Script, scripts

__all__ = ["LoopBug", "LoopSearch", "search_loop", "to_finding"]

Key = tuple[str, str]


@dataclass
class LoopBug:
    """One distinct failure: its first (then shortest) script and how often it was met."""

    failure: LoopFailure
    run: LoopRun
    count: int = 1
    shrunk: bool = False


@dataclass
class LoopSearch:
    """What the search of one script kind found, and what it cost."""

    kind: str
    bugs: dict[Key, LoopBug] = field(default_factory=dict)
    stats: OperatorStats = field(default_factory=lambda: OperatorStats("", ""))


class _Fail(AssertionError):
    """Base of the per-bug classes Hypothesis shrinks apart."""


def search_loop(loop: LoopFn, target: str, kind: str, fmt: Format, registry: ToolRegistry,
                *, seed: int, max_examples: int, checks: Sequence[str] | None = None,
                max_calls: int = 30, time_limit: float = 10.0,
                on_example: Callable[[int, int], None] | None = None,
                into: LoopSearch | None = None) -> LoopSearch:
    """Search one script ``kind``: one shortest script per distinct failure. ``into``
    (filled as the search goes) keeps what an interrupted search had found."""
    result = into if into is not None else LoopSearch(kind)
    result.stats = OperatorStats(target, kind)
    stats = result.stats
    classes: dict[Key, type[_Fail]] = {}
    raising = [False]
    found: set[Key] = set()
    start = time.monotonic()
    selected = list(checks) if checks is not None else None

    def body(script: Script) -> None:
        check_stop()  # a signal whose exception was lost inside Hypothesis
        stats.examples += 1
        if not raising[0]:
            stats.generated += 1
        run = play(loop, script, registry, max_calls=max_calls, time_limit=time_limit)
        failures = loop_failures(run, fmt, registry, selected)
        if on_example is not None:
            on_example(stats.examples, len(result.bugs))
        for failure in failures:
            key = (failure.check, failure.kind)
            if not raising[0]:
                stats.failures[failure.check] = stats.failures.get(failure.check, 0) + 1
                bug = result.bugs.get(key)
                if bug is None:
                    result.bugs[key] = LoopBug(failure, run)
                    by_check = stats.distinct.setdefault("design", {})
                    by_check[failure.check] = by_check.get(failure.check, 0) + 1
                else:
                    bug.count += 1
                continue
            bug = result.bugs.get(key)
            if bug is None or bug.shrunk:
                continue
            bug.failure, bug.run = failure, run  # the last raised is the shortest
            found.add(key)
            cls = classes.get(key)
            if cls is None:
                cls = classes[key] = type(f"LoopFail_{len(classes)}", (_Fail,), {})
            raise cls(f"{failure.check}: {failure.message}")

    def run_phases(phases: list[Phase]) -> None:
        test = settings(max_examples=max_examples, database=None, deadline=None,
                        report_multiple_bugs=True, verbosity=Verbosity.quiet, phases=phases,
                        suppress_health_check=list(HealthCheck))(
            given(script=scripts(kind, fmt, registry))(body))
        try:
            hypothesis_seed(operator_seed(seed, target, kind))(test)()
        except Exception as e:
            inner = getattr(e, "exceptions", (e,))
            if not all(isinstance(x, _Fail) for x in inner):
                raise

    try:
        run_phases([Phase.generate])
    except Unsatisfiable:
        stats.skipped = "no script: the tools lack what this operator needs"
        return result
    raising[0] = True
    while any(not b.shrunk for b in result.bugs.values()):
        found.clear()
        try:
            run_phases([Phase.generate, Phase.shrink])
        except Unsatisfiable:
            break
        if not found:
            break  # what is left did not come back: it keeps its first script
        for key in found:
            result.bugs[key].shrunk = True
    stats.elapsed = time.monotonic() - start
    return result


def to_finding(bug: LoopBug, target: str, fmt: Format, registry: ToolRegistry, tools: str,
               seed: int | None) -> Finding:
    """The finding of one loop bug, in ``fuzz``'s shape, its script stored with it."""
    failure, run = bug.failure, bug.run
    script = run.script
    turn = script.turn(failure.turn) if failure.turn is not None else script.turns[-1]
    meant = turn.meant if turn.meant is not None else FinalAnswer(script.answer or "")
    acceptable = turn.acceptable if turn.acceptable is not None else oracle(
        meant, fmt, registry)
    check = LOOP_CHECKS[failure.check]
    digest = hashlib.sha256(f"{failure.check}/{failure.kind}".encode()).hexdigest()[:16]
    return Finding(
        target=target, format=fmt.source or fmt.name, dispatcher="loop", tools=tools,
        check=failure.check, failure=failure.kind, cause="design", severity=failure.severity,
        abuse=script.kind, completion=script.text(), intent=IntentSpec.of(meant),
        acceptable=AcceptableSpec.of(acceptable), expected=check.description,
        observed=_observed(run), explanation=failure.message, seed=seed, shrunk=bug.shrunk,
        signature=digest, count=bug.count, fix=check.fix, script=script.to_dict(),
    )


def _arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str]:
    return [*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())]


def _observed(run: LoopRun) -> str:
    calls = [f"{t.tool}({', '.join(_arguments(t.args, t.kwargs))})" for t in run.tools]
    shown = [(call, len(list(repeats))) for call, repeats in itertools.groupby(calls)]
    tools = ", ".join(c + (f" ×{n}" if n != 1 else "") for c, n in shown) or "none"
    end = {"returned": f"returned {run.answer!r}", "raised": f"raised {run.error}",
           "step-bound": f"still going after {run.max_calls} model calls",
           "timeout": "ran out of time"}[run.ended]
    return f"{len(run.calls)} model call(s), tools run: {tools}; {end}"
