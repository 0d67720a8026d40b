"""``reactfuzz loop``: drive a user's agent loop with the fake model and fake tools."""

from __future__ import annotations

import argparse
import random
import sys

from .fuzz import _check_ids, _color, _write_reports
from .validate import check_outputs

_REPORTS = ("json", "junit", "markdown", "html", "sarif")


def _cmd_loop(args: argparse.Namespace) -> int:
    from ..agentloop import LoopConfig, run_loop
    from ..reporting import render_console

    check_outputs([(f"--{o}", getattr(args, o)) for o in _REPORTS],
                  [("--corpus", None if args.no_corpus else args.corpus)])
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    checks = list(dict.fromkeys(_check_ids(args.check))) or None
    config = LoopConfig(
        target=args.target, format=args.format, tools=args.tools, seed=seed,
        max_examples=args.max_examples, kinds=args.kind, checks=checks,
        corpus=None if args.no_corpus else args.corpus, replay=not args.no_replay,
        max_calls=args.max_calls, time_limit=args.time_limit,
    )

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    summary = run_loop(config, None if args.quiet else say)
    _write_reports(summary, args)
    print(render_console(summary, color=_color(args)))
    return summary.exit_code
