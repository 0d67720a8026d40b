"""The judgement vocabulary, defined once: severities, verdict kinds and reject kinds.

Every other module (the dispatchers, the oracle, the checks, the reports, the generated
docs) imports these tables instead of spelling the names again, so a kind cannot mean one
thing to the oracle and another to an operator. Each table maps a name to its one-line
meaning, in the order the docs print it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

__all__ = [
    "ANY_REFUSAL",
    "DISAGREEMENTS",
    "DISAGREEMENT_SEVERITY",
    "REJECTIONS",
    "REJECT_KINDS",
    "SEVERITIES",
    "SEVERITY",
    "SEVERITY_RANK",
    "SEVERITY_SCALE",
    "VERDICTS",
    "VERDICT_MEANING",
    "Graded",
    "RejectKind",
    "Severity",
    "VerdictKind",
]

Severity = Literal["none", "low", "medium", "high", "critical"]
"""How bad a finding is, on an ordered scale."""

SEVERITIES: dict[Severity, str] = {
    "none": "nothing is wrong",
    "low": "a refusal for the wrong reason, or one that does not say what to fix: a retry",
    "medium": "a valid intent refused, or a text read more loosely than the format allows",
    "high": "the loop dies, or a call runs with arguments its schema refuses",
    "critical": "a command or an answer the model did not mean takes effect",
}
"""The severity scale, least bad first: none < low < medium < high < critical."""

SEVERITY_SCALE: tuple[str, ...] = tuple(SEVERITIES)
"""The severities in increasing order."""

SEVERITY_RANK: dict[str, int] = {s: i for i, s in enumerate(SEVERITY_SCALE)}
"""A severity's place on the scale (``none`` is 0, ``critical`` is 4)."""


@dataclass(frozen=True, slots=True)
class Graded:
    """A kind's severity and its one-line meaning (a row of the docs' tables)."""

    severity: Severity
    meaning: str


VerdictKind = Literal[
    "ok",
    "wrong-call",
    "unvalidated-call",
    "hijacked-answer",
    "fabricated-observation",
    "crash",
    "timeout",
    "silent-drop",
    "wrong-rejection",
]
"""What the oracle says about one outcome."""

VERDICTS: dict[VerdictKind, Graded] = {
    "ok": Graded("none", "the outcome is one the oracle accepts"),
    "wrong-call": Graded(
        "critical", "a call ran that differs from the intent: another tool or other arguments"
    ),
    "hijacked-answer": Graded(
        "critical",
        "a final answer other than the intent, or an answer where an action was meant",
    ),
    "fabricated-observation": Graded(
        "critical", "a model-written observation entered the transcript"
    ),
    "unvalidated-call": Graded(
        "high", "the intended tool ran with arguments that break its schema"
    ),
    "crash": Graded("high", "the parser or dispatcher raised: the loop died"),
    "timeout": Graded("high", "the parser ran past its time limit, or its time grew faster"
                              " than its input"),
    "silent-drop": Graded("medium", "a valid intent was refused"),
    "wrong-rejection": Graded("low", "refused, but for the wrong reason"),
}
"""Every verdict kind with its severity and meaning; ``ok`` first, then worst first (the
stacking order of the report's charts): a wrong command running outranks a loop that dies."""

SEVERITY: dict[str, str] = {kind: graded.severity for kind, graded in VERDICTS.items()}
"""How bad each verdict is (``VERDICTS`` without the meanings)."""

VERDICT_MEANING: dict[str, str] = {kind: graded.meaning for kind, graded in VERDICTS.items()}
"""What each verdict kind means, one line each."""

RejectKind = Literal[
    "unparseable",
    "unknown-tool",
    "missing-arg",
    "extra-arg",
    "malformed-arg",
    "ambiguous",
    "unrepresentable",
]
"""Why a dispatcher refused a step."""

REJECTIONS: dict[RejectKind, str] = {
    "unparseable": "the text is not the format: no action and no answer could be read",
    "unknown-tool": "the action names a tool the registry does not have",
    "missing-arg": "a required argument is not given",
    "extra-arg": "more values than parameters, an undeclared name, or a name given twice",
    "malformed-arg": "an argument's value breaks its schema (type, pattern, range)",
    "ambiguous": "the text reads more than one way: two actions, or an answer with an action",
    "unrepresentable": "the format cannot carry these arguments as written",
}
"""Every reject kind with its meaning, in declaration order."""

REJECT_KINDS: tuple[str, ...] = tuple(REJECTIONS)
"""The reject kind names, in declaration order."""

ANY_REFUSAL: frozenset[str] = frozenset(REJECT_KINDS)
"""Every reject kind: the right set when the text cannot carry the intent.

When the format cannot carry an intent, or an abuse of the writing (a label variant, a
stop sequence cutting the intent's own text) leaves a text a design may read in several
ways, refusing it for *any* reason is right: the model gets a retry and nothing runs. That
includes ``unknown-tool``: a label written differently (``**Action:** search``) or text
after the action can end up in what a parser reads as the tool name, and a design that then
refuses an unknown tool has refused honestly.
"""

DISAGREEMENTS: dict[str, Graded] = {
    "laxer": Graded("medium", "the target acts where the grammar refuses"),
    "stricter": Graded("low", "the target refuses what the grammar reads"),
    "other-kind": Graded("medium", "an action where the grammar reads an answer, or the reverse"),
    "other-tool": Graded("medium", "the target reads another tool name than the grammar"),
    "other-arguments": Graded("medium", "the target reads other arguments than the grammar"),
    "other-answer": Graded("medium", "the target reads another answer than the grammar"),
}
"""How a target's reading can differ from the format's grammar, graded like verdicts.

None ranks above ``medium``: the grammar is a reference reading, not the oracle. What the
disagreement does to the run (a wrong call, a hijacked answer) is judged by the verdict
checks at its own severity; the disagreement only says the two readings part."""

DISAGREEMENT_SEVERITY: dict[str, str] = {
    kind: graded.severity for kind, graded in DISAGREEMENTS.items()
}
"""The severity of each disagreement with the grammar."""

assert set(get_args(VerdictKind)) == set(VERDICTS), "a verdict kind lacks a severity"
assert set(get_args(RejectKind)) == set(REJECTIONS), "a reject kind lacks a meaning"
assert set(get_args(Severity)) == set(SEVERITIES), "a severity lacks a meaning"
