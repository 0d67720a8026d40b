"""The fake model in the OpenAI SDK's shapes, so a loop written against a client runs as is.

``model.chat.completions.create(messages=..., stop=..., stream=...)`` and
``model.completions.create(prompt=..., stop=..., stream=...)`` answer as the SDK's objects
do (``choices[0].message.content`` / ``choices[0].text``, ``finish_reason``, ``usage``; a
stream of chunks with ``choices[0].delta.content``). A chat request's prompt, as the checks
read it, is its messages' contents one after another, each on its own lines.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..llm import split_chunks
from ..loop import approx_tokens

if TYPE_CHECKING:
    from .fakes import ScriptedModel

__all__ = ["ChatCompletions", "Completions", "messages_prompt"]


@dataclass
class _Message:
    content: str
    role: str = "assistant"
    tool_calls: None = None


@dataclass
class _Delta:
    content: str | None = None
    role: str | None = None


@dataclass
class _Choice:
    index: int = 0
    finish_reason: str | None = None
    message: _Message | None = None
    text: str | None = None
    delta: _Delta | None = None


@dataclass
class _Usage:
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


@dataclass
class _Response:
    choices: list[_Choice]
    usage: _Usage | None = None
    model: str = "reactfuzz-fake"
    id: str = "reactfuzz"
    object: str = "chat.completion"
    created: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def _content(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # content parts
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in value)
    return "" if value is None else str(value)


def messages_prompt(messages: Sequence[Any]) -> str:
    """A chat request's messages as one prompt text: each message's content, in order."""
    parts = []
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else getattr(m, "content", None)
        parts.append(_content(content))
    return "\n".join(parts)


def _finish(reason: str) -> str:
    return "stop" if reason == "end" else reason


def _usage(prompt: str, text: str) -> _Usage:
    p, c = approx_tokens(prompt), approx_tokens(text)
    return _Usage(p, c, p + c)


class ChatCompletions:
    """``chat.completions`` of the fake client."""

    def __init__(self, model: ScriptedModel) -> None:
        self._model = model

    def create(self, *, messages: Sequence[Any], stop: Sequence[str] | str | None = None,
               stream: bool = False, **options: Any) -> Any:
        prompt = messages_prompt(messages)
        text = self._model(prompt, stop=stop)
        reason = _finish(text.finish_reason)
        if stream:
            return _chunks(str(text), reason, chat=True)
        return _Response([_Choice(finish_reason=reason, message=_Message(str(text)))],
                         _usage(prompt, text))


class Completions:
    """``completions`` (the legacy text endpoint) of the fake client."""

    def __init__(self, model: ScriptedModel) -> None:
        self._model = model

    def create(self, *, prompt: str, stop: Sequence[str] | str | None = None,
               stream: bool = False, **options: Any) -> Any:
        text = self._model(prompt, stop=stop)
        reason = _finish(text.finish_reason)
        if stream:
            return _chunks(str(text), reason, chat=False)
        return _Response([_Choice(finish_reason=reason, text=str(text))], _usage(prompt, text),
                         object="text_completion")


def _chunks(text: str, reason: str, *, chat: bool, size: int = 7) -> Iterator[_Response]:
    pieces = split_chunks(text, (size,)) or [""]
    for i, piece in enumerate(pieces):
        last = i == len(pieces) - 1
        choice = (_Choice(delta=_Delta(piece, "assistant" if i == 0 else None),
                          finish_reason=reason if last else None) if chat else
                  _Choice(text=piece, finish_reason=reason if last else None))
        yield _Response([choice], object="chat.completion.chunk" if chat else "text_completion")


class Chat:
    """``chat`` of the fake client: holds ``completions``."""

    def __init__(self, model: ScriptedModel) -> None:
        self.completions = ChatCompletions(model)
