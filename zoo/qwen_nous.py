"""qwen-agent's default function-calling text format: ``<tool_call>`` tags.

``NousFnCallPrompt.postprocess_fncall_messages`` (``llm/fncall_prompts/nous_fncall_prompt.py``)
turns the completion into messages; the first ``function_call`` is the call that runs, its
arguments decoded with ``json5`` as ``BaseTool`` does. No call: the text is the answer.
"""

from __future__ import annotations

from typing import Any

import json5
from qwen_agent.llm.fncall_prompts.nous_fncall_prompt import NousFnCallPrompt
from qwen_agent.llm.schema import ASSISTANT, ContentItem, Message


def parse(completion: str) -> tuple[str, Any]:
    """The first call qwen-agent would run for ``completion``, or its answer text."""
    messages = NousFnCallPrompt().postprocess_fncall_messages(
        [Message(role=ASSISTANT, content=[ContentItem(text=completion)])])
    calls = [m.function_call for m in messages if m.function_call is not None]
    if not calls:
        return ("final", "".join(c.text for m in messages for c in m.content if c.text))
    if not calls[0].name:
        raise ValueError("<tool_call> without a usable name")
    try:
        args = json5.loads(calls[0].arguments)
    except Exception as exc:  # decoded inside BaseTool.call: Agent._call_tool catches all
        raise ValueError(f"tool-call arguments are not JSON: {exc}") from exc
    if not isinstance(args, dict):
        raise ValueError("tool-call arguments are not an object")
    return ("action", (calls[0].name, args))
