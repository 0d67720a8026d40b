"""One small registry type for everything registered by name.

Parsers, dispatchers, checks, abuse operators, formats and designs are each a
:class:`Registry`: a mapping from name to entry that refuses a second entry under the
same name (a :class:`~reactfuzz.errors.UsageError`, never a silent overwrite) and whose
unknown-name error lists the names it does know. The CLI reads its choices from it.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Generic, TypeVar

from .errors import UsageError

__all__ = ["Registry", "import_modules"]

T = TypeVar("T")
F = TypeVar("F")


class Registry(Mapping[str, T], Generic[T]):
    """Entries by name, in registration order; duplicates are a ``UsageError``.

    ``kind`` names what is registered ("parser", "check", ...) in error messages.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}

    def add(self, name: str, entry: T, *, replace: bool = False) -> T:
        """Register ``entry`` under ``name``; ``replace=True`` overwrites on purpose."""
        if not replace and name in self._entries:
            raise UsageError(f"a {self.kind} named {name!r} is already registered")
        self._entries[name] = entry
        return entry

    def register(self, name: str, make: Callable[[F], T] | None = None) -> Callable[[F], F]:
        """A decorator: register the decorated object (or ``make(obj)``) under ``name``."""

        def deco(obj: F) -> F:
            self.add(name, make(obj) if make is not None else obj)  # type: ignore[arg-type]
            return obj

        return deco

    def remove(self, name: str) -> None:
        """Forget ``name`` (tests and plugins that clean up after themselves)."""
        self._entries.pop(name, None)

    def get_or_raise(self, name: str) -> T:
        """The entry for ``name``, or a ``UsageError`` listing the known names."""
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(self._entries) or "(none registered)"
            raise UsageError(f"unknown {self.kind} {name!r}: use one of {known}") from None

    def names(self) -> list[str]:
        """The registered names, in registration order (argparse ``choices``)."""
        return list(self._entries)

    def __getitem__(self, name: str) -> T:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.names()!r})"


def import_modules(package: str, skip: tuple[str, ...] = ()) -> None:
    """Import every public module of the (imported) ``package``: a module added to a
    package of built-ins (abuse operators, format families, classic parsers) registers what
    it holds with no list to edit. Modules the package imported already keep their place
    (their import order is the registration order); the others follow in name order.
    ``skip`` names the package's modules that register nothing (and may be costly to import)."""
    path = sys.modules[package].__path__
    for name in sorted(m.name for m in pkgutil.iter_modules(path)):
        if not name.startswith("_") and name not in skip:
            importlib.import_module(f"{package}.{name}")
