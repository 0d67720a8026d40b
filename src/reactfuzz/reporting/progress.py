"""Engine events as progress (:class:`ProgressPrinter`): a live status area on a terminal,
plain lines anywhere else.

On a terminal a rich ``Progress`` line shows ``[i/N]`` (operators done of operators x
targets, or study cells done of cells), the operator running, examples run, findings so far,
elapsed time and an ETA, cut to the terminal's width; findings and other events print above
it as ordinary lines. Off a terminal (a pipe, a file, CI) every line is plain text written
once: the run's start and end, one line per finished operator or cell, the findings -- no
carriage return, no escape code, no repeated example counts. The engine's typed events
(:mod:`reactfuzz.engine.events`) are the only input; this module only renders them.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from ..engine.events import (
    CellFinished,
    CorpusReplayed,
    EngineEvent,
    ExamplesRan,
    FindingFound,
    Interrupted,
    OperatorFinished,
    OperatorStarted,
    RunFinished,
    RunStarted,
    StudyFinished,
    StudyStarted,
)
from ..textsafe import SafeStream, terminal_safe
from .common import plural, seconds_text, visible

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

__all__ = ["ProgressPrinter"]

# rich styles of the report's colours (reporting.console._ANSI)
_SEVERITY = {"critical": "bold red", "high": "red", "medium": "yellow", "low": "cyan",
             "none": "dim"}
_LIMIT = 60  # characters of a finding's completion shown unless verbose (off a terminal)


def _clock_text(seconds: float | None) -> str:
    """``m:ss`` (or ``h:mm:ss``) for the status line; ``-:--`` when not known yet."""
    if seconds is None or math.isnan(seconds) or seconds < 0:
        return "-:--"
    s = int(seconds + 0.5)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def auto_color(stream: TextIO) -> bool:
    """The ``--color auto`` rule: colour on a terminal, unless ``NO_COLOR`` is set to
    anything (https://no-color.org)."""
    isatty = getattr(stream, "isatty", None)
    return bool(callable(isatty) and isatty()) and not os.environ.get("NO_COLOR")


class ProgressPrinter:
    """Renders the engine's typed events as progress on ``stream`` (stderr by default).

    On a terminal: a live status line (rich) with a counter, examples, findings, elapsed
    time and ETA, every other event printed above it. Elsewhere: plain lines, one per
    finished operator or study cell, plus the run's start, end and findings. ``verbose``
    also shows each operator's start, each example count and findings' completions in full;
    ``color`` is ``None`` for the ``--color auto`` rule (``console``, for tests, is used as
    it is, colour and width included). Call :meth:`close` (or use it as a
    context manager) so the live area is taken down however the run ends.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        verbose: bool = False,
        color: bool | None = None,
        every: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        console: Console | None = None,
        auto_refresh: bool = True,
    ) -> None:
        from rich.console import Console

        stream = stream if stream is not None else sys.stderr
        # the live area draws with escape sequences of its own: it writes to the stream
        # under the CLI's sanitising one and passes each of its texts through the sanitiser
        self.stream = stream.raw if isinstance(stream, SafeStream) else stream
        self.verbose = verbose
        self.every = every
        self._clock = clock
        self._last = -math.inf
        self._auto_refresh = auto_refresh
        if console is None:
            isatty = getattr(self.stream, "isatty", None)
            tty = bool(isatty()) if callable(isatty) else False
            color = auto_color(self.stream) if color is None else color
            console = Console(file=self.stream, force_terminal=tty,
                              color_system="standard" if color else None,
                              no_color=not color, highlight=False, markup=False, emoji=False,
                              soft_wrap=not tty)
        self.console = console
        self.tty = console.is_terminal
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._targets = 0
        self._reset(None)
        self._phase: tuple[str, float] | None = None

    # -- lifecycle ----------------------------------------------------------------------

    def __enter__(self) -> ProgressPrinter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Take the live area down (the terminal gets its cursor back); safe to repeat."""
        if self._progress is not None:
            progress, self._progress = self._progress, None
            if self._phase is not None and self._task is not None:
                progress.remove_task(self._task)  # a step's line ends as a plain line
            self._task = None
            progress.stop()
        if self._phase is not None:
            self._end_phase()

    def _reset(self, total: int | None) -> None:
        self._total = total
        self._done = 0
        self._examples = 0
        self._running: dict[tuple[str, str], int] = {}
        self._findings = 0
        self._bad = 0
        self._study = False
        self._current = ""

    def _live(self, description: str, total: int | None) -> None:
        """Start the live status line (terminal only)."""
        if not self.tty:
            return
        from rich.progress import BarColumn, Progress

        if self._progress is None:
            cols = _column_types()
            bar = [BarColumn(bar_width=12)] if self.console.width >= 80 else []
            self._progress = Progress(
                cols["counter"](), *bar, cols["description"](), cols["stats"](),
                cols["times"](),
                console=self.console, auto_refresh=self._auto_refresh,
                refresh_per_second=4, redirect_stdout=False, redirect_stderr=True,
                get_time=self._clock, expand=True)
            self._progress.start()
        if self._task is not None:
            self._progress.remove_task(self._task)
        self._task = self._progress.add_task(description, total=total, examples=0,
                                             tally=self._tally())
        self._refresh()

    def _tally(self) -> str:
        """What went wrong so far: findings in a run, not-ok examples in a study."""
        if self._study:
            return f"{self._bad:,} not ok"
        return plural(self._findings, "finding")

    def _refresh(self) -> None:
        if self._progress is None or self._task is None:
            return
        self._progress.update(self._task, completed=self._done,
                              description=terminal_safe(self._current),
                              examples=self._examples + sum(self._running.values()),
                              tally=self._tally())
        # drawn now, not at the next tick: a line printed above the live area redraws the
        # area as it was last drawn, which would show the state before this event
        self._progress.refresh()

    def _say(self, text: str, style: str = "", *, cut: bool = False) -> None:
        """One line, above the live area on a terminal; ``cut`` ends it with ``…`` at the
        terminal's width instead of folding it onto the next line."""
        text = terminal_safe(text)
        if self.tty:
            from rich.text import Text

            if cut:
                self.console.print(Text(text, style=style or ""), soft_wrap=False,
                                   no_wrap=True, overflow="ellipsis")
            else:
                self.console.print(Text(text, style=style or ""), soft_wrap=False,
                                   overflow="fold")
        else:
            self.console.print(text, style=style or None, soft_wrap=True)

    # -- events -------------------------------------------------------------------------

    def __call__(self, event: EngineEvent) -> None:
        if isinstance(event, RunStarted):
            self._run_started(event)
        elif isinstance(event, StudyStarted):
            self._say(f"reactfuzz study: seed {event.seed} · {len(event.designs)} designs × "
                      f"{event.abuses} operators · {event.examples} examples per cell",
                      "bold")
            self._reset(event.cells)
            self._study = True
            self._live("", event.cells)
        elif isinstance(event, OperatorStarted):
            # one target: the operator alone (the start line named the target)
            self._current = (event.abuse if self._targets == 1
                             else self._op(event.target, event.abuse))
            self._running[(event.target, event.abuse)] = 0
            if self.verbose:
                self._say(f"  start {self._op(event.target, event.abuse)}", "dim")
            self._refresh()
        elif isinstance(event, ExamplesRan):
            self._examples_ran(event)
        elif isinstance(event, OperatorFinished):
            self._operator_finished(event)
        elif isinstance(event, CellFinished):
            self._done = event.done
            self._total = event.total
            self._examples += event.n
            self._bad += event.bad
            self._current = f"{event.design} × {event.abuse}"
            if not self.tty or self.verbose:
                tally = (f"{event.bad}/{event.n} not ok" if event.n
                         else "no example could be written: skipped")
                self._say(f"  [{event.done}/{event.total}] {event.design} × {event.abuse}"
                          f" ({tally})")
            self._refresh()
        elif isinstance(event, FindingFound):
            self._finding(event)
        elif isinstance(event, CorpusReplayed):
            state = "reproduced" if event.reproduced else "no longer reproduces"
            self._say(f"replay {event.path}: {state}")
        elif isinstance(event, Interrupted):
            self._say("interrupted: stopping; the findings so far are kept", "yellow")
        elif isinstance(event, RunFinished):
            self.close()
            self._say(f"done: {plural(event.findings, 'finding')}, "
                      f"{plural(event.protocol_notes, 'protocol note')}, "
                      f"{event.examples} examples in {seconds_text(event.elapsed)}",
                      "bold red" if event.findings else "bold green")
        elif isinstance(event, StudyFinished):
            self.close()
            self._say(f"done: {plural(event.cells, 'cell')} in {seconds_text(event.elapsed)}",
                      "bold")
        else:  # an event type this printer does not know yet: its serialised form
            self._say(f"{event.kind}: "
                      f"{json.dumps(event.to_dict()['data'], ensure_ascii=False)}")

    def _run_started(self, event: RunStarted) -> None:
        parts = [f"reactfuzz: seed {event.seed}"]
        if event.targets:
            parts.append("targets " + ", ".join(event.targets))
        parts += [f"format {event.format}", f"dispatcher {event.dispatcher}",
                  plural(event.abuses, "operator")]
        if event.workers > 1:
            parts.append(plural(event.workers, "worker"))
        self._say(" · ".join(parts), "bold")
        if event.pool is not None:  # an exploration: scenarios, no operators to count
            total = None
        elif event.operators is not None:
            total = event.operators
        else:  # an older event: every operator against every target
            total = event.abuses * max(1, len(event.targets))
        self._reset(total)
        self._targets = len(event.targets)
        self._live("", total)

    def _examples_ran(self, event: ExamplesRan) -> None:
        self._running[(event.target, event.abuse)] = event.examples
        if not event.abuse:
            self._current = f"{event.target} · exploring"
        self._refresh()
        if not self.verbose:
            return
        now = self._clock()
        if now - self._last < self.every:
            return
        self._last = now
        tail = f", {event.failing} failing" if event.failing else ""
        self._say(f"  {self._op(event.target, event.abuse)}: {event.examples} examples{tail}",
                  "dim")

    def _operator_finished(self, event: OperatorFinished) -> None:
        self._running.pop((event.target, event.abuse), None)
        self._done += 1
        self._examples += event.examples
        fails = sum(event.failures.values())
        if not self.tty or self.verbose:
            by = ""
            if fails:
                by = " (" + ", ".join(f"{k} {v}" for k, v in event.failures.items() if v) + ")"
            total = f"/{self._total}" if self._total else ""
            self._say(f"[{self._done}{total}] {self._op(event.target, event.abuse)}:"
                      f" {event.examples} examples, {fails} failing{by},"
                      f" {seconds_text(event.elapsed)}")
        self._refresh()

    def _finding(self, event: FindingFound) -> None:
        f = event.finding
        if f.cause == "protocol":
            lead, style = f"  protocol note: {f.failure} · {f.abuse}: ", "dim"
        else:
            self._findings += 1
            lead = f"  FINDING {f.severity} {f.failure} · {f.check} · {f.abuse}: "
            style = _SEVERITY.get(f.severity, "")
        if self.verbose:
            limit = None
        elif self.tty:  # the whole line fits the terminal
            limit = max(12, self.console.width - len(lead))
        else:
            limit = _LIMIT
        self._say(lead + visible(f.completion, limit=limit), style, cut=not self.verbose)
        self._refresh()

    # -- phases (bench) -----------------------------------------------------------------

    def phase(self, label: str) -> None:
        """A named step of a longer job (``bench``) began: a plain line, or the live line
        on a terminal (the step before is printed above it with its time)."""
        if not self.tty:
            self._say(f"bench: {label}...")
            return
        if self._phase is not None:
            self._end_phase()
        self._phase = (label, self._clock())
        self._current = f"bench: {label}"
        self._live(self._current, None)

    def _end_phase(self) -> None:
        assert self._phase is not None
        label, t0 = self._phase
        self._phase = None
        self._say(f"bench: {label} ({seconds_text(self._clock() - t0)})")

    @staticmethod
    def _op(target: str, abuse: str) -> str:
        return " · ".join(x for x in (target, abuse) if x) or "operator"


# --------------------------------------------------------------------------------------
# The columns of the live status line; each reads the task rich keeps for the run.

_TYPES: dict[str, Any] = {}


def _column_types() -> dict[str, Any]:
    """The column classes by name, defined on first use so that importing this module does
    not import rich."""
    if _TYPES:
        return _TYPES
    from rich.progress import ProgressColumn, Task
    from rich.table import Column
    from rich.text import Text

    def fixed() -> Column:
        return Column(no_wrap=True, overflow="crop")

    class Counter(ProgressColumn):
        """``[i/N]``, or ``[i]`` while the total is not known."""

        def __init__(self) -> None:
            super().__init__(fixed())

        def render(self, task: Task) -> Text:
            if task.total is None:
                return Text("")
            return Text(f"[{int(task.completed)}/{int(task.total)}]", style="bold")

    class Description(ProgressColumn):
        """The operator running; the one column cut (with …) when the line is too long."""

        def __init__(self) -> None:
            super().__init__(Column(no_wrap=True, overflow="ellipsis", ratio=1, min_width=4))

        def render(self, task: Task) -> Text:
            return Text(task.description, overflow="ellipsis", no_wrap=True)

    class Stats(ProgressColumn):
        """Examples run, and findings (a run) or not-ok examples (a study) so far."""

        def __init__(self) -> None:
            super().__init__(fixed())

        def render(self, task: Task) -> Text:
            if task.total is None and not task.fields.get("examples"):
                return Text("")
            tally = str(task.fields.get("tally", ""))
            text = Text(f"{task.fields.get('examples', 0):,} ex · ")
            text.append(tally, style="" if tally.startswith("0 ") else "red")
            return text

    class Times(ProgressColumn):
        """Elapsed time, and the ETA at the pace so far once something finished."""

        def __init__(self) -> None:
            super().__init__(fixed())

        def render(self, task: Task) -> Text:
            elapsed = task.elapsed or 0.0
            text = _clock_text(elapsed)
            if task.total is not None:
                eta = None
                if task.completed:
                    eta = elapsed * (task.total - task.completed) / task.completed
                text += f" ETA {_clock_text(eta)}"
            return Text(text, style="dim")

    _TYPES.update(counter=Counter, description=Description, stats=Stats, times=Times)
    return _TYPES
