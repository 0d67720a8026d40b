"""One Hypothesis search of one abuse operator against one target.

Each distinct failure (check x failure kind x cause) gets its own exception class, so
Hypothesis shrinks each on its own (``report_multiple_bugs``) rather than stopping at the
first; the last example recorded per failure is the minimal one.
"""

from __future__ import annotations

import time

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from ..formats import Format
from ..strategies import Scenario, scenarios
from ..targets import Target
from ..tools import ToolRegistry
from .checks import Check
from .config import FuzzConfig
from .events import EventSink, ExamplesRan
from .example import Example, examine
from .results import OperatorStats

__all__ = ["FailureKey", "search"]

FailureKey = tuple[str, str, str]
"""(check, failure kind, cause): what makes two failing examples the same failure."""


class _Fail(AssertionError):
    """Base of the per-(check, kind) failure classes Hypothesis tells apart."""


def search(
    target: Target,
    target_name: str,
    fmt: Format,
    registry: ToolRegistry,
    dispatcher: str,
    checks: list[Check],
    abuse: str,
    config: FuzzConfig,
    seed: int,
    deadline: float | None,
    emit: EventSink,
    stats: OperatorStats,
    recorded: dict[FailureKey, Example] | None = None,
) -> dict[FailureKey, Example]:
    """Search one operator: the last (= minimal) example per failure.

    ``recorded`` (filled as the search goes) lets a caller keep what an interrupted
    search had found.
    """
    recorded = {} if recorded is None else recorded
    classes: dict[FailureKey, type[_Fail]] = {}
    last_progress = [time.monotonic()]

    database = None
    if config.hypothesis_db:
        from hypothesis.database import DirectoryBasedExampleDatabase

        database = DirectoryBasedExampleDatabase(config.hypothesis_db)

    @settings(
        max_examples=config.max_examples, database=database, deadline=None,
        derandomize=False, report_multiple_bugs=True, verbosity=Verbosity.quiet,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    @given(sc=scenarios(registry, fmt, abuses=[abuse], policy=config.policy),
           chunks=st.lists(st.integers(1, 12), min_size=1, max_size=4))
    def search(sc: Scenario, chunks: list[int]) -> None:
        if deadline is not None and time.monotonic() > deadline:
            return
        stats.examples += 1
        now = time.monotonic()
        if now - last_progress[0] > 0.5:
            last_progress[0] = now
            emit(ExamplesRan(target_name, abuse, stats.examples,
                             sum(stats.failures.values())))
        ex = examine(sc, target, fmt, registry, dispatcher, checks,
                     time_limit=config.time_limit, chunks=chunks, stream=config.stream,
                     target_is_grammar=target_name == "grammar")
        if ex.failure is None:
            return
        assert ex.check is not None
        key = (ex.check, ex.failure.kind, ex.failure.cause)
        stats.failures[ex.check] = stats.failures.get(ex.check, 0) + 1
        recorded[key] = ex
        cls = classes.get(key)
        if cls is None:
            cls = classes[key] = type(f"Fail_{len(classes)}", (_Fail,), {})
        raise cls(f"{ex.check}: {ex.failure.message}")

    # Hypothesis ignores its database under @seed: a shared database trades the run's exact
    # reproducibility for memory across runs (findings still replay from their files)
    run = search if database is not None else hypothesis_seed(seed)(search)
    try:
        run()
    except Unsatisfiable:
        stats.skipped = "no scenario: the tools lack what this operator needs"
    except Exception as e:
        # our own failures (one, or a group of distinct ones) are in `recorded`; anything
        # else is a bug in reactfuzz or in the user's code around the target: re-raise it
        inner = getattr(e, "exceptions", (e,))
        if not all(isinstance(x, _Fail) for x in inner):
            raise
    return recorded
