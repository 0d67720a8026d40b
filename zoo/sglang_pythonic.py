"""SGLang's pythonic tool-call reader (Llama 3.2 / Llama 4): ``PythonicDetector.detect_and_parse``.

It finds ``[tool(key=value, ...)]`` with a regular expression, parses the match with
``ast`` and reads each keyword's value as a literal; calls of tools the request does not
declare are skipped. The server runs the first call of the result; no call, and the
normal text is the message.
"""

from __future__ import annotations

import json
from typing import Any

from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.pythonic_detector import PythonicDetector

from ._tools import definitions

TOOLS = [Tool.model_validate({"type": "function", "function": d}) for d in definitions()]


def parse(completion: str) -> tuple[str, Any]:
    """The first call SGLang would return for ``completion``, or its text as the answer."""
    result = PythonicDetector().detect_and_parse(completion, TOOLS)
    if not result.calls:
        return ("final", result.normal_text.strip())
    call = result.calls[0]
    return ("action", (call.name, json.loads(call.parameters)))
