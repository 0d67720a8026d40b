"""``reactfuzz loop`` and ``reactfuzz serve``: drive a user's agent loop with the fake model
and fake tools, in this process or through a fake OpenAI-compatible server."""

from __future__ import annotations

import argparse
import os
import random
import shlex
import shutil
import sys
from typing import TYPE_CHECKING

from ..errors import UsageError
from .common import EventOutput, progress_color
from .fuzz import check_ids, use_color, write_reports
from .validate import check_outputs

if TYPE_CHECKING:
    from ..agentloop import LoopConfig

_REPORTS = ("json", "junit", "markdown", "html", "sarif", "events")


def _config(args: argparse.Namespace, target: str, checks: list[str] | None) -> LoopConfig:
    from ..agentloop import LoopConfig

    check_outputs([(f"--{o}", getattr(args, o)) for o in _REPORTS],
                  [("--corpus", None if args.no_corpus else args.corpus)])
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    return LoopConfig(
        target=target, format=args.format, tools=args.tools, seed=seed,
        max_examples=args.max_examples, kinds=args.kind, checks=checks,
        corpus=None if args.no_corpus else args.corpus, replay=not args.no_replay,
        max_calls=args.max_calls, time_limit=args.time_limit,
    )


def _finish(config: LoopConfig, args: argparse.Namespace) -> int:
    """Run the loop with fuzz's progress, event log, signal handling and reports."""
    from ..agentloop import run_loop
    from ..engine.signals import sigterm_interrupts
    from ..reporting import ProgressPrinter, render_console

    printer = None if args.quiet else ProgressPrinter(sys.stderr,
                                                      color=progress_color(args))
    with sigterm_interrupts() as interrupts:  # a CI cancel stops the run as Ctrl-C does
        emit = EventOutput(interrupts, printer, args.events)
        try:
            summary = run_loop(config, emit)
        finally:
            emit.close()
        interrupts.hold()  # every report is written whole, whatever signal arrives meanwhile
        write_reports(summary, args)
        print(render_console(summary, color=use_color(args)))
    return summary.exit_code


def _cmd_loop(args: argparse.Namespace) -> int:
    checks = list(dict.fromkeys(check_ids(args.check))) or None
    return _finish(_config(args, args.target, checks), args)


def _cmd_serve(args: argparse.Namespace) -> int:
    from ..agentloop.serve import SERVER_CHECKS, FakeProvider, command_loop

    checks = list(dict.fromkeys(check_ids(args.check))) or list(SERVER_CHECKS)
    for c in checks:
        if c not in SERVER_CHECKS:
            raise UsageError(f"--check {c!r}: a server can judge only {', '.join(SERVER_CHECKS)}"
                             " (the agent's tools are its own); use 'reactfuzz loop' for the"
                             " others")
    try:
        argv = shlex.split(args.command)
    except ValueError as e:
        raise UsageError(f"--command {args.command!r}: {e} (quote it as a shell would)") \
            from None
    if not argv or (shutil.which(argv[0]) is None and not os.path.isfile(argv[0])):
        raise UsageError(f"--command {args.command!r}: no such program"
                         f" {argv[0] if argv else ''!r} (give the command that runs your"
                         " agent once)")
    config = _config(args, args.command, checks)
    try:
        provider = FakeProvider(port=args.port)
    except OSError as e:
        raise UsageError(f"--port {args.port}: cannot listen there ({e.strerror or e})") \
            from None
    with provider:
        # the time limit is the command's own (subprocess), not a signal in this process
        config.loop = command_loop(args.command, provider, timeout=args.time_limit)
        config.time_limit = args.time_limit * 2 + 5
        return _finish(config, args)
