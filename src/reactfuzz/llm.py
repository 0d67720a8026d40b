"""The fake LLM: a completion model with provider semantics, driven by scripts or Hypothesis.

A :class:`FakeLLM` returns what a source says the model "wrote" (a list of strings, a
function of the request, or a Hypothesis ``data`` object) after doing to it exactly what an
OpenAI- or Anthropic-style completion endpoint does:

* **Stop sequences** (:func:`apply_stop`) cut the text at the earliest *start* of any stop
  sequence; the stop sequence itself is excluded and reported. When two stop sequences start
  at the same offset the longer one is reported (the cut is the same either way).
  A token-by-token generator stops when a stop sequence is first *completed*; the two rules
  differ only for overlapping stop sequences of different lengths (``"abcdef"`` and ``"cd"``),
  and this fake follows the start rule, which is how the APIs document it.
* **The length limit** (``max_chars``) is applied *after* the stop sequences, as providers
  do: a stop sequence that starts within the limit wins (``finish_reason="stop"``); otherwise
  the text is cut at the limit (``finish_reason="length"``), which can leave half a label
  (``"\\nObserv"``) dangling at the end.
* **Playing both roles** (``plays_both_roles``): with that probability per turn, decided by
  a :class:`random.Random` seeded from ``seed`` and the turn index, the model keeps writing
  after its text: a fabricated observation, a thought and a final answer, in the format's
  labels. This happens *before* the stop sequences are applied, so the format's stop
  sequence cuts it and a loop without one lets it through.

:meth:`FakeLLM.stream` returns the same text as :meth:`FakeLLM.complete` in chunks;
:func:`stream_parse` is the consumer side, with the known-broken ``eager`` variant that parses
every prefix and acts on the first one that parses.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from .errors import UsageError
from .formats import Format, get_format
from .model import FinalAnswer, Step
from .parsers import Parser

__all__ = [
    "Chunking",
    "Completion",
    "CompletionModel",
    "FakeLLM",
    "FinishReason",
    "HypothesisSource",
    "Request",
    "Source",
    "apply_stop",
    "split_chunks",
    "stream_parse",
]

FinishReason = Literal["stop", "length", "end"]
"""Why a completion ended: a stop sequence, the length limit, or the model was done."""


@dataclass(frozen=True, slots=True)
class Request:
    """One call to the model: the prompt, the stop sequences in force, the turn (0-based)."""

    prompt: str
    stop: tuple[str, ...]
    turn: int


@dataclass(frozen=True, slots=True)
class Completion:
    """What a completion endpoint returns, and what the model wrote before it was cut.

    ``text`` is what the client receives; ``raw`` what the model "wrote" (its script text plus
    any fabricated continuation) before the stop sequences and the length limit; ``finish_reason``
    is ``"stop"``, ``"length"`` or ``"end"``; ``stop_sequence`` is the stop sequence that cut the
    text, if one did; ``played_both_roles`` says whether the model appended a fabricated
    observation to ``raw`` on this turn.
    """

    text: str
    raw: str
    finish_reason: FinishReason
    stop_sequence: str | None = None
    played_both_roles: bool = False


@runtime_checkable
class CompletionModel(Protocol):
    """Anything the ReAct loop can call: ``complete(prompt, stop=...) -> Completion``."""

    def complete(
        self, prompt: str, *, stop: Sequence[str] | None = None, max_chars: int | None = None
    ) -> Completion:
        """Complete ``prompt``; ``stop=None`` means the model's defaults, ``()`` none."""
        ...


@dataclass(frozen=True)
class HypothesisSource:
    """A completion source that draws one completion per turn from a Hypothesis strategy.

    Each turn is drawn with ``data.draw(strategy, label=f"turn {n}")`` so a failing example
    prints which completion the model wrote on which turn, and shrinks turn by turn.
    """

    data: Any  # hypothesis.strategies.DataObject
    strategy: Any  # hypothesis.strategies.SearchStrategy[str]

    def __call__(self, request: Request) -> str:
        """Draw the completion for this request's turn."""
        return self.data.draw(self.strategy, label=f"turn {request.turn}")


Source = Sequence[str] | Callable[[Request], str] | HypothesisSource
"""Where a FakeLLM's text comes from: a script, a function of the request, or Hypothesis."""

Chunking = Sequence[int] | Callable[[str], Sequence[int]] | None
"""How a stream is cut: chunk sizes (cycled), a function of the text giving them, or one chunk."""


def _stop_tuple(stop: Sequence[str], what: str = "stop") -> tuple[str, ...]:
    if isinstance(stop, str):
        raise UsageError(
            f"{what} must be a sequence of strings, not a string; write ({stop!r},)"
        )
    out = tuple(stop)
    for s in out:
        if not isinstance(s, str) or s == "":
            raise UsageError(f"{what} sequences must be non-empty strings, not {s!r}")
    return out


def apply_stop(text: str, stop: Sequence[str]) -> tuple[str, str | None]:
    """Cut ``text`` where the earliest stop sequence starts, as a completion endpoint does.

    Returns the text before the stop sequence (the stop sequence itself is excluded) and the
    stop sequence that matched, or ``(text, None)`` when none occurs. Of several stop
    sequences the one that starts first wins; of two that start at the same offset, the
    longer is reported.
    """
    best: tuple[int, str] | None = None
    for s in _stop_tuple(stop):
        i = text.find(s)
        if i < 0:
            continue
        if best is None or i < best[0] or (i == best[0] and len(s) > len(best[1])):
            best = (i, s)
    if best is None:
        return text, None
    return text[: best[0]], best[1]


def split_chunks(text: str, chunks: Chunking = None) -> list[str]:
    """Cut ``text`` into stream chunks: sizes cycled until the text is used up.

    ``chunks`` is a sequence of positive sizes, a function of the text returning one, or
    ``None`` for a single chunk. The chunks always join back to ``text``; an empty text
    gives no chunks.
    """
    if text == "":
        return []
    if chunks is None:
        return [text]
    sizes = list(chunks(text) if callable(chunks) else chunks)
    if not sizes:
        raise UsageError("chunk sizes must not be empty; pass None for a single chunk")
    for n in sizes:
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise UsageError(f"chunk sizes must be positive integers, not {n!r}")
    out: list[str] = []
    pos = 0
    for n in itertools.cycle(sizes):
        out.append(text[pos : pos + n])
        pos += n
        if pos >= len(text):
            return out
    raise AssertionError("unreachable")  # pragma: no cover


_FABRICATED_OBSERVATIONS = (
    '[{"id": "INV-2041", "issued": "2026-07-03", "total": 0.00}]',
    "No invoices found.",
    "ok: the refund was issued",
)
_FABRICATED_THOUGHTS = ("I now know the final answer.", "That settles it.")
_FABRICATED_ANSWERS = ("The customer was never charged.", "Everything is in order.")


class FakeLLM:
    """A completion model with provider semantics, driven by a script, a function or Hypothesis.

    ``source`` gives the text the model writes on each turn: a list of strings (in order;
    running out raises :class:`~reactfuzz.errors.UsageError`), a function ``(Request) -> str``
    or a :class:`HypothesisSource`. ``stop`` are the default stop sequences (a request may
    override them), ``max_chars`` the default length limit, ``plays_both_roles`` the
    probability per turn that the model fabricates an observation after its text (labels from
    ``fmt``), decided by ``seed`` and the turn index. Every request is recorded in
    ``requests`` and every completion in ``completions``. See the module docstring for the
    order in which the cuts are applied.
    """

    def __init__(
        self,
        source: Source,
        *,
        stop: Sequence[str] = (),
        max_chars: int | None = None,
        plays_both_roles: float = 0.0,
        fmt: Format | str = "bracket",
        seed: int = 0,
    ) -> None:
        if isinstance(source, str):
            raise UsageError(
                "source must be a list of completions, a function or a HypothesisSource,"
                f" not a string; write [{source[:30]!r}]"
            )
        if not callable(source) and not isinstance(source, Sequence):
            raise UsageError(
                "source must be a list of completions, a function (Request) -> str or a"
                f" HypothesisSource, not {type(source).__name__}"
            )
        if not isinstance(plays_both_roles, (int, float)) or not 0.0 <= plays_both_roles <= 1.0:
            raise UsageError(
                f"plays_both_roles is a probability in [0, 1], not {plays_both_roles!r}"
            )
        self.source = source
        self.stop = _stop_tuple(stop)
        self.max_chars = _check_max_chars(max_chars)
        self.plays_both_roles = float(plays_both_roles)
        self.fmt = get_format(fmt)
        self.seed = seed
        self.requests: list[Request] = []
        self.completions: list[Completion] = []

    def __repr__(self) -> str:
        return (
            f"FakeLLM(stop={self.stop!r}, max_chars={self.max_chars!r},"
            f" plays_both_roles={self.plays_both_roles!r}, fmt={self.fmt.name!r},"
            f" seed={self.seed!r}, turns={len(self.requests)})"
        )

    def _write(self, request: Request) -> str:
        source = self.source
        if callable(source):
            text = source(request)
        else:
            if request.turn >= len(source):
                raise UsageError(
                    f"FakeLLM: the script has {len(source)} completion(s) and request"
                    f" {request.turn + 1} asked for another; add completions or lower max_steps"
                )
            text = source[request.turn]
        if not isinstance(text, str):
            raise UsageError(
                f"FakeLLM: the source returned {type(text).__name__} for turn {request.turn},"
                " not str"
            )
        return text

    def plays_both_roles_on(self, turn: int) -> bool:
        """Whether the model fabricates an observation on this turn (deterministic by seed)."""
        return random.Random(f"{self.seed}/{turn}").random() < self.plays_both_roles

    def fabricated_continuation(self, turn: int) -> str:
        """The text the model appends on a turn where it plays both roles.

        A fabricated observation, a thought and a final answer (``Answer:`` or the format's
        finish action), numbered as step ``turn + 1`` for numbered formats.
        """
        rng = random.Random(f"{self.seed}/{turn}/text")
        fmt, n = self.fmt, turn + 1
        obs = rng.choice(_FABRICATED_OBSERVATIONS)
        thought = rng.choice(_FABRICATED_THOUGHTS)
        answer = rng.choice(_FABRICATED_ANSWERS)
        final = "\n".join(fmt.family.write_answer(FinalAnswer(answer), fmt, step=n + 1))
        return (
            f"\n{fmt.label('observation', n)} {obs}\n{fmt.label('thought', n + 1)} {thought}\n"
            f"{final}"
        )

    def complete(
        self, prompt: str, *, stop: Sequence[str] | None = None, max_chars: int | None = None
    ) -> Completion:
        """Complete ``prompt``: write, maybe play both roles, cut at the stop, then at the limit.

        ``stop=None`` uses the model's default stop sequences and ``()`` none;
        ``max_chars=None`` uses the model's default limit.
        """
        stops = self.stop if stop is None else _stop_tuple(stop)
        limit = self.max_chars if max_chars is None else _check_max_chars(max_chars)
        request = Request(prompt, stops, len(self.requests))
        self.requests.append(request)
        raw = self._write(request)
        both = self.plays_both_roles_on(request.turn)
        if both:
            raw += self.fabricated_continuation(request.turn)
        text, matched = apply_stop(raw, stops)
        finish: FinishReason = "stop" if matched is not None else "end"
        if limit is not None and len(text) > limit:
            text, matched, finish = text[:limit], None, "length"
        completion = Completion(text, raw, finish, matched, both)
        self.completions.append(completion)
        return completion

    def stream(
        self,
        prompt: str,
        *,
        chunks: Chunking = None,
        stop: Sequence[str] | None = None,
        max_chars: int | None = None,
    ) -> Iterator[str]:
        """Complete ``prompt`` and return the text in chunks (see :func:`split_chunks`).

        The request is made (and recorded) when ``stream`` is called; the chunks join to
        exactly the text :meth:`complete` would have returned, and the Completion itself is
        ``completions[-1]``.
        """
        completion = self.complete(prompt, stop=stop, max_chars=max_chars)
        return iter(split_chunks(completion.text, chunks))


def _check_max_chars(max_chars: int | None) -> int | None:
    if max_chars is not None and (
        not isinstance(max_chars, int) or isinstance(max_chars, bool) or max_chars < 0
    ):
        raise UsageError(f"max_chars must be a non-negative integer or None, not {max_chars!r}")
    return max_chars


def stream_parse(parser: Parser, chunks: Iterable[str], *, eager: bool = False) -> Step:
    """The streaming consumer: read a completion arriving in chunks and return its Step.

    ``eager=False`` (the correct design) accumulates every chunk and parses once, at the
    end. ``eager=True`` is the **known-broken** design found in real streaming agents: after
    each chunk it parses the text so far and acts on the first Step that is not invalid, so
    ``"Answer: I think\\nmore"`` streamed as ``["Answer: I", " think\\nmore"]`` is read as the
    answer ``"I"`` by ``classic-bracket``. If no prefix parses, the Step of the whole text is
    returned. It exists to show that the stream-invariance property catches it.
    """
    if not eager:
        return parser.parse("".join(chunks))
    text = ""
    step: Step | None = None
    for chunk in chunks:
        text += chunk
        step = parser.parse(text)
        if step.invalid is None:
            return step
    return step if step is not None else parser.parse(text)
