"""SGLang's Qwen3-Coder tool-call reader: ``Qwen3CoderDetector.detect_and_parse``.

It reads ``<tool_call><function=NAME><parameter=KEY>value</parameter></function>
</tool_call>``, values typed by the tools' JSON Schemas. The server runs the first call
of the result; no call, and the normal text (after any think block) is the answer.
"""

from __future__ import annotations

import json
from typing import Any

from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.qwen3_coder_detector import Qwen3CoderDetector

from ._tools import definitions

TOOLS = [Tool.model_validate({"type": "function", "function": d}) for d in definitions()]


def parse(completion: str) -> tuple[str, Any]:
    """The first call SGLang would return for ``completion``, or its text as the answer."""
    result = Qwen3CoderDetector().detect_and_parse(completion, TOOLS)
    if not result.calls:
        return ("final", result.normal_text.rpartition("</think>")[2].strip())
    call = result.calls[0]
    return ("action", (call.name, json.loads(call.parameters)))
