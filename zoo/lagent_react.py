"""lagent's ReAct protocol: ``ReActProtocol.parse`` (``agents/react.py``).

Arguments are read by each action's own ``JsonParser.parse_inputs``
(``actions/parser.py``), which checks unknown and missing keys against the declared
parameters; the actions are described from reactfuzz's default registry.
"""

from __future__ import annotations

from typing import Any

from lagent.actions import ActionExecutor
from lagent.actions.base_action import BaseAction
from lagent.agents.react import ReActProtocol

from ._tools import REGISTRY

_TYPES = {"string": "STRING", "number": "NUMBER", "integer": "NUMBER", "boolean": "BOOLEAN"}


def _action(tool: Any) -> BaseAction:
    schema = tool.json_schema()
    params = [{"name": name, "type": _TYPES.get(spec.get("type", "string"), "STRING"),
               "description": name} for name, spec in schema["properties"].items()]
    return BaseAction(description={"name": tool.name, "description": tool.description,
                                   "parameters": params, "required": schema.get("required", [])})


_PROTOCOL = ReActProtocol()
_EXECUTOR = ActionExecutor(actions=[_action(tool) for tool in REGISTRY])


def parse(completion: str) -> tuple[str, Any]:
    """The step lagent's ReAct agent takes for ``completion``."""
    _thought, name, raw = _PROTOCOL.parse(completion, _EXECUTOR)
    if name == _EXECUTOR.finish_action.name:
        return ("final", raw)
    if name == _EXECUTOR.no_action.name:  # lagent answers "please follow the format"
        raise ValueError("no Action/Action Input found (NoAction)")
    action = _EXECUTOR.actions.get(name.split(".")[0])
    if action is None:  # the executor reports an invalid action; the name got through
        return ("action", (name, raw))
    return ("action", (name, action._parser.parse_inputs(raw, "run")))
