"""A parser of the XML invoke/parameter protocol as a user writes one (the test's target).

``<minimax:tool_call>`` blocks anywhere in the text, each ``<invoke name="...">`` in them
a call with its ``<parameter name="...">`` values, a line break at a value's edge dropped;
the first call runs, no call and the text after any think block is the answer. Written
here from the protocol, for the format fit and the guided tests.
"""

from __future__ import annotations

import re

_BLOCK = re.compile(r"<minimax:tool_call>(.*?)</minimax:tool_call>", re.S)
_INVOKE = re.compile(r'<invoke name="([^"]*)">(.*?)</invoke>', re.S)
_PARAM = re.compile(r'<parameter name="([^"]*)">(.*?)</parameter>', re.S)


def parse(completion: str) -> tuple[str, object]:
    """``("action", (tool, {name: value}))`` for the first call, else ``("final", text)``."""
    for block in _BLOCK.findall(completion):
        for tool, body in _INVOKE.findall(block):
            args = {name: value.strip("\n") for name, value in _PARAM.findall(body)}
            return ("action", (tool, args))
    return ("final", completion.rpartition("</think>")[2].strip())
