"""smolagents' text tool-call reader: ``Model.parse_tool_calls`` (``models.py``).

The ToolCallingAgent uses it when the provider returned no native tool calls; it finds
one JSON blob ``{"name", "arguments"}`` in the text (``utils.parse_json_blob``). The agent
turns any exception here into ``AgentParsingError``, so every exception is a refusal. The
answer is the ``final_answer`` tool's ``answer`` argument.
"""

from __future__ import annotations

from typing import Any

from smolagents.models import ChatMessage, MessageRole, Model

_MODEL = Model()  # the base class: no model id, no network


def parse(completion: str) -> tuple[str, Any]:
    """The first call smolagents would run for ``completion``, or its final answer."""
    try:
        message = _MODEL.parse_tool_calls(
            ChatMessage(role=MessageRole.ASSISTANT, content=completion))
    except Exception as exc:  # AgentParsingError in the agent
        raise ValueError(str(exc)) from exc
    call = message.tool_calls[0].function
    args = call.arguments if call.arguments is not None else {}
    if call.name == "final_answer":
        if isinstance(args, dict):
            if "answer" not in args:  # FinalAnswerTool(answer) fails: AgentToolExecutionError
                raise ValueError("final_answer without an 'answer' argument")
            return ("final", args["answer"])
        return ("final", args)
    # execute_tool_call passes anything but a dict as the one positional argument
    return ("action", (call.name, args if isinstance(args, dict) else [args]))
