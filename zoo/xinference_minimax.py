"""Xinference's MiniMax tool parser: ``MiniMaxToolParser.extract_tool_calls``.

(``model/llm/tool_parsers/minimax_tool_parser.py``) It reads ``<minimax:tool_call>``
blocks of ``<invoke name="...">`` elements holding ``<parameter name="...">`` values,
typed by the request's tools. Run through the chat layer (:mod:`zoo._xinference`).
"""

from __future__ import annotations

from ._xinference import reader

parse = reader("minimax")
