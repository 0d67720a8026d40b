"""Specification of the format fit (reactfuzz.engine.fit), of what a misfit or an unreadable
result does on the command line, of the engine's workers with a user target, and of the
positional dispatcher's arguments."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from reactfuzz.cli import main
from reactfuzz.dispatch import Crashed, Executed, dispatch_positional
from reactfuzz.engine import FuzzConfig, run_fuzz
from reactfuzz.engine.fit import (
    FIT_THRESHOLD,
    FormatFitError,
    check_fit,
    choose_format,
    probe_format,
    probe_formats,
)
from reactfuzz.formats import BUILTIN_FORMATS, get_format
from reactfuzz.model import Action, Call, Step
from reactfuzz.targets import UnsupportedResultError, builtin_target, load_target
from reactfuzz.tools import default_registry


@dataclass
class Result:
    """What a command did: its exit code and what it printed."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
        ) -> Callable[..., Result]:
    """Run ``reactfuzz ARGS`` in this process, output captured."""

    def run(*args: str, cwd: Path | None = None) -> Result:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


BRACKET_AGENT = textwrap.dedent('''
    import re

    def parse(text):
        """A bracket parser of the tutorial kind, as a user writes it."""
        if "Answer:" in text:
            return ("final", text.split("Answer:", 1)[1].strip())
        m = re.search(r"^Action:\\s*(\\w+)\\[(.*)\\]\\s*$", text, re.M)
        if m is None:
            raise ValueError("no action")
        args = m.group(2)
        return ("action", (m.group(1), [a.strip() for a in args.split(",")] if args else []))
''')


def write_module(directory: Path, name: str, source: str) -> str:
    (directory / f"{name}.py").write_text(source, encoding="utf-8")
    return f"{name}:parse"


# --------------------------------------------------------------------------- the probe


def test_the_probe_is_deterministic_and_reads_the_own_format() -> None:
    reg = default_registry()
    target = builtin_target("classic-bracket", "bracket")
    first = probe_format(target, "bracket", reg, "positional")
    again = probe_format(target, "bracket", reg, "positional")
    assert (first.calls, first.calls_read, first.answers, first.answers_read) == (
        again.calls, again.calls_read, again.answers, again.answers_read)
    assert first.calls >= 8 and first.answers >= 4  # calls of several tools, and answers
    assert first.calls + first.answers <= 40  # cheap: a few dozen completions
    assert first.fits and first.rate == 1.0


def test_calls_decide_the_fit_not_answers() -> None:
    reg = default_registry()
    # reads every call but no answer: it speaks bracket, its answers are a finding
    unanchored = probe_format(builtin_target("classic-unanchored", "bracket"), "bracket", reg,
                              "positional")
    assert unanchored.answers_read == 0 and unanchored.fits
    # reads only the answers (Answer: is the same in both formats): not json-args
    bracket = probe_format(builtin_target("classic-bracket", "json-args"), "json-args", reg,
                           "positional")
    assert bracket.answers_read == bracket.answers and bracket.calls_read == 0
    assert not bracket.fits and bracket.rate < FIT_THRESHOLD


@pytest.mark.parametrize(("parser", "home"), [
    ("classic-bracket", "bracket"),
    ("classic-action-input", "action-input"),
    ("hardened-bracket", "bracket"),
])
def test_a_classic_parser_fits_its_own_format_and_not_the_others(parser: str, home: str
                                                                 ) -> None:
    fits = {f.format: f for f in probe_formats(
        parser, default_registry(), "positional" if parser.startswith("classic") else "typed")}
    assert list(fits) == list(BUILTIN_FORMATS)  # every registered format is probed
    assert fits[home].fits
    others = {"bracket", "paper", "action-input", "json-args"} - {home}
    assert not any(fits[name].fits for name in others)


def test_a_misfit_names_the_formats_that_fit() -> None:
    config = FuzzConfig(targets=["classic-bracket"], format="json-args")
    with pytest.raises(FormatFitError) as info:
        check_fit(config, get_format("json-args"), default_registry())
    message = str(info.value)
    assert "does not read the json-args format" in message and "0/" in message
    assert "--format bracket" in message and "\n" not in message


def test_auto_picks_the_format_the_target_reads() -> None:
    choice = choose_format(FuzzConfig(targets=["classic-action-input"], format="auto"))
    assert choice.format == "action-input"
    assert "picked action-input" in choice.summary()
    assert "action-input (12/12 calls" in choice.explain()


def test_fit_check_can_be_turned_off() -> None:
    config = FuzzConfig(targets=["classic-bracket"], format="json-args", seed=1,
                        max_examples=2, abuses=["clean.render"], format_fit=False)
    assert run_fuzz(config).examples > 0


# --------------------------------------------------------------------------- the command line


def test_wrong_format_exits_2_naming_the_right_one(cli: Callable[..., Result]) -> None:
    r = cli("fuzz", "--parser", "classic-bracket", "--format", "json-args", "--no-corpus")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "json-args" in r.stderr and "--format bracket" in r.stderr


def test_format_auto_picks_and_says_why(cli: Callable[..., Result], tmp_path: Path) -> None:
    spec = write_module(tmp_path, "fit_auto_agent", BRACKET_AGENT)
    r = cli("fuzz", "--target", spec, "--format", "auto", "--no-corpus", "--seed", "1",
            "--max-examples", "2", "--abuse", "clean.render", cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    assert "format auto: picked bracket" in r.stderr
    assert "json-args (0/" in r.stderr  # the acceptance of the others, shown
    assert "format bracket" in r.stdout


def test_an_unsupported_result_exits_2_with_its_repr(cli: Callable[..., Result],
                                                     tmp_path: Path) -> None:
    spec = write_module(tmp_path, "fit_str_agent", "def parse(text):\n    return 'search[x]'\n")
    r = cli("fuzz", "--target", spec, "--no-corpus", "--max-examples", "2", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "str 'search[x]'" in r.stderr and r.stderr.count("\n") == 1


def test_an_unsupported_result_is_an_error_not_a_refusal(tmp_path: Path) -> None:
    spec = write_module(tmp_path, "fit_int_agent", "def parse(text):\n    return 42\n")
    with load_target(spec, "bracket", cwd=tmp_path) as target, \
            pytest.raises(UnsupportedResultError, match="int 42"):
        target.run("Action: search[x]")


# --------------------------------------------------------------------------- workers


def test_workers_with_a_user_target_find_the_same(tmp_path: Path) -> None:
    spec = write_module(tmp_path, "fit_workers_agent", BRACKET_AGENT)
    abuses = ["missing.argument-dropped", "extra.positional", "injected.second-action"]

    def findings(workers: int) -> list[tuple[str, ...]]:
        config = FuzzConfig(targets=[spec], seed=5, max_examples=5, abuses=abuses,
                            cwd=str(tmp_path))
        summary = run_fuzz(config, workers=workers)
        return sorted((*f.dedup_key(), f.completion) for f in summary.findings)

    one = findings(1)
    assert one and findings(2) == one


# --------------------------------------------------------------------------- positional dispatch


def act(raw: str, args: tuple[str, ...] | None, names: tuple[str, ...] | None = None) -> Step:
    return Step(action=Action("search", raw, args, names))


@pytest.mark.parametrize(("step", "expected"), [
    (act("Paris, France", ("Paris, France",)), Call.named("search", query="Paris, France")),
    (act('{"query": "Paris, France"}', ("Paris, France",), ("query",)),
     Call.named("search", query="Paris, France")),
    (act("Paris", None), Call.named("search", query="Paris")),
], ids=["decoded-args-are-passed", "named-args-by-keyword", "no-args-decoded-raw-is-split"])
def test_positional_dispatch_passes_the_arguments_the_parser_decoded(
    step: Step, expected: Call
) -> None:
    reg = default_registry()
    outcome = dispatch_positional(step, reg)
    assert isinstance(outcome, Executed) and outcome.call.same_as(expected)


@pytest.mark.parametrize("step", [
    act("Paris, France", None),  # the classic presets: raw re-split on commas
    act("", ("",)),  # blank raw is no arguments, as name[] is
    act('{"q": "x"}', ("x",), ("q",)),  # an undeclared keyword
], ids=["raw-split-on-commas", "blank-is-no-arguments", "unknown-keyword"])
def test_positional_dispatch_crashes_as_python_binds(step: Step) -> None:
    outcome = dispatch_positional(step, default_registry())
    assert isinstance(outcome, Crashed) and outcome.exc_type == "TypeError"


def test_ties_are_broken_by_what_the_format_carries_then_how_specific_it_is() -> None:
    from reactfuzz.engine.fit import FormatFit, rank_formats, specificity

    same = FormatFit("x", calls=10, calls_read=10, answers=5, answers_read=5)
    fits = {"t": [same, same]}
    # listed first, the tag format reads anything as an answer: the stricter one wins
    assert specificity("bracket") > specificity("tool-call")
    assert rank_formats(fits, ["tool-call", "bracket"]) == ["bracket", "tool-call"]
    # more clean calls read beats specificity; the summed shares beat both
    more = FormatFit("x", calls=12, calls_read=12, answers=5, answers_read=5)
    assert rank_formats({"t": [more, same]}, ["tool-call", "bracket"])[0] == "tool-call"
    answers = FormatFit("x", calls=10, calls_read=10, answers=5, answers_read=0)
    assert rank_formats({"t": [same, answers]}, ["tool-call", "bracket"])[0] == "tool-call"


def test_a_partial_best_fit_is_said_in_a_warning() -> None:
    from reactfuzz.engine.fit import FormatChoice, FormatFit

    partial = FormatFit("bracket", calls=10, calls_read=9, answers=5, answers_read=5)
    text = FormatChoice("bracket", {"agent:parse": [partial]}).summary()
    assert text.splitlines()[0] == "format auto: picked bracket (agent:parse: 9/10 calls, 5/5 answers)"
    assert "warning" in text.splitlines()[1] and "agent:parse (9/10 calls" in text
    full = FormatFit("bracket", calls=10, calls_read=10, answers=5, answers_read=5)
    assert "\n" not in FormatChoice("bracket", {"agent:parse": [full]}).summary()


def test_the_pick_is_printed_under_quiet_too(cli: Callable[..., Result]) -> None:
    r = cli("fuzz", "--parser", "classic-action-input", "--format", "auto", "--no-corpus",
            "--seed", "1", "--max-examples", "2", "--abuse", "clean.render", "-q")
    assert r.returncode in (0, 1), r.stderr
    assert "format auto: picked action-input (classic-action-input: 12/12 calls" in r.stderr
    assert "format auto: classic-action-input:" not in r.stderr  # the table is not, under -q
