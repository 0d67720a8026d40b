"""A seed means one run, whatever else the process has imported.

Hypothesis sometimes draws a literal found in a "local" module (any module loaded from
outside site-packages and the standard library: an editable install of reactfuzz, the
user's own test modules, a ``--target`` module). So the same seed would give a different
run from the CLI, from pytest, from a checkout or from a wheel. While reactfuzz generates,
:func:`fixed_constants` makes that pool empty; outside it, Hypothesis is untouched.

This leans on one private Hypothesis name; if a release renames it, generation still
works (only the pinning is skipped), and ``tests/test_determinism.py`` says so.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["fixed_constants", "pinned", "pinning_available"]

F = TypeVar("F", bound=Callable[..., Any])

_lock = threading.Lock()
_depth = 0
_saved: Any = None


def _providers() -> Any:
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
    except ImportError:  # pragma: no cover - a Hypothesis without local constants
        return None, None
    if not hasattr(providers, "_get_local_constants") or not hasattr(
        providers, "CONSTANTS_CACHE"
    ):  # pragma: no cover
        return None, None
    return providers, Constants


def pinning_available() -> bool:
    """Whether this Hypothesis has the local-constants pool that ``fixed_constants`` pins."""
    return _providers()[0] is not None


@contextmanager
def fixed_constants() -> Iterator[None]:
    """Generate with no module-derived constants (re-entrant; restores on exit)."""
    global _depth, _saved
    providers, constants_cls = _providers()
    if providers is None:  # pragma: no cover
        yield
        return
    empty = constants_cls()
    with _lock:
        if _depth == 0:
            _saved = providers._get_local_constants
            providers._get_local_constants = lambda: empty
            providers.CONSTANTS_CACHE.cache.clear()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                providers._get_local_constants = _saved
                providers.CONSTANTS_CACHE.cache.clear()


def pinned(fn: F) -> F:
    """Decorate an entry point that generates: it runs under :func:`fixed_constants`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with fixed_constants():
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
