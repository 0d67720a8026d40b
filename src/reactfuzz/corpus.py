"""Findings and the corpus: now :mod:`reactfuzz.engine.corpus`; this import path keeps working."""

from __future__ import annotations

from .engine.corpus import (
    SCHEMA_VERSION,
    AcceptableSpec,
    Finding,
    IntentSpec,
    iter_corpus,
    load_finding,
    save_finding,
)

__all__ = [
    "SCHEMA_VERSION",
    "AcceptableSpec",
    "Finding",
    "IntentSpec",
    "iter_corpus",
    "load_finding",
    "save_finding",
]
