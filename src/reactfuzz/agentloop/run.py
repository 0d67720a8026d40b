"""``reactfuzz loop``: replay the loop corpus, search every script kind, report bugs.

The result is a :class:`~reactfuzz.engine.results.RunSummary`, as ``fuzz`` makes, so every
report (console, JSON, Markdown, HTML, JUnit, SARIF) reads it unchanged: each script kind is
an "operator", each loop bug a finding whose corpus file holds the script that shows it.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.corpus import Finding, iter_corpus, save_finding
from ..engine.events import (
    CorpusReplayed,
    EventSink,
    ExamplesRan,
    FindingFound,
    Interrupted,
    OperatorFinished,
    OperatorStarted,
    RunFinished,
    RunStarted,
)
from ..engine.results import RunSummary
from ..errors import UsageError
from ..formats import Format, get_format
from ..targets import load_tools
from ..targets.user_code import resolve_function
from ..tools import ToolRegistry
from .checks import LOOP_CHECKS, loop_failures
from .play import LoopFn, play
from .script import Script, script_kinds
from .search import LoopSearch, search_loop, to_finding

__all__ = ["LoopConfig", "replay_loop_finding", "run_loop"]


@dataclass
class LoopConfig:
    """One ``reactfuzz loop`` run: the loop, its format and tools, the budget and outputs."""

    target: str
    format: str = "bracket"
    tools: str = "default"
    seed: int = 0
    max_examples: int = 20
    kinds: Sequence[str] | None = None
    checks: Sequence[str] | None = None
    corpus: str | None = "loop_corpus"
    replay: bool = True
    max_calls: int = 30
    time_limit: float = 10.0
    cwd: str | None = None
    loop: LoopFn | None = field(default=None, repr=False)  # a callable instead of a path


def _load(config: LoopConfig) -> LoopFn:
    if config.loop is not None:
        return config.loop
    return resolve_function(config.target, os.path.abspath(config.cwd or os.getcwd()))


def replay_loop_finding(finding: Finding, loop: LoopFn, registry: ToolRegistry,
                        *, max_calls: int = 30, time_limit: float = 10.0) -> bool:
    """Whether the bug of a loop finding still shows when its script is played again."""
    if finding.script is None:
        raise UsageError(f"{finding.filename}: not a loop finding (no script)")
    fmt = get_format(finding.format)
    script = Script.from_dict(finding.script, fmt, registry)
    run = play(loop, script, registry, max_calls=max_calls, time_limit=time_limit)
    return any((f.check, f.kind) == (finding.check, finding.failure)
               for f in loop_failures(run, fmt, registry, [finding.check]))


def run_loop(config: LoopConfig, emit: EventSink | None = None) -> RunSummary:
    """Fuzz one agent loop (see the module docstring). Each script kind's bugs are saved
    when its search ends; Ctrl-C or SIGTERM stops the run keeping every bug found so far
    (the kind in progress unshrunk) and marks the summary interrupted."""
    sink: EventSink = emit or (lambda event: None)
    if config.checks is not None:
        unknown = [c for c in config.checks if c not in LOOP_CHECKS]
        if unknown:
            raise UsageError(f"unknown loop check {unknown[0]!r}: use one of"
                             f" {', '.join(LOOP_CHECKS)}")
    fmt = get_format(config.format)
    registry = load_tools(config.tools, cwd=config.cwd)
    loop = _load(config)
    for wanted in config.kinds or []:
        if not script_kinds(fmt, [wanted]):
            raise UsageError(f"--kind {wanted!r}: no script kind of format {fmt.name!r}"
                             " matches it (use loop.*, a loop kind such as loop.clean, or an"
                             " operator id or family from 'reactfuzz abuses')")
    kinds = script_kinds(fmt, config.kinds)
    checks = list(config.checks or LOOP_CHECKS)
    summary = RunSummary(seed=config.seed, targets=[config.target], format=fmt.name,
                         dispatcher="loop", tools=config.tools, checks=checks, abuses=kinds,
                         corpus_dir=config.corpus)
    sink(RunStarted(config.seed, (config.target,), fmt.name, "loop", len(kinds), len(checks),
                    operators=len(kinds)))
    start = time.monotonic()
    known: dict[str, Finding] = {}
    findings: dict[str, Finding] = {}
    try:
        if config.corpus and config.replay and Path(config.corpus).is_dir():
            for path, finding in iter_corpus(config.corpus):
                if finding.script is None or finding.target != config.target:
                    continue
                summary.replayed += 1
                still = replay_loop_finding(finding, loop, registry,
                                            max_calls=config.max_calls,
                                            time_limit=config.time_limit)
                summary.replay_states[finding.id] = still
                if still:
                    summary.reproduced += 1
                    known[finding.id] = finding
                sink(CorpusReplayed(str(path), still, finding.check, finding.failure))
        for kind in kinds:
            found = LoopSearch(kind)
            sink(OperatorStarted(config.target, kind))
            progress = functools.partial(_progress, sink, config.target, kind,
                                         [time.monotonic()])
            try:
                search_loop(loop, config.target, kind, fmt, registry, seed=config.seed,
                            max_examples=config.max_examples, checks=config.checks,
                            max_calls=config.max_calls, time_limit=config.time_limit,
                            on_example=progress, into=found)
            finally:  # interrupted too: what the kind found so far is kept, unshrunk
                summary.operators.append(found.stats)
                summary.examples += found.stats.examples
                _keep(found, config, fmt, registry, findings, sink)
            sink(OperatorFinished(config.target, kind, found.stats.examples,
                                  dict(found.stats.failures), found.stats.elapsed))
    except KeyboardInterrupt as e:
        summary.interrupted = True
        summary.terminated = type(e).__name__ == "Terminated"
        sink(Interrupted(len(findings)))
    for fid, f in known.items():
        if fid not in findings:
            findings[fid] = f
    summary.findings = sorted(findings.values(), key=lambda f: (f.check, f.failure))
    summary.known_ids = [f for f in findings if f in known]
    summary.known = len(summary.known_ids)
    summary.fixed = sum(1 for v in summary.replay_states.values() if not v)
    summary.elapsed = time.monotonic() - start
    sink(RunFinished(len(summary.findings), 0, summary.examples, summary.elapsed))
    return summary


def _progress(sink: EventSink, target: str, kind: str, last: list[float], examples: int,
              bugs: int) -> None:
    """Examples run so far, at most every half second."""
    now = time.monotonic()
    if now - last[0] > 0.5:
        last[0] = now
        sink(ExamplesRan(target, kind, examples, bugs))


def _keep(found: LoopSearch, config: LoopConfig, fmt: Format, registry: ToolRegistry,
          findings: dict[str, Finding], sink: EventSink) -> None:
    """Add one kind's bugs to the run's findings and save each at once (atomically)."""
    for bug in found.bugs.values():
        f = to_finding(bug, config.target, fmt, registry, config.tools, config.seed)
        new = f.id not in findings
        f = f if new else findings[f.id].merged(f)
        findings[f.id] = f
        path = save_finding(f, config.corpus) if config.corpus else None
        if new:
            sink(FindingFound(f, str(path) if path else None))
