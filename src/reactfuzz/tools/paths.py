"""Path confinement: the ``ConfinedPath`` constraint for file-path arguments.

Kept on its own because it is pure string logic on normalised paths (the file system is
never touched, so symlinks are out of its scope) and because the default registry's
``read_file`` tool is its only built-in user.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from pydantic_core import core_schema

from ..errors import UsageError

__all__ = ["ConfinedPath"]

# --------------------------------------------------------------------------- path confinement


@dataclass(frozen=True, slots=True)
class ConfinedPath:
    """A constraint for ``Annotated[str, ConfinedPath(root)]``: the path must stay inside ``root``.

    Relative paths are taken relative to ``root``; absolute paths must lie under it. The
    check joins and normalises with :func:`os.path.normpath` (pure string logic: the file
    system is never touched, so symlinks are not considered) and rejects empty paths and NUL
    bytes. The validated value is returned unchanged.
    """

    root: str

    def __post_init__(self) -> None:
        root = self.root
        if not isinstance(root, str) or "\x00" in root or not os.path.isabs(root):
            raise UsageError(f"ConfinedPath needs an absolute directory as root, not {root!r}")
        object.__setattr__(self, "root", os.path.normpath(root))

    def contains(self, path: str) -> bool:
        """Whether ``path`` stays inside the root (the same rule as validation)."""
        return self._reason(path) is None

    def check(self, path: str) -> str:
        """Return ``path`` unchanged if it stays inside the root, else raise ``ValueError``."""
        reason = self._reason(path)
        if reason is not None:
            raise ValueError(reason)
        return path

    def _reason(self, path: str) -> str | None:
        if not isinstance(path, str):
            return f"a path must be a string, not {type(path).__name__}"
        if "\x00" in path:
            return "a path must not contain a NUL byte"
        if not path:
            return "a path must not be empty"
        joined = os.path.normpath(os.path.join(self.root, path))
        root = self.root
        prefix = root if root.endswith(os.sep) else root + os.sep
        if joined != root and not joined.startswith(prefix):
            return f"path {path!r} resolves to {joined!r}, outside {root!r}"
        return None

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))
