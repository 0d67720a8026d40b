"""The ``reactfuzz`` command line: a thin layer over the library.

Exit codes: 0 success, 1 the check found something (an invalid step, rejected
transcripts), 2 a usage or configuration error (one line, no traceback), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from . import __version__
from .conform import conform
from .errors import InputFileError, ReactfuzzError, UsageError
from .explore import FAST_CHECKS
from .formats import BUILTIN_FORMATS, get_format
from .grammars import grammar_source, lark_parser, parse_transcript
from .model import Call, FinalAnswer, Intent
from .parsers import PARSERS, get_parser, parser_descriptions
from .render import render

__all__ = ["main"]


def _read_input(name: str) -> str:
    """Read a completion exactly as written (no newline translation)."""
    try:
        data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    except OSError as e:
        raise InputFileError(f"{name}: cannot read: {e.strerror or e}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(f"{name}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def _cmd_formats(args: argparse.Namespace) -> int:
    rows = []
    for name, fmt in BUILTIN_FORMATS.items():
        _, path = grammar_source(fmt)
        lark_parser(fmt)  # proves the grammar loads and compiles from where it is installed
        stops = ", ".join(json.dumps(s) for s in fmt.stop)
        rows.append((name, fmt.syntax, fmt.arguments, stops, fmt.description, str(path)))
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    head = ("format", "syntax", "args", "stop")
    print("  ".join(f"{h:<{w[i]}}" for i, h in enumerate(head)) + "  description")
    for r in rows:
        print(f"{r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]:<{w[3]}}  {r[4]}")
    print()
    print(f"grammars: {Path(rows[0][5]).parent} (all {len(rows)} compile)")
    if args.verbose:
        for name, fmt in BUILTIN_FORMATS.items():
            print(f"\n== {name}\n{fmt.notes}")
    return 0


def _cmd_parsers(args: argparse.Namespace) -> int:
    descs = parser_descriptions()
    w = max(len(n) for n in descs)
    for name in PARSERS:
        print(f"{name:<{w}}  {descs[name]}")
    return 0


def _cmd_parse(args: argparse.Namespace) -> int:
    from .targets import load_target

    fmt = get_format(args.format)
    parser = load_target(args.parser, fmt)  # a built-in, module:function, regex: or grammar:
    text = _read_input(args.file)
    if args.transcript:
        parser.close()
        t = parse_transcript(text, fmt)
        out = {
            "ok": t.ok,
            "blocks": [
                {"role": b.role, "number": b.number, "line": b.line, "text": b.text}
                for b in t.blocks
            ],
            "invalid": None if t.invalid is None else {
                "code": t.invalid.code, "message": t.invalid.message, "line": t.invalid.line,
                "column": t.invalid.column, "expected": list(t.invalid.expected),
                "context": t.invalid.context,
            },
        }
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0 if t.ok else 1
    try:
        step = parser.parse(text)
    finally:
        parser.close()
    print(json.dumps(step.to_dict(), indent=2, ensure_ascii=False))
    return 0 if step.kind != "invalid" else 1


def _cmd_conform(args: argparse.Namespace) -> int:
    fmt = get_format(args.format)
    report = conform(args.file, fmt, args.field)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(report.render_text(show=args.show))
    return 0 if report.rate >= args.min_rate else 1


_DEMO_QUESTION = "Was cus_8812 charged twice for INV-2041 in July?"
_DEMO_TURNS: list[tuple[str, Intent, str | None]] = [
    (
        "I should list this customer's July invoices before assuming a duplicate.",
        Call.named("list_invoices", customer_id="cus_8812", since="2026-07-01"),
        '[{"id": "INV-2041", "issued": "2026-07-03", "total": 129.00}]',
    ),
    ("One invoice, so no duplicate.", FinalAnswer("The customer was charged once."), None),
]
_DEMO_TRICKY = Call.named("search", query="Paris, France")


def _demo_transcript(fmt_name: str) -> tuple[str, list[str]]:
    fmt = BUILTIN_FORMATS[fmt_name]
    header = fmt.labels.headers[0]
    parts = [f"{header}: {_DEMO_QUESTION}"]
    completions = []
    for n, (thought, intent, obs) in enumerate(_DEMO_TURNS, 1):
        if fmt.arguments == "single" and isinstance(intent, Call):
            intent = Call(intent.tool, (", ".join(str(a) for a in intent.args),))
        c = render(intent, fmt, thought=thought, step=n)
        completions.append(c)
        parts.append(c)
        if obs is not None:
            parts.append(f"{fmt.label('observation', n)} {obs}")
    completions.append(render(_DEMO_TRICKY, fmt, thought="Look the city up.", step=1))
    return "\n".join(parts) + "\n", completions


def _short(step_dict: dict) -> str:
    if step_dict["kind"] == "action":
        a = step_dict["action"]
        args = a["args"] if a["args"] is not None else [a["raw"]]
        if a["names"]:
            inner = ", ".join(f"{k}={v!r}" for k, v in zip(a["names"], args))
        else:
            inner = ", ".join(repr(v) for v in args)
        return f"call {a['tool']}({inner})"
    if step_dict["kind"] == "answer":
        return f"answer {step_dict['answer']!r}"
    return f"invalid [{step_dict['invalid']['code']}]"


_DEMO_PARSERS = {
    "bracket": ["grammar", "classic-bracket", "hardened-bracket", "classic-unanchored"],
    "paper": ["grammar", "classic-unanchored"],
    "action-input": ["grammar", "classic-action-input"],
    "json-args": ["grammar"],
}


def _cmd_demo(args: argparse.Namespace) -> int:
    print(f"reactfuzz {__version__}: the built-in formats reading one billing conversation\n")
    for name in BUILTIN_FORMATS:
        transcript, completions = _demo_transcript(name)
        t = parse_transcript(transcript, name)
        print(f"== {name}: {BUILTIN_FORMATS[name].description}")
        for line in transcript.rstrip("\n").split("\n"):
            print(f"   | {line}")
        status = "accepted" if t.ok else f"REJECTED: {t.invalid}"
        print(f"   transcript grammar: {status} ({len(t.blocks)} blocks)")
        labels = ["turn 1", "turn 2", "comma"]
        for label, comp in zip(labels, completions):
            cells = []
            for pname in _DEMO_PARSERS[name]:
                step = get_parser(pname, name).parse(comp)
                cells.append(f"{pname}: {_short(step.to_dict())}")
            print(f"   {label:<7} " + "\n           ".join(cells))
        print()
    print("The 'comma' row is `search` with the single argument 'Paris, France': parsers that")
    print("split on commas see two arguments. `reactfuzz parse --format F --parser P -` reads")
    print("your own completion; `reactfuzz conform --format F logs.jsonl` checks real logs.")
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2) instead of the usage block."""

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        self.exit(2, f"reactfuzz: error: {message} (see '{self.prog} --help')\n")


def _load_plugins(modules: list[str] | None) -> None:
    """Import user modules that register checks, abuses or parsers (current dir first)."""
    import importlib
    import os

    for name in modules or []:
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


def _expand_abuses(patterns: list[str] | None) -> list[str] | None:
    """Abuse ids from the command line; ``family.*`` or ``family`` selects a family."""
    from .strategies import ABUSES

    if not patterns:
        return None
    out: list[str] = []
    for pat in patterns:
        if pat in ABUSES:
            out.append(pat)
            continue
        prefix = pat[:-2] if pat.endswith(".*") else pat
        matched = [a for a in ABUSES if a.startswith(prefix + ".")]
        if not matched:
            raise UsageError(
                f"unknown abuse {pat!r}: use an id or family from 'reactfuzz abuses'"
            )
        out.extend(matched)
    return list(dict.fromkeys(out))


def _fuzz_targets(args: argparse.Namespace) -> list[str]:
    targets = list(args.parser or []) + list(args.target or [])
    targets += [f"regex:{r}" for r in (args.regex or [])]
    targets += [f"grammar:{g}" for g in (args.grammar or [])]
    if not targets:
        raise UsageError("name what to fuzz: --parser NAME, --target module:function,"
                         " --regex PATTERN or --grammar FILE")
    return targets


def _cmd_fuzz(args: argparse.Namespace) -> int:
    from .engine import FuzzConfig, run_fuzz_parallel
    from .report import NdjsonLog, ProgressPrinter, render_console

    if args.max_examples < 1:
        raise UsageError("--max-examples must be at least 1")
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    _load_plugins(args.plugin)
    config = FuzzConfig(
        hypothesis_db=args.hypothesis_db,
        targets=_fuzz_targets(args), format=args.format, dispatcher=args.dispatcher,
        tools=args.tools, checks=args.check or None, abuses=_expand_abuses(args.abuse),
        seed=args.seed, max_examples=args.max_examples, time_budget=args.time_budget,
        corpus=None if args.no_corpus else args.corpus, baseline=args.baseline,
        replay_corpus=not args.no_replay, time_limit=args.time_limit, stream=args.stream,
    )
    sinks = []
    if not args.quiet:
        sinks.append(ProgressPrinter(sys.stderr))
    log = NdjsonLog(args.events) if args.events else None
    if log is not None:
        sinks.append(log)

    def emit(event) -> None:
        for s in sinks:
            s(event)

    try:
        if args.explore:
            return _explore(args, config, emit)
        summary = run_fuzz_parallel(config, args.workers, emit)
    finally:
        if log is not None:
            log.close()
    if args.strict_protocol:
        summary.findings.extend(summary.protocol_notes)
        summary.protocol_notes = []
    _write_reports(summary, args)
    print(render_console(summary, color=_color(args)))
    return summary.exit_code


def _explore(args: argparse.Namespace, config, emit) -> int:
    """``fuzz --explore N``: the fast mode, one target, optionally over workers."""
    from .explore import ExploreConfig, explore_parallel
    from .report import render_console
    from .results import RunSummary

    if len(config.targets) != 1:
        raise UsageError("--explore takes one target")
    if args.explore < 1:
        raise UsageError("--explore must be at least 1")
    ec = ExploreConfig(target=config.targets[0], format=config.format,
                       dispatcher=config.dispatcher, tools=config.tools,
                       seed=config.seed if config.seed is not None else 0,
                       scenarios=args.explore, abuses=config.abuses, corpus=config.corpus,
                       time_limit=config.time_limit)
    results = explore_parallel(ec, args.workers, emit)
    findings = []
    for r in results:
        for f in r.findings:
            if all(f.dedup_key() != g.dedup_key() for g in findings):
                findings.append(f)
    scen = sum(r.scenarios for r in results)
    loop = max(r.loop_seconds for r in results)
    summary = RunSummary(seed=ec.seed, targets=[ec.target], format=config.format,
                         dispatcher=config.dispatcher, tools=config.tools,
                         checks=list(FAST_CHECKS), abuses=[], findings=findings,
                         examples=scen, elapsed=loop, corpus_dir=config.corpus)
    _write_reports(summary, args)
    print(render_console(summary, color=_color(args)))
    print(f"explore: {scen} scenarios in {loop:.2f}s over {len(results)} worker(s):"
          f" {scen / loop:,.0f} scenarios/s (pool of {sum(r.pool for r in results)} bases"
          f" built in {max(r.pool_seconds for r in results):.1f}s)")
    return summary.exit_code


def _color(args: argparse.Namespace) -> bool:
    if args.color == "always":
        return True
    if args.color == "never":
        return False
    return sys.stdout.isatty()


def _write_reports(summary, args: argparse.Namespace) -> None:
    from .report import render_markdown, write_html, write_json, write_junit

    if args.json:
        write_json(summary, args.json)
    if args.junit:
        write_junit(summary, args.junit)
    if args.markdown:
        _write_text(args.markdown, render_markdown(summary))
    if args.html:
        write_html(summary, args.html)


def _write_text(path: str, text: str) -> None:
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"{path}: cannot write: {e.strerror or e}") from None


def _cmd_replay(args: argparse.Namespace) -> int:
    from .engine import replay

    paths = args.paths or ["fuzz_corpus"]
    for p in paths:
        if not Path(p).exists():
            raise InputFileError(f"{p}: no such corpus file or directory")
    results = replay(paths, target=args.target, dispatcher=args.dispatcher,
                     time_limit=args.time_limit)
    if not results:
        print("no findings to replay")
        return 0
    reproduced = [r for r in results if r.reproduced]
    for r in results:
        state = "reproduced" if r.reproduced else "FIXED" if not args.expect_reproduced \
            else "NOT REPRODUCED"
        state = state.ljust(14)
        print(f"{state}  {r.path}  [{r.finding.check}/{r.finding.verdict}] -> {r.observed}")
    print(f"\n{len(reproduced)} of {len(results)} findings reproduce"
          + (f" against {args.target}" if args.target else ""))
    if args.json:
        _write_text(args.json, json.dumps([
            {"path": str(r.path), "check": r.finding.check, "verdict": r.finding.verdict,
             "reproduced": r.reproduced, "observed": r.observed} for r in results
        ], indent=2) + "\n")
    if args.expect_reproduced:
        return 0 if len(reproduced) == len(results) else 1
    return 1 if reproduced else 0


def _cmd_study(args: argparse.Namespace) -> int:
    from .report import render_study_markdown, write_html
    from .study import STUDY_DESIGNS, render_matrix_text, run_study

    if args.examples < 1:
        raise UsageError("--examples must be at least 1")
    progress = None
    if not args.quiet:
        def progress(event) -> None:
            if event.kind == "progress":
                d = event.data
                print(f"\r[{d['done']}/{d['total']}] {d['design']} x {d['abuse']}"
                      f" ({d['bad']}/{d['n']} bad)".ljust(78), end="", file=sys.stderr,
                      flush=True)
            elif event.kind == "run-finished":
                print(file=sys.stderr)
    result = run_study(designs=args.design or STUDY_DESIGNS, abuses=_expand_abuses(args.abuse),
                       examples=args.examples, seed=args.seed, emit=progress)
    out = Path(args.out)
    _write_text(str(out / "study.md"), render_study_markdown(result))
    write_html(result, str(out / "study.html"))
    print(render_matrix_text(result))
    print(f"\n{len(result.cells)} cells x {result.examples_per_cell} examples, seed"
          f" {result.seed}, {result.elapsed:.1f}s; wrote {out / 'study.md'} and"
          f" {out / 'study.html'}")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from .bench import render_bench, run_bench

    if args.rounds < 1:
        raise UsageError("--rounds must be at least 1")
    if args.target:
        from .formats import get_format
        from .targets import load_target

        load_target(args.target, get_format(args.format)).close()  # fail fast on a bad target
    say = None if args.quiet else (lambda s: print(f"bench: {s}...", file=sys.stderr, flush=True))
    result = run_bench(quick=args.quick, rounds=args.rounds, target=args.target,
                       fmt=args.format, progress=say)
    print(render_bench(result))
    if args.markdown:
        _write_text(args.markdown, render_bench(result, markdown=True) + "\n")
    missed = [r.name for r in result.rows if r.met is False]
    print(f"\n{len(missed)} target(s) not met" + (f": {', '.join(missed)}" if missed else ""))
    return 0


def _cmd_abuses(args: argparse.Namespace) -> int:
    from .strategies import ABUSES

    w = max(len(a) for a in ABUSES)
    for a in ABUSES.values():
        print(f"{a.id:<{w}}  {a.description}")
    return 0


def _cmd_checks(args: argparse.Namespace) -> int:
    from .checks import CHECKS

    w = max(len(c) for c in CHECKS)
    for c in CHECKS.values():
        print(f"{c.id:<{w}}  {c.description}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    p = _Parser(
        prog="reactfuzz",
        description="Property-test the parsers behind text-protocol ReAct agents.",
    )
    p.add_argument("--version", action="version", version=f"reactfuzz {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    s = sub.add_parser("demo", help="show the built-in formats and parsers on a sample transcript")
    s.set_defaults(func=_cmd_demo)

    s = sub.add_parser("formats", help="list the built-in formats (and check their grammars load)")
    s.add_argument("-v", "--verbose", action="store_true", help="also print each format's rules")
    s.set_defaults(func=_cmd_formats)

    s = sub.add_parser("parsers", help="list the built-in parsers")
    s.set_defaults(func=_cmd_parsers)

    s = sub.add_parser("parse", help="print the Step a parser reads from one completion, as JSON")
    s.add_argument("--format", "-f", default="bracket", help="built-in format or .toml file")
    s.add_argument("--parser", "-p", default="grammar",
                   help="a built-in parser (default: grammar), module:function, regex:PATTERN"
                        " or grammar:FILE")
    s.add_argument("--transcript", action="store_true",
                   help="parse a whole transcript with the grammar instead of one completion")
    s.add_argument("file", nargs="?", default="-", help="completion file, or - for stdin")
    s.set_defaults(func=_cmd_parse)

    s = sub.add_parser("conform", help="run a JSONL file of transcripts through a format's grammar")
    s.add_argument("--format", "-f", required=True, help="built-in format or .toml file")
    s.add_argument("--field", default="text", help="record field holding the transcript")
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    s.add_argument("--show", type=int, default=20, help="records shown per reason (default 20)")
    s.add_argument("--min-rate", type=float, default=100.0,
                   help="exit 0 when at least this percentage is accepted (default 100)")
    s.add_argument("file", help="JSON Lines file, one transcript per record")
    s.set_defaults(func=_cmd_conform)

    s = sub.add_parser("fuzz", help="fuzz a parser (built-in, your function, regex or grammar)")
    g = s.add_argument_group("what to fuzz")
    g.add_argument("--parser", "-p", action="append", metavar="NAME",
                   help="a built-in parser (repeatable)")
    g.add_argument("--target", "-t", action="append", metavar="MODULE:FUNCTION",
                   help="your parser: a function (or object with .parse) importable from here")
    g.add_argument("--regex", action="append", metavar="PATTERN",
                   help="your Action regex, with named groups tool and args (or input)")
    g.add_argument("--grammar", action="append", metavar="FILE", help="your Lark grammar")
    g.add_argument("--format", "-f", default="bracket", help="built-in format or .toml file")
    g.add_argument("--tools", default="default",
                   help="'default', a JSON tools file, or module:attr (registry, functions,"
                        " pydantic models)")
    g.add_argument("--dispatcher", default="auto", choices=["auto", "positional", "typed"],
                   help="auto: positional for classic-* parsers, typed otherwise")
    g = s.add_argument_group("how hard")
    g.add_argument("--seed", type=int, help="the run's seed (printed; the same seed, the same"
                   " findings)")
    g.add_argument("--max-examples", type=int, default=60,
                   help="examples per abuse operator and target (default 60)")
    g.add_argument("--time-budget", type=float, metavar="SECONDS",
                   help="stop starting operators after this long")
    g.add_argument("--time-limit", type=float, default=1.0, metavar="SECONDS",
                   help="per-parse limit; slower is a bounded-time finding (default 1)")
    g.add_argument("--check", action="append", metavar="ID", help="run only these checks")
    g.add_argument("--plugin", action="append", metavar="MODULE",
                   help="import a module that registers your own checks (@check),"
                        " abuses or parsers")
    g.add_argument("--abuse", action="append", metavar="ID",
                   help="only these operators (an id, or a family like injected.*)")
    g.add_argument("--stream", choices=["whole", "eager"], default="whole",
                   help="how your client reads a streamed completion (default whole)")
    g.add_argument("--workers", type=int, default=1,
                   help="processes; operators are shared out, findings are the same")
    g.add_argument("--hypothesis-db", metavar="DIR",
                   help="a Hypothesis example database directory, shared by workers")
    g.add_argument("--explore", type=int, metavar="N",
                   help="fast mode: N mutated scenarios per worker without Hypothesis's"
                        " per-example cost; only failures are shrunk")
    g = s.add_argument_group("corpus")
    g.add_argument("--corpus", default="fuzz_corpus", metavar="DIR",
                   help="where findings are written and replayed from (default fuzz_corpus)")
    g.add_argument("--no-corpus", action="store_true", help="write no corpus files")
    g.add_argument("--no-replay", action="store_true", help="do not replay the corpus first")
    g.add_argument("--baseline", metavar="DIR",
                   help="fail only on findings not already in this corpus")
    g = s.add_argument_group("reports")
    g.add_argument("--json", metavar="FILE", help="the summary as JSON")
    g.add_argument("--events", metavar="FILE", help="an NDJSON log of engine events")
    g.add_argument("--junit", metavar="FILE", help="JUnit XML (one case per check x abuse)")
    g.add_argument("--markdown", metavar="FILE", help="a PR-comment summary")
    g.add_argument("--html", metavar="FILE", help="a self-contained HTML report with plots")
    g.add_argument("--strict-protocol", action="store_true",
                   help="count protocol notes (the format cannot carry an intent) as findings")
    g.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    g.add_argument("--color", choices=["auto", "always", "never"], default="auto")
    s.set_defaults(func=_cmd_fuzz)

    s = sub.add_parser("replay", help="re-run corpus findings (regression mode for CI)")
    s.add_argument("paths", nargs="*", help="corpus files or directories (default fuzz_corpus)")
    s.add_argument("--target", help="replay against this target instead of each file's own")
    s.add_argument("--dispatcher", default="auto", choices=["auto", "positional", "typed"],
                   help="with --target: auto = the target's own (positional for classic-*)")
    s.add_argument("--time-limit", type=float, default=1.0, metavar="SECONDS")
    s.add_argument("--expect-reproduced", action="store_true",
                   help="exit 0 only if every finding still reproduces (corpus self-test)")
    s.add_argument("--json", metavar="FILE", help="the results as JSON")
    s.set_defaults(func=_cmd_replay)

    s = sub.add_parser("study", help="every built-in design against every abuse (the main job)")
    s.add_argument("--examples", "-n", type=int, default=30,
                   help="examples per design and operator (default 30)")
    s.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    s.add_argument("--design", action="append", metavar="NAME", help="only these designs")
    s.add_argument("--abuse", action="append", metavar="ID", help="only these operators")
    s.add_argument("--out", default="reactfuzz-study", metavar="DIR",
                   help="where study.md and study.html go (default reactfuzz-study)")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    s.set_defaults(func=_cmd_study)

    s = sub.add_parser("bench", help="measure parsers, generators and the engine side by side")
    s.add_argument("--rounds", type=int, default=7, help="alternating rounds (default 7)")
    s.add_argument("--quick", action="store_true", help="smaller workloads (same method)")
    s.add_argument("--target", metavar="SPEC", help="also time your own parser")
    s.add_argument("--format", "-f", default="bracket", help="format of --target")
    s.add_argument("--markdown", metavar="FILE", help="write the table as Markdown")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    s.set_defaults(func=_cmd_bench)

    s = sub.add_parser("abuses", help="list the abuse operators")
    s.set_defaults(func=_cmd_abuses)
    s = sub.add_parser("checks", help="list the checks")
    s.set_defaults(func=_cmd_checks)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # name the subcommand whose options were meant, not the top level
        sub = getattr(args, "command", None)
        where = f"reactfuzz {sub}" if sub else "reactfuzz"
        print(f"reactfuzz: error: unrecognized arguments: {' '.join(extra)} (see '{where}"
              " --help')", file=sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except ReactfuzzError as e:
        print(f"reactfuzz: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("reactfuzz: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    entry()
