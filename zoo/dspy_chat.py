"""dspy's chat adapter over the ReAct step signature: ``ChatAdapter.parse``.

``dspy.ReAct`` (``predict/react.py``) asks for ``next_thought``, ``next_tool_name`` (a
``Literal`` of the tool names and ``finish``) and ``next_tool_args``, written as
``[[ ## field ## ]]`` sections. ``finish`` ends the loop: dspy then asks the model for the
answer in a separate call, so the step's answer is its thought. The tools are the default
registry's, as plain functions with their real signatures.
"""

from __future__ import annotations

from typing import Any

import dspy

from ._tools import REGISTRY

_SIGNATURE = dspy.ReAct(
    "question -> answer", tools=[REGISTRY.python_callable(t.name) for t in REGISTRY]
).react.signature
_ADAPTER = dspy.ChatAdapter()


def parse(completion: str) -> tuple[str, Any]:
    """The step dspy's ReAct module takes for ``completion`` (AdapterParseError is a ValueError)."""
    fields = _ADAPTER.parse(_SIGNATURE, completion)
    if fields["next_tool_name"] == "finish":
        return ("final", fields["next_thought"])
    return ("action", (fields["next_tool_name"], fields["next_tool_args"]))
