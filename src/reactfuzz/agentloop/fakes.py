"""The fakes a loop is driven by: a model that plays a script, and tools that record calls.

The model's provider semantics are :class:`~reactfuzz.llm.FakeLLM`'s, the one fake LLM:
it plays the script's turns as its source.

The model is also an OpenAI-shaped client (``llm.chat.completions.create``,
``llm.completions.create``; :mod:`reactfuzz.agentloop.client`), so a loop written against
the SDK takes it in place of its client.

:class:`ScriptedModel` is ``llm(prompt, stop=None) -> str``: each call plays the script's
next turn with a provider's semantics (the text is cut at the earliest stop sequence the loop
sends, then at the turn's length limit) and returns a :class:`ModelText`, a ``str`` that also
says why it ended (``finish_reason``). :class:`FakeTools` maps each tool name to a callable
that records its call and returns a unique observation; it runs nothing. A model asked more
than ``max_calls`` times raises :class:`StepBoundExceeded`, which is not an ``Exception``, so
a loop's ``except Exception`` cannot swallow it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..llm import FakeLLM, FinishReason
from ..model import Call
from ..tools import ToolRegistry
from .script import Script

__all__ = ["FakeTools", "ModelCall", "ModelText", "ScriptedModel", "StepBoundExceeded",
           "ToolCall"]


class StepBoundExceeded(BaseException):
    """The loop asked the model more than the run's bound: it would not have stopped."""


class ModelText(str):
    """A completion as the loop receives it: the text, and ``finish_reason`` (``"stop"``,
    ``"length"`` or ``"end"``) as a provider reports it."""

    finish_reason: FinishReason

    def __new__(cls, text: str, finish_reason: FinishReason) -> ModelText:
        obj = super().__new__(cls, text)
        obj.finish_reason = finish_reason
        return obj


@dataclass(frozen=True)
class ModelCall:
    """One call of the model: what the loop sent, what came back and which turn it was."""

    prompt: str
    stop: tuple[str, ...]
    text: str
    finish_reason: FinishReason
    turn: int


@dataclass(frozen=True)
class ToolCall:
    """One call of a fake tool: after which model call (``turn``), what it got, what it gave."""

    tool: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    turn: int
    observation: str

    def as_call(self, registry: ToolRegistry) -> Call:
        """The call as the oracle reads it: positional values bound to the tool's parameters
        in declared order, then the keywords."""
        params = list(registry[self.tool].names) if self.tool in registry else []
        names = [*params[:len(self.args)], *self.kwargs]
        values = (*self.args, *self.kwargs.values())
        if len(names) != len(values) or len(set(names)) != len(names):
            return Call(self.tool, values)  # more values than parameters: as they came
        return Call(self.tool, values, tuple(names))


@dataclass
class ScriptedModel:
    """``llm(prompt, stop=None) -> str`` playing ``script``; see the module docstring."""

    script: Script
    max_calls: int = 30
    calls: list[ModelCall] = field(default_factory=list)
    # the provider's semantics (stop, then length) are the fake LLM's own
    _llm: FakeLLM = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._llm = FakeLLM(lambda request: self.script.turn(request.turn).text)

    @property
    def chat(self) -> Any:
        """``chat.completions.create(...)`` as the OpenAI SDK's client has it."""
        from .client import Chat

        return Chat(self)

    @property
    def completions(self) -> Any:
        """``completions.create(...)`` as the OpenAI SDK's client has it."""
        from .client import Completions

        return Completions(self)

    def __call__(self, prompt: Any, stop: Sequence[str] | str | None = None,
                 **options: Any) -> ModelText:
        index = len(self.calls)
        if index >= self.max_calls:
            raise StepBoundExceeded(f"the loop asked the model {index + 1} times")
        stops = (stop,) if isinstance(stop, str) else tuple(s for s in (stop or ()) if s)
        done = self._llm.complete(str(prompt), stop=stops, max_chars=options.get(
            "max_chars", self.script.turn(index).max_chars))
        self.calls.append(ModelCall(str(prompt), stops, done.text, done.finish_reason, index))
        return ModelText(done.text, done.finish_reason)


class FakeTools(dict[str, Any]):
    """Each tool of the registry as a callable that records its call (:class:`ToolCall`) and
    returns a unique observation; it runs nothing."""

    def __init__(self, registry: ToolRegistry, model: ScriptedModel) -> None:
        super().__init__()
        self.calls: list[ToolCall] = []
        self._model = model
        for name in registry.names():
            self[name] = self._tool(name)

    def _tool(self, name: str) -> Any:
        def tool(*args: Any, **kwargs: Any) -> str:
            n = len(self.calls) + 1
            observation = f"{name} result #{n}: ok-{n:03d}-zq"
            self.calls.append(ToolCall(name, tuple(args), dict(kwargs),
                                       len(self._model.calls) - 1, observation))
            return observation

        tool.__name__ = name
        return tool
