"""Valid multi-turn transcripts of a format, from its writer or from its grammar."""

from __future__ import annotations

import re

from hypothesis import strategies as st

from ..formats import Format, get_format
from ..model import Call, FinalAnswer
from ..render import render
from ..tools import ToolRegistry
from .text import WORDS

__all__ = ["transcripts"]


_MID = ("Answer:", "Action: x[y]", "Observation:", ", ", "[1]", "{}", "Final Answer:")


def transcripts(
    fmt: Format | str = "bracket",
    *,
    method: str = "render",
    registry: ToolRegistry | None = None,
) -> st.SearchStrategy[str]:
    """Valid multi-turn transcripts of a format, free text seeded with protocol keywords
    in the middle of lines.

    ``method="render"`` (default) composes them from the format's own writer: a header,
    turns of thought, rendered action and observation, and a final answer -- valid by
    construction and about ten times cheaper than grammar-driven generation.
    ``method="grammar"`` draws them from the format's Lark grammar with
    ``hypothesis.extra.lark.from_lark`` (explicit strategies for the free-text terminals),
    which covers shapes the writer never produces (blank lines, CRLF, label-then-newline).
    """
    if method == "grammar":
        return _grammar_transcripts(get_format(fmt))
    if method != "render":
        raise ValueError(f"method must be 'render' or 'grammar', not {method!r}")
    from ..tools import default_registry

    fmt = get_format(fmt)
    registry = registry or default_registry()
    # a transcript is syntax: tool names from the registry, arguments as plain words
    # (schema validity is the scenarios' business), so no validation is paid per draw
    # every (tool, arguments) pairing is built once and drawn in one choice
    counts = (1,) if fmt.arguments == "single" else (1, 2, 3)
    triples = [(a, b, c) for a in WORDS[:4] for b in WORDS for c in WORDS[:3]]
    pool = [
        Call(t.name, words[:n], (t.names + tuple(f"arg{i}" for i in range(n)))[:n])
        for words in triples for t in registry if t.names for n in counts
    ]
    pool.sort(key=lambda c: (len(c.args), len(" ".join(c.args))))
    return _rendered_transcripts(fmt, st.sampled_from(pool))


_WORD = st.sampled_from(WORDS)


def _line_pool(n: int = 256) -> tuple[str, ...]:
    """Lines of free text, built once: a word first (never a label), protocol keywords
    mid-line. Drawing a whole line in one choice keeps generation cheap; the pool starts
    with the simplest lines, so shrinking lands on them."""
    import random as _random

    rng = _random.Random(0)
    lines = list(WORDS)
    while len(lines) < n:
        k = rng.randint(1, 7)
        words = [rng.choice(WORDS)] + [
            rng.choice(_MID) if rng.random() < 0.25 else rng.choice(WORDS) for _ in range(k)
        ]
        lines.append(" ".join(words))
    return tuple(lines)


_TEXT_LINE = st.sampled_from(_line_pool())
"""A line of free text with protocol keywords in the middle."""

_OBSERVATION = st.sampled_from(
    _line_pool()[:128] + tuple(f"{a}\n{b}" for a, b in zip(_line_pool()[128:], _line_pool()))
)
"""An observation of one or two lines (continuation lines never start with a label)."""


@st.composite
def _rendered_transcripts(draw: st.DrawFn, fmt: Format, calls: st.SearchStrategy[Call]) -> str:
    parts = [f"{draw(st.sampled_from(fmt.labels.headers))}: {draw(_TEXT_LINE)}"]
    steps = draw(st.integers(0, 3))
    for n in range(1, steps + 1):
        parts.append(render(draw(calls), fmt, thought=draw(_TEXT_LINE), step=n))
        parts.append(f"{fmt.label('observation', n)} {draw(_OBSERVATION)}")
    if draw(st.integers(0, 2)):
        answer = FinalAnswer(draw(_TEXT_LINE))
        parts.append(render(answer, fmt, thought=draw(_TEXT_LINE), step=steps + 1))
    return "\n".join(parts) + "\n"


def _grammar_transcripts(fmt: Format) -> st.SearchStrategy[str]:
    """Transcripts from the grammar itself (``from_lark`` with explicit strategies)."""
    from hypothesis.extra.lark import from_lark

    from ..formats.grammars import lark_parser

    parser = lark_parser(fmt)
    labels = set(fmt.labels.all().values())
    mid = st.sampled_from([*WORDS, "Answer:", "Action: x[y]", "Observation:", ", ", "[1]", "{}"])

    def line_text(first: bool) -> st.SearchStrategy[str]:
        words = st.lists(mid, min_size=1, max_size=5).map(" ".join)
        if first:
            return words.map(lambda s: " " + s)
        return words.filter(lambda s: not any(s.startswith(w) for w in labels)).map(
            lambda s: s if s.strip() else "x"
        )

    def label(role: str) -> st.SearchStrategy[str]:
        return st.just(f"{getattr(fmt.labels, role)}:")

    explicit: dict[str, st.SearchStrategy[str]] = {
        "TEXT": line_text(True),
        "CONT": st.sampled_from(WORDS).flatmap(lambda w: line_text(False).map(lambda s: w + s)),
        "THOUGHT": label("thought"),
        "ACTION": label("action"),
        "OBSERVATION": label("observation"),
        "HEADER": st.sampled_from([f"{h}:" for h in fmt.labels.headers]),
        "_EOL": st.sampled_from(["\n", "\n", "\r\n", "  \n"]),
        "_SP": st.just(" "),
        "_BREAK": st.just("\n"),
        "TOOL": st.sampled_from(["search", "get_charge", "list_invoices"]),
        "NAME": st.sampled_from(["search", "get_charge", "list_invoices"]),
        "BARE": st.sampled_from(WORDS),
        "QUOTED": st.sampled_from(['"Paris, France"', '"a]b"', '"x"']),
        "CALL": st.sampled_from(["Search[Paris]", "Lookup[a, b (c)]", "Search[x [y] z]"]),
        "_JWS": st.sampled_from([" ", "\n", ""]).filter(bool),
        "STRING": st.sampled_from(['"a"', '"cus_8812"', '"x, y"']),
        "NUMBER": st.sampled_from(["1", "-2.5", "0"]),
    }
    if fmt.labels.answer:
        explicit["ANSWER"] = label("answer")
    if fmt.labels.action_input:
        explicit["ACTION_INPUT"] = label("action_input")
    terminals = {t.name for t in parser.terminals}
    explicit = {k: v for k, v in explicit.items() if k in terminals}
    strategy = from_lark(parser, start="transcript", explicit=explicit)
    if fmt.numbered:
        strategy = strategy.map(lambda s: _renumber(s, fmt))
    return strategy


def _renumber(text: str, fmt: Format) -> str:
    """Give a numbered format's labels the numbers its grammar check expects."""
    roles = {fmt.labels.thought: "thought", fmt.labels.action: "action",
             fmt.labels.observation: "observation"}
    pat = fmt.line_start_re("thought", "action", "observation")
    n, last = 0, None

    def fix(m: re.Match[str]) -> str:
        nonlocal n, last
        role = roles[m["word"]]
        if (role != "observation" and last in (None, "observation")) or (
            role == "thought" and last == "thought"
        ):
            n += 1
        last = role
        return f"{m['word']} {n}:"

    return pat.sub(fix, text)
