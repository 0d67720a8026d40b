"""``python -m reactfuzz.fuzzing``: see :mod:`reactfuzz.fuzzing.cli`."""

from __future__ import annotations

from .cli import main

__all__ = ["main"]

if __name__ == "__main__":  # pragma: no cover
    main()
