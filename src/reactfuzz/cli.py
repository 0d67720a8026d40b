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

from . import __version__
from .conform import conform
from .errors import InputFileError, ReactfuzzError
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
    fmt = get_format(args.format)
    parser = get_parser(args.parser, fmt)
    text = _read_input(args.file)
    if args.transcript:
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
    step = parser.parse(text)
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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    p = argparse.ArgumentParser(
        prog="reactfuzz",
        description="Property-test the parsers behind text-protocol ReAct agents.",
    )
    p.add_argument("--version", action="version", version=f"reactfuzz {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
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
    s.add_argument("--parser", "-p", default="grammar", help="parser name (default: grammar)")
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
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
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
