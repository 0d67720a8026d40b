"""The measurements of ``reactfuzz bench`` and the table they print.

:func:`run_bench` times parsers, generators and the engine side by side in alternating
rounds and returns :class:`BenchResult` rows, each a median with its ratio to an in-run
reference and the target it is held to; :func:`render_bench` prints them after one line
saying what the machine was and how loaded it was.
"""

from __future__ import annotations

import gc
import os
import platform
import re
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from hypothesis import strategies as st

from .workloads import TEXT, read_completions, realistic_runs

if TYPE_CHECKING:
    from ..designs import Design
    from ..strategies import Scenario
    from ..tools import ToolRegistry

__all__ = ["BenchResult", "BenchRow", "render_bench", "run_bench"]

_X = TypeVar("_X")
ACTION_RE = re.compile(r"^Action:\s*(\w+)\[(.*)\]\s*$", re.MULTILINE)


@dataclass
class BenchRow:
    """One measured figure, its ratio to the in-run reference, and the target it meets."""

    name: str
    value: float
    unit: str
    ratio: float | None = None
    reference: str = ""
    target: str = ""
    met: bool | None = None
    note: str = ""


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

    def machine(self) -> str:
        """One sentence: the machine, how loaded it was, and how the run was made."""

        def load(x: tuple[float, float, float] | None) -> str:
            return "unknown" if x is None else " / ".join(f"{v:.2f}" for v in x)

        return (
            f"{self.cores} cores, {self.cpu}, Python {self.python}; load average (1 / 5 / 15"
            f" min) {load(self.load_before)} before and {load(self.load_after)} after;"
            f" {self.rounds} alternating rounds{', quick workloads' if self.quick else ''};"
            f" {self.wall:.0f} s wall."
        )


def _per_call(fn: Callable[[], object], n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


def _alternating(items: dict[str, Callable[[], object]], n: int | Mapping[str, int],
                 rounds: int) -> dict[str, float]:
    """Median seconds per call of each item, measured in interleaved rounds.

    ``n`` is how many calls make one sample: one count for every item, or one per item.
    """
    samples: dict[str, list[float]] = {k: [] for k in items}
    for fn in items.values():  # warm caches (compiled grammars, regexes)
        fn()
    for _ in range(rounds):
        for k, fn in items.items():
            samples[k].append(_per_call(fn, n if isinstance(n, int) else n[k]))
    return {k: statistics.median(v) for k, v in samples.items()}


def _action_line_re(fmt: str) -> re.Pattern[str]:
    """A bare ``re`` that finds the action line of a format (``Action 1: ...`` too)."""
    from ..formats import get_format

    label = re.escape(get_format(fmt).labels.action)
    return re.compile(rf"^{label}(?: ?\d+)?:[ \t]*(\S.*)$", re.MULTILINE)


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


def _per_example(strategy: st.SearchStrategy[Any], body: Callable[[Any], object], n: int,
                 seed: int = 0) -> float:
    """Seconds per Hypothesis example (generation + body), generation phase only."""
    from ..strategies import for_each_example

    t = time.perf_counter()
    for_each_example(strategy, body, examples=n, seed=seed)
    return (time.perf_counter() - t) / n


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
    from ..explore import ExploreConfig, build_pool, explore
    from ..formats import get_format
    from ..grammars import grammar_parse, lark_parser, parse_transcript
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
    result = BenchResult(rounds=rounds, quick=quick, cpu=os.uname().machine,
                         cores=os.cpu_count() or 1, python=platform.python_version(),
                         load_before=_load())
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
    items: dict[str, Callable[[], object]] = {
        "bare re": lambda: ACTION_RE.search(TEXT),
        **{f"parse {n}": partial(p.parse, TEXT) for n, p in parsers.items()},
        "parse grammar (Lark only)": lambda: grammar_parse(TEXT, bracket, fast=False),
    }
    calls = max(20, int(2000 * k))
    count = dict.fromkeys(items, calls)
    if target:
        tgt = load_target(target, get_format(fmt))
        items[f"parse {target}"] = lambda: tgt.parse(TEXT)
        count[f"parse {target}"] = calls
    canonical = list(items)[1:]
    # each workload: the grammar and a bare `re` over the same texts, about `calls` parses
    # per sample; whole transcripts are read with the grammar's transcript entry point
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
    for name, (texts, parse, _, _) in workloads.items():
        find = ACTION_RE.findall if name == "realistic transcripts" else ACTION_RE.search
        if name == "your completions":  # their action label (numbered or not), not ours
            find = _action_line_re(fmt).search
        items[f"re: {name}"] = _over(find, texts)
        items[f"grammar: {name}"] = _over(parse, texts)
        reps = max(1, calls // len(texts))
        count[f"re: {name}"] = count[f"grammar: {name}"] = reps
    med = _alternating(items, count, rounds)
    base = med["bare re"]
    rows.append(BenchRow("bare re parse", base * 1e6, "us", 1.0, "itself", "", None,
                         "the in-run reference"))
    for name in canonical:
        tgt_text, ok = "", None
        if name == "parse grammar":
            tgt_text, ok = "<= 20x", med[name] / base <= 20
        rows.append(BenchRow(name, med[name] * 1e6, "us", med[name] / base, "bare re",
                             tgt_text, ok, "one canonical completion"))
    for name, (texts, _, reference, note) in workloads.items():
        g, r = med[f"grammar: {name}"], med[f"re: {name}"]
        label = ("parse transcript grammar, realistic runs" if name == "realistic transcripts"
                 else f"parse grammar, {name}")
        rows.append(BenchRow(label, g / len(texts) * 1e6, "us", g / r, reference, "", None,
                             note))

    # --- 2. per-example costs under Hypothesis -----------------------------------------
    say("composite strategy and full pipeline")
    n = 10 if quick else 300
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
    # alternating rounds, a fresh seed each round, medians: the ratio is what counts
    comp_s, pipe_s, all_s, floor_s = [], [], [], []
    for r in range(max(3, rounds // 2 + 1)):
        comp_s.append(_per_example(composite, roundtrip, n, seed=r))
        pipe_s.append(_per_example(scenarios(reg, bracket, abuses=unsized), pipeline, n, seed=r))
        all_s.append(_per_example(scenarios(reg, bracket, abuses=sized), pipeline, n, seed=r))
        floor_s.append(_per_example(st.integers(), lambda x: None, n, seed=r))
    t_comp, t_pipe = statistics.median(comp_s), statistics.median(pipe_s)
    t_all = statistics.median(all_s)
    floor = statistics.median(floor_s)
    rows.append(BenchRow("Hypothesis per-example floor", floor * 1e6, "us", floor / base,
                         "bare re", "", None, "st.integers(), empty body"))
    rows.append(BenchRow("composite strategy reference", t_comp * 1e6, "us", 1.0, "itself", "",
                         None, "2-3 argument call, rendered, round-trip checked"))
    rows.append(BenchRow("full pipeline per scenario", t_pipe * 1e6, "us", t_pipe / t_comp,
                         "composite", "<= 1.5x", t_pipe / t_comp <= 1.5,
                         f"generate, stop-cut, parse x2, dispatch, oracle, verdict;"
                         f" {len(unsized)} operators, the size family left out"))
    rows.append(BenchRow("full pipeline per scenario, size operators too", t_all * 1e6, "us",
                         t_all / t_comp, "composite", "", None,
                         f"all {len(sized)} operators: the size family's 16 kB texts cost"
                         " their parse (Lark's above all), not the pipeline's"))

    # --- 3. transcripts -------------------------------------------------------------------
    say("transcripts")
    from hypothesis.extra.lark import from_lark

    tn = 5 if quick else 80
    ours: list[str] = []
    plain: list[str] = []
    ours_s, plain_s = [], []
    plain_strategy = from_lark(lark_parser(bracket), start="transcript")
    for r in range(3):
        ours_s.append(_per_example(transcripts(bracket), ours.append, tn, seed=r))
        plain_s.append(_per_example(plain_strategy, plain.append, tn, seed=r))
    t_ours, t_plain = statistics.median(ours_s), statistics.median(plain_s)

    def accepted(xs: list[str]) -> float:
        return sum(parse_transcript(x, bracket).ok for x in xs) / len(xs) if xs else 0.0

    def texty(xs: list[str]) -> float:
        chars = "".join(xs)
        good = sum(c.isascii() and (c.isalnum() or c in " .,:[]'\"\n-_?") for c in chars)
        return good / len(chars) if chars else 0.0

    speed = t_plain / t_ours if t_ours else float("nan")
    rows.append(BenchRow("transcript generation (ours)", t_ours * 1e3, "ms", speed,
                         "plain from_lark (x faster)", ">= 10x faster", speed >= 10,
                         f"accepted {accepted(ours):.0%}, text-like chars {texty(ours):.0%}"))
    rows.append(BenchRow("transcript generation (plain from_lark)", t_plain * 1e3, "ms", 1.0,
                         "itself", "", None,
                         f"accepted {accepted(plain):.0%}, text-like chars {texty(plain):.0%}"))

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
    t = time.perf_counter()
    run_fuzz(FuzzConfig(targets=["classic-bracket"], seed=1, corpus=None, abuses=ops,
                        max_examples=4 if quick else 60))
    wall = time.perf_counter() - t
    rows.append(BenchRow("default fuzz run, one target", wall, "s", None, "", "<= 60 s",
                         wall <= 60, f"classic-bracket, {which} and every check, 1 core"))
    say("fast exploration")
    ex_n = int(100_000 * k)
    er = explore(ExploreConfig(target="classic-bracket", scenarios=ex_n, seed=1,
                               pool_per_operator=2 if quick else 40, abuses=ops))
    per = er.loop_seconds / er.scenarios
    # an absolute rate moves with whatever else the machine runs: shown, not held
    rows.append(BenchRow("explore: scenarios per second", er.rate, "/s", None, "",
                         "", None,
                         f"{per * 1e6:.1f} us each; {per / med['parse classic-bracket']:.1f}x"
                         f" the classic parse, {per / base:.0f}x bare re; not held (absolute:"
                         " 25,000/s on an idle core, it moves with the load)"))
    rows.append(BenchRow("explore: per scenario vs the target's own parse",
                         per / med["parse classic-bracket"], "x", None, "",
                         "<= 30x", per / med["parse classic-bracket"] <= 30,
                         "target classic-bracket"))
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
                    f" {one:.1f}s -> {two:.1f}s on {cores} cores (load average {busy:.2f})")


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
    """The machine and its load in one line, then the rows as a plain or Markdown table."""
    head = ["measure", "median", "ratio", "reference", "target", "met", "note"]
    body = []
    for r in result.rows:
        value = "-" if r.value != r.value else f"{r.value:,.1f} {r.unit}" \
            if r.unit != "examples" else (
            f"{r.value:g}" if r.value <= 300 else "never (> 300)")
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else ""
        met = "" if r.met is None else ("yes" if r.met else "NO")
        body.append([r.name, value, ratio, r.reference, r.target, met, r.note])
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
