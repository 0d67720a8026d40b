"""What raw bytes mean: the format's own reading is the intent.

A fuzzer's input was written by no model, so it carries no intent of its own. The one
meaning it has is the format's: the grammar reads the text and typed dispatch binds what
it reads. That reading becomes the scenario's intent and its one acceptable action, and
any refusal is acceptable too (raw bytes cannot say that a stricter parser is wrong, so a
refusal is a retry, never a failure). A target then fails when it runs another call, runs
a call the format refuses, answers where the format acts or with another answer, crashes
or runs too long -- the engine's own checks decide which, on the engine's own pipeline.
"""

from __future__ import annotations

from ..designs import Reading
from ..dispatch import Executed, Finished
from ..kinds import ANY_REFUSAL
from ..model import Call, FinalAnswer, Intent
from ..oracle import Acceptable
from ..strategies import Scenario

__all__ = ["ABUSE", "NO_ACTION", "acceptable_from_reading", "scenario_from_reading"]

ABUSE = "fuzz.bytes"
"""The abuse id of a finding made from a fuzzer's input (no operator wrote it)."""

NO_ACTION = "(no action)"
"""The tool name of the intent when the format reads no action at all (nothing may run)."""


def acceptable_from_reading(reading: Reading) -> Acceptable:
    """The outcomes the format's reading of a completion allows: its own, or a refusal."""
    outcome = reading.outcome()
    step = reading.step
    intent: Intent
    if isinstance(outcome, Executed):
        intent = outcome.call
        return Acceptable(intent, (outcome.call,), (), ANY_REFUSAL,
                          f"the format reads {outcome.call}")
    if isinstance(outcome, Finished):
        intent = FinalAnswer(outcome.answer)
        return Acceptable(intent, (), (outcome.answer,), ANY_REFUSAL,
                          f"the format reads the answer {outcome.answer!r}")
    if step.action is not None:  # the text writes a call the format refuses to run
        intent = step.action.call()
        why = f"the format refuses {intent}: {outcome}"
    else:
        intent = Call(NO_ACTION, ())
        why = f"the format reads no action: {step.invalid}"
    return Acceptable(intent, (), (), ANY_REFUSAL, why)


def scenario_from_reading(completion: str, fmt_name: str, reading: Reading) -> Scenario:
    """A scenario for a fuzzer's input: the completion as given, the reading as intent."""
    acceptable = acceptable_from_reading(reading)
    return Scenario(fmt_name, ABUSE, acceptable.intent, completion, completion, acceptable)
