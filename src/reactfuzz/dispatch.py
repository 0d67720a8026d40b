"""Dispatchers: turn a parsed Step into an Outcome against a tool registry.

Two designs are measured against each other:

* ``positional`` is the classic loop: split the raw argument text on commas, strip, and
  call the function positionally. Python's own binding decides what happens (a
  ``TypeError``, or an optional parameter silently bound); an exception is a ``crashed``
  outcome, exactly as the loop would have died.
* ``typed`` binds the arguments (by name from JSON, or by declared order for bracket
  formats) and validates them with the tool's pydantic model; every refusal is a
  ``rejected`` outcome with its kind.

Dispatchers never run anything real: the registry's fake execution records the call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import ValidationError

from .kinds import REJECT_KINDS, RejectKind
from .model import Call, Step
from .registry import Registry
from .tools import ToolRegistry

__all__ = [
    "DISPATCHERS",
    "DISPATCH_WORDING",
    "REJECT_KINDS",
    "Crashed",
    "Dispatcher",
    "Executed",
    "Finished",
    "Outcome",
    "RejectKind",
    "Rejected",
    "Wording",
    "bind_arguments",
    "bind_typed",
    "dispatch_positional",
    "dispatch_typed",
    "get_dispatcher",
    "validation_summary",
]

# RejectKind and REJECT_KINDS are re-exported: defined once in the model layer (`kinds`)


@dataclass(frozen=True, slots=True)
class Executed:
    """A tool ran with this call (values as the tool received them)."""

    call: Call
    kind: Literal["executed"] = "executed"

    def __str__(self) -> str:
        return f"executed {self.call}"


@dataclass(frozen=True, slots=True)
class Finished:
    """The loop ended with this final answer."""

    answer: str
    kind: Literal["finished"] = "finished"

    def __str__(self) -> str:
        return f"finished {self.answer!r}"


@dataclass(frozen=True, slots=True)
class Rejected:
    """The dispatcher refused the step; ``reason`` says why (kind) and ``message`` how."""

    reason: RejectKind
    message: str = ""
    kind: Literal["rejected"] = "rejected"

    def __str__(self) -> str:
        return f"rejected [{self.reason}] {self.message}".rstrip()


@dataclass(frozen=True, slots=True)
class Crashed:
    """The loop raised: the exception's type name and message."""

    exc_type: str
    message: str
    kind: Literal["crashed"] = "crashed"

    def __str__(self) -> str:
        return f"crashed {self.exc_type}: {self.message}"


Outcome = Executed | Finished | Rejected | Crashed
"""What happened when a Step reached the code that calls functions."""

Dispatcher = Callable[[Step, ToolRegistry], Outcome]

# invalid-step codes of the parsers that mean more than "could not parse"
_INVALID_KINDS: dict[str, RejectKind] = {
    "second-action": "ambiguous",
    "action-and-answer": "ambiguous",
    "duplicate-arg": "extra-arg",
}


def _named_kind(code: str) -> RejectKind | None:
    """The refusal kind an invalid-step code names itself (a target that said why)."""
    for kind in get_args(RejectKind):
        if code == kind:
            return kind
    return None


def dispatch_positional(step: Step, registry: ToolRegistry) -> Outcome:
    """The classic loop: call ``TOOLS[name](*args)`` with Python's own binding.

    The arguments are the ones the parser decoded (``action.args``; by keyword when it
    named them, ``TOOLS[name](**kwargs)``); only a parser that decoded none (``args is
    None``) has ``raw`` split on commas, as the tutorial loop does. Blank ``raw`` is no
    arguments either way (the loop's ``name[]`` special case).
    """
    if step.answer is not None:
        return Finished(step.answer)
    if step.action is None:
        assert step.invalid is not None
        # the loop would raise its own "could not parse" error and feed it back, unless
        # the parser said why it refused (a refusal kind as the code)
        return Rejected(_named_kind(step.invalid.code) or "unparseable", step.invalid.message)
    action = step.action
    if action.tool not in registry:
        return Crashed("KeyError", repr(action.tool))
    # the tutorial loop, with the one special case every such loop grows on its first
    # zero-argument tool: `name[]` means no arguments
    raw = action.raw
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    if not raw.strip():
        pass
    elif action.args is None:
        args = [a.strip() for a in raw.split(",")]
    elif action.names is not None:
        kwargs = dict(zip(action.names, action.args))  # a repeated name: the last wins, as dict
    else:
        args = list(action.args)
    fn = registry.python_callable(action.tool)
    try:
        fn(*args, **kwargs)
    except TypeError as e:
        return Crashed("TypeError", str(e))
    return Executed(registry.calls[-1])


def validation_summary(err: ValidationError) -> tuple[RejectKind, str]:
    """The rejection kind and a one-line message a model could act on."""
    errors = err.errors()
    kinds = {e["type"] for e in errors}
    parts = []
    for e in errors[:3]:
        loc = ".".join(str(x) for x in e["loc"]) or "(arguments)"
        parts.append(f"{loc}: {e['msg']}")
    message = "; ".join(parts) + (f" (+{len(errors) - 3} more)" if len(errors) > 3 else "")
    if kinds <= {"missing", "missing_argument"}:
        return "missing-arg", message
    if kinds <= {"extra_forbidden", "unexpected_keyword_argument"}:
        return "extra-arg", message
    return "malformed-arg", message


def dispatch_typed(step: Step, registry: ToolRegistry) -> Outcome:
    """Bind and validate against the tool's schema; refuse anything undeclared or invalid."""
    outcome = bind_typed(step, registry)
    if isinstance(outcome, Executed):
        registry.execute(outcome.call)
    return outcome


@dataclass(frozen=True, slots=True)
class Wording:
    """The sentences a binding refusal is written in (``str.format`` templates).

    The dispatcher speaks to the model about the text it read; the oracle explains what the
    intent itself implies. Fields: ``tool`` (the name as written), ``known`` (the tool
    names), ``name`` (the first undeclared argument), ``declared`` (the declared names,
    comma-separated; ``listed`` is the same or ``none``), ``n`` and ``given`` (declared and
    given counts), ``missing`` (every missing name, quoted) and ``first`` (the first one).
    """

    unknown_tool: str
    undeclared: str
    too_many: str
    missing: str
    duplicate: str = "an argument is given twice"


DISPATCH_WORDING = Wording(
    unknown_tool="no tool named {tool!r} (tools: {known})",
    undeclared="{tool} has no argument {name!r} (arguments: {declared})",
    too_many="{tool} takes {n} argument(s) ({listed}), {given} given",
    missing="{tool} needs {missing}",
)
"""How typed dispatch words its refusals (fed back to the model)."""


def bind_arguments(
    registry: ToolRegistry,
    tool_name: str,
    args: Sequence[Any],
    names: Sequence[str] | None = None,
    *,
    undeclared: Literal["refuse", "drop"] = "refuse",
    duplicates: Literal["refuse", "last-wins"] = "last-wins",
    wording: Wording = DISPATCH_WORDING,
) -> dict[str, Any] | Rejected:
    """Bind arguments to a tool's parameters by name, or say which refusal they imply.

    ``names`` gives one name per argument (JSON formats, named intents); without it the
    arguments bind in declared order. ``undeclared="drop"`` forgets a name the tool does not
    declare instead of refusing it; ``duplicates="refuse"`` refuses a name given twice
    (otherwise the last value wins, as ``dict`` would). The kwargs are not validated yet.
    """
    tool = registry.get(tool_name)
    if tool is None:
        known = ", ".join(registry.names())
        return Rejected("unknown-tool", wording.unknown_tool.format(tool=tool_name, known=known))
    declared = tool.names
    about = {"tool": tool_name, "declared": ", ".join(declared), "n": len(declared)}
    about["listed"] = about["declared"] or "none"
    if names is not None:
        kwargs = dict(zip(names, args))
        if duplicates == "refuse" and len(set(names)) != len(names):
            return Rejected("extra-arg", wording.duplicate.format(**about))
        extra = [n for n in names if n not in declared]
        if extra:
            if undeclared == "refuse":
                return Rejected("extra-arg", wording.undeclared.format(name=extra[0], **about))
            kwargs = {k: v for k, v in kwargs.items() if k in declared}
    else:
        if len(args) > len(declared):
            return Rejected("extra-arg", wording.too_many.format(given=len(args), **about))
        kwargs = dict(zip(declared, args))
    missing = [n for n in tool.required_names if n not in kwargs]
    if missing:
        return Rejected("missing-arg", wording.missing.format(
            missing=", ".join(repr(m) for m in missing), first=repr(missing[0]), **about))
    return kwargs


def bind_typed(step: Step, registry: ToolRegistry) -> Outcome:
    """What typed dispatch decides for a Step, without executing anything."""
    if step.answer is not None:
        return Finished(step.answer)
    if step.action is None:
        assert step.invalid is not None
        code = step.invalid.code
        kind = _named_kind(code) or _INVALID_KINDS.get(code, "unparseable")
        return Rejected(kind, str(step.invalid))
    action = step.action
    args: tuple[Any, ...] = (
        action.args if action.args is not None else ((action.raw,) if action.raw else ())
    )
    kwargs = bind_arguments(registry, action.tool, args, action.names)
    if isinstance(kwargs, Rejected):
        return kwargs
    try:
        call = registry.validate(action.tool, kwargs)
    except ValidationError as e:
        kind, message = validation_summary(e)
        return Rejected(kind, f"{action.tool}: {message}")
    return Executed(call)


DISPATCHERS: Registry[Dispatcher] = Registry("dispatcher")
"""The dispatchers by name: ``positional`` and ``typed``."""
DISPATCHERS.add("positional", dispatch_positional)
DISPATCHERS.add("typed", dispatch_typed)


def get_dispatcher(name: str) -> Dispatcher:
    """A dispatcher by name (``positional`` or ``typed``)."""
    return DISPATCHERS.get_or_raise(name)
