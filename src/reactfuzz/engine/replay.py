"""Replay: re-run corpus findings against their target and say which still reproduce."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..formats import get_format
from ..strategies import Scenario
from ..targets import Target, load_target, load_tools
from ..tools import ToolRegistry
from .checks import get_checks
from .config import auto_dispatcher
from .corpus import Finding, iter_corpus
from .events import CorpusReplayed, EventSink
from .example import examine

__all__ = ["ReplayResult", "replay"]


@dataclass(frozen=True)
class ReplayResult:
    """One corpus file replayed: does its finding still reproduce?"""

    path: Path
    finding: Finding
    reproduced: bool
    observed: str
    verdict: str  # the oracle's verdict on the outcome observed now


def replay(
    paths: Iterable[str | Path],
    *,
    target: str | None = None,
    dispatcher: str | None = None,
    time_limit: float = 1.0,
    cwd: str | None = None,
    emit: EventSink | None = None,
) -> list[ReplayResult]:
    """Re-run corpus findings (files or directories) against their target (or ``target``).

    With ``target`` the dispatcher is ``dispatcher`` or the target's own (``auto``);
    without, each finding runs with the dispatcher it was found with. A finding reproduces
    when its check fails again with the same failure kind.
    """
    out: list[ReplayResult] = []
    targets: dict[tuple[str, str], Target] = {}
    registries: dict[str, ToolRegistry] = {}
    try:
        for p in paths:
            for path, finding in iter_corpus(p):
                name = target or finding.target
                fmt = get_format(finding.format)
                key = (name, finding.format)
                if key not in targets:
                    targets[key] = load_target(name, fmt, timeout=time_limit, cwd=cwd)
                registry = registries.setdefault(finding.tools, load_tools(finding.tools))
                intent = finding.intent.intent()
                acceptable = finding.acceptable.acceptable(intent, registry)
                sc = Scenario(fmt.name, finding.abuse, intent, finding.completion,
                              finding.completion, acceptable)
                checks = get_checks([finding.check])
                if target is None:
                    how = finding.dispatcher
                elif dispatcher in (None, "auto"):
                    how = auto_dispatcher(target)
                else:
                    how = dispatcher
                ex = examine(sc, targets[key], fmt, registry, how, checks,
                             time_limit=time_limit, chunks=[4, 7])
                reproduced = ex.failure is not None and ex.failure.kind == finding.failure
                out.append(ReplayResult(path, finding, reproduced, str(ex.outcome),
                                        ex.verdict.kind))
                if emit is not None:
                    emit(CorpusReplayed(str(path), reproduced, finding.check, finding.failure))
    finally:
        for t in targets.values():
            t.close()
    return out


def replay_for_run(corpus: str, targets: list[str], formats: tuple[str, ...], *,
                   time_limit: float, cwd: str | None,
                   emit: EventSink | None) -> tuple[int, int]:
    """Replay a run's corpus first: (replayed, reproduced) over the findings of the run's
    targets and format."""
    results = [r for r in replay([corpus], time_limit=time_limit, cwd=cwd, emit=emit)
               if r.finding.target in targets and r.finding.format in formats]
    return len(results), sum(r.reproduced for r in results)
