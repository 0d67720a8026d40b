"""Xinference's Qwen tool parser: ``QwenToolParser.extract_tool_calls``.

(``model/llm/tool_parsers/qwen_tool_parser.py``) It splits the text into think blocks,
``<tool_call>`` blocks and plain text with one regex, and reads each block's JSON
``{"name", "arguments"}`` (or Qwen3.5's ``<function=...>`` XML inside it); a block it
cannot read goes back into the content. Run through the chat layer (:mod:`zoo._xinference`).
"""

from __future__ import annotations

from ._xinference import reader

parse = reader("qwen")
