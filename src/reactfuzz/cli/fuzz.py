"""``fuzz`` and ``replay``: run the engine, consume its events, report, and re-run a corpus."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputFileError, UsageError
from .common import EventOutput, expand_abuses, progress_color, write_text
from .validate import check_outputs

if TYPE_CHECKING:
    from ..engine import EventSink, FuzzConfig
    from ..engine.results import RunSummary


_REPORTS = ("json", "junit", "markdown", "html", "sarif", "events")
"""The report options of ``fuzz``: each names a file, checked before the run."""


def _load_plugins(modules: list[str] | None) -> None:
    """Import user modules that register checks, abuses or parsers (current dir first)."""
    import functools
    import importlib
    import os

    from ..engine.checks import CHECKS
    from ..limits import id_problem
    from ..strategies import ABUSES
    from ..targets.user_code import probe

    for name in modules or []:
        if name not in sys.modules:  # a plugin that hangs or exits at import: exit 2
            probe(functools.partial(_load_plugins, [name]), f"--plugin {name}")
        before = {"check": set(CHECKS), "abuse": set(ABUSES)}
        sys.path.insert(0, os.getcwd())
        try:
            importlib.import_module(name)
        except Exception as e:
            raise UsageError(
                f"--plugin {name}: cannot import it ({type(e).__name__}: {e});"
                " give a module importable from the working directory"
            ) from None
        finally:
            sys.path.remove(os.getcwd())
        for kind, registry in (("check", CHECKS), ("abuse", ABUSES)):
            for ident in [i for i in registry if i not in before[kind]]:
                problem = id_problem(kind, ident)
                if problem is not None:
                    raise UsageError(f"--plugin {name}: {problem}")



def _read_corpora(corpora: list[str], baseline: str | None) -> None:
    """Read every corpus file the run will replay, so a bad one stops it before it starts."""
    from ..engine.corpus import iter_corpus

    if baseline is not None and not Path(baseline).exists():
        raise UsageError(f"--baseline {baseline}: not found (give a corpus directory or file)")
    for directory in [*corpora, *([baseline] if baseline else [])]:
        for _ in iter_corpus(directory):
            pass


def check_ids(values: list[str] | None) -> list[str]:
    """The ids of repeated, comma-separated ``--check``-style options, in order."""
    return [i.strip() for v in values or [] for i in v.split(",") if i.strip()]


def _select_checks(args: argparse.Namespace) -> list[str] | None:
    """The checks ``--check`` and ``--exclude-check`` ask for (``None``: all of them)."""
    from ..engine.checks import CHECKS

    wanted, excluded = check_ids(args.check), check_ids(args.exclude_check)
    for name in wanted + excluded:
        CHECKS.get_or_raise(name)  # an unknown id is a usage error naming the known ones
    if not excluded:
        return list(dict.fromkeys(wanted)) or None
    chosen = [c for c in dict.fromkeys(wanted or CHECKS.names()) if c not in excluded]
    if not chosen:
        raise UsageError("--exclude-check leaves no check to run")
    return chosen


def _fuzz_targets(args: argparse.Namespace) -> list[str]:
    targets = list(args.parser or []) + list(args.target or [])
    targets += [f"regex:{r}" for r in (args.regex or [])]
    targets += [f"grammar:{g}" for g in (args.grammar or [])]
    if not targets:
        raise UsageError("name what to fuzz: --parser NAME, --target module:function,"
                         " --regex PATTERN or --grammar FILE")
    return targets


def _cmd_fuzz(args: argparse.Namespace) -> int:
    from ..engine import FuzzConfig, run_fuzz
    from ..reporting import ProgressPrinter, render_console

    if args.max_examples < 1:
        raise UsageError("--max-examples must be at least 1")
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    check_outputs([(f"--{o}", getattr(args, o)) for o in _REPORTS],
                  [("--corpus", None if args.no_corpus else args.corpus),
                   ("--hypothesis-db", args.hypothesis_db)])
    _read_corpora([] if args.no_corpus or args.no_replay else [args.corpus], args.baseline)
    _load_plugins(args.plugin)
    checks = _select_checks(args)
    config = FuzzConfig(
        hypothesis_db=args.hypothesis_db,
        targets=_fuzz_targets(args), format=args.format, dispatcher=args.dispatcher,
        tools=args.tools, checks=checks, abuses=expand_abuses(args.abuse),
        seed=args.seed, max_examples=args.max_examples, time_budget=args.time_budget,
        corpus=None if args.no_corpus else args.corpus, baseline=args.baseline,
        replay_corpus=not args.no_replay, time_limit=args.time_limit, stream=args.stream,
        strict_protocol=args.strict_protocol, format_fit=not args.no_fit_check,
        guided=args.guided_scenarios,
    )
    if args.guided and not args.explore:
        raise UsageError("--guided steers --explore: add --explore N (for example"
                         " --explore 5000 --guided)")
    config = _resolve_auto_format(config, quiet=args.quiet)
    printer = None if args.quiet else ProgressPrinter(
        sys.stderr, verbose=args.verbose,
        color=progress_color(args))

    from ..engine.signals import sigterm_interrupts

    with sigterm_interrupts() as interrupts:  # a CI cancel stops the run as Ctrl-C does
        emit = EventOutput(interrupts, printer, args.events)
        explored = ""
        try:
            if args.explore:
                summary, explored = _explore(args, config, emit)
            else:
                summary = run_fuzz(config, emit, workers=args.workers)
        finally:
            emit.close()
        interrupts.hold()  # every report is written whole, whatever signal arrives meanwhile
        write_reports(summary, args)
        print(render_console(summary, color=use_color(args)))
        if explored:
            print(explored)
    got = interrupts.held
    if got and not summary.interrupted:
        print("reactfuzz: stopped by a signal while writing the reports; they are complete",
              file=sys.stderr)
        return 143 if got[0] == signal.SIGTERM else 130
    return summary.exit_code


def _resolve_auto_format(config: FuzzConfig, *, quiet: bool) -> FuzzConfig:
    """``--format auto``: probe every built-in format, say which fits and why (stderr)."""
    from dataclasses import replace

    from ..engine.fit import choose_format

    if config.format != "auto":
        return config
    choice = choose_format(config)
    if not quiet:
        print(choice.explain(), file=sys.stderr)
    print(choice.summary(), file=sys.stderr)  # the pick and any warning, also under -q
    return replace(config, format=choice.format, format_fit=False)


def _explore(args: argparse.Namespace, config: FuzzConfig,
             emit: EventSink) -> tuple[RunSummary, str]:
    """``fuzz --explore N``: the fast mode, one target, optionally over workers; the
    summary and a line on its speed."""
    from ..engine.explore import ExploreConfig, explore_parallel, explore_summary
    from ..engine.fit import check_fit
    from ..formats import get_format
    from ..targets import load_tools

    if len(config.targets) != 1:
        raise UsageError("--explore takes one target")
    if args.explore < 1:
        raise UsageError("--explore must be at least 1")
    if config.format_fit:
        check_fit(config, get_format(config.format), load_tools(config.tools, cwd=config.cwd))
    ec = ExploreConfig(target=config.targets[0], format=config.format,
                       dispatcher=config.dispatcher, tools=config.tools,
                       seed=config.seed if config.seed is not None else 0,
                       scenarios=args.explore, abuses=config.abuses, corpus=config.corpus,
                       time_limit=config.time_limit, guided=args.guided, cwd=config.cwd)
    results = explore_parallel(ec, args.workers, emit)
    summary = explore_summary(ec, results)
    scen, loop = summary.examples, summary.elapsed
    line = (f"explore: {scen} scenarios in {loop:.2f}s over {len(results)} worker(s):"
            f" {scen / loop:,.0f} scenarios/s (pool of {max(r.pool for r in results)} bases"
            f" built in {max(r.pool_seconds for r in results):.1f}s, findings shrunk in"
            f" {max(r.shrink_seconds for r in results):.1f}s)")
    unshrunk = sum(r.unshrunk for r in results)
    if unshrunk:
        capped = any(r.shrink_capped for r in results)
        spent = ("its wall-time cap (half the loop's time plus 2 s) ran out first, so another"
                 " machine may shrink others" if capped else
                 "the shrinking budget (500 parses plus one per 100 scenarios) ran out")
        line += (f"\nexplore: {unshrunk} finding(s) keep their shortest example unshrunk: "
                 f"{spent}; `reactfuzz fuzz` on their operator shrinks them")
    if args.guided:
        best = max(results, key=lambda r: r.lines_reached)
        line += (f"\nguided: {sum(r.favoured for r in results)} mutations kept for new lines;"
                 f" coverage {best.coverage}")
    return summary, line


def use_color(args: argparse.Namespace) -> bool:
    if args.color == "always":
        return True
    if args.color == "never":
        return False
    # auto: a terminal, unless NO_COLOR is set to anything (https://no-color.org)
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def write_reports(summary: RunSummary, args: argparse.Namespace) -> None:
    from ..reporting import render_markdown, write_html, write_json, write_junit

    if args.json:
        write_json(summary, args.json)
    if args.junit:
        write_junit(summary, args.junit)
    if args.markdown:
        full = args.html or args.json or args.sarif or None
        write_text(args.markdown, render_markdown(summary, full_report=full))
    if args.html:
        write_html(summary, args.html)
    if args.sarif:
        from ..reporting.sarif import write_sarif

        fmt = Path(args.format)  # a TOML format file is where a finding points without code
        write_sarif(summary, args.sarif,
                    format_file=args.format if fmt.suffix == ".toml" and fmt.is_file() else None)



def _cmd_replay(args: argparse.Namespace) -> int:
    from ..engine.replay import replay_corpus

    check_outputs([("--json", args.json)])
    paths = args.paths or ["fuzz_corpus"]
    for p in paths:
        if not Path(p).exists():
            raise InputFileError(f"{p}: no such corpus file or directory")
    _load_plugins(args.plugin)
    replayed = replay_corpus(paths, target=args.target, dispatcher=args.dispatcher,
                             time_limit=args.time_limit, tools=args.tools,
                             trust=args.trust_corpus)
    results = replayed.results
    if replayed.skipped:
        print(f"skipped {len(replayed.skipped)} finding(s) whose file names code to import"
              " (a module:attr target or tools): pass --target/--tools, or --trust-corpus"
              " for a corpus you wrote", file=sys.stderr)
    if not results:
        print("no findings to replay")
        if args.expect_reproduced:  # nothing reproduced is not "everything reproduced"
            print("--expect-reproduced: no finding was replayed"
                  + (f" ({len(replayed.skipped)} skipped)" if replayed.skipped else ""),
                  file=sys.stderr)
            return 1
        return 0
    reproduced = [r for r in results if r.reproduced]
    for r in results:
        state = "reproduced" if r.reproduced else "FIXED" if not args.expect_reproduced \
            else "NOT REPRODUCED"
        state = state.ljust(14)
        print(f"{state}  {r.path}  [{r.finding.check}/{r.finding.failure}] -> {r.observed}")
    print(f"\n{len(reproduced)} of {len(results)} findings reproduce"
          + (f" against {args.target}" if args.target else ""))
    if args.json:
        write_text(args.json, json.dumps([
            {"path": str(r.path), "check": r.finding.check, "verdict": r.finding.failure,
             "reproduced": r.reproduced, "observed": r.observed} for r in results
        ], indent=2) + "\n", json=True)
    if args.expect_reproduced:
        if replayed.skipped:
            print(f"--expect-reproduced: {len(replayed.skipped)} finding(s) were skipped, not"
                  " replayed", file=sys.stderr)
            return 1
        return 0 if len(reproduced) == len(results) else 1
    return 1 if reproduced else 0
