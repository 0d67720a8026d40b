"""Checks: now :mod:`reactfuzz.engine.checks`; this import path keeps working."""

from __future__ import annotations

from .engine.checks import (
    CHECKS,
    Check,
    CheckInput,
    Failure,
    check,
    get_checks,
)

__all__ = [
    "CHECKS",
    "Check",
    "CheckInput",
    "Failure",
    "check",
    "get_checks",
]
