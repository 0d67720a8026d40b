"""Prose around the protocol: a lone brace, an answer written another way, a stop word first.

What a model writes around a well-formed action, read from the format's data: the
bracket that opens or closes its arguments (:attr:`Family.open`, :attr:`Family.close`)
alone in a thought or after the action; an answer written as plain text, or with another
protocol's answer label, where the format answers through a finish action; the
completion opening with the stop word (a model that echoes the observation label), which
a provider cuts at offset 0.
"""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import ANSWER_TEXT, BRACE_PROSE, EMPTY_TEXT, JSON_FAMILIES, JSON_FIELD, Advice
from ...model import FinalAnswer, Intent
from ...oracle import Expectation
from ..catalogue import ANY_REFUSAL, Context, Writing, register_abuse, single_arg_ok

OTHER_ANSWER_LABELS = ("Final Answer", "Answer")
"""Answer labels of the common ReAct prompts, written where the format has none."""


def _intent(ctx: Context) -> Intent:
    if ctx.draw(st.booleans()):
        return FinalAnswer(ctx.thought())
    return ctx.call(lambda t: single_arg_ok(ctx.fmt, t))


def _braces(ctx: Context) -> tuple[str, ...]:
    family = ctx.fmt.family
    return tuple(dict.fromkeys(c for c in (family.open, family.close) if c))


@register_abuse(
    "prose.lone-brace", family="prose",
    description="the character that opens or closes the arguments (`{`, `}`, `[`, `]`) "
    "alone in the thought, or in prose after the action",
    why="a reader that slices from the first `{` to the last `}` of the whole text (or "
    "counts brackets) reads a blob that starts or ends in the prose",
    expects="the intended call (a brace in the thought); the intended call or refused "
    "(prose after the action)",
    applies=lambda f: bool(f.family.open or f.family.close),
    breaks_none_because="the classic action regexes read one line; a bracket on another "
    "line never joins the action",
    advice=Advice(BRACE_PROSE, family={f: JSON_FIELD for f in JSON_FAMILIES}),
)
def _lone_brace(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    brace = ctx.draw(st.sampled_from(_braces(ctx)))
    prose = ctx.draw(st.sampled_from([f"a {brace}", brace, f"use {brace} here",
                                      f"the set {brace}a, b"]))
    if ctx.draw(st.booleans()):
        return Writing(intent, ctx.render(intent, thought=prose))
    text = ctx.render(intent)
    return Writing(intent, f"{text}\n{prose}", Expectation(
        ANY_REFUSAL, note="prose follows the action"), core_end=len(text))


@register_abuse(
    "prose.plain-answer", family="prose",
    description="the final answer written as plain text, or with another protocol's label "
    "(`Final Answer: x`), where the format answers through a finish action",
    why="a parser that takes any text without an action as the answer shows the label (or "
    "the thought) to the user; one that finds no action loops on a retry",
    expects="the answer, or refused (unparseable); never the text with the label",
    applies=lambda f: f.labels.answer is None and f.finish_action is not None,
    breaks_none_because="the classic designs' formats have an answer label",
    advice=Advice(ANSWER_TEXT),
)
def _plain_answer(ctx: Context) -> Writing:
    answer = FinalAnswer(ctx.draw(st.sampled_from(["done", "the refund was issued"])))
    how = ctx.draw(st.sampled_from(["plain", *OTHER_ANSWER_LABELS]))
    line = answer.text if how == "plain" else f"{how}: {answer.text}"
    text = f"{ctx.fmt.label('thought', 1)} {ctx.thought()}\n{line}"
    return Writing(answer, text, Expectation(
        frozenset({"unparseable"}), note="the format answers through "
        f"{ctx.fmt.finish_action}; this answer is written another way"))


@register_abuse(
    "prose.opens-with-stop", family="prose",
    description="the completion opens with the stop word (the model echoes the observation "
    "label before its step), so the provider cuts it at offset 0",
    why="the parser gets an empty (or label-only) text: a loop that takes it for an empty "
    "answer ends the run, one that retries gets the same empty step again",
    expects="refused (unparseable) when the cut left nothing; else the intended call or "
    "refused",
    applies=lambda f: bool(f.stop),
    breaks_none_because="the classic loop refuses an empty completion",
    advice=Advice(EMPTY_TEXT),
)
def _opens_with_stop(ctx: Context) -> Writing:
    intent = _intent(ctx)
    stop = ctx.draw(st.sampled_from(ctx.fmt.stop))
    body = stop.lstrip("\n")
    assume(body)
    text = ctx.render(intent)
    echo = ctx.draw(st.sampled_from(["", " the last result", "\n"]))
    # a stop word that starts with a line break does not match at offset 0: the echo
    # reaches the parser, a line the format never writes first
    return Writing(intent, f"{body}{echo}\n{text}", Expectation(
        ANY_REFUSAL, note="the completion opens with the stop word"))
