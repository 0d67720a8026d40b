"""The study: now :mod:`reactfuzz.engine.study` (this import path still works)."""

from __future__ import annotations

from .engine.study import (
    STUDY_DESIGNS,
    render_matrix_text,
    run_study,
)

__all__ = [
    "STUDY_DESIGNS",
    "render_matrix_text",
    "run_study",
]
