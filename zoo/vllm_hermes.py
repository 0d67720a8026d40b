"""vLLM's Hermes tool parser (``--tool-call-parser hermes``, the one its docs name for Qwen2.5).

(``vllm/tool_parsers/hermes_tool_parser.py``) It finds ``<tool_call>`` blocks with
``<tool_call>(.*?)</tool_call>|<tool_call>(.*)`` and reads each one's JSON
``{"name", "arguments"}``; the text before the first block is the content. Run through the
server's composed parser (:mod:`zoo._vllm`).
"""

from __future__ import annotations

from ._vllm import reader

parse = reader("hermes", ["<tool_call>", "</tool_call>"])
