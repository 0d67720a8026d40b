"""qwen-agent's ReAct agent loop: ``ReActChat._run`` (``agents/react_chat.py``), unchanged.

The model is a ``BaseFnCallModel`` (the base of qwen-agent's OpenAI backend, ``TextChatAtOAI``)
whose ``_chat_stream`` / ``_chat_no_stream`` join the messages' texts into one prompt and ask
the fake model with the stop words qwen-agent put in ``generate_cfg`` (ReActChat sends
``['Observation:', 'Observation:\\n']``), answering as ``TextChatAtOAI`` does: the full text so
far on each streamed chunk, no message while it is empty. No cache, no retries. Each tool of
the registry is a ``BaseTool`` whose ``call`` decodes the Action Input with the framework's
``_verify_json_format_args`` (json, then json5; jsonschema) and calls the fake tool with
keywords. The answer is the content of the agent's last message, the whole trace as qwen-agent
shows it to its user.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from qwen_agent.agents import ReActChat
from qwen_agent.llm.function_calling import BaseFnCallModel
from qwen_agent.llm.schema import ASSISTANT, USER, Message
from qwen_agent.tools import BaseTool

from zoo._tools import REGISTRY, parameters

__all__ = ["run"]

_CHUNK = 7  # characters per streamed chunk, as the fake OpenAI client streams


class FakeChatModel(BaseFnCallModel):
    """qwen-agent's chat model interface over ``llm(prompt, stop=...)``."""

    def __init__(self, llm: Callable[..., str]) -> None:
        super().__init__({"model": "reactfuzz-fake",
                          "generate_cfg": {"max_retries": 0, "use_raw_api": False}})
        self._llm = llm

    def _ask(self, messages: list[Message], generate_cfg: dict[str, Any]) -> str:
        prompt = "\n".join(m.content if isinstance(m.content, str) else "" for m in messages)
        if "stop" in generate_cfg:
            return str(self._llm(prompt, stop=generate_cfg["stop"]))
        return str(self._llm(prompt))

    def _chat_stream(self, messages: list[Message], delta_stream: bool,
                     generate_cfg: dict[str, Any]) -> Iterator[list[Message]]:
        text = self._ask(messages, generate_cfg)
        for end in range(_CHUNK, len(text) + _CHUNK, _CHUNK) if text else [0]:
            piece = text[end - _CHUNK:end] if delta_stream else text[:end]
            yield [Message(role=ASSISTANT, content=piece)] if piece else []

    def _chat_no_stream(self, messages: list[Message],
                        generate_cfg: dict[str, Any]) -> list[Message]:
        return [Message(role=ASSISTANT, content=self._ask(messages, generate_cfg))]


class FakeTool(BaseTool):
    """One registry tool as a qwen-agent tool over the fake ``tool(**args)``."""

    def __init__(self, name: str, tool: Callable[..., str]) -> None:
        schema = parameters(name)
        self.name, self.description, self._tool = name, REGISTRY[name].description, tool
        # qwen-agent's is_tool_schema accepts only {type, properties, required}: the tool is
        # built with that much, then validates with the registry's whole schema
        self.parameters = {"type": "object", "properties": schema.get("properties", {}),
                           "required": schema.get("required", [])}
        super().__init__()
        self.parameters = schema

    def call(self, params: str | dict[str, Any], **kwargs: Any) -> str:
        args = self._verify_json_format_args(params)
        return self._tool(**args)


def run(llm: Callable[..., str], tools: dict[str, Callable[..., str]], task: str) -> str:
    """Run qwen-agent's ``ReActChat`` on ``task`` and return its last message's content."""
    agent = ReActChat(function_list=[FakeTool(n, f) for n, f in tools.items()],
                      llm=FakeChatModel(llm))
    last: list[Message] = []
    for response in agent.run([Message(role=USER, content=task)]):
        last = response
    content = last[-1].content if last else ""
    return content if isinstance(content, str) else str(content)
