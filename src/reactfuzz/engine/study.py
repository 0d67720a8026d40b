"""The study: every built-in design against every abuse operator, N examples each.

The result is the matrix of verdict rates (with 95 % Wilson intervals) people cite when
they argue for typed tool calling -- and the evidence of where a text protocol can still
be made safe. Each design sees scenarios written in its own format; an operator that
does not apply to a design's format is left out of that column.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from hypothesis.errors import Unsatisfiable

from .._determinism import pinned
from ..designs import BUILTIN_DESIGNS, Design
from ..errors import UsageError
from ..kinds import SEVERITY, SEVERITY_RANK
from ..parsers import get_parser
from ..strategies import ABUSES, Scenario, for_each_example, scenarios
from ..tools import ToolRegistry, default_registry
from .config import operator_seed
from .events import CellFinished, EventSink, StudyFinished, StudyStarted
from .example import examine
from .results import StudyCell, StudyResult

__all__ = ["STUDY_DESIGNS", "render_matrix_text", "run_study"]

STUDY_DESIGNS: tuple[str, ...] = (
    "classic", "classic-unanchored", "classic-action-input", "hardened", "grammar",
    "grammar-paper", "grammar-action-input", "json-args",
)
"""The designs the study compares, classic first."""

@pinned
def run_study(
    *,
    designs: Sequence[str] = STUDY_DESIGNS,
    abuses: Sequence[str] | None = None,
    examples: int = 30,
    seed: int = 0,
    registry_factory: Callable[[], ToolRegistry] = default_registry,
    emit: EventSink | None = None,
) -> StudyResult:
    """Run every design against every operator that applies to its format."""
    emit = emit or (lambda e: None)
    for d in designs:
        if d not in BUILTIN_DESIGNS:
            raise UsageError(f"unknown design {d!r}: use one of {', '.join(BUILTIN_DESIGNS)}")
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
            if cell.n == 0:
                continue
            cells.append(cell)
            done += 1
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
        v = examine(sc, parser, fmt, registry, design.dispatcher, [],
                    target_is_grammar=design.parser == "grammar").verdict
        cell.n += 1
        cell.counts[v.kind] = cell.counts.get(v.kind, 0) + 1
        if not v.ok and v.cause == "protocol":
            cell.protocol += 1
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


def render_matrix_text(result: StudyResult) -> str:
    """The matrix as plain text for the terminal: non-ok rate per design and operator."""
    short = {d: d.replace("classic-", "c-").replace("grammar-", "g-") for d in result.designs}
    w0 = max(len(a) for a in result.abuses) + 1
    widths = [max(len(short[d]), 7) for d in result.designs]
    lines = ["".ljust(w0) + "  ".join(short[d].rjust(w) for d, w in zip(result.designs, widths))]
    for a in result.abuses:
        row = [a.ljust(w0)]
        for d, w in zip(result.designs, widths):
            c = result.cell(d, a)
            if c is None:
                row.append("-".rjust(w))
                continue
            mark = "p" if c.bad() and c.protocol == c.bad() else ""
            row.append(f"{100 * c.bad_rate():.0f}%{mark}".rjust(w))
        lines.append("  ".join(row))
    totals = result.design_totals()
    lines.append("")
    lines.append("all".ljust(w0) + "  ".join(
        f"{100 * totals[d].bad_rate():.0f}%".rjust(w) if d in totals else "-".rjust(w)
        for d, w in zip(result.designs, widths)))
    lines.append("")
    lines.append("cells: share of examples whose verdict is not ok; 'p' = every bad verdict is")
    lines.append("the protocol's (the format cannot carry the intent), not the design's")
    return "\n".join(lines)
