"""``--regex`` targets: the user's own action regex, read the way the classic loop reads it.

Patterns are compiled with the ``regex`` module, whose per-search timeout guards against
catastrophic backtracking; the named groups say where the tool, its arguments, the
thought and the answer are.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

import regex  # type: ignore[import-untyped, unused-ignore]  # typed by types-regex, if installed

from ..errors import UsageError
from ..formats import Format, get_format, label_pattern
from ..limits import MAX_REGEX_SIZE, regex_size
from ..model import Action, Invalid, Step
from .adapters import is_finish, one_line
from .base import DEFAULT_TIMEOUT, ParseResult, Target, check_timeout

__all__ = ["RegexTarget", "regex_target"]

# --------------------------------------------------------------------------- regex


def _strip_thought_label(text: str, fmt: Format) -> str:
    head = text.strip()
    m = regex.match(label_pattern([fmt.labels.thought]), head)
    return head[m.end() :].strip() if m else head


class RegexTarget(Target):
    """The user's own action regex, read the classic way.

    Named groups: ``tool`` (required) with ``args`` (the argument text, split on commas
    and each piece stripped, exactly as the classic loop does, so ``name[]`` is one empty
    argument) or ``input`` (one argument, stripped); optionally ``thought`` (else the text
    before the match, without its ``Thought:`` label) and ``answer`` (a final answer read
    by the same pattern). Without an ``answer`` group, answers come from ``answer_pattern``
    (default: the format's answer label at a line start, to the end of the text; ``""``
    reads no answers). The answer is checked first, as the classic loop's ``if "Answer:"``
    does; ``answer_first=False`` checks the action first. An action named the format's
    ``finish_action`` is the answer. Each search runs with the ``regex`` module's timeout
    (the remaining part of ``timeout`` per completion); running past it is ``timed_out``.
    """

    kind = "regex"

    def __init__(
        self,
        pattern: str,
        fmt: Format | str = "bracket",
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        answer_pattern: str | None = None,
        flags: int = regex.MULTILINE,
        answer_first: bool = True,
    ) -> None:
        self.format = get_format(fmt)
        self.timeout = check_timeout(timeout)
        self.name = f"regex:{pattern}"
        self.pattern = pattern
        self.answer_first = answer_first
        self._action = self._compile(pattern, flags, "the pattern")
        groups = self._action.groupindex
        if "tool" not in groups:
            raise UsageError(
                f"regex target {pattern!r} has no named group 'tool': write the tool name as"
                r" (?P<tool>\w+) and its arguments as (?P<args>...) or (?P<input>...)"
            )
        self._arg_group = "args" if "args" in groups else "input" if "input" in groups else None
        self._answer: Any = None
        if "answer" not in groups:
            if answer_pattern is None and self.format.labels.answer:
                label = regex.escape(self.format.labels.answer)
                answer_pattern = rf"^{label}:[ \t]*(?P<answer>.*)"
                flags |= regex.DOTALL
            if answer_pattern:
                self._answer = self._compile(answer_pattern, flags, "the answer pattern")
                if "answer" not in self._answer.groupindex:
                    raise UsageError(
                        f"answer pattern {answer_pattern!r} has no named group 'answer'"
                        " (write the answer text as (?P<answer>.*))"
                    )

    @staticmethod
    def _compile(pattern: str, flags: int, what: str) -> Any:
        if not isinstance(pattern, str) or not pattern:
            raise UsageError(f"regex target: {what} is empty")
        if (size := regex_size(pattern)) > MAX_REGEX_SIZE:
            raise UsageError(
                f"regex target: {what} {pattern[:60]!r} repeats too much ({size:,} atoms once"
                f" its counted repeats are written out; at most {MAX_REGEX_SIZE:,})"
            )
        try:
            return regex.compile(pattern, flags)
        except regex.error as exc:
            raise UsageError(
                f"regex target: {what} {pattern!r} does not compile: {one_line(str(exc))}"
            ) from None

    def _search(self, compiled: Any, text: str, start: float) -> Any:
        limit = self.limit_for(text)
        if limit is None:
            return compiled.search(text)
        left = limit - (perf_counter() - start)
        if left <= 0:
            raise TimeoutError("regex time limit spent")
        return compiled.search(text, timeout=left)

    def _thought(self, m: Any, text: str) -> str:
        if "thought" in m.re.groupindex and m.group("thought") is not None:
            return str(m.group("thought")).strip()
        return _strip_thought_label(text[: m.start()], self.format)

    def _answer_of(self, m: Any, text: str) -> Step | None:
        if m is None or m.group("answer") is None:
            return None
        return Step(thought=self._thought(m, text), answer=m.group("answer").strip())

    def _action_of(self, m: Any, text: str) -> Step | None:
        if m is None:
            return None
        tool = m.group("tool")
        if tool is None:
            return self._answer_of(m, text) if "answer" in m.re.groupindex else None
        tool = tool.strip()
        raw = "" if self._arg_group is None else (m.group(self._arg_group) or "")
        if self._arg_group == "args":
            args: tuple[str, ...] = tuple(a.strip() for a in raw.split(","))
        elif self._arg_group == "input":
            raw = raw.strip()
            args = (raw,)
        else:
            args = ()
        thought = self._thought(m, text)
        if is_finish(tool, self.format):
            return Step(thought=thought, answer=raw)
        return Step(thought=thought, action=Action(tool, raw, args))

    def _read(self, text: str, start: float) -> Step:
        answer: Step | None = None
        if self._answer is not None and self.answer_first:
            answer = self._answer_of(self._search(self._answer, text, start), text)
            if answer is not None:
                return answer
        action = self._action_of(self._search(self._action, text, start), text)
        if action is not None:
            return action
        if self._answer is not None and not self.answer_first:
            answer = self._answer_of(self._search(self._answer, text, start), text)
            if answer is not None:
                return answer
        what = "the pattern does not match" + (" and no answer matched" if self._answer else "")
        return Step(invalid=Invalid("no-action", what))

    def run(self, completion: str) -> ParseResult:
        """Search the completion; running past the time limit is ``timed_out``."""
        start = perf_counter()
        try:
            step = self._read(completion, start)
        except TimeoutError:
            return ParseResult(timed_out=True, elapsed=perf_counter() - start)
        return ParseResult(step=step, elapsed=perf_counter() - start)


def regex_target(
    pattern: str,
    fmt: Format | str = "bracket",
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    answer_pattern: str | None = None,
    flags: int = regex.MULTILINE,
    answer_first: bool = True,
) -> RegexTarget:
    """The user's own action regex as a target (see :class:`RegexTarget`).

    Compiled with the ``regex`` module, ``MULTILINE`` by default (``flags=``; inline flags
    such as ``(?s)`` work). A pattern that does not compile, or has no ``tool`` group, is
    a :class:`~reactfuzz.errors.UsageError`.
    """
    return RegexTarget(
        pattern, fmt, timeout=timeout, answer_pattern=answer_pattern, flags=flags,
        answer_first=answer_first,
    )
