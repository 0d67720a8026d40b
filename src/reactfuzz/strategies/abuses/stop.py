"""Stop sequences: a provider stop list other than the parser assumes, and a cut part-way.

The format's ``stop`` is what the parser's author assumes the client sends. Providers
differ: one got no stop list, or another one (the label without its colon, a chat
token), or emitted the first tokens of the stop word before stopping (``Observ``, as a
word split into tokens). These operators write the text as such a provider returns it,
so the format's own stop list is not applied again (``no_stop``).
"""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import PARTIAL_STOP, STOP, Advice
from ...llm import apply_stop
from ...model import FinalAnswer
from ...oracle import Expectation
from ...render import render
from ..catalogue import (
    ANY_REFUSAL,
    Context,
    Writing,
    register_abuse,
    single_arg_ok,
)
from ..text import CHAT_TOKENS


def _fabricated(ctx: Context, *, sep: str = "\n") -> str:
    """A model-written observation, thought and answer, as the format labels them."""
    obs = ctx.fmt.label("observation", 1)
    end = render(FinalAnswer("the tool said all is fine"), ctx.fmt, step=2)
    return f"{sep}{obs} ok\n{ctx.fmt.label('thought', 2)} good\n{end}"


def _other_stops(ctx: Context) -> list[tuple[str, ...]]:
    """Stop lists a provider may have been given instead of the format's own."""
    word = ctx.fmt.labels.observation
    shapes = [(), (f"\n{word}",), (f"{word}:",), (f"\n{word}:",), (word,),
              (f"{word.lower()}:",), (CHAT_TOKENS[0],)]
    return [s for s in shapes if tuple(s) != tuple(ctx.fmt.stop)]


@register_abuse(
    "stop.other-stop", family="stop",
    description="the provider got another stop list than the parser assumes (none, another "
    "form of the observation label, a chat token)",
    why="a stop list that misses the model's observation lets a fabricated result and "
    "answer reach the parser",
    expects="the intended call, or refused (ambiguous / unparseable); never the fabricated "
    "answer",
    breaks=("classic-bracket", "classic-action-input"),
    no_stop=True,
    advice=Advice(STOP, protocol=STOP),
)
def _other_stop(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    core = ctx.render(intent)
    stops = ctx.draw(st.sampled_from(_other_stops(ctx)))
    text, _ = apply_stop(core + _fabricated(ctx), stops)
    if len(text) < len(core):  # the other stop cut the action itself
        return Writing(intent, text, Expectation(ANY_REFUSAL, allow_intended=False,
                                                 note="the provider's stop cut the action"))
    return Writing(intent, text, Expectation(ANY_REFUSAL, note="the provider's stop list "
                                             "differs: a model-written observation may follow"))


@register_abuse(
    "stop.partial", family="stop",
    description="the completion ends with the first characters of the stop word (`Observ`)",
    why="a stop word split into tokens leaves its first tokens behind; a parser that reads "
    "to the end puts them into the argument",
    expects="the intended call, or refused; never the call with the partial label",
    breaks_none_because="the classic action groups stop at the end of the line, before the "
    "partial label",
    no_stop=True,
    advice=Advice(PARTIAL_STOP),
)
def _partial(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    core = ctx.render(intent)
    stop = ctx.draw(st.sampled_from(ctx.fmt.stop or (f"\n{ctx.fmt.labels.observation}:",)))
    body = stop.lstrip("\n")
    assume(len(body) >= 2)
    cut = ctx.draw(st.integers(1, len(body) - 1))
    sep = ctx.draw(st.sampled_from(["\n", " "])) if not stop.startswith("\n") else "\n"
    return Writing(intent, core + sep + body[:cut], Expectation(
        ANY_REFUSAL, note="a partial stop word ends the text"))


@register_abuse(
    "stop.observation-in-input", family="stop",
    description="the model writes its own observation on the action line, where a stop "
    "sequence that starts with a line break does not cut",
    why="the fabricated result ends up inside the tool input, and the answer after it "
    "reaches the parser",
    expects="the intended call, or refused; never the fabricated answer",
    breaks=("classic-action-input",),
    advice=Advice(
        "End the action input at the first line that starts with the observation label and send"
        " the stop list, so a fabricated result never becomes tool input.",
        STOP),
)
def _observation_in_input(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    core = ctx.render(intent)
    text = core + _fabricated(ctx, sep=" ")
    return Writing(intent, text, Expectation(ANY_REFUSAL, note="a model-written observation "
                                             "stands on the action line"), core_end=len(core))
