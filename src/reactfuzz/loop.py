"""The ReAct loop: a completion model, a parser and a dispatcher run turn by turn into a Trace.

Each turn builds the prompt, asks the model, parses the completion, dispatches the Step and
appends what happened. The transcript is plain text and :meth:`Trace.text` renders it back
exactly. Its shape, for the ``bracket`` format::

    {prefix}Question: {question}\\n
    Thought:{completion 1}\\n            <- the cue "Thought:" is written by the loop
    Observation: {observation 1}\\n      <- written by the loop
    Thought:{completion 2}...

Decisions:

* **The cue is part of the transcript.** Every prompt ends with the thought label of the
  next step (``Thought:``, or ``Thought N:`` in numbered formats) and the completion
  continues it, so a completion usually starts with a space and its first line is not at
  the start of a line. ``turns[k + 1].prompt == turns[k].prompt + completion_k + appended_k
  + cue_{k+1}`` holds exactly.
* **Observations** are appended as ``{Observation label} {text}\\n``, after a ``\\n`` unless
  the completion already ends with one (a stop sequence usually leaves it). Numbered formats
  number the observation with the step (``Observation 2:``); the step number is the turn
  index + 1, parse-error turns included.
* **Parse errors** (a ``rejected [unparseable]`` outcome) keep the completion in the
  transcript and append ``Invalid format: {message}`` as its observation: the model call is
  wasted and the model may retry. More than ``max_retries`` in a row end the loop
  (``"parse-errors"``). Other refusals append ``Refused [{kind}]: {message}`` and the model
  may retry; every refusal counts as a wasted call.
* **Crashes**: a ``crashed`` outcome, or any exception from the parser or dispatcher other
  than reactfuzz's own usage errors, ends the loop (``"crash"``).
* **Parse scope**: ``"completion"`` (correct) parses only this completion;
  ``"transcript"`` (deliberately broken, as loops that run their regex over the whole
  scratchpad) parses the prompt plus the completion, so an observation's ``Action:`` or
  ``Answer:`` lines can decide the step.
* **Fabricated observations**: a turn is ``fabricated`` when its completion, as appended,
  holds the format's observation label (``Observation:``, also numbered) at the start of a
  line. With the format's stop sequence that never happens for a model that writes the
  label as the format does.
* **Token accounting** counts each part of a prompt separately (prefix, question line and
  cue, then each earlier cue, completion and observation) and adds them up, so the totals
  are exact sums; a real tokenizer may merge a token across a seam. The prefix is paid by
  every request (linear in the number of steps); each observation by every *later* request
  (quadratic in total).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from .designs import decide
from .dispatch import Crashed, Dispatcher, Executed, Finished, Outcome, Rejected, get_dispatcher
from .errors import UsageError
from .formats import Format, get_format, label_pattern
from .llm import Completion, CompletionModel
from .model import Call, Step
from .parsers import Parser, get_parser
from .tools import ToolRegistry

__all__ = [
    "EndReason",
    "ParseScope",
    "RequestTokens",
    "TokenCounter",
    "Trace",
    "Turn",
    "approx_tokens",
    "default_token_counter",
    "has_fabricated_observation",
    "run",
    "word_tokens",
]

EndReason = Literal["answer", "step-limit", "crash", "parse-errors"]
"""Why a loop ended."""

ParseScope = Literal["completion", "transcript"]
"""What the parser reads each turn: this completion (correct) or the whole transcript (broken)."""

TokenCounter = Callable[[str], int]
"""Counts the tokens of a text."""


# --------------------------------------------------------------------------- token counters


def approx_tokens(text: str) -> int:
    """An approximate token count: one token per four characters, rounded up (0 for ``""``).

    Four characters per token is the usual rule of thumb for English text with the BPE
    tokenizers of current models; it is exact for no tokenizer and never depends on the
    environment.
    """
    return math.ceil(len(text) / 4)


def word_tokens(text: str) -> int:
    """A token count of one token per whitespace-separated word (handy for exact tests)."""
    return len(text.split())


@functools.cache
def default_token_counter() -> TokenCounter:
    """The default token counter: tiktoken ``cl100k_base`` if it loads, else the approximation.

    tiktoken is optional (never a dependency) and downloads its BPE file on first use, which
    fails offline; any failure to import or load it falls back to the approximation. The
    choice is made once per process (``default_token_counter.cache_clear()`` forgets it).
    """
    try:
        import tiktoken  # type: ignore[import-not-found,unused-ignore]

        encoding = tiktoken.get_encoding("cl100k_base")
        encoding.encode("probe")
    except Exception:
        return approx_tokens

    def tiktoken_tokens(text: str) -> int:
        """Tokens of ``text`` in tiktoken's ``cl100k_base`` encoding."""
        return len(encoding.encode(text, disallowed_special=()))

    return tiktoken_tokens


# --------------------------------------------------------------------------- the trace


@dataclass(frozen=True, slots=True)
class RequestTokens:
    """The tokens of one request, part by part.

    ``prefix`` (the instructions / few-shot prefix), ``frame`` (the question line and this
    turn's cue), ``history`` (every earlier turn: its cue, completion and appended
    observation), of which ``observations`` is the observation part, and ``completion``.
    ``prompt`` is what the request pays for its input: ``prefix + frame + history``.
    """

    prefix: int
    frame: int
    history: int
    observations: int
    completion: int

    @property
    def prompt(self) -> int:
        """The prompt tokens: prefix + question line and cue + history."""
        return self.prefix + self.frame + self.history


@dataclass(frozen=True, slots=True)
class Turn:
    """One model call of a loop and what came of it.

    ``index`` is 0-based (labels are numbered ``index + 1``); ``cue`` is the label the loop
    wrote at the end of ``prompt``; ``step`` is ``None`` only if the parser raised;
    ``observation`` is the observation text (``None`` when the loop ended on this turn
    without one) and ``appended`` the exact text the loop wrote after the completion;
    ``fabricated`` says whether the completion put an observation label at a line start.
    """

    index: int
    cue: str
    prompt: str
    completion: Completion
    step: Step | None
    outcome: Outcome
    observation: str | None
    appended: str
    tokens: RequestTokens
    fabricated: bool


@dataclass(frozen=True, slots=True)
class Trace:
    """A whole run of the loop: its turns, how it ended, and what it cost.

    ``end`` is ``"answer"``, ``"step-limit"``, ``"crash"`` or ``"parse-errors"``; ``answer``
    is the final answer when the loop finished with one. Counts and token totals are derived
    from the turns; :meth:`text` renders the exact transcript.
    """

    question: str
    format: str
    prefix: str
    header: str
    turns: tuple[Turn, ...]
    end: EndReason
    answer: str | None = None

    def text(self) -> str:
        """The exact transcript: the last prompt, its completion and what the loop appended."""
        parts = [self.prefix, self.header]
        for t in self.turns:
            parts += [t.cue, t.completion.text, t.appended]
        return "".join(parts)

    @property
    def calls(self) -> tuple[Call, ...]:
        """The calls executed, in order."""
        return tuple(t.outcome.call for t in self.turns if isinstance(t.outcome, Executed))

    @property
    def retries(self) -> int:
        """How many turns were parse errors (``rejected [unparseable]``)."""
        return sum(1 for t in self.turns if _is_parse_error(t.outcome))

    @property
    def wasted_calls(self) -> int:
        """How many model calls bought only a refusal (parse errors and other rejections)."""
        return sum(1 for t in self.turns if isinstance(t.outcome, Rejected))

    @property
    def fabricated_count(self) -> int:
        """How many turns put a model-written observation into the transcript."""
        return sum(1 for t in self.turns if t.fabricated)

    @property
    def prefix_tokens_total(self) -> int:
        """The prefix tokens over all requests (paid once per request: linear in steps)."""
        return sum(t.tokens.prefix for t in self.turns)

    @property
    def observation_tokens_total(self) -> int:
        """Observation tokens over all requests (each paid by every later request: quadratic)."""
        return sum(t.tokens.observations for t in self.turns)

    @property
    def prompt_tokens_total(self) -> int:
        """The prompt tokens over all requests."""
        return sum(t.tokens.prompt for t in self.turns)

    @property
    def completion_tokens_total(self) -> int:
        """The completion tokens over all requests."""
        return sum(t.tokens.completion for t in self.turns)


def _is_parse_error(outcome: Outcome) -> bool:
    return isinstance(outcome, Rejected) and outcome.reason == "unparseable"


@functools.cache
def _observation_label_re(word: str) -> re.Pattern[str]:
    return re.compile("\n" + label_pattern([word]))


def has_fabricated_observation(completion: str, fmt: Format | str = "bracket") -> bool:
    """Whether a completion, following the loop's cue, writes an observation label at a line start.

    The completion's first character follows the cue on the same line, so only labels after
    a ``\\n`` count. The label is the format's observation word, numbered or not
    (``Observation:``, ``Observation 2:``), as the grammars read it.
    """
    return _observation_label_re(get_format(fmt).labels.observation).search(completion) is not None


# --------------------------------------------------------------------------- the loop


def run(
    question: str,
    llm: CompletionModel,
    parser: Parser | str,
    dispatcher: Dispatcher | str,
    registry: ToolRegistry,
    *,
    fmt: Format | str = "bracket",
    max_steps: int = 8,
    stop: Sequence[str] | None = None,
    observation_limit: int | None = None,
    prefix: str = "",
    token_counter: TokenCounter | None = None,
    parse_scope: ParseScope = "completion",
    max_retries: int = 2,
) -> Trace:
    """Run the ReAct loop over a completion model, a parser and a dispatcher; return the Trace.

    ``parser`` and ``dispatcher`` are objects or registered names (a parser name is built for
    ``fmt``). ``stop=None`` sends the format's stop sequences, ``()`` none. ``max_steps``
    bounds the model calls (parse-error retries included); ``observation_limit`` truncates
    each observation to that many characters; ``prefix`` is the instructions / few-shot
    text before the question; ``token_counter`` defaults to :func:`default_token_counter`;
    ``parse_scope`` and the rest are described in the module docstring.
    """
    fmt = get_format(fmt)
    if parse_scope not in get_args(ParseScope):
        raise UsageError(
            f"parse_scope must be 'completion' or 'transcript', not {parse_scope!r}"
        )
    if not isinstance(max_steps, int) or max_steps < 1:
        raise UsageError(f"max_steps must be a positive integer, not {max_steps!r}")
    if not isinstance(max_retries, int) or max_retries < 0:
        raise UsageError(f"max_retries must be a non-negative integer, not {max_retries!r}")
    if observation_limit is not None and (
        not isinstance(observation_limit, int) or observation_limit < 0
    ):
        raise UsageError(
            f"observation_limit must be a non-negative integer or None, not {observation_limit!r}"
        )
    if isinstance(stop, str):
        raise UsageError(f"stop must be a sequence of strings, not a string; write ({stop!r},)")
    stops = fmt.stop if stop is None else tuple(stop)
    the_parser = get_parser(parser, fmt) if isinstance(parser, str) else parser
    dispatch = get_dispatcher(dispatcher) if isinstance(dispatcher, str) else dispatcher
    count = token_counter if token_counter is not None else default_token_counter()

    header = f"{fmt.labels.headers[0]}: {question}\n"
    transcript = prefix + header
    prefix_tokens, header_tokens = count(prefix), count(header)
    history_tokens = history_observation_tokens = 0
    turns: list[Turn] = []
    end: EndReason = "step-limit"
    answer: str | None = None
    parse_errors_in_a_row = 0

    for index in range(max_steps):
        n = index + 1
        cue = fmt.label("thought", n)
        prompt = transcript + cue
        completion = llm.complete(prompt, stop=stops)
        text = completion.text
        recorded = len(registry.results)
        decision = decide(
            text if parse_scope == "completion" else prompt + text,
            the_parser.parse,
            dispatch,
            registry,
        )
        step, outcome = decision.step, decision.outcome

        observation: str | None = None
        finished = False
        if isinstance(outcome, Executed):
            observation = _observation_of(outcome, registry, recorded, observation_limit)
            parse_errors_in_a_row = 0
        elif isinstance(outcome, Finished):
            end, answer, finished = "answer", outcome.answer, True
        elif isinstance(outcome, Crashed):
            end, finished = "crash", True
        elif _is_parse_error(outcome):
            observation = f"Invalid format: {outcome.message}"
            parse_errors_in_a_row += 1
            if parse_errors_in_a_row > max_retries:
                end, finished = "parse-errors", True
        else:
            assert isinstance(outcome, Rejected)
            observation = f"Refused [{outcome.reason}]: {outcome.message}"
            parse_errors_in_a_row = 0

        appended = ""
        if observation is not None:
            sep = "" if text.endswith("\n") else "\n"
            appended = f"{sep}{fmt.label('observation', n)} {observation}\n"

        cue_tokens, completion_tokens = count(cue), count(text)
        appended_tokens = count(appended) if appended else 0
        tokens = RequestTokens(
            prefix=prefix_tokens,
            frame=header_tokens + cue_tokens,
            history=history_tokens,
            observations=history_observation_tokens,
            completion=completion_tokens,
        )
        turns.append(
            Turn(
                index=index,
                cue=cue,
                prompt=prompt,
                completion=completion,
                step=step,
                outcome=outcome,
                observation=observation,
                appended=appended,
                tokens=tokens,
                fabricated=has_fabricated_observation(text, fmt),
            )
        )
        transcript = prompt + text + appended
        history_tokens += cue_tokens + completion_tokens + appended_tokens
        history_observation_tokens += appended_tokens
        if finished:
            break

    return Trace(
        question=question,
        format=fmt.name,
        prefix=prefix,
        header=header,
        turns=tuple(turns),
        end=end,
        answer=answer,
    )


def _observation_of(
    outcome: Executed, registry: ToolRegistry, recorded: int, limit: int | None
) -> str:
    """The fake tool's observation for an executed call, truncated to ``limit`` characters.

    Dispatchers execute through the registry, so the observation is the one recorded since
    ``recorded``; a custom dispatcher that decided on a call without executing it has it
    executed here.
    """
    new = registry.results[recorded:]
    if new and new[-1].observation is not None:
        observation = new[-1].observation
    else:
        observation = registry.execute(outcome.call)
    return observation if limit is None else observation[:limit]
