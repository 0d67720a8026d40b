"""Parsers: ``parse(completion) -> Step``, the code under test.

Built-ins are the regex parsers of the classic designs, kept faithful *with* their
weaknesses (they are the known-broken targets every check must catch), a hardened regex
parser (how far a careful regex can go), and the grammar parser. Parsers never raise on
bad input; a regex that runs past its time limit gives an invalid Step with code
``timeout``.

The registry :data:`PARSERS` maps a name to ``factory(format) -> Parser``; add one with
:func:`register_parser` (a second parser under a taken name is a ``UsageError`` unless
it says ``replace=True``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import regex  # type: ignore[import-untyped, unused-ignore]  # typed by types-regex, if installed

from ..errors import UsageError
from ..formats import Format, get_format
from ..formats.grammars import grammar_parse
from ..model import Action, Invalid, Step
from ..registry import Registry, import_modules

__all__ = [
    "PARSERS",
    "ClassicActionInputParser",
    "ClassicBracketParser",
    "ClassicUnanchoredParser",
    "GrammarParser",
    "HardenedBracketParser",
    "Parser",
    "get_parser",
    "register_parser",
]

DEFAULT_TIMEOUT = 1.0
"""Seconds a built-in regex may run on one completion before it counts as a finding."""


@runtime_checkable
class Parser(Protocol):
    """Anything with a name that turns a completion into a Step."""

    @property
    def name(self) -> str:
        """The parser's name in reports (a plain attribute satisfies it too)."""
        ...

    def parse(self, completion: str) -> Step:
        """Read one completion; return an invalid Step rather than raising."""
        ...


ParserFactory = Callable[[Format], Parser]
PARSERS: Registry[ParserFactory] = Registry("parser")
"""Parser factories by name, in registration order."""
_DESCRIPTIONS: dict[str, str] = {}


def register_parser(
    name: str, description: str = "", *, replace: bool = False
) -> Callable[[ParserFactory], ParserFactory]:
    """Register a parser factory under ``name`` (use as a decorator).

    A name already taken is a :class:`~reactfuzz.errors.UsageError`; ``replace=True``
    overwrites it on purpose.
    """

    def deco(factory: ParserFactory) -> ParserFactory:
        PARSERS.add(name, factory, replace=replace)
        doc = (factory.__doc__ or "").strip().splitlines()
        _DESCRIPTIONS[name] = description or (doc[0] if doc else "")
        return factory

    return deco


def parser_descriptions() -> dict[str, str]:
    """Every registered parser name with its one-line description."""
    return dict(_DESCRIPTIONS)


def get_parser(name: str, fmt: Format | str = "bracket") -> Parser:
    """A built-in (or registered) parser by name, for a format."""
    fmt = get_format(fmt)
    if name not in PARSERS:
        raise UsageError(
            f"unknown parser {name!r}: use one of {', '.join(sorted(PARSERS))}"
        )
    return PARSERS[name](fmt)


def timeout_step(name: str) -> Step:
    return Step(
        invalid=Invalid(
            "timeout", f"{name}: the regular expression ran past {DEFAULT_TIMEOUT}s"
        )
    )


def thought_before(text: str, end: int) -> str:
    head = text[:end].strip()
    if head.startswith("Thought:"):
        head = head[len("Thought:") :].strip()
    return head


@dataclass(frozen=True)
class GrammarParser:
    """The format's Lark grammar (LALR): the reference reading of the format."""

    format: Format
    name: str = "grammar"

    def parse(self, completion: str) -> Step:
        """Parse with the format's grammar."""
        return grammar_parse(completion, self.format)


@register_parser("grammar", "the format's Lark LALR grammar (the reference)")
def _grammar(fmt: Format) -> Parser:
    return GrammarParser(fmt)


_CB_ACTION = regex.compile(r"^Action:\s*(\w+)\[(.*)\]\s*$", regex.MULTILINE)


@dataclass(frozen=True)
class ClassicBracketParser:
    """The tutorial loop: ``"Answer:" in text`` wins, else an anchored Action regex."""

    format: Format
    name: str = "classic-bracket"

    def parse(self, completion: str) -> Step:
        """``if "Answer:" in text`` returns what follows; else split the Action on commas."""
        if "Answer:" in completion:
            before, _, after = completion.partition("Answer:")
            return Step(thought=thought_before(before, len(before)), answer=after.strip())
        try:
            m = _CB_ACTION.search(completion, timeout=DEFAULT_TIMEOUT)
        except TimeoutError:
            return timeout_step(self.name)
        if m is None:
            return Step(invalid=Invalid("no-action", "no line matches the Action regex"))
        raw = m.group(2)
        args = tuple(a.strip() for a in raw.split(","))
        return Step(
            thought=thought_before(completion, m.start()), action=Action(m.group(1), raw, args)
        )


@register_parser("classic-bracket", "the classic loop: 'Answer:' in text, anchored Action regex")
def _classic_bracket(fmt: Format) -> Parser:
    return ClassicBracketParser(fmt)


_CAI_FINAL = regex.compile(r"Final Answer:\s*(.+)", regex.DOTALL)
_CAI_ACTION = regex.compile(r"Action:\s*(.+)\nAction Input:\s*(.+)")


@dataclass(frozen=True)
class ClassicActionInputParser:
    """The MRKL-style parser: ``Final Answer:`` (DOTALL) first, then Action/Action Input."""

    format: Format
    name: str = "classic-action-input"

    def parse(self, completion: str) -> Step:
        """Check for a final answer anywhere first, then the first Action/Action Input pair."""
        try:
            m = _CAI_FINAL.search(completion, timeout=DEFAULT_TIMEOUT)
            if m is not None:
                return Step(
                    thought=thought_before(completion, m.start()), answer=m.group(1).strip()
                )
            m = _CAI_ACTION.search(completion, timeout=DEFAULT_TIMEOUT)
        except TimeoutError:
            return timeout_step(self.name)
        if m is None:
            return Step(
                invalid=Invalid("no-action", "no 'Action:' line followed by 'Action Input:'")
            )
        value = m.group(2).strip()
        return Step(
            thought=thought_before(completion, m.start()),
            action=Action(m.group(1).strip(), value, (value,)),
        )


@register_parser(
    "classic-action-input", "Final Answer: (DOTALL) first, then Action:/Action Input: regex"
)
def _classic_action_input(fmt: Format) -> Parser:
    return ClassicActionInputParser(fmt)


_CU_ACTION = regex.compile(r"Action: (\w+)\[(.*)\]")


@dataclass(frozen=True)
class ClassicUnanchoredParser:
    """The paper-harness style: ``Action: name[...]`` searched anywhere; ``finish`` answers."""

    format: Format
    name: str = "classic-unanchored"

    def parse(self, completion: str) -> Step:
        """Take the first ``Action: name[...]`` anywhere in the text."""
        try:
            m = _CU_ACTION.search(completion, timeout=DEFAULT_TIMEOUT)
        except TimeoutError:
            return timeout_step(self.name)
        if m is None:
            return Step(invalid=Invalid("no-action", "no 'Action: name[...]' in the text"))
        thought = thought_before(completion, m.start())
        if m.group(1).lower() == "finish":
            return Step(thought=thought, answer=m.group(2))
        return Step(thought=thought, action=Action(m.group(1), m.group(2)))


@register_parser("classic-unanchored", "Action: name[...] searched anywhere; finish is an action")
def _classic_unanchored(fmt: Format) -> Parser:
    return ClassicUnanchoredParser(fmt)


# Line breaks other than \n (and \r\n) that some line splitter somewhere honours.
_ODD_BREAKS = regex.compile(r"\r(?!\n)|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_HB_LABEL = regex.compile(r"^(Thought|Action|Observation|Answer):", regex.MULTILINE)
_HB_ACTION = regex.compile(r"^Action:[ \t]*(\w+)\[(.*)\][ \t]*$")
_HB_ARG = regex.compile(
    r'[ \t]*(?:"((?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"|([^,"\[\]]*?))[ \t]*'
    r"(,|$)"
)


@dataclass(frozen=True)
class HardenedBracketParser:
    """The best regex parser a careful engineer writes for ``bracket``.

    Anchored labels at column 1, exactly one action and it comes last, an answer only as
    a line label and never with an action, no model-written observation, no odd line
    breaks, and JSON-string quoting for arguments that hold delimiters.
    """

    format: Format
    name: str = "hardened-bracket"

    def parse(self, completion: str) -> Step:
        """Read a bracket completion defensively."""
        odd = _ODD_BREAKS.search(completion)
        if odd is not None:
            return Step(
                invalid=Invalid(
                    "line-break", f"ambiguous line break {odd.group()!r} at offset {odd.start()}"
                )
            )
        text = completion.replace("\r\n", "\n")
        try:
            labels = list(_HB_LABEL.finditer(text, timeout=DEFAULT_TIMEOUT))
        except TimeoutError:
            return timeout_step(self.name)
        kinds = [m.group(1) for m in labels]
        if "Observation" in kinds:
            return Step(
                invalid=Invalid("fabricated-observation", "the completion contains 'Observation:'")
            )
        n_action, n_answer = kinds.count("Action"), kinds.count("Answer")
        if n_action and n_answer:
            return Step(invalid=Invalid("action-and-answer", "an action and an answer together"))
        if n_action > 1 or n_answer > 1:
            return Step(invalid=Invalid("second-action", "more than one action or answer"))
        if not labels or kinds[-1] not in ("Action", "Answer"):
            return Step(invalid=Invalid("no-action", "no 'Action:' or 'Answer:' line"))
        last = labels[-1]
        thought = thought_before(text, last.start())
        if kinds[-1] == "Answer":
            return Step(thought=thought, answer=text[last.end() :].strip())
        line, _, rest = text[last.start() :].partition("\n")
        if rest.strip():
            return Step(invalid=Invalid("trailing-text", "text after the action line"))
        m = _HB_ACTION.match(line)
        if m is None:
            return Step(invalid=Invalid("malformed-action", f"not name[args]: {line!r}"))
        raw = m.group(2)
        args = _split_quoted(raw)
        if args is None:
            return Step(invalid=Invalid("malformed-action", f"cannot split arguments: {raw!r}"))
        return Step(thought=thought, action=Action(m.group(1), raw, args))


def _split_quoted(raw: str) -> tuple[str, ...] | None:
    """Split on commas outside JSON-quoted strings; ``None`` if the text does not split."""
    if raw.strip() == "":
        return ()
    out: list[str] = []
    pos = 0
    while True:
        m = _HB_ARG.match(raw, pos)
        if m is None:
            return None
        if m.group(1) is not None:
            out.append(json.loads(f'"{m.group(1)}"'))
        else:
            out.append(m.group(2))
        if m.group(3) == "":
            return tuple(out) if m.end() == len(raw) else None
        pos = m.end()


@register_parser("hardened-bracket", "a careful regex parser for bracket (anchored, one action)")
def _hardened_bracket(fmt: Format) -> Parser:
    return HardenedBracketParser(fmt)


# the classic parsers of the other families register themselves, a module each, in name
# order (classic_json, classic_pythonic, classic_xml, and any module a new family adds)
import_modules(__name__)
