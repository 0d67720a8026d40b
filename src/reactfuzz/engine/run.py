"""The fuzz run: targets x checks x abuse operators under one seed, as a library call.

Each abuse operator runs as its own Hypothesis search against each target (see
:mod:`.search`), so each gets its own minimal example. Failures become :class:`Finding` s,
are deduplicated, written to the corpus as soon as their operator finishes, and announced
as typed events (:mod:`.events`); the engine prints nothing itself. :func:`run_fuzz` also
spreads operators over worker processes (``workers=N``) with the same findings as one.

Ctrl-C stops cleanly: findings already written stay, and the unshrunk failures of the
operator that was running are written too.
"""

from __future__ import annotations

import signal
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from .._determinism import pinned
from ..formats import Format
from ..strategies import ABUSES, Scenario
from ..targets import Target, load_target
from . import fit as _fit
from . import pool as _pool
from . import search as _search_module
from .config import FuzzConfig, Plan, operator_seed, require_applicable, resolve
from .corpus import Finding, bounded_finding, merge_by_root, save_finding, sweep_temp_files
from .events import (
    EngineEvent,
    EventSink,
    FindingFound,
    Interrupted,
    OperatorFinished,
    OperatorStarted,
    RunFinished,
    RunStarted,
    event_from_dict,
)
from .example import Example, to_finding
from .guided import guided_phase
from .replay import replay_known, settle, stored_findings
from .results import OperatorStats, RunSummary
from .search import FailureKey, Tally
from .signals import Terminated, check_stop, deferred_signals, request_stop, reset_stop

__all__ = ["run_fuzz", "run_fuzz_parallel"]


def _ignore(event: EngineEvent) -> None:
    pass


@pinned
def run_fuzz(config: FuzzConfig, emit: EventSink | None = None, *,
             workers: int = 1) -> RunSummary:
    """Run a fuzz campaign and return its summary (findings are also in the corpus).

    ``workers > 1`` deals the operators out to that many processes; every operator's seed
    depends only on the run seed, the target and the operator, so the split never changes
    what is found. The corpus (atomic writes) and any Hypothesis database are shared.
    """
    emit = emit or _ignore
    config = _fit.resolve_auto(config)  # format fit: --format auto, then a misfit stops here
    plan = resolve(config)
    require_applicable(config.abuses, plan.fmt)
    if config.format_fit:
        _fit.check_fit(config, plan.fmt, plan.registry)
    config = replace(config, seed=plan.seed)
    if config.corpus:
        sweep_temp_files(config.corpus)  # left by a run killed while saving
    summary = RunSummary(
        seed=plan.seed, targets=list(config.targets), format=plan.fmt.name,
        dispatcher=plan.dispatcher, tools=config.tools, checks=[c.id for c in plan.checks],
        abuses=list(plan.abuses), corpus_dir=config.corpus,
    )
    start = time.monotonic()
    # what the corpus and the baseline hold, read before this run adds to the corpus
    stored = stored_findings([config.corpus, config.baseline], config.targets,
                             _formats(plan))
    if workers > 1:
        _run_workers(config, plan, summary, workers, emit)
        if not summary.interrupted:
            _guided_here(config, plan, summary, emit, {}, _deadline(config, start))
    else:
        _run_here(config, plan, summary, emit)
    summary.elapsed = time.monotonic() - start
    summary.finish(strict_protocol=config.strict_protocol)
    settle(summary, stored, summary.replay_states)
    emit(RunFinished(len(summary.findings), len(summary.protocol_notes), summary.examples,
                     round(summary.elapsed, 3)))
    return summary


def run_fuzz_parallel(config: FuzzConfig, workers: int,
                      emit: EventSink | None = None) -> RunSummary:
    """``run_fuzz(config, emit, workers=workers)`` (kept for code written against it)."""
    return run_fuzz(config, emit, workers=workers)


def _load_targets(config: FuzzConfig, fmt: Format) -> dict[str, Target]:
    """Every target of the run (bad ones fail here, before anything is announced)."""
    targets: dict[str, Target] = {}
    try:
        for name in config.targets:
            targets[name] = load_target(name, fmt, timeout=config.time_limit, cwd=config.cwd)
    except BaseException:
        for t in targets.values():
            t.close()
        raise
    return targets


def _formats(plan: Plan) -> tuple[str, ...]:
    return (plan.fmt.name, plan.fmt.source or plan.fmt.name)


def _replay_first(config: FuzzConfig, plan: Plan, summary: RunSummary,
                  emit: EventSink) -> None:
    """Replay the corpus and the baseline (each file once) before searching."""
    if config.replay_corpus and (config.baseline or (config.corpus
                                                     and Path(config.corpus).is_dir())):
        known = replay_known([config.corpus, config.baseline], config.targets,
                             _formats(plan), time_limit=config.time_limit,
                             cwd=config.cwd, emit=emit, tools=config.tools)
        results = known.results
        summary.replayed = len(results)
        summary.replay_skipped = len(known.unregistered)
        summary.reproduced = sum(r.reproduced for r in results)
        summary.replay_states = {r.finding.id: r.reproduced for r in results}


def _started(config: FuzzConfig, plan: Plan, workers: int) -> RunStarted:
    applies = sum(ABUSES[a].applies_to(plan.fmt) for a in plan.abuses)
    return RunStarted(plan.seed, tuple(config.targets), plan.fmt.name, plan.dispatcher,
                      len(plan.abuses), len(plan.checks), workers,
                      operators=applies * len(config.targets))


def _deadline(config: FuzzConfig, start: float) -> float | None:
    return start + config.time_budget if config.time_budget else None


def _guided_here(config: FuzzConfig, plan: Plan, summary: RunSummary, emit: EventSink,
                 targets: dict[str, Target], deadline: float | None) -> None:
    """The guided phase (:mod:`.guided`); an interruption keeps what the run had."""
    try:
        guided_phase(config, plan, summary, emit, targets, deadline)
    except KeyboardInterrupt as exc:
        with deferred_signals(reraise=False):
            summary.interrupted = True
            summary.terminated |= isinstance(exc, Terminated)
            emit(Interrupted(len(summary.findings)))


def _run_here(config: FuzzConfig, plan: Plan, summary: RunSummary, emit: EventSink,
              *, announce: bool = True) -> None:
    """Every operator against every target in this process, then the guided phase."""
    fmt = plan.fmt
    deadline = _deadline(config, time.monotonic())
    targets = _load_targets(config, fmt)
    if announce:
        emit(_started(config, plan, 1))
    current: dict[FailureKey, Example] = {}
    minimal: set[FailureKey] = set()
    tally: dict[FailureKey, Tally] = {}
    try:
        _replay_first(config, plan, summary, emit)
        for name, target in targets.items():
            dispatcher = plan.dispatchers[name]
            for abuse in plan.abuses:
                stats = OperatorStats(name, abuse)
                summary.operators.append(stats)
                if not ABUSES[abuse].applies_to(fmt):
                    needs = ABUSES[abuse].needs
                    stats.skipped = (f"does not apply to {fmt.name}"
                                     + (f": it needs {needs}" if needs else ""))
                    continue
                if deadline is not None and time.monotonic() > deadline:
                    stats.skipped = "time budget spent"
                    continue
                check_stop()
                emit(OperatorStarted(name, abuse))
                t0 = time.monotonic()
                current, minimal, tally = {}, set(), {}
                sample: list[Scenario] = []
                op_seed = operator_seed(plan.seed, name, abuse)
                # every operator shrinks its own bugs, known or not: what an operator
                # finds depends on its seed alone, so workers find what one process does
                _search_module.search(target, name, fmt, plan.registry, dispatcher,
                                      plan.checks, abuse, config, op_seed, deadline, emit,
                                      stats, current, minimal, tally, sample)
                summary.bases.setdefault(name, {})[abuse] = sample
                # a signal waits until the findings are saved: the corpus and the
                # summary never disagree
                with deferred_signals():
                    stats.elapsed = time.monotonic() - t0
                    summary.examples += stats.examples
                    _collect(current, summary, name, plan, config, op_seed, minimal, emit,
                             tally)
                    current = {}
                    emit(OperatorFinished(name, abuse, stats.examples, dict(stats.failures),
                                          round(stats.elapsed, 3)))
        _guided_here(config, plan, summary, emit, targets, deadline)
    except KeyboardInterrupt as exc:
        with deferred_signals(reraise=False):  # a second Ctrl-C does not lose these
            summary.interrupted = True
            summary.terminated |= isinstance(exc, Terminated)
            if summary.operators and not summary.operators[-1].elapsed:
                summary.examples += summary.operators[-1].examples  # the interrupted one's
            # keep what the interrupted operator had found, unshrunk
            if current:
                stats = summary.operators[-1]
                _collect(current, summary, stats.target, plan, config, None, set(), emit,
                         tally)
            emit(Interrupted(len(summary.findings)))
    finally:
        for t in targets.values():
            t.close()


def _collect(
    recorded: dict[FailureKey, Example],
    summary: RunSummary,
    target: str,
    plan: Plan,
    config: FuzzConfig,
    seed: int | None,
    minimal: set[FailureKey],
    emit: EventSink,
    tally: dict[FailureKey, Tally] | None = None,
) -> None:
    """Turn an operator's failures into findings: one per root cause (a root cause an
    earlier operator found lists this one in ``also_reached`` and adds its examples); new
    ones kept, written and announced; protocol notes and findings a baseline knows set
    aside."""
    tally = tally or {}
    for key, ex in recorded.items():
        seen = tally.get(key, Tally())
        # the bug's shortest example leads: the shrunk one, or a shorter one generation met
        lead = min([ex, *seen.examples], key=lambda e: len(e.scenario.completion))
        others = [e.scenario.completion for e in seen.examples if e is not lead]
        if lead is not ex:
            others.append(ex.scenario.completion)
        finding = bounded_finding(to_finding(lead, target, plan.fmt, plan.dispatchers[target],
                                             config.tools, seed, key in minimal,
                                             count=seen.count, examples=others))
        keep(summary, finding, plan, config, emit)


def keep(summary: RunSummary, finding: Finding, plan: Plan, config: FuzzConfig,
         emit: EventSink) -> None:
    """One finding into the run: merged into its root cause's, a protocol note, set aside
    as one a baseline knows, or kept, written and announced."""
    if merge_by_root(summary.findings, finding, config.corpus) or merge_by_root(
            summary.protocol_notes, finding):
        return
    if finding.cause == "protocol":
        summary.protocol_notes.append(finding)
        return
    if finding.dedup_key() in plan.baseline or finding.root_key() in plan.baseline:
        summary.baseline_known += 1
        summary.absorbed.append(finding)
        return
    summary.findings.append(finding)
    path = save_finding(finding, config.corpus) if config.corpus else None
    emit(FindingFound(finding, str(path) if path else None))


# --------------------------------------------------------------------------- workers

_WORKER_QUEUE: Any = None


def _forward(event: EngineEvent) -> None:
    # findings are announced by the parent once it has merged the root causes of all
    if _WORKER_QUEUE is not None and not isinstance(event, (RunStarted, RunFinished,
                                                            FindingFound, Interrupted)):
        _WORKER_QUEUE.put(event.to_dict())


def _init_worker(queue: Any) -> None:
    global _WORKER_QUEUE
    _WORKER_QUEUE = queue
    # the parent's SIGINT means "stop at the next example and hand back what you found"
    reset_stop()
    signal.signal(signal.SIGINT, request_stop)


@pinned
def _worker_run(args: tuple[FuzzConfig, list[str]]) -> RunSummary:
    config, abuses = args
    # the worker saves each operator's findings as the operator ends, as one process
    # does: a parent killed outright (SIGKILL) loses only the operators in progress; the
    # parent merges root causes across workers afterwards and removes what it merged away
    sub = replace(config, abuses=abuses, replay_corpus=False, strict_protocol=False, guided=0)
    plan = resolve(sub)
    summary = RunSummary(seed=plan.seed, targets=list(sub.targets), format=plan.fmt.name,
                         dispatcher=plan.dispatcher, tools=sub.tools,
                         checks=[c.id for c in plan.checks], abuses=list(plan.abuses),
                         corpus_dir=sub.corpus)
    _run_here(sub, plan, summary, _forward, announce=False)
    return summary


def _run_workers(config: FuzzConfig, plan: Plan, summary: RunSummary, workers: int,
                 emit: EventSink) -> None:
    """The operators over ``workers`` processes, their events forwarded to ``emit``."""
    import multiprocessing as mp
    import queue as q
    import threading

    for name in config.targets:  # fail fast, in the parent, on a bad target
        load_target(name, plan.fmt, timeout=config.time_limit, cwd=config.cwd).close()
    wanted = plan.abuses
    # small batches handed out as workers free up: operators differ in cost, and a static
    # split leaves one worker idle at the end
    batch = max(1, -(-len(wanted) // (workers * 4)))
    shares = [wanted[i:i + batch] for i in range(0, len(wanted), batch)]
    _replay_first(config, plan, summary, emit)
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    queue = ctx.Queue()
    emit(_started(config, plan, min(workers, len(shares))))
    stop = threading.Event()

    def pump() -> None:
        while not stop.is_set() or not queue.empty():
            try:
                data = queue.get(timeout=0.1)
            except q.Empty:
                continue
            emit(event_from_dict(data))

    thread = threading.Thread(target=pump, daemon=True)
    parts: list[RunSummary] = []
    try:
        # fork the workers before the event thread starts: forking a threaded process
        # can deadlock the children (and Python 3.12+ warns about it); not daemonic, so
        # a module:function target can start its own worker process in each. On Ctrl-C
        # or SIGTERM the pool stops the workers and `parts` keeps what they had found
        _pool.map_unordered(ctx, min(workers, len(shares)), _worker_run,
                            [(config, s) for s in shares], initializer=_init_worker,
                            initargs=(queue,), started=thread.start, results=parts)
    except KeyboardInterrupt as exc:
        summary.interrupted = True
        summary.terminated |= isinstance(exc, Terminated)
    finally:
        with deferred_signals(reraise=False) as got:
            stop.set()
            if thread.is_alive():
                thread.join(timeout=5)
    with deferred_signals(reraise=False) as late:
        _merge_parts(config, plan, summary, parts, emit)
    for signum in got + late:  # a signal while merging: the findings are saved first
        summary.interrupted = True
        summary.terminated |= signum == signal.SIGTERM
    if summary.interrupted:
        emit(Interrupted(len(summary.findings)))


def _merge_parts(config: FuzzConfig, plan: Plan, summary: RunSummary,
                 parts: list[RunSummary], emit: EventSink) -> None:
    """The workers' findings as one process would have found them, saved and announced."""
    wanted = plan.abuses
    order = {a: i for i, a in enumerate(wanted)}
    found: list[Finding] = []
    for part in parts:
        found += part.findings + part.protocol_notes
        for name, by_abuse in part.bases.items():
            summary.bases.setdefault(name, {}).update(by_abuse)
        summary.operators.extend(part.operators)
        summary.examples += part.examples
        summary.baseline_known += part.baseline_known
        summary.absorbed += part.absorbed
        summary.interrupted |= part.interrupted
    summary.operators.sort(key=lambda s: (s.target, order.get(s.abuse, 0)))
    # in operator order, as one process meets them: the first operator to reach a root
    # cause keeps the finding, and the list of the others is in operator order too
    rank = {t: i for i, t in enumerate(config.targets)}
    found.sort(key=lambda f: (rank.get(f.target, 0), order.get(f.abuse, 0)))
    for finding in found:
        if merge_by_root(summary.findings, finding) or merge_by_root(summary.protocol_notes,
                                                                      finding):
            if config.corpus and finding.cause != "protocol":
                # a worker saved it before another worker's operator, earlier in the
                # order, turned out to have the same root cause
                kept = {f.filename for f in summary.findings}
                if finding.filename not in kept:
                    (Path(config.corpus) / finding.filename).unlink(missing_ok=True)
            continue
        group = summary.protocol_notes if finding.cause == "protocol" else summary.findings
        group.append(finding)
    for group in (summary.findings, summary.protocol_notes):
        group[:] = [f.model_copy(update={"also_reached": sorted(
            f.also_reached, key=lambda a: order.get(a, 0))}) for f in group]
    for finding in summary.findings:
        path = save_finding(finding, config.corpus) if config.corpus else None
        emit(FindingFound(finding, str(path) if path else None))
