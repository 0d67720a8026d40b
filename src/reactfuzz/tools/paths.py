"""Path confinement: the ``ConfinedPath`` constraint for file-path arguments.

Kept on its own because it is pure string logic on normalised paths (the file system is
never touched, so symlinks are out of its scope) and because the default registry's
``read_file`` tool is its only built-in user.
"""

from __future__ import annotations

import os
import re
import unicodedata
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
    bytes. It also rejects what is harmless only while no code between the model and the
    file decodes, expands or runs on Windows: percent-encoding (``%2e%2e``), characters
    that Unicode normalisation turns into others (fullwidth dots), ``~`` and environment
    variables (``$HOME``, ``${X}``, ``%X%``), backslashes and drive letters (``..\\``,
    ``C:``). The validated value is returned unchanged.
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
        trick = _expansion(path)
        if trick is not None:
            return f"path {path!r} holds {trick}, which a tool that decodes or expands it" \
                   " could take outside the root"
        joined = os.path.normpath(os.path.join(self.root, path))
        root = self.root
        prefix = root if root.endswith(os.sep) else root + os.sep
        if joined != root and not joined.startswith(prefix):
            return f"path {path!r} resolves to {joined!r}, outside {root!r}"
        return None

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))


_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_ENV = re.compile(r"\$(?:\{|[A-Za-z_])|%[A-Za-z_][A-Za-z0-9_]*%")
_DRIVE = re.compile(r"^[A-Za-z]:")


def _expansion(path: str) -> str | None:
    """What in ``path`` some code could decode or expand into another path, or ``None``."""
    if _PERCENT.search(path):
        return "percent-encoding"
    if unicodedata.normalize("NFKC", path) != path:
        return "characters that Unicode normalisation changes (fullwidth dots and the like)"
    if path.startswith("~") or "/~" in path:
        return "a home-directory '~'"
    if _ENV.search(path):
        return "an environment variable"
    if "\\" in path:
        return "a backslash (a Windows separator)"
    if _DRIVE.match(path):
        return "a drive letter"
    return None
