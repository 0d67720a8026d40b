"""The measurements of ``reactfuzz bench`` and the table they print.

:func:`run_bench` times parsers, generators and the engine side by side in alternating
rounds of equal-length passes on CPU time (:mod:`.timing`) and returns
:class:`BenchResult` rows, each a median with the wall time beside it, its ratio to an
in-run reference and the target it is held to; :func:`render_bench` prints them after
one line saying what the machine was and how loaded it was.
"""

from __future__ import annotations

import gc
import os
import platform
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from hypothesis import strategies as st

from .timing import (
    PASS_CPU,
    Side,
    Timing,
    alternate,
    children_cpu,
    repeat,
    worker_cpu,
)
from .workloads import TEXT, read_completions, realistic_runs

if TYPE_CHECKING:
    from ..designs import Design
    from ..strategies import Scenario
    from ..tools import ToolRegistry

__all__ = ["BenchResult", "BenchRow", "render_bench", "run_bench"]

_X = TypeVar("_X")
ACTION_RE = re.compile(r"^Action:\s*(\w+)\[(.*)\]\s*$", re.MULTILINE)

RUN_EXAMPLES = 300
"""Examples in each Hypothesis run of the pipeline comparison, on every side alike."""

RUNS = {"composite": 3, "pipeline": 2, "pipeline, size too": 2, "floor": 10}
"""Hypothesis runs in every pass of each side of the pipeline comparison: fixed, chosen
from the sides' CPU costs so that each pass takes about 0.6 s of CPU.

A Hypothesis side cannot be calibrated in each run the way a parser is. Its examples
differ, and which ones a pass draws depends on how many it draws: a count calibrated
afresh timed a different sample in each run (the pipeline came out at 1.50x the
composite with 499 examples a pass and at 1.61x with 477). And a run's examples grow
along the run, so the cost of an example depends on the length of the run it is in
(plain ``from_lark`` transcripts: 4.9 ms each over runs of 40, 6.0 ms over runs of 80).
So every run of a comparison has the same number of examples on both sides, and the
cheaper side fills its pass with more runs (the i-th run of round r is seeded
``1000 r + i``)."""

EXPLORE_OWN = 10.0
"""Exploration of a built-in target per scenario, at most this many times its own parse
(the loop's CPU: drawing, parsing, judging the parses not judged before)."""

TRANSCRIPT_EXAMPLES = 80
"""Examples in each Hypothesis run of the transcript comparison, ours and plain alike."""

TRANSCRIPT_RUNS = {"ours": 12, "plain": 1}
"""Runs in every pass of transcript generation: about half a second of CPU each (see
:data:`RUNS`)."""


@dataclass
class BenchRow:
    """One measured figure, its ratio to the in-run reference, and the target it meets.

    A time's ``value`` is CPU time (what ratios and targets are made of); ``wall`` is the
    wall time measured beside it, in the same unit (``None``: not a time).
    """

    name: str
    value: float
    unit: str
    ratio: float | None = None
    reference: str = ""
    target: str = ""
    met: bool | None = None
    note: str = ""
    wall: float | None = None


@dataclass
class BenchResult:
    """All rows of one bench run, plus how it was run."""

    rows: list[BenchRow] = field(default_factory=list)
    rounds: int = 0
    quick: bool = False
    cpu: str = ""
    cores: int = 0
    python: str = ""
    load_before: tuple[float, float, float] | None = None
    load_after: tuple[float, float, float] | None = None
    wall: float = 0.0
    pass_cpu: float = PASS_CPU
    passes: dict[str, int] = field(default_factory=dict)
    """How many items every pass of each timed side held (the same in all its passes)."""

    def machine(self) -> str:
        """One sentence: the machine, how loaded it was, and how the run was made."""

        def load(x: tuple[float, float, float] | None) -> str:
            return "unknown" if x is None else " / ".join(f"{v:.2f}" for v in x)

        return (
            f"{self.cores} cores, {self.cpu}, Python {self.python}; load average (1 / 5 / 15"
            f" min) {load(self.load_before)} before and {load(self.load_after)} after;"
            f" {self.rounds} alternating rounds of equal-length passes"
            f" ({self.pass_cpu * 1e3:g} ms of CPU each for a parser);"
            " times are medians of CPU time per item, wall time beside"
            f"{'; quick workloads' if self.quick else ''}; {self.wall:.0f} s wall."
        )


def _action_line_re(fmt: str) -> re.Pattern[str]:
    """A bare ``re`` that finds the action line of a format (``Action 1: ...`` too)."""
    from ..formats import get_format, label_pattern

    label = label_pattern([get_format(fmt).labels.action], line_start=True)
    return re.compile(label + r"[ \t]*(\S.*)$")


def _over(fn: Callable[[str], object], texts: list[str]) -> Callable[[], object]:
    """One sample of a workload: ``fn`` over every text."""
    return lambda: [fn(t) for t in texts]


def _quiet(message: str) -> None:
    """No progress reports."""


def _load() -> tuple[float, float, float] | None:
    try:
        return os.getloadavg()
    except OSError:  # pragma: no cover - not available on this platform
        return None


def _runs(strategy: st.SearchStrategy[Any], body: Callable[[Any], object],
          examples: int) -> Side:
    """A side whose item is one seeded Hypothesis run of ``examples`` examples (generation
    and ``body``, generation phase only): a pass of ``count`` runs in round ``r`` seeds
    them ``1000 r``, ``1000 r + 1``, ... (the warm-up run: a seed of its own), so the
    first run of every side of a round draws with the same seed."""
    from ..strategies import for_each_example

    def side(count: int, rnd: int) -> None:
        for i in range(count):
            seed = 1000 * rnd + i if rnd >= 0 else 10**6 + i
            for_each_example(strategy, body, examples=examples, seed=seed)

    return side


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:  # pragma: no cover - not Linux
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_bench(*, quick: bool = False, rounds: int = 7, target: str | None = None,
              fmt: str = "bracket", progress: Callable[[str], None] | None = None,
              completions: str | None = None, field: str = "text") -> BenchResult:
    """Run every measurement; ``quick`` shrinks the workloads (for tests), not the method.

    ``completions`` names a JSON Lines file of the user's own completions (the string
    under ``field`` of each line), timed with the grammar parser of ``fmt`` next to a
    bare ``re``.
    """
    from ..designs import BUILTIN_DESIGNS
    from ..engine import FuzzConfig, examine, run_fuzz
    from ..engine.explore import ExploreConfig, build_pool, explore
    from ..formats import get_format
    from ..formats.grammars import grammar_parse, lark_parser, parse_transcript
    from ..model import Call
    from ..parsers import get_parser
    from ..render import render
    from ..strategies import ABUSES, abuse_ids, scenarios, transcripts
    from ..targets import load_target
    from ..tools import default_registry

    user = read_completions(completions, field) if completions else None  # fail fast
    say = progress or _quiet
    started = time.perf_counter()
    # quick keeps every measurement but shrinks it to a test's budget: its figures check
    # that the bench runs, not how fast anything is
    k = 0.02 if quick else 1.0
    rounds = 3 if quick else rounds
    pass_cpu = PASS_CPU * (0.05 if quick else 1.0)  # of a parser side
    # examples in a Hypothesis run: quick keeps the runs a pass, not their length
    run_n, transcript_n = (10, 5) if quick else (RUN_EXAMPLES, TRANSCRIPT_EXAMPLES)
    result = BenchResult(rounds=rounds, quick=quick, cpu=os.uname().machine,
                         cores=os.cpu_count() or 1, python=platform.python_version(),
                         load_before=_load(), pass_cpu=pass_cpu)
    rows = result.rows
    bracket = get_format("bracket")
    reg = default_registry()

    # --- 1. the parsers themselves, next to a bare `re` parse -------------------------
    say("parsers")
    abuse_ops = abuse_ids(bracket)
    mix = [s.completion for s in build_pool(reg, bracket, abuse_ops, 4, 0)]
    runs = realistic_runs(6 if quick else 24)
    real = [c for cs, _ in runs for c in cs]
    whole = [t for _, t in runs]
    parsers = {n: get_parser(n, bracket) for n in
               ("classic-bracket", "classic-unanchored", "hardened-bracket", "grammar")}
    items: dict[str, Side] = {
        "bare re": repeat(lambda: ACTION_RE.search(TEXT)),
        **{f"parse {n}": repeat(partial(p.parse, TEXT)) for n, p in parsers.items()},
        "parse grammar (Lark only)": repeat(lambda: grammar_parse(TEXT, bracket, fast=False)),
    }
    others: dict[str, Callable[[], float]] = {}
    if target:
        tgt = load_target(target, get_format(fmt))
        items[f"parse {target}"] = repeat(lambda: tgt.parse(TEXT))
        reader = worker_cpu(tgt)  # a round trip to a worker: the worker's CPU counts too
        if reader is not None:
            others[f"parse {target}"] = reader
    canonical = list(items)[1:]
    # each workload: the grammar and a bare `re` over the same texts, an item being one
    # pass over all of them; whole transcripts are read with the transcript entry point
    workloads: dict[str, tuple[list[str], Callable[[str], object], str, str]] = {
        "realistic runs": (real, lambda t: grammar_parse(t, bracket), "bare re, same completions",
                           f"{len(real)} completions of {len(runs)} multi-step runs"
                           f" ({min(map(len, (cs for cs, _ in runs)))}-"
                           f"{max(map(len, (cs for cs, _ in runs)))} steps),"
                           f" {sum(map(len, real)) // len(real)} chars on average"),
        "realistic transcripts": (whole, lambda t: parse_transcript(t, bracket),
                                  "bare re findall, same transcripts",
                                  f"the same {len(runs)} runs as whole transcripts,"
                                  f" {sum(map(len, whole)) // len(whole)} chars on average"),
        "abuse mix": (mix, lambda t: grammar_parse(t, bracket), "bare re, same completions",
                      f"{len(mix)} completions: 4 of each of {len(abuse_ops)} operators"),
    }
    if user:
        theirs = get_format(fmt)
        workloads["your completions"] = (user, lambda t: grammar_parse(t, theirs),
                                         "bare re for the format, same completions",
                                         f"{len(user)} completions from {completions}"
                                         f" ({theirs.name})")
    groups = []
    for name, (texts, parse, _, _) in workloads.items():
        find = ACTION_RE.findall if name == "realistic transcripts" else ACTION_RE.search
        if name == "your completions":  # their action label (numbered or not), not ours
            find = _action_line_re(fmt).search
        items[f"re: {name}"] = repeat(_over(find, texts))
        items[f"grammar: {name}"] = repeat(_over(parse, texts))
        groups.append((f"re: {name}", f"grammar: {name}"))  # one pass length, even if long
    med = alternate(items, rounds, pass_cpu=pass_cpu, groups=groups, others=others)
    result.passes.update((k, t.count) for k, t in med.items())
    base = med["bare re"].cpu
    rows.append(BenchRow("bare re parse", base * 1e6, "us", 1.0, "itself", "", None,
                         f"the in-run reference; {med['bare re'].count:,} calls a pass",
                         wall=med["bare re"].wall * 1e6))
    for name in canonical:
        tgt_text, ok = "", None
        t = med[name]
        if name == "parse grammar":
            tgt_text, ok = "<= 20x", t.cpu / base <= 20
        how = ""
        if target and name == f"parse {target}" and getattr(tgt, "worker_pid", None):
            how = ("; its worker's CPU added" if name in others else
                   "; this process's CPU only (the worker's cannot be read here)")
        rows.append(BenchRow(name, t.cpu * 1e6, "us", t.cpu / base, "bare re", tgt_text, ok,
                             f"one canonical completion; {t.count:,} calls a pass{how}",
                             wall=t.wall * 1e6))
    for name, (texts, _, reference, note) in workloads.items():
        g, r = med[f"grammar: {name}"], med[f"re: {name}"]
        label = ("parse transcript grammar, realistic runs" if name == "realistic transcripts"
                 else f"parse grammar, {name}")
        rows.append(BenchRow(label, g.cpu / len(texts) * 1e6, "us", g.cpu / r.cpu, reference,
                             "", None, f"{note}; each pass reads them {g.count}x"
                             f" (the bare re {r.count}x)", wall=g.wall / len(texts) * 1e6))

    # --- 2. per-example costs under Hypothesis -----------------------------------------
    say("composite strategy and full pipeline")
    classic = get_parser("classic-bracket", bracket)
    composite = st.builds(
        lambda tool, args: Call(tool, tuple(args)),
        st.sampled_from(["list_invoices", "get_weather", "send_email"]),
        st.lists(st.text(st.characters(codec="ascii", categories=("L", "Nd")), min_size=1,
                         max_size=12), min_size=2, max_size=3),
    )

    def roundtrip(call: Call) -> None:
        assert classic.parse(render(call, bracket)).intent() is not None

    grammar_target = load_target("grammar", bracket)
    classic_target = load_target("classic-bracket", bracket)

    def pipeline(sc: Scenario) -> None:  # both parsers, dispatch, oracle, verdict
        examine(sc, classic_target, bracket, reg, "positional", [], attribute=False)
        examine(sc, grammar_target, bracket, reg, "typed", [], attribute=False)

    # The size operators write 16 kB texts on purpose (a super-linear parse shows only on
    # a long input): what they cost is the parsers reading them, not the pipeline, so the
    # held row leaves them out and the row beside it says what they add.
    sized = [a for a in abuse_ids(bracket) if ABUSES[a].applies_to(bracket)]
    unsized = [a for a in sized if ABUSES[a].family != "size"]
    # alternating rounds, fresh seeds each round, medians: the ratio is what counts; each
    # pass starts from a collected heap with the collector off (a full collection of a heap
    # Hypothesis has grown, falling in one pass and not another, moved a pass by a third)
    h = alternate({"composite": _runs(composite, roundtrip, run_n),
                   "pipeline": _runs(scenarios(reg, bracket, abuses=unsized), pipeline, run_n),
                   "pipeline, size too": _runs(scenarios(reg, bracket, abuses=sized),
                                               pipeline, run_n),
                   "floor": _runs(st.integers(), lambda x: None, run_n)},
                  max(3, rounds // 2 + 1), fixed=RUNS, collect=True)
    result.passes.update((f"runs of {run_n} examples: {k}", t.count) for k, t in h.items())
    comp, pipe, every, floor = (h[k] for k in ("composite", "pipeline", "pipeline, size too",
                                               "floor"))

    def per_example(t: Timing) -> tuple[float, float, str]:  # CPU, wall, the note
        return (t.cpu / run_n * 1e6, t.wall / run_n * 1e6,
                f"{t.count} run{'s' if t.count > 1 else ''} of {run_n} examples a pass")

    f_cpu, f_wall, f_how = per_example(floor)
    c_cpu, c_wall, c_how = per_example(comp)
    p_cpu, p_wall, p_how = per_example(pipe)
    e_cpu, e_wall, e_how = per_example(every)
    rows.append(BenchRow("Hypothesis per-example floor", f_cpu, "us", f_cpu / (base * 1e6),
                         "bare re", "", None, f"st.integers(), empty body; {f_how}",
                         wall=f_wall))
    rows.append(BenchRow("composite strategy reference", c_cpu, "us", 1.0, "itself", "", None,
                         f"2-3 argument call, rendered, round-trip checked; {c_how}",
                         wall=c_wall))
    ratio = p_cpu / c_cpu
    rows.append(BenchRow("full pipeline per scenario", p_cpu, "us", ratio, "composite",
                         "<= 1.5x", ratio <= 1.5,
                         f"generate, stop-cut, parse x2, dispatch, oracle, verdict;"
                         f" {len(unsized)} operators, the size family left out; {p_how}",
                         wall=p_wall))
    rows.append(BenchRow("full pipeline per scenario, size operators too", e_cpu, "us",
                         e_cpu / c_cpu, "composite", "", None,
                         f"all {len(sized)} operators: the size family's 16 kB texts cost"
                         f" their parse (Lark's above all), not the pipeline's; {e_how}",
                         wall=e_wall))

    # --- 3. transcripts -------------------------------------------------------------------
    say("transcripts")
    from hypothesis.extra.lark import from_lark

    ours: list[str] = []
    plain: list[str] = []
    plain_strategy = from_lark(lark_parser(bracket), start="transcript")
    tr = alternate({"ours": _runs(transcripts(bracket), ours.append, transcript_n),
                    "plain": _runs(plain_strategy, plain.append, transcript_n)},
                   3, fixed=TRANSCRIPT_RUNS, collect=True)
    result.passes.update((f"transcript runs of {transcript_n} examples: {k}", t.count)
                         for k, t in tr.items())
    t_ours, t_plain = tr["ours"].cpu / transcript_n, tr["plain"].cpu / transcript_n

    def accepted(xs: list[str]) -> float:
        return sum(parse_transcript(x, bracket).ok for x in xs) / len(xs) if xs else 0.0

    def texty(xs: list[str]) -> float:
        chars = "".join(xs)
        good = sum(c.isascii() and (c.isalnum() or c in " .,:[]'\"\n-_?") for c in chars)
        return good / len(chars) if chars else 0.0

    speed = t_plain / t_ours if t_ours else float("nan")
    rows.append(BenchRow("transcript generation (ours)", t_ours * 1e3, "ms", speed,
                         "plain from_lark (x faster)", ">= 10x faster", speed >= 10,
                         f"accepted {accepted(ours):.0%}, text-like chars {texty(ours):.0%};"
                         f" {tr['ours'].count} runs of {transcript_n} examples a pass",
                         wall=tr["ours"].wall / transcript_n * 1e3))
    rows.append(BenchRow("transcript generation (plain from_lark)", t_plain * 1e3, "ms", 1.0,
                         "itself", "", None,
                         f"accepted {accepted(plain):.0%}, text-like chars {texty(plain):.0%};"
                         f" {tr['plain'].count} run of {transcript_n} examples a pass",
                         wall=tr["plain"].wall / transcript_n * 1e3))

    # --- 4. examples to the first finding ---------------------------------------------------
    say("examples to first finding")
    seeds = 1 if quick else 5
    cap = 300
    for op in ABUSES.values():
        if not op.breaks or (quick and op.family not in ("injected", "malformed")):
            continue
        design = BUILTIN_DESIGNS[op.breaks[0]]
        counts = [_first_failure(reg, design, op.id, s, cap) for s in range(seeds)]
        m = statistics.median(counts)
        rows.append(BenchRow(f"first finding: {op.id}", m, "examples", None, "",
                             "<= 100", m <= 100, f"vs {design.name}; seeds {counts}"))
    for d in ("classic-bracket", "classic-unanchored"):
        design = BUILTIN_DESIGNS[d]
        counts = [_first_failure_text(reg, design, s, cap) for s in range(seeds)]
        rows.append(BenchRow(f"first finding, plain st.text(): {d}", statistics.median(counts),
                             "examples", None, "", "baseline", None,
                             f"seeds {counts} (cap {cap})"))

    # --- 5. a default fuzz run, the fast mode, memory, workers -----------------------------
    say("default fuzz run")
    # quick runs the engine on three operators: starting one Hypothesis search per
    # operator, not the examples, is what a small run costs
    ops = abuse_ops[:3] if quick else None
    which = "every operator" if ops is None else f"{len(ops)} operators"
    # the whole process's CPU (a run may use threads) and that of any process it started
    wall, cpu = time.perf_counter(), time.process_time() + children_cpu()
    run_fuzz(FuzzConfig(targets=["classic-bracket"], seed=1, corpus=None, abuses=ops,
                        max_examples=4 if quick else 60))
    cpu = time.process_time() + children_cpu() - cpu
    wall = time.perf_counter() - wall
    rows.append(BenchRow("default fuzz run, one target", cpu, "s", None, "", "<= 60 s",
                         cpu <= 60, f"classic-bracket, {which} and every check, 1 core",
                         wall=wall))
    say("fast exploration")
    ex_n = int(100_000 * k)
    gc.collect()  # the loop starts from a collected heap (its own collections it pays)
    er = explore(ExploreConfig(target="classic-bracket", scenarios=ex_n, seed=1,
                               pool_per_operator=2 if quick else 40, abuses=ops))
    per, per_wall = er.loop_cpu / er.scenarios, er.loop_seconds / er.scenarios
    own = med["parse classic-bracket"].cpu
    # an absolute rate moves with whatever else the machine runs: shown, not held
    rows.append(BenchRow("explore: scenarios per second", 1 / per, "/s", None, "",
                         "", None,
                         f"{per * 1e6:.1f} us each; {per / own:.1f}x the classic parse,"
                         f" {per / base:.0f}x bare re; not held (an absolute rate: it moves"
                         " with the machine and what else runs on it)", wall=1 / per_wall))
    rows.append(BenchRow("explore: per scenario vs the target's own parse", per / own, "x",
                         None, "", f"<= {EXPLORE_OWN:g}x", per / own <= EXPLORE_OWN,
                         f"target classic-bracket; {ex_n:,} scenarios"))
    if target:
        from .user import user_target_rows

        rows += user_target_rows(target, fmt, quick=quick, rounds=rounds, abuses=ops, say=say)
    say("memory")
    gc.collect()
    small_n, big_n = int(10_000 * k), int(100_000 * k)
    cfg = ExploreConfig(target="classic-bracket", scenarios=small_n, seed=2,
                        pool_per_operator=2 if quick else 10, abuses=ops)
    explore(cfg)
    gc.collect()
    rss_small = _rss_mb()
    cfg.scenarios = big_n
    explore(cfg)
    gc.collect()
    rss_big = _rss_mb()
    growth = rss_big / rss_small
    rows.append(BenchRow(f"RSS after {big_n:,} vs {small_n:,} scenarios", growth, "x", None, "",
                         "<= 1.10x", growth <= 1.10, f"{rss_small:.0f} MB -> {rss_big:.0f} MB"))
    say("workers")
    rows.append(_workers_row(ops, which, quick))
    grammar_target.close()
    classic_target.close()
    if target:
        tgt.close()
    result.load_after = _load()
    result.wall = time.perf_counter() - started
    return result


def _workers_row(ops: list[str] | None, which: str, quick: bool) -> BenchRow:
    """Two fuzz processes against one, only when the machine has a core free for the second.

    A speed-up needs an idle core. The bench itself is about one unit of the load average,
    so with the load at the core count or above the others leave no core for a second
    process, which would only share a busy one: the row then says it was skipped.
    """
    from ..engine import FuzzConfig, run_fuzz, run_fuzz_parallel

    cores = os.cpu_count() or 1
    load = _load()
    busy = load[0] if load is not None else 0.0
    if cores < 2 or busy >= cores:
        why = (f"skipped: {cores} core" if cores < 2 else
               f"skipped: load average {busy:.2f} with {cores} cores leaves no idle core for"
               " a second worker")
        return BenchRow("2 workers vs 1", float("nan"), "x", None, "", ">= 1.8x", None, why)
    # a speed-up from a second core is wall time by nature: CPU time is what it spreads
    # the grammar target finds nothing, so every operator runs all its examples: CPU-bound
    # work that does not stop early, which is what a speed-up is measured on
    wcfg = FuzzConfig(targets=["grammar"], seed=5, corpus=None, abuses=ops,
                      max_examples=4 if quick else 150)
    ones, twos = [], []
    for _ in range(1 if quick else 2):  # alternating
        t = time.perf_counter()
        run_fuzz(wcfg)
        ones.append(time.perf_counter() - t)
        t = time.perf_counter()
        run_fuzz_parallel(wcfg, 2)
        twos.append(time.perf_counter() - t)
    one, two = statistics.median(ones), statistics.median(twos)
    return BenchRow("2 workers vs 1", one / two, "x", None, "", ">= 1.8x", one / two >= 1.8,
                    f"grammar target, {which}, {wcfg.max_examples} examples each:"
                    f" {one:.1f}s -> {two:.1f}s wall on {cores} cores (a speed-up is wall"
                    f" time; load average {busy:.2f})")


def _examples_until(strategy: st.SearchStrategy[_X], failed: Callable[[_X], bool], seed: int,
                    cap: int) -> int:
    """How many generated examples until ``failed`` is true (``cap + 1``: never)."""
    from ..strategies import for_each_example

    count = [0]

    class Found(Exception):
        pass

    def body(x: _X) -> None:
        count[0] += 1
        if failed(x):
            raise Found

    try:
        for_each_example(strategy, body, examples=cap, seed=seed)
    except Found:
        return count[0]
    return cap + 1


def _first_failure(reg: ToolRegistry, design: Design, abuse: str, seed: int, cap: int) -> int:
    """Examples of one operator until a design fault of ``design``."""
    from ..oracle import judge
    from ..strategies import scenarios

    def failed(sc: Scenario) -> bool:
        reg.reset()
        _, out = design.run(sc.completion, reg)
        v = judge(out, sc.acceptable, reg, completion=sc.completion, fmt=design.fmt)
        return not v.ok and v.cause == "design"

    return _examples_until(scenarios(reg, design.format, abuses=[abuse]), failed, seed, cap)


def _first_failure_text(reg: ToolRegistry, design: Design, seed: int, cap: int) -> int:
    """Examples until plain ``st.text()`` completions break a design (intent: a search)."""
    from ..model import Call
    from ..oracle import judge, oracle

    acc = oracle(Call.named("search", query="a"), design.format, reg)

    def failed(text: str) -> bool:
        reg.reset()
        _, out = design.run(text, reg)
        return judge(out, acc, reg).kind in ("wrong-call", "hijacked-answer", "crash",
                                             "unvalidated-call")

    return _examples_until(st.text(), failed, seed, cap)


def render_bench(result: BenchResult, *, markdown: bool = False) -> str:
    """The machine and its load in one line, then the rows as a plain or Markdown table:
    each figure (CPU time, for a time) with the wall time measured beside it."""
    head = ["measure", "median (cpu)", "wall", "ratio", "reference", "target", "met", "note"]
    body = []
    for r in result.rows:
        value = "-" if r.value != r.value else f"{r.value:,.1f} {r.unit}" \
            if r.unit != "examples" else (
            f"{r.value:g}" if r.value <= 300 else "never (> 300)")
        wall = "" if r.wall is None else f"{r.wall:,.1f} {r.unit}"
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else ""
        met = "" if r.met is None else ("yes" if r.met else "NO")
        body.append([r.name, value, wall, ratio, r.reference, r.target, met, r.note])
    if markdown:
        lines = [f"Machine: {result.machine()}", "", "| " + " | ".join(head) + " |",
                 "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in body]
        return "\n".join(lines)
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    widths[-1] = 0
    out = [f"machine: {result.machine()}", ""]
    out += ["  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip()]
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in body]
    return "\n".join(out)
