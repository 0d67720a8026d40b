"""A plain coverage-guided peer of reactfuzz: Atheris on raw text with a round-trip oracle.

What a careful engineer writes in an afternoon to fuzz a text-protocol parser, kept here to
measure reactfuzz against: ``python -m zoo.atheris_peer MODULE --seconds 60 --out DIR``.
Atheris (libFuzzer for Python) mutates raw bytes, instrumented for coverage of the
parser's framework, starting from a few clean completions of the parser's format. The
oracle knows no intent, only the text:

* ``crash``: the parser raised something other than ``ValueError`` (a refusal);
* ``roundtrip``: the parser read a call or an answer, the format wrote that back, and the
  parser read the rewritten text differently;
* ``disagrees``: the format's grammar reads the text as a call and the parser runs
  another call, or a call where the grammar reads an answer (the grammar is the only
  reference such a harness has).

Findings are grouped by kind and by where the parser decided (the exception's type and
line, or the call's tool), the shortest input of each kept, and written as JSON when the
time is up. reactfuzz's engine is not used, only its writer and grammar as references.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import json
import logging
import sys
import traceback
from pathlib import Path
from typing import Any

import atheris

from reactfuzz import grammar_parse
from reactfuzz.formats import get_format
from reactfuzz.model import Call, FinalAnswer
from reactfuzz.render import render

from . import ZOO
from .run import format_path

FOUND: dict[str, dict[str, Any]] = {}
RUNS = [0]


def _read(parse: Any, text: str) -> tuple[str, Any]:
    kind, value = parse(text)
    if kind == "action":
        tool, args = value
        return ("action", (tool, json.dumps(args, sort_keys=True, default=str)))
    return ("final", str(value).strip())


def _save(path: Path, module: str) -> None:
    """The findings so far (written as they come: libFuzzer ends the process itself)."""
    path.write_text(json.dumps({"module": module, "runs": RUNS[0], "findings": sorted(
        FOUND.values(), key=lambda f: (f["kind"], f["where"]))}, indent=1))


def _record(kind: str, where: str, text: str, detail: str) -> None:
    key = f"{kind} @ {where}"
    old = FOUND.get(key)
    if old is None or len(text) < len(old["input"]):
        FOUND[key] = {"kind": kind, "where": where, "input": text, "detail": detail[:300],
                      "hits": (old["hits"] if old else 0) + 1}
    else:
        old["hits"] += 1


def one_input(parse: Any, fmt: Any, data: bytes) -> None:
    RUNS[0] += 1
    text = data.decode("utf-8", "replace")  # the seeds are text; any bytes become text
    try:
        got = _read(parse, text)
    except ValueError:
        return  # a refusal
    except Exception as e:
        frame = traceback.extract_tb(e.__traceback__)[-1]
        _record("crash", f"{type(e).__name__} {Path(frame.filename).name}:{frame.lineno}",
                text, repr(e))
        return
    ref = grammar_parse(text, fmt)
    if ref.action is not None and (got[0] != "action" or got[1][0] != ref.action.tool):
        _record("disagrees", f"{got[0]} {got[1][0] if got[0] == 'action' else ''}".strip(),
                text, f"grammar reads {ref.action.tool}; parser {got}")
    try:
        if got[0] == "final":
            intent: Any = FinalAnswer(got[1])
        else:
            args = json.loads(got[1][1])
            intent = (Call(got[1][0], tuple(args.values()), tuple(args)) if isinstance(args, dict)
                      else Call(got[1][0], tuple(args)))
        again = _read(parse, render(intent, fmt))
    except Exception as e:  # the format cannot write it, or the parser refuses its writing
        again = ("error", type(e).__name__)
    if again != got:
        _record("roundtrip", got[0], text, f"{got} then {again}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("module")
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--out", type=Path, default=Path("peer"))
    args, rest = ap.parse_known_args(argv)
    parser = next(p for p in ZOO if p.module == args.module)
    logging.disable(logging.CRITICAL)  # frameworks log every refusal
    fmt = get_format(format_path(parser))
    atheris.enabled_hooks.add("str")  # string comparisons guide the mutator
    with atheris.instrument_imports(include=[parser.imports, "json5", "json_repair"]):
        parse = importlib.import_module(f"zoo.{parser.module}").parse
    seeds = args.out / f"{parser.module}-seeds"
    seeds.mkdir(parents=True, exist_ok=True)
    for i, intent in enumerate([Call.named("search", query="Paris"), FinalAnswer("done"),
                                Call.named("get_weather", city="Oslo", units="metric")]):
        (seeds / f"seed{i}").write_text(render(intent, fmt, thought="look it up"))

    out = args.out / f"{parser.module}.json"

    def test_one(data: bytes) -> None:
        one_input(parse, fmt, data)
        if RUNS[0] % 5000 == 0:
            _save(out, parser.module)

    atexit.register(_save, out, parser.module)
    atheris.Setup([sys.argv[0], f"-max_total_time={args.seconds}", "-rss_limit_mb=4096",
                   "-timeout=10", *rest, str(seeds)], test_one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
