"""Fake execution: the observation a fake tool returns and the record of each call.

Tools are never run. A call is recorded as a :class:`ToolResult` and answered with a
deterministic observation; a call made through Python's own argument binding (the
positional design) is bound by :func:`bind_like_python`, which raises the same
``TypeError`` messages CPython would, so the positional design fails as it would in
production.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..model import Call
from .tool import ToolParameter

__all__ = ["ToolResult", "default_observation"]

# --------------------------------------------------------------------------- observations


def default_observation(call: Call) -> str:
    """The default fake observation: ``ok:`` and the call, e.g. ``ok: search(query='x')``."""
    return f"ok: {call}"


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One recorded fake execution: the call as the tool received it and what it returned.

    ``source`` is ``"execute"`` for :meth:`ToolRegistry.execute` and ``"python"`` for a
    function from :meth:`ToolRegistry.python_callable`; for the latter ``positional`` and
    ``keywords`` hold the values exactly as Python passed them. ``error`` is set (and
    ``observation`` is ``None``) when the observation function raised.
    """

    call: Call
    observation: str | None
    source: Literal["execute", "python"] = "execute"
    positional: tuple[Any, ...] = ()
    keywords: tuple[tuple[str, Any], ...] = ()
    error: str | None = None


def _quoted(names: Sequence[str]) -> str:
    reprs = [repr(n) for n in names]
    if len(reprs) == 1:
        return reprs[0]
    if len(reprs) == 2:
        return f"{reprs[0]} and {reprs[1]}"
    return ", ".join(reprs[:-1]) + f", and {reprs[-1]}"


def bind_like_python(
    qualname: str, params: Sequence[ToolParameter], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """Bind arguments as CPython binds them to ``def qualname(p1, p2=d, ...)``.

    The checks run in CPython's order with CPython's messages: unknown keyword, repeated
    argument, too many positional arguments, missing required arguments.
    """
    names = [p.name for p in params]
    values: dict[str, Any] = dict(zip(names, args, strict=False))
    known = set(names)
    for key, value in kwargs.items():
        if key not in known:
            raise TypeError(f"{qualname}() got an unexpected keyword argument '{key}'")
        if key in values:
            raise TypeError(f"{qualname}() got multiple values for argument '{key}'")
        values[key] = value
    if len(args) > len(names):
        n_defaults = sum(1 for p in params if not p.required)
        if n_defaults:
            sig, plural = f"from {len(names) - n_defaults} to {len(names)}", True
        else:
            sig, plural = str(len(names)), len(names) != 1
        raise TypeError(
            f"{qualname}() takes {sig} positional argument{'s' if plural else ''} but "
            f"{len(args)} {'was' if len(args) == 1 else 'were'} given"
        )
    missing = [p.name for p in params if p.required and p.name not in values]
    if missing:
        raise TypeError(
            f"{qualname}() missing {len(missing)} required positional "
            f"argument{'s' if len(missing) != 1 else ''}: {_quoted(missing)}"
        )
    return {p.name: values.get(p.name, p.default) for p in params}
