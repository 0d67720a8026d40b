"""The fast exploration mode: scenarios at close to the parsers' own speed.

Hypothesis pays a per-example floor (hundreds of microseconds) that dwarfs a regex parse
(about a microsecond). Exploration pays it once per *base* scenario: it draws a pool from
the same abuse operators (generation only, seeded), adds the corpus members, and then runs
a seeded ``random.Random`` loop that takes a base and mutates its thought -- inserting the
format's adversarial pieces in the middle of thought lines, where they must not change
what the completion means, so the base's oracle still holds. So a mutation that parses
as an earlier mutation of its base did (the thought aside) is judged as that one was, in
a dictionary lookup; the loop only asks whether a scenario fails, and keys the few it
keeps by bug (where the parser decided) afterwards. A batch goes to the target as
bases and inserts (:mod:`.mutation`): a user's parser in a worker process gets each
base's text once, builds the mutations itself, and answers a return value it has read
before with a repeat (:mod:`reactfuzz.targets.repeats`), which the loop judges from its
cache without a result being made. With ``guided``, every parse
runs under the line tracer and a mutation whose parse reached a line of the target's code
no earlier parse did is kept and mutated further (half of the draws), so the search
climbs into branches that need several pieces at once. Each bug is shrunk once,
within a budget (half the loop's time by default): a failing base by its operator's own
Hypothesis search (once per operator), a failing mutation by removing inserted pieces
until none can go. Every finding reproduces from its corpus file, and which bugs a run
finds from its seed (which of them the budget let shrink depends on the machine).
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis.errors import Unsatisfiable

from .._determinism import pinned
from ..formats import Format
from ..strategies import (
    ABUSES,
    Scenario,
    for_each_example,
    scenarios,
)
from ..targets import ParseResult, Target, load_target
from ..targets.base import Repeat, apply_edit
from ..targets.origin import TraceRequest
from ..targets.repeats import CPU_TIMED
from ..tools import ToolRegistry
from .checks import fast_checks
from .config import FuzzConfig, Plan, operator_seed, require_applicable, resolve
from .corpus import Finding, iter_corpus, merge_by_root, save_finding
from .coverage import Coverage
from .events import EventSink, ExamplesRan, FindingFound, RunFinished, RunStarted
from .example import examine
from .growth import GROWTH_FLOOR, worked
from .mutation import (
    TRACE_MAX_CHARS,
    Slots,
    apply_inserts,
    draw_inserts,
    inserts_drawer,
    safe_pieces,
)
from .pool import map_unordered
from .results import RunSummary, distinct
from .search import FailureKey
from .shrinking import Group, ShrinkBudget, Shrinker, settle_bugs

__all__ = [
    "FAST_CHECKS",
    "ExploreConfig",
    "ExploreResult",
    "build_pool",
    "explore",
    "explore_parallel",
    "explore_summary",
    "pool_size",
]

FAST_CHECKS = fast_checks()
"""The built-in checks exploration runs per scenario (the ones that need no second parse):
those registered ``fast``. A run asks :func:`~.checks.fast_checks`, which also holds a
plugin's checks registered ``fast`` after this module was imported."""

SHRINK_PARSES_FLOOR = 500
SHRINK_PARSES_SHARE = 0.01
"""Shrinking spends at most this many parses plus this share of the scenarios explored
(unless the run says otherwise): the bugs left then keep their shortest example, unshrunk.
Counted, not timed, so a seed gives the same findings on any machine, loaded or not."""

SHRINK_SHARE = 0.5
SHRINK_FLOOR = 2.0
"""A safety cap on shrinking's wall time, this share of the loop's time plus these seconds:
only a parser far slower while shrinking than in the loop meets it first (the run then
says so, as its findings may differ from another machine's)."""

GUIDED_BATCH = 64
"""The default batch of a guided run: a mutation that reached new lines is drawn from
only by later batches."""


@dataclass
class ExploreConfig:
    """What to explore and how long."""

    target: str
    format: str = "bracket"
    dispatcher: str = "auto"
    tools: str = "default"
    seed: int = 0
    scenarios: int = 20_000
    pool_per_operator: int | None = None
    """Bases drawn per operator; ``None``: one per thousand scenarios, 8 to 40 (a base is
    mutated about twenty times; a larger pool found no more bugs, and costs a Hypothesis
    example a base)."""
    abuses: list[str] | None = None
    max_insertions: int = 3
    corpus: str | None = None
    shrink_examples: int = 60
    shrink_budget: float | None = None
    """Seconds of shrinking at most; ``None``: half the loop's time plus 2 seconds
    (:data:`SHRINK_SHARE`, :data:`SHRINK_FLOOR`); ``math.inf``: every bug, however long
    (no parse count either); ``0``: none shrunk."""
    shrink_parses: int | None = None
    """Parses shrinking may spend; ``None``: :data:`SHRINK_PARSES_FLOOR` plus
    :data:`SHRINK_PARSES_SHARE` of the scenarios."""
    shrink_limit: int | None = None
    """Bugs shrunk at most (in the order met); the others keep their shortest example."""
    checks: list[str] | None = None
    """The checks to run per scenario: those registered ``fast`` among these (all of them
    when ``None``)."""
    known: frozenset[FailureKey] = frozenset()
    """Bugs (check, kind, cause, signature) found already: not reported again."""
    time_limit: float = 1.0
    cwd: str | None = None
    shrink: bool = True
    """``False`` only counts failing scenarios: no findings are made (the bench times the
    loop alone)."""
    guided: bool = False
    """Trace every parse and keep the mutations that reach new lines of the target's code
    as bases to mutate further (see the module docstring)."""
    batch: int | None = None
    """Scenarios drawn, then parsed in one round trip to a worker process, then judged;
    ``None``: the target's :attr:`~reactfuzz.targets.Target.batch` (:data:`GUIDED_BATCH`
    for a guided run, whose draws follow what earlier batches reached). Unless a parse
    runs slow, the run is the same for any batch size."""


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
    unshrunk: int = 0
    shrink_capped: bool = False
    """Whether the wall-time cap, not the parse count, ended shrinking (see
    :data:`SHRINK_SHARE`): then the findings may differ on another machine."""
    """Findings left with their shortest example because the shrinking budget ran out."""
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


def _prepare(config: ExploreConfig) -> tuple[Plan, list[str]]:
    """The exploration's plan (:func:`~.config.resolve`: its fast checks among those
    asked for) and the operators that apply to its format."""
    plan = resolve(FuzzConfig(
        targets=[config.target], format=config.format, dispatcher=config.dispatcher,
        tools=config.tools, abuses=config.abuses, seed=config.seed, cwd=config.cwd,
        checks=[c for c in fast_checks() if config.checks is None or c in config.checks]))
    require_applicable(config.abuses, plan.fmt)
    return plan, [a for a in plan.abuses if ABUSES[a].applies_to(plan.fmt)]


def pool_size(config: ExploreConfig) -> int:
    """The bases drawn per operator for ``config`` (see ``pool_per_operator``)."""
    if config.pool_per_operator is not None:
        return config.pool_per_operator
    return min(40, max(8, config.scenarios // 1000))


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



def _fingerprint(res: ParseResult, slow: float) -> Hashable | None:
    """What the checks of one base's mutations depend on in a parse: the Step without its
    thought (a mutation only adds to the thought), or what the parser raised. ``None`` for
    a parse that timed out or was slow (its time is part of what is judged)."""
    if _is_slow(res, slow):
        return None
    step = res.step
    if step is None:
        return ("raised", (res.error or "").partition(":")[0])
    key: Hashable = (step.action, step.answer, step.invalid)
    try:
        hash(key)
    except TypeError:  # arguments a parser decoded into lists or dicts
        key = repr(key)
    return key


def _coarse(res: ParseResult) -> tuple[str, ...]:
    """How a failing parse went, coarsely: what sets apart the candidates kept per check,
    failure kind and operator (several bugs may share those three)."""
    if res.step is None:
        return ("timeout",) if res.timed_out else ("raised", (res.error or "").partition(":")[0])
    step = res.step
    if step.action is not None:
        return ("action", step.action.tool)
    return ("answer",) if step.invalid is None else ("invalid", step.invalid.code)


def _again(known: ParseResult, elapsed: float, cpu: float | None) -> ParseResult:
    """``known`` with the timing of the parse that repeated it."""
    return ParseResult(known.step, known.error, False, elapsed, known.origin, cpu)


_UNJUDGED: list[Any] = []  # a key not in the loop's verdicts yet


@pinned
def explore(config: ExploreConfig, emit: EventSink | None = None,
            shared: tuple[list[Scenario], float] | None = None,
            target: Target | None = None) -> ExploreResult:
    """Run the fast loop for ``config.scenarios`` scenarios; returns findings and speed.

    ``shared`` is a pool already built for this config (and the seconds it took): workers
    of one exploration draw from one pool, built once, and a fuzz run's guided phase from
    the scenarios its searches generated. ``target`` is the target already loaded (the
    caller closes it)."""
    emit = emit or (lambda e: None)
    plan, wanted = _prepare(config)
    fmt, registry, checks = plan.fmt, plan.registry, plan.checks
    dispatcher = plan.dispatchers[config.target]
    result = ExploreResult(config.seed, config.target)
    owned = target is None
    if target is None:
        target = load_target(config.target, fmt, timeout=config.time_limit, cwd=config.cwd)
    try:
        t0 = time.perf_counter()
        pool = list(shared[0]) if shared is not None else \
            build_pool(registry, fmt, wanted, pool_size(config), config.seed)
        if config.corpus:
            for _, f in iter_corpus(config.corpus):
                if f.target == config.target and f.format in (fmt.name, fmt.source):
                    intent = f.intent.intent()
                    pool.append(Scenario(fmt.name, f.abuse, intent, f.completion, f.completion,
                                         f.acceptable.acceptable(intent, registry)))
        result.pool = len(pool)
        result.pool_seconds = shared[1] if shared is not None else time.perf_counter() - t0
        emit(RunStarted(config.seed, (config.target,), fmt.name, dispatcher, len(wanted),
                        len(checks), pool=len(pool)))
        rng = random.Random(config.seed)
        pieces = safe_pieces(fmt)
        coverage = Coverage()
        # guided: mutations that reached new lines, as (base, inserts) to mutate further
        favoured: list[tuple[_Base, list[tuple[int, str]]]] = []
        # a few candidates per way of failing; which bug each is, is settled after the loop
        failing: dict[Group, list[tuple[Scenario, list[tuple[int, str]]]]] = {}
        counts: dict[Group, int] = {}
        # per way of failing: [failing scenarios, up to two (base, inserts) candidates]
        tallies: dict[Group, list[Any]] = {}
        # what each repeat a target answered with stands for: its fingerprint's number
        repeats: dict[int, tuple[int | None, ParseResult]] = {}
        # fingerprints by number: a key of two numbers hashes faster than a Step's fields
        fingerprints: dict[Hashable, int] = {}

        def numbered(fp: Hashable) -> int:
            """The fingerprint's number (a new one the first time it is met)."""
            n = fingerprints.get(fp)
            if n is None:
                n = fingerprints[fp] = len(fingerprints)
            return n

        below = getattr(rng, "_randbelow", rng.randrange)  # what randrange(n) calls
        random_, guided = rng.random, config.guided
        draw = inserts_drawer(rng, pieces, config.max_insertions)
        slow = GROWTH_FLOOR * config.time_limit
        quick = min(slow, CPU_TIMED)  # a repeat this quick needs no timing to be judged
        # bases whose parse (or a mutation's) was slow: the time check has its candidate,
        # and more of them would spend the run at the time limit (a backtracking parser)
        slow_bases: set[_Base] = set()
        # the bases one parse shows slow run first, once each and unmutated, then leave
        t_screen = time.perf_counter()
        screened, first_pool = _screen(pool, target, slow, quick)
        bases, first_run = [_Base(b) for b in screened], [_Base(b) for b in first_pool]
        result.pool_seconds += time.perf_counter() - t_screen  # part of making the pool
        ran = 0
        t1, c1 = time.perf_counter(), time.thread_time()
        batch = max(1, config.batch if config.batch is not None
                    else GUIDED_BATCH if config.guided else target.batch)
        for first in range(0, config.scenarios, batch):
            if slow_bases:
                bases = [b for b in bases if b not in slow_bases]
                favoured = [f for f in favoured if f[0] not in slow_bases]
                slow_bases.clear()
                if not bases:
                    break
            n_bases = len(bases)
            # the draws: which base, and the pieces its mutation inserts (none: the base)
            drawn: list[_Base] = []
            edits: list[tuple[str, list[tuple[int, str]]]] = []
            for _ in range(min(batch, config.scenarios - first)):
                if first_run:
                    base, inserts = first_run.pop(), []
                elif guided and favoured and rng.random() < 0.5:
                    # the newer a kept mutation, the deeper it went: the likelier drawn
                    n = len(favoured)
                    base, kept = favoured[max(rng.randrange(n), rng.randrange(n))]
                    inserts = draw_inserts(rng, pieces, config.max_insertions,
                                           base.slots or base.read_slots(fmt), kept)
                else:
                    base = bases[below(n_bases)]  # rng.randrange(len(bases))
                    inserts = [] if random_() < 0.25 else draw(
                        base.slots or base.read_slots(fmt))
                drawn.append(base)
                edits.append((base.text, inserts))
            if config.guided:
                # a traced parse costs in proportion to the lines it runs: a 16 kB text of
                # a size operator through a pure-Python parser takes seconds, so long texts
                # are parsed untraced (what they reach is not counted)
                texts = [apply_edit(e) for e in edits]
                parsed: list[ParseResult | Repeat] = list(target.run_many(
                    [TraceRequest(t) if len(t) <= TRACE_MAX_CHARS else t for t in texts]))
            else:
                # the texts are built where they are parsed (a worker, for a user's parser)
                # a repeat quicker than that comes back as its bare index: not slow
                parsed = target.run_edits(edits, quick)
            ran += len(drawn)
            res: ParseResult | None
            for i, (base, (_, inserts), got) in enumerate(zip(drawn, edits, parsed), first):
                # a parse that gave what an earlier one gave: its index (and timing)
                if type(got) is int:
                    index, elapsed, cpu = got, 0.0, None  # timed below ``quick``
                elif type(got) is tuple:
                    index, elapsed, cpu = got
                else:
                    index, res = -1, got  # type: ignore[assignment]
                if index >= 0:
                    memo = repeats.get(index)
                    if memo is None:
                        known = target.repeated(index)
                        fp = _fingerprint(known if not _is_slow(known, slow)
                                          else replace(known, elapsed=0.0, cpu=None), slow)
                        memo = repeats[index] = (None if fp is None else numbered(fp), known)
                    fpn, known = memo
                    res = (None if _took(elapsed, cpu) < slow
                           else _again(known, elapsed, cpu))
                if res is not None:
                    if (guided and res.origin is not None
                            and coverage.add(res.origin.path)):
                        # a base that reached new lines on its own is a stepping stone
                        # too: kept, no later mutation of another base reaching the same
                        # lines is
                        favoured.append((base, inserts))
                    fp = _fingerprint(res, slow)
                    fpn = None if fp is None else numbered(fp)
                    if _is_slow(res, slow):
                        slow_bases.add(base)
                # what the base's mutations made of each distinct parse: a mutation only
                # adds to the thought, so one that parses as an earlier one of its base
                # is judged as it was
                group = base.judged.get(fpn, _UNJUDGED) if fpn is not None else _UNJUDGED
                if group is _UNJUDGED:
                    if res is None:
                        res = _again(known, elapsed, cpu)
                    sc = base.scenario
                    ex = examine(apply_inserts(sc, inserts) if inserts else sc, target, fmt,
                                 registry, dispatcher, checks, time_limit=config.time_limit,
                                 attribute=False, parsed=res, keyed=False)
                    # how it failed: check, failure kind, operator and how the parse went
                    group = None if ex.failure is None else tallies.setdefault(
                        (ex.check or "", ex.failure.kind, sc.abuse, *_coarse(res)), [0])
                    if fpn is not None:
                        base.judged[fpn] = group
                if group is not None:
                    result.failing += 1
                    group[0] += 1
                    if len(group) < 3:  # the first two candidates of the way of failing
                        group.append((base.scenario, inserts))
                if i % 5000 == 4999:
                    emit(ExamplesRan(config.target, "", i + 1, result.failing))
        result.scenarios = ran
        for way, (count, *first_two) in tallies.items():
            counts[way], failing[way] = count, first_two
        result.loop_seconds = time.perf_counter() - t1
        result.loop_cpu = time.thread_time() - c1
        if config.guided:
            result.lines_reached, result.lines_total = coverage.totals(config.cwd)
            result.favoured = len(favoured)
            result.coverage = coverage.describe(config.cwd)
        t2 = time.perf_counter()
        if config.shrink:
            # the budget counts from here: keying the candidates is part of it
            budget = ShrinkBudget.for_run(config, ran, result.loop_seconds)
            bugs = settle_bugs(failing, counts, target, fmt, registry, dispatcher, config)
            shrinker = Shrinker(target, fmt, registry, dispatcher, config, checks,
                                 budget=budget)
            for n, (bug_key, bug) in enumerate(bugs.items()):
                if config.shrink_limit is not None and n >= config.shrink_limit:
                    budget.parses = 0  # the rest keep their shortest example
                finding = shrinker.finding(bug_key, bug)
                result.unshrunk += not finding.shrunk and finding.failure != "timeout"
                _add_finding(result, finding, config, emit)
            result.shrink_capped = budget.capped
        result.shrink_seconds = time.perf_counter() - t2
    finally:
        if owned:
            target.close()
    emit(RunFinished(len(result.findings), 0, result.scenarios, round(result.loop_seconds, 3)))
    return result


def _took(elapsed: float, cpu: float | None) -> float:
    """A parse's time as the time check reads it: its CPU time where it :func:`worked`
    (a loaded machine stretches the wall clock, not that), else its wall time (a parser
    that sleeps or waits spends next to no CPU and is still slow)."""
    return cpu if cpu is not None and worked(elapsed, cpu) else elapsed


def _is_slow(res: ParseResult | Repeat, slow: float) -> bool:
    """Whether a parse timed out or took ``slow`` seconds (:func:`_took`: of CPU where it
    worked, so a loaded machine does not make a base slow); a bare repeat was quicker."""
    if type(res) is int:
        return False
    if type(res) is tuple:
        _, elapsed, cpu = res
        return _took(elapsed, cpu) >= slow
    assert isinstance(res, ParseResult)
    return res.timed_out or _took(res.elapsed, res.cpu) >= slow


def _screen(pool: list[Scenario], target: Target, slow: float,
            quick: float) -> tuple[list[Scenario], list[Scenario]]:
    """The pool without its slow bases, and those (in reverse, to pop): one parse of each
    base, untraced, finds them before any is mutated. A base that makes the parser
    backtrack would make most of its mutations run to the time limit, each a second or
    more on a real parser; once, unmutated, it still gives the time check its candidate.
    The bases go as edits with nothing inserted, so that a worker reads each base's
    parse here once and answers the loop's later ones as repeats of it."""
    parsed = target.run_edits([(b.completion, ()) for b in pool], quick) if pool else []
    slowed = [_is_slow(r, slow) for r in parsed]
    fast = [b for b, late in zip(pool, slowed) if not late]
    if not fast:
        return pool, []
    return fast, [b for b, late in zip(pool, slowed) if late][::-1]


class _Base:
    """A base of the pool as the loop keeps it: its scenario and text, its slots (read on
    its first mutation), and what each distinct parse of its mutations was judged, by
    fingerprint number (a way of failing, or ``None``): one look-up a scenario."""

    __slots__ = ("judged", "scenario", "slots", "text")

    def __init__(self, scenario: Scenario) -> None:
        self.scenario, self.text = scenario, scenario.completion
        self.slots: Slots | None = None
        self.judged: dict[int, list[Any] | None] = {}

    def read_slots(self, fmt: Format) -> Slots:
        """The base's slots, read now (once: a base keeps them)."""
        self.slots = Slots(self.text, fmt)
        return self.slots


def _add_finding(result: ExploreResult, finding: Finding, config: ExploreConfig,
                 emit: EventSink) -> None:
    """Keep ``finding``, merged into the one of its root cause if there is one (its file is
    then rewritten), and save it."""
    if merge_by_root(result.findings, finding, config.corpus):
        return
    result.findings.append(finding)
    path = save_finding(finding, config.corpus) if config.corpus else None
    emit(FindingFound(finding, str(path) if path else None))


_SHARED_POOL: tuple[list[Scenario], float] | None = None
"""The pool a parallel exploration built before forking its workers (they inherit it)."""


def _explore_worker(config: ExploreConfig) -> ExploreResult:
    return explore(config, shared=_SHARED_POOL)


def _init_explore_worker() -> None:
    """Signals are the parent's business: a Ctrl-C stops the parent, which ends the pool
    with SIGTERM, and a worker ends on it without the handler it inherited."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def explore_parallel(config: ExploreConfig, workers: int,
                     emit: EventSink | None = None) -> list[ExploreResult]:
    """Exploration over ``workers`` processes with disjoint loop seeds (seed, seed+1, ...),
    drawing from one pool built here once (where processes fork; each builds its own, of
    its own seed, where they cannot)."""
    import multiprocessing as mp

    global _SHARED_POOL
    if workers <= 1:
        return [explore(config, emit)]
    forks = "fork" in mp.get_all_start_methods()
    ctx = mp.get_context("fork") if forks else mp.get_context()
    configs = [replace(config, seed=config.seed + i) for i in range(workers)]
    if forks:
        plan, wanted = _prepare(config)  # tools read as each worker reads them (cwd)
        t0 = time.perf_counter()
        _SHARED_POOL = (build_pool(plan.registry, plan.fmt, wanted, pool_size(config),
                                   config.seed), time.perf_counter() - t0)
    try:
        # not daemonic: a module:function target starts its own worker in each
        results = map_unordered(ctx, workers, _explore_worker, configs,
                                initializer=_init_explore_worker)
    finally:
        _SHARED_POOL = None
    # in seed order (they come back in the order they end)
    results.sort(key=lambda r: r.seed if isinstance(r, ExploreResult) else 0)
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
        checks=list(fast_checks()), abuses=[],
        findings=distinct([f for r in results for f in r.findings]),
        examples=sum(r.scenarios for r in results),
        elapsed=max((r.loop_seconds for r in results), default=0.0),
        corpus_dir=config.corpus,
    )
