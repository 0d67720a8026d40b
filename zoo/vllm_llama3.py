"""vLLM's Llama 3 JSON tool parser (``--tool-call-parser llama3_json``).

(``vllm/parser/llama_json.py``, on the parser engine every 0.34 engine parser shares) The
completion, after an optional ``<|python_tag|>``, is one or more JSON objects ``{"name",
"parameters"}`` read with ``raw_decode``; text that is not one is the content. Run through
the server's composed parser (:mod:`zoo._vllm`).
"""

from __future__ import annotations

from ._vllm import reader

parse = reader("llama3_json", ["<|python_tag|>"])
