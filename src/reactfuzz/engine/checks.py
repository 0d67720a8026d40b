"""Checks: properties a target must keep, as plain functions registered by id.

A check looks at one example -- the scenario, what the target's parser returned, what the
dispatcher did with it and the oracle's verdict -- and returns a :class:`Failure` or
``None``. Users add their own with the :func:`check` decorator; the engine runs every
registered check (or the ones asked for) on every example. A check that compares with the
format's reference reading takes it from ``CheckInput.reading``, which parses the
completion with the grammar at most once per example, whoever asks first.

Everything else a check is, it declares where it is registered: the failure kinds it
reports and how bad each is, the fix for its failures, and whether the exploration runs it
on every scenario (``fast``).

Findings about the target are data (a ``Failure``), never exceptions thrown at the user.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from ..designs import Reading
from ..dispatch import Crashed, Executed, Finished, Outcome, Rejected
from ..errors import UsageError
from ..fixes import CLEAN_MISREAD, LINEAR, SCHEMA, STOP
from ..formats import Format
from ..formats.family import line_start_re
from ..kinds import DISAGREEMENT_SEVERITY, DISAGREEMENTS, SEVERITY
from ..limits import id_problem, time_allowed
from ..model import Call, FinalAnswer, Step
from ..oracle import Verdict, same_answer
from ..registry import Registry
from ..render import written_form
from ..strategies import Scenario
from ..targets.adapters import REFUSED
from ..tools import ToolRegistry
from .growth import Growth
from .rootcause import arg_difference, mask, outcome_signature, refusal_kind

__all__ = [
    "CHECKS",
    "Check",
    "CheckInput",
    "Failure",
    "check",
    "fast_checks",
    "get_checks",
]


@dataclass(frozen=True)
class CheckInput:
    """Everything a check may look at for one example."""

    scenario: Scenario
    fmt: Format
    registry: ToolRegistry
    step: Step | None
    outcome: Outcome
    verdict: Verdict
    error: str | None = None  # the target's parser raised (not a refusal)
    timed_out: bool = False
    elapsed: float = 0.0
    time_limit: float = 1.0
    target_is_grammar: bool = False
    streamed_step: Step | None = None  # the Step when the completion arrived in chunks
    reading: Reading | None = None  # the format's reference reading (computed on first use)
    growth: Growth | None = None  # a slow long parse timed beside its quarter
    keyed: bool = True
    """``False`` when only whether a check fails is wanted (a search's loop that keys its
    failures later): checks may then leave the root-cause signature empty."""

    @property
    def reference(self) -> Reading:
        """The format's reference reading of the completion (grammar + typed dispatch)."""
        if self.reading is not None:
            return self.reading
        # a CheckInput built by hand: read now (then once per access)
        return Reading(self.scenario.completion, self.fmt, self.registry)


@dataclass(frozen=True)
class Failure:
    """A check that failed: what kind of failure, why, and whose fault it is."""

    kind: str
    message: str
    severity: str = ""
    """How bad it is; empty: the severity the check declares for ``kind`` (``high`` when
    it declares none)."""
    cause: Literal["design", "protocol"] = "design"
    # what was observed, values masked: with check, kind and cause, the root cause
    signature: str = ""
    # the same without what stands in for the parser's mechanism (where a label stood in
    # the text, how the grammar reads it): used instead when the parser's origin is known
    shape: str = ""


@dataclass(frozen=True)
class Check:
    """A registered property: id, one-line description, the function and what it declares."""

    id: str
    description: str
    fn: Callable[[CheckInput], Failure | None] = field(repr=False)
    # whether where the parser decided tells this check's bugs apart (see
    # ``engine.example``): not for a property of the text or of the design as a whole
    by_origin: bool = True
    # the failure kinds the check reports (empty: not declared, any); a corpus file whose
    # kind is not one of them is a typo, refused rather than replayed as "fixed"
    kinds: tuple[str, ...] = ()
    severity: str | Mapping[str, str] | None = field(default=None, repr=False)
    """How bad its failures are: one severity, or one per kind (``None``: ``high``)."""
    advice: str = field(default="", repr=False)
    """The fix for its failures whatever the operator (empty: the operator's, the family's)."""
    fast: bool = False
    """The exploration runs it on every scenario (it needs no second parse)."""

    def severity_of(self, kind: str) -> str:
        """The severity the check declares for a failure of ``kind``."""
        if isinstance(self.severity, str):
            return self.severity
        if self.severity is not None and kind in self.severity:
            return self.severity[kind]
        return "high"

    def __call__(self, inp: CheckInput) -> Failure | None:
        found = self.fn(inp)
        if found is not None and not found.severity:
            found = replace(found, severity=self.severity_of(found.kind))
        return found


CHECKS: Registry[Check] = Registry("check")
"""Every registered check by id, in registration order (the order failures are reported)."""


def check(id: str, description: str, *, by_origin: bool = True,
          kinds: tuple[str, ...] = (), severity: str | Mapping[str, str] | None = None,
          advice: str = "", fast: bool = False) -> Callable[
    [Callable[[CheckInput], Failure | None]], Callable[[CheckInput], Failure | None]
]:
    """Register a check function under ``id`` (a decorator).

    ``by_origin`` says where the parser decided (the line that raised, the path a parse
    took) tells this check's bugs apart; ``False`` for a property of the text or of the
    design as a whole (a slow parse, a fabricated observation acted on). ``kinds`` names
    the failure kinds it reports, when it knows them (replay refuses a file with another).
    ``severity`` is how bad a failure is (one severity, or one per kind) when the
    :class:`Failure` does not say (``high`` by default). ``advice`` is the fix for its
    failures when it does not depend on how the text was abused (otherwise the operator's
    advice, then the format family's, is given). ``fast=True``: the exploration runs it on
    every scenario (it must be cheap: no second parse of the completion)."""

    problem = id_problem("check", id)  # ids name corpus files
    if problem is not None:
        raise UsageError(problem)

    def deco(fn: Callable[[CheckInput], Failure | None]) -> Callable[[CheckInput], Failure | None]:
        # a second one of that id: UsageError
        CHECKS.add(id, Check(id, description, fn, by_origin, tuple(kinds),
                             dict(severity) if isinstance(severity, Mapping) else severity,
                             advice, fast))
        return fn

    return deco


def fast_checks() -> tuple[str, ...]:
    """The ids of the checks registered ``fast``, in registration order: the ones the
    exploration runs per scenario."""
    return tuple(c.id for c in CHECKS.values() if c.fast)


def get_checks(ids: list[str] | None = None) -> list[Check]:
    """The checks with these ids (all when ``None``); unknown ids are a usage error."""
    if ids is None:
        return list(CHECKS.values())
    return [CHECKS.get_or_raise(i) for i in ids]


def _names(registry: ToolRegistry) -> tuple[list[str], list[str]]:
    """The tool and the parameter names: values that vary between examples of one bug."""
    return [t.name for t in registry], [n for t in registry for n in t.names]


def verdict_shape(inp: CheckInput) -> str:
    """The shape of the example's verdict without the text's stand-ins for the parser's
    mechanism (see :func:`.rootcause.outcome_signature`)."""
    v, sc = inp.verdict, inp.scenario
    if v.kind == "unvalidated-call":
        return verdict_signature(inp)
    refusable = bool(sc.acceptable.rejections)
    refused = ""
    if (isinstance(inp.outcome, Finished) and isinstance(sc.intent, Call)
            and _message_answers(inp.fmt)):
        # a call lost and the message shown instead, where a message is an answer: the
        # parser's pattern decided (no line of Python shows it), and how the format reads
        # the text tells its mechanisms apart -- a valid call lost, a broken one skipped,
        # a tag never closed
        refused = refusal_kind(inp.reference.outcome()) if refusable else \
            "the text carries the call"
    return outcome_signature(v.kind, inp.outcome, sc.intent, sc.acceptable.calls,
                             sc.completion, inp.fmt, *_names(inp.registry),
                             refusable=refusable, refused=refused, proxies=False)


def _message_answers(fmt: Format) -> bool:
    """Whether the format's answer is the plain message (a tag protocol, bare JSON: no
    answer label, no finish tool). In a labelled format a call read as an answer is taken
    after a label or is a whole-text fallback: one branch of the parser, whatever the
    text held."""
    return not fmt.labels.answer and not fmt.finish_action


def _unvalidated_signature(inp: CheckInput) -> str:
    """One bug whatever the schema said: the design runs calls it never validated. What
    sets two apart is whether the text's values ran as written (a wrong value passed
    through) or the parser changed them first (a split, a quote kept)."""
    said = "ran arguments its schema refuses"
    ran, meant = inp.outcome, inp.scenario.intent
    if not (isinstance(ran, Executed) and isinstance(meant, Call)):
        return said
    if _same_text_call(ran.call, meant):
        return f"{said}, as the text wrote them"
    return f"{said}, changed: {arg_difference(ran.call, meant, coarse=True)}"


def verdict_signature(inp: CheckInput) -> str:
    """The root-cause signature of the example's verdict (see :mod:`.rootcause`)."""
    v = inp.verdict
    if v.kind == "unvalidated-call":
        return _unvalidated_signature(inp)
    sc = inp.scenario
    refusable = bool(sc.acceptable.rejections)
    refused = ""
    if refusable and isinstance(inp.outcome, Finished) and isinstance(sc.intent, Call):
        # a call read as a message: how the format reads the text tells the bugs apart
        refused = refusal_kind(inp.reference.outcome())
    return outcome_signature(v.kind, inp.outcome, sc.intent, sc.acceptable.calls,
                             sc.completion, inp.fmt, *_names(inp.registry),
                             refusable=refusable, refused=refused)


def _not_carried(inp: CheckInput) -> bool:
    """The format cannot carry the intent (a bare line break in an argument, an answer
    holding a whole action block at line starts, ...): the text then says something else
    than the model meant, no design can read the intent back, and any refusal is right.
    A call or an answer read from such a text is a note on the format, not the design's
    fault; a design that also misreads what the text does say is caught on texts the
    format carries (the same abuse written representably, ``agrees-with-grammar``)."""
    return not inp.scenario.acceptable.representable


def _verdict_check(kind: str) -> Callable[[CheckInput], Failure | None]:
    def fn(inp: CheckInput) -> Failure | None:
        v = inp.verdict
        if v.kind != kind:
            return None
        cause = v.cause
        if kind in ("wrong-call", "hijacked-answer") and _not_carried(inp):
            cause = "protocol"  # a note on the format, not a fault of the design
        if not inp.keyed:
            return Failure(v.kind, v.explanation, v.severity, cause)
        return Failure(v.kind, v.explanation, v.severity, cause, verdict_signature(inp),
                       verdict_shape(inp))

    return fn


check("no-wrong-call", "no call runs that differs from what the model meant",
      kinds=("wrong-call",), severity=SEVERITY["wrong-call"], fast=True)(
    _verdict_check("wrong-call")
)
check("no-unvalidated-call", "the intended tool never runs with arguments its schema refuses",
      by_origin=False, kinds=("unvalidated-call",), severity=SEVERITY["unvalidated-call"],
      advice=SCHEMA, fast=True)(
    _verdict_check("unvalidated-call")
)
check("no-hijacked-answer", "no answer other than the model's, and none instead of an action",
      kinds=("hijacked-answer",), severity=SEVERITY["hijacked-answer"], fast=True)(
    _verdict_check("hijacked-answer")
)


@check("no-crash", "neither the parser nor the dispatcher raises", kinds=("crash",),
       severity=SEVERITY["crash"], fast=True,
       advice=("Return a refusal (an invalid Step or an error message for the model)"
               " instead of raising, and validate arguments against the schema before the"
               " call so a bad value never reaches `fn(*args)`."))
def _no_crash(inp: CheckInput) -> Failure | None:
    if inp.timed_out:
        return None  # a parse that ran past the limit is bounded-time's finding, not a second one
    if inp.error is not None and not inp.keyed:
        return Failure("crash", f"the parser raised {inp.error}")
    if inp.error is not None:
        return Failure("crash", f"the parser raised {inp.error}",
                       signature="parser " + mask(inp.error, *_names(inp.registry),
                                                  completion=inp.scenario.completion),
                       shape="parser crash")
    if isinstance(inp.outcome, Crashed) and not inp.keyed:
        return Failure("crash", inp.verdict.explanation)
    if isinstance(inp.outcome, Crashed):
        return Failure("crash", inp.verdict.explanation,
                       signature=verdict_signature(inp), shape=verdict_shape(inp))
    return None


@check("bounded-time", "no parse runs past its time limit (in proportion to the length past"
       " 16 kB), and no slow parse of a long input grows faster than the input",
       by_origin=False, kinds=("timeout",), severity=SEVERITY["timeout"], advice=LINEAR,
       fast=True)
def _bounded_time(inp: CheckInput) -> Failure | None:
    # no claim of growth from one parse: a pure-Python decoder is linear and still a
    # hundred times slower than the grammar on the same text; growth is a long input
    # timed beside its own quarter (engine.growth), or the sizes growing with the budget
    # while the time allowed grows only in proportion
    n = len(inp.scenario.completion)
    allowed = time_allowed(n, inp.time_limit)  # past 16 kB, in proportion to the length
    slow = inp.timed_out or inp.elapsed > allowed
    if inp.step is not None and inp.step.invalid is not None and inp.step.invalid.code == "timeout":
        slow = True
    if slow:
        return Failure("timeout", f"parsing took longer than {allowed:.3g}s"
                       f" ({n} characters)", signature="slow parse")
    if inp.growth is not None and inp.growth.super_linear:
        # within the time allowed, but slower than linear: a longer input will not be
        return Failure("timeout", inp.growth.describe(), signature="slow parse")
    return None


def _observation_at_line_start(text: str, fmt: Format) -> re.Match[str] | None:
    # fmt.line_start_re("observation"), without gathering every label's word each time
    return line_start_re((fmt.labels.observation,), True, True).search(text)


@check("no-fabricated-observation",
       "a model-written Observation never enters the transcript of a completion acted on",
       by_origin=False, kinds=("fabricated-observation",),
       severity=SEVERITY["fabricated-observation"], advice=STOP, fast=True)
def _no_fabricated(inp: CheckInput) -> Failure | None:
    if not isinstance(inp.outcome, (Executed, Finished)):
        return None
    # only what the client keeps of the completion reaches the transcript (the format says:
    # the whole completion in the classic loops, the text before the call in tag protocols)
    kept = inp.fmt.family.kept_text(inp.scenario.completion, inp.fmt,
                                    acted=isinstance(inp.outcome, Executed))
    m = _observation_at_line_start(kept, inp.fmt)
    if m is None:
        return None
    line = kept.count("\n", 0, m.start()) + 1
    return Failure(
        "fabricated-observation",
        f"acted on a completion whose line {line} is a model-written '{m.group()}'"
        " (it enters the transcript as if a tool had said it)",
    )


@check("no-silent-drop", "a valid intent the format can carry is not refused",
       kinds=("silent-drop",), severity=SEVERITY["silent-drop"], fast=True)
def _no_silent_drop(inp: CheckInput) -> Failure | None:
    return _SILENT_DROP(inp)


_SILENT_DROP = _verdict_check("silent-drop")  # made once, not once an example


def _names_no_kind(step: Step | None) -> bool:
    """A refusal that does not say why (a user target raised, or returned a refusal with
    no kind): its reason is unknown, not wrong."""
    return step is not None and step.invalid is not None and step.invalid.code == REFUSED


@check("right-rejection", "a refusal names the right reason (missing, extra, malformed, ...)",
       kinds=("wrong-rejection",), severity=SEVERITY["wrong-rejection"], fast=True,
       advice=("Name the refusal by what is wrong (missing-arg, extra-arg,"
               " malformed-arg, unknown-tool, ambiguous): the schema's validation"
               " error says which."))
def _right_rejection(inp: CheckInput) -> Failure | None:
    if _names_no_kind(inp.step):
        return None
    return _WRONG_REJECTION(inp)


_WRONG_REJECTION = _verdict_check("wrong-rejection")


_GENERIC = re.compile(r"^\W*(invalid|error|failed|bad|parse error|could not parse)\W*$", re.I)


@check("clean-rejection", "a refusal carries a reason a model could act on",
       kinds=("unclear-rejection",), severity="low",
       advice=("Say in the refusal what is wrong and what would be accepted (the"
               " field, the expected form), so the model can correct itself on the"
               " next turn."))
def _clean_rejection(inp: CheckInput) -> Failure | None:
    if not isinstance(inp.outcome, Rejected):
        return None
    message = inp.outcome.message.strip()
    if len(message) >= 12 and not _GENERIC.match(message):
        return None
    return Failure(
        "unclear-rejection",
        f"refused as {inp.outcome.reason} with the reason {message!r}, which does not say"
        " what to fix",
        signature=inp.outcome.reason,
    )


@check("roundtrip", "a clean rendering of an intent reads back as that intent",
       kinds=("roundtrip",), severity="high", advice=CLEAN_MISREAD)
def _roundtrip(inp: CheckInput) -> Failure | None:
    sc = inp.scenario
    if sc.abuse != "clean.render" or not sc.acceptable.representable or inp.step is None:
        return None
    want = written_form(sc.intent, inp.fmt)
    got = inp.step.intent()
    if (inp.fmt.answer_scope == "message" and isinstance(want, FinalAnswer)
            and inp.step.answer is not None and inp.verdict.ok
            and same_answer(inp.step.answer, sc.completion)):
        return None  # the client hands over the whole message, which reads as the answer
    if got is not None and (got == want or (
        got.__class__ is want.__class__ and _same_text_call(got, want)
    ) or (isinstance(got, FinalAnswer) and isinstance(want, FinalAnswer)
          and same_answer(got.text, want.text))):
        return None
    return Failure("roundtrip", f"read {got} back from the rendering of {want}")


def _same_text_call(a: object, b: object) -> bool:
    if isinstance(a, Call) and isinstance(b, Call):
        return (a.tool == b.tool and len(a.args) == len(b.args)
                and all(_same_text(x, y) for x, y in zip(a.args, b.args)))
    return False


def _same_text(x: object, y: object) -> bool:
    """One argument read back as the text written, or as the same number (a reader that
    types ``1.0`` by the schema may give ``1``)."""
    if str(x) == str(y):
        return True
    try:
        return (not isinstance(x, bool) and not isinstance(y, bool)
                and float(str(x)) == float(str(y)))
    except ValueError:
        return False


def _disagreement(step: Step, ref: Step) -> tuple[str, str] | None:
    if step.kind != ref.kind:
        if ref.kind == "invalid":
            return "laxer", f"acts ({step.kind}) where the grammar refuses: {ref.invalid}"
        if step.kind == "invalid":
            return "stricter", f"refuses ({step.invalid}) what the grammar reads as {ref.kind}"
        return "other-kind", f"reads an {step.kind} where the grammar reads an {ref.kind}"
    if step.action is not None and ref.action is not None:
        if step.action.tool != ref.action.tool:
            return "other-tool", f"tool {step.action.tool!r}, grammar {ref.action.tool!r}"
        mine, theirs = step.action.call(), ref.action.call()
        if [str(x) for x in mine.args] != [str(x) for x in theirs.args]:
            return "other-arguments", (
                f"arguments {list(mine.args)!r}, grammar {list(theirs.args)!r}"
            )
    if (step.answer is not None and ref.answer is not None
            and not same_answer(step.answer, ref.answer)):
        return "other-answer", f"answer {step.answer!r}, grammar {ref.answer!r}"
    return None


@check("agrees-with-grammar", "the target reads a completion as the format's grammar does",
       kinds=tuple(f"disagrees:{k}" for k in DISAGREEMENTS),
       severity={f"disagrees:{k}": s for k, s in DISAGREEMENT_SEVERITY.items()})
def _agrees(inp: CheckInput) -> Failure | None:
    if inp.target_is_grammar or inp.step is None:
        return None
    # a reading the oracle accepts harms nobody, whatever the grammar says: the intended
    # call ran, or the target refused where refusing is right
    if inp.verdict.ok:
        return None
    if isinstance(inp.outcome, Rejected) and isinstance(inp.reference.outcome(), Rejected):
        return None  # both sides refuse: the model gets a retry either way
    found = _disagreement(inp.step, inp.reference.step)
    if found is None:
        return None
    kind, message = found
    # a text that cannot carry the intent is read against a grammar that cannot either:
    # whoever reads it more loosely, that is a note on the format (as the verdict is)
    cause: Literal["design", "protocol"] = "protocol" if _not_carried(inp) else "design"
    return Failure(f"disagrees:{kind}", message, cause=cause, signature=kind)


@check("stream-invariance", "the same Step whether the completion arrives whole or in chunks",
       kinds=("stream-variance",), severity="medium",
       advice=("Parse only the whole completion once the stream ends, or buffer"
               " until a complete line, so a chunk boundary never changes the"
               " reading."))
def _stream(inp: CheckInput) -> Failure | None:
    if inp.streamed_step is None or inp.step is None:
        return None
    a, b = inp.step, inp.streamed_step
    if a.kind == b.kind and a.intent() == b.intent():
        return None
    if any(s.invalid is not None and s.invalid.code == "timeout" for s in (a, b)):
        # one of the two parses ran out of time (a loaded machine, a slow parser): the
        # time is bounded-time's to judge, not a reading that changed with the chunks
        return None
    return Failure("stream-variance", f"whole: {a.intent() or a.invalid}; streamed:"
                   f" {b.intent() or b.invalid}")
