"""SGLang's MiniMax-M2 tool-call reader: ``MinimaxM2Detector.detect_and_parse``.

It reads ``<minimax:tool_call>`` blocks holding ``<invoke name="...">`` elements with
``<parameter name="...">`` values, typed by the tools' JSON Schemas. The server runs the
first call of the result; no call, and the normal text is the message (SGLang's reasoning
parser, not this one, takes a think block out, so the text after it is the answer).
"""

from __future__ import annotations

import json
from typing import Any

from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.minimax_m2 import MinimaxM2Detector

from ._tools import definitions

TOOLS = [Tool.model_validate({"type": "function", "function": d}) for d in definitions()]


def parse(completion: str) -> tuple[str, Any]:
    """The first call SGLang would return for ``completion``, or its text as the answer."""
    result = MinimaxM2Detector().detect_and_parse(completion, TOOLS)
    if not result.calls:
        return ("final", result.normal_text.rpartition("</think>")[2].strip())
    call = result.calls[0]
    return ("action", (call.name, json.loads(call.parameters)))
