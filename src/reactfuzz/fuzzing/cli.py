"""``python -m reactfuzz.fuzzing``: dictionary, seeds, campaigns and crash files.

* ``dict --format F`` prints the format's libFuzzer dictionary;
* ``seeds DIR --format F`` writes the seed inputs (operators' completions, corpus inputs);
* ``run TARGET --format F --seconds N --findings DIR`` runs a campaign (Atheris when it
  is installed, else the pure-Python driver) and writes each new root cause as a corpus
  finding;
* ``shrink TARGET FILE... --findings DIR`` turns crash files (a fuzzer's inputs) into
  shrunk corpus findings;
* ``TARGET [FORMAT] [libFuzzer options]``: the harness under Atheris, stopping at the
  first failure (a crash file), as before.

Mistakes are one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

from ..cli.arguments import OneLineParser
from ..cli.validate import check_outputs, count, seconds, seed
from ..errors import ReactfuzzError, UsageError
from ..formats import get_format
from ..targets import load_tools
from ..textsafe import safe_stream
from .dictionary import dictionary_entries, dictionary_text
from .driver import run_driver
from .harness import Harness
from .seeds import seed_inputs, write_inputs

__all__ = ["main"]

_COMMANDS = ("dict", "seeds", "run", "shrink")


def _common(p: argparse.ArgumentParser, *, target: bool) -> None:
    p.add_argument("--format", "-f", default="bracket", help="built-in format or .toml file")
    p.add_argument("--tools", default="default", help="'default', a JSON file or module:attr")
    if target:
        p.add_argument("--dispatcher", default="auto", choices=("auto", "positional", "typed"))
        p.add_argument("--time-limit", type=seconds, default=1.0, help="per-parse limit (s)")
        p.add_argument("--check", action="append", default=None,
                       help="only these checks (default: every check that applies)")
        p.add_argument("--findings", default="fuzz_corpus",
                       help="reactfuzz corpus directory: known root causes are read from it,"
                            " new ones written to it (default fuzz_corpus)")


def _parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="python -m reactfuzz.fuzzing",
                       description="long coverage-guided campaigns")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    d = sub.add_parser("dict", help="print the format's libFuzzer dictionary")
    _common(d, target=False)
    s = sub.add_parser("seeds", help="write seed inputs into a libFuzzer corpus directory")
    s.add_argument("directory")
    _common(s, target=False)
    s.add_argument("--seed", type=seed, default=0)
    s.add_argument("--per-operator", type=count(1, MAX_PER_OPERATOR), default=4)
    s.add_argument("--corpus", action="append", default=[],
                   help="also seed from this corpus directory (repeatable)")
    r = sub.add_parser("run", help="run a campaign against a target")
    r.add_argument("target")
    _common(r, target=True)
    r.add_argument("--seconds", type=seconds, default=60.0)
    r.add_argument("--driver", choices=("auto", "atheris", "python"), default="auto")
    r.add_argument("--inputs", default=None,
                   help="libFuzzer corpus directory to seed from and grow (shared by runs)")
    r.add_argument("--corpus", action="append", default=[],
                   help="also seed from this corpus directory (repeatable)")
    r.add_argument("--seed", type=seed, default=0)
    r.add_argument("--per-operator", type=count(1, MAX_PER_OPERATOR), default=4)
    r.add_argument("--instrument", action="append", default=[],
                   help="also instrument this package (the framework behind your parser)")
    r.add_argument("libfuzzer", nargs="*", default=[], help="after --: libFuzzer options")
    k = sub.add_parser("shrink", help="turn crash files into shrunk corpus findings")
    k.add_argument("target")
    k.add_argument("files", nargs="+")
    _common(k, target=True)
    return ap


MAX_PER_OPERATOR = 10_000
"""The most seed inputs ``--per-operator`` asks of each abuse operator."""


def _check_paths(a: argparse.Namespace) -> None:
    """Refuse, before any work, a directory that cannot be read or written: one line
    naming the option and the path (exit 2), never an ``OSError`` traceback later."""
    check_outputs([], [(f"--{name}" if name != "directory" else "DIRECTORY",
                        getattr(a, name, None)) for name in ("findings", "inputs", "directory")])
    for value in getattr(a, "instrument", []):
        top = value.split(".")[0]
        if not top.isidentifier() or importlib.util.find_spec(top) is None:
            raise UsageError(f"--instrument {value}: no such package here (name a package"
                             " your parser imports, such as the framework it comes from)")
    for value in getattr(a, "corpus", []):
        if not Path(value).is_dir():
            raise UsageError(f"--corpus {value}: not a directory (give a corpus directory)")
    for value in getattr(a, "files", []):
        if not Path(value).is_file():
            raise UsageError(f"{value}: not a file (give the crash files to shrink)")


def _harness(a: argparse.Namespace, on_failure: str) -> Harness:
    return Harness(a.target, a.format, dispatcher=a.dispatcher, tools=a.tools,
                   checks=[c for x in a.check for c in x.split(",")] if a.check else None,
                   time_limit=a.time_limit, findings=a.findings,
                   on_failure=on_failure)  # type: ignore[arg-type]


def _run(a: argparse.Namespace) -> int:
    fmt = get_format(a.format)
    harness = _harness(a, "record")
    corpus = [a.findings, *a.corpus] + ([a.inputs] if a.inputs else [])
    seeds = seed_inputs(fmt, harness.registry, seed=a.seed, per_operator=a.per_operator,
                        corpus=corpus)
    harness.stats.started = time.perf_counter()  # runs per second count fuzzing alone
    driver = a.driver
    if driver == "auto":
        try:
            import atheris  # type: ignore[import-untyped, import-not-found, unused-ignore]  # noqa: F401
            driver = "atheris"
        except ImportError:
            driver = "python"
    print(f"reactfuzz: {a.target} · format {fmt.name} · {len(seeds)} seeds · driver {driver}"
          f" · findings {a.findings} · {len(harness.known)} known root causes",
          file=sys.stderr)
    if driver == "atheris":
        from .libfuzzer import run_atheris

        run_atheris(harness, seeds, dictionary_text(fmt, harness.registry),
                    seconds=a.seconds, inputs=a.inputs, instrument=a.instrument,
                    libfuzzer_args=a.libfuzzer)
    stats = run_driver(harness, seeds, dictionary_entries(fmt, harness.registry),
                       seconds=a.seconds, seed=a.seed)
    if a.inputs:
        write_inputs([f.completion.encode("utf-8") for f in stats.findings], a.inputs)
    harness.close()
    print(stats.summary(), file=sys.stderr)
    for f in stats.findings:
        print(f"  {f.check} ({f.failure}): {f.completion!r}", file=sys.stderr)
    return 1 if stats.findings else 0


def _shrink(a: argparse.Namespace) -> int:
    harness = _harness(a, "record")
    found = 0
    for name in a.files:
        path = Path(name)
        try:
            data = path.read_bytes()
        except OSError as e:
            raise ReactfuzzError(f"{path}: cannot read: {e.strerror}") from None
        ex = harness.examine(data.decode("utf-8", errors="replace"))
        if ex.failure is None:
            print(f"{path}: passes every check", file=sys.stderr)
            continue
        found += 1
        finding, written = harness.record(ex)
        where = written or "(already in the corpus)"
        print(f"{path}: {finding.check} ({finding.failure}) -> {where}", file=sys.stderr)
    harness.close()
    return 1 if found else 0


def _legacy(args: list[str]) -> int:
    """``TARGET [FORMAT] [libFuzzer options]``: raise at the first failure, as libFuzzer
    expects of a fuzz target."""
    target = args.pop(0)
    fmt = args.pop(0) if args and not args[0].startswith("-") else "bracket"
    from .libfuzzer import import_atheris, instrument_modules, target_modules

    atheris = import_atheris()
    harness = Harness(target, fmt, on_failure="raise")
    instrument_modules(atheris, target_modules(target))
    atheris.Setup([sys.argv[0], *args], harness)
    atheris.Fuzz()
    return 0  # pragma: no cover -- Fuzz() does not return


def main(argv: list[str] | None = None) -> None:
    """The command line (see the module docstring); exits with its code. What it writes
    passes the one sanitiser, as the ``reactfuzz`` command's output does."""
    args = list(sys.argv[1:] if argv is None else argv)
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = safe_stream(out), safe_stream(err)
    try:
        if args and args[0] not in _COMMANDS and not args[0].startswith("-"):
            raise SystemExit(_legacy(args))
        a = _parser().parse_args(args)
        _check_paths(a)
        if a.command == "dict":
            fmt = get_format(a.format)
            sys.stdout.write(dictionary_text(fmt, load_tools(a.tools)))
            code = 0
        elif a.command == "seeds":
            fmt = get_format(a.format)
            inputs = seed_inputs(fmt, load_tools(a.tools), seed=a.seed,
                                 per_operator=a.per_operator, corpus=a.corpus)
            new = write_inputs(inputs, a.directory)
            print(f"{len(inputs)} seeds ({new} new) in {a.directory}", file=sys.stderr)
            code = 0
        elif a.command == "run":
            code = _run(a)
        else:
            code = _shrink(a)
    except (ReactfuzzError, ValueError) as e:
        print(f"reactfuzz: error: {e}", file=sys.stderr)
        code = 2
    finally:
        sys.stdout, sys.stderr = out, err
    raise SystemExit(code)
