"""What the engine and the study return: plain data that reporters render.

Kept apart from the engine so reporters (console, JSON, JUnit, Markdown, HTML) depend on
data only, never on how it was produced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .corpus import Finding

__all__ = [
    "Event",
    "OperatorStats",
    "RunSummary",
    "StudyCell",
    "StudyResult",
    "distinct",
    "wilson",
]


@dataclass(frozen=True)
class Event:
    """An untyped event: a kind and a dict (the engine now emits the typed events of
    :mod:`reactfuzz.engine.events`; this stays for code that builds its own).
    """

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class OperatorStats:
    """How one abuse operator went against one target."""

    target: str
    abuse: str
    examples: int = 0
    failures: dict[str, int] = field(default_factory=dict)  # check id -> failing examples
    elapsed: float = 0.0
    skipped: str = ""  # why the operator did not run (does not apply, budget spent)
    # ``examples`` counts the shrinking phase's examples too, and ``failures`` counts every
    # failing example of one bug again: these two count what generation alone found
    generated: int = 0  # examples generated (the shrinking phase left out)
    # cause ("design" / "protocol") -> check id -> distinct failures (root causes) generated
    distinct: dict[str, dict[str, int]] = field(default_factory=dict)

    def distinct_count(self, cause: str | None = None) -> int:
        """Distinct failures generation found (of one cause, or of both): what a chart of
        failures per operator counts, rather than failing examples."""
        return sum(n for c, by_check in self.distinct.items() if cause in (None, c)
                   for n in by_check.values())


@dataclass(frozen=True)
class Coverage:
    """How much of one target's code a run's guided phase reached (lines of the files its
    parses ran through)."""

    target: str
    reached: int
    total: int
    text: str  # the same in words, with the files
    kept: int  # mutations kept because they reached new lines
    scenarios: int


@dataclass
class RunSummary:
    """The result of a fuzz run: findings (design faults), protocol notes, statistics."""

    seed: int
    targets: list[str]
    format: str
    dispatcher: str
    tools: str
    checks: list[str]
    abuses: list[str]
    findings: list[Finding] = field(default_factory=list)
    protocol_notes: list[Finding] = field(default_factory=list)
    operators: list[OperatorStats] = field(default_factory=list)
    examples: int = 0
    elapsed: float = 0.0
    interrupted: bool = False
    terminated: bool = False  # the interruption was a SIGTERM (exit 143)
    replayed: int = 0
    replay_skipped: int = 0  # corpus findings of checks not registered here (a plugin's)
    reproduced: int = 0
    baseline_known: int = 0
    corpus_dir: str | None = None
    # what the corpus and the baseline already held (settled by ``engine.replay.settle``):
    # known = still failing (replayed and reproduced, or found again), fixed = replayed and
    # no longer reproducing; ``known_ids`` are the ids of the known ones among ``findings``
    known: int = 0
    fixed: int = 0
    known_ids: list[str] = field(default_factory=list)
    absorbed: list[Finding] = field(default_factory=list)  # found again, a baseline knew them
    replay_states: dict[str, bool] = field(default_factory=dict)  # replayed id -> reproduced
    coverage: list[Coverage] = field(default_factory=list)  # per target, from the guided phase
    # the first scenarios each search generated, per target and operator: the guided
    # phase's bases (not reported)
    bases: dict[str, dict[str, list[Any]]] = field(default_factory=dict, repr=False)

    @property
    def new_findings(self) -> list[Finding]:
        """Findings neither the corpus nor the baseline held: what this run found first."""
        known = set(self.known_ids)
        return [f for f in self.findings if f.id not in known]

    def finish(self, *, strict_protocol: bool = False) -> None:
        """Settle the summary at the end of a run: with ``strict_protocol``, protocol notes
        count as findings (and fail the run)."""
        if strict_protocol:
            self.findings.extend(self.protocol_notes)
            self.protocol_notes = []

    @property
    def exit_code(self) -> int:
        """0 no findings, 1 findings, 130 interrupted, 143 terminated by SIGTERM (findings
        kept either way)."""
        if self.interrupted:
            return 143 if self.terminated else 130
        return 1 if self.findings else 0


def distinct(findings: list[Finding]) -> list[Finding]:
    """The findings without repeats of one bug (the first of each ``dedup_key`` kept)."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for f in findings:
        if f.dedup_key() not in seen:
            seen.add(f.dedup_key())
            out.append(f)
    return out


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials (95 % by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class StudyCell:
    """One design against one abuse operator: how often each verdict came out."""

    design: str
    abuse: str
    n: int = 0
    counts: dict[str, int] = field(default_factory=dict)  # verdict kind -> count
    protocol: int = 0  # bad verdicts whose cause is the protocol
    example: str = ""  # a completion that produced the worst verdict seen
    protocol_counts: dict[str, int] = field(default_factory=dict)  # protocol-caused, by kind

    def design_faults(self) -> int:
        """Examples whose verdict is not ok by the design's own fault (protocol excluded)."""
        return max(0, self.bad() - self.protocol)

    def rate(self, kind: str) -> float:
        """Share of examples with this verdict."""
        return self.counts.get(kind, 0) / self.n if self.n else 0.0

    def bad(self) -> int:
        """Examples whose verdict is not ok."""
        return self.n - self.counts.get("ok", 0)

    def bad_rate(self) -> float:
        """Share of examples whose verdict is not ok."""
        return self.bad() / self.n if self.n else 0.0

    def interval(self, kind: str | None = None) -> tuple[float, float]:
        """95 % Wilson interval of a verdict's rate (of any non-ok verdict by default)."""
        k = self.bad() if kind is None else self.counts.get(kind, 0)
        return wilson(k, self.n)


@dataclass
class StudyResult:
    """Every design against every abuse operator: the matrix of verdict rates."""

    designs: list[str]
    abuses: list[str]
    cells: list[StudyCell]
    seed: int
    examples_per_cell: int
    elapsed: float = 0.0
    descriptions: dict[str, str] = field(default_factory=dict)  # design -> one line

    def cell(self, design: str, abuse: str) -> StudyCell | None:
        """The cell of one design and operator (None where the operator does not apply)."""
        for c in self.cells:
            if c.design == design and c.abuse == abuse:
                return c
        return None

    def design_totals(self) -> dict[str, StudyCell]:
        """Per design, all operators pooled."""
        out: dict[str, StudyCell] = {}
        for c in self.cells:
            t = out.setdefault(c.design, StudyCell(c.design, "all"))
            t.n += c.n
            t.protocol += c.protocol
            for k, v in c.counts.items():
                t.counts[k] = t.counts.get(k, 0) + v
            for k, v in c.protocol_counts.items():
                t.protocol_counts[k] = t.protocol_counts.get(k, 0) + v
        return out
