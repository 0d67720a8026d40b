"""Injection: protocol text (delimiters, labels, stop sequences, actions) where data belongs."""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import (
    ACTION_ANYWHERE,
    ANCHOR,
    JSON_FAMILIES,
    LINES,
    ONE_STEP,
    QUOTE,
    QUOTE_STOP_WORD,
    WHOLE_TEXT,
    Advice,
)
from ...model import Call, FinalAnswer, Intent
from ...oracle import Expectation
from ...render import render
from ..catalogue import (
    Context,
    Writing,
    register_abuse,
    single_arg_ok,
)
from ..text import ODD_LINE_BREAKS, all_labels
from ..values import validates
from ._parts import free_call


@register_abuse(
    "injected.delimiter", family="injected",
    description="the format's own delimiter inside a text argument",
    why="`search[Paris, France]` is two arguments to a comma splitter",
    expects="the intended call, or refused (the format cannot carry it unquoted)",
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(
        QUOTE,
        WHOLE_TEXT,
        family={f: "Decode the arguments with `json.loads`, where a comma, bracket or brace"
                   " inside a string is text, instead of a regex that stops at the"
                   " first delimiter."
                for f in JSON_FAMILIES},
        checks={"no-crash": QUOTE, "no-unvalidated-call": QUOTE}),
)
def _delimiter(ctx: Context) -> Writing:
    base, name = free_call(ctx)
    delim = ctx.draw(st.sampled_from(ctx.fmt.family.delimiters))
    pre = ctx.draw(st.sampled_from(["", "Paris", "a"]))
    post = ctx.draw(st.sampled_from(["", " France", "b"]))
    intent = Call.named(base.tool, **(base.kwargs() | {name: pre + delim + post}))
    assume(validates(ctx.registry, intent))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "injected.label-in-argument", family="injected",
    description="a protocol label inside a text argument",
    why="`\"Answer:\" in text` fires on an argument that merely mentions the label",
    expects="the intended call, or refused",
    breaks=("classic-bracket", "classic-action-input"),
    advice=Advice(
        ANCHOR,
        "Read the argument to its end even when it holds a label word; only a label at a line"
        " start begins a new field."),
)
def _label_in_arg(ctx: Context) -> Writing:
    base, name = free_call(ctx)
    label = ctx.draw(st.sampled_from(all_labels(ctx.fmt)))
    sep = ctx.draw(st.sampled_from([" ", "\n"]))
    value = f"what does{sep}{label} mean"
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(validates(ctx.registry, intent))
    # models often end a completion with a line break: a reader that takes the label's
    # match up to a line end (`Action:(.*?)\n`) then finds the one inside the argument
    end = ctx.draw(st.sampled_from(["", "\n"]))
    return Writing(intent, ctx.render(intent) + end)


@register_abuse(
    "injected.stop-in-argument", family="injected",
    description="a stop sequence inside an argument: the provider cuts the completion there",
    why="the client receives half an action; a lenient parser runs the half",
    expects="refused; a truncated call never runs",
    breaks_none_because="the cut leaves no closing bracket (refused), or in action-input a "
    "shorter valid input that every parser reads alike: a protocol finding, not a parser's",
    applies=lambda f: bool(f.stop), needs="a stop sequence the client sends",
    advice=Advice(
        "Refuse an action cut short by the stop sequence (an argument list that never closes)"
        " instead of running the half that arrived.",
        QUOTE_STOP_WORD,
        protocol=QUOTE_STOP_WORD),
)
def _stop_in_arg(ctx: Context) -> Writing:
    base, name = free_call(ctx)
    stop = ctx.draw(st.sampled_from(ctx.fmt.stop))
    value = f"what{'' if stop.startswith(chr(10)) else ' '}{stop} means"
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(validates(ctx.registry, intent))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "injected.answer-label-in-thought", family="injected",
    description="the answer label in the middle of a thought",
    why="`if \"Answer:\" in text` returns early with a hijacked answer",
    expects="the intended call",
    breaks=("classic-bracket", "classic-action-input"),
    advice=Advice(ANCHOR),
)
def _answer_in_thought(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    word = ctx.fmt.labels.answer or f"{ctx.fmt.finish_action}["
    label = word if word.endswith("[") else f"{word}:"
    other = ctx.draw(st.sampled_from(
        [label, "Answer:", "Final Answer:"] if ctx.fmt.labels.answer else [label]
    ))
    thought = f"the docs say {other} maybe{']' if other.endswith('[') else ''}, so check"
    return Writing(intent, ctx.render(intent, thought=thought))


def _other_call(ctx: Context, intent: Call) -> Call:
    other = ctx.call(lambda t: t.name != intent.tool and single_arg_ok(ctx.fmt, t)
                     and bool(t.required_names), optional=False)
    return other


@register_abuse(
    "injected.action-in-thought", family="injected",
    description="an action of another tool mentioned in the middle of a thought",
    why="an unanchored regex runs the first `Action: name[...]` it finds anywhere",
    expects="the intended call",
    breaks=("classic-unanchored",),
    advice=Advice(ACTION_ANYWHERE, ANCHOR),
)
def _action_in_thought(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    other = _other_call(ctx, intent)
    mention = render(other, ctx.fmt).replace("\n", " ")
    thought = f"I must not run {mention} here"
    return Writing(intent, ctx.render(intent, thought=thought))


@register_abuse(
    "injected.unicode-line-break", family="injected",
    description="an action or answer after a Unicode line break inside the thought",
    why="`str.splitlines()` sees a new line where `re.MULTILINE` does not",
    expects="the intended call, or refused (the text hides a second line)",
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(LINES),
)
def _unicode_break(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    brk = ctx.draw(st.sampled_from(ODD_LINE_BREAKS))
    other = _other_call(ctx, intent)
    hidden = ctx.draw(st.sampled_from([
        render(other, ctx.fmt).replace("\n", brk),
        render(FinalAnswer("hijacked"), ctx.fmt),
    ]))
    thought = f"{ctx.thought()}{brk}{hidden}"
    # refusing a completion with a hidden second line is as right as running the intent
    return Writing(intent, ctx.render(intent, thought=thought),
                   Expectation(frozenset({"unparseable", "ambiguous"})))


@register_abuse(
    "injected.second-action", family="injected",
    description="a second action line after the first",
    why="most loops take the first or the last match without saying there were two",
    expects="refused as ambiguous under the strict policy (one action per turn); where the"
            " format runs parallel calls, the first call runs",
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(ONE_STEP),
)
def _second_action(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    other = _other_call(ctx, intent)
    first = ctx.render(intent)
    text = first + "\n" + render(other, ctx.fmt)
    return Writing(intent, text, Expectation(
        frozenset({"ambiguous", "unparseable"}),
        allow_intended=not ctx.policy.one_action_per_turn or ctx.fmt.parallel_calls,
        note="two actions in one turn" + (" (parallel calls: both run)"
                                          if ctx.fmt.parallel_calls else ""),
    ))


@register_abuse(
    "injected.answer-and-action", family="injected",
    description="an answer line and an action line in one completion",
    why="whichever check runs first wins: an answer may end the loop before the action",
    expects="refused as ambiguous under the strict policy",
    applies=lambda f: f.labels.answer is not None,
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(ONE_STEP),
)
def _answer_and_action(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    action = ctx.render(intent)
    answer = render(FinalAnswer("done"), ctx.fmt)
    first = ctx.draw(st.booleans())
    text = f"{answer}\n{action}" if first else f"{action}\n{answer}"
    return Writing(intent, text, Expectation(
        frozenset({"ambiguous", "unparseable"}),
        allow_intended=ctx.policy.answer_with_action == "action-wins",
        note="an answer and an action in one turn",
    ))


@register_abuse(
    "injected.label-in-answer", family="injected",
    description="a final answer whose text contains a line starting with a label",
    why="the answer quotes an action; an unanchored parser runs it",
    expects="the intended answer, or refused",
    breaks=("classic-unanchored",),
    advice=Advice(
        "Once the answer label is found, take the rest of the completion as the answer and never"
        " look for an action inside it.",
        ANCHOR),
)
def _label_in_answer(ctx: Context) -> Writing:
    other = ctx.call(lambda t: single_arg_ok(ctx.fmt, t) and bool(t.required_names),
                     optional=False)
    quoted = render(other, ctx.fmt)
    if ctx.fmt.labels.answer is None:
        quoted = quoted.replace("\n", " ")
        intent: Intent = FinalAnswer(f"do not {quoted}")
    else:
        intent = FinalAnswer(f"done\n{quoted}")
    return Writing(intent, ctx.render(intent))
