"""A zoo of real text-protocol parsers from agent frameworks on PyPI, as fuzz targets.

Each module wraps one framework's own parser in ``parse(completion: str)``: a one-line
call of the real code plus the conversion of its result into a shape reactfuzz's target
adapters read (``("action", (tool, args))``, ``("final", text)``; a refusal raises
``ValueError``). Every tool set a framework needs is built from reactfuzz's default
registry (:mod:`zoo._tools`), so the oracle and the framework know the same tools.
``python -m zoo.run`` fuzzes every one of them; ``docs/zoo.md`` holds the results.
Install the frameworks with ``pip install -e '.[zoo]'``.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["ZOO", "ZooParser"]


class ZooParser(NamedTuple):
    """One zoo parser: its module, the framework and its import name, the format it speaks."""

    module: str
    framework: str
    imports: str
    format: str | None
    """The reactfuzz format (built-in name or a file under ``zoo/formats``), ``None``: none fits."""
    waiting: str = ""
    """Why it cannot be fuzzed yet: the protocol family it waits for (empty: ready)."""


ZOO: tuple[ZooParser, ...] = (
    ZooParser("qwen_react", "qwen-agent", "qwen_agent", "qwen-react.toml"),
    ZooParser("qwen_nous", "qwen-agent", "qwen_agent", "tool-call"),
    ZooParser("lagent_react", "lagent", "lagent", "lagent-react.toml"),
    ZooParser("smolagents_json", "smolagents", "smolagents", "json-blob"),
    ZooParser("dspy_chat", "dspy", "dspy", "dspy-react"),
    ZooParser("griptape_actions", "griptape", "griptape", "griptape.toml"),
    ZooParser("camel_hermes", "camel-ai", "camel", "tool-call"),
    ZooParser("camel_function", "camel-ai", "camel", "function-tag"),
    ZooParser("swarms_json", "swarms", "swarms", "json-bare"),
    ZooParser("sglang_minimax", "sglang", "sglang", "xml-invoke"),
    ZooParser("sglang_qwen3_coder", "sglang", "sglang", "xml-function"),
    ZooParser("sglang_pythonic", "sglang", "sglang", "pythonic"),
    ZooParser("xinference_qwen", "xinference", "xinference", "tool-call"),
    ZooParser("xinference_minimax", "xinference", "xinference", "xml-invoke"),
    ZooParser("xinference_llama3", "xinference", "xinference", "json-bare"),
    ZooParser("vllm_hermes", "vllm", "vllm", "tool-call"),
    ZooParser("vllm_minimax", "vllm", "vllm", "xml-invoke"),
    ZooParser("vllm_llama3", "vllm", "vllm", "json-bare"),
)
"""Every zoo parser, in the order the docs list them."""
