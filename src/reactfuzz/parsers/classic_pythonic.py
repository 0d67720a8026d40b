"""The classic parser of the pythonic format, with the family's usual mistake.

Written the way such parsers are shipped (from the protocol's mechanism, not from any
framework's code): ``\\[(\\w+)\\((.*)\\)\\]`` searched anywhere with DOTALL, the arguments
split on every comma and each on its first ``=``, the quotes stripped off the value. A
comma or an ``=`` inside a string value splits it; a list quoted in prose runs; no match
and the text is the answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex  # type: ignore[import-untyped, unused-ignore]  # typed by types-regex, if installed

from ..formats import Format
from ..model import Action, Invalid, Step
from . import DEFAULT_TIMEOUT, Parser, register_parser, timeout_step

__all__ = ["ClassicPythonicParser"]

_CALL = regex.compile(r"\[(\w+)\((.*)\)\]", regex.DOTALL)


@dataclass(frozen=True)
class ClassicPythonicParser:
    """``[tool(...)]`` anywhere; arguments split on commas, then on ``=``; quotes stripped."""

    format: Format
    name: str = "classic-pythonic"

    def parse(self, completion: str) -> Step:
        """Search the call anywhere, split its arguments as text."""
        try:
            m = _CALL.search(completion, timeout=DEFAULT_TIMEOUT)
        except TimeoutError:
            return timeout_step(self.name)
        if m is None:
            return Step(answer=completion.strip())
        names, values = [], []
        for part in (p for p in m.group(2).split(",") if p.strip()):
            name, eq, value = part.partition("=")
            if not eq:
                return Step(invalid=Invalid("malformed-arg", f"{self.name}: no '=' in {part!r}"))
            names.append(name.strip())
            values.append(value.strip().strip("\"'"))
        return Step(action=Action(m.group(1), m.group(0), tuple(values), tuple(names)))


@register_parser("classic-pythonic", "[(\\w+)\\((.*)\\)] anywhere, arguments split on commas")
def _classic_pythonic(fmt: Format) -> Parser:
    return ClassicPythonicParser(fmt)
