"""lagent's ReAct agent loop: ``ReAct.chat`` (``agents/react.py``), run unchanged.

The model is a :class:`~lagent.llms.base_api.BaseAPIModel` whose ``chat`` does what
``GPTAPI.chat`` (``llms/openai.py``) does up to the request: it merges its ``gen_params``
with the call's, maps the messages through GPTAPI's default meta template, and sends their
contents, one per line, to the fake model with the ``stop_words`` lagent ends up with
(``None``: ``ReAct.chat`` passes none and the LLM classes default to none). Each tool of
reactfuzz's default registry is a ``BaseAction`` described as ``zoo/lagent_react.py``
describes it; its ``run`` gets the arguments ``JsonParser.parse_inputs`` read and calls the
fake tool with them as keywords. The executor keeps its default finish / no-action /
invalid-action, the protocol its defaults, the agent its default ``max_turn``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lagent.actions import ActionExecutor
from lagent.actions.base_action import BaseAction
from lagent.agents.react import ReAct
from lagent.llms.base_api import BaseAPIModel

from .._tools import REGISTRY

_TYPES = {"string": "STRING", "number": "NUMBER", "integer": "NUMBER", "boolean": "BOOLEAN"}
_GPT_META = [dict(role="system", api_role="system"), dict(role="user", api_role="user"),
             dict(role="assistant", api_role="assistant"),
             dict(role="environment", api_role="system")]  # GPTAPI's default


class FakeLLM(BaseAPIModel):
    """A lagent API model that asks reactfuzz's fake model."""

    def __init__(self, llm: Callable[..., str]) -> None:
        super().__init__(model_type="reactfuzz-fake", meta_template=_GPT_META)
        self._fake = llm

    def chat(self, inputs: list[dict[str, Any]], **gen_params: Any) -> str:
        params = {**self.gen_params, **gen_params}  # as GPTAPI.chat merges them
        messages = self.template_parser._prompt2api(inputs)
        prompt = "\n".join(m.get("content", "") for m in messages)
        return str(self._fake(prompt, stop=params.get("stop_words")))


class FakeAction(BaseAction):
    """A tool of reactfuzz's registry; runs its fake."""

    def __init__(self, tool: Any, fake: Callable[..., str]) -> None:
        schema = tool.json_schema()
        params = [{"name": name, "type": _TYPES.get(spec.get("type", "string"), "STRING"),
                   "description": name} for name, spec in schema["properties"].items()]
        super().__init__(description={"name": tool.name, "description": tool.description,
                                      "parameters": params,
                                      "required": schema.get("required", [])})
        self._fake = fake

    def run(self, **kwargs: Any) -> str:
        """Call the fake tool with the arguments ``JsonParser`` read."""
        return self._fake(**kwargs)


def run(llm: Callable[..., str], tools: dict[str, Callable[..., str]], task: str) -> str:
    """Drive lagent's ``ReAct.chat`` on ``task``; return the response it gives the user."""
    executor = ActionExecutor(actions=[FakeAction(tool, tools[tool.name])
                                       for tool in REGISTRY if tool.name in tools])
    agent = ReAct(llm=FakeLLM(llm), action_executor=executor)
    return agent.chat(task).response
