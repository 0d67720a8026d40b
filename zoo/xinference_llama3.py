"""Xinference's Llama 3 tool parser: ``Llama3ToolParser.extract_tool_calls``.

(``model/llm/tool_parsers/llama3_tool_parser.py``) The whole completion is one
``{"name", "parameters"}`` object, read with ``json.loads`` and, failing that,
``ast.literal_eval``; anything else is the content. Run through the chat layer
(:mod:`zoo._xinference`).
"""

from __future__ import annotations

from ._xinference import reader

parse = reader("llama3")
