"""dspy's own agent loop: ``dspy.ReAct("question -> answer", tools)`` with its defaults.

The module runs unchanged (``max_iters=20``, then its ``extract`` step, a
``ChainOfThought`` that asks the model for the answer once more) under
``dspy.context(lm=..., adapter=dspy.ChatAdapter())``. The adapter keeps its default
``use_json_adapter_fallback=True``: a completion the chat adapter cannot parse is asked
again through ``JSONAdapter``, from the same fake model. The model is a legacy
``dspy.BaseLM`` whose ``forward`` sends dspy's messages to the fake's
``chat.completions.create`` with exactly the stop dspy passes (it passes none), uncached,
and hands back the response as the OpenAI-shaped dict dspy reads (``usage`` must be a
mapping). Each registry tool is a ``dspy.Tool`` over a plain function with the tool's
real name, description and signature (Python's ``TypeError`` for a missing or unknown
argument), which calls the fake tool with the keywords dspy gives it. The answer is the
prediction's ``answer``, as dspy returns it.
"""

from __future__ import annotations

from typing import Any

import dspy

from .._tools import REGISTRY


class FakeLM(dspy.BaseLM):
    """A chat LM whose every call is one call of reactfuzz's fake model."""

    def __init__(self, llm: Any) -> None:
        super().__init__(model="reactfuzz/fake", model_type="chat", cache=False, num_retries=0)
        self.llm = llm

    def forward(self, prompt: str | None = None, messages: list[dict[str, Any]] | None = None,
                **kwargs: Any) -> dict[str, Any]:
        messages = messages or [{"role": "user", "content": prompt or ""}]
        r = self.llm.chat.completions.create(messages=messages, stop=kwargs.get("stop"))
        u = r.usage
        return {
            "id": r.id, "object": r.object, "model": r.model,
            "choices": [{"index": c.index, "finish_reason": c.finish_reason,
                         "message": {"role": c.message.role, "content": c.message.content}}
                        for c in r.choices],
            "usage": {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
                      "total_tokens": u.total_tokens} if u is not None else {},
        }


def _tool(name: str, fake: Any) -> dspy.Tool:
    """``name`` as a Python function with the registry's signature, calling ``fake``."""
    spec = REGISTRY[name]
    signature = spec.signature()

    def function(**kwargs: Any) -> str:
        try:  # what Python refuses when it calls the real function, with Python's message
            signature.bind(**kwargs)
        except TypeError as exc:
            raise TypeError(f"{name}() {exc}") from None
        return str(fake(**kwargs))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = spec.description
    function.__signature__ = signature  # type: ignore[attr-defined]
    function.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    function.__annotations__["return"] = str
    return dspy.Tool(function, name=name, desc=spec.description)


def agent(tools: dict[str, Any]) -> dspy.ReAct:
    """dspy's ReAct module over the registry's tools, each calling ``tools[name]``."""
    return dspy.ReAct("question -> answer", tools=[_tool(t.name, tools[t.name]) for t in REGISTRY
                                                   if t.name in tools])


def run(llm: Any, tools: dict[str, Any], task: str) -> str:
    """Drive ``dspy.ReAct`` with the fake model and tools; return its ``answer``."""
    with dspy.context(lm=FakeLM(llm), adapter=dspy.ChatAdapter()):
        prediction = agent(tools)(question=task)
    return prediction.answer


__all__ = ["FakeLM", "agent", "run"]
