"""The abuse catalogue: what an operator is, the registry of operators, and their helpers.

An operator is a function ``write(ctx) -> Writing`` registered with
:func:`register_abuse`, which also takes everything else the operator is (its
description, the classic designs it breaks, the formats it applies to, the fix for the
bugs it finds); the operators themselves live in :mod:`.abuses`, one module per abuse
family, and read where labels, delimiters and quotes sit from the format's protocol
family (``ctx.fmt.family``) rather than switching on its name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from ..errors import UsageError
from ..fixes import Advice
from ..formats import Format, get_format
from ..kinds import ANY_REFUSAL
from ..limits import id_problem
from ..model import Call, FinalAnswer, Intent
from ..oracle import Expectation, Policy
from ..registry import Registry
from ..render import render
from ..tools import Tool, ToolRegistry
from .text import plain_text
from .values import is_free_string, prop_kind, schema_properties, valid_calls

__all__ = [
    "ABUSES",
    "ANY_REFUSAL",
    "Abuse",
    "Advice",
    "Context",
    "Writing",
    "abuse_ids",
    "free_params",
    "line_of",
    "multi_arg",
    "register_abuse",
    "single_arg_ok",
    "typed_params",
    "writes_label",
]


@dataclass(frozen=True)
class Writing:
    """How an abused intent was written: what the model meant and the text it wrote.

    ``core_end`` is the offset where the intent's own writing ends (after it, only
    continuation such as a fabricated observation), so a stop-sequence cut before it
    means the text no longer carries the intent.
    """

    intent: Intent
    text: str
    expectation: Expectation | None = None
    quoted: bool = False
    core_end: int | None = None


@dataclass
class Sizes:
    """How long the size operators' long inputs are in one search: ``scale`` times as
    long as at the default budget (a larger budget reaches sizes where a quadratic parse
    shows); ``long`` turns them off once the target has shown it is slow on them, since
    more of them would only re-find that at seconds apiece."""

    scale: float = 1.0
    long: bool = True


@dataclass(frozen=True)
class Context:
    """What an operator writes with: the draw function, the format, the tools, the policy.

    ``fmt.family`` says where labels, delimiters and quotes sit in the format's actions.
    """

    draw: st.DrawFn
    fmt: Format
    registry: ToolRegistry
    policy: Policy
    sizes: Sizes = field(default_factory=lambda: Sizes())

    def call(self, pred: Callable[[Tool], bool] | None = None, **kw: Any) -> Call:
        tools = [t.name for t in self.registry if pred is None or pred(t)]
        assume(tools)
        if self.fmt.arguments == "single":
            kw["optional"] = False  # a one-argument format carries only the required one
        return self.draw(valid_calls(self.registry, tools=tools, **kw))

    def thought(self) -> str:
        return self.draw(plain_text())

    def render(self, intent: Intent, thought: str | None = None, **kw: Any) -> str:
        return render(intent, self.fmt, thought=thought if thought is not None else self.thought(),
                      **kw)


@dataclass(frozen=True)
class Abuse:
    """A named transformation of how an intent is written, with what the oracle expects."""

    id: str
    family: str
    description: str
    why: str
    expects: str
    write: Callable[[Context], Writing] = field(repr=False)
    applies: Callable[[Format], bool] = field(default=lambda fmt: True, repr=False)
    breaks: tuple[str, ...] = ()
    breaks_none_because: str = ""
    no_stop: bool = False
    """The text reaches the parser without the provider's stop-sequence cut."""
    needs: str = ""
    """What a format must have for the operator to apply, said when it is skipped."""
    advice: Advice | None = field(default=None, repr=False)
    """The fix for the bugs it finds (``None``: the format family's usual fix)."""

    def applies_to(self, fmt: Format | str) -> bool:
        """Whether this operator means anything in the format."""
        return self.applies(get_format(fmt))


ABUSES: Registry[Abuse] = Registry("abuse")
"""The operator catalogue by stable id."""


def register_abuse(
    id: str,
    *,
    family: str,
    description: str,
    why: str,
    expects: str,
    applies: Callable[[Format], bool] | None = None,
    breaks: tuple[str, ...] = (),
    breaks_none_because: str = "",
    no_stop: bool = False,
    needs: str = "",
    advice: Advice | str | None = None,
) -> Callable[[Callable[[Context], Writing]], Callable[[Context], Writing]]:
    """Register an abuse operator (a decorator over ``write(ctx) -> Writing``).

    ``breaks`` names the classic designs known to fail on it (the tests check the claim);
    an operator no classic design fails says why in ``breaks_none_because``. A second
    operator with the same id is a :class:`~reactfuzz.errors.UsageError`. ``no_stop=True``:
    the client sends no stop sequence, so the whole text reaches the parser. ``needs`` says
    what ``applies`` asks of a format (a run that skips the operator says it). ``advice``
    is the fix for what it finds (an :class:`~reactfuzz.fixes.Advice`: when the design
    acted on a misreading, when it refused, per family and per check; a string: one fix
    either way); without it a finding gets the format family's usual fix.
    """

    problem = id_problem("abuse", id)  # ids name corpus files
    if problem is not None:
        raise UsageError(problem)

    def deco(fn: Callable[[Context], Writing]) -> Callable[[Context], Writing]:
        ABUSES.add(id, Abuse(id, family, description, why, expects, fn,
                             applies or (lambda fmt: True), breaks, breaks_none_because,
                             no_stop, needs,
                             Advice(advice) if isinstance(advice, str) else advice))
        return fn

    return deco


def abuse_ids(fmt: Format | str | None = None) -> list[str]:
    """The ids of all operators, or of those that apply to ``fmt``."""
    if fmt is None:
        return list(ABUSES)
    return [a.id for a in ABUSES.values() if a.applies_to(fmt)]


def multi_arg(fmt: Format) -> bool:
    return fmt.family.max_args is None


def writes_label(*roles: str) -> Callable[[Format], bool]:
    """An ``applies`` predicate: the format writes a label of ``roles`` (any label when
    none is named) at a line start of a call or an answer (tag formats write none)."""
    def applies(fmt: Format) -> bool:
        probe = "\n".join(render(i, fmt, thought="t") for i in (
            Call.named("f", a="x"), FinalAnswer("x")))
        return fmt.line_start_re(*roles).search(probe) is not None
    return applies


def typed_params(tool: Tool) -> list[str]:
    return [n for n, p in schema_properties(tool).items() if prop_kind(p) != "string"]


def free_params(tool: Tool) -> list[str]:
    return [n for n in tool.names if is_free_string(tool, n)]


def single_arg_ok(fmt: Format, tool: Tool) -> bool:
    """Single-argument formats can only carry tools with one required parameter."""
    if fmt.arguments != "single":
        return True
    return len(tool.required_names) == 1


def line_of(text: str, fmt: Format, role: str) -> int:
    """Offset of the start of the first line that starts with ``role``'s label (or len(text))."""
    m = fmt.line_start_re(role, number=False, colon=False).search(text)
    return m.start() if m else len(text)
