"""What the engine reports while it runs: one frozen dataclass per thing that happened.

Consumers (the progress printer, the NDJSON log, the pytest integration) tell events apart
by type. Every event crosses a process boundary (from a worker) and goes to an NDJSON log
the same way: :meth:`EngineEvent.to_dict` gives ``{"kind": ..., "time": ..., "data": {...}}``
of plain JSON data, and :func:`event_from_dict` reads it back. ``kind`` is the event's
stable name in that form; ``time`` is when the event happened (UTC, ISO 8601 with
milliseconds), stamped where it happened, so a worker's events keep their own time.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, ClassVar

from .corpus import Finding

__all__ = [
    "CellFinished",
    "CorpusReplayed",
    "EngineEvent",
    "EventSink",
    "ExamplesRan",
    "FindingFound",
    "Interrupted",
    "OperatorFinished",
    "OperatorStarted",
    "RunFinished",
    "RunStarted",
    "StudyFinished",
    "StudyStarted",
    "event_from_dict",
]


@dataclass(frozen=True)
class EngineEvent:
    """Base of the engine's events; ``kind`` names the type in serialised form."""

    kind: ClassVar[str] = ""
    # when it happened (seconds since the epoch); not part of what the event says
    at: float = field(default_factory=time.time, kw_only=True, compare=False, repr=False)

    @property
    def data(self) -> dict[str, Any]:
        """The event's fields by name (values as they are, findings as objects)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name != "at"}

    @property
    def timestamp(self) -> str:
        """When the event happened: UTC, ISO 8601 with milliseconds (``...T12:00:00.123Z``)."""
        moment = datetime.fromtimestamp(self.at, tz=timezone.utc)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data: ``{"kind": ..., "time": ..., "data": {...}}`` (findings as the
        corpus stores them)."""
        return {"kind": self.kind, "time": self.timestamp,
                "data": {k: _plain(v) for k, v in self.data.items()}}


def _plain(value: Any) -> Any:
    if isinstance(value, Finding):
        return value.model_dump(mode="json")
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    return value


EventSink = Callable[[EngineEvent], None]
"""Where events go: any callable taking one event."""


@dataclass(frozen=True)
class RunStarted(EngineEvent):
    """A fuzz run (or an exploration) resolved its config and is about to search."""

    kind: ClassVar[str] = "run-started"
    seed: int
    targets: tuple[str, ...]
    format: str
    dispatcher: str
    abuses: int
    checks: int
    workers: int = 1
    pool: int | None = None  # exploration: how many base scenarios it draws from
    # operator searches the run will make (operators that apply x targets), for an [i/N]
    # counter; None in logs written before it was recorded
    operators: int | None = None


@dataclass(frozen=True)
class CorpusReplayed(EngineEvent):
    """One corpus file was replayed against its target."""

    kind: ClassVar[str] = "replay"
    path: str
    reproduced: bool
    check: str
    failure: str


@dataclass(frozen=True)
class OperatorStarted(EngineEvent):
    """One abuse operator's search against one target began."""

    kind: ClassVar[str] = "operator-started"
    target: str
    abuse: str


@dataclass(frozen=True)
class ExamplesRan(EngineEvent):
    """So many examples have run (at most every half second, for progress displays)."""

    kind: ClassVar[str] = "progress"
    target: str
    abuse: str
    examples: int
    failing: int = 0


@dataclass(frozen=True)
class FindingFound(EngineEvent):
    """A new finding (or protocol note) was kept, and written to ``path`` if a corpus is
    used."""

    kind: ClassVar[str] = "finding"
    finding: Finding
    path: str | None = None


@dataclass(frozen=True)
class OperatorFinished(EngineEvent):
    """One operator's search ended: its examples and failing examples per check."""

    kind: ClassVar[str] = "operator-finished"
    target: str
    abuse: str
    examples: int
    failures: dict[str, int] = field(default_factory=dict)
    elapsed: float = 0.0


@dataclass(frozen=True)
class RunFinished(EngineEvent):
    """The run ended (normally or interrupted); counts of what it kept."""

    kind: ClassVar[str] = "run-finished"
    findings: int
    protocol_notes: int
    examples: int
    elapsed: float


@dataclass(frozen=True)
class Interrupted(EngineEvent):
    """Ctrl-C: the run stops; what it found so far is kept."""

    kind: ClassVar[str] = "interrupted"
    findings: int


@dataclass(frozen=True)
class StudyStarted(EngineEvent):
    """A study of designs x operators began."""

    kind: ClassVar[str] = "study-started"
    designs: tuple[str, ...]
    abuses: int
    cells: int
    examples: int
    seed: int


@dataclass(frozen=True)
class CellFinished(EngineEvent):
    """One design x operator cell of a study is tallied."""

    kind: ClassVar[str] = "cell-finished"
    design: str
    abuse: str
    done: int
    total: int
    bad: int
    n: int


@dataclass(frozen=True)
class StudyFinished(EngineEvent):
    """The study ended."""

    kind: ClassVar[str] = "study-finished"
    cells: int
    elapsed: float


_TYPES: dict[str, type[EngineEvent]] = {
    t.kind: t
    for t in (RunStarted, CorpusReplayed, OperatorStarted, ExamplesRan, FindingFound,
              OperatorFinished, RunFinished, Interrupted, StudyStarted, CellFinished,
              StudyFinished)
}


def event_from_dict(data: dict[str, Any]) -> EngineEvent:
    """Read back what :meth:`EngineEvent.to_dict` wrote (across a worker queue, from NDJSON)."""
    cls = _TYPES.get(data.get("kind", ""))
    if cls is None:
        raise ValueError(f"unknown event kind {data.get('kind')!r}")
    fields = dict(data.get("data", {}))
    if isinstance(fields.get("finding"), dict):
        fields["finding"] = Finding.model_validate(fields["finding"])
    for name in ("targets", "designs"):
        if isinstance(fields.get(name), list):
            fields[name] = tuple(fields[name])
    stamp = data.get("time")
    if isinstance(stamp, str):  # written by to_dict; events of older logs have none
        try:
            fields["at"] = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        except ValueError:
            pass
    return cls(**fields)
