"""Order: an answer and an action in one completion, either order, with text between."""

from __future__ import annotations

from hypothesis import strategies as st

from ...fixes import ONE_STEP, Advice
from ...model import FinalAnswer
from ...oracle import Expectation
from ...render import render
from ..catalogue import Context, Writing, register_abuse, single_arg_ok


@register_abuse(
    "order.answer-and-action", family="order",
    description="an answer and an action in one completion, in either order, with a thought, "
    "prose or blank lines between them",
    why="`if \"Answer:\" in text` answers before looking at the action; an action-first "
    "loop runs a tool after the model already answered",
    expects="refused as ambiguous / unparseable (one action or one answer per turn)",
    # where an answer is unmarked text (tag formats), answer + action is thought + action
    applies=lambda f: f.labels.answer is not None or f.finish_action is not None,
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(ONE_STEP),
)
def _answer_and_action(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    action = render(intent, ctx.fmt)
    answer = render(FinalAnswer("done"), ctx.fmt, step=2)
    between = ctx.draw(st.sampled_from([
        f"\n{ctx.fmt.label('thought', 2)} wait\n", "\nsome notes\n", "\n\n\n", "\n",
    ]))
    first = ctx.draw(st.sampled_from(["answer", "action"]))
    body = answer + between + action if first == "answer" else action + between + answer
    return Writing(intent, f"{ctx.fmt.label('thought', 1)} {ctx.thought()}\n{body}",
                   Expectation(frozenset({"ambiguous", "unparseable"}),
                               allow_intended=ctx.policy.answer_with_action == "action-wins",
                               note="an answer and an action in one turn"))
