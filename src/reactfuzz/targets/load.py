"""The entry points: :func:`load_target` for every kind of target, :func:`load_tools`.

One spec string (``classic-bracket``, ``myagent:parse``, ``regex:...``, ``grammar:...``)
picks the kind of target, and one set of options fits them all, so the command line, the
pytest integration and the library share one way in.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..errors import UsageError
from ..formats import Format
from ..parsers import PARSERS
from ..tools import ToolRegistry, default_registry, load_tools_json
from .adapters import describe_exception, short_repr
from .base import Target
from .builtin import builtin_target
from .callables import CallableTarget, function_target
from .grammar import grammar_target
from .regexes import regex_target
from .user_code import on_path, resolve

__all__ = ["TARGET_FORMS", "load_target", "load_tools"]

TARGET_FORMS = (
    "a built-in parser name, 'module:function' (a function, or an object with a parse"
    " method, importable from the working directory), 'regex:<pattern>' or 'grammar:<file>'"
)


# --------------------------------------------------------------------------- entry points

_OPTIONS = {
    "function": {"timeout", "cwd", "start_method"},
    "regex": {"timeout", "answer_pattern", "flags", "answer_first"},
    "builtin": set(),
    "grammar": set(),
    "callable": {"timeout"},
}
_ALL_OPTIONS = set().union(*_OPTIONS.values())


def load_target(spec: Any, fmt: Format | str = "bracket", **options: Any) -> Target:
    """One entry point for every kind of target.

    ``spec`` is a built-in parser name (``classic-bracket``), ``"module:attr"`` (a user
    function or parser object, in a worker process), ``"regex:<pattern>"``,
    ``"grammar:<path>"``, or an object: a :class:`Target` (returned as is) or a callable /
    parser object (in-process). ``options`` (``timeout``, ``cwd``, ``start_method``,
    ``answer_pattern``, ``flags``, ``answer_first``) go to the kinds that take them and
    are ignored by the others, so one set of command-line options fits every spec; an
    unknown option is a :class:`~reactfuzz.errors.UsageError`.
    """
    unknown = sorted(set(options) - _ALL_OPTIONS)
    if unknown:
        raise UsageError(
            f"unknown target option {unknown[0]!r} (use {', '.join(sorted(_ALL_OPTIONS))})"
        )

    def pick(kind: str) -> dict[str, Any]:
        return {k: v for k, v in options.items() if k in _OPTIONS[kind]}

    if isinstance(spec, Target):
        return spec
    if not isinstance(spec, str):
        if isinstance(spec, os.PathLike):
            spec = os.fspath(spec)
        else:
            return CallableTarget(spec, fmt, **pick("callable"))
    if spec in PARSERS:
        return builtin_target(spec, fmt)
    if spec.startswith("regex:"):
        return regex_target(spec[len("regex:") :], fmt, **pick("regex"))
    if spec.startswith("grammar:"):
        return grammar_target(spec[len("grammar:") :], fmt)
    if ":" in spec:
        return function_target(spec, fmt, **pick("function"))
    raise UsageError(
        f"unknown target {spec!r}: use a built-in parser ({', '.join(sorted(PARSERS))}),"
        f" 'module:function' (a function or an object with a parse method, importable from"
        f" the working directory), 'regex:<pattern>' or 'grammar:<file.lark>'"
    )


def _registry_from(value: Any, spec: str) -> ToolRegistry | None:
    if isinstance(value, ToolRegistry):
        return value
    if isinstance(value, (list, tuple)):
        if not value:
            raise UsageError(f"--tools {spec}: the list of tools is empty")
        return ToolRegistry(value)
    if isinstance(value, type) and issubclass(value, BaseModel):
        return ToolRegistry([value])
    return None


def load_tools(
    spec: str | ToolRegistry, *, cwd: str | os.PathLike[str] | None = None
) -> ToolRegistry:
    """The ``--tools`` option: ``default``, a ``.json`` file, or ``module:attr``.

    ``module:attr`` may name a :class:`~reactfuzz.tools.ToolRegistry`, a list or tuple of
    typed functions, pydantic models and tools (mixed), a single pydantic model, or a
    zero-argument function returning one of those (a function *is* called, so point at a
    list to register a single function as a tool). Errors are one line:
    :class:`~reactfuzz.errors.InputFileError` for a tool file,
    :class:`~reactfuzz.errors.UsageError` otherwise. ``cwd`` (default: the current
    directory) is where the module is imported from and a relative JSON path is read.
    """
    if isinstance(spec, ToolRegistry):
        return spec
    if not isinstance(spec, str) or not spec:
        raise UsageError(f"--tools needs 'default', a .json file or 'module:attr', not {spec!r}")
    if spec == "default":
        return default_registry()
    directory = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
    if spec.lower().endswith(".json"):
        return load_tools_json(Path(directory, spec) if cwd is not None else spec)
    if ":" not in spec:
        if Path(spec).is_file():
            raise UsageError(
                f"--tools {spec}: a tool file must be JSON (a .json file of tool definitions)"
            )
        raise UsageError(
            f"unknown --tools {spec!r}: use 'default', a .json file of tool definitions or"
            " 'module:attr' (a ToolRegistry, a list of typed functions or pydantic models,"
            " or a function returning one)"
        )
    value = resolve(spec, directory, "tools")
    try:
        registry = _registry_from(value, spec)
        if registry is None and callable(value) and not isinstance(value, type):
            try:
                required = [
                    p.name for p in inspect.signature(value).parameters.values()
                    if p.default is inspect.Parameter.empty
                    and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                ]
            except (TypeError, ValueError):
                required = []
            if required:
                raise UsageError(
                    f"--tools {spec}: {spec.partition(':')[2]}() takes arguments"
                    f" ({', '.join(required)}); point at a registry or a list of tools, or at"
                    " a function without parameters that returns one"
                )
            with on_path(directory):
                try:
                    produced = value()
                except Exception as exc:
                    raise UsageError(
                        f"--tools {spec}: calling it raised {describe_exception(exc)}"
                    ) from None
            registry = _registry_from(produced, spec)
            if registry is None:
                raise UsageError(
                    f"--tools {spec}: the function returned {type(produced).__name__};"
                    " it must return a ToolRegistry or a list of typed functions or"
                    " pydantic models"
                )
    except UsageError as exc:
        message = str(exc)
        if not message.startswith("--tools"):
            message = f"--tools {spec}: {message}"
        raise UsageError(message) from None
    if registry is None:
        raise UsageError(
            f"--tools {spec}: {type(value).__name__} {short_repr(value)} is not a ToolRegistry,"
            " a list of typed functions or pydantic models, or a function returning one"
        )
    return registry
