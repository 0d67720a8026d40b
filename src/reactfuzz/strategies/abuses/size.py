"""Size: long thoughts, long arguments and long runs of whitespace or label-like words.

A parser's cost is part of its contract: an action regex with nested quantifiers
(``(?:\\s*\\w*\\s*)*``) backtracks super-linearly on a long run of what it repeats, and
only a long input shows it. Most drawn lengths are short (1 to 64); one in ``2 x scale``
is long, :data:`MAX_RUN` at the default budget and ``scale`` times that at a larger one
(see :class:`~reactfuzz.strategies.catalogue.Sizes`): a run of thousands of characters is
what turns a quadratic parse into seconds, and a search meets as many long runs at any
budget. Shrinking keeps a slow example long (a shorter run is not slow) and brings a
refusal down to the shortest run.
"""

from __future__ import annotations

import re
from functools import lru_cache

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import ANCHOR, LINEAR, Advice
from ...formats import Format, label_pattern
from ...limits import TIME_RUN
from ...model import Call, FinalAnswer, Intent
from ...oracle import Expectation
from ...render import render, representable
from ..catalogue import (
    ANY_REFUSAL,
    Context,
    Writing,
    register_abuse,
    single_arg_ok,
    writes_label,
)
from ..values import validates
from ._parts import MARK, free_call, render_with

__all__ = ["MAX_RUN", "MAX_SCALED_RUN", "NEST_DEPTH", "answer_is_message", "call_start",
           "longest_run", "nesting_depth", "run_length"]

MAX_RUN = TIME_RUN
"""The longest run an operator writes at the default budget: a quadratic parse of it
takes seconds (the length up to which a parse may take the base time limit)."""
MAX_SCALED_RUN = 1 << 20
"""The longest run at any budget (1 MiB, the top of ``bench --sizes``)."""


def longest_run(size_scale: float) -> int:
    """The long run at ``size_scale`` times the default budget: :data:`MAX_RUN` scaled,
    at most :data:`MAX_SCALED_RUN`. Ten times the budget reaches ten times the length, where
    a quadratic parse is a hundred times slower and a linear one ten times."""
    return min(MAX_SCALED_RUN, int(MAX_RUN * max(1.0, size_scale)))


def run_length(ctx: Context) -> int:
    """A run length: 1 to 64, or (one draw in ``2 x scale``) :func:`longest_run` while
    ``ctx.sizes`` allows long runs; shrinks towards 1."""
    # both drawn every time, so the shrinker turning the long run off shifts no later draw
    short = ctx.draw(st.integers(1, 64))
    # one draw in 2 x scale is long: as many long runs as the default budget draws, each
    # `scale` times as long (a slow linear parser pays ten times, not a hundred)
    odds = max(2, round(2 * ctx.sizes.scale))
    long = ctx.draw(st.integers(0, odds - 1)) == odds - 1
    return longest_run(ctx.sizes.scale) if long and ctx.sizes.long else short


def _label_words(ctx: Context) -> list[str]:
    """The format's label words, as a model mentions them in passing (no colon)."""
    return list(ctx.fmt.labels.all().values())


@register_abuse(
    "size.long-thought", family="size",
    description="a thought of many words, lines or repeated label words before the action",
    why="a regex that scans the thought (or every line start) backtracks once per "
    "character; only a long thought shows the cost",
    expects="the intended call",
    breaks_none_because="the classic regexes read a long thought in linear time and ignore it",
    advice=Advice(
        LINEAR,
        "Read a thought of any length: no length cap or line limit before the action label."),
)
def _long_thought(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    n = run_length(ctx)
    word = ctx.draw(st.sampled_from(["a", *_label_words(ctx)]))
    sep = ctx.draw(st.sampled_from([" ", "\n", "  "]))
    # a label word leading a line must not read as a label: keep the colon away
    thought = "x " + sep.join([word] * max(1, n // (len(word) + 1)))
    return Writing(intent, ctx.render(intent, thought=thought))


@register_abuse(
    "size.long-argument", family="size",
    description="a text argument of many words with long runs of spaces, ending in punctuation",
    why="`(?:\\s*\\w*\\s*)*\\]` meets the final `?` only after trying every split of the run",
    expects="the intended call",
    breaks_none_because="the classic argument groups are `(.*)` and `(.+)`: linear, and "
    "they keep the long value as written",
    advice=Advice(
        LINEAR,
        "Read an argument of any length, spaces and punctuation included, as the format writes"
        " it."),
)
def _long_argument(ctx: Context) -> Writing:
    # one free-text argument and nothing else: the run is all the action holds
    base, name = free_call(ctx, lambda t: len(t.required_names) == 1, optional=False)
    n = run_length(ctx)
    gap = ctx.draw(st.sampled_from([" ", "\t", "a "]))
    end = ctx.draw(st.sampled_from(["", "?", "."]))
    value = "a" + gap * n + "b" + end
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(validates(ctx.registry, intent))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "size.long-run", family="size",
    description="a long run of whitespace, blank lines or a delimiter around the action",
    why="trailing `\\s*$`, `\\s*` after the label and blank-line handling are where nested "
    "quantifiers meet long runs",
    expects="the intended call (blank lines and trailing spaces are allowed), or refused",
    applies=writes_label("action"), needs="an action label the format writes at a line start",
    breaks_none_because="the classic patterns end in `\\s*$` or strip, which take a run of "
    "whitespace in linear time; a run they cannot read is refused",
    advice=Advice(
        LINEAR,
        "Allow blank lines and trailing spaces around the action (strip each line's end before"
        " matching)."),
)
def _long_run(ctx: Context) -> Writing:
    intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    n = run_length(ctx)
    where = ctx.draw(st.sampled_from(["after", "before", "after-label"]))
    at = ctx.fmt.line_start_re("action").search(text)
    assume(at is not None)
    assert at is not None
    if where == "after":
        run = ctx.draw(st.sampled_from([" ", "\n", " \n", "\t"])) * n
        return Writing(intent, text + run)
    if where == "before":
        run = ctx.draw(st.sampled_from(["\n", " \n", " "])) * n
        return Writing(intent, text[: at.start()] + run + "\n" + text[at.start():],
                       Expectation(ANY_REFUSAL))
    run = ctx.draw(st.sampled_from([" ", "\t", " \n"])) * n
    return Writing(intent, text[: at.end()] + run + text[at.end():], Expectation(ANY_REFUSAL))


_DONE = FinalAnswer("done")


@lru_cache(maxsize=256)
def call_start(fmt: Format, tool: str, params: tuple[str, ...]) -> str:
    """How a call of ``tool`` begins as the format writes it, up to where its arguments
    open, on one line (``Action: search[``, ``<tool_call> {"name": "search", "arguments":
    {``, ``Actions: [{``); empty when the format writes no thought to put it in."""
    call = Call.named(tool, **{p: "zqxprobeqxz" for p in params})
    text = render(call, fmt, thought=MARK)
    at = text.find(MARK)
    if at < 0:
        return ""
    opened = fmt.family.args_start(text, fmt)
    head = text[at + len(MARK):opened + 1].split("\n")
    # the lines that close the thought (a think block's closing tag) are not the call's
    while head and (not head[0].strip() or head[0].startswith("</")):
        head.pop(0)
    return " ".join(line.strip() for line in head if line.strip())


@lru_cache(maxsize=64)
def answer_is_message(fmt: Format) -> bool:
    """Whether the format writes an answer as the bare message, with no label, field or
    finish call around it (a tag format: text outside the call tags is the answer)."""
    return render(FinalAnswer(MARK), fmt) == MARK


@register_abuse(
    "size.repeated-call-start", family="size",
    description="a thought repeating, on one line, how a call begins (`Action: search[`, "
    "`<tool_call> {\"name\": ...`) without ever closing it, before the real call or answer; "
    "where the format writes no thought before an answer (a tag format), the repeats are "
    "the answer's message itself",
    why="`Label:[^\\[]*\\[(.*)\\]` or `<tag>(.*?)</tag>` tries every unclosed start and scans "
    "to the end from each: quadratic in the repeats, seconds only on a long thought",
    expects="the intended call or answer (the message of repeats, as written), or refused "
    "(the time is what counts)",
    applies=lambda f: bool(call_start(f, "f", ("a",))),
    needs="a thought to write the repeats in",
    breaks_none_because="the classic regexes anchor the action at a line start or match "
    "it once from the first label: linear in the thought",
    advice=Advice(
        "Find the action at a line start, once, and read it to its own end (a JSON decoder on"
        " the call, not `Label:[^[]*\\[(.*)\\]` or `<tag>(.*?)</tag>` tried from every opening"
        " in the text): an unclosed start quoted in a thought is then text, and the time stays"
        " linear.",
        ANCHOR),
)
def _repeated_call_start(ctx: Context) -> Writing:
    intent: Intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    if ctx.draw(st.booleans()) and representable(_DONE, ctx.fmt):
        intent = _DONE  # no call after the repeats: each start scans to the end
    tool = ctx.draw(st.sampled_from([t.name for t in ctx.registry if t.required_names]))
    spec = ctx.registry.get(tool)
    assert spec is not None
    start = call_start(ctx.fmt, tool, spec.required_names)
    n = run_length(ctx)
    thought = "x " + " ".join([start] * max(1, n // (len(start) + 1)))
    text = ctx.render(intent, thought=thought)
    if intent is _DONE and start not in text and answer_is_message(ctx.fmt):
        # the format writes no thought before an answer and its answer is the plain
        # message (a tag format): the repeats are the message, which holds no finished call
        return Writing(FinalAnswer(thought), thought, Expectation(ANY_REFUSAL))
    return Writing(intent, text, Expectation(ANY_REFUSAL))


def unclosed_call(fmt: Format, n: int, *, thought: bool) -> str:
    """A call of ``n`` arguments as ``fmt`` writes it, cut before its last value (``[f(a0="1",
    ..., a9=``, ``Action: f[1, 1, ..., ``): with ``thought``, the cut call on one line as a
    thought may quote it (empty when the format writes no thought); else the whole
    completion as a length limit leaves it. Empty when the format carries no such run."""
    if fmt.family.max_args is not None and fmt.family.max_args < 2:
        return ""
    names = tuple(f"a{i}" for i in range(n)) if fmt.family.named_args else None
    call = Call("f", ("1",) * n, names)
    if not representable(call, fmt):
        return ""
    text = render(call, fmt, thought=MARK if thought else None)
    at = text.find(MARK) + len(MARK) if thought else 0
    if thought and at < len(MARK):
        return ""
    cut = text.rfind(fmt.family.written_value("1"))
    if cut <= at:
        return ""
    if not thought:
        return text[:cut]
    head = text[at:cut].split("\n")
    while head and (not head[0].strip() or head[0].startswith("</")):
        head.pop(0)  # the lines that close the thought are not the call's
    return " ".join(line.strip() for line in head if line.strip())


@register_abuse(
    "size.unclosed-argument-run", family="size",
    description="a call of many arguments that never closes (`[f(a0=\"1\", ..., a40=`, "
    "`Action: f[1, 1, ..., `): quoted on one line of the thought before the real call or "
    "answer, or the whole completion where the format writes no thought (a length cut)",
    why="a call regex that nests a quantifier over one argument inside one over the list "
    "(`\\((\\w+=.*,\\s*)*\\)`) tries every split of the run when no closing bracket comes: "
    "exponential in the arguments, seconds at a few dozen",
    expects="the intended call or answer (the cut call as text), or refused; the time is "
    "what counts",
    applies=lambda f: bool(unclosed_call(f, 2, thought=True) or unclosed_call(f, 2,
                                                                           thought=False)),
    breaks_none_because="the classic regexes match an argument list with one lazy or greedy "
    "group: linear or quadratic in its length, never exponential",
    advice=Advice(
        "Match one argument at a time with a pattern that cannot match the separator (no `.*`"
        " inside a repeated group), or parse the call with a grammar or `ast`: an unclosed call"
        " must fail in linear time.",
        LINEAR),
)
def _unclosed_argument_run(ctx: Context) -> Writing:
    n = max(2, min(run_length(ctx), 4096))
    quoted = unclosed_call(ctx.fmt, n, thought=True)
    if quoted:
        intent: Intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
        if ctx.draw(st.booleans()) and representable(_DONE, ctx.fmt):
            intent = _DONE
        return Writing(intent, ctx.render(intent, thought="x " + quoted),
                       Expectation(ANY_REFUSAL))
    text = unclosed_call(ctx.fmt, n, thought=False)
    # no call was finished: the text is a message (or refused)
    return Writing(FinalAnswer(text), text, Expectation(ANY_REFUSAL))


@register_abuse(
    "size.label-gap-run", family="size",
    description="a long run of spaces or tabs inside a label: between its word and its "
    "colon (`Action      :`), between the words of a two-word label (`Final      Answer:`), "
    "or after a label word a thought mentions (`x Action      y`)",
    why="a label pattern with adjacent quantifiers (`Action\\s*\\d*\\s*:`, `Final\\s*Answer\\s*:`) "
    "splits the run every way before it fails: quadratic in the run, seconds at thousands "
    "of spaces",
    expects="the intended call (a label word in a thought is text), or refused where the run "
    "breaks the label itself; the time is what counts",
    applies=writes_label("action"), needs="an action label the format writes at a line start",
    breaks_none_because="the classic patterns put one quantifier where the run is: linear",
    advice=Advice(
        "Write each label as one literal with one quantifier where spacing may vary (`Action["
        " \\t]*:`, not `Action\\s*\\d*\\s*:`), or parse with a grammar: a run of spaces inside a"
        " label must fail in linear time.",
        LINEAR),
)
def _label_gap_run(ctx: Context) -> Writing:
    intent: Intent = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    run = ctx.draw(st.sampled_from([" ", "\t"])) * run_length(ctx)
    where = ctx.draw(st.sampled_from(["in-thought", "before-colon", "between-words"]))
    if where == "in-thought":
        word = ctx.draw(st.sampled_from(_label_words(ctx)))
        return Writing(intent, ctx.render(intent, thought=f"x {word}{run}y"))
    text = ctx.render(intent)
    words = [w for w in ctx.fmt.label_words() if (" " in w) == (where == "between-words")]
    found = [m for w in words
             for m in [re.search(label_pattern([w], line_start=True), text)] if m is not None]
    assume(found)
    m = ctx.draw(st.sampled_from(found))
    if where == "before-colon":
        at = m.end() - 1
        return Writing(intent, text[:at] + run + text[at:], Expectation(ANY_REFUSAL))
    gap = text.index(" ", m.start())
    return Writing(intent, text[:gap] + run + text[gap + 1:], Expectation(ANY_REFUSAL))


NEST_DEPTH = 256
"""The deepest nesting :func:`nesting_depth` writes at the default budget; ``scale`` times
that at a larger one (at most :data:`MAX_NEST_DEPTH`)."""
MAX_NEST_DEPTH = 1 << 16


def nesting_depth(ctx: Context) -> int:
    """A nesting depth: 1 to 64, or (one draw in ``2 x scale``, as :func:`run_length`)
    :data:`NEST_DEPTH` times the budget's scale. A decoder whose recursion is Python's
    stack fails between a few hundred levels (pure Python: json5) and about a thousand (the
    C decoder of ``json``): the default budget reaches the first, ten times it the second."""
    short = ctx.draw(st.integers(1, 64))
    odds = max(2, round(2 * ctx.sizes.scale))
    deep = ctx.draw(st.integers(0, odds - 1)) == odds - 1
    return min(MAX_NEST_DEPTH, int(NEST_DEPTH * max(1.0, ctx.sizes.scale))) if deep else short


@register_abuse(
    "size.deep-nesting", family="size",
    description="a free-text argument written as a deeply nested list or object "
    "(`[[[...1...]]]`, `{\"a\": {\"a\": ...}}`), bare where the format decodes values",
    why="a recursive decoder (json, json5, ast, a hand-written one) raises RecursionError "
    "past its stack, which no `except ValueError` catches: the parser raises where it "
    "should refuse, and the agent loop dies",
    expects="the text as the argument, or refused (a list where text is due is malformed)",
    applies=lambda f: bool(representable(Call.named("f", a="[[1]]"), f)),
    needs="a format that carries brackets in an argument unquoted",
    breaks_none_because="the classic regexes keep the argument as text and never decode it",
    advice=Advice(
        "Refuse a value nested past a fixed depth, or catch RecursionError where the"
        " arguments are decoded and refuse the call: a deep value must fail as a refusal.",
        "Refuse a deeply nested value as a malformed argument, with a message, not an"
        " exception."),
)
def _deep_nesting(ctx: Context) -> Writing:
    base, name = free_call(ctx)
    depth = nesting_depth(ctx)
    opener, closer = ctx.draw(st.sampled_from([("[", "]"), ('{"a": ', "}")]))
    value = opener * depth + "1" + closer * depth
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(validates(ctx.registry, intent))
    assume(representable(intent, ctx.fmt))
    return Writing(intent, render_with(ctx, base, name, value), Expectation(ANY_REFUSAL))


def _own_labels(fmt: Format) -> list[str]:
    """The format's labels with their colons, as a text quoting the protocol writes them,
    the action label first; none that a stop sequence holds (the provider would cut there)."""
    # the action label first: it is the one a reader searches the whole text for, and the
    # one a shrunk example keeps
    words = [fmt.labels.action, *fmt.labels.all().values()]
    labels = list(dict.fromkeys(f"{w}:" for w in words))
    stops = [s.strip() for s in fmt.stop if s.strip()]
    return [label for label in labels if not any(s in label or label in s for s in stops)]


@register_abuse(
    "size.label-run-argument", family="size",
    description="a free-text argument repeating the format's own labels, colon and all, on "
    "one line (`x Action: Action: Action: ...`), as a pasted transcript or a question about "
    "the protocol quotes them; the call's line ends the completion",
    why="`Label:(.*?)\\n` searched with `findall` from every label scans to the line's end "
    "from each: on the completion's last line, where no line break comes, quadratic in the "
    "repeats, seconds only on a long argument",
    expects="the intended call, the text as meant, or refused (the time is what counts)",
    applies=lambda f: writes_label("action")(f) and bool(_own_labels(f)) and bool(
        representable(Call.named("f", a="x Action: b"), f)),
    needs="an action label the format writes, which a text argument can hold",
    # the short runs are a label quoted in an argument: a reader that finds the answer
    # label anywhere answers with what follows it
    breaks=("classic-bracket", "classic-action-input"),
    advice=Advice(
        "Find each label once, at a line start, and read the argument to its own end (`^Label:"
        " (.*)$` with MULTILINE, not `findall(\"Label:(.*?)\\n\")` over the whole text): a label"
        " quoted in an argument is then text, and the time stays linear.",
        LINEAR),
)
def _label_run_argument(ctx: Context) -> Writing:
    base, name = free_call(ctx)
    labels = _own_labels(ctx.fmt)
    # half the runs repeat the action label, the one readers search the whole text for
    label = ctx.draw(st.sampled_from(labels)) if ctx.draw(st.booleans()) else labels[0]
    n = run_length(ctx)
    # twice at least: a label quoted with text after it, at any run length
    value = "x " + " ".join([label] * max(2, n // (len(label) + 1)))
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(validates(ctx.registry, intent))
    assume(representable(intent, ctx.fmt))
    return Writing(intent, render_with(ctx, base, name, ctx.fmt.family.written_value(value)),
                   Expectation(ANY_REFUSAL))


# --- long domain text: what agents send, at length -------------------------------------

_HTML = (
    "<tr><td>O'Brien</td><td class=\"num\">$1,200</td></tr>",
    "<li><a href=\"/a?b=1&amp;c=2\">next</a> <em>(new)</em></li>",
    "<div id=\"q3\"><p>Total: <b>3 &lt; 4</b></p></div>",
)
"""Lines of an HTML answer or argument: the densest in ``<`` and ``>`` of what agents send."""

_LONG_KINDS = ("code", "sql", "markdown", "shell")


def _long_text(ctx: Context) -> str:
    """One domain text (or HTML line) repeated line after line to a run length
    (:func:`~.size.run_length`: long at the budget's longest run one draw in ``2 x scale``).
    Half the texts are HTML, the densest in the characters a tag reader stops at."""
    from .domain import DOMAINS  # the pools live with content.domain-text, imported later

    n = run_length(ctx)
    if ctx.draw(st.booleans()):
        unit = ctx.draw(st.sampled_from(_HTML))
    else:
        unit = ctx.draw(DOMAINS[ctx.draw(st.sampled_from(_LONG_KINDS))])
    return "\n".join([unit] * max(1, n // (len(unit) + 1)))


@register_abuse(
    "size.long-domain-text", family="size",
    description="a long answer or free-text argument of what agents really send: HTML "
    "table rows, code, SQL, a Markdown table or shell commands, one text repeated line "
    "after line up to the budget's longest run",
    why="a reader (or a lexer) that slices the rest of the text for every tag, bracket or "
    "label character it meets is quadratic in an answer dense in them; a short answer "
    "hides it, a long HTML or code answer takes seconds",
    expects="the intended answer or call, the text as meant, or refused (the time is what "
    "counts)",
    # as content.domain-text: the classic bracket regexes split or keep the quotes of a
    # quoted argument, the classic action-input regex reads the input's first line only
    breaks=("classic-bracket", "classic-unanchored", "classic-action-input"),
    advice=Advice(
        LINEAR,
        "Read a long answer or argument of HTML, code or tables in time linear in its length:"
        " keep an index into the text instead of slicing off the rest for each token."),
)
def _long_domain_text(ctx: Context) -> Writing:
    from .domain import carried, text_forms

    text = _long_text(ctx)
    if ctx.draw(st.booleans()):  # the answer: where a reader scans the whole message
        answer = next((a for a in map(FinalAnswer, text_forms(text))
                       if representable(a, ctx.fmt)), None)
        assume(answer is not None)
        assert answer is not None
        return Writing(answer, ctx.render(answer), Expectation(ANY_REFUSAL))
    base, name = free_call(ctx)
    intent, quoted = carried(ctx, base, name, text)
    assume(validates(ctx.registry, intent))
    return Writing(intent, ctx.render(intent, quote=quoted), Expectation(ANY_REFUSAL),
                   quoted=quoted)
