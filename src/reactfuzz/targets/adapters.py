"""Result adapters: whatever a user parser returns or raises, read as a Step.

User parsers return our Step, tuples, dicts, LangChain ``AgentAction``/``AgentFinish`` or
LlamaIndex reasoning steps; :func:`adapt` reads them all. What a parser raises is
classified by :func:`_invoke`: a deliberate refusal (``ValueError``, ``*Parse*``
exceptions) is an invalid Step, anything else is a crash the calling loop would have died of.
"""

from __future__ import annotations

import json
import reprlib
from collections.abc import Callable, Mapping
from time import perf_counter
from typing import Any

from ..formats import Format, get_format
from ..model import Action, Call, Invalid, Step, to_jsonable
from .base import ParseResult

__all__ = ["SUPPORTED_RESULTS", "adapt"]

SUPPORTED_RESULTS = (
    "supported: a reactfuzz Step; ('action', (name, arg)), ('action', name, arg),"
    " ('final' or 'answer', text) or ('invalid', reason) tuples; dicts with"
    " action/action_input, tool/args, final_answer/answer/output or error/invalid;"
    " LangChain AgentAction/AgentFinish; LlamaIndex reasoning steps; None"
)


_MAX_MESSAGE = 300


# --------------------------------------------------------------------------- adapters


def _one_line(text: str) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= _MAX_MESSAGE else flat[: _MAX_MESSAGE - 3] + "..."


def _short_repr(value: Any) -> str:
    try:
        return _one_line(reprlib.repr(value))
    except Exception:  # a user __repr__ that raises
        return f"<{type(value).__name__}>"


def _describe_exception(exc: BaseException) -> str:
    message = _one_line(str(exc))
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _is_refusal(exc: BaseException) -> bool:
    """A parser's deliberate "no": ValueError and subclasses, or a ``*Parse*`` exception."""
    if isinstance(exc, ValueError):
        return True
    return any("Parse" in cls.__name__ for cls in type(exc).__mro__)


def _refused(message: str, thought: str = "") -> Step:
    return Step(thought=thought, invalid=Invalid("parser-refused", _one_line(message)))


def _unsupported(value: Any, detail: str = "") -> Step:
    what = detail or f"the parser returned {type(value).__name__} {_short_repr(value)}"
    return Step(invalid=Invalid("unsupported-result", f"{what}; {SUPPORTED_RESULTS}"))


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(to_jsonable(value), ensure_ascii=False)


def _is_finish(name: str, fmt: Format) -> bool:
    return fmt.finish_action is not None and name.lower() == fmt.finish_action.lower()


def _action_step(name: Any, arg: Any, fmt: Format, thought: str = "") -> Step:
    """An action Step from a tool name and its argument(s) as a user parser gave them.

    ``arg``: a string is the raw argument text and the only argument (in a json-args
    format, a string holding a JSON object is read as named arguments); a list or tuple
    gives positional values (raw = ``", ".join``); a dict gives named values (raw = JSON);
    ``None`` means no arguments; any other value is one argument. An action named the
    format's ``finish_action`` (``Finish`` in ``paper``) is the final answer.
    """
    if not isinstance(name, str):
        return _unsupported(name, f"the tool name is {type(name).__name__} {_short_repr(name)}")
    thought = thought if isinstance(thought, str) else ""
    names: tuple[str, ...] | None = None
    args: tuple[Any, ...]
    if arg is None:
        raw, args = "", ()
    elif isinstance(arg, str):
        raw, args = arg, (arg,)
        if fmt.arguments == "json" and arg.lstrip().startswith("{"):
            try:
                decoded = json.loads(arg)
            except ValueError:
                decoded = None
            if isinstance(decoded, dict):
                args, names = tuple(decoded.values()), tuple(str(k) for k in decoded)
    elif isinstance(arg, Mapping):
        raw = json.dumps(to_jsonable(dict(arg)), ensure_ascii=False)
        args, names = tuple(arg.values()), tuple(str(k) for k in arg)
    elif isinstance(arg, (list, tuple)):
        raw, args = ", ".join(str(a) for a in arg), tuple(arg)
    else:
        raw, args = str(arg), (arg,)
    if _is_finish(name, fmt):
        return Step(thought=thought, answer=raw)
    return Step(thought=thought, action=Action(name, raw, args, names))


def _answer_step(value: Any, thought: str = "") -> Step:
    if value is None:
        return _unsupported(value, "the parser returned a final answer of None")
    return Step(thought=thought if isinstance(thought, str) else "", answer=_text(value))


_MISSING = object()


def _attr(obj: Any, name: str) -> Any:
    return getattr(obj, name, _MISSING)


def _from_object(result: Any, fmt: Format) -> Step | None:
    """LangChain and LlamaIndex result objects, recognised by their attributes."""
    tool, tool_input = _attr(result, "tool"), _attr(result, "tool_input")
    if tool is not _MISSING and tool_input is not _MISSING:  # LangChain AgentAction
        return _action_step(tool, tool_input, fmt)
    values = _attr(result, "return_values")
    if values is not _MISSING:  # LangChain AgentFinish
        if not isinstance(values, Mapping):
            return _unsupported(values, "AgentFinish.return_values is not a mapping")
        if "output" in values:
            return _answer_step(values["output"])
        if len(values) == 1:
            return _answer_step(next(iter(values.values())))
        return _unsupported(
            values,
            f"AgentFinish.return_values has no 'output' key and {len(values)} values"
            f" ({', '.join(map(str, values))})",
        )
    thought = _attr(result, "thought")
    thought = thought if isinstance(thought, str) else ""
    action, action_input = _attr(result, "action"), _attr(result, "action_input")
    if action is not _MISSING and action_input is not _MISSING:  # LlamaIndex ActionReasoningStep
        return _action_step(action, action_input, fmt, thought)
    response = _attr(result, "response")
    if response is not _MISSING:  # LlamaIndex ResponseReasoningStep
        return _answer_step(response, thought)
    return None


_ANSWER_TAGS = ("final", "answer", "final_answer", "finish")
_INVALID_TAGS = ("invalid", "error")


def _from_tuple(result: tuple[Any, ...] | list[Any], fmt: Format) -> Step:
    if not result or not isinstance(result[0], str):
        return _unsupported(result)
    tag = result[0].lower()
    rest = result[1:]
    if tag == "action":
        if len(rest) == 2:
            return _action_step(rest[0], rest[1], fmt)
        if len(rest) == 1 and isinstance(rest[0], (list, tuple)) and 1 <= len(rest[0]) <= 2:
            inner = rest[0]
            return _action_step(inner[0], inner[1] if len(inner) == 2 else None, fmt)
        if len(rest) == 1 and isinstance(rest[0], str):
            return _action_step(rest[0], None, fmt)
        return _unsupported(result, f"an action tuple of unsupported shape {_short_repr(result)}")
    if tag in _ANSWER_TAGS and len(rest) == 1:
        return _answer_step(rest[0])
    if tag in _INVALID_TAGS and len(rest) <= 1:
        return _refused(_text(rest[0]) if rest else "the parser said the text is invalid")
    return _unsupported(result)


def _from_dict(result: Mapping[Any, Any], fmt: Format) -> Step:
    thought = result.get("thought")
    thought = thought if isinstance(thought, str) else ""
    for key in _INVALID_TAGS:
        if result.get(key) is not None:
            return _refused(_text(result[key]), thought)
    if result.get("action") is not None:
        name, arg = result["action"], result.get("action_input")
        # the JSON-blob convention of LangChain's JSON/structured chat agents
        if isinstance(name, str) and name.strip().lower() == "final answer":
            return _answer_step(arg, thought)
        return _action_step(name, arg, fmt, thought)
    if result.get("tool") is not None:
        arg = next(
            (result[k] for k in ("args", "arguments", "input", "tool_input") if k in result), None
        )
        return _action_step(result["tool"], arg, fmt, thought)
    for key in ("final_answer", "answer", "output"):
        if key in result:
            return _answer_step(result[key], thought)
    keys = ", ".join(map(str, list(result)[:8])) or "none"
    return _unsupported(result, f"the parser returned a dict with keys ({keys})")


def adapt(result: Any, fmt: Format | str = "bracket") -> Step:
    """Turn what a parser returned into a Step (see :data:`SUPPORTED_RESULTS`).

    * a :class:`~reactfuzz.model.Step` is returned as is; an ``Action`` or a ``Call``
      becomes an action Step;
    * tuples: ``("action", (name, arg))``, ``("action", name, arg)``, ``("final", text)``
      (also ``"answer"``), ``("invalid", reason)``;
    * objects with ``tool`` and ``tool_input`` (LangChain ``AgentAction``), with
      ``return_values`` (``AgentFinish``: the ``output`` value, or the only value), with
      ``action`` and ``action_input`` (LlamaIndex ``ActionReasoningStep``) or with
      ``response`` (``ResponseReasoningStep``);
    * dicts: ``{"action", "action_input"}`` (``"Final Answer"`` as the action is the
      answer, LangChain's JSON-blob convention), ``{"tool", "args"|"arguments"|"input"|
      "tool_input"}``, ``{"final_answer"|"answer"|"output"}``, ``{"error"|"invalid"}``;
      an optional ``"thought"`` string is kept;
    * ``None`` is invalid (``no-result``); anything else is invalid
      (``unsupported-result``) with a message naming the type and the supported shapes.

    An explicit invalid result is a deliberate refusal (code ``parser-refused``). Argument
    shapes are described in :func:`_action_step`. The format matters twice: an action
    named its ``finish_action`` is the final answer, and in a json-args format a string
    argument holding a JSON object is read as named arguments.

    Arguments: a string is the raw argument text and the only argument (nothing is
    split); a list or tuple gives positional values (raw text: ``", ".join``); a dict gives
    named values (raw text: JSON); ``None`` means no arguments.
    """
    fmt = get_format(fmt)
    if isinstance(result, Step):
        return result
    if isinstance(result, Action):
        if _is_finish(result.tool, fmt):
            return Step(answer=result.raw)
        return Step(action=result)
    if isinstance(result, Call):
        return _action_step(
            result.tool, result.kwargs() if result.names is not None else result.args, fmt
        )
    if result is None:
        return Step(invalid=Invalid("no-result", "the parser returned None"))
    if isinstance(result, (str, bytes, int, float)):
        return _unsupported(result)
    if not isinstance(result, Mapping):
        step = _from_object(result, fmt)
        if step is not None:
            return step
    if isinstance(result, Mapping):
        return _from_dict(result, fmt)
    if isinstance(result, (tuple, list)):
        return _from_tuple(result, fmt)
    return _unsupported(result)


def _invoke(
    fn: Callable[[str], Any],
    completion: str,
    fmt: Format,
    catch: type[BaseException] | tuple[type[BaseException], ...],
) -> ParseResult:
    """Call a user parser once and classify what happened (never raises what ``catch`` holds)."""
    start = perf_counter()
    try:
        step = adapt(fn(completion), fmt)
    except catch as exc:
        elapsed = perf_counter() - start
        if _is_refusal(exc):
            text = str(exc).strip() or type(exc).__name__
            return ParseResult(step=_refused(text), elapsed=elapsed)
        return ParseResult(error=_describe_exception(exc), elapsed=elapsed)
    return ParseResult(step=step, elapsed=perf_counter() - start)
