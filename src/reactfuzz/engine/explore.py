"""The fast exploration mode: scenarios at close to the parsers' own speed.

Hypothesis pays a per-example floor (hundreds of microseconds) that dwarfs a regex parse
(about a microsecond). Exploration pays it once per *base* scenario: it draws a pool from
the same abuse operators (generation only, seeded), adds the corpus members, and then runs
a seeded ``random.Random`` loop that takes a base and mutates its thought -- inserting the
format's adversarial pieces in the middle of thought lines, where they must not change
what the completion means, so the base's oracle still holds. With ``guided``, every parse
runs under the line tracer and a mutation whose parse reached a line of the target's code
no earlier parse did is kept and mutated further (half of the draws), so the search
climbs into branches that need several pieces at once. Only failing inputs go
further: a failing base is handed to Hypothesis (its operator's own search, which shrinks
it), a failing mutation is shrunk by removing inserted pieces until none can go. Every
finding reproduces from its corpus file, and the whole run from its seed.
"""

from __future__ import annotations

import random
import re
import signal
import time
from dataclasses import dataclass, field, replace

from hypothesis.errors import Unsatisfiable

from .._determinism import pinned
from ..formats import Format, get_format
from ..strategies import (
    ABUSES,
    Scenario,
    abuse_ids,
    adversarial_pieces,
    for_each_example,
    scenarios,
)
from ..targets import Target, load_target, load_tools
from ..targets.origin import TraceRequest
from ..tools import ToolRegistry
from .checks import get_checks
from .config import FuzzConfig, auto_dispatcher, operator_seed, require_applicable
from .corpus import Finding, iter_corpus, save_finding
from .coverage import Coverage
from .events import EventSink, ExamplesRan, FindingFound, RunFinished, RunStarted
from .example import examine, to_finding
from .results import OperatorStats, RunSummary, distinct
from .search import search

__all__ = [
    "FAST_CHECKS",
    "ExploreConfig",
    "ExploreResult",
    "build_pool",
    "explore",
    "explore_parallel",
    "explore_summary",
]

FAST_CHECKS = (
    "no-wrong-call", "no-unvalidated-call", "no-hijacked-answer", "no-crash", "bounded-time",
    "no-fabricated-observation", "no-silent-drop", "right-rejection",
)
"""The checks exploration runs per scenario (the ones that need no second parse)."""


@dataclass
class ExploreConfig:
    """What to explore and how long."""

    target: str
    format: str = "bracket"
    dispatcher: str = "auto"
    tools: str = "default"
    seed: int = 0
    scenarios: int = 20_000
    pool_per_operator: int = 40
    abuses: list[str] | None = None
    max_insertions: int = 3
    corpus: str | None = None
    shrink_examples: int = 60
    time_limit: float = 1.0
    cwd: str | None = None
    shrink: bool = True
    """``False`` only counts failing scenarios: no findings are made (the bench times the
    loop alone)."""
    guided: bool = False
    """Trace every parse and keep the mutations that reach new lines of the target's code
    as bases to mutate further (see the module docstring)."""
    batch: int = 64
    """Scenarios drawn, then parsed in one ``run_many`` (one round trip to a worker
    process), then judged; the run is the same for any batch size."""


@dataclass
class ExploreResult:
    """What exploration found, and how fast it ran."""

    seed: int
    target: str
    scenarios: int = 0
    pool: int = 0
    pool_seconds: float = 0.0
    loop_seconds: float = 0.0
    loop_cpu: float = 0.0
    """CPU seconds of the thread that ran the loop (a worker process's are not in it)."""
    shrink_seconds: float = 0.0
    findings: list[Finding] = field(default_factory=list)
    failing: int = 0
    lines_reached: int = 0
    """Lines of the target's code the traced parses reached (``guided`` only)."""
    lines_total: int = 0
    """Executable lines in the files those parses ran through (``guided`` only)."""
    favoured: int = 0
    """Mutations kept because they reached new lines (``guided`` only)."""
    coverage: str = ""
    """The coverage in words (``guided`` only)."""

    @property
    def rate(self) -> float:
        """Scenarios per second in the fast loop (pool building and shrinking excluded)."""
        return self.scenarios / self.loop_seconds if self.loop_seconds else 0.0


def build_pool(registry: ToolRegistry, fmt: Format, abuses: list[str], per_operator: int,
               seed: int) -> list[Scenario]:
    """Base scenarios from every operator (Hypothesis generation only, seeded)."""
    pool: list[Scenario] = []
    for abuse in abuses:
        try:
            for_each_example(scenarios(registry, fmt, abuses=[abuse]), pool.append,
                             examples=per_operator, seed=operator_seed(seed, "pool", abuse))
        except Unsatisfiable:  # the tools lack what this operator needs
            continue
    return pool



def _thought_slots(text: str, fmt: Format) -> list[int]:
    """Offsets strictly inside thought lines (never at a line start, never in the action)."""
    labels = [w for w in (fmt.labels.action, fmt.labels.answer, fmt.labels.action_input) if w]
    end = len(text)
    for w in labels:
        m = re.search(rf"(?m)^{re.escape(w)}", text)
        if m is not None:
            end = min(end, m.start())
    slots: list[int] = []
    pos = 0
    for line in text[:end].split("\n"):
        if len(line) > 1:
            slots.extend(range(pos + 1, pos + len(line) + 1))
        pos += len(line) + 1
    return [s for s in slots if s < end]


def _safe_pieces(fmt: Format) -> list[str]:
    """Pieces that cannot change what a completion means when put inside a thought line."""
    out = []
    for p in adversarial_pieces(fmt):
        if "\n" in p or any(s in p or p in s for s in fmt.stop if s.strip()):
            continue
        out.append(p)
    return out


def _mutate(rng: random.Random, sc: Scenario, pieces: list[str], fmt: Format,
            max_insertions: int, kept: list[tuple[int, str]] | None = None,
            ) -> tuple[Scenario, list[tuple[int, str]]]:
    """New pieces at thought slots of the base ``sc``, beside the ``kept`` ones of a
    favoured mutation (every insert is an offset of the base's own text)."""
    slots = _thought_slots(sc.completion, fmt)
    if not slots:
        return sc, list(kept or [])
    inserts = sorted(
        [*(kept or []),
         *((rng.choice(slots), rng.choice(pieces))
           for _ in range(rng.randint(1, max_insertions)))],
        reverse=True,
    )
    return _apply(sc, inserts), inserts


def _apply(sc: Scenario, inserts: list[tuple[int, str]]) -> Scenario:
    text = sc.completion
    for at, piece in inserts:  # right to left, so earlier offsets stay valid
        text = text[:at] + piece + text[at:]
    return replace(sc, completion=text, raw=text)


@pinned
def explore(config: ExploreConfig, emit: EventSink | None = None) -> ExploreResult:
    """Run the fast loop for ``config.scenarios`` scenarios; returns findings and speed."""
    emit = emit or (lambda e: None)
    fmt = get_format(config.format)
    registry = load_tools(config.tools)
    dispatcher = auto_dispatcher(config.target) if config.dispatcher == "auto" \
        else config.dispatcher
    require_applicable(config.abuses, fmt)
    wanted = config.abuses if config.abuses is not None else abuse_ids(fmt)
    wanted = [a for a in wanted if ABUSES[a].applies_to(fmt)]
    checks = get_checks(list(FAST_CHECKS))
    result = ExploreResult(config.seed, config.target)
    target: Target = load_target(config.target, fmt, timeout=config.time_limit, cwd=config.cwd)
    try:
        t0 = time.perf_counter()
        pool = build_pool(registry, fmt, wanted, config.pool_per_operator, config.seed)
        if config.corpus:
            for _, f in iter_corpus(config.corpus):
                if f.target == config.target and f.format in (fmt.name, fmt.source):
                    intent = f.intent.intent()
                    pool.append(Scenario(fmt.name, f.abuse, intent, f.completion, f.completion,
                                         f.acceptable.acceptable(intent, registry)))
        result.pool = len(pool)
        result.pool_seconds = time.perf_counter() - t0
        emit(RunStarted(config.seed, (config.target,), fmt.name, dispatcher, len(wanted),
                        len(checks), pool=len(pool)))
        rng = random.Random(config.seed)
        pieces = _safe_pieces(fmt)
        coverage = Coverage()
        # guided: mutations that reached new lines, as (base, inserts) to mutate further
        favoured: list[tuple[Scenario, list[tuple[int, str]]]] = []
        # candidates per (check, kind, operator); whose fault they are is settled later
        failing: dict[tuple[str, str, str], list[tuple[Scenario, list[tuple[int, str]]]]] = {}
        t1, c1 = time.perf_counter(), time.thread_time()
        batch = max(1, config.batch)
        for first in range(0, config.scenarios, batch):
            drawn = []
            for _ in range(min(batch, config.scenarios - first)):
                if config.guided and favoured and rng.random() < 0.5:
                    # the newer a kept mutation, the deeper it went: the likelier drawn
                    n = len(favoured)
                    base, kept = favoured[max(rng.randrange(n), rng.randrange(n))]
                    sc, inserts = _mutate(rng, base, pieces, fmt, config.max_insertions, kept)
                else:
                    base = pool[rng.randrange(len(pool))]
                    sc, inserts = (base, []) if rng.random() < 0.25 else _mutate(
                        rng, base, pieces, fmt, config.max_insertions)
                drawn.append((base, sc, inserts))
            texts = [TraceRequest(sc.completion) if config.guided else sc.completion
                     for _, sc, _ in drawn]
            parsed = target.run_many(texts)
            for i, ((base, sc, inserts), res) in enumerate(zip(drawn, parsed), first):
                if (config.guided and res.origin is not None
                        and coverage.add(res.origin.path) and inserts):
                    favoured.append((base, inserts))
                ex = examine(sc, target, fmt, registry, dispatcher, checks,
                             time_limit=config.time_limit, attribute=False, parsed=res)
                if ex.failure is not None:
                    result.failing += 1
                    cands = failing.setdefault((ex.check or "", ex.failure.kind, sc.abuse), [])
                    if len(cands) < 4:
                        cands.append((base, inserts))
                if i % 5000 == 4999:
                    emit(ExamplesRan(config.target, "", i + 1, result.failing))
        result.scenarios = config.scenarios
        result.loop_seconds = time.perf_counter() - t1
        result.loop_cpu = time.thread_time() - c1
        if config.guided:
            result.lines_reached, result.lines_total = coverage.totals(config.cwd)
            result.favoured = len(favoured)
            result.coverage = coverage.describe(config.cwd)
        t2 = time.perf_counter()
        for (check_id, kind, abuse), cands in failing.items() if config.shrink else ():
            finding = None
            for base, inserts in cands:
                finding = _shrink(check_id, kind, abuse, base, inserts, target, fmt,
                                  registry, dispatcher, config)
                if finding is not None:
                    break
            if finding is not None and all(f.dedup_key() != finding.dedup_key()
                                           for f in result.findings):
                result.findings.append(finding)
                path = save_finding(finding, config.corpus) if config.corpus else None
                emit(FindingFound(finding, str(path) if path else None))
        result.shrink_seconds = time.perf_counter() - t2
    finally:
        target.close()
    emit(RunFinished(len(result.findings), 0, result.scenarios, round(result.loop_seconds, 3)))
    return result


def _shrink(check_id: str, kind: str, abuse: str, base: Scenario,
            inserts: list[tuple[int, str]], target: Target, fmt: Format,
            registry: ToolRegistry, dispatcher: str, config: ExploreConfig) -> Finding | None:
    checks = get_checks([check_id])

    def fails(ins: list[tuple[int, str]]) -> bool:
        ex = examine(_apply(base, ins), target, fmt, registry, dispatcher, checks,
                     time_limit=config.time_limit)
        return ex.failure is not None and ex.failure.kind == kind and ex.failure.cause == "design"

    if not fails(inserts):
        return None  # not the design's fault (the protocol's), or not reproducible
    if not inserts or fails([]):
        # the base alone fails: hand it to Hypothesis, whose search of the operator shrinks it
        fz = FuzzConfig(targets=[config.target], format=fmt.name, dispatcher=dispatcher,
                        checks=[check_id], max_examples=config.shrink_examples,
                        time_limit=config.time_limit)
        stats = OperatorStats(config.target, abuse)
        recorded = search(target, config.target, fmt, registry, dispatcher, checks, abuse, fz,
                           operator_seed(config.seed, config.target, abuse), None,
                           lambda e: None, stats)
        for (c, k, cause, _signature), ex in recorded.items():
            if c == check_id and k == kind and cause == "design":
                return to_finding(ex, config.target, fmt, dispatcher, config.tools, config.seed,
                                True)
        ex = examine(base, target, fmt, registry, dispatcher, checks,
                     time_limit=config.time_limit)
        return to_finding(ex, config.target, fmt, dispatcher, config.tools, config.seed, False) \
            if ex.failure is not None else None
    # delta debugging over the inserted pieces: drop each one that is not needed
    kept = list(inserts)
    changed = True
    while changed:
        changed = False
        for piece in list(kept):
            trial = [p for p in kept if p is not piece]
            if fails(trial):
                kept = trial
                changed = True
    ex = examine(_apply(base, kept), target, fmt, registry, dispatcher, checks,
                 time_limit=config.time_limit)
    if ex.failure is None:
        return None
    return to_finding(ex, config.target, fmt, dispatcher, config.tools, config.seed, True)


def _explore_worker(config: ExploreConfig) -> ExploreResult:
    return explore(config)


def _init_explore_worker() -> None:
    """Signals are the parent's business: a Ctrl-C stops the parent, which ends the pool
    with SIGTERM, and a worker ends on it without the handler it inherited."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def explore_parallel(config: ExploreConfig, workers: int,
                     emit: EventSink | None = None) -> list[ExploreResult]:
    """Exploration over ``workers`` processes with disjoint seeds (seed, seed+1, ...)."""
    import multiprocessing as mp

    if workers <= 1:
        return [explore(config, emit)]
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    configs = [replace(config, seed=config.seed + i) for i in range(workers)]
    with ctx.Pool(workers, initializer=_init_explore_worker) as pool:
        results = pool.map(_explore_worker, configs)
    if emit is not None:
        for r in results:
            for f in r.findings:
                emit(FindingFound(f, None))
    return results


def explore_summary(config: ExploreConfig, results: list[ExploreResult], *,
                    dispatcher: str | None = None) -> RunSummary:
    """One run summary for explorations (one per worker): their findings without repeats,
    the scenarios they ran and the longest fast loop's time."""
    return RunSummary(
        seed=config.seed, targets=[config.target], format=config.format,
        dispatcher=dispatcher or config.dispatcher, tools=config.tools,
        checks=list(FAST_CHECKS), abuses=[],
        findings=distinct([f for r in results for f in r.findings]),
        examples=sum(r.scenarios for r in results),
        elapsed=max((r.loop_seconds for r in results), default=0.0),
        corpus_dir=config.corpus,
    )
