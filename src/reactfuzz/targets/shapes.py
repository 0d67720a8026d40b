"""Result shapes: the keys and attributes by which a framework's result object is read.

Agent frameworks hand back their parser's verdict in objects and dicts of their own.
:func:`~reactfuzz.targets.adapt` recognises them by *shape*, not by class, from the
tables here, so supporting one more framework is one more row:

* :data:`REFUSAL_KEYS` -- a non-empty value means the parser said no;
  :data:`REFUSAL_KIND_KEYS` -- beside it (or on the error it holds, or on a raised
  refusal), a refusal kind (``missing-arg``, ...) says why; without one the reason is
  unknown;
* :data:`CALL_SHAPES` -- a key holding the tool name and the keys that may hold its
  arguments (an action), with the tool names that mean "final answer" in that shape;
* :data:`WRAPPER_KEYS` -- a key holding a nested call (or a list of them: the first runs);
* :data:`ANSWER_KEYS` -- keys holding a final answer (a finish-like object);
  :data:`NESTED_ANSWER_KEYS` also unwraps an answer that is itself an object
  (griptape's ``TextArtifact.value``);
* :data:`THOUGHT_KEYS` -- keys holding the thought, kept on the Step.

Keys are looked up in dicts and as attributes of objects alike, in table order.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ANSWER_KEYS",
    "CALL_SHAPES",
    "NESTED_ANSWER_KEYS",
    "REFUSAL_KEYS",
    "REFUSAL_KIND_KEYS",
    "THOUGHT_KEYS",
    "WRAPPER_KEYS",
    "CallShape",
]


@dataclass(frozen=True)
class CallShape:
    """How one family of results names a tool call.

    ``name`` is the key of the tool name, ``args`` the keys that may hold the arguments
    (the first present wins), ``needs_args`` whether the shape only matches with one of
    them present (``name`` alone is too common a key), ``finish`` the tool names (lower
    case) that mean "final answer" in this shape, ``qualifier`` a key whose string value
    is appended to the tool name after a dot (griptape's ``name.path``), ``where`` who
    returns it.
    """

    name: str
    args: tuple[str, ...] = ()
    needs_args: bool = False
    finish: tuple[str, ...] = ()
    qualifier: str | None = None
    where: str = ""


CALL_SHAPES: tuple[CallShape, ...] = (
    CallShape("tool", ("tool_input", "args", "arguments", "input", "parameters"),
              where="LangChain AgentAction; {'tool', 'args'} dicts"),
    CallShape("action", ("action_input",), finish=("final answer",),
              where="LlamaIndex ActionReasoningStep; LangChain's JSON blob"),
    CallShape("next_tool_name", ("next_tool_args",), finish=("finish",),
              where="dspy ReAct output fields"),
    CallShape("name", ("arguments", "args", "parameters", "input"), needs_args=True,
              finish=("final_answer",), qualifier="path",
              where="function_call objects (OpenAI, qwen-agent, camel-ai), smolagents and"
                    " swarms JSON, griptape ToolAction"),
    CallShape("function", ("arguments", "args", "parameters"), needs_args=True,
              where="camel-ai extract_tool_call"),
)
"""The call shapes, tried in order (a name that is itself an object is a wrapper)."""

REFUSAL_KEYS = ("error", "invalid")
REFUSAL_KIND_KEYS = ("kind",)
WRAPPER_KEYS = ("function_call", "tool_call", "tool_calls", "actions")
ANSWER_KEYS = ("return_values", "final_answer", "answer", "output", "response", "content")
NESTED_ANSWER_KEYS = (*ANSWER_KEYS, "value", "text")
THOUGHT_KEYS = ("thought", "next_thought")
