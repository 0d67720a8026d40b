"""``--grammar`` targets: a user Lark grammar read like the built-in one of its family.

The grammar must use the rule and terminal names the Step builder of the format's family
reads (a ``template`` format: ``action`` with ``TOOL`` and ``ARGS``, ``answer``); a file
that lacks one is a :class:`~reactfuzz.errors.GrammarError` naming the file, and a parse
tree that does not fit is a crash naming the grammar.
"""

from __future__ import annotations

import os
from pathlib import Path
from time import perf_counter

from ..errors import GrammarError
from ..formats import Format, get_format
from ..formats.grammars import lark_parser
from ..parsers import GrammarParser
from .adapters import describe_exception
from .base import ParseResult, Target

__all__ = ["GrammarTarget", "grammar_target"]

# --------------------------------------------------------------------------- grammar

class GrammarTarget(Target):
    """A user Lark grammar, read like the built-in grammar of the format's family.

    The grammar must define ``completion`` and ``transcript`` and use the rule (and
    terminal) names of the family's built-in file (``grammars/bracket.lark`` for
    ``bracket``); it may ``%import lines`` like the built-ins. A parse tree the Step
    builder cannot read is reported as a crash naming the grammar.
    """

    kind = "grammar"

    def __init__(self, path: str | os.PathLike[str], fmt: Format | str = "bracket") -> None:
        base = get_format(fmt)
        file = Path(path)
        self.name = f"grammar:{os.fspath(path)}"
        self.path = file.resolve()
        if not self.path.is_file():
            raise GrammarError(f"{file}: grammar file not found")
        self.format = base.model_copy(update={"grammar": str(self.path)})
        lark = lark_parser(self.format)  # GrammarError naming the file if it does not compile
        defined = {getattr(r.origin, "name", str(r.origin)) for r in lark.rules}
        family = self.format.family
        needed = family.rules
        missing = [r for r in needed if r not in defined]
        reference = (f"the built-in {family.grammar_file}" if family.grammar_file
                     else f"the {family.name} family")
        if missing:
            raise GrammarError(
                f"{file}: the grammar has no rule {missing[0]!r}; a grammar for the"
                f" {base.name!r} format uses the rule names of {reference}"
                f" ({', '.join(needed)})"
            )
        # a template format has no built-in grammar to copy: say which terminal is missing
        terminals = {t.name for t in lark.terminals}
        lacking = [] if family.grammar_file else [
            t for t in family.terminals if t not in terminals]
        if lacking:
            raise GrammarError(
                f"{file}: the grammar has no terminal {lacking[0]!r}; a grammar for the"
                f" {base.name!r} format names its terminals as {reference} does"
                f" ({', '.join(family.terminals)})"
            )
        self.parser = GrammarParser(self.format, name=self.name)

    def run(self, completion: str) -> ParseResult:
        """Parse with the grammar; a tree the Step builder cannot read is a crash."""
        start = perf_counter()
        try:
            step = self.parser.parse(completion)
        except Exception as exc:
            return ParseResult(
                error=(
                    f"{describe_exception(exc)} (the parse tree of {self.path.name} does not"
                    f" fit the {self.format.family.name} rule and terminal names)"
                ),
                elapsed=perf_counter() - start,
            )
        return ParseResult(step=step, elapsed=perf_counter() - start)


def grammar_target(path: str | os.PathLike[str], fmt: Format | str = "bracket") -> GrammarTarget:
    """A user Lark grammar file as a target (see :class:`GrammarTarget`).

    Raises :class:`~reactfuzz.errors.GrammarError` naming the file (and Lark's line) when
    the file is missing or does not compile, or lacks a rule the Step builder reads.
    """
    return GrammarTarget(path, fmt)
