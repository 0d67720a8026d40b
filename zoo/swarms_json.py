"""swarms' JSON tool runner: ``parse_and_execute_json`` (``tools/tool_parse_exec.py``).

It parses and runs in one step, so it is given recording stand-ins of the default
registry's tools (real signatures, Python's own binding errors); the first recorded call
is what would run. Bad JSON is an ``{"error": ...}`` result; an unknown tool or a call that
fails three times runs nothing. swarms' tool layer has no final answer: as the
``json-bare`` format says, text that ``json.loads`` refuses and that opens no JSON value
(no line opens ``{`` or ``[``) is a message for the user, the final answer.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from ._tools import fresh_registry

# importing swarms creates its workspace folder (default: ./agent_workspace) and logs errors
os.environ.setdefault("WORKSPACE_DIR", os.path.join(tempfile.gettempdir(), "zoo-swarms"))
from loguru import logger
from swarms.tools.tool_parse_exec import parse_and_execute_json

logger.disable("swarms")


def parse(completion: str) -> tuple[str, Any]:
    """The first call swarms would run for ``completion``."""
    registry = fresh_registry()
    out = parse_and_execute_json([registry.python_callable(t.name) for t in registry],
                                 completion, verbose=False)  # ValueError on empty input
    ran = [r for r in registry.results if r.error is None]
    if ran:
        return ("action", (ran[0].call.tool, dict(ran[0].keywords) or list(ran[0].positional)))
    if isinstance(out, dict) and "error" in out:
        text = completion.strip()
        opens_json = any(line.lstrip(" \t").startswith(("{", "[")) for line in text.split("\n"))
        if out["error"].startswith("Invalid JSON format") and not opens_json:
            return ("final", text)
        raise ValueError(out["error"])
    raise ValueError(f"no call ran: {json.loads(out)['summary']}")
