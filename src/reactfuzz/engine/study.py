"""The study: every built-in design against every abuse operator, N examples each.

The result is the matrix of verdict rates (with 95 % Wilson intervals) people cite when
they argue for typed tool calling -- and the evidence of where a text protocol can still
be made safe. Each design sees scenarios written in its own format; an operator that
does not apply to a design's format is left out of that column.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hypothesis.errors import Unsatisfiable

from .._determinism import pinned
from ..designs import BUILTIN_DESIGNS, Design, design_name
from ..errors import UsageError
from ..kinds import SEVERITY, SEVERITY_RANK
from ..parsers import get_parser
from ..strategies import ABUSES, Scenario, for_each_example, scenarios
from ..textsafe import visible
from ..tools import ToolRegistry, default_registry
from .config import operator_seed
from .events import CellFinished, EventSink, StudyFinished, StudyStarted
from .example import examine
from .results import StudyCell, StudyResult
from .signals import check_stop

__all__ = [
    "STUDY_DESIGNS", "DesignFaults", "FormatConclusion", "format_conclusions",
    "render_matrix_text", "run_study",
]

STUDY_DESIGNS: tuple[str, ...] = (
    "classic-bracket", "classic-unanchored", "classic-action-input", "hardened-bracket",
    "grammar-bracket", "grammar-paper", "grammar-action-input", "grammar-json-args",
    "classic-action-input-json", "grammar-action-input-json",
    "classic-json-blob", "grammar-json-blob",
    "classic-json-blob-fenced", "grammar-json-blob-fenced",
    "classic-tool-call", "grammar-tool-call",
    "classic-function-tag", "grammar-function-tag",
    "classic-dspy-react", "grammar-dspy-react",
    "classic-json-bare", "grammar-json-bare",
)
"""The designs the study compares: the first families (classic first), then each newer
format's classic design beside its grammar."""

@pinned
def run_study(
    *,
    designs: Sequence[str] = STUDY_DESIGNS,
    abuses: Sequence[str] | None = None,
    examples: int = 20,
    seed: int = 0,
    registry_factory: Callable[[], ToolRegistry] = default_registry,
    emit: EventSink | None = None,
) -> StudyResult:
    """Run every design against every operator that applies to its format."""
    emit = emit or (lambda e: None)
    designs = [design_name(d) for d in designs]
    for d in designs:
        if d not in BUILTIN_DESIGNS:
            raise UsageError(f"unknown design {visible(d, limit=60)!r}: use one of"
                             f" {', '.join(BUILTIN_DESIGNS)}")
    ops = list(abuses) if abuses is not None else list(ABUSES)
    for a in ops:
        if a not in ABUSES:
            raise UsageError(f"unknown abuse {a!r}: use one of {', '.join(ABUSES)}")
    start = time.monotonic()
    cells: list[StudyCell] = []
    total = sum(1 for d in designs for a in ops if ABUSES[a].applies_to(BUILTIN_DESIGNS[d].format))
    done = 0
    emit(StudyStarted(tuple(designs), len(ops), total, examples, seed))
    for name in designs:
        design = BUILTIN_DESIGNS[name]
        registry = registry_factory()
        for abuse in ops:
            if not ABUSES[abuse].applies_to(design.format):
                continue
            cell = _trial(design, registry, abuse, examples, seed)
            done += 1  # counted either way, so progress reaches its total
            if cell.n == 0:  # the operator could write no example here: no cell
                emit(CellFinished(name, abuse, done, total, 0, 0))
                continue
            cells.append(cell)
            emit(CellFinished(name, abuse, done, total, cell.bad(), cell.n))
    result = StudyResult(
        designs=list(designs), abuses=ops, cells=cells, seed=seed,
        examples_per_cell=examples, elapsed=time.monotonic() - start,
        descriptions={d: BUILTIN_DESIGNS[d].description for d in designs},
    )
    emit(StudyFinished(len(cells), round(result.elapsed, 3)))
    return result


def _trial(design: Design, registry: ToolRegistry, abuse: str, examples: int,
           seed: int) -> StudyCell:
    """Generate ``examples`` scenarios of one operator and tally one design's verdicts."""
    cell = StudyCell(design.name, abuse)
    worst = [-1]
    fmt = design.fmt
    parser = get_parser(design.parser, fmt)

    def trial(sc: Scenario) -> None:
        check_stop()  # a signal whose exception was lost inside Hypothesis
        v = examine(sc, parser, fmt, registry, design.dispatcher, [],
                    target_is_grammar=design.parser == "grammar").verdict
        cell.n += 1
        cell.counts[v.kind] = cell.counts.get(v.kind, 0) + 1
        if not v.ok and v.cause == "protocol":
            cell.protocol += 1
            cell.protocol_counts[v.kind] = cell.protocol_counts.get(v.kind, 0) + 1
        rank = SEVERITY_RANK[SEVERITY[v.kind]]
        if rank > worst[0]:
            worst[0] = rank
            cell.example = sc.completion

    op_seed = operator_seed(seed, design.name, abuse)
    try:
        for_each_example(scenarios(registry, design.format, abuses=[abuse]), trial,
                         examples=examples, seed=op_seed)
    except Unsatisfiable:  # the tools lack what this operator needs: an empty cell
        pass
    return cell


@dataclass(frozen=True)
class DesignFaults:
    """One design's design-caused failures (protocol excluded), pooled and where worst.

    ``worst`` holds up to three ``(operator, most frequent non-ok verdict, design-fault
    rate)``, highest rate first.
    """

    design: str
    faults: int
    n: int
    worst: tuple[tuple[str, str, float], ...]

    @property
    def rate(self) -> float:
        """Share of the design's examples that failed by the design's fault."""
        return self.faults / self.n if self.n else 0.0


@dataclass(frozen=True)
class FormatConclusion:
    """The study's conclusion for one format: each of its designs' faults, in study order."""

    format: str
    designs: tuple[DesignFaults, ...]


def _faults(result: StudyResult, design: str) -> DesignFaults:
    cells = [c for c in result.cells if c.design == design and c.n]
    n = sum(c.n for c in cells)
    faults = sum(max(0, c.bad() - c.protocol) for c in cells)
    ranked = []
    for c in cells:
        if c.bad() <= c.protocol:
            continue
        verdict = min((k for k, v in c.counts.items() if k != "ok" and v),
                      key=lambda k: (-c.counts[k], -SEVERITY_RANK[SEVERITY[k]], k))
        ranked.append(((c.bad() - c.protocol) / c.n, verdict, c.abuse))
    ranked.sort(key=lambda r: (-r[0], -SEVERITY_RANK[SEVERITY[r[1]]], r[2]))
    worst = tuple((abuse, verdict, rate) for rate, verdict, abuse in ranked[:3])
    return DesignFaults(design, faults, n, worst)


def _format(design: str) -> str:
    return BUILTIN_DESIGNS[design].format if design in BUILTIN_DESIGNS else "?"


def format_conclusions(result: StudyResult) -> list[FormatConclusion]:
    """Per format, in the study's order: how often each of its designs failed by its own
    fault and on which operators most (the study's conclusions, one per protocol family)."""
    by_format: dict[str, list[str]] = {}
    for d in result.designs:
        by_format.setdefault(_format(d), []).append(d)
    return [FormatConclusion(fmt, tuple(_faults(result, d) for d in names))
            for fmt, names in by_format.items()]


_SHORT = (("classic-", "c-"), ("grammar-", "g-"), ("unanchored", "unanch"),
          ("json-blob-fenced", "blob-f"), ("json-blob", "blob"), ("action-input", "ai"),
          ("tool-call", "tool"), ("function-tag", "fn-tag"), ("dspy-react", "dspy"),
          ("json-bare", "bare"))


def _short(design: str) -> str:
    """A design's name short enough for a terminal column (``c-blob`` for classic-json-blob)."""
    for long, short in _SHORT:
        design = design.replace(long, short)
    return design


def render_matrix_text(result: StudyResult, width: int = 120) -> str:
    """The matrix as plain text for the terminal: non-ok rate per design and operator.

    Designs that do not fit in ``width`` columns go on to another block of rows (an
    operator that applies to none of a block's designs is left out of it).
    """
    w0 = max(len(a) for a in result.abuses) + 1
    groups: list[list[str]] = []  # neighbours of one format (a classic and its grammar)
    for d in result.designs:
        if groups and _format(groups[-1][-1]) == _format(d):
            groups[-1].append(d)
        else:
            groups.append([d])
    blocks: list[list[str]] = [[]]
    used = w0
    for group in groups:
        w = sum(max(len(_short(d)), 7) + 2 for d in group)
        if blocks[-1] and used + w > width:
            blocks.append([])
            used = w0
        blocks[-1].extend(group)
        used += w
    totals = result.design_totals()
    lines: list[str] = []
    for designs in blocks:
        widths = [max(len(_short(d)), 7) for d in designs]
        if lines:
            lines.append("")
        lines.append("  ".join(["".ljust(w0), *(_short(d).rjust(w)
                                                for d, w in zip(designs, widths))]))
        for a in result.abuses:
            if all(result.cell(d, a) is None for d in designs):
                continue
            row = [a.ljust(w0)]
            for d, w in zip(designs, widths):
                c = result.cell(d, a)
                if c is None:
                    row.append("-".rjust(w))
                    continue
                mark = "p" if c.bad() and c.protocol == c.bad() else ""
                row.append(f"{100 * c.bad_rate():.0f}%{mark}".rjust(w))
            lines.append("  ".join(row))
        lines.append("")
        lines.append("  ".join(["all".ljust(w0), *(
            f"{100 * totals[d].bad_rate():.0f}%".rjust(w) if d in totals else "-".rjust(w)
            for d, w in zip(designs, widths))]))
    lines.append("")
    lines.append("cells: share of examples whose verdict is not ok; 'p' = every bad verdict is")
    lines.append("the protocol's (the format cannot carry the intent), not the design's;")
    lines.append("c- = classic (the parser as commonly shipped), g- = grammar + typed dispatch;")
    lines.append("ai = action-input, blob = json-blob, blob-f = json-blob-fenced,")
    lines.append("tool = tool-call, fn-tag = function-tag, dspy = dspy-react, bare = json-bare")
    return "\n".join(lines)
