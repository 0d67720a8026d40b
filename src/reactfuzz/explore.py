"""The fast exploration mode: now :mod:`reactfuzz.engine.explore` (this path still works)."""

from __future__ import annotations

from .engine.explore import (
    FAST_CHECKS,
    ExploreConfig,
    ExploreResult,
    build_pool,
    explore,
    explore_parallel,
    explore_summary,
)

__all__ = [
    "FAST_CHECKS",
    "ExploreConfig",
    "ExploreResult",
    "build_pool",
    "explore",
    "explore_parallel",
    "explore_summary",
]
