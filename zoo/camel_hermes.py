"""camel-ai's Hermes reader: ``HermesFunctionFormatter.extract_tool_calls``.

(``messages/conversion/sharegpt/hermes/hermes_function_formatter.py``) It reads
``<tool_call>{"name", "arguments"}</tool_call>`` blocks; a blob it cannot decode is
printed and skipped, so no call means the text is a plain message (the answer).
"""

from __future__ import annotations

from typing import Any

from camel.messages.conversion.sharegpt.hermes.hermes_function_formatter import (
    HermesFunctionFormatter,
)

_FORMATTER = HermesFunctionFormatter()


def parse(completion: str) -> tuple[str, Any]:
    """The first call camel reads from ``completion``, or the text as its answer."""
    calls = _FORMATTER.extract_tool_calls(completion)
    if not calls:
        return ("final", completion)
    return ("action", (calls[0].name, dict(calls[0].arguments)))
