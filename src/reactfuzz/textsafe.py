"""The one sanitiser: every text from a file, a parser or a completion passes here before it
reaches a terminal or a report.

A format name, an exception's message or a completion can hold control sequences that
retitle or clear a terminal, bidi overrides that reorder what a reader sees, and characters
drawn as nothing. :func:`visible` writes each of them as the escape Python would
(``\\x1b``, ``\\u202e``), on one line; :func:`terminal_safe` does the same but keeps the
text's own line breaks and tabs, for messages and whole reports; :func:`json_safe` escapes
the same characters as JSON ``\\uXXXX`` escapes, for JSON written to a terminal; and
:func:`said` is how an error line quotes a value: ``repr``, made visible and cut.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, TextIO, cast

__all__ = [
    "COLOURS", "SafeStream", "json_safe", "safe_stream", "said", "terminal_safe", "token",
    "visible",
]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}
# Printable by Unicode's reckoning, yet drawn as nothing (fillers, blank braille, CGJ).
_BLANK_LOOKING = frozenset("\u034f\u115f\u1160\u2800\u3164\uffa0")


def token(ch: str) -> str:
    """One character as :func:`visible` writes it: itself when it is printable and drawn,
    else ``\\n``/``\\r``/``\\t`` or ``\\xNN``/``\\uNNNN``/``\\UNNNNNNNN``; ``\\`` doubled."""
    named = _NAMED.get(ch)
    if named is not None:
        return named
    if ch == " " or (ch.isprintable() and ch not in _BLANK_LOOKING):
        return ch
    o = ord(ch)
    if o < 0x100:
        return f"\\x{o:02x}"
    if o < 0x10000:
        return f"\\u{o:04x}"
    return f"\\U{o:08x}"


def visible(text: str, *, limit: int | None = None) -> str:
    """``text`` on one line with every invisible character written as an escape.

    ``\\n``, ``\\r`` and ``\\t`` are written so; every other control, format (zero-width,
    bidi), separator or unprintable character as ``\\xNN`` / ``\\uNNNN`` / ``\\UNNNNNNNN``
    (as Python writes them); a backslash is doubled so an escape in the text cannot pass for
    one of ours. Ordinary non-ASCII (``é``, ``中``) stays. With ``limit``, the result is at
    most ``limit`` characters, cut between escapes and ended with ``…``.
    """
    tokens = [token(ch) for ch in text]
    if limit is None or sum(map(len, tokens)) <= limit:
        return "".join(tokens)
    if limit < 1:
        raise ValueError(f"visible(limit={limit}): the limit must be at least 1")
    out, used = [], 0
    for t in tokens:
        if used + len(t) > limit - 1:
            break
        out.append(t)
        used += len(t)
    return "".join(out) + "…"


# What a terminal or a reader must not receive raw: C0 controls but the line break and tab,
# DEL and C1 (an 8-bit CSI is \x9b), line and paragraph separators, and every format
# character (bidi overrides and isolates, zero widths) or blank-looking filler.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u180e\u2028\u2029"
    "\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2800\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e007f]"
)


COLOURS: frozenset[str] = frozenset(
    f"\x1b[{code}m" for code in ("0", "1", "2", "31", "32", "33", "36", "1;31", "1;32"))
"""The exact colour sequences reactfuzz's own console views write: a stream may keep these
and no other escape sequence (at worst a text that holds one changes a colour)."""


def terminal_safe(text: str, keep: Iterable[str] = ()) -> str:
    """``text`` with its line breaks and tabs kept and every other invisible or controlling
    character written as its escape: what a console message or a report line may show.
    Ordinary text, backslashes included, is unchanged; the exact sequences in ``keep``
    (such as :data:`COLOURS`) pass whole."""
    keep = tuple(keep)
    if not keep or "\x1b" not in text:
        return _UNSAFE.sub(lambda m: token(m.group()), text)
    parts = re.split("(" + "|".join(map(re.escape, keep)) + ")", text)
    return "".join(p if i % 2 else _UNSAFE.sub(lambda m: token(m.group()), p)
                   for i, p in enumerate(parts))


class SafeStream:
    """A text stream that writes every text through :func:`terminal_safe`, keeping
    :data:`COLOURS`: the CLI's stdout and stderr while a command runs, so no message, report
    or library print can move the cursor, retitle or clear the terminal. ``raw`` is the
    stream underneath, for a live display that draws with escape sequences of its own and
    sanitises its texts itself."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(terminal_safe(text, COLOURS))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def __getattr__(self, name: str) -> Any:  # encoding, fileno, buffer, errors, ...
        return getattr(self.raw, name)


def safe_stream(stream: TextIO) -> TextIO:
    """``stream`` behind a :class:`SafeStream` (itself when it already is one)."""
    return stream if isinstance(stream, SafeStream) else cast(TextIO, SafeStream(stream))


def json_safe(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters that
    :func:`terminal_safe` escapes written as ``\\uXXXX``; still valid JSON, same value."""

    def esc(m: re.Match[str]) -> str:
        o = ord(m.group())
        if o < 0x10000:
            return f"\\u{o:04x}"
        o -= 0x10000
        return f"\\u{0xD800 + (o >> 10):04x}\\u{0xDC00 + (o & 0x3FF):04x}"

    return _UNSAFE.sub(esc, text)


def said(value: object, limit: int = 60) -> str:
    """A value as an error line quotes it: ``repr`` for text, made visible and cut to about
    ``limit`` characters (a 5,000-digit seed or a 100 kB name is named, not echoed)."""
    text = terminal_safe(repr(value) if isinstance(value, str) else str(value))
    return text if len(text) <= limit else f"{text[:limit - 20]}... ({len(text)} characters)"
