"""Tool names: unknown, hallucinated, near-miss, re-cased, namespaced, or an answer word.

Every name is derived from the registry (a registered name changed by one edit, in
another case, behind a namespace) or from the format (its answer label or finish action,
and those of the other built-in formats, used as a tool name).
"""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import NAMES, Advice
from ...formats import BUILTIN_FORMATS
from ...model import Call
from ...oracle import Expectation
from ..catalogue import Context, Writing, register_abuse, single_arg_ok

_UNKNOWN = Expectation(frozenset({"unknown-tool", "unparseable"}),
                       note="the model named a tool the registry does not have")


def _near_misses(name: str) -> list[str]:
    """One-edit and suffix variants of a registered name (a model's hallucinations)."""
    out = [name[:-1], name + "s", name[1:2] + name[0] + name[2:], f"{name}_tool",
           name.replace("_", ""), f"get_{name}"]
    return [n for n in out if n and n != name]


def _answer_words(ctx: Context) -> list[str]:
    """This format's and the other built-ins' answer labels and finish actions, as names."""
    words: list[str] = []
    for f in [ctx.fmt, *BUILTIN_FORMATS.values()]:
        for w in (f.labels.answer, f.finish_action):
            if w:
                words += [w.replace(" ", "_"), w.replace(" ", ""), w.split()[-1]]
    own = (ctx.fmt.finish_action or "").lower()
    return [w for w in dict.fromkeys(words) if w.lower() != own]


@register_abuse(
    "names.unknown", family="names",
    description="a tool name the registry does not have: a near miss of a registered name, "
    "another case, a namespace (`functions.search`)",
    why="`tools[name]` dies with KeyError; a lenient lookup (case-folding, "
    "prefix-stripping, closest match) runs a tool the model did not name",
    expects="refused as unknown-tool (or unparseable where the name is not a word)",
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(NAMES, checks={"no-crash": NAMES}),
)
def _unknown(ctx: Context) -> Writing:
    base = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    how = ctx.draw(st.sampled_from(["near", "case", "namespace"]))
    if how == "near":
        name = ctx.draw(st.sampled_from(_near_misses(base.tool)))
    elif how == "case":
        name = ctx.draw(st.sampled_from([base.tool.upper(), base.tool.title()]))
    else:
        ns = ctx.draw(st.sampled_from(["functions", "tools", "default_api"]))
        name = f"{ns}.{base.tool}"
    assume(name not in ctx.registry)
    intent = Call(name, base.args, base.names)
    return Writing(intent, ctx.render(intent), _UNKNOWN)


@register_abuse(
    "names.answer-word", family="names",
    description="the answer label or a finish action used as a tool name (`Finish[x]` where "
    "the format answers with a label)",
    why="a loop that treats any `finish` action as the answer ends the run with text the "
    "model passed to a tool that does not exist; `tools[name]` dies with KeyError",
    expects="refused as unknown-tool",
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(
        "Treat only the format's own answer form as the answer; an action named like the answer"
        " word is an unknown tool to refuse, not the end of the run.",
        NAMES,
        checks={"no-crash": NAMES}),
)
def _answer_word(ctx: Context) -> Writing:
    base = ctx.call(lambda t: single_arg_ok(ctx.fmt, t) and len(t.required_names) == 1,
                    optional=False)
    name = ctx.draw(st.sampled_from(_answer_words(ctx)))
    assume(name not in ctx.registry)
    intent = Call(name, base.args, base.names)
    return Writing(intent, ctx.render(intent), _UNKNOWN)
