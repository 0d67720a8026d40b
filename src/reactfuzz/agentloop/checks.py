"""Loop-level checks: what a careful agent loop does with every turn the model plays.

Each check reads one :class:`~reactfuzz.agentloop.play.LoopRun` and returns a
:class:`LoopFailure` or ``None``. Where two checks could see one mistake, one of them owns it
(a made-up answer returned is the stop sequence's, a prose turn returned is the parse
failure's), so a bug is reported once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..dispatch import Executed, Finished
from ..formats import Format, label_pattern
from ..model import FinalAnswer
from ..oracle import judge, oracle
from ..tools import ToolRegistry
from .play import LoopRun
from .script import observes

__all__ = ["LOOP_CHECKS", "LoopCheck", "LoopFailure", "loop_failures"]


@dataclass(frozen=True)
class LoopFailure:
    """One thing a loop did wrong: the check, a short kind (part of the bug's key), the
    model call it is about (0-based), and what happened in a sentence."""

    check: str
    kind: str
    message: str
    severity: str
    turn: int | None = None


@dataclass(frozen=True)
class LoopCheck:
    """A loop check: its id, what it asks, how bad a failure is, and the usual fix."""

    id: str
    description: str
    severity: str
    fix: str
    run: Callable[[LoopRun, Format, ToolRegistry], LoopFailure | None]


def _label_re(word: str | None) -> re.Pattern[str] | None:
    return None if not word else re.compile(r"(?m)^[ \t]*" + label_pattern([word]))


def _observation_after(text: str, fmt: Format) -> str | None:
    """The text of the first observation the model wrote itself in ``text``, if any."""
    word = fmt.labels.observation
    m = re.search(r"\n" + label_pattern([word]) + r"[ \t]*(.*)", text) if word else None
    return m.group(1).strip() if m else None


def _stop_sequence(run: LoopRun, fmt: Format, registry: ToolRegistry) -> LoopFailure | None:
    for call in run.calls:
        turn = run.script.turn(call.turn)
        if turn.fabricated is None:
            continue
        made_up = _observation_after(call.text, fmt)
        if made_up is None:
            continue  # the stop sequence cut the turn before the observation
        later = [c.prompt for c in run.calls if c.turn > call.turn]
        believed_answer = run.answer is not None and turn.fabricated in run.answer
        believed_obs = any(made_up in p for p in later)
        if not (believed_answer or believed_obs):
            continue
        what = (f"returned the answer it wrote after it ({turn.fabricated!r})"
                if believed_answer else
                f"passed it on in the next prompt as if a tool had said it ({made_up!r})")
        return LoopFailure(
            "loop-stop-sequence", "believed-a-made-up-observation",
            f"the loop asked the model with stop={list(call.stop)!r}, which does not end its"
            f" turn at '{fmt.labels.observation}:'; the model wrote an observation of its own"
            f" and the loop {what}", "critical", call.turn)
    return None


def _step_limit(run: LoopRun, fmt: Format, registry: ToolRegistry) -> LoopFailure | None:
    if run.ended == "step-bound":
        what = "never answers" if run.script.endless else "did not answer yet"
        return LoopFailure(
            "loop-step-limit", "no-step-limit",
            f"the loop asked the model {run.max_calls} times on a model that {what} and was"
            " still going: it has no step limit", "high", len(run.calls) - 1)
    if run.ended == "timeout":
        return LoopFailure(
            "loop-step-limit", "no-end",
            f"the loop ran out of time after {len(run.calls)} model calls without ending",
            "high", len(run.calls) - 1 if run.calls else None)
    return None


def _tool_call(run: LoopRun, fmt: Format, registry: ToolRegistry) -> LoopFailure | None:
    per_turn: dict[int, int] = {}
    for tc in run.tools:
        if tc.turn < 0:
            return LoopFailure("loop-tool-call", "before-the-model",
                               f"the loop ran {tc.tool} before it asked the model anything",
                               "critical", None)
        turn = run.script.turn(tc.turn)
        if turn.note in ("unparseable", "length-cut"):
            continue  # the parse-failure and length-cut checks own these
        per_turn[tc.turn] = per_turn.get(tc.turn, 0) + 1
        call = tc.as_call(registry)
        if turn.acceptable is None:
            return LoopFailure("loop-tool-call", "ran-what-was-not-asked",
                               f"the loop ran {call} on turn {tc.turn + 1}, where the model"
                               " meant no tool", "critical", tc.turn)
        delivered = run.calls[tc.turn].text
        verdict = judge(Executed(call), turn.acceptable, registry, completion=delivered,
                        fmt=fmt)
        if verdict.kind != "ok" and verdict.cause == "design" and turn.meant is not None:
            # the turn's oracle assumed the provider cut the text at the format's stop
            # sequence; a loop that sent none and ran the whole call the model meant is right
            clean = oracle(turn.meant, fmt, registry)
            if judge(Executed(call), clean, registry).kind == "ok":
                continue
        # arguments the schema refuses but that are what the model wrote reach the tool,
        # which may validate them itself (many frameworks leave values to their tools):
        # that is fuzz's question (the dispatcher), not the loop's; a different call is
        if verdict.kind == "wrong-call" and verdict.cause == "design":
            # one key per way of being wrong: instead of an answer, another tool, other values
            how = ("instead-of-answering" if isinstance(turn.meant, FinalAnswer) else
                   "another-tool" if getattr(turn.meant, "tool", call.tool) != call.tool else
                   "other-values")
            return LoopFailure("loop-tool-call", f"wrong-call-{how}",
                               f"on turn {tc.turn + 1} the loop ran {call}: {verdict.explanation}",
                               "critical", tc.turn)
        if per_turn[tc.turn] > 1:
            return LoopFailure("loop-tool-call", "ran-twice",
                               f"the loop ran {per_turn[tc.turn]} tools for the one call of"
                               f" turn {tc.turn + 1}", "high", tc.turn)
    return None


def _observation(run: LoopRun, fmt: Format, registry: ToolRegistry) -> LoopFailure | None:
    label = _label_re(fmt.labels.observation) if observes(fmt) else None
    for tc in run.tools:
        following = [c for c in run.calls if c.turn > tc.turn]
        if not following:
            continue
        prompt = following[0].prompt
        at = prompt.find(tc.observation)
        if at < 0:
            return LoopFailure("loop-observation", "not-fed-back",
                               f"{tc.tool} returned {tc.observation!r} on turn {tc.turn + 1},"
                               " and the next prompt does not hold it", "high", tc.turn)
        line = prompt[prompt.rfind("\n", 0, at) + 1:at]
        if label is not None and not label.search(line):
            return LoopFailure("loop-observation", "not-under-the-label",
                               f"{tc.tool}'s result reached the next prompt as {line!r}..., not"
                               f" behind '{fmt.labels.observation}:'", "medium", tc.turn)
    return None


def _prompt_growth(run: LoopRun, fmt: Format, registry: ToolRegistry) -> LoopFailure | None:
    # a loop that pastes its scratchpad into itself adds, after a turn, text of *earlier*
    # turns again: each earlier completion then occurs more often in the next prompt than in
    # this one (an error message that echoes the latest turn grows the prompt linearly)
    for i, (prev, cur) in enumerate(zip(run.calls, run.calls[1:])):
        for old in run.calls[:i]:
            text = old.text.strip()
            if len(text) < 16 or text in prev.text:
                continue
            before, after = prev.prompt.count(text), cur.prompt.count(text)
            if before and after > before:
                growth = len(cur.prompt) - len(prev.prompt)
                return LoopFailure(
                    "loop-prompt-growth", "pasted-again",
                    f"after turn {prev.turn + 1} the prompt grew by {growth} characters, from"
                    f" {len(prev.prompt)} to {len(cur.prompt)}, and holds turn"
                    f" {old.turn + 1}'s text {after} times instead of {before}: earlier text"
                    " is pasted again, so the prompt grows quadratically", "medium",
                    prev.turn)
    return None


def _parse_failure(run: LoopRun, fmt: Format, registry: ToolRegistry) -> LoopFailure | None:
    for call in run.calls:
        if run.script.turn(call.turn).note != "unparseable":
            continue
        ran = [t for t in run.tools if t.turn == call.turn]
        if ran:
            return LoopFailure("loop-parse-failure", "ran-a-tool",
                               f"the model wrote {call.text!r}, with no action, and the loop ran"
                               f" {ran[0].as_call(registry)}", "critical", call.turn)
        if call is run.calls[-1] and run.ended == "returned":
            return LoopFailure("loop-parse-failure", "became-the-answer",
                               f"the model wrote {call.text!r}, with no answer label, and the"
                               f" loop returned {run.answer!r} as its answer", "high", call.turn)
    return None


def _answer(run: LoopRun, fmt: Format, registry: ToolRegistry) -> LoopFailure | None:
    if run.ended != "returned" or run.answer is None or run.script.endless:
        return None  # a model that never answers has no answer to return: any end is fine
    if not run.calls:
        return LoopFailure("loop-answer", "never-asked",
                           f"the loop returned {run.answer!r} without asking the model", "high")
    last = run.calls[-1]
    turn = run.script.turn(last.turn)
    if turn.note == "unparseable" or (turn.fabricated and turn.fabricated in run.answer):
        return None  # the parse-failure and stop-sequence checks own these
    if turn.acceptable is None:
        return None  # a turn cut by the length limit: returning then is a refusal
    said, message = run.answer.strip(), last.text.strip()
    # a format whose client hands the model's whole message over (a trace of the earlier
    # turns may lead it): the message is what is judged
    whole = fmt.answer_scope == "message" and bool(message) and said.endswith(message)
    verdict = judge(Finished(last.text if whole else said), turn.acceptable, registry,
                    completion=last.text, fmt=fmt)
    if verdict.kind == "ok" or verdict.cause != "design":
        return None
    said = message if whole else said
    own_words = not said or not any(said in c.text for c in run.calls)
    if own_words and turn.acceptable.rejections:
        return None  # the loop refused a turn the oracle lets it refuse, in its own words
    if isinstance(turn.meant, FinalAnswer):
        return LoopFailure("loop-answer", "not-the-models-answer",
                           f"the model answered {turn.meant.text!r} and the loop returned"
                           f" {run.answer!r}", "high", last.turn)
    if said and any(said == t.observation.strip() or said.endswith(t.observation.strip())
                    for t in run.tools):
        return LoopFailure("loop-answer", "returned-a-tool-result",
                           f"on turn {last.turn + 1} the model wrote a step, not an answer,"
                           f" and the loop returned {run.answer!r}, a tool's result, as the"
                           " answer", "high", last.turn)
    if own_words:
        # the loop's own words after a step (it gave up at its own bound, or refused): a
        # refusal, not an answer taken from the model
        return None
    return LoopFailure("loop-answer", "answered-for-the-model",
                       f"on turn {last.turn + 1} the model wrote a step, not an answer"
                       f" ({last.text[-80:]!r}), and the loop returned {run.answer!r}, taken"
                       " from the model's text", "high", last.turn)


def _length_cut(run: LoopRun, fmt: Format, registry: ToolRegistry) -> LoopFailure | None:
    for call in run.calls:
        if call.finish_reason != "length":
            continue
        ran = [t for t in run.tools if t.turn == call.turn]
        if ran:
            return LoopFailure("loop-length-cut", "ran-a-cut-call",
                               f"the model's turn was cut by the length limit"
                               f" ({call.text[-60:]!r}) and the loop ran"
                               f" {ran[0].as_call(registry)}", "high", call.turn)
    return None


def _no_crash(run: LoopRun, fmt: Format, registry: ToolRegistry) -> LoopFailure | None:
    if run.ended != "raised" or run.script.endless or len(run.calls) > len(run.script.turns):
        return None  # raising at its own step limit (the model repeating itself) is giving up
    last = run.calls[-1] if run.calls else None
    exc = (run.error or "").split(":")[0]
    where = f" on turn {last.turn + 1} ({last.text[-80:]!r})" if last else " before any turn"
    return LoopFailure("loop-no-crash", exc or "raised",
                       f"the loop raised {run.error}{where}", "high",
                       last.turn if last else None)


LOOP_CHECKS: dict[str, LoopCheck] = {c.id: c for c in [
    LoopCheck("loop-stop-sequence",
              "a made-up observation is cut by the stop sequence, or never believed",
              "critical",
              "Send the format's stop sequences on every model call (`stop=['Observation:']`"
              " for bracket; `reactfuzz formats` lists each format's), and never read past"
              " the first observation label the model writes.",
              _stop_sequence),
    LoopCheck("loop-step-limit", "the loop ends within a step bound on a model that never"
              " answers", "high",
              "Bound the loop (`for step in range(max_steps)`) and return a clear failure"
              " when the bound is reached.", _step_limit),
    LoopCheck("loop-tool-call", "each tool that runs is the call the model meant",
              "critical",
              "Parse each completion with a parser that passes `reactfuzz fuzz`, validate the"
              " arguments against the tool's schema, and run one call per turn.", _tool_call),
    LoopCheck("loop-observation", "the tool's result reaches the next prompt verbatim under"
              " the observation label", "high",
              "Append `f\"\\nObservation: {result}\\n\"` to the transcript after every tool"
              " call, before the model is asked again.", _observation),
    LoopCheck("loop-prompt-growth", "the prompt grows by what each turn adds, no more",
              "medium",
              "Append each turn and its observation to the transcript once; never paste the"
              " scratchpad into itself.", _prompt_growth),
    LoopCheck("loop-parse-failure", "a turn with no action or answer runs nothing and is not"
              " the answer", "high",
              "When a completion does not parse, append the parse error as the observation"
              " and ask again (with a retry limit); never return the raw text.",
              _parse_failure),
    LoopCheck("loop-answer", "the answer returned is the model's answer", "high",
              "Return the text after the answer label of the completion that holds it, and"
              " only when the model wrote one.", _answer),
    LoopCheck("loop-length-cut", "a turn cut by the length limit runs nothing", "high",
              "Check `finish_reason == 'length'` and ask again (or fail) instead of running"
              " a call whose arguments were cut.", _length_cut),
    LoopCheck("loop-no-crash", "the loop does not raise on what the model writes", "high",
              "Catch parse and dispatch errors per turn and feed them back to the model as"
              " the observation.", _no_crash),
]}
"""The loop checks, by id."""


def loop_failures(run: LoopRun, fmt: Format, registry: ToolRegistry,
                  checks: list[str] | None = None) -> list[LoopFailure]:
    """Every failure of the selected checks (all by default) on one run."""
    out = []
    for cid, check in LOOP_CHECKS.items():
        if checks is None or cid in checks:
            failure = check.run(run, fmt, registry)
            if failure is not None:
                out.append(failure)
    return out
