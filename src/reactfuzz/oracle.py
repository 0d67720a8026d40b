"""The oracle (the dispatch model) and verdicts.

For a scenario -- what the model meant (an :data:`~reactfuzz.model.Intent`, possibly an
argument list its schema refuses), the format it was written in, and the abuse applied
to how it was written -- :func:`oracle` returns the set of acceptable outcomes under a
:class:`Policy`: the intended call executes exactly, or it is refused with the right kind.
Never a different call. :func:`judge` then compares what a design did with that set and
names the verdict, its severity and the argument or label responsible.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from .dispatch import (
    Crashed,
    Executed,
    Finished,
    Outcome,
    Rejected,
    RejectKind,
    Wording,
    bind_arguments,
    bind_typed,
    validation_summary,
)
from .formats import Format, get_format, label_pattern
from .formats.grammars import grammar_parse
from .kinds import ANY_REFUSAL, SEVERITY, VerdictKind
from .model import Call, FinalAnswer, Intent
from .render import Representability, representable
from .tools import ToolRegistry

__all__ = [
    "INTENT_WORDING",
    "SEVERITY",
    "STRICT",
    "Acceptable",
    "Expectation",
    "Policy",
    "Verdict",
    "VerdictKind",
    "judge",
    "oracle",
    "same_answer",
]


@dataclass(frozen=True, slots=True)
class Policy:
    """What the application promises about dispatch; strict by default.

    ``one_action_per_turn``: a second action in one completion makes it ambiguous (it is
    refused, never partly run). ``answer_with_action``: an answer next to an action is
    ambiguous. ``undeclared_args``: ``"refuse"`` an argument the schema does not declare,
    or ``"drop"`` it (then running the call without it is also acceptable).
    """

    one_action_per_turn: bool = True
    answer_with_action: Literal["ambiguous", "action-wins"] = "ambiguous"
    undeclared_args: Literal["refuse", "drop"] = "refuse"


STRICT = Policy()
"""The default policy."""


@dataclass(frozen=True, slots=True)
class Expectation:
    """What an abuse of the *writing* adds to the acceptable set.

    ``rejections`` are refusal kinds that are right for the abused text (a second action
    line may be refused as ``ambiguous``); ``allow_intended=False`` says the intended call
    must *not* run (the text no longer carries it unambiguously); ``note`` says why.
    """

    rejections: frozenset[str] = frozenset()
    allow_intended: bool = True
    note: str = ""


@dataclass(frozen=True)
class Acceptable:
    """The outcomes the oracle accepts for one scenario, and why."""

    intent: Intent
    calls: tuple[Call, ...] = ()
    answers: tuple[str, ...] = ()
    rejections: frozenset[str] = frozenset()
    reason: str = ""
    representable: bool = True

    def accepts(self, outcome: Outcome) -> bool:
        """Whether the outcome is one of the acceptable ones (calls compared by type too)."""
        if isinstance(outcome, Executed):
            return any(outcome.call.same_as(c) for c in self.calls)
        if isinstance(outcome, Finished):
            return any(same_answer(outcome.answer, a) for a in self.answers)
        if isinstance(outcome, Rejected):
            return outcome.reason in self.rejections
        return False

    def describe(self) -> str:
        """One line: what would have been right."""
        parts = [f"run {c}" for c in self.calls] + [f"answer {a!r}" for a in self.answers]
        if self.rejections:
            parts.append("refuse as " + "/".join(sorted(self.rejections)))
        return " or ".join(parts) or "nothing"


def same_answer(observed: str, meant: str) -> bool:
    """Whether two answers are the same text but for outer whitespace: a space kept after
    the label (``Final Answer: done``) or a trailing newline changes nothing the user reads."""
    return observed.strip() == meant.strip()


INTENT_WORDING = Wording(
    unknown_tool="there is no tool {tool!r}",
    undeclared="{tool} declares no argument {name!r}",
    too_many="{tool} takes {n} argument(s), the intent has {given}",
    missing="{tool} needs {first}",
)
"""How the oracle explains what an intent's own arguments imply."""


def _bind_intent(call: Call, registry: ToolRegistry, policy: Policy) -> tuple[
    dict[str, Any] | None, RejectKind | None, str
]:
    """The intent's arguments by name, or the refusal kind its schema implies."""
    bound = bind_arguments(registry, call.tool, call.args, call.names,
                           undeclared=policy.undeclared_args, duplicates="refuse",
                           wording=INTENT_WORDING)
    if isinstance(bound, Rejected):
        return None, bound.reason, bound.message
    return bound, None, ""


def _positional_order(
    intent: Call, fmt: Format, registry: ToolRegistry
) -> Representability | None:
    """In a positional format, named arguments must be a prefix of the declared order."""
    tool = registry.get(intent.tool)
    if intent.names is None or fmt.family.named_args or tool is None:
        return None
    declared = [n for n in intent.names if n in tool.names]
    n_decl = len(declared)
    in_order = tuple(declared) == tool.names[:n_decl]
    extras_last = all(n in tool.names for n in intent.names[:n_decl])
    if in_order and extras_last:
        return None
    return Representability(
        False, "positional text cannot say which argument is missing or out of order"
    )


def oracle(
    intent: Intent,
    fmt: Format | str,
    registry: ToolRegistry,
    policy: Policy = STRICT,
    *,
    expectation: Expectation | None = None,
    quoted: bool = False,
) -> Acceptable:
    """The acceptable outcomes for an intent written in ``fmt`` (see the module docstring).

    ``quoted`` says the text used the format's quoting (bracket: JSON strings), which
    carries delimiters a bare argument cannot.
    """
    fmt = get_format(fmt)
    rep = representable(intent, fmt, quote=quoted)
    if rep and isinstance(intent, Call):
        rep = _positional_order(intent, fmt, registry) or rep
    calls: tuple[Call, ...] = ()
    answers: tuple[str, ...] = ()
    rejections: set[str] = set()
    if isinstance(intent, FinalAnswer):
        answers = (intent.text,)
        reason = "the model meant to answer"
    else:
        kwargs, kind, why = _bind_intent(intent, registry, policy)
        if kind is not None:
            rejections.add(kind)
            reason = f"refuse: {why}"
        else:
            assert kwargs is not None
            try:
                calls = (registry.validate(intent.tool, kwargs),)
                reason = "the intended call is valid"
            except ValidationError as e:
                kind, message = validation_summary(e)
                rejections.add(kind)
                reason = f"refuse: {intent.tool}: {message}"
            if policy.undeclared_args == "drop" and intent.names is not None and calls:
                rejections.add("extra-arg")
    if not rep:
        rejections |= ANY_REFUSAL  # any refusal is right when the format cannot carry it
        reason += f"; the format cannot carry it ({rep.reason})"
    if expectation is not None:
        rejections |= set(expectation.rejections)
        if not expectation.allow_intended:
            calls, answers = (), ()
        if expectation.note:
            reason += f"; {expectation.note}"
    return Acceptable(intent, calls, answers, frozenset(rejections), reason, bool(rep))


# VerdictKind and SEVERITY are re-exported: defined once in the model layer (`kinds`)


@dataclass(frozen=True)
class Verdict:
    """The judgement of one outcome: kind, severity and a one-line explanation.

    ``cause`` is ``"design"`` when the parser or dispatcher got it wrong, and
    ``"protocol"`` when the format cannot carry the intent and the design did exactly what
    the text says (the grammar's reading): the protocol is ambiguous, not the parser.
    """

    kind: VerdictKind
    explanation: str
    severity: str = field(default="")
    cause: Literal["design", "protocol"] = "design"

    def __post_init__(self) -> None:
        if not self.severity:
            object.__setattr__(self, "severity", SEVERITY[self.kind])

    @property
    def ok(self) -> bool:
        """True for the ``ok`` verdict."""
        return self.kind == "ok"

    def __str__(self) -> str:
        return f"{self.kind} ({self.severity}): {self.explanation}"


def _arg_diff(ran: Call, meant: Call) -> str:
    """Name the arguments that differ between two calls of the same tool."""
    if ran.names is None or meant.names is None:
        return f"ran {ran}, meant {meant}"
    r, m = dict(zip(ran.names, ran.args)), dict(zip(meant.names, meant.args))
    diffs = [
        f"{k}={r.get(k)!r} (meant {m.get(k)!r})"
        for k in dict.fromkeys([*m, *r])
        if Call("x", (r.get(k),)).key() != Call("x", (m.get(k),)).key()
    ]
    return "arguments differ: " + ", ".join(diffs) if diffs else f"ran {ran}"


def _label_responsible(completion: str | None, fmt: Format | None) -> str:
    """Where an answer label sits inside the text, if not at a line start."""
    if not completion or fmt is None:
        return ""
    words = [w for w in (fmt.labels.answer, fmt.finish_action) if w]
    for n, line in enumerate(completion.split("\n"), 1):
        for w in words:
            col = line.find(w)
            if col > 0:
                return f"; '{w}' stands inside line {n} at column {col + 1}, not at its start"
            if col == 0 and not re.match(label_pattern([w], colon=False) + r"[:\[]", line):
                return f"; line {n} starts with '{w}' written differently"
    return ""


def _cause(
    observed: Outcome,
    registry: ToolRegistry,
    completion: str | None,
    fmt: Format | None,
    reading: Callable[[], Outcome] | None = None,
) -> Literal["design", "protocol"]:
    """``protocol`` when the format's own reading of the text (grammar + typed) is exactly
    what happened: the design did what the text says, and the text or the format is at
    fault (an unquoted comma, a bracket that is content in ``paper``, a stop-sequence cut)."""
    if completion is None or fmt is None:
        return "design"
    if reading is None:
        typed = bind_typed(grammar_parse(completion, fmt), registry)
    else:  # the caller's reference reading of this completion, computed at most once
        typed = reading()
    if isinstance(observed, Executed) and isinstance(typed, Executed):
        ran = observed.call
        try:
            ran = registry.validate(ran.tool, ran.kwargs()) if ran.names else ran
        except Exception:
            return "design"
        return "protocol" if typed.call.same_as(ran) else "design"
    if isinstance(observed, Finished) and isinstance(typed, Finished):
        return "protocol" if same_answer(observed.answer, typed.answer) else "design"
    return "design"


def _bound(intent: Call, registry: ToolRegistry) -> Call | None:
    """The intent validated against its tool (defaults filled in), if it validates."""
    kwargs, kind, _ = _bind_intent(intent, registry, STRICT)
    if kind is not None or kwargs is None:
        return None
    try:
        return registry.validate(intent.tool, kwargs)
    except ValidationError:
        return None


def _whole_message_answer(observed: Outcome, acceptable: Acceptable, completion: str | None,
                          fmt: Format | None, reading: Callable[[], Outcome] | None) -> bool:
    """A format whose answers are whole messages, a client that returned the completion,
    and a completion the format reads as an acceptable answer."""
    if (fmt is None or fmt.answer_scope != "message" or completion is None
            or not isinstance(observed, Finished) or not same_answer(observed.answer, completion)):
        return False
    if reading is not None:
        meant = reading()
        return isinstance(meant, Finished) and acceptable.accepts(meant)
    step = grammar_parse(completion, fmt)
    return step.answer is not None and acceptable.accepts(Finished(step.answer))


def judge(
    observed: Outcome,
    acceptable: Acceptable,
    registry: ToolRegistry,
    *,
    completion: str | None = None,
    fmt: Format | str | None = None,
    reading: Callable[[], Outcome] | None = None,
) -> Verdict:
    """Compare what a design did with what the oracle accepts.

    ``reading``, when given, returns what grammar + typed dispatch make of ``completion``
    (the format's reference reading); it is called only if the cause must be settled.
    """
    fmt_obj = get_format(fmt) if fmt is not None else None
    intent = acceptable.intent
    if isinstance(observed, Crashed):
        return Verdict("crash", f"the loop died: {observed.exc_type}: {observed.message}")
    if acceptable.accepts(observed):
        return Verdict("ok", f"{observed} is acceptable ({acceptable.reason})")
    if _whole_message_answer(observed, acceptable, completion, fmt_obj, reading):
        return Verdict("ok", "the client handed over the whole message, which the format"
                             " reads as the intended answer")
    if isinstance(observed, Executed):
        ran = observed.call
        if isinstance(intent, FinalAnswer):
            return Verdict("wrong-call", f"ran {ran} where the model meant to answer",
                           cause=_cause(observed, registry, completion, fmt_obj, reading))
        try:
            normalized = registry.validate(ran.tool, ran.kwargs()) if ran.names else None
        except ValidationError as e:
            _, message = validation_summary(e)
            if ran.tool == intent.tool:
                return Verdict(
                    "unvalidated-call",
                    f"ran {ran.tool} with arguments its schema refuses: {message}",
                )
            return Verdict("wrong-call", f"ran {ran} instead of {intent} (and unvalidated)")
        except Exception:  # an unknown tool or an unnamed call: still not the intent
            normalized = None
        if normalized is not None and any(normalized.same_as(c) for c in acceptable.calls):
            return Verdict("ok", f"{ran} validates to the intended call")
        if ran.tool != intent.tool:
            return Verdict("wrong-call", f"ran {ran.tool} instead of {intent.tool}: {ran}",
                           cause=_cause(observed, registry, completion, fmt_obj, reading))
        if not acceptable.calls and (normalized or ran).same_as(
            _bound(intent, registry) or intent
        ):
            return Verdict("wrong-call", f"ran {ran}, but the text should have been refused:"
                           f" {acceptable.reason}")
        meant = acceptable.calls[0] if acceptable.calls else intent
        diff = _arg_diff(normalized or ran, meant)
        cause = _cause(observed, registry, completion, fmt_obj, reading)
        note = " (the text says exactly this: the format cannot carry the intent)" if (
            cause == "protocol"
        ) else ""
        return Verdict("wrong-call", f"ran the wrong {ran.tool} call: {diff}{note}", cause=cause)
    if isinstance(observed, Finished):
        where = _label_responsible(completion, fmt_obj)
        cause = _cause(observed, registry, completion, fmt_obj, reading)
        if isinstance(intent, FinalAnswer):
            return Verdict(
                "hijacked-answer",
                f"finished with {observed.answer!r} instead of {intent.text!r}{where}",
                cause=cause,
            )
        return Verdict(
            "hijacked-answer",
            f"finished with {observed.answer!r} where the model meant {intent}{where}",
            cause=cause,
        )
    assert isinstance(observed, Rejected)
    if not acceptable.rejections:
        return Verdict(
            "silent-drop",
            f"refused a valid intent {intent} as {observed.reason}: {observed.message}",
        )
    want = "/".join(sorted(acceptable.rejections))
    return Verdict(
        "wrong-rejection",
        f"refused as {observed.reason}, but the right refusal is {want} ({acceptable.reason})",
    )
