"""The fuzz engine: targets x checks x abuse operators under one seed, as a library call.

Each abuse operator runs as its own Hypothesis search against each target, so each gets its
own minimal example, and every distinct failure (check x failure kind) is shrunk on its
own rather than the run stopping at the first. Failures become :class:`Finding` s, are
deduplicated, written to the corpus as soon as their operator finishes, and announced as
:class:`Event` s that reporters consume; the engine prints nothing itself.

Ctrl-C stops cleanly: findings already written stay, and the unshrunk failures of the
operator that was running are written too.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from ._determinism import pinned
from .checks import Check, CheckInput, Failure, get_checks
from .corpus import AcceptableSpec, Finding, IntentSpec, iter_corpus, save_finding
from .dispatch import Outcome, get_dispatcher
from .errors import UsageError
from .formats import Format, get_format
from .llm import split_chunks, stream_parse
from .model import Step
from .oracle import STRICT, Policy, Verdict, judge
from .results import Event, OperatorStats, RunSummary
from .strategies import ABUSES, Scenario, abuse_ids, scenarios
from .targets import Target, load_target, load_tools
from .tools import ToolRegistry

__all__ = [
    "FuzzConfig",
    "ReplayResult",
    "auto_dispatcher",
    "examine",
    "replay",
    "run_fuzz",
    "run_fuzz_parallel",
]

EventSink = Callable[[Event], None]


def auto_dispatcher(target: str) -> str:
    """The dispatcher a target ships with: positional for the classic presets, else typed."""
    return "positional" if target.startswith("classic-") else "typed"


@dataclass
class FuzzConfig:
    """What to fuzz and how hard (every option of ``reactfuzz fuzz``)."""

    targets: list[str]
    format: str = "bracket"
    dispatcher: str = "auto"
    tools: str = "default"
    checks: list[str] | None = None
    abuses: list[str] | None = None
    seed: int | None = None
    max_examples: int = 60
    time_budget: float | None = None
    corpus: str | None = None
    baseline: str | None = None
    replay_corpus: bool = True
    policy: Policy = field(default_factory=lambda: STRICT)
    time_limit: float = 1.0
    cwd: str | None = None
    stream: str = "whole"  # "whole" or "eager": how the client consumes a streamed completion
    hypothesis_db: str | None = None  # shared by workers and runs; then the seed is not used


@dataclass(frozen=True)
class _Example:
    """One example run through a target: everything the checks and the findings need."""

    scenario: Scenario
    step: Step | None
    outcome: Outcome
    verdict: Verdict
    failure: Failure | None
    check: str | None


def examine(
    scenario: Scenario,
    target: Target,
    fmt: Format,
    registry: ToolRegistry,
    dispatcher: str,
    checks: list[Check],
    *,
    time_limit: float = 1.0,
    chunks: list[int] | None = None,
    stream: str = "whole",
    target_is_grammar: bool = False,
    attribute: bool = True,
) -> _Example:
    """Run one scenario through a target and its dispatcher, then every check.

    ``attribute=False`` skips telling design faults from protocol ambiguity (a second
    parse); every bad verdict then counts as the design's, for a caller that re-checks.
    """
    result = target.run(scenario.completion)
    registry.reset()
    if result.step is not None:
        step = result.step
        outcome = get_dispatcher(dispatcher)(step, registry)
    else:
        from .dispatch import Crashed

        step = None
        if result.timed_out:
            outcome = Crashed("Timeout", f"the parser ran past {time_limit:g}s")
        else:
            name, _, message = (result.error or "Exception: ?").partition(": ")
            outcome = Crashed(name, message)
    verdict = judge(outcome, scenario.acceptable, registry,
                    completion=scenario.completion if attribute else None, fmt=fmt)
    streamed = None
    if chunks is not None and step is not None and not result.timed_out:
        pieces = split_chunks(scenario.completion, chunks)
        streamed = stream_parse(target, pieces, eager=stream == "eager")
    inp = CheckInput(
        scenario=scenario, fmt=fmt, registry=registry, step=step, outcome=outcome,
        verdict=verdict, error=result.error, timed_out=result.timed_out,
        elapsed=result.elapsed, time_limit=time_limit,
        target_is_grammar=target_is_grammar,
        streamed_step=streamed,
    )
    failures = []
    for c in checks:
        try:
            f = c(inp)
        except Exception as e:  # a bug in a (user) check, not a finding about the target
            raise UsageError(f"check {c.id!r} raised {type(e).__name__}: {e}") from None
        if f is not None:
            failures.append((c.id, f))
    # a design fault outranks a protocol note on the same example
    failures.sort(key=lambda cf: cf[1].cause != "design")
    first = failures[0] if failures else (None, None)
    return _Example(scenario, step, outcome, verdict, first[1], first[0])


def _finding(ex: _Example, target: str, fmt: Format, dispatcher: str, tools: str,
             seed: int | None, shrunk: bool) -> Finding:
    assert ex.failure is not None and ex.check is not None
    sc = ex.scenario
    return Finding(
        target=target,
        format=fmt.source or fmt.name,
        dispatcher=dispatcher,
        tools=tools,
        check=ex.check,
        verdict=ex.failure.kind,
        cause=ex.failure.cause,
        severity=ex.failure.severity,
        abuse=sc.abuse,
        completion=sc.completion,
        intent=IntentSpec.of(sc.intent),
        acceptable=AcceptableSpec.of(sc.acceptable),
        expected=sc.acceptable.describe(),
        observed=str(ex.outcome),
        explanation=ex.failure.message,
        seed=seed,
        shrunk=shrunk,
    )


def _operator_seed(seed: int, target: str, abuse: str) -> int:
    return (seed * 1_000_003 + zlib.crc32(f"{target}\0{abuse}".encode())) % (2**32)


class _Fail(AssertionError):
    """Base of the per-(check, kind) failure classes Hypothesis tells apart."""


def _search(
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
    recorded: dict[tuple[str, str, str], _Example] | None = None,
) -> dict[tuple[str, str, str], _Example]:
    """One Hypothesis search of one operator: the last (= minimal) example per failure.

    ``recorded`` (filled as the search goes) lets a caller keep what an interrupted
    search had found.
    """
    recorded = {} if recorded is None else recorded
    classes: dict[tuple[str, str, str], type[_Fail]] = {}
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
            emit(Event("progress", {"target": target_name, "abuse": abuse,
                                    "examples": stats.examples}))
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


@dataclass(frozen=True)
class ReplayResult:
    """One corpus file replayed: does its finding still reproduce?"""

    path: Path
    finding: Finding
    reproduced: bool
    observed: str
    verdict: str


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
    without, each finding runs with the dispatcher it was found with.
    """
    emit = emit or (lambda e: None)
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
                reproduced = ex.failure is not None and ex.failure.kind == finding.verdict
                result = ReplayResult(path, finding, reproduced, str(ex.outcome),
                                      ex.verdict.kind)
                out.append(result)
                emit(Event("replay", {"path": str(path), "reproduced": reproduced,
                                      "check": finding.check, "verdict": finding.verdict}))
    finally:
        for t in targets.values():
            t.close()
    return out


@pinned
def run_fuzz(config: FuzzConfig, emit: EventSink | None = None) -> RunSummary:
    """Run a fuzz campaign and return its summary (findings are also in the corpus)."""
    emit = emit or (lambda e: None)
    seed = config.seed if config.seed is not None else random.SystemRandom().randrange(2**32)
    fmt, checks, wanted, dispatchers = _resolve(config)
    registry = load_tools(config.tools)
    summary = RunSummary(
        seed=seed, targets=list(config.targets), format=fmt.name,
        dispatcher=", ".join(sorted(set(dispatchers.values()))), tools=config.tools,
        checks=[c.id for c in checks], abuses=list(wanted), corpus_dir=config.corpus,
    )
    baseline = _baseline_keys(config.baseline)
    start = time.monotonic()
    deadline = start + config.time_budget if config.time_budget else None
    targets: dict[str, Target] = {}
    try:
        for name in config.targets:  # bad targets fail here, before anything is announced
            targets[name] = load_target(name, fmt, timeout=config.time_limit, cwd=config.cwd)
    except BaseException:
        for t in targets.values():
            t.close()
        raise
    emit(Event("run-started", {"seed": seed, "targets": config.targets, "format": fmt.name,
                               "abuses": len(wanted), "checks": len(checks)}))
    current: dict[tuple[str, str, str], _Example] = {}
    try:
        if config.corpus and config.replay_corpus and Path(config.corpus).is_dir():
            results = replay([config.corpus], time_limit=config.time_limit, cwd=config.cwd,
                             emit=emit)
            results = [r for r in results if r.finding.target in config.targets
                       and r.finding.format in (fmt.name, fmt.source)]
            summary.replayed = len(results)
            summary.reproduced = sum(r.reproduced for r in results)
        for name, target in targets.items():
            dispatcher = dispatchers[name]
            for abuse in wanted:
                stats = OperatorStats(name, abuse)
                summary.operators.append(stats)
                if not ABUSES[abuse].applies_to(fmt):
                    stats.skipped = f"does not apply to {fmt.name}"
                    continue
                if deadline is not None and time.monotonic() > deadline:
                    stats.skipped = "time budget spent"
                    continue
                emit(Event("operator-started", {"target": name, "abuse": abuse}))
                t0 = time.monotonic()
                current = {}
                op_seed = _operator_seed(seed, name, abuse)
                _search(target, name, fmt, registry, dispatcher, checks, abuse, config,
                        op_seed, deadline, emit, stats, current)
                stats.elapsed = time.monotonic() - t0
                summary.examples += stats.examples
                _collect(current, summary, name, fmt, dispatcher, config, op_seed, True,
                         baseline, emit)
                current = {}
                emit(Event("operator-finished", {
                    "target": name, "abuse": abuse, "examples": stats.examples,
                    "failures": dict(stats.failures), "elapsed": round(stats.elapsed, 3)}))
    except KeyboardInterrupt:
        summary.interrupted = True
        if summary.operators and not summary.operators[-1].elapsed:
            summary.examples += summary.operators[-1].examples  # the interrupted operator's
        # keep what the interrupted operator had found, unshrunk
        if current:
            stats = summary.operators[-1]
            _collect(current, summary, stats.target, fmt, dispatchers[stats.target], config,
                     None, False, baseline, emit)
        emit(Event("interrupted", {"findings": len(summary.findings)}))
    finally:
        for t in targets.values():
            t.close()
    summary.elapsed = time.monotonic() - start
    emit(_finished(summary))
    return summary


def _resolve(config: FuzzConfig) -> tuple[Format, list[Check], list[str], dict[str, str]]:
    """The format, checks, abuse ids and per-target dispatchers a config names (or a
    usage error for the first unknown one)."""
    fmt = get_format(config.format)
    checks = get_checks(config.checks)
    wanted = config.abuses if config.abuses is not None else abuse_ids(fmt)
    for a in wanted:
        if a not in ABUSES:
            raise UsageError(f"unknown abuse {a!r}: use one of {', '.join(ABUSES)}")
    dispatchers = {
        t: auto_dispatcher(t) if config.dispatcher == "auto" else config.dispatcher
        for t in config.targets
    }
    for d in set(dispatchers.values()):
        get_dispatcher(d)
    return fmt, checks, list(wanted), dispatchers


def _finished(summary: RunSummary) -> Event:
    return Event("run-finished", {"findings": len(summary.findings),
                                  "protocol_notes": len(summary.protocol_notes),
                                  "examples": summary.examples,
                                  "elapsed": round(summary.elapsed, 3)})


def _baseline_keys(baseline: str | None) -> set[tuple[str, ...]]:
    if not baseline:
        return set()
    if not Path(baseline).exists():
        raise UsageError(f"baseline {baseline!r} not found: give a corpus directory or file")
    return {f.dedup_key() for _, f in iter_corpus(baseline)}


def _collect(
    recorded: dict[tuple[str, str, str], _Example],
    summary: RunSummary,
    target: str,
    fmt: Format,
    dispatcher: str,
    config: FuzzConfig,
    seed: int | None,
    shrunk: bool,
    baseline: set[tuple[str, ...]],
    emit: EventSink,
) -> None:
    seen = {f.dedup_key() for f in summary.findings + summary.protocol_notes}
    for ex in recorded.values():
        finding = _finding(ex, target, fmt, dispatcher, config.tools, seed, shrunk)
        if finding.dedup_key() in seen:
            continue
        seen.add(finding.dedup_key())
        if finding.cause == "protocol":
            summary.protocol_notes.append(finding)
            continue
        if finding.dedup_key() in baseline:
            summary.baseline_known += 1
            continue
        summary.findings.append(finding)
        path = save_finding(finding, config.corpus) if config.corpus else None
        emit(Event("finding", {"finding": finding, "path": str(path) if path else None}))


def corpus_summary(paths: Iterable[str | Path]) -> dict[str, Any]:
    """Counts of a corpus by check and verdict (for reports and the CLI)."""
    counts: dict[str, int] = {}
    for p in paths:
        for _, f in iter_corpus(p):
            k = f"{f.check}/{f.verdict}"
            counts[k] = counts.get(k, 0) + 1
    return counts


def _worker_run(args: tuple[FuzzConfig, list[str]]) -> RunSummary:
    config, abuses = args
    sub = FuzzConfig(**{**config.__dict__, "abuses": abuses, "replay_corpus": False})
    return run_fuzz(sub, _WORKER_EMIT)


def _forward(event: Event) -> None:
    if _WORKER_QUEUE is not None:
        data = {k: v for k, v in event.data.items() if k != "finding"}
        if "finding" in event.data:
            data["finding"] = event.data["finding"].model_dump(mode="json")
        _WORKER_QUEUE.put((event.kind, data))


_WORKER_QUEUE: Any = None
_WORKER_EMIT: EventSink = _forward


def _init_worker(queue: Any) -> None:
    global _WORKER_QUEUE
    _WORKER_QUEUE = queue


def run_fuzz_parallel(config: FuzzConfig, workers: int,
                      emit: EventSink | None = None) -> RunSummary:
    """``run_fuzz`` over ``workers`` processes; the same findings as one process.

    Operators are dealt out round-robin; every operator's seed depends only on the run
    seed, the target and the operator, so the split never changes what is found. The
    corpus (atomic writes) and any Hypothesis database are shared.
    """
    import multiprocessing as mp
    import threading

    emit = emit or (lambda e: None)
    if workers <= 1:
        return run_fuzz(config, emit)
    seed = config.seed if config.seed is not None else random.SystemRandom().randrange(2**32)
    config = FuzzConfig(**{**config.__dict__, "seed": seed})
    fmt, checks, wanted, dispatchers = _resolve(config)
    for name in config.targets:  # fail fast, in the parent, on a bad target
        load_target(name, fmt, timeout=config.time_limit, cwd=config.cwd).close()
    # small batches handed out as workers free up: operators differ in cost, and a static
    # split leaves one worker idle at the end
    batch = max(1, -(-len(wanted) // (workers * 4)))
    shares = [wanted[i:i + batch] for i in range(0, len(wanted), batch)]
    summary = RunSummary(seed=seed, targets=list(config.targets), format=fmt.name,
                         dispatcher=", ".join(sorted(set(dispatchers.values()))),
                         tools=config.tools, checks=[c.id for c in checks],
                         abuses=list(wanted), corpus_dir=config.corpus)
    start = time.monotonic()
    if config.corpus and config.replay_corpus and Path(config.corpus).is_dir():
        results = [r for r in replay([config.corpus], time_limit=config.time_limit,
                                     cwd=config.cwd, emit=emit)
                   if r.finding.target in config.targets]
        summary.replayed, summary.reproduced = len(results), sum(r.reproduced for r in results)
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    queue = ctx.Queue()
    emit(Event("run-started", {"seed": seed, "targets": config.targets, "format": fmt.name,
                               "abuses": len(wanted), "workers": min(workers, len(shares))}))
    stop = threading.Event()

    def pump() -> None:
        import queue as q

        while not stop.is_set() or not queue.empty():
            try:
                kind, data = queue.get(timeout=0.1)
            except q.Empty:
                continue
            if kind in ("run-started", "run-finished"):
                continue
            if "finding" in data:
                data = {**data, "finding": Finding.model_validate(data["finding"])}
            emit(Event(kind, data))

    thread = threading.Thread(target=pump, daemon=True)
    try:
        # fork the workers before the event thread starts: forking a threaded process
        # can deadlock the children (and Python 3.12+ warns about it)
        with ctx.Pool(min(workers, len(shares)), initializer=_init_worker,
                      initargs=(queue,)) as pool:
            thread.start()
            parts = list(pool.imap_unordered(_worker_run, [(config, s) for s in shares]))
    except KeyboardInterrupt:
        summary.interrupted = True
        parts = []
    finally:
        stop.set()
        if thread.is_alive():
            thread.join(timeout=5)
    order = {a: i for i, a in enumerate(wanted)}
    for part in parts:
        summary.findings.extend(part.findings)
        summary.protocol_notes.extend(part.protocol_notes)
        summary.operators.extend(part.operators)
        summary.examples += part.examples
        summary.baseline_known += part.baseline_known
        summary.interrupted |= part.interrupted
    summary.findings.sort(key=lambda f: (order.get(f.abuse, 0), f.check))
    summary.protocol_notes.sort(key=lambda f: (order.get(f.abuse, 0), f.check))
    summary.operators.sort(key=lambda s: (s.target, order.get(s.abuse, 0)))
    summary.elapsed = time.monotonic() - start
    emit(_finished(summary))
    return summary
