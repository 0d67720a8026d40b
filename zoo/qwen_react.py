"""qwen-agent's ReAct chat parser: ``ReActChat._detect_tool`` (``agents/react_chat.py``).

Arguments are decoded by ``qwen_agent.utils.utils.json_loads`` (json, then json5, a
fence stripped), the decoder its ``BaseTool`` uses. With no action the whole completion is
the answer the user sees: qwen-agent does not look for ``Final Answer:``.
"""

from __future__ import annotations

from typing import Any

from qwen_agent.agents.react_chat import ReActChat
from qwen_agent.utils.utils import json_loads


def parse(completion: str) -> tuple[str, Any]:
    """The step qwen-agent's ReAct loop takes for ``completion``."""
    has_action, name, raw_args, _thought = ReActChat._detect_tool(None, completion)
    if not has_action:
        return ("final", completion)
    try:
        args = json_loads(raw_args)
    except Exception as exc:  # decoded inside BaseTool.call: Agent._call_tool catches all
        raise ValueError(f"Parameters must be formatted as valid JSON: {exc}") from exc
    if not isinstance(args, dict):  # BaseTool's jsonschema check wants an object
        raise ValueError(f"Action Input decodes to {type(args).__name__}, not an object")
    return ("action", (name, args))
