"""Bounds on what reactfuzz reads from its user: file kind, file size and nesting depth.

Every input file (a tools JSON, a corpus file, a TOML format, a grammar) is read through
:func:`read_user_file`, which refuses what is not a regular file (a FIFO would block
forever, ``/dev/zero`` never ends) and anything larger than its bound; a JSON Lines log
that is read a line at a time is opened by :func:`open_user_file`, which makes the same
checks and leaves the bound to its reader (a line's length, :data:`MAX_JSONL_LINE`). Parsed
JSON goes through :func:`check_depth`, so that nesting cannot end in a
``RecursionError`` further on. Each refusal is one line naming the file, raised as the
caller's error class (a :class:`~reactfuzz.errors.ReactfuzzError`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from typing import Any, BinaryIO

from .errors import InputFileError, ReactfuzzError

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_ID_LENGTH",
    "MAX_JSONL_BYTES",
    "MAX_JSONL_LINE",
    "MAX_REGEX_SIZE",
    "TIME_RUN",
    "check_depth",
    "cut_text",
    "id_problem",
    "load_json_text",
    "open_user_file",
    "read_user_file",
    "regex_size",
    "time_allowed",
]

MAX_FILE_BYTES = 64 * 1024 * 1024
"""The largest input file reactfuzz reads whole (64 MiB); a JSON Lines log may be larger."""

MAX_JSONL_BYTES = 512 * 1024 * 1024
"""The largest JSON Lines file read whole (512 MiB: a large traffic log)."""

MAX_JSONL_LINE = 8 * 1024 * 1024
"""The longest line, in characters, of a JSON Lines file read a line at a time (8 Mi:
hundreds of times a long real transcript; the grammar reading a record holds about 20
times its length)."""

MAX_DEPTH = 200
"""The deepest nesting of lists and objects accepted in a JSON or TOML input."""

MAX_REGEX_SIZE = 100_000
"""The largest a user regex may grow when its counted repeats are written out."""

MAX_ID_LENGTH = 100
"""The longest check or abuse id (ids are parts of corpus file names)."""


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _open_checked(name: str, what: str,
                  error: type[ReactfuzzError]) -> tuple[int, os.stat_result]:
    """A descriptor on ``name`` and its status, opened without blocking, refused unless a
    regular file."""
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise error(f"{name}: {what} not found") from None
    except IsADirectoryError:
        raise error(f"{name}: {what} is a directory, not a file") from None
    except OSError as e:
        raise error(f"{name}: cannot read {what}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{name}: {what} is {_kind(st.st_mode)}; give a regular file")
    except OSError as e:
        os.close(fd)
        raise error(f"{name}: cannot read {what}: {e.strerror or e}") from None
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_user_file(path: str | os.PathLike[str], what: str, *,
                   limit: int | None = MAX_FILE_BYTES,
                   error: type[ReactfuzzError] = InputFileError) -> bytes:
    """The bytes of a user's input file, refusing special files and files over ``limit``.

    The file is opened without blocking (a FIFO with no writer does not hang) and its kind
    checked on the open descriptor, so a symlink to ``/dev/zero`` or a FIFO is refused
    before a byte is read. ``what`` names the file's role in the error ("tool file").
    """
    name = os.fspath(path)
    fd, st = _open_checked(name, what, error)
    try:
        if limit is not None and st.st_size > limit:
            raise error(f"{name}: {what} is {st.st_size:,} bytes, over the limit of"
                        f" {limit:,}")
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if limit is not None and size > limit:
                raise error(f"{name}: {what} is over the limit of {limit:,} bytes")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise error(f"{name}: cannot read {what}: {e.strerror or e}") from None
    finally:
        os.close(fd)


def open_user_file(path: str | os.PathLike[str], what: str, *,
                   error: type[ReactfuzzError] = InputFileError) -> BinaryIO:
    """A user's input file open for reading in binary, after the checks of
    :func:`read_user_file` on its kind (never its size: the caller reads it a piece at a
    time and bounds the piece). The caller closes it."""
    name = os.fspath(path)
    fd, _ = _open_checked(name, what, error)
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def check_depth(value: Any, where: str, *, limit: int = MAX_DEPTH,
                error: type[ReactfuzzError] = InputFileError) -> None:
    """Refuse lists and objects nested deeper than ``limit`` (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth >= limit:
            raise error(f"{where}: nested deeper than {limit} levels")
        stack.extend((c, depth + 1) for c in children)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def load_json_text(text: str, where: str, *, limit: int = MAX_DEPTH,
                   error: type[ReactfuzzError] = InputFileError, allow_nan: bool = False,
                   **kwargs: Any) -> Any:
    """``json.loads`` that refuses deep nesting (and ``NaN``/``Infinity``) with one line.

    A syntax error is left to the caller (``json.JSONDecodeError``), which knows how to
    name the line; ``kwargs`` go to ``json.loads`` (an ``object_pairs_hook``).
    """
    if not allow_nan:
        kwargs["parse_constant"] = _no_constant
    try:
        value = json.loads(text, **kwargs)
    except RecursionError:
        raise error(f"{where}: nested deeper than {limit} levels") from None
    except ValueError as e:
        if isinstance(e, json.JSONDecodeError) or "is not JSON" not in str(e):
            raise
        raise error(f"{where}: {e} (NaN and Infinity are not JSON numbers)") from None
    check_depth(value, where, limit=limit, error=error)
    return value


def id_problem(kind: str, ident: object) -> str | None:
    """Why ``ident`` cannot be a check or abuse id (ids name corpus files), or ``None``."""
    if not isinstance(ident, str) or not ident:
        return f"a {kind} id must be a non-empty string, not {ident!r}"
    if len(ident) > MAX_ID_LENGTH:
        return f"{kind} id {ident[:40]!r}... is {len(ident)} characters (at most {MAX_ID_LENGTH})"
    bad = sorted({c for c in ident if c in '\\:*?"<>|' or not c.isprintable() or c.isspace()})
    if bad:
        return (f"{kind} id {ident!r} holds {''.join(bad)!r}: ids are parts of file names"
                " (use letters, digits, '.', '-', '_' or '/')")
    if ident.startswith((".tmp-", ".")):
        return f"{kind} id {ident!r} starts with '.': corpus files of such a name are skipped"
    return None


_QUANT = re.compile(r"\{(\d*)(?:,(\d*))?\}")


def regex_size(pattern: str) -> int:
    """How many atoms ``pattern`` holds once its counted repeats are written out.

    The ``regex`` module compiles ``a{1000000000}`` by writing it out (gigabytes), so a
    user pattern is measured first: each atom counts 1, a group the sum of what it holds,
    and ``{n}``/``{n,m}`` multiplies the atom before it by ``n`` (the ``regex`` module
    writes the minimum out and loops for the rest, so ``.{0,1000000}`` is cheap).
    """
    stack: list[int] = [0]  # the size of each open group so far
    last = 0  # the size of the atom just read (what a quantifier repeats)
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            last = 1
            stack[-1] += 1
            continue
        if c == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            last = 1
            stack[-1] += 1
            continue
        if c == "(":
            stack.append(0)
            last = 0
        elif c == ")":
            inner = stack.pop() if len(stack) > 1 else 0
            last = inner
            stack[-1] += inner
        elif c == "{" and (m := _QUANT.match(pattern, i)) and (m.group(1) or m.group(2)):
            times = max(int(m.group(1) or 0), 1)  # the minimum is written out, the rest loops
            stack[-1] += last * (times - 1)
            last *= times
            if stack[-1] > MAX_REGEX_SIZE:  # stop early: the digits may be endless
                return stack[-1]
            i = m.end()
            continue
        elif c not in "|*+?^$":
            last = 1
            stack[-1] += 1
        i += 1
    return sum(stack)


def cut_text(text: str, limit: int, keep: int) -> str:
    """``text``, or its first ``keep`` characters and a marker with its length and SHA-256
    when it is longer than ``limit``: bounded, and two long texts still told apart."""
    if len(text) <= limit:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{text[:keep]}... [truncated: {len(text)} chars, sha256 {digest}]"


TIME_RUN = 16384
"""Up to this many characters a parse may take the base time limit; past it, time in
proportion (the size operators' long inputs at the default budget are this long)."""


def time_allowed(length: int, base: float) -> float:
    """The time a parse of ``length`` characters may take: ``base`` up to :data:`TIME_RUN`
    characters, then in proportion to the length, so a linear parser never runs out of
    time on a longer input and a super-linear one does."""
    return base * max(1.0, length / TIME_RUN)
