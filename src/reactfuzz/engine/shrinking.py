"""Exploration's candidates settled into bugs, and each bug shrunk once.

The loop keeps a few candidates per way of failing (check, kind, operator, how the parse
went) as (base, inserts); :func:`settle_bugs` judges each again in full, keyed by where the
parser decided, and :class:`Shrinker` shrinks each bug within the run's budget.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..formats import Format
from ..formats.grammars import grammar_parse
from ..strategies import Scenario
from ..targets import Target
from ..tools import ToolRegistry
from .checks import Check, fast_checks, get_checks
from .config import FuzzConfig, operator_seed
from .corpus import Finding, bounded_finding
from .example import Example, examine, prefetch_origins, to_finding
from .mutation import apply_inserts
from .results import OperatorStats
from .search import FailureKey, search

if TYPE_CHECKING:
    from .explore import ExploreConfig

__all__ = ["Bug", "Group", "ShrinkBudget", "Shrinker", "same_meaning", "settle_bugs"]

TRACE_BATCH = 64
"""Candidates traced per message to the target when the loop's failures are keyed."""


@dataclass
class Bug:
    """One bug exploration met: its examples (each with the base and inserts that made it)
    and how many failing scenarios were its."""

    examples: list[tuple[Example, Scenario, list[tuple[int, str]]]] = field(
        default_factory=list)
    count: int = 0

    def lead(self) -> tuple[Example, Scenario, list[tuple[int, str]]]:
        """The shortest example."""
        return min(self.examples, key=lambda e: len(e[0].scenario.completion))


Group = tuple[str, ...]  # (check, failure kind, operator, *how the parse went)


def same_meaning(base: Scenario, mutated: Scenario, fmt: Format, check_id: str) -> bool:
    """Whether the format's grammar reads the mutation as it reads its base, the thought
    aside. Pieces go inside thought lines where they should change nothing, but a tag
    format's thought is free text before the tag, and a piece there can open one: the
    base's oracle holds only where the reading is the same. Two refusals are the same
    reading, unless the check judges the refusal's reason."""
    a, b = grammar_parse(base.completion, fmt), grammar_parse(mutated.completion, fmt)
    reason = check_id == "right-rejection"
    return (a.action, a.answer, a.invalid is None, reason and a.invalid and a.invalid.code) \
        == (b.action, b.answer, b.invalid is None, reason and b.invalid and b.invalid.code)


def settle_bugs(failing: dict[Group, list[tuple[Scenario, list[tuple[int, str]]]]],
          counts: dict[Group, int], target: Target, fmt: Format, registry: ToolRegistry,
          dispatcher: str, config: ExploreConfig) -> dict[FailureKey, Bug]:
    """The loop's candidates keyed by bug (check, kind, cause, signature: where the parser
    decided), each judged again in full; only the design's faults are kept. The parses
    this traces are sent to the target in batches."""
    cands = [(group, base, inserts) for group, kept in failing.items()
             for base, inserts in kept]
    texts = {id(c): (apply_inserts(c[1], c[2]) if c[2] else c[1]) for c in cands}
    bugs: dict[FailureKey, Bug] = {}
    counted: set[Group] = set()
    for at in range(0, len(cands), TRACE_BATCH):
        chunk = cands[at:at + TRACE_BATCH]
        prefetch_origins(target, [texts[id(c)].completion for c in chunk])
        for c in chunk:
            group, base, inserts = c
            check_id, kind = group[0], group[1]
            ex = examine(texts[id(c)], target, fmt, registry, dispatcher,
                         get_checks([check_id]), time_limit=config.time_limit)
            if ex.failure is None or ex.failure.kind != kind or ex.failure.cause != "design":
                continue  # the protocol's ambiguity, or not reproducible
            if inserts and not same_meaning(base, texts[id(c)], fmt, check_id):
                continue  # the pieces changed what the text says: the base's oracle is void
            if (check_id, kind, "design", ex.failure.signature) in config.known:
                continue
            bug = bugs.setdefault((check_id, kind, "design", ex.failure.signature), Bug())
            bug.examples.append((ex, base, inserts))
            if group not in counted:  # a way of failing counts once, for its first bug
                counted.add(group)
                bug.count += counts[group]
    return bugs


@dataclass
class ShrinkBudget:
    """What shrinking may still spend: parses (counted, the budget that decides) and a
    wall-clock deadline (a safety cap that only a parser much slower than in the loop
    meets)."""

    parses: float
    deadline: float
    capped: bool = False

    @classmethod
    def for_run(cls, config: ExploreConfig, scenarios: int,
                loop_seconds: float) -> ShrinkBudget:
        """The budget of a run that explored ``scenarios`` in ``loop_seconds``."""
        from .explore import SHRINK_FLOOR, SHRINK_PARSES_FLOOR, SHRINK_PARSES_SHARE, SHRINK_SHARE

        if config.shrink_budget is not None and math.isinf(config.shrink_budget):
            return cls(math.inf, math.inf)
        seconds = (config.shrink_budget if config.shrink_budget is not None
                   else SHRINK_SHARE * loop_seconds + SHRINK_FLOOR)
        parses = (config.shrink_parses if config.shrink_parses is not None
                  else SHRINK_PARSES_FLOOR + SHRINK_PARSES_SHARE * scenarios)
        return cls(parses if seconds > 0 else 0, time.monotonic() + seconds)

    def open(self) -> bool:
        """Whether more may be spent (and, once the deadline passed, remember that)."""
        if self.parses <= 0:
            return False
        if time.monotonic() >= self.deadline:
            self.capped = True
            return False
        return True


class Shrinker:
    """Shrinks each bug once while the shrinking budget lasts: a mutation by dropping the
    inserted pieces it does not need, a failing base by its operator's own Hypothesis
    search (run once per operator, for every bug of that operator)."""

    def __init__(self, target: Target, fmt: Format, registry: ToolRegistry,
                 dispatcher: str, config: ExploreConfig, checks: list[Check], *,
                 budget: ShrinkBudget) -> None:
        self.target, self.fmt, self.registry = target, fmt, registry
        self.dispatcher, self.config, self.checks = dispatcher, config, checks
        self.budget = budget
        self.searched: dict[str, tuple[dict[FailureKey, Example], set[FailureKey]]] = {}

    def finding(self, key: FailureKey, bug: Bug) -> Finding:
        """The bug's finding: shrunk if the budget allowed, its shortest example if not."""
        ex, base, inserts = bug.lead()
        shrunk = None
        if self.budget.open():
            shrunk = self._shrink(key, ex, base, inserts)
        lead, minimal = shrunk if shrunk is not None else (ex, False)
        others = [e.scenario.completion for e, _, _ in bug.examples if e is not lead]
        cfg = self.config
        return bounded_finding(to_finding(lead, cfg.target, self.fmt, self.dispatcher,
                                          cfg.tools, cfg.seed, minimal, count=bug.count,
                                          examples=others))

    def _examine(self, sc: Scenario, check_id: str) -> Example:
        self.budget.parses -= 1
        return examine(sc, self.target, self.fmt, self.registry, self.dispatcher,
                       get_checks([check_id]), time_limit=self.config.time_limit)

    def _shrink(self, key: FailureKey, ex: Example, base: Scenario,
                inserts: list[tuple[int, str]]) -> tuple[Example, bool] | None:
        check_id = key[0]
        if key[1] == "timeout":
            # every try of a parse that runs to the limit costs the limit (seconds on a
            # real parser): it keeps its shortest example; its operator's run shrinks it
            return None

        def fails(ins: list[tuple[int, str]]) -> Example | None:
            mutated = apply_inserts(base, ins) if ins else base
            if ins and not same_meaning(base, mutated, self.fmt, check_id):
                return None
            trial = self._examine(mutated, check_id)
            f = trial.failure
            return trial if f is not None and (trial.check, f.kind, f.cause, f.signature) \
                == key else None

        alone = fails([]) if inserts else ex
        if alone is None:
            # delta debugging over the inserted pieces: drop each one that is not needed
            kept, best = list(inserts), ex
            changed = True
            while changed and self.budget.open():
                changed = False
                for piece in list(kept):
                    trial = [p for p in kept if p is not piece]
                    got = fails(trial)
                    if got is not None:
                        kept, best, changed = trial, got, True
            return best, not changed
        # the base alone fails: its operator's search shrinks it (Hypothesis)
        recorded, minimal = self._search(base.abuse)
        if key in recorded:
            return recorded[key], key in minimal
        return alone, False

    def _search(self, abuse: str) -> tuple[dict[FailureKey, Example], set[FailureKey]]:
        if abuse not in self.searched:
            cfg = self.config
            fz = FuzzConfig(targets=[cfg.target], format=self.fmt.name,
                            dispatcher=self.dispatcher, checks=list(fast_checks()),
                            max_examples=cfg.shrink_examples, time_limit=cfg.time_limit)
            minimal: set[FailureKey] = set()
            stats = OperatorStats(cfg.target, abuse)
            recorded = search(self.target, cfg.target, self.fmt, self.registry,
                              self.dispatcher, self.checks, abuse, fz,
                              operator_seed(cfg.seed, cfg.target, abuse),
                              self.budget.deadline, lambda e: None, stats, shrunk=minimal)
            self.budget.parses -= stats.examples
            if time.monotonic() >= self.budget.deadline:
                self.budget.capped = True
            self.searched[abuse] = (recorded, minimal)
        return self.searched[abuse]
