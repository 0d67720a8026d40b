"""The public surface: ``__all__`` is exactly the public names, and all of them resolve."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import reactfuzz


def test_all_is_sorted_unique_and_resolves() -> None:
    assert len(set(reactfuzz.__all__)) == len(reactfuzz.__all__)
    for name in reactfuzz.__all__:
        assert hasattr(reactfuzz, name), name


def test_all_equals_public_names_of_the_package() -> None:
    public = {
        n for n in dir(reactfuzz)
        if not n.startswith("_") and not inspect.ismodule(getattr(reactfuzz, n)) and n != "annotations"
    }
    assert public == set(reactfuzz.__all__) - {"__version__"}


def test_every_module_declares_all_and_exports_resolve() -> None:
    for info in pkgutil.iter_modules(reactfuzz.__path__):
        if info.name == "__main__":
            continue
        mod = importlib.import_module(f"reactfuzz.{info.name}")
        assert hasattr(mod, "__all__"), info.name
        for name in mod.__all__:
            assert hasattr(mod, name), f"{info.name}.{name}"


def test_public_callables_have_docstrings() -> None:
    for name in reactfuzz.__all__:
        obj = getattr(reactfuzz, name)
        if callable(obj) and not isinstance(obj, type(reactfuzz.STRICT)):
            assert (obj.__doc__ or "").strip(), name
