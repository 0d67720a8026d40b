"""How Xinference's chat layer turns a completion into a message, for the xinference_* parsers.

Xinference runs the model's tool parser inside ``ChatModelMixin._post_process_completion``
(``model/llm/utils.py``): the parser's calls become the message's ``tool_calls`` (their
arguments written with ``json.dumps``), and the text it gives back is the content. The
adapters run that method itself, with the default registry's tools as the request's tools
and no reasoning parser; an exception there is the server's error response.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from xinference.model.llm.tool_parsers import TOOL_PARSERS
from xinference.model.llm.utils import ChatModelMixin

from ._tools import definitions

# the parsers log every completion they cannot read: the fuzzer writes thousands
logging.getLogger("xinference").setLevel(logging.CRITICAL)

TOOLS = [{"type": "function", "function": d} for d in definitions()]


class _Chat(ChatModelMixin):
    """The mixin as a served model holds it: one tool parser, no reasoning parser."""

    def __init__(self, parser: str) -> None:
        self.tool_parser = TOOL_PARSERS[parser]()
        self.reasoning_parser = None


def reader(parser: str) -> Any:
    """``parse(completion)`` for the model family whose tool parser is ``parser``."""
    chat = _Chat(parser)

    def parse(completion: str) -> tuple[str, Any]:
        out = chat._post_process_completion(
            parser, "zoo", {"choices": [{"text": completion, "finish_reason": "stop"}]},
            TOOLS)
        message = out["choices"][0]["message"]
        if not message["tool_calls"]:  # the content; a think block is the reasoning's
            return ("final", message["content"].rpartition("</think>")[2].strip())
        call = message["tool_calls"][0]["function"]  # the server runs the first call
        return ("action", (call["name"], json.loads(call["arguments"])))

    parse.__doc__ = f"The first call Xinference's {parser!r} tool parser returns, or the text."
    return parse
