"""The ``reactfuzz`` argument parser: every command, its options and their help.

Building it imports no command and no registry, so ``reactfuzz --help`` and ``--version``
start fast: each command's module is imported when the command runs (:func:`_command`), and
choices drawn from a registry are read when argparse first needs them (:class:`_Choices`).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NoReturn, overload

from .. import __version__
from .validate import MAX_WORKERS, count, number, seconds, seed

__all__ = ["OneLineParser", "build_parser"]

Command = Callable[[argparse.Namespace], int]

_VERBOSE = ("also each operator's start, example counts and findings' completions in full"
            " (-q wins)")
_PERCENT = number(low=0.0, high=100.0, low_open=False, unit=" (a percentage)")


class OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2) instead of the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"reactfuzz: error: {message} (see '{self.prog} --help')\n")


def _command(module: str, name: str) -> Command:
    """The command ``name`` of ``reactfuzz.cli.<module>``, imported only when it runs."""

    def run(args: argparse.Namespace) -> int:
        return int(getattr(importlib.import_module(f"{__package__}.{module}"), name)(args))

    run.__name__ = run.__qualname__ = name
    return run


class _Choices(Sequence[str]):
    """Argparse ``choices`` read from a registry the first time they are needed.

    ``fixed`` come first (e.g. ``auto``), then the registry's names in its order; ``load``
    returns the registry (a dict or a :class:`~reactfuzz.registry.Registry`), so its module
    is imported only to check a value or to draw a command's help.
    """

    def __init__(self, load: Callable[[], Iterable[str]], *fixed: str) -> None:
        self._load = load
        self._fixed = fixed
        self._names: list[str] | None = None

    def _all(self) -> list[str]:
        if self._names is None:
            self._names = list(dict.fromkeys([*self._fixed, *self._load()]))
        return self._names

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...
    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        return self._all()[i]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __contains__(self, value: object) -> bool:
        return value in self._all()


def _lazy_choices(action: argparse.Action, choices: _Choices) -> None:
    """Give ``action`` its choices after ``add_argument``, which would read them at once."""
    action.choices = choices


def _dispatchers() -> Iterable[str]:
    from ..dispatch import DISPATCHERS

    return list(DISPATCHERS)


def _loop_outputs(s: argparse.ArgumentParser) -> None:
    """The corpus and report options ``loop`` and ``serve`` share."""
    g = s.add_argument_group("corpus")
    g.add_argument("--corpus", default="loop_corpus", metavar="DIR",
                   help="where findings are written and replayed from (default loop_corpus)")
    g.add_argument("--no-corpus", action="store_true", help="write no corpus files")
    g.add_argument("--no-replay", action="store_true", help="do not replay the corpus first")
    g = s.add_argument_group("reports")
    g.add_argument("--json", metavar="FILE", help="the summary as JSON")
    g.add_argument("--events", metavar="FILE", help="an NDJSON log of engine events")
    g.add_argument("--junit", metavar="FILE", help="JUnit XML (one failing case per bug)")
    g.add_argument("--markdown", metavar="FILE", help="a PR-comment summary")
    g.add_argument("--html", metavar="FILE", help="a self-contained HTML report")
    g.add_argument("--sarif", metavar="FILE", help="SARIF 2.1.0 for code scanning")
    g.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    g.add_argument("--color", choices=["auto", "always", "never"], default="auto")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    p = OneLineParser(
        prog="reactfuzz",
        description="Property-test the parsers behind text-protocol ReAct agents.",
    )
    p.add_argument("--version", action="version", version=f"reactfuzz {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True

    s = sub.add_parser("demo", help="show the built-in formats and parsers on a sample transcript")
    s.set_defaults(func=_command("listing", "_cmd_demo"))

    s = sub.add_parser("formats", help="list the built-in formats (and check their grammars load)")
    s.add_argument("-v", "--verbose", action="store_true", help="also print each format's rules")
    s.set_defaults(func=_command("listing", "_cmd_formats"))

    s = sub.add_parser("parsers", help="list the built-in parsers")
    s.set_defaults(func=_command("listing", "_cmd_parsers"))

    s = sub.add_parser("parse", help="print the Step a parser reads from one completion, as JSON")
    s.add_argument("--format", "-f", default="bracket", help="built-in format or .toml file")
    s.add_argument("--parser", "-p", default="grammar",
                   help="a built-in parser (default: grammar), module:function, regex:PATTERN"
                        " or grammar:FILE")
    s.add_argument("--transcript", action="store_true",
                   help="parse a whole transcript with the grammar instead of one completion")
    s.add_argument("file", nargs="?", default="-", help="completion file, or - for stdin")
    s.set_defaults(func=_command("parse", "_cmd_parse"))

    s = sub.add_parser("conform", help="run a JSONL file of transcripts through a format's grammar")
    s.add_argument("--format", "-f", required=True, help="built-in format or .toml file")
    s.add_argument("--field", default="text", help="record field holding the transcript")
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    s.add_argument("--show", type=count(0), default=20,
                   help="records shown per reason (default 20)")
    s.add_argument("--min-rate", type=_PERCENT, default=100.0,
                   help="exit 0 when at least this percentage is accepted (default 100)")
    s.add_argument("file", help="JSON Lines file, one transcript per record")
    s.set_defaults(func=_command("parse", "_cmd_conform"))

    s = sub.add_parser("fuzz", help="fuzz a parser (built-in, your function, regex or grammar)")
    g = s.add_argument_group("what to fuzz")
    g.add_argument("--parser", "-p", action="append", metavar="NAME",
                   help="a built-in parser (repeatable)")
    g.add_argument("--target", "-t", action="append", metavar="MODULE:FUNCTION",
                   help="your parser: a function (or object with .parse) importable from here")
    g.add_argument("--regex", action="append", metavar="PATTERN",
                   help="your Action regex, with named groups tool and args (or input)")
    g.add_argument("--grammar", action="append", metavar="FILE", help="your Lark grammar")
    g.add_argument("--format", "-f", default="bracket",
                   help="built-in format, .toml file, or auto (probe every built-in format"
                        " with clean renderings and pick the one the target reads best)")
    g.add_argument("--no-fit-check", action="store_true",
                   help="fuzz even a target that does not read the format's clean renderings")
    g.add_argument("--tools", default="default",
                   help="'default', a JSON tools file, or module:attr (registry, functions,"
                        " pydantic models)")
    _lazy_choices(g.add_argument(
        "--dispatcher", default="auto",
        help="auto: positional for classic-* parsers, typed otherwise",
    ), _Choices(_dispatchers, "auto"))
    g = s.add_argument_group("how hard")
    g.add_argument("--seed", type=seed, help="the run's seed (printed; the same seed, the same"
                   " findings)")
    g.add_argument("--max-examples", type=count(1, 10_000_000), default=60,
                   help="examples per abuse operator and target (default 60, at most"
                   " 10,000,000); the longest inputs grow with it past 60")
    g.add_argument("--time-budget", type=seconds, metavar="SECONDS",
                   help="stop the run after this long: the operator running stops mid-search"
                   " (what it found is kept, unshrunk) and the rest are skipped")
    g.add_argument("--time-limit", type=seconds, default=1.0, metavar="SECONDS",
                   help="per-parse limit (default 1); past 16 kB of input it grows with the"
                   " length, so only super-linear parsing is a bounded-time finding")
    g.add_argument("--check", action="append", metavar="ID[,ID...]",
                   help="run only these checks (comma lists; repeatable)")
    g.add_argument("--exclude-check", action="append", metavar="ID[,ID...]",
                   help="run every check (or every --check) but these")
    g.add_argument("--plugin", action="append", metavar="MODULE",
                   help="import a module that registers your own checks (@check),"
                        " abuses or parsers")
    g.add_argument("--abuse", action="append", metavar="ID",
                   help="only these operators (an id, or a family like injected.*)")
    g.add_argument("--stream", choices=["whole", "eager"], default="whole",
                   help="how your client reads a streamed completion (default whole)")
    g.add_argument("--workers", type=count(1, MAX_WORKERS), default=1,
                   help="processes; operators are shared out, findings are the same")
    g.add_argument("--hypothesis-db", metavar="DIR",
                   help="a Hypothesis example database directory, shared by workers")
    g.add_argument("--explore", type=count(1), metavar="N",
                   help="fast mode: N mutated scenarios per worker without Hypothesis's"
                        " per-example cost; only failures are shrunk")
    g.add_argument("--guided", action="store_true",
                   help="with --explore: trace every parse and mutate further the scenarios"
                        " that reach new lines of your parser's code; prints the coverage")
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
    g.add_argument("--junit", metavar="FILE", help="JUnit XML (one failing case per bug)")
    g.add_argument("--markdown", metavar="FILE", help="a PR-comment summary")
    g.add_argument("--html", metavar="FILE", help="a self-contained HTML report with plots")
    g.add_argument("--sarif", metavar="FILE",
                   help="SARIF 2.1.0 for code scanning (each bug at the line that decided)")
    g.add_argument("--strict-protocol", action="store_true",
                   help="count protocol notes (the format cannot carry an intent) as findings")
    g.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    g.add_argument("--verbose", "-v", action="store_true", help=_VERBOSE)
    g.add_argument("--color", choices=["auto", "always", "never"], default="auto")
    s.set_defaults(func=_command("fuzz", "_cmd_fuzz"))

    s = sub.add_parser("loop", help="drive your whole agent loop with a fake model and tools")
    g = s.add_argument_group("what to drive")
    g.add_argument("--target", "-t", required=True, metavar="MODULE:FUNCTION",
                   help="your loop: run(llm, tools, task) -> str, importable from here")
    g.add_argument("--format", "-f", default="bracket",
                   help="the format the loop's prompt asks for: built-in or .toml file")
    g.add_argument("--tools", default="default",
                   help="'default', a JSON tools file, or module:attr: the tools the fake"
                        " model calls (each records its call and runs nothing)")
    g = s.add_argument_group("how hard")
    g.add_argument("--seed", type=seed, help="the run's seed (printed)")
    g.add_argument("--max-examples", type=count(1, 1_000_000), default=20,
                   help="scripts per script kind (default 20)")
    g.add_argument("--max-calls", type=count(2, 10_000), default=30,
                   help="the model calls a loop may make on one script before it counts as"
                        " unbounded (default 30)")
    g.add_argument("--time-limit", type=seconds, default=10.0, metavar="SECONDS",
                   help="per-script limit (default 10)")
    g.add_argument("--check", action="append", metavar="ID[,ID...]",
                   help="run only these loop checks (comma lists; repeatable)")
    g.add_argument("--kind", action="append", metavar="KIND",
                   help="only these script kinds: loop.* kinds or abuse operator ids (a"
                        " family like injected.* too)")
    _loop_outputs(s)
    s.set_defaults(func=_command("loop", "_cmd_loop"))

    s = sub.add_parser("serve", help="fuzz an agent in any language through a fake"
                       " OpenAI-compatible server")
    g = s.add_argument_group("what to drive")
    g.add_argument("--command", "-c", required=True, metavar="CMD",
                   help="runs your agent once: it reads $REACTFUZZ_TASK, talks to"
                        " $OPENAI_BASE_URL and prints its answer")
    g.add_argument("--format", "-f", default="bracket",
                   help="the format the agent's prompt asks for: built-in or .toml file")
    g.add_argument("--tools", default="default",
                   help="the tools the scripts call: 'default', a JSON tools file, or"
                        " module:attr")
    g.add_argument("--port", type=count(0, 65535), default=0,
                   help="the server's port on 127.0.0.1 (default: a free one)")
    g = s.add_argument_group("how hard")
    g.add_argument("--seed", type=seed, help="the run's seed (printed)")
    g.add_argument("--max-examples", type=count(1, 100_000), default=5,
                   help="scripts per script kind (default 5: each runs the command)")
    g.add_argument("--max-calls", type=count(2, 10_000), default=30,
                   help="model calls per script before the server refuses (default 30)")
    g.add_argument("--time-limit", type=seconds, default=60.0, metavar="SECONDS",
                   help="per run of the command (default 60)")
    g.add_argument("--check", action="append", metavar="ID[,ID...]",
                   help="only these of the loop checks a server can judge")
    g.add_argument("--kind", action="append", metavar="KIND",
                   help="only these script kinds (loop.*, operator ids or families)")
    _loop_outputs(s)
    s.set_defaults(func=_command("loop", "_cmd_serve"))

    s = sub.add_parser("replay", help="re-run corpus findings (regression mode for CI)")
    s.add_argument("paths", nargs="*", help="corpus files or directories (default fuzz_corpus)")
    s.add_argument("--target", help="replay against this target instead of each file's own")
    _lazy_choices(s.add_argument(
        "--dispatcher", default="auto",
        help="with --target: auto = the target's own (positional for classic-*)",
    ), _Choices(_dispatchers, "auto"))
    s.add_argument("--tools", help="tools for every finding instead of each file's own")
    s.add_argument("--plugin", action="append", metavar="MODULE",
                   help="import a module that registers the checks some findings name"
                        " (findings of checks not registered are skipped and counted)")
    s.add_argument("--trust-corpus", action="store_true",
                   help="also run findings whose file names a module:attr target or tools"
                        " (imports that code: only for a corpus you wrote)")
    s.add_argument("--time-limit", type=seconds, default=1.0, metavar="SECONDS")
    s.add_argument("--expect-reproduced", action="store_true",
                   help="exit 0 only if every finding still reproduces (corpus self-test)")
    s.add_argument("--json", metavar="FILE", help="the results as JSON")
    s.set_defaults(func=_command("fuzz", "_cmd_replay"))

    s = sub.add_parser("study", help="every built-in design against every abuse (the main job)")
    s.add_argument("--examples", "-n", type=count(1), default=20,
                   help="examples per design and operator (default 20)")
    s.add_argument("--seed", type=seed, default=0, help="seed (default 0)")
    s.add_argument("--design", action="append", metavar="NAME",
                   help="only these designs: a classic parser's name from 'reactfuzz parsers' or"
                   " grammar-FORMAT (docs/study.md lists them)")
    s.add_argument("--abuse", action="append", metavar="ID", help="only these operators")
    s.add_argument("--out", default="reactfuzz-study", metavar="DIR",
                   help="where study.md and study.html go (default reactfuzz-study)")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    s.add_argument("--verbose", "-v", action="store_true", help=_VERBOSE)
    s.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                   help="colour the progress (auto: on a terminal, unless NO_COLOR is set)")
    s.set_defaults(func=_command("study", "_cmd_study"))

    s = sub.add_parser("bench", help="measure parsers, generators and the engine side by side")
    s.add_argument("--rounds", type=count(1), default=7, help="alternating rounds (default 7)")
    s.add_argument("--quick", action="store_true", help="smaller workloads (same method)")
    s.add_argument("--target", metavar="SPEC",
                   help="also time your own parser, through its worker and explored")
    s.add_argument("--format", "-f", default="bracket",
                   help="format of --target and --completions")
    s.add_argument("--completions", metavar="FILE",
                   help="also time the grammar on your completions (JSON Lines)")
    s.add_argument("--field", default="text", metavar="KEY",
                   help="the key of each line holding the completion (default text)")
    s.add_argument("--markdown", metavar="FILE", help="write the table as Markdown")
    s.add_argument("--sizes", action="store_true",
                   help="only how parse time grows with input size (100 B to 1 MB, 10 to"
                        " 10,000 steps), with fitted exponents")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    s.set_defaults(func=_command("study", "_cmd_bench"))

    s = sub.add_parser("abuses", help="list the abuse operators")
    s.set_defaults(func=_command("listing", "_cmd_abuses"))
    s = sub.add_parser("checks", help="list the checks")
    s.set_defaults(func=_command("listing", "_cmd_checks"))
    return p
