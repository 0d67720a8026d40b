"""The Hypothesis search of one abuse operator against one target.

It runs in two steps, both fixed by the operator's seed:

1. *Generate*: the whole budget (``max_examples``) is spent generating; nothing is raised,
   so Hypothesis never stops at a first failure, and the first example of every distinct
   failure -- (check, failure kind, cause, masked observation: see :mod:`.rootcause`) --
   is kept. More budget finds more root causes.
2. *Shrink*: the same seed is searched again, and only the failures not yet shrunk raise,
   each as its own exception class, so Hypothesis (``report_multiple_bugs``) shrinks each
   on its own. Until the first of them, Hypothesis generates exactly what step 1 did, so
   each comes back at the place step 1 saw it. Rounds repeat until every failure is
   shrunk; one whose example does not come back (a target that is not deterministic)
   keeps its first, unshrunk example.

The last example recorded per failure while it raises is the minimal one: Hypothesis
replays each shrunk example last.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import HypothesisWarning, Unsatisfiable

from ..formats import Format
from ..strategies import Scenario, Sizes, scenarios
from ..targets import Target
from ..tools import ToolRegistry
from .checks import Check
from .config import FuzzConfig
from .corpus import MAX_EXAMPLES
from .events import EventSink, ExamplesRan
from .example import Example, examine, with_path
from .results import OperatorStats
from .signals import check_stop

__all__ = ["FailureKey", "Tally", "only_failures", "sample_size", "search"]


SAMPLE = 8
"""Scenarios per operator a search hands its caller as bases for guided exploration, at
the default budget; :func:`sample_size` times the budget's scale at a larger one."""


def sample_size(config: FuzzConfig) -> int:
    """Bases a search hands the guided phase: :data:`SAMPLE` for each default budget the
    run has. With a fixed number the guided phase of a larger run mutated the same first
    (simplest) examples of each operator, its larger budget spent on the same texts."""
    return int(SAMPLE * config.size_scale)

FailureKey = tuple[str, str, str, str]
"""(check, failure kind, cause, signature): what makes two failing examples one failure."""


@dataclass
class Tally:
    """How often generation met one failure, and its shortest few distinct examples."""

    count: int = 0
    examples: list[Example] = field(default_factory=list)

    def add(self, ex: Example, keep: int = MAX_EXAMPLES + 1) -> None:
        """Count one more example; keep it if its completion is among the shortest."""
        self.count += 1
        text = ex.scenario.completion
        if any(e.scenario.completion == text for e in self.examples):
            return
        if len(self.examples) < keep or len(text) < len(self.examples[-1].scenario.completion):
            self.examples.append(ex)
            self.examples.sort(key=lambda e: len(e.scenario.completion))
            del self.examples[keep:]


class _Fail(AssertionError):
    """Base of the per-failure classes Hypothesis tells apart (and shrinks apart)."""


class _OutOfTime(BaseException):
    """The run's time budget is spent: ends the search now (not an ``Exception``, so
    Hypothesis neither reports nor shrinks it), keeping what it had found."""


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
    shrunk: set[FailureKey] | None = None,
    tally: dict[FailureKey, Tally] | None = None,
    sample: list[Scenario] | None = None,
) -> dict[FailureKey, Example]:
    """Search one operator: one example per failure, minimal where it could be shrunk.

    ``recorded`` (filled as the search goes) lets a caller keep what an interrupted search
    had found; ``shrunk`` (filled too) names the failures whose example is minimal;
    ``tally`` counts each failure's examples and keeps a few; ``sample`` gets the first
    :func:`sample_size` scenarios generated (the bases of the run's guided phase).
    """
    recorded = {} if recorded is None else recorded
    shrunk = set() if shrunk is None else shrunk
    tally = {} if tally is None else tally
    classes: dict[FailureKey, type[_Fail]] = {}
    raising: list[bool] = [False]  # step 2: failures not yet shrunk raise
    found: set[FailureKey] = set()  # failures raised in this round
    generated: set[FailureKey] = set()  # distinct failures step 1 found
    last_progress = [time.monotonic()]
    sizes = Sizes(config.size_scale)
    bases = sample_size(config)
    slow_parses = [0]  # in this pass over the budget

    database = None
    if config.hypothesis_db:
        from hypothesis.database import DirectoryBasedExampleDatabase

        database = DirectoryBasedExampleDatabase(config.hypothesis_db)

    def body(sc: Scenario, chunks: list[int]) -> None:
        check_stop()  # a signal whose exception was lost inside Hypothesis
        if deadline is not None and time.monotonic() > deadline:
            raise _OutOfTime
        stats.examples += 1
        if not raising[0]:
            stats.generated += 1
            if sample is not None and len(sample) < bases:
                sample.append(sc)
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
        key = (ex.check, ex.failure.kind, ex.failure.cause, ex.failure.signature)
        if ex.failure.kind == "timeout":
            # a slow parse is known after two: more long inputs cost seconds apiece and
            # find nothing new, and shrinking keeps them long, so it is not tried
            slow_parses[0] += 1
            sizes.long = slow_parses[0] < 2
            shrunk.add(key)
        if not raising[0]:
            stats.failures[ex.check] = stats.failures.get(ex.check, 0) + 1
            if key not in generated:
                generated.add(key)
                by_check = stats.distinct.setdefault(ex.failure.cause, {})
                by_check[ex.check] = by_check.get(ex.check, 0) + 1
            recorded.setdefault(key, ex)
            tally.setdefault(key, Tally()).add(ex)
            return
        if key in shrunk:
            return  # shrunk in an earlier round: let the search go past it
        recorded[key] = ex
        found.add(key)
        cls = classes.get(key)
        if cls is None:
            cls = classes[key] = type(f"Fail_{len(classes)}", (_Fail,), {})
        raise cls(f"{ex.check}: {ex.failure.message}")

    def run(phases: list[Phase]) -> None:
        sizes.long, slow_parses[0] = True, 0  # each pass draws what the first one drew
        test = settings(
            max_examples=config.max_examples, database=database, deadline=None,
            derandomize=False, report_multiple_bugs=True, verbosity=Verbosity.quiet,
            phases=phases, suppress_health_check=list(HealthCheck),
        )(given(sc=scenarios(registry, fmt, abuses=[abuse], policy=config.policy,
                             sizes=sizes),
                chunks=st.lists(st.integers(1, 12), min_size=1, max_size=4))(body))
        # Hypothesis ignores its database under @seed: a shared database trades the run's
        # exact reproducibility for memory across runs (findings still replay from files)
        test = test if database is not None else hypothesis_seed(seed)(test)
        try:
            with warnings.catch_warnings():
                # the size operators draw inputs of tens of kB on purpose; Hypothesis's note
                # that their repr is large is noise in a fuzz run's output
                warnings.filterwarnings("ignore", "Generating overly large repr",
                                        HypothesisWarning)
                test()
        except Exception as e:
            # our own failures (one, or a group of distinct ones) are in `recorded`;
            # anything else is a bug in reactfuzz or in the user's code around the
            # target: re-raise it
            interrupt = _interrupted(e)
            if interrupt is not None:
                # Ctrl-C inside Hypothesis's own set-up can surface as an AssertionError
                # whose context is the KeyboardInterrupt: it is still an interrupt (of
                # the same kind: SIGTERM's stays a SIGTERM)
                raise type(interrupt)() from e
            if not only_failures(e):
                raise

    try:
        run([Phase.generate])
    except Unsatisfiable:
        stats.skipped = "no scenario: the tools lack what this operator needs"
        return recorded
    except _OutOfTime:
        stats.skipped = "time budget spent while it ran: its findings are unshrunk"
        return _with_paths(recorded, target)
    raising[0] = True
    while set(recorded) - shrunk:
        found.clear()
        try:
            run([Phase.generate, Phase.shrink])
        except Unsatisfiable:
            break
        except _OutOfTime:
            stats.skipped = "time budget spent while it shrank: some findings are unshrunk"
            break
        if not found:
            break  # what is left did not come back: it keeps its first example
        shrunk |= found
    return _with_paths(recorded, target)


def only_failures(exc: BaseException) -> bool:
    """Whether ``exc`` is one of the search's own failures, or a group (Hypothesis's
    multiple bugs, or its flaky-failure group around a failure that a time-dependent check
    did not repeat) of nothing else, however nested."""
    inner = getattr(exc, "exceptions", None)
    if inner is None:
        return isinstance(exc, _Fail)
    return bool(inner) and all(only_failures(x) for x in inner)


def _with_paths(recorded: dict[FailureKey, Example], target: Target) -> dict[
        FailureKey, Example]:
    """Each bug once: the lines its raising parse ran, for its advice."""
    for key, ex in recorded.items():
        recorded[key] = with_path(ex, target)
    return recorded


def _interrupted(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt anywhere in ``exc``'s cause or context chain, if any."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, KeyboardInterrupt):
            return cur
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return None
