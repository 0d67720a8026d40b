"""camel-ai's function-tag reader: ``camel.agents._utils.extract_tool_call``.

It reads ``<function=NAME>{json}</function>``, the format ``generate_tool_prompt`` asks
for; no match, or arguments that are not JSON, and the text is a plain message.
"""

from __future__ import annotations

from typing import Any

from camel.agents._utils import extract_tool_call


def parse(completion: str) -> tuple[str, Any]:
    """The call camel reads from ``completion``, or the text as its answer."""
    call = extract_tool_call(completion)
    if call is None:
        return ("final", completion)
    args = call["arguments"]
    return ("action", (call["function"], args if isinstance(args, dict) else [args]))
