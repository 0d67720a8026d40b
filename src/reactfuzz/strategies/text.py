"""The adversarial alphabet: strings a format treats specially, and plain text.

Strategies here are built from Hypothesis primitives (``sampled_from``, ``lists``,
``one_of``) so a failure shrinks to the one character that matters -- a lone ``,`` or
``\\u2028`` -- not to a random blob.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..formats import BUILTIN_FORMATS, Format, get_format

__all__ = [
    "CHAT_TOKENS",
    "INVISIBLES",
    "LINE_BREAKS",
    "MARKDOWN",
    "ODD_LINE_BREAKS",
    "WORDS",
    "adversarial_pieces",
    "adversarial_text",
    "all_labels",
    "plain_text",
]


LINE_BREAKS: tuple[str, ...] = (
    "\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029",
)
"""Every character sequence some line splitter treats as a line break."""

ODD_LINE_BREAKS: tuple[str, ...] = LINE_BREAKS[2:]
"""Line breaks other than ``\\n`` and ``\\r\\n``: where MULTILINE and splitlines disagree."""

INVISIBLES: tuple[str, ...] = ("\u200b", "\u200c", "\u200d", "\ufeff", "\u202e", "\u2066", "\u2069")
CHAT_TOKENS: tuple[str, ...] = ("<|im_end|>", "</s>", "<|endoftext|>", "[INST]", "<|eot_id|>")
MARKDOWN: tuple[str, ...] = ("```", "**", "`", "> ", "- ")
WORDS: tuple[str, ...] = (
    "a", "the", "Paris", "invoice", "July", "cus_8812", "refund", "42", "ok", "x",
)


def all_labels(fmt: Format) -> list[str]:
    out: list[str] = []
    for f in [fmt, *BUILTIN_FORMATS.values()]:
        for w in f.labels.all().values():
            out.append(f"{w}:")
        if f.finish_action:
            out.append(f"{f.finish_action}[")
    return list(dict.fromkeys(out))


def adversarial_pieces(fmt: Format | str = "bracket") -> tuple[str, ...]:
    """Every string the format (and its neighbours) treats specially, ordered so that
    shrinking lands on the simplest: delimiters, labels, stop sequences, line breaks,
    invisible and bidi characters, look-alike labels, markdown, chat tokens."""
    fmt = get_format(fmt)
    lookalikes = (f"\u0410{fmt.labels.action[1:]}:", f"{fmt.labels.action.lower()}:")
    pieces = [
        *fmt.family.delimiters,
        *all_labels(fmt),
        *fmt.stop,
        *LINE_BREAKS,
        *INVISIBLES,
        *lookalikes,
        *MARKDOWN,
        f"**{fmt.labels.action}:**",
        *CHAT_TOKENS,
    ]
    return tuple(dict.fromkeys(pieces))


def adversarial_text(
    fmt: Format | str = "bracket", *, max_pieces: int = 6, long: bool = True
) -> st.SearchStrategy[str]:
    """Text mixing ordinary words with the format's special strings (and now and then a
    very long value); shrinks to ``""`` and then to single pieces."""
    pieces = adversarial_pieces(fmt)
    part = st.one_of(st.sampled_from(WORDS), st.sampled_from(pieces), st.text(max_size=3))
    text = st.lists(part, max_size=max_pieces).map("".join)
    if long:
        text = st.one_of(text, st.integers(200, 4000).map(lambda n: ("a " * n)[:n]))
    return text


def _phrases() -> tuple[str, ...]:
    """One to four ordinary words, every combination of a few, simplest first."""
    out = list(WORDS)
    for a in WORDS[:6]:
        for b in WORDS:
            out.append(f"{a} {b}")
    out += [f"{a} {b} {c} {d}" for a, b, c, d in zip(WORDS, WORDS[3:], WORDS[5:], WORDS[1:])]
    return tuple(dict.fromkeys(out))


_PLAIN = st.sampled_from(_phrases())


def plain_text() -> st.SearchStrategy[str]:
    """Ordinary words, representable in every format (for the parts that are not abused).

    One choice per phrase (a pool built once) keeps scenario generation cheap; the pool
    starts with single words, so shrinking lands on ``"a"``."""
    return _PLAIN
