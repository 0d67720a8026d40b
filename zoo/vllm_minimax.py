"""vLLM's MiniMax-M2 tool parser (``--tool-call-parser minimax_m2``).

(``vllm/parser/minimax_m2.py``, on the parser engine every 0.34 engine parser shares) It
reads ``<minimax:tool_call>`` blocks holding ``<invoke name="...">`` elements with
``<parameter name="...">`` values, typed by the request's JSON Schemas. Run through the
server's composed parser (:mod:`zoo._vllm`).
"""

from __future__ import annotations

from ._vllm import reader

parse = reader("minimax_m2", ["<minimax:tool_call>", "</minimax:tool_call>"])
