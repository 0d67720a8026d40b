"""JSON and NDJSON: a run or a study as plain data, and engine events logged one per line."""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel

from ..engine.advice import advice_for
from ..engine.events import EngineEvent
from ..engine.results import Event, RunSummary, StudyCell, StudyResult
from ..textsafe import json_safe
from .common import finding_matrix, write_atomic

__all__ = ["NdjsonLog", "study_to_dict", "summary_to_dict", "write_json"]

# --------------------------------------------------------------------------------------
# JSON and NDJSON.


def _jsonable(obj: Any) -> Any:
    """Plain JSON data from results, findings, dataclasses, paths and sets."""
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, RunSummary):
        return summary_to_dict(obj)
    if isinstance(obj, StudyResult):
        return study_to_dict(obj)
    if is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _jsonable(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (set, frozenset)):
        return sorted(_jsonable(v) for v in obj)
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, BaseException):
        return f"{type(obj).__name__}: {obj}"
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def summary_to_dict(summary: RunSummary) -> dict[str, Any]:
    """A run as JSON data; findings as the corpus stores them (``Finding.model_validate``
    reads them back)."""
    return {
        "kind": "run",
        "seed": summary.seed,
        "targets": list(summary.targets),
        "format": summary.format,
        "dispatcher": summary.dispatcher,
        "tools": summary.tools,
        "checks": list(summary.checks),
        "abuses": list(summary.abuses),
        "examples": summary.examples,
        "elapsed": summary.elapsed,
        "interrupted": summary.interrupted,
        "replayed": summary.replayed,
        "reproduced": summary.reproduced,
        "baseline_known": summary.baseline_known,
        "corpus_dir": summary.corpus_dir,
        "exit_code": summary.exit_code,
        "counts": {
            "findings": len(summary.findings),
            "known": summary.known,
            "new": len(summary.new_findings),
            "fixed": summary.fixed,
            "protocol_notes": len(summary.protocol_notes),
            "by_check_family": [
                {"check": c, "family": fam, "findings": n}
                for (c, fam), n in sorted(finding_matrix(summary).items())
            ],
        },
        "findings": [f.model_dump(mode="json") for f in summary.findings],
        "known_ids": list(summary.known_ids),  # the findings above the corpus already held
        "protocol_notes": [f.model_dump(mode="json") for f in summary.protocol_notes],
        # what to change, per finding and protocol note id (the findings above stay exactly
        # as the corpus stores them, so ``Finding.model_validate`` still reads them back)
        "advice": {f.id: advice_for(f) for f in [*summary.findings, *summary.protocol_notes]},
        "operators": [_jsonable(o) for o in summary.operators],
        # per target, what the guided phase's parses reached of its code
        "coverage": [{"target": c.target, "lines_reached": c.reached, "lines_total": c.total,
                      "text": c.text, "mutations_kept": c.kept, "scenarios": c.scenarios}
                     for c in summary.coverage],
    }


def _cell_dict(c: StudyCell) -> dict[str, Any]:
    lo, hi = c.interval()
    return {
        "design": c.design, "abuse": c.abuse, "n": c.n, "counts": dict(c.counts),
        "protocol": c.protocol, "protocol_counts": dict(c.protocol_counts),
        "design_faults": c.design_faults(), "example": c.example, "bad": c.bad(),
        "bad_rate": c.bad_rate(), "interval": [lo, hi],
    }


def study_to_dict(study: StudyResult) -> dict[str, Any]:
    """A study as JSON data: every cell with its rate and 95 % Wilson interval."""
    return {
        "kind": "study",
        "seed": study.seed,
        "examples_per_cell": study.examples_per_cell,
        "elapsed": study.elapsed,
        "designs": list(study.designs),
        "abuses": list(study.abuses),
        "descriptions": dict(study.descriptions),
        "cells": [_cell_dict(c) for c in study.cells],
        "totals": {d: _cell_dict(c) for d, c in study.design_totals().items()},
    }


def write_json(result: RunSummary | StudyResult, path: str | Path) -> Path:
    """Write a run (or a study) as indented JSON; returns the path."""
    data = study_to_dict(result) if isinstance(result, StudyResult) else summary_to_dict(result)
    return write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", json=True)





class NdjsonLog:
    """Writes engine events to a file, one JSON object per line, flushed per event.

    Each line is an engine event's :meth:`~reactfuzz.engine.events.EngineEvent.to_dict`,
    ``{"kind": ..., "time": ..., "data": {...}}`` (findings inside ``data`` as the corpus
    stores them, ``time`` when the event happened, UTC ISO 8601), which
    :func:`~reactfuzz.engine.events.event_from_dict` reads back; an untyped
    :class:`~reactfuzz.engine.results.Event` is written in the same shape, stamped when written.
    Lines are pure ASCII (``\\u2028`` and ``\\x85`` escaped), so no line splitter can cut a
    record in two. Use as a context manager or call :meth:`close`.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: TextIO | None = open(self.path, "w", encoding="utf-8")

    def __call__(self, event: EngineEvent | Event) -> None:
        if self._fh is None:
            raise ValueError(f"NdjsonLog({str(self.path)!r}) is closed")
        if isinstance(event, EngineEvent):
            record = event.to_dict()
        else:
            stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
            record = {"kind": event.kind, "time": stamp.replace("+00:00", "Z"),
                      "data": _jsonable(event.data)}
        self._fh.write(json_safe(json.dumps(record, ensure_ascii=True)) + "\n")  # DEL too
        self._fh.flush()

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> NdjsonLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
