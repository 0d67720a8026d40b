"""Run and study results: now :mod:`reactfuzz.engine.results`; this import path keeps working."""

from __future__ import annotations

from .engine.results import (
    Event,
    OperatorStats,
    RunSummary,
    StudyCell,
    StudyResult,
    distinct,
    wilson,
)

__all__ = [
    "Event",
    "OperatorStats",
    "RunSummary",
    "StudyCell",
    "StudyResult",
    "distinct",
    "wilson",
]
