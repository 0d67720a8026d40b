"""griptape's ReAct prompt parser: ``ActionsSubtask.__init_from_prompt``.

(``tasks/actions_subtask.py``) It runs when a subtask is attached to a ``PromptTask``
(``use_native_tools=False``). The tool is one griptape ``BaseTool`` named ``Tools`` whose
activities are the default registry's tools, each with a ``schema.Schema`` of its
parameters; an action names the activity in ``path``. griptape records every error as an
``ErrorArtifact`` and never raises.
"""

from __future__ import annotations

from typing import Any

from attrs import define
from griptape.artifacts import ErrorArtifact, TextArtifact
from griptape.drivers.prompt.dummy import DummyPromptDriver
from griptape.tasks import ActionsSubtask, PromptTask
from griptape.tools import BaseTool
from griptape.utils.decorators import activity
from schema import Literal, Optional, Or, Schema

from ._tools import REGISTRY

_TYPES: dict[str, Any] = {"string": str, "number": Or(int, float), "integer": int,
                          "boolean": bool}


def _activity(tool: Any) -> Any:
    schema = tool.json_schema()
    required = set(schema.get("required", []))
    keys = {(Literal(n) if n in required else Optional(Literal(n))):
            _TYPES.get(s.get("type"), object) for n, s in schema["properties"].items()}

    def run(self: Any, **kwargs: Any) -> TextArtifact:
        return TextArtifact("ok")

    run.__name__ = tool.name
    return activity(config={"description": tool.description, "schema": Schema(keys)})(run)


Tools = define(type("Tools", (BaseTool,), {t.name: _activity(t) for t in REGISTRY}))


def parse(completion: str) -> tuple[str, Any]:
    """The first action griptape would run for ``completion``, or its answer."""
    subtask = ActionsSubtask(TextArtifact(completion, meta={"is_react_prompt": True}))
    PromptTask(tools=[Tools()], prompt_driver=DummyPromptDriver()).add_subtask(subtask)
    if isinstance(subtask.output, ErrorArtifact):
        raise ValueError(subtask.output.value)
    if not subtask.actions:
        return ("final", subtask.output.value)
    failed = [a.output.value for a in subtask.actions if isinstance(a.output, ErrorArtifact)]
    if failed:
        raise ValueError(failed[0])
    return ("action", (subtask.actions[0].path, dict(subtask.actions[0].input or {})))
