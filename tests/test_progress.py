"""Progress output: a live status line on a terminal, plain lines anywhere else.

The terminal path is driven through a rich console on a string (``force_terminal``) with a
fixed width and a clock the test moves, so what a person would see is checked exactly:
the ``[i/N]`` counter, an ETA once an operator finished, a status line that never
outgrows the width, colour only when asked for and never under ``NO_COLOR``.
"""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from reactfuzz.engine import events as ev
from reactfuzz.engine.corpus import AcceptableSpec, Finding, IntentSpec
from reactfuzz.reporting import ProgressPrinter

SGR = re.compile(r"\x1b\[[0-9;]*m")  # a colour or style escape
ESC = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # any escape a live display writes

LONG = "Thought: I should look this up\nAction: search[" + "a very long query " * 6 + "]"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _finding(completion: str = LONG) -> Finding:
    return Finding(
        target="classic", format="bracket", dispatcher="positional", check="dispatch",
        verdict="wrong-call", cause="design", severity="critical",
        abuse="injected.delimiter", completion=completion,
        intent=IntentSpec(kind="call", tool="search", args=["a"]),
        acceptable=AcceptableSpec(rejections=["malformed-arg"]), expected="run search",
        observed="ran search(query='a')", explanation="split on the comma", seed=7,
    )


def _run(printer: ProgressPrinter, clock: _Clock, target: str = "classic") -> None:
    """A run of three operators: one finishes with a finding, the second is running."""
    printer(ev.RunStarted(7, (target,), "bracket", "positional", 4, 2, operators=3))
    printer(ev.OperatorStarted(target, "injected.delimiter"))
    printer(ev.ExamplesRan(target, "injected.delimiter", 40, 3))
    clock.now = 2.0
    printer(ev.FindingFound(_finding()))
    printer(ev.OperatorFinished(target, "injected.delimiter", 60, {"dispatch": 3}, 2.0))
    printer(ev.OperatorStarted(target, "malformed.wrong-type"))
    printer(ev.ExamplesRan(target, "malformed.wrong-type", 25))


def _tty(width: int, **kw: object) -> tuple[ProgressPrinter, io.StringIO, _Clock]:
    out, clock = io.StringIO(), _Clock()
    console = Console(file=out, force_terminal=True, width=width, color_system="standard",
                      highlight=False, markup=False)
    return ProgressPrinter(console=console, clock=clock, auto_refresh=False, **kw), out, clock


def _screens(text: str) -> list[str]:
    """Every line the terminal showed, escapes removed (a redraw starts with ``\\r``)."""
    return [s for s in re.split(r"[\r\n]", ESC.sub("", text)) if s.strip()]


@pytest.mark.parametrize("width", [60, 120])
def test_tty_status_line_counts_estimates_and_fits_the_width(width: int) -> None:
    printer, out, clock = _tty(width)
    printer(ev.RunStarted(7, ("classic",), "bracket", "positional", 4, 2, operators=3))
    printer(ev.OperatorStarted("classic", "injected.delimiter"))
    first = _screens(out.getvalue())[-1]
    assert first.startswith("[0/3]") and "ETA -:--" in first  # nothing finished: no ETA
    _run(printer, clock, target="a-rather-long-target-name-for-a-parser")
    screens = _screens(out.getvalue())
    status = screens[-1]
    assert status.startswith("[1/3]")
    assert "85 ex" in status and "1 finding" in status  # 60 done + 25 running
    assert "0:02 ETA 0:04" in status  # 2 s for 1 of 3: 4 s left at that pace
    assert max(len(s) for s in screens) <= width
    # the status area stays one line: a wrapped one would move the cursor up to redraw
    assert "\x1b[1A" not in out.getvalue()
    printer.close()
    assert out.getvalue().endswith("\x1b[?25h")  # the cursor is back


def test_tty_prints_findings_above_the_live_line() -> None:
    printer, out, clock = _tty(100)
    _run(printer, clock)
    screens = _screens(out.getvalue())
    found = [s for s in screens if "FINDING critical wrong-call" in s]
    assert len(found) == 1 and len(found[0]) <= 100 and found[0].endswith("…")
    # an ordinary line (ends with a newline), then the status line is drawn again below it
    text = out.getvalue()
    assert text.index("FINDING") < text.rindex("[1/3]")
    assert not any(s.startswith("[1/3] classic · injected.delimiter:") for s in screens)


def test_a_finding_line_is_cut_not_wrapped_on_a_narrow_terminal() -> None:
    printer, out, clock = _tty(40)
    _run(printer, clock)
    screens = _screens(out.getvalue())
    found = [s for s in screens if "FINDING" in s]
    assert len(found) == 1 and len(found[0]) <= 40 and found[0].endswith("…")
    assert max(len(s) for s in screens) <= 40


def test_plain_stream_is_one_line_per_finished_operator() -> None:
    out, clock = io.StringIO(), _Clock()
    printer = ProgressPrinter(out, clock=clock)
    _run(printer, clock)
    printer(ev.RunFinished(1, 0, 85, 3.0))
    text = out.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert lines[0].startswith("reactfuzz: seed 7 · targets classic")
    assert lines[1].startswith("  FINDING critical wrong-call · dispatch · injected.delimiter: ")
    assert lines[2:] == [
        "[1/3] classic · injected.delimiter: 60 examples, 3 failing (dispatch 3), 2.0 s",
        "done: 1 finding, 0 protocol notes, 85 examples in 3.0 s",
    ]


def test_verbose_shows_starts_counts_and_the_whole_completion() -> None:
    quiet, verbose = io.StringIO(), io.StringIO()
    for out, v in ((quiet, False), (verbose, True)):
        clock = _Clock()
        _run(ProgressPrinter(out, clock=clock, verbose=v, every=0), clock)
    whole = LONG.replace("\n", "\\n")
    assert whole not in quiet.getvalue() and "…" in quiet.getvalue()  # cut at 60
    assert whole in verbose.getvalue()
    assert "  start classic · malformed.wrong-type" in verbose.getvalue().splitlines()
    assert "  classic · malformed.wrong-type: 25 examples" in verbose.getvalue().splitlines()
    assert "25 examples" not in quiet.getvalue()


def test_color_follows_the_flag_and_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)

    def shown(stream: io.StringIO, **kw: object) -> str:
        clock = _Clock()
        printer = ProgressPrinter(stream, clock=clock, auto_refresh=False, **kw)
        _run(printer, clock)
        printer.close()
        return stream.getvalue()

    assert SGR.search(shown(_Tty()))  # auto on a terminal: colour
    assert SGR.search(shown(io.StringIO(), color=True))  # --color always, even to a file
    assert not SGR.search(shown(_Tty(), color=False))  # --color never
    plain = shown(io.StringIO())  # auto off a terminal: nothing but text
    assert "\x1b" not in plain and "\r" not in plain
    monkeypatch.setenv("NO_COLOR", "1")
    live = shown(_Tty())
    assert "[1/3]" in live and not SGR.search(live)  # a live line still, without colour


def test_interrupted_run_takes_the_live_line_down() -> None:
    printer, out, clock = _tty(80)
    _run(printer, clock)
    printer(ev.Interrupted(1))
    printer(ev.RunFinished(1, 0, 85, 2.5))
    text = out.getvalue()
    assert "\x1b[?25l" in text and text.index("\x1b[?25h") > text.rindex("[1/3]")
    assert _screens(text)[-1] == "done: 1 finding, 0 protocol notes, 85 examples in 2.5 s"
    printer.close()  # again: nothing more
    assert out.getvalue() == text


def test_study_counts_cells() -> None:
    printer, out, clock = _tty(80)
    printer(ev.StudyStarted(("classic", "grammar"), 30, 55, 200, 3))
    clock.now = 1.0
    printer(ev.CellFinished("classic", "label.case", 1, 55, 4, 200))
    status = _screens(out.getvalue())[-1]
    assert status.startswith("[1/55]") and "classic × label.case" in status
    assert "200 ex · 4 not ok" in status
    assert "ETA 0:54" in status


def test_bench_phases_share_the_printer() -> None:
    out = io.StringIO()
    printer = ProgressPrinter(out)
    printer.phase("parsers")
    printer.phase("memory")
    printer.close()
    assert out.getvalue() == "bench: parsers...\nbench: memory...\n"
    printer, tty, clock = _tty(80)
    printer.phase("parsers")
    clock.now = 1.5
    printer.phase("memory")
    printer.close()
    screens = _screens(tty.getvalue())
    assert "bench: parsers (1.5 s)" in screens and screens[-1] == "bench: memory (0.0 s)"


def test_counter_totals_from_older_logs_and_explorations() -> None:
    printer, out, _ = _tty(80)
    # a log written before RunStarted carried the count: every operator x every target
    printer(ev.event_from_dict({"kind": "run-started", "data": {
        "seed": 1, "targets": ["a", "b"], "format": "bracket", "dispatcher": "typed",
        "abuses": 5, "checks": 2}}))
    assert _screens(out.getvalue())[-1].startswith("[0/10]")
    printer.close()
    printer, out, _ = _tty(80)
    printer(ev.RunStarted(1, ("a",), "bracket", "typed", 5, 2, pool=40))  # --explore
    printer(ev.ExamplesRan("a", "", 5000, 2))
    status = _screens(out.getvalue())[-1]
    assert not status.startswith("[") and "a · exploring" in status and "5,000 ex" in status
    assert "ETA" not in status
    printer.close()


def test_study_progress_reaches_its_total_when_a_cell_has_no_example() -> None:
    """A cell whose operator can write nothing (the tools have no free-text argument) is
    still counted, so ``[i/N]`` ends at N, and the plain line says it was skipped."""
    from reactfuzz.engine.study import run_study
    from reactfuzz.tools import ToolRegistry, default_registry

    def no_free_text() -> ToolRegistry:
        return ToolRegistry([default_registry()["get_time"]])

    events: list[ev.CellFinished] = []
    out = io.StringIO()
    printer = ProgressPrinter(out)

    def emit(e: ev.EngineEvent) -> None:
        printer(e)
        if isinstance(e, ev.CellFinished):
            events.append(e)

    result = run_study(designs=["classic"], abuses=["clean.render", "content.real-text"],
                       examples=2, registry_factory=no_free_text, emit=emit)
    assert [(e.done, e.total) for e in events] == [(1, 2), (2, 2)]
    assert len(result.cells) == 1  # the empty cell is no cell of the matrix
    assert "[2/2] classic-bracket × content.real-text (no example could be written: skipped)" \
        in out.getvalue()


@pytest.mark.parametrize(("flag", "coloured"), [("always", True), ("never", False)])
def test_study_takes_color_as_fuzz_does(flag: str, coloured: bool, tmp_path, capsys) -> None:
    from reactfuzz.cli import main

    code = main(["study", "--design", "classic", "--abuse", "clean.render", "-n", "2",
                 "--out", str(tmp_path), "--color", flag])
    assert code == 0
    assert bool(SGR.search(capsys.readouterr().err)) is coloured
