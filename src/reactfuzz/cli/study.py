"""``study`` (every design against every abuse) and ``bench`` (timings side by side)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from .common import expand_abuses, progress_color, write_text
from .validate import check_outputs

if TYPE_CHECKING:
    from ..reporting import ProgressPrinter


def _cmd_study(args: argparse.Namespace) -> int:
    from ..engine.study import STUDY_DESIGNS, render_matrix_text, run_study
    from ..reporting import ProgressPrinter, render_study_markdown, write_html
    from ..reporting.conclusion import study_conclusion

    if args.examples < 1:
        raise UsageError("--examples must be at least 1")
    check_outputs([], [("--out", args.out)])
    progress = None if args.quiet else ProgressPrinter(
        sys.stderr, verbose=args.verbose,
        color=progress_color(args))
    from ..engine.signals import sigterm_interrupts

    # as fuzz and loop do: SIGTERM stops the study as Ctrl-C does, and a signal whose
    # exception Hypothesis swallowed is raised at the next example
    with sigterm_interrupts():
        try:
            result = run_study(designs=args.design or STUDY_DESIGNS,
                               abuses=expand_abuses(args.abuse), examples=args.examples,
                               seed=args.seed, emit=progress)
        finally:
            if progress is not None:
                progress.close()
    out = Path(args.out)
    write_text(str(out / "study.md"), render_study_markdown(result))
    write_html(result, str(out / "study.html"))
    print(render_matrix_text(result))
    print("\nConclusion:\n" + "\n".join(f"- {line.replace('`', '')}"
                                       for line in study_conclusion(result)))
    print(f"\n{len(result.cells)} cells x {result.examples_per_cell} examples, seed"
          f" {result.seed}, {result.elapsed:.1f}s; wrote {out / 'study.md'} and"
          f" {out / 'study.html'}")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from ..bench import render_bench, run_bench

    if args.rounds < 1:
        raise UsageError("--rounds must be at least 1")
    check_outputs([("--markdown", args.markdown)])
    if args.target:
        from ..formats import get_format
        from ..targets import load_target

        load_target(args.target, get_format(args.format)).close()  # fail fast on a bad target
    from ..reporting import ProgressPrinter

    printer = None if args.quiet else ProgressPrinter(sys.stderr)
    say = None if printer is None else printer.phase
    try:
        if args.sizes:
            return _bench_sizes(args, printer)
        result = run_bench(quick=args.quick, rounds=args.rounds, target=args.target,
                           fmt=args.format, progress=say, completions=args.completions,
                           field=args.field)
    finally:
        if printer is not None:
            printer.close()
    print(render_bench(result))
    if args.markdown:
        write_text(args.markdown, render_bench(result, markdown=True) + "\n")
    missed = [r.name for r in result.rows if r.met is False]
    print(f"\n{len(missed)} target(s) not met" + (f": {', '.join(missed)}" if missed else ""))
    return 0


def _bench_sizes(args: argparse.Namespace, printer: ProgressPrinter | None) -> int:
    """``bench --sizes``: the growth table, and how many parsers passed their exponent."""
    from ..bench import render_sizes, size_scaling

    series = size_scaling(quick=args.quick, progress=None if printer is None else printer.phase)
    if printer is not None:
        printer.close()  # the live area is down before the table is printed
    print(render_sizes(series))
    if args.markdown:
        write_text(args.markdown, render_sizes(series, markdown=True) + "\n")
    missed = [f"{s.parser} ({s.workload})" for s in series if s.met is False]
    print(f"\n{len(missed)} target(s) not met" + (f": {', '.join(missed)}" if missed else ""))
    return 0
