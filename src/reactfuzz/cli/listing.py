"""The listing commands: ``formats``, ``parsers``, ``abuses``, ``checks`` and ``demo``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .. import __version__
from ..formats import BUILTIN_FORMATS
from ..formats.grammars import grammar_source, lark_parser, parse_transcript
from ..model import Call, FinalAnswer, Intent
from ..parsers import PARSERS, get_parser, parser_descriptions
from ..render import render


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
            for pname in _DEMO_PARSERS.get(name, ["grammar"]):
                step = get_parser(pname, name).parse(comp)
                cells.append(f"{pname}: {_short(step.to_dict())}")
            print(f"   {label:<7} " + "\n           ".join(cells))
        print()
    print("The 'comma' row is `search` with the single argument 'Paris, France': parsers that")
    print("split on commas see two arguments. `reactfuzz parse --format F --parser P -` reads")
    print("your own completion; `reactfuzz conform --format F logs.jsonl` checks real logs.")
    return 0



def _cmd_abuses(args: argparse.Namespace) -> int:
    from ..strategies import ABUSES

    w = max(len(a) for a in ABUSES)
    for a in ABUSES.values():
        print(f"{a.id:<{w}}  {a.description}")
    return 0


def checks_listing() -> str:
    """What ``reactfuzz checks`` prints: every registered check's id and description."""
    from ..engine.checks import CHECKS

    w = max(len(c) for c in CHECKS)
    return "\n".join(f"{c.id:<{w}}  {c.description}" for c in CHECKS.values())


def _cmd_checks(args: argparse.Namespace) -> int:
    print(checks_listing())
    return 0
