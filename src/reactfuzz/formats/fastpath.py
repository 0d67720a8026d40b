"""The grammar parser's regex fast path: the commonest completions read without Lark.

A family that sets :attr:`~reactfuzz.formats.Family.fast_path` (``bracket``) gets a
:class:`FastPath` for its unnumbered formats without a grammar file of their own. It
accepts only a narrow, canonical shape and returns exactly the Step the grammar would
(a property test compares the two on every operator's scenarios); anything else is
``None`` and goes to Lark.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..model import Action, Step
from .bracket import read_quoted
from .family import block_text, label_pattern
from .spec import Format

__all__ = ["FastPath", "fast_path"]


@dataclass(frozen=True)
class FastPath:
    """A regex reading of the commonest completions of a bracket-family format.

    It accepts only a narrow, canonical shape -- unlabelled or ``Thought:`` lines, then
    either one ``Action: name[args]`` line, its arguments bare or JSON strings, or an
    ``Answer:`` running to the end of the text (blank lines included, no label after it);
    no blank lines before the action or answer, no carriage returns -- and returns exactly
    the Step the grammar would. An argument is lexed with the grammar's own ``QUOTED`` and
    ``BARE`` terminals, tried in the grammar lexer's order, and a quoted one decoded by
    the grammar reader's function.
    """

    labels: re.Pattern[str]
    thought: str
    call: re.Pattern[str]
    quoted: re.Pattern[str]
    bare: re.Pattern[str]
    answer: str | None

    @classmethod
    def for_format(cls, fmt: Format) -> FastPath | None:
        """The fast path of ``fmt``, or ``None`` when only Lark may read it."""
        own_grammar = fmt.grammar is not None and Path(fmt.grammar).is_absolute()
        if not fmt.family.fast_path or fmt.numbered or own_grammar:
            return None
        from .grammars import lark_parser  # the grammars read through this module

        terminals = {t.name: t for t in lark_parser(fmt).terminals}
        if "QUOTED" not in terminals or "BARE" not in terminals:
            return None
        quoted, bare = (re.compile(terminals[n].pattern.to_regexp()) for n in ("QUOTED", "BARE"))
        # only the start of the action line, up to "[": the arguments are lexed after it
        call = re.compile(label_pattern([fmt.labels.action], number=False) + r"[ \t]*(\w+)\[")
        answer = f"{fmt.labels.answer}:" if fmt.labels.answer else None
        return cls(fmt.line_start_re(), f"{fmt.labels.thought}:", call, quoted, bare, answer)

    def parse(self, text: str) -> Step | None:
        """The Step the grammar would read, or ``None`` when the text is not canonical."""
        if "\r" in text:
            return None
        lines = (text[:-1] if text.endswith("\n") else text).split("\n")
        thoughts: list[list[str]] = []
        label = self.labels.match
        for i, line in enumerate(lines):
            found = label(line)
            if found is None:
                if not line.strip():
                    return None
                if i == 0:
                    thoughts.append([line])
                else:
                    thoughts[-1].append(line)
                continue
            end = found.end()
            if end == len(self.thought) and line.startswith(self.thought):
                thoughts.append([line[end:]])
                continue
            if len(thoughts) == 1 and len(thoughts[0]) == 1:  # the common case, quicker
                thought = thoughts[0][0].strip()
            else:
                thought = "\n".join(t for t in (join_value(p) for p in thoughts) if t)
            if i == len(lines) - 1:
                action = self._action(line)
                if action is not None:
                    return Step(thought=thought, action=action)
            if self.answer is None or end != len(self.answer) or not line.startswith(
                    self.answer):
                return None
            rest = lines[i + 1:]
            if any(label(x) for x in rest):
                return None
            return Step(thought=thought, answer=block_text("\n".join([line[end:], *rest])))
        return None

    def _action(self, line: str) -> Action | None:
        """The action of an action line, lexed as the grammar lexes it, or ``None``."""
        m = self.call.match(line)
        if m is None:
            return None
        start = pos = m.end()
        close = line.find("]", start)
        if close < 0:
            return None
        raw = line[start:close]
        if '"' not in raw and "[" not in raw:  # bare arguments only: split on commas
            if line[close + 1:].strip(" \t"):
                return None
            bare = tuple(map(str.strip, raw.split(",")))
            return Action(m.group(1), raw, () if bare == ("",) else bare)
        args: list[str] = []
        quoted_any = False
        while True:
            q = self.quoted.match(line, pos)
            if q is not None:
                args.append(read_quoted(q.group()))
                quoted_any, pos = True, q.end()
            else:
                b = self.bare.match(line, pos)
                if b is not None:
                    args.append(b.group().strip())
                    pos = b.end()
                else:
                    args.append("")
            c = line[pos:pos + 1]
            if c == "]":
                break
            if c != ",":
                return None
            pos += 1
        if line[pos + 1:].strip(" \t"):
            return None
        if args == [""] and not quoted_any:
            args = []
        return Action(m.group(1), line[start:pos], tuple(args))


def join_value(parts: list[str]) -> str:
    """What the grammar reader makes of a block's lines (first trimmed, others right-trimmed)."""
    return "\n".join(p.strip() if j == 0 else p.rstrip() for j, p in enumerate(parts)).strip()


_BY_ID: dict[int, tuple[Format, FastPath | None]] = {}


def fast_path(fmt: Format) -> FastPath | None:
    """The (cached) fast path of a format, or ``None`` when its family has none.

    Looked up by the format object first: hashing a format (a frozen model, its labels
    and stop words included) cost as much as a tenth of a fast-path parse.
    """
    hit = _BY_ID.get(id(fmt))
    if hit is not None and hit[0] is fmt:
        return hit[1]
    fp = _fast_path(fmt)
    if len(_BY_ID) >= 64:
        _BY_ID.clear()
    _BY_ID[id(fmt)] = (fmt, fp)  # the entry keeps fmt alive: its id is not reused
    return fp


@lru_cache(maxsize=64)
def _fast_path(fmt: Format) -> FastPath | None:
    return FastPath.for_format(fmt)
