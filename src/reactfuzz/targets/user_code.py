"""Importing user code: ``module:attr`` paths resolved from a working directory.

User code is only ever imported with :func:`importlib.import_module` from a ``module:attr``
path; model text and user strings are never evaluated. Every failure is one
:class:`~reactfuzz.errors.UsageError` line naming the path and what to do. Both parser
targets and ``--tools`` modules are read through here.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import UsageError
from .adapters import _describe_exception, _short_repr

__all__: list[str] = []

# ----------------------------------------------------------------- importing user code

_LOADED_FROM: dict[str, str] = {}
"""Top-level module name -> the directory reactfuzz imported it from."""


@contextlib.contextmanager
def _on_path(directory: str) -> Iterator[None]:
    sys.path.insert(0, directory)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(directory)


def _import_module(module: str, directory: str) -> Any:
    """Import ``module`` with ``directory`` first on the path.

    A module reactfuzz imported earlier from *another* directory (two projects in one
    process, or tests writing ``myagent.py`` into fresh folders) is imported afresh.
    """
    importlib.invalidate_caches()
    top = module.partition(".")[0]
    previous = _LOADED_FROM.get(top)
    if previous is not None and previous != directory and top in sys.modules:
        for key in [k for k in sys.modules if k == top or k.startswith(top + ".")]:
            del sys.modules[key]
    loaded = module in sys.modules
    mod = importlib.import_module(module)
    if not loaded:
        origin = getattr(sys.modules.get(top), "__file__", None)
        if origin and os.path.realpath(origin).startswith(os.path.realpath(directory) + os.sep):
            _LOADED_FROM[top] = directory
    return mod


_EXAMPLES = {"function": "myagent:parse", "tools": "mytools:TOOLS"}


def _split_spec(spec: str, what: str) -> tuple[str, str]:
    module, sep, attr = spec.partition(":")
    parts_ok = all(p.isidentifier() for p in module.split(".")) and all(
        p.isidentifier() for p in attr.split(".")
    )
    if not sep or not parts_ok:
        example = _EXAMPLES.get(what, "myagent:parse")
        raise UsageError(
            f"{spec!r} is not an import path: write 'module:{what}', for example"
            f" {example!r} (the module is imported from the working directory)"
        )
    return module, attr


def _resolve(spec: str, directory: str, what: str) -> Any:
    """The object a ``module:attr`` path names, importing the module from ``directory``.

    Every failure is one :class:`UsageError` line naming the path and what to do.
    """
    module, attr = _split_spec(spec, what)
    with _on_path(directory):
        try:
            mod = _import_module(module, directory)
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            if missing and (module == missing or module.startswith(missing + ".")):
                raise UsageError(
                    f"{spec!r}: no module named {missing!r} in {directory} or on the Python path"
                    f" (run reactfuzz from the directory that holds {missing}.py, or set the"
                    " working directory)"
                ) from None
            raise UsageError(
                f"{spec!r}: importing {module!r} failed: {_describe_exception(exc)}"
                " (install what it imports, or fix the module)"
            ) from None
        except BaseException as exc:  # SyntaxError, SystemExit, anything
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise UsageError(
                f"{spec!r}: importing {module!r} raised {_describe_exception(exc)}"
                " (fix the module so that it imports cleanly)"
            ) from None
    obj: Any = mod
    for i, part in enumerate(attr.split(".")):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            owner = module if i == 0 else f"{module}:{'.'.join(attr.split('.')[:i])}"
            where = getattr(mod, "__file__", None) or module
            found = sorted(n for n in dir(obj) if not n.startswith("_"))[:12]
            hint = f" (it defines: {', '.join(found)})" if found else ""
            raise UsageError(
                f"{spec!r}: {owner} ({where}) has no attribute {part!r}{hint}"
            ) from None
        except Exception as exc:  # a property or module __getattr__ that raises
            raise UsageError(
                f"{spec!r}: reading {part!r} raised {_describe_exception(exc)}"
            ) from None
    return obj


def _parse_callable(obj: Any, label: str) -> Callable[[str], Any]:
    """The function to call: ``obj.parse`` for a parser object, else ``obj`` itself."""
    if isinstance(obj, type):
        raise UsageError(
            f"{label} is a class: point at an instance (for example `parser = "
            f"{obj.__name__}()` in the module, then 'module:parser') or at a function"
        )
    parse = getattr(obj, "parse", None)
    if callable(parse):
        return parse
    if callable(obj):
        return obj
    raise UsageError(
        f"{label} is {type(obj).__name__} {_short_repr(obj)}, not a function or an object"
        " with a parse method"
    )


def _resolve_parser(spec: str, directory: str) -> Callable[[str], Any]:
    return _parse_callable(_resolve(spec, directory, "function"), repr(spec))
