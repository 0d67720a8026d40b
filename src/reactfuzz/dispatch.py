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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import ValidationError

from .errors import UsageError
from .model import Call, Step
from .tools import ToolRegistry

__all__ = [
    "DISPATCHERS",
    "Crashed",
    "Dispatcher",
    "Executed",
    "Finished",
    "Outcome",
    "RejectKind",
    "Rejected",
    "bind_typed",
    "dispatch_positional",
    "dispatch_typed",
    "get_dispatcher",
    "validation_summary",
]

RejectKind = Literal[
    "unparseable",
    "unknown-tool",
    "missing-arg",
    "extra-arg",
    "malformed-arg",
    "ambiguous",
    "unrepresentable",
]
REJECT_KINDS: tuple[str, ...] = get_args(RejectKind)


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


def dispatch_positional(step: Step, registry: ToolRegistry) -> Outcome:
    """The classic loop: split ``raw`` on commas, call ``TOOLS[name](*args)``."""
    if step.answer is not None:
        return Finished(step.answer)
    if step.action is None:
        assert step.invalid is not None
        # the loop would raise its own "could not parse" error and feed it back
        return Rejected("unparseable", step.invalid.message)
    action = step.action
    if action.tool not in registry:
        return Crashed("KeyError", repr(action.tool))
    # the tutorial loop, with the one special case every such loop grows on its first
    # zero-argument tool: `name[]` means no arguments
    raw = action.raw
    args = [a.strip() for a in raw.split(",")] if raw.strip() else []
    fn = registry.python_callable(action.tool)
    try:
        fn(*args)
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


def bind_typed(step: Step, registry: ToolRegistry) -> Outcome:
    """What typed dispatch decides for a Step, without executing anything."""
    if step.answer is not None:
        return Finished(step.answer)
    if step.action is None:
        assert step.invalid is not None
        return Rejected(_INVALID_KINDS.get(step.invalid.code, "unparseable"), str(step.invalid))
    action = step.action
    tool = registry.get(action.tool)
    if tool is None:
        known = ", ".join(registry.names())
        return Rejected("unknown-tool", f"no tool named {action.tool!r} (tools: {known})")
    names = tool.names
    args: tuple[Any, ...] = (
        action.args if action.args is not None else ((action.raw,) if action.raw else ())
    )
    if action.names is not None:
        undeclared = [n for n in action.names if n not in names]
        if undeclared:
            return Rejected(
                "extra-arg",
                f"{tool.name} has no argument {undeclared[0]!r} (arguments: {', '.join(names)})",
            )
        kwargs = dict(zip(action.names, args))
    else:
        if len(args) > len(names):
            return Rejected(
                "extra-arg",
                f"{tool.name} takes {len(names)} argument(s) ({', '.join(names) or 'none'}),"
                f" {len(args)} given",
            )
        kwargs = dict(zip(names, args))
    missing = [n for n in tool.required_names if n not in kwargs]
    if missing:
        return Rejected("missing-arg", f"{tool.name} needs {', '.join(repr(m) for m in missing)}")
    try:
        call = registry.validate(tool.name, kwargs)
    except ValidationError as e:
        kind, message = validation_summary(e)
        return Rejected(kind, f"{tool.name}: {message}")
    return Executed(call)


DISPATCHERS: dict[str, Dispatcher] = {
    "positional": dispatch_positional,
    "typed": dispatch_typed,
}


def get_dispatcher(name: str) -> Dispatcher:
    """A dispatcher by name (``positional`` or ``typed``)."""
    try:
        return DISPATCHERS[name]
    except KeyError:
        raise UsageError(
            f"unknown dispatcher {name!r}: use one of {', '.join(DISPATCHERS)}"
        ) from None
