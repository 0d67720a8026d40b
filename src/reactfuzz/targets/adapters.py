"""Result adapters: whatever a user parser returns or raises, read as a Step.

User parsers return our Step, tuples, dicts, LangChain ``AgentAction``/``AgentFinish`` or
LlamaIndex reasoning steps; :func:`adapt` reads them all. What a parser raises is
classified by :func:`invoke`: a deliberate refusal (``ValueError``, ``*Parse*``
exceptions) is an invalid Step, anything else is a crash the calling loop would have died of.
"""

from __future__ import annotations

import json
import reprlib
from collections.abc import Callable, Mapping
from dataclasses import replace
from time import perf_counter, thread_time
from typing import Any

from ..errors import UsageError
from ..formats import Format, get_format
from ..kinds import REJECT_KINDS
from ..model import Action, Call, Invalid, Step, to_jsonable
from . import shapes
from .base import ParseResult
from .origin import Origin, last_hot, last_path, origin_of_exception, sampled_call, traced_call

__all__ = ["REFUSED", "SUPPORTED_RESULTS", "UnsupportedResultError", "adapt", "check_supported"]

SUPPORTED_RESULTS = (
    "supported: a reactfuzz Step; ('action', (name, arg)), ('action', name, arg),"
    " ('final' or 'answer', text), ('invalid', reason) or ('invalid', kind, reason) tuples"
    f" (kind: {', '.join(REJECT_KINDS)}); dicts and objects read by"
    " shape: a tool name (tool, action, name, function, next_tool_name: LangChain"
    " AgentAction, LlamaIndex steps, function_call objects, dspy) with its arguments,"
    " a nested call (function_call, tool_calls, actions), an answer (return_values,"
    " final_answer, answer, output, response, content) or error/invalid (with a 'kind'"
    " naming the refusal kind, if known); None (no action); a raised ValueError or"
    " *Parse* exception is a refusal, of the kind its 'kind' attribute names"
)


class UnsupportedResultError(UsageError):
    """A target returned something :func:`adapt` cannot read: its adapter is wrong.

    A configuration error, not a finding: every example would count as a refusal.
    """


def check_supported(result: ParseResult, target: str, completion: str) -> ParseResult:
    """``result`` unchanged, unless the parser's return value was unsupported (raises)."""
    step = result.step
    if step is not None and step.invalid is not None and step.invalid.code == "unsupported-result":
        what = step.invalid.message.partition("; supported:")[0]
        raise UnsupportedResultError(
            f"{target!r} returned a result reactfuzz cannot read ({what}) for the completion"
            f" {short_repr(completion)}; return {SUPPORTED_RESULTS.removeprefix('supported: ')}"
        )
    return result


_MAX_MESSAGE = 300


# --------------------------------------------------------------------------- adapters


def one_line(text: str) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= _MAX_MESSAGE else flat[: _MAX_MESSAGE - 3] + "..."


def short_repr(value: Any) -> str:
    try:
        return one_line(reprlib.repr(value))
    except Exception:  # a user __repr__ that raises
        return f"<{type(value).__name__}>"


def _exception_text(exc: BaseException) -> str:
    """``str(exc)``, without trusting the exception: a ``__str__`` that raises or returns
    something else gives a placeholder, never a second exception."""
    try:
        text = str(exc)
    except Exception:
        return "(its message cannot be read)"
    return text if isinstance(text, str) else "(its message cannot be read)"


def describe_exception(exc: BaseException) -> str:
    message = one_line(_exception_text(exc))
    name = type(exc).__name__
    return f"{name}: {message}" if message else name


def _is_refusal(exc: BaseException) -> bool:
    """A parser's deliberate "no": ValueError and subclasses, or a ``*Parse*`` exception."""
    if isinstance(exc, ValueError):
        return True
    return any("Parse" in cls.__name__ for cls in type(exc).__mro__)


REFUSED = "parser-refused"
"""The invalid-step code of a refusal that names no kind: why the target refused is unknown."""


def _refusal_kind(value: Any) -> str | None:
    """The refusal kind a result or an exception names (its ``kind``), if it is one."""
    for key in shapes.REFUSAL_KIND_KEYS:
        kind = _get(value, key)
        if isinstance(kind, str) and kind in REJECT_KINDS:
            return kind
    return None


def _refused(message: str, thought: str = "", kind: str | None = None) -> Step:
    """A refusal; its code is the refusal kind the target named, else :data:`REFUSED`."""
    return Step(thought=thought, invalid=Invalid(kind or REFUSED, one_line(message)))


def _unsupported(value: Any, detail: str = "") -> Step:
    what = detail or f"the parser returned {type(value).__name__} {short_repr(value)}"
    return Step(invalid=Invalid("unsupported-result", f"{what}; {SUPPORTED_RESULTS}"))


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(to_jsonable(value), ensure_ascii=False)


def is_finish(name: str, fmt: Format) -> bool:
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
        return _unsupported(name, f"the tool name is {type(name).__name__} {short_repr(name)}")
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
    if is_finish(name, fmt):
        return Step(thought=thought, answer=raw)
    return Step(thought=thought, action=Action(name, raw, args, names))


def _answer_step(value: Any, thought: str = "") -> Step:
    if value is None:
        return _unsupported(value, "the parser returned a final answer of None")
    return Step(thought=thought if isinstance(thought, str) else "", answer=_text(value))


_MISSING = object()


def _get(result: Any, key: str) -> Any:
    """``result[key]`` for a mapping, ``result.key`` otherwise; ``_MISSING`` if absent."""
    if isinstance(result, Mapping):
        return result[key] if key in result else _MISSING
    try:
        return getattr(result, key, _MISSING)
    except Exception:  # a property that raises
        return _MISSING


def _is_error_object(value: Any) -> bool:
    """An error returned rather than raised (griptape's ``ErrorArtifact``, an exception)."""
    return not isinstance(value, (str, Mapping)) and any(
        "Error" in cls.__name__ for cls in type(value).__mro__
    )


def _error_text(value: Any) -> str:
    for key in ("value", "message", "text"):
        inner = _get(value, key)
        if isinstance(inner, str):
            return inner
    return str(value)


def _is_record(value: Any) -> bool:
    """Whether a value may hold a nested result (a mapping or an object, not a scalar)."""
    return value is not None and not isinstance(value, (str, bytes, int, float, bool))


def _answer_value(value: Any, where: str, thought: str, depth: int) -> Step:
    """A final answer held at ``where``, unwrapped from a mapping, list or artifact."""
    if isinstance(value, str) or value is None or isinstance(value, (int, float, bool)):
        return _answer_step(value, thought)
    if _is_error_object(value):
        return _refused(_error_text(value), thought, _refusal_kind(value))
    if isinstance(value, Mapping):
        for key in ("output", *shapes.NESTED_ANSWER_KEYS):
            if key in value:
                return _answer_value(value[key], f"{where}[{key!r}]", thought, depth + 1)
        if len(value) == 1:
            return _answer_value(next(iter(value.values())), where, thought, depth + 1)
        return _unsupported(
            value,
            f"the answer in {where!r} is a mapping with no 'output' key and {len(value)} values"
            f" ({', '.join(map(str, list(value)[:8]))})",
        )
    if isinstance(value, (list, tuple)):
        texts = [v if isinstance(v, str) else _get(v, "text") for v in value]
        if all(isinstance(t, str) for t in texts):
            return _answer_step("".join(texts), thought)
        return _answer_step(list(value), thought)
    if depth < 4:
        for key in shapes.NESTED_ANSWER_KEYS:
            inner = _get(value, key)
            if inner is not _MISSING and inner is not None:
                return _answer_value(inner, f"{where}.{key}", thought, depth + 1)
    return _unsupported(
        value, f"the answer in {where!r} is {type(value).__name__} {short_repr(value)}"
    )


def _finish_step(arg: Any, thought: str) -> Step:
    """A call of the shape's finish tool: its argument is the answer (else the thought)."""
    if isinstance(arg, Mapping):
        for key in ("answer", *shapes.NESTED_ANSWER_KEYS):
            if key in arg:
                return _answer_value(arg[key], key, thought, 1)
        if len(arg) == 1:
            return _answer_value(next(iter(arg.values())), "arguments", thought, 1)
        if not arg and thought:
            return Step(thought=thought, answer=thought)
    if (arg is None or arg == "") and thought:  # dspy: the thought says it, finish has no args
        return Step(thought=thought, answer=thought)
    return _answer_step(arg, thought)


def _from_shape(result: Any, fmt: Format, depth: int = 0) -> Step | None:
    """A Step from a dict or an object recognised by its keys (see :mod:`.shapes`).

    ``None`` when nothing in the tables matches.
    """
    if depth > 4:
        return None
    mapping = isinstance(result, Mapping)
    thought = next((t for t in (_get(result, k) for k in shapes.THOUGHT_KEYS)
                    if isinstance(t, str)), "")
    for key in shapes.REFUSAL_KEYS:
        value = _get(result, key)
        if value is not _MISSING and value is not None and (mapping or value is not False):
            record = _is_record(value)
            kind = _refusal_kind(result) or (_refusal_kind(value) if record else None)
            worded = record and (_is_error_object(value) or any(
                isinstance(_get(value, k), str) for k in ("value", "message", "text")))
            return _refused(_error_text(value) if worded else _text(value), thought, kind)
    for shape in shapes.CALL_SHAPES:
        name = _get(result, shape.name)
        if name is _MISSING or name is None:
            continue
        arg_key = next((k for k in shape.args if _get(result, k) is not _MISSING), None)
        if _is_record(name):  # a wrapper: {"function": {"name": ..., "arguments": ...}}
            inner = (name[0] if name else None) if isinstance(name, (list, tuple)) else name
            nested = _from_shape(inner, fmt, depth + 1) if _is_record(inner) else None
            if nested is not None:
                return nested
            continue  # an object that is not a call (griptape's ToolAction.tool)
        if shape.needs_args and arg_key is None:
            continue
        arg = _get(result, arg_key) if arg_key is not None else None
        if isinstance(name, str):
            if name.strip().lower() in shape.finish:
                return _finish_step(arg, thought)
            qualifier = _get(result, shape.qualifier) if shape.qualifier else None
            if isinstance(qualifier, str) and qualifier:
                name = f"{name}.{qualifier}"
        return _action_step(name, arg, fmt, thought)
    for key in shapes.WRAPPER_KEYS:
        value = _get(result, key)
        if isinstance(value, (list, tuple)):
            value = value[0] if value else None
        if _is_record(value):
            nested = _from_shape(value, fmt, depth + 1)
            if nested is not None:
                return nested
    for key in shapes.ANSWER_KEYS:
        value = _get(result, key)
        if value is _MISSING or (value is None and not mapping):
            continue
        return _answer_value(value, key, thought, depth)
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
        return _unsupported(result, f"an action tuple of unsupported shape {short_repr(result)}")
    if tag in _ANSWER_TAGS and len(rest) == 1:
        return _answer_step(rest[0])
    if tag in _INVALID_TAGS and len(rest) <= 1:
        return _refused(_text(rest[0]) if rest else "the parser said the text is invalid")
    if tag in _INVALID_TAGS and len(rest) == 2:
        kind = rest[0]
        if not isinstance(kind, str) or kind not in REJECT_KINDS:
            return _unsupported(result, f"the refusal kind {short_repr(kind)} is none of"
                                f" {', '.join(REJECT_KINDS)}")
        return _refused(_text(rest[1]), kind=kind)
    return _unsupported(result)


def adapt(result: Any, fmt: Format | str = "bracket") -> Step:
    """Turn what a parser returned into a Step (see :data:`SUPPORTED_RESULTS`).

    * a :class:`~reactfuzz.model.Step` is returned as is; an ``Action`` or a ``Call``
      becomes an action Step;
    * tuples: ``("action", (name, arg))``, ``("action", name, arg)``, ``("final", text)``
      (also ``"answer"``), ``("invalid", reason)``, ``("invalid", kind, reason)`` with
      ``kind`` one of :data:`~reactfuzz.kinds.REJECT_KINDS`;
    * dicts and objects, read by shape from the tables of :mod:`.shapes` (keys and
      attributes alike): a refusal (``error``/``invalid``, with a ``kind`` beside it or
      on the error naming the refusal kind, if known); a tool name with its
      arguments (``tool`` + ``tool_input``/``args``/..., LangChain ``AgentAction``;
      ``action`` + ``action_input``, LlamaIndex and LangChain's JSON blob, where
      ``"Final Answer"`` is the answer; dspy's ``next_tool_name`` + ``next_tool_args``,
      where ``finish`` answers with the thought; ``name`` + ``arguments``, function_call
      objects, smolagents' ``final_answer`` tool; ``function`` + ``arguments``); a nested
      call (``function_call``, ``tool_calls``, ``actions``: the first one runs); or a
      final answer (``return_values`` -- its ``output`` or only value --, ``final_answer``,
      ``answer``, ``output``, ``response``, ``content``), unwrapped from an artifact's
      ``value``/``text``; an answer object whose class is an ``*Error*`` is a refusal. A
      ``thought`` (or ``next_thought``) string is kept;
    * ``None`` is invalid (``no-result``); anything else is invalid
      (``unsupported-result``) with a message naming the type and the supported shapes.

    An explicit invalid result is a deliberate refusal: its code is the refusal kind the
    parser named (a tuple's ``kind``, a ``kind`` key or attribute, an exception's ``kind``
    attribute), else ``parser-refused`` (the reason is unknown: ``right-rejection`` does not
    judge it, and typed dispatch reads it as ``unparseable``). Argument
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
        if is_finish(result.tool, fmt):
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
    if not isinstance(result, (tuple, list)) or hasattr(result, "_fields"):
        step = _from_shape(result, fmt)
        if step is not None:
            return step
    if isinstance(result, Mapping):
        keys = ", ".join(map(str, list(result)[:8])) or "none"
        return _unsupported(result, f"the parser returned a dict with keys ({keys})")
    if isinstance(result, (tuple, list)):
        return _from_tuple(result, fmt)
    return _unsupported(result)


def invoke(
    fn: Callable[[str], Any],
    completion: str,
    fmt: Format,
    catch: type[BaseException] | tuple[type[BaseException], ...],
    *,
    trace: bool = False,
    own: tuple[str, ...] = (),
    profile: bool = False,
) -> ParseResult:
    """Call a user parser once and classify what happened (never raises what ``catch`` holds).

    What it raises carries its origin (the frames, free with the traceback); ``trace``
    also records the path a returned result took (:func:`~.origin.traced_call`);
    ``profile`` where its time went (:func:`~.origin.sampled_call`, the origin's ``hot``).
    ``own`` names reactfuzz directories that count as the target's code (a built-in parser).
    """
    start, cpu_start = perf_counter(), thread_time()
    origin = None
    try:
        if trace:
            value, origin = traced_call(lambda: fn(completion), own)
        elif profile:
            value = sampled_call(lambda: fn(completion), own)
            origin = Origin(hot=last_hot())
        else:
            value = fn(completion)
        step = adapt(value, fmt)
    except catch as exc:
        result = raised_result(exc, perf_counter() - start, thread_time() - cpu_start, trace,
                               own)
        if profile:
            result = replace(result, origin=replace(result.origin or Origin(), hot=last_hot()))
        return result
    return ParseResult(step=step, elapsed=perf_counter() - start, origin=origin,
                       cpu=thread_time() - cpu_start)


def raised_result(exc: BaseException, elapsed: float, cpu: float, trace: bool = False,
            own: tuple[str, ...] = ()) -> ParseResult:
    """What a parser's raising ``exc`` means: a refusal (an invalid Step) or a crash, with
    where it was raised (and the lines a traced parse ran before)."""
    where = _exception_origin(exc, own)
    path = last_path() if trace else None
    if where is not None and path is not None:  # the lines it ran before it raised
        where = replace(where, path=path.path, notable=path.notable)
    if _is_refusal(exc):
        text = _exception_text(exc).strip() or type(exc).__name__
        return ParseResult(step=_refused(text, kind=_refusal_kind(exc)), elapsed=elapsed,
                           origin=where, cpu=cpu)
    return ParseResult(error=describe_exception(exc), elapsed=elapsed, origin=where, cpu=cpu)


def _exception_origin(exc: BaseException, own: tuple[str, ...]) -> Origin | None:
    try:
        return origin_of_exception(exc, own)
    except Exception:  # a frame reactfuzz cannot read: no origin, the finding stays
        return None
