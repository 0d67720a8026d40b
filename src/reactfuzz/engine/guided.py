"""The fuzz run's guided phase: what the operators' searches generated, mutated where the
target's code has not been yet.

After every operator has run its Hypothesis search, each target is explored (see
:mod:`.explore`) from the first scenarios those searches generated, with every parse
traced: a mutation that reaches a line of the target's code no earlier parse reached is
kept and mutated further, so the run climbs into branches that need several pieces at
once, which no single operator writes. It adds only bugs the searches did not find, and
the run's summary reports how much of the target's code its parses reached.

The phase is seeded by the run's seed and shrinks a bounded number of new bugs without a
time limit, so a run finds the same bugs, with the same examples, every time.
"""

from __future__ import annotations

import math
import time

from ..strategies import Scenario
from ..targets import Target
from .config import FuzzConfig, Plan
from .events import EventSink
from .explore import ExploreConfig, explore
from .results import Coverage, RunSummary

__all__ = ["GUIDED_PER_EXAMPLE", "INSERTIONS", "SHRUNK_AT_MOST", "guided_insertions",
           "guided_phase", "guided_scenarios"]

GUIDED_PER_EXAMPLE = 20
"""Guided scenarios per target for each example an operator's search has (``--max-examples``):
1,200 at the default budget."""

SHRUNK_AT_MOST = 8
"""New bugs of the phase shrunk per target; the rest keep their shortest example."""

INSERTIONS = 3
"""Pieces a mutation adds at most, at the default budget (see :func:`guided_insertions`)."""


def guided_insertions(config: FuzzConfig) -> int:
    """Pieces one mutation adds at most: :data:`INSERTIONS`, and one more each time the
    budget doubles (6 at ten times it). A branch that needs four pieces at once is then
    drawn directly, not only climbed to through kept mutations."""
    return INSERTIONS + int(math.log2(config.size_scale))


def guided_scenarios(config: FuzzConfig) -> int:
    """Scenarios of the guided phase per target (``0``: no phase). A run of chosen
    operators runs those alone unless it asks for the phase: its mutations insert the
    format's adversarial pieces, which ``--abuse clean.render`` does not want."""
    if config.guided is not None:
        return config.guided
    if config.abuses is not None:
        return 0
    return GUIDED_PER_EXAMPLE * config.max_examples


def guided_phase(config: FuzzConfig, plan: Plan, summary: RunSummary, emit: EventSink,
                 targets: dict[str, Target] | None = None,
                 deadline: float | None = None) -> None:
    """Explore each target guided by coverage; new bugs join the summary (through
    ``keep``), and its coverage is recorded. ``targets`` are loaded already (else each is
    loaded here); the bases are what the searches generated (``summary.bases``, in
    operator order, whichever process ran which operator), or a pool drawn here."""
    from .run import keep

    n = guided_scenarios(config)
    if n <= 0:
        return
    for name in config.targets:
        if deadline is not None and time.monotonic() > deadline:
            return
        mine = [*summary.findings, *summary.protocol_notes, *summary.absorbed]
        known = frozenset((f.check, f.failure, f.cause, f.signature) for f in mine
                          if f.target == name and f.signature)
        ec = ExploreConfig(
            target=name, format=config.format, dispatcher=plan.dispatchers[name],
            tools=config.tools, seed=plan.seed, scenarios=n, abuses=list(plan.abuses),
            corpus=None, time_limit=config.time_limit, cwd=config.cwd, guided=True,
            checks=[c.id for c in plan.checks], known=known, shrink_budget=math.inf,
            shrink_limit=SHRUNK_AT_MOST, max_insertions=guided_insertions(config))
        by_abuse = summary.bases.get(name, {})
        base: list[Scenario] = [sc for a in plan.abuses for sc in by_abuse.get(a, [])]
        result = explore(ec, shared=(base, 0.0) if base else None,
                         target=(targets or {}).get(name))
        summary.examples += result.scenarios
        summary.coverage.append(Coverage(name, result.lines_reached, result.lines_total,
                                         result.coverage, result.favoured, result.scenarios))
        for finding in result.findings:
            keep(summary, finding, plan, config, emit)
