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

from .formats import Format, label_pattern
from .model import Action, Step

__all__ = ["FastPath", "fast_path"]


@dataclass(frozen=True)
class FastPath:
    """A regex reading of the commonest completions of a bracket-family format.

    It accepts only a narrow, canonical shape -- unlabelled or ``Thought:`` lines, then one
    ``Action: name[bare, args]`` or one-line ``Answer:`` line; no blank lines, quotes or
    carriage returns -- and returns exactly the Step the grammar would.
    """

    labels: re.Pattern[str]
    thought: str
    action: re.Pattern[str]
    answer: str | None

    @classmethod
    def for_format(cls, fmt: Format) -> FastPath | None:
        """The fast path of ``fmt``, or ``None`` when only Lark may read it."""
        own_grammar = fmt.grammar is not None and Path(fmt.grammar).is_absolute()
        if not fmt.family.fast_path or fmt.numbered or own_grammar:
            return None
        labels = fmt.line_start_re()
        action = re.compile(  # fullmatched against the last line, so anchored
            label_pattern([fmt.labels.action], number=False)
            + r"[ \t]*(\w+)\[([^\[\]\"\n\r]*)\][ \t]*"
        )
        answer = f"{fmt.labels.answer}:" if fmt.labels.answer else None
        return cls(labels, f"{fmt.labels.thought}:", action, answer)

    def _label_end(self, line: str) -> int | None:
        """Where the label that starts ``line`` ends, or ``None`` if none starts it."""
        m = self.labels.match(line)
        return m.end() if m is not None else None

    def parse(self, text: str) -> Step | None:
        """The Step the grammar would read, or ``None`` when the text is not canonical."""
        if "\r" in text or '"' in text:
            return None
        lines = (text[:-1] if text.endswith("\n") else text).split("\n")
        last = lines[-1]
        thoughts: list[list[str]] = []
        for i, line in enumerate(lines[:-1]):
            if not line.strip():
                return None
            end = self._label_end(line)
            if end is not None:
                if not line.startswith(self.thought) or end != len(self.thought):
                    return None
                thoughts.append([line[len(self.thought):]])
            elif i == 0:
                thoughts.append([line])
            else:
                thoughts[-1].append(line)
        m = self.action.fullmatch(last)
        thought = "\n".join(t for t in (join_value(p) for p in thoughts) if t)
        if m is not None:
            raw = m.group(2)
            args = tuple(a.strip() for a in raw.split(","))
            if args == ("",):
                args = ()
            return Step(thought=thought, action=Action(m.group(1), raw, args))
        if self.answer is not None and last.startswith(self.answer):
            rest = last[len(self.answer):]
            if self._label_end(last) == len(self.answer):
                return Step(thought=thought, answer=rest.strip())
        return None


def join_value(parts: list[str]) -> str:
    """What the grammar reader makes of a block's lines (first trimmed, others right-trimmed)."""
    return "\n".join(p.strip() if j == 0 else p.rstrip() for j, p in enumerate(parts)).strip()


@lru_cache(maxsize=64)
def fast_path(fmt: Format) -> FastPath | None:
    """The (cached) fast path of a format, or ``None`` when its family has none."""
    return FastPath.for_format(fmt)
