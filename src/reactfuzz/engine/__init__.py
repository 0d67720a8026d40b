"""The engine: fuzz runs, replay, fast exploration and the study, as library calls.

One example pipeline (:func:`examine`: parse once, dispatch, judge, check) serves every
mode; :func:`run_fuzz` searches each abuse operator with Hypothesis (over ``workers``
processes if asked) and returns a :class:`RunSummary`, announcing typed events
(:mod:`reactfuzz.engine.events`) as it goes. Modules: ``config`` (what to run, resolved
once), ``events``, ``example``, ``search``, ``run``, ``replay``, ``explore``, ``study``,
``checks``, ``corpus``, ``results``.
"""

from __future__ import annotations

from .config import FuzzConfig, auto_dispatcher, resolve
from .events import (
    CellFinished,
    CorpusReplayed,
    EngineEvent,
    EventSink,
    ExamplesRan,
    FindingFound,
    Interrupted,
    OperatorFinished,
    OperatorStarted,
    RunFinished,
    RunStarted,
    StudyFinished,
    StudyStarted,
    event_from_dict,
)
from .example import Example, decide_example, examine, to_finding
from .replay import ReplayResult, replay
from .results import RunSummary
from .run import run_fuzz, run_fuzz_parallel

__all__ = [
    "CellFinished",
    "CorpusReplayed",
    "EngineEvent",
    "EventSink",
    "Example",
    "ExamplesRan",
    "FindingFound",
    "FuzzConfig",
    "Interrupted",
    "OperatorFinished",
    "OperatorStarted",
    "ReplayResult",
    "RunFinished",
    "RunStarted",
    "RunSummary",
    "StudyFinished",
    "StudyStarted",
    "auto_dispatcher",
    "decide_example",
    "event_from_dict",
    "examine",
    "replay",
    "resolve",
    "run_fuzz",
    "run_fuzz_parallel",
    "to_finding",
]
