"""The tools every zoo framework is given, built from reactfuzz's default registry.

Frameworks that look tools up or validate arguments need a tool set; building it from
:func:`reactfuzz.tools.default_registry` (names, descriptions, JSON Schemas, signatures)
keeps the oracle's registry and the framework's in agreement.
"""

from __future__ import annotations

from typing import Any

from reactfuzz.tools import ToolRegistry, default_registry

__all__ = ["REGISTRY", "definitions", "fresh_registry", "parameters"]

REGISTRY: ToolRegistry = default_registry()
"""The registry the fuzzer's oracle uses by default (``--tools default``)."""


def definitions() -> list[dict[str, Any]]:
    """Every tool as an OpenAI-style definition: name, description, JSON Schema parameters."""
    return [tool.definition() for tool in REGISTRY]


def parameters(name: str) -> dict[str, Any]:
    """The JSON Schema of one tool's arguments."""
    return REGISTRY[name].json_schema()


def fresh_registry() -> ToolRegistry:
    """A new default registry, so recorded calls of one parse do not leak into the next."""
    return default_registry()
