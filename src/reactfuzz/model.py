"""The protocol model: what a model meant (Intent) and what a parser says it wrote (Step).

These are small frozen dataclasses because they are built in the hot path of every
fuzzed example; pydantic is kept for untrusted input (format files, corpus files).
"""

from __future__ import annotations

import datetime as _dt
import enum
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Action",
    "Call",
    "DuplicateKeyError",
    "FinalAnswer",
    "Intent",
    "Invalid",
    "Step",
    "no_duplicate_keys",
    "to_jsonable",
]


@dataclass(frozen=True, slots=True)
class Call:
    """A tool name with ordered arguments.

    ``names`` is ``None`` for purely positional calls (bracket formats) and otherwise
    gives one keyword name per argument, in the same order (JSON formats, or a call
    bound against a tool's schema).
    """

    tool: str
    args: tuple[Any, ...] = ()
    names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.args, tuple):
            object.__setattr__(self, "args", tuple(self.args))
        if self.names is not None:
            if not isinstance(self.names, tuple):
                object.__setattr__(self, "names", tuple(self.names))
            if len(self.names) != len(self.args):
                raise ValueError(
                    f"Call({self.tool!r}): {len(self.names)} names for {len(self.args)} arguments"
                )

    @classmethod
    def named(cls, tool: str, /, **kwargs: Any) -> Call:
        """Build a call with keyword arguments, keeping their order."""
        return cls(tool, tuple(kwargs.values()), tuple(kwargs))

    def kwargs(self) -> dict[str, Any]:
        """The arguments as a dict (only for calls with names)."""
        if self.names is None:
            raise ValueError(f"Call({self.tool!r}) has positional arguments only")
        return dict(zip(self.names, self.args))

    def key(self) -> tuple[Any, ...]:
        """A hashable, type-aware identity: ``1``, ``True`` and ``1.0`` differ; lists hash."""
        return (self.tool, tuple(_freeze(a) for a in self.args), self.names)

    def same_as(self, other: Call) -> bool:
        """Equality that also compares argument types (``==`` treats ``True == 1``)."""
        return self.key() == other.key()

    def positional(self) -> Call:
        """The same call with names dropped (what a positional format can carry)."""
        return Call(self.tool, self.args)

    def __str__(self) -> str:
        if self.names is None:
            inner = ", ".join(repr(a) for a in self.args)
        else:
            inner = ", ".join(f"{n}={a!r}" for n, a in zip(self.names, self.args))
        return f"{self.tool}({inner})"


@dataclass(frozen=True, slots=True)
class FinalAnswer:
    """The model's final answer to the question."""

    text: str

    def __str__(self) -> str:
        return f"answer({self.text!r})"


Intent = Call | FinalAnswer
"""What the model meant to do: call a tool, or answer."""


@dataclass(frozen=True, slots=True)
class Action:
    """An action as a parser read it: the tool name and the raw argument text.

    ``args``/``names`` hold the arguments as the *parser* decoded them, when it does
    (the grammar parser always does; a classic regex parser splits on commas). A
    dispatcher may decode ``raw`` itself instead.
    """

    tool: str
    raw: str
    args: tuple[Any, ...] | None = None
    names: tuple[str, ...] | None = None

    def __reduce__(self) -> tuple[Any, ...]:  # the fields in order: cheaper than by name
        return (Action, (self.tool, self.raw, self.args, self.names))

    def call(self) -> Call:
        """The call this action stands for, with the parser's decoded arguments."""
        args = self.args if self.args is not None else ((self.raw,) if self.raw else ())
        return Call(self.tool, args, self.names)


@dataclass(frozen=True, slots=True)
class Invalid:
    """Why a completion was refused: a reason a person (or a model) can act on.

    ``code`` is a short stable category (used to group rejections), ``message`` the
    precise sentence; ``line``/``column`` are 1-based, ``expected`` lists what would
    have been accepted there, and ``context`` shows the offending line with a caret.
    """

    code: str
    message: str
    line: int = 0
    column: int = 0
    expected: tuple[str, ...] = ()
    context: str = ""

    def __reduce__(self) -> tuple[Any, ...]:  # the fields in order: cheaper than by name
        return (Invalid, (self.code, self.message, self.line, self.column, self.expected,
                          self.context))

    def __str__(self) -> str:
        where = f"line {self.line}, column {self.column}: " if self.line else ""
        exp = f" (expected {', '.join(self.expected)})" if self.expected else ""
        return f"{where}{self.message}{exp}"


@dataclass(frozen=True, slots=True)
class Step:
    """What a parser says one completion means.

    Exactly one of ``action``, ``answer`` and ``invalid`` is set. Parsers never raise
    on bad input; they return an invalid Step.
    """

    thought: str = ""
    action: Action | None = None
    answer: str | None = None
    invalid: Invalid | None = None
    extras: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __reduce__(self) -> tuple[Any, ...]:
        # every worker's result crosses a pipe: the fields in order, not by name (dataclass
        # pickling of slotted classes looks each field up), a third of the cost
        return (Step, (self.thought, self.action, self.answer, self.invalid, self.extras))

    def __post_init__(self) -> None:
        n = (self.action is not None) + (self.answer is not None) + (self.invalid is not None)
        if n != 1:
            raise ValueError("a Step has exactly one of action, answer, invalid")

    @property
    def kind(self) -> str:
        """``"action"``, ``"answer"`` or ``"invalid"``."""
        if self.action is not None:
            return "action"
        if self.answer is not None:
            return "answer"
        return "invalid"

    def intent(self) -> Intent | None:
        """The intent this step reads as, or ``None`` for an invalid step."""
        if self.action is not None:
            return self.action.call()
        if self.answer is not None:
            return FinalAnswer(self.answer)
        return None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (what ``reactfuzz parse`` prints)."""
        out: dict[str, Any] = {"kind": self.kind, "thought": self.thought}
        if self.action is not None:
            a = self.action
            out["action"] = {
                "tool": a.tool,
                "raw": a.raw,
                "args": None if a.args is None else [to_jsonable(x) for x in a.args],
                "names": None if a.names is None else list(a.names),
            }
        elif self.answer is not None:
            out["answer"] = self.answer
        else:
            assert self.invalid is not None
            inv = self.invalid
            out["invalid"] = {
                "code": inv.code,
                "message": inv.message,
                "line": inv.line,
                "column": inv.column,
                "expected": list(inv.expected),
                "context": inv.context,
            }
        return out


class DuplicateKeyError(ValueError):
    """A JSON object names the same key twice (``json.loads`` would keep the last)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json.loads`` that refuses a key given twice."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKeyError(key)
        out[key] = value
    return out


def _freeze(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return ("list", tuple(_freeze(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), _freeze(v)) for k, v in value.items())))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted(repr(_freeze(v)) for v in value)))
    return (type(value).__name__, value)


def to_jsonable(value: Any) -> Any:
    """Convert argument values to plain JSON types (dates as ISO strings, enums by value)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    return str(value)
