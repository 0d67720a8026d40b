"""Targets: what reactfuzz fuzzes, and how to call it safely.

A :class:`Target` is a parser under test with a name and a format. ``run(completion)``
never raises because of the parser: it returns a :class:`ParseResult` that is a
:class:`~reactfuzz.model.Step`, a crash (``error="IndexError: ..."``) or a timeout.
``parse(completion)`` is the :class:`~reactfuzz.parsers.Parser` view of the same thing (a
crash or a timeout becomes an invalid Step), so a target plugs in wherever a parser does.

Kinds of target (one entry point: :func:`load_target`):

* a built-in parser by name (:func:`builtin_target`), run in-process;
* a user function or parser object by import path, ``"myagent:parse"``
  (:func:`function_target`), run in a persistent **worker process** with a per-call time
  limit: a parser stuck in a loop is killed and replaced, a parser that kills its process
  is a crash, and the next call gets a fresh worker;
* an already-imported callable (library use), run in-process with a soft ``SIGALRM``
  timeout (main thread, Unix only). Python runs signal handlers between bytecodes, so a
  C-level loop such as a catastrophic ``re`` match cannot be interrupted in-process:
  that is why the import-path form uses a worker process;
* a user regular expression (:func:`regex_target`), with the ``regex`` module's own
  timeout against catastrophic backtracking;
* a user Lark grammar (:func:`grammar_target`) with the rule names of the built-in
  grammar of the format's family.

What a user parser returns is turned into a Step by :func:`adapt` (our Step, tuples,
dicts, LangChain ``AgentAction``/``AgentFinish``, LlamaIndex reasoning steps). What it
raises is classified: a ``ValueError`` (or subclass), or an exception whose class name
contains ``Parse`` (``OutputParserException``, ``ParseError``), is the parser's deliberate
refusal (an invalid Step with code ``parser-refused``); anything else (``TypeError``,
``IndexError``, ``AttributeError``, ``RecursionError``, ...) is a crash: the loop that
called the parser would have died.

User code is only ever imported with :func:`importlib.import_module` from a
``module:attr`` path; model text and user strings are never evaluated.
"""

from __future__ import annotations

import abc
import contextlib
import importlib
import inspect
import json
import math
import multiprocessing
import os
import reprlib
import signal
import sys
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter
from typing import Any

import regex
from pydantic import BaseModel

from .errors import GrammarError, UsageError
from .formats import Format, get_format
from .grammars import lark_parser
from .model import Action, Call, Invalid, Step, to_jsonable
from .parsers import PARSERS, GrammarParser, Parser, get_parser
from .tools import ToolRegistry, default_registry, load_tools_json

__all__ = [
    "BuiltinTarget",
    "CallableTarget",
    "FunctionTarget",
    "GrammarTarget",
    "ParseResult",
    "RegexTarget",
    "Target",
    "adapt",
    "builtin_target",
    "function_target",
    "grammar_target",
    "load_target",
    "load_tools",
    "regex_target",
]

DEFAULT_TIMEOUT = 1.0
"""Seconds one call of a user parser may take before it counts as a timeout finding."""

STARTUP_TIMEOUT = 60.0
"""Seconds a worker process may take to import the user's module and report ready."""

TARGET_FORMS = (
    "a built-in parser name, 'module:function' (a function, or an object with a parse"
    " method, importable from the working directory), 'regex:<pattern>' or 'grammar:<file>'"
)

SUPPORTED_RESULTS = (
    "supported: a reactfuzz Step; ('action', (name, arg)), ('action', name, arg),"
    " ('final' or 'answer', text) or ('invalid', reason) tuples; dicts with"
    " action/action_input, tool/args, final_answer/answer/output or error/invalid;"
    " LangChain AgentAction/AgentFinish; LlamaIndex reasoning steps; None"
)

_MAX_MESSAGE = 300


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class ParseResult:
    """What one call of a target gave: a Step, a crash or a timeout (exactly one).

    ``error`` is ``"Type: message"`` when the parser raised something other than a
    refusal (or its worker process died); ``timed_out`` is set when it ran past its time
    limit; ``elapsed`` is the seconds the call took.
    """

    step: Step | None = None
    error: str | None = None
    timed_out: bool = False
    elapsed: float = 0.0

    def __post_init__(self) -> None:
        n = (self.step is not None) + (self.error is not None) + bool(self.timed_out)
        if n != 1:
            raise ValueError("a ParseResult has exactly one of step, error, timed_out")

    @property
    def crashed(self) -> bool:
        """Whether the parser crashed (raised, or its worker process died)."""
        return self.error is not None

    def to_step(self) -> Step:
        """The Step, or an invalid Step for a crash (``parser-crashed``) or a timeout."""
        if self.step is not None:
            return self.step
        if self.error is not None:
            return Step(invalid=Invalid("parser-crashed", f"the parser crashed: {self.error}"))
        return Step(
            invalid=Invalid(
                "timeout", f"the parser did not finish within its time limit ({self.elapsed:.2f}s)"
            )
        )


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


# --------------------------------------------------------------------------- targets


class Target(abc.ABC):
    """A parser under test: ``run`` gives a :class:`ParseResult`, ``parse`` a Step.

    Targets hold resources (a worker process); ``close()`` them, or use ``with``.
    ``name`` is a spec :func:`load_target` accepts again where possible (it is what a
    finding records to reproduce itself).
    """

    name: str
    format: Format
    kind: str = "target"
    timeout: float | None = None

    @abc.abstractmethod
    def run(self, completion: str) -> ParseResult:
        """Parse one completion; a crash or a timeout is data, never an exception."""

    def parse(self, completion: str) -> Step:
        """The :class:`~reactfuzz.parsers.Parser` view: crash and timeout become invalid."""
        return self.run(completion).to_step()

    def close(self) -> None:  # noqa: B027 -- most targets hold nothing
        """Release what the target holds (idempotent)."""

    def __enter__(self) -> Target:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} format={self.format.name!r}>"


class BuiltinTarget(Target):
    """A built-in (or registered) parser, run in-process.

    A built-in's own regex timeout (an invalid Step with code ``timeout``) is reported
    as ``timed_out``, like every other target's.
    """

    kind = "builtin"

    def __init__(self, name: str, fmt: Format | str = "bracket") -> None:
        self.format = get_format(fmt)
        self.parser: Parser = get_parser(name, self.format)
        self.name = name

    def run(self, completion: str) -> ParseResult:
        """Parse in-process (registered third-party parsers that raise are classified)."""
        result = _invoke(self.parser.parse, completion, self.format, Exception)
        step = result.step
        if step is not None and step.invalid is not None and step.invalid.code == "timeout":
            return ParseResult(timed_out=True, elapsed=result.elapsed)
        return result


def builtin_target(name: str, fmt: Format | str = "bracket") -> BuiltinTarget:
    """A built-in parser by name (see :data:`reactfuzz.parsers.PARSERS`) as a target."""
    return BuiltinTarget(name, fmt)


# ----------------------------------------------------------------- importing user code

_LOADED_FROM: dict[str, str] = {}
"""Top-level module name -> the directory reactfuzz imported it from."""


@contextlib.contextmanager
def _on_path(directory: str) -> Iterator[None]:
    sys.path.insert(0, directory)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(directory)


def _import_module(module: str, directory: str) -> Any:
    """Import ``module`` with ``directory`` first on the path.

    A module reactfuzz imported earlier from *another* directory (two projects in one
    process, or tests writing ``myagent.py`` into fresh folders) is imported afresh.
    """
    importlib.invalidate_caches()
    top = module.partition(".")[0]
    previous = _LOADED_FROM.get(top)
    if previous is not None and previous != directory and top in sys.modules:
        for key in [k for k in sys.modules if k == top or k.startswith(top + ".")]:
            del sys.modules[key]
    loaded = module in sys.modules
    mod = importlib.import_module(module)
    if not loaded:
        origin = getattr(sys.modules.get(top), "__file__", None)
        if origin and os.path.realpath(origin).startswith(os.path.realpath(directory) + os.sep):
            _LOADED_FROM[top] = directory
    return mod


_EXAMPLES = {"function": "myagent:parse", "tools": "mytools:TOOLS"}


def _split_spec(spec: str, what: str) -> tuple[str, str]:
    module, sep, attr = spec.partition(":")
    parts_ok = all(p.isidentifier() for p in module.split(".")) and all(
        p.isidentifier() for p in attr.split(".")
    )
    if not sep or not parts_ok:
        example = _EXAMPLES.get(what, "myagent:parse")
        raise UsageError(
            f"{spec!r} is not an import path: write 'module:{what}', for example"
            f" {example!r} (the module is imported from the working directory)"
        )
    return module, attr


def _resolve(spec: str, directory: str, what: str) -> Any:
    """The object a ``module:attr`` path names, importing the module from ``directory``.

    Every failure is one :class:`UsageError` line naming the path and what to do.
    """
    module, attr = _split_spec(spec, what)
    with _on_path(directory):
        try:
            mod = _import_module(module, directory)
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            if missing and (module == missing or module.startswith(missing + ".")):
                raise UsageError(
                    f"{spec!r}: no module named {missing!r} in {directory} or on the Python path"
                    f" (run reactfuzz from the directory that holds {missing}.py, or set the"
                    " working directory)"
                ) from None
            raise UsageError(
                f"{spec!r}: importing {module!r} failed: {_describe_exception(exc)}"
                " (install what it imports, or fix the module)"
            ) from None
        except BaseException as exc:  # SyntaxError, SystemExit, anything
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise UsageError(
                f"{spec!r}: importing {module!r} raised {_describe_exception(exc)}"
                " (fix the module so that it imports cleanly)"
            ) from None
    obj: Any = mod
    for i, part in enumerate(attr.split(".")):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            owner = module if i == 0 else f"{module}:{'.'.join(attr.split('.')[:i])}"
            where = getattr(mod, "__file__", None) or module
            found = sorted(n for n in dir(obj) if not n.startswith("_"))[:12]
            hint = f" (it defines: {', '.join(found)})" if found else ""
            raise UsageError(
                f"{spec!r}: {owner} ({where}) has no attribute {part!r}{hint}"
            ) from None
        except Exception as exc:  # a property or module __getattr__ that raises
            raise UsageError(
                f"{spec!r}: reading {part!r} raised {_describe_exception(exc)}"
            ) from None
    return obj


def _parse_callable(obj: Any, label: str) -> Callable[[str], Any]:
    """The function to call: ``obj.parse`` for a parser object, else ``obj`` itself."""
    if isinstance(obj, type):
        raise UsageError(
            f"{label} is a class: point at an instance (for example `parser = "
            f"{obj.__name__}()` in the module, then 'module:parser') or at a function"
        )
    parse = getattr(obj, "parse", None)
    if callable(parse):
        return parse  # type: ignore[no-any-return]
    if callable(obj):
        return obj  # type: ignore[no-any-return]
    raise UsageError(
        f"{label} is {type(obj).__name__} {_short_repr(obj)}, not a function or an object"
        " with a parse method"
    )


def _resolve_parser(spec: str, directory: str) -> Callable[[str], Any]:
    return _parse_callable(_resolve(spec, directory, "function"), repr(spec))


def _check_timeout(timeout: float | None) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not (
        math.isfinite(timeout) and timeout > 0
    ):
        raise UsageError(f"timeout must be a positive number of seconds, not {timeout!r}")
    return float(timeout)


# ----------------------------------------------------------------- the worker process


def _worker_main(conn: Any, spec: str, directory: str, fmt: Format) -> None:
    """The worker loop: resolve the parser, then answer one completion at a time.

    Runs in the child. SIGINT is ignored here (the parent handles Ctrl-C and stops the
    worker); the loop ends on ``None``, or when the parent's end of the pipe closes.
    """
    with contextlib.suppress(ValueError, OSError, AttributeError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.path.insert(0, directory)
    try:
        fn = _resolve_parser(spec, directory)
    except BaseException as exc:  # report anything to the parent
        message = str(exc) if isinstance(exc, UsageError) else _describe_exception(exc)
        with contextlib.suppress(Exception):
            conn.send(("fail", message))
        return
    conn.send(("ready", None))
    while True:
        try:
            completion = conn.recv()
        except (EOFError, OSError):
            return
        if completion is None:
            return
        result = _invoke(fn, completion, fmt, BaseException)
        try:
            conn.send(("result", result))
        except (EOFError, OSError):
            return
        except Exception as exc:  # the Step holds something that does not pickle
            conn.send((
                "result",
                ParseResult(
                    error=f"the parser's result cannot be sent back: {_describe_exception(exc)}",
                    elapsed=result.elapsed,
                ),
            ))


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, ctx: Any, spec: str, directory: str, fmt: Format) -> None:
        parent_end, child_end = ctx.Pipe(duplex=True)
        self.conn = parent_end
        self.process = ctx.Process(
            target=_worker_main,
            args=(child_end, spec, directory, fmt),
            name=f"reactfuzz-worker[{spec}]",
            daemon=True,
        )
        self.process.start()
        child_end.close()  # so that the parent sees EOF when the worker dies

    def wait_ready(self, spec: str) -> None:
        if not self.conn.poll(STARTUP_TIMEOUT):
            self.stop()
            raise UsageError(
                f"{spec!r}: the worker process did not start within {STARTUP_TIMEOUT:.0f}s"
                " (does importing the module take that long?)"
            )
        try:
            status, message = self.conn.recv()
        except (EOFError, OSError):
            code = self.reap()
            raise UsageError(
                f"{spec!r}: the worker process died while starting"
                f" ({_exit_description(code)}; its error output, if any, is above)"
            ) from None
        if status != "ready":
            self.stop()
            raise UsageError(message)

    def reap(self) -> int | None:
        """Wait briefly for a worker whose pipe closed; kill it if it lingers."""
        self.process.join(1.0)
        if self.process.exitcode is None:
            self.stop()
        with contextlib.suppress(OSError):
            self.conn.close()
        return self.process.exitcode

    def stop(self, *, gently: bool = False) -> None:
        """Stop the worker: ask it (``gently``), then SIGTERM, then SIGKILL."""
        proc = self.process
        if gently and proc.is_alive():
            with contextlib.suppress(OSError, ValueError):
                self.conn.send(None)
            proc.join(0.5)
        if proc.is_alive():
            proc.terminate()
            proc.join(0.5)
        if proc.is_alive():
            proc.kill()
            proc.join(2.0)
        with contextlib.suppress(OSError):
            self.conn.close()


def _exit_description(code: int | None) -> str:
    if code is None:
        return "exit code unknown"
    if code < 0:
        try:
            return f"exit code {code} ({signal.Signals(-code).name})"
        except ValueError:
            return f"exit code {code}"
    return f"exit code {code}"


def _stop_holder(holder: dict[str, _Worker | None]) -> None:
    worker = holder.get("worker")
    holder["worker"] = None
    if worker is not None:
        worker.stop(gently=True)


def _default_start_method() -> str:
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


class FunctionTarget(Target):
    """A user parser named by ``module:attr``, run in a persistent worker process.

    Each completion goes to the worker over a pipe; the parent waits ``timeout``
    seconds. On a timeout the worker is stopped (SIGTERM, then SIGKILL) and the result
    is ``timed_out``; if the worker dies (``os._exit``, a segfault) the result is a crash
    ``"worker died: exit code N"``. Either way the next call starts a fresh worker
    (``restarts`` counts them). Adaptation happens in the worker; ``elapsed`` is the
    time the worker measured for a completed call, the time waited otherwise. Calls are
    serialised (a lock), so a target may be shared between threads.
    """

    kind = "function"

    def __init__(
        self,
        spec: str,
        fmt: Format | str = "bracket",
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        cwd: str | os.PathLike[str] | None = None,
        start_method: str | None = None,
    ) -> None:
        self.format = get_format(fmt)
        self.name = spec
        self.timeout = _check_timeout(timeout)
        self.cwd = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
        if not os.path.isdir(self.cwd):
            raise UsageError(f"{spec!r}: the working directory {self.cwd} does not exist")
        _resolve_parser(spec, self.cwd)  # fail now, in the parent, with one readable line
        method = start_method or _default_start_method()
        if method not in multiprocessing.get_all_start_methods():
            raise UsageError(
                f"start method {method!r} is not available here"
                f" (use one of {', '.join(multiprocessing.get_all_start_methods())})"
            )
        self._ctx = multiprocessing.get_context(method)
        self.restarts = 0
        self._lock = threading.Lock()
        self._holder: dict[str, _Worker | None] = {"worker": None}
        self._closed = False
        self._finalizer = weakref.finalize(self, _stop_holder, self._holder)
        self._worker()  # start now: a worker that cannot import the module fails here too

    def _worker(self) -> _Worker:
        worker = self._holder["worker"]
        if worker is not None and worker.process.is_alive():
            return worker
        if worker is not None:  # died between calls
            worker.reap()
            self.restarts += 1
        worker = _Worker(self._ctx, self.name, self.cwd, self.format)
        self._holder["worker"] = worker
        try:
            worker.wait_ready(self.name)
        except BaseException:
            self._holder["worker"] = None
            raise
        return worker

    def _discard(self, worker: _Worker, *, kill: bool) -> int | None:
        self._holder["worker"] = None
        self.restarts += 1
        if kill:
            worker.stop()
            return worker.process.exitcode
        return worker.reap()

    def run(self, completion: str) -> ParseResult:
        """Send one completion to the worker and wait at most ``timeout`` seconds."""
        with self._lock:
            if self._closed:
                raise UsageError(f"target {self.name!r} is closed")
            worker = self._worker()
            start = perf_counter()
            try:
                worker.conn.send(completion)
                ready = worker.conn.poll(self.timeout)
            except (OSError, EOFError):
                ready = True  # the worker is gone: recv below reports how
            if not ready:
                self._discard(worker, kill=True)
                return ParseResult(timed_out=True, elapsed=perf_counter() - start)
            try:
                status, result = worker.conn.recv()
            except (EOFError, OSError):
                code = self._discard(worker, kill=False)
                return ParseResult(
                    error=f"worker died: {_exit_description(code)}",
                    elapsed=perf_counter() - start,
                )
            except Exception as exc:  # a result the parent cannot unpickle
                self._discard(worker, kill=True)
                return ParseResult(
                    error=f"the parser's result cannot be read: {_describe_exception(exc)}",
                    elapsed=perf_counter() - start,
                )
            if status != "result" or not isinstance(result, ParseResult):
                self._discard(worker, kill=True)
                return ParseResult(
                    error="the worker sent an unexpected message", elapsed=perf_counter() - start
                )
            return result

    def close(self) -> None:
        """Stop the worker process (idempotent)."""
        with self._lock:
            self._closed = True
            self._finalizer()


class _SoftTimeout(BaseException):
    """Raised by the SIGALRM handler; a BaseException so ``except Exception`` lets it pass."""


def _alarm_usable() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _call_with_alarm(call: Callable[[], ParseResult], timeout: float) -> ParseResult:
    """Run ``call`` with a SIGALRM after ``timeout`` seconds (raises :class:`_SoftTimeout`).

    The handler raises at most once and disarms itself first, so the cleanup below runs
    to completion; a timer somebody else armed (pytest-timeout) is re-armed afterwards.
    """
    armed = [True]

    def handler(signum: int, frame: Any) -> None:
        if armed[0]:
            armed[0] = False
            raise _SoftTimeout

    start = perf_counter()
    outer_delay, outer_interval = 0.0, 0.0
    previous = signal.signal(signal.SIGALRM, handler)
    try:
        outer_delay, outer_interval = signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            return call()
        finally:
            armed[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_delay > 0:
            left = max(outer_delay - (perf_counter() - start), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, left, outer_interval)


class CallableTarget(Target):
    """An already-imported callable (or parser object), run in-process.

    The time limit is a soft ``SIGALRM`` timeout, only on Unix and only when called from
    the main thread (elsewhere there is no limit). Python runs signal handlers between
    bytecodes, so C code that does not return (a catastrophic ``re`` match) cannot be
    interrupted, and a bare ``except:`` in the parser can swallow the timeout; the
    import-path form (:class:`FunctionTarget`) runs in a worker process for that reason.
    """

    kind = "callable"

    def __init__(
        self,
        fn: Any,
        fmt: Format | str = "bracket",
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        name: str | None = None,
    ) -> None:
        self.format = get_format(fmt)
        self.timeout = _check_timeout(timeout)
        label = getattr(fn, "__qualname__", None) or type(fn).__qualname__
        module = getattr(fn, "__module__", None) or type(fn).__module__
        self.name = name or f"{module}:{label}"
        self.fn = _parse_callable(fn, repr(self.name))

    def run(self, completion: str) -> ParseResult:
        """Call the parser in-process (SystemExit is a crash; Ctrl-C still interrupts)."""

        def call() -> ParseResult:
            return _invoke(self.fn, completion, self.format, (Exception, SystemExit))

        if self.timeout is None or not _alarm_usable():
            return call()
        start = perf_counter()
        try:
            return _call_with_alarm(call, self.timeout)
        except _SoftTimeout:
            return ParseResult(timed_out=True, elapsed=perf_counter() - start)


def function_target(
    fn: str | Callable[[str], Any] | Any,
    fmt: Format | str = "bracket",
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    cwd: str | os.PathLike[str] | None = None,
    start_method: str | None = None,
) -> Target:
    """A user parser as a target: ``"module:attr"`` in a worker process, or a callable.

    ``"module:attr"`` names a function ``fn(completion)`` or an object with a ``parse``
    method (a LangChain output parser, say), importable with ``cwd`` (default: the current
    directory) first on the path. The path is resolved in the parent first, so a mistake
    is an immediate :class:`~reactfuzz.errors.UsageError`; calls then run in a worker
    process (``fork`` where available, else ``spawn``; ``start_method`` overrides) with a
    ``timeout`` per call (``None``: no limit). A callable or parser object runs in-process
    (:class:`CallableTarget`, soft timeout).
    """
    if isinstance(fn, str):
        return FunctionTarget(fn, fmt, timeout=timeout, cwd=cwd, start_method=start_method)
    return CallableTarget(fn, fmt, timeout=timeout)


# --------------------------------------------------------------------------- regex


def _strip_thought_label(text: str, fmt: Format) -> str:
    head = text.strip()
    m = regex.match(rf"{regex.escape(fmt.labels.thought)}(?: ?\d+)?:", head)
    return head[m.end() :].strip() if m else head


class RegexTarget(Target):
    """The user's own action regex, read the classic way.

    Named groups: ``tool`` (required) with ``args`` (the argument text, split on commas
    and each piece stripped, exactly as the classic loop does, so ``name[]`` is one empty
    argument) or ``input`` (one argument, stripped); optionally ``thought`` (else the text
    before the match, without its ``Thought:`` label) and ``answer`` (a final answer read
    by the same pattern). Without an ``answer`` group, answers come from ``answer_pattern``
    (default: the format's answer label at a line start, to the end of the text; ``""``
    reads no answers). The answer is checked first, as the classic loop's ``if "Answer:"``
    does; ``answer_first=False`` checks the action first. An action named the format's
    ``finish_action`` is the answer. Each search runs with the ``regex`` module's timeout
    (the remaining part of ``timeout`` per completion); running past it is ``timed_out``.
    """

    kind = "regex"

    def __init__(
        self,
        pattern: str,
        fmt: Format | str = "bracket",
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        answer_pattern: str | None = None,
        flags: int = regex.MULTILINE,
        answer_first: bool = True,
    ) -> None:
        self.format = get_format(fmt)
        self.timeout = _check_timeout(timeout)
        self.name = f"regex:{pattern}"
        self.pattern = pattern
        self.answer_first = answer_first
        self._action = self._compile(pattern, flags, "the pattern")
        groups = self._action.groupindex
        if "tool" not in groups:
            raise UsageError(
                f"regex target {pattern!r} has no named group 'tool': write the tool name as"
                r" (?P<tool>\w+) and its arguments as (?P<args>...) or (?P<input>...)"
            )
        self._arg_group = "args" if "args" in groups else "input" if "input" in groups else None
        self._answer: Any = None
        if "answer" not in groups:
            if answer_pattern is None and self.format.labels.answer:
                label = regex.escape(self.format.labels.answer)
                answer_pattern = rf"^{label}:[ \t]*(?P<answer>.*)"
                flags |= regex.DOTALL
            if answer_pattern:
                self._answer = self._compile(answer_pattern, flags, "the answer pattern")
                if "answer" not in self._answer.groupindex:
                    raise UsageError(
                        f"answer pattern {answer_pattern!r} has no named group 'answer'"
                        " (write the answer text as (?P<answer>.*))"
                    )

    @staticmethod
    def _compile(pattern: str, flags: int, what: str) -> Any:
        if not isinstance(pattern, str) or not pattern:
            raise UsageError(f"regex target: {what} is empty")
        try:
            return regex.compile(pattern, flags)
        except regex.error as exc:
            raise UsageError(
                f"regex target: {what} {pattern!r} does not compile: {_one_line(str(exc))}"
            ) from None

    def _search(self, compiled: Any, text: str, start: float) -> Any:
        if self.timeout is None:
            return compiled.search(text)
        left = self.timeout - (perf_counter() - start)
        if left <= 0:
            raise TimeoutError("regex time limit spent")
        return compiled.search(text, timeout=left)

    def _thought(self, m: Any, text: str) -> str:
        if "thought" in m.re.groupindex and m.group("thought") is not None:
            return str(m.group("thought")).strip()
        return _strip_thought_label(text[: m.start()], self.format)

    def _answer_of(self, m: Any, text: str) -> Step | None:
        if m is None or m.group("answer") is None:
            return None
        return Step(thought=self._thought(m, text), answer=m.group("answer").strip())

    def _action_of(self, m: Any, text: str) -> Step | None:
        if m is None:
            return None
        tool = m.group("tool")
        if tool is None:
            return self._answer_of(m, text) if "answer" in m.re.groupindex else None
        tool = tool.strip()
        raw = "" if self._arg_group is None else (m.group(self._arg_group) or "")
        if self._arg_group == "args":
            args: tuple[str, ...] = tuple(a.strip() for a in raw.split(","))
        elif self._arg_group == "input":
            raw = raw.strip()
            args = (raw,)
        else:
            args = ()
        thought = self._thought(m, text)
        if _is_finish(tool, self.format):
            return Step(thought=thought, answer=raw)
        return Step(thought=thought, action=Action(tool, raw, args))

    def _read(self, text: str, start: float) -> Step:
        answer: Step | None = None
        if self._answer is not None and self.answer_first:
            answer = self._answer_of(self._search(self._answer, text, start), text)
            if answer is not None:
                return answer
        action = self._action_of(self._search(self._action, text, start), text)
        if action is not None:
            return action
        if self._answer is not None and not self.answer_first:
            answer = self._answer_of(self._search(self._answer, text, start), text)
            if answer is not None:
                return answer
        what = "the pattern does not match" + (" and no answer matched" if self._answer else "")
        return Step(invalid=Invalid("no-action", what))

    def run(self, completion: str) -> ParseResult:
        """Search the completion; running past the time limit is ``timed_out``."""
        start = perf_counter()
        try:
            step = self._read(completion, start)
        except TimeoutError:
            return ParseResult(timed_out=True, elapsed=perf_counter() - start)
        return ParseResult(step=step, elapsed=perf_counter() - start)


def regex_target(
    pattern: str,
    fmt: Format | str = "bracket",
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    answer_pattern: str | None = None,
    flags: int = regex.MULTILINE,
    answer_first: bool = True,
) -> RegexTarget:
    """The user's own action regex as a target (see :class:`RegexTarget`).

    Compiled with the ``regex`` module, ``MULTILINE`` by default (``flags=``; inline flags
    such as ``(?s)`` work). A pattern that does not compile, or has no ``tool`` group, is
    a :class:`~reactfuzz.errors.UsageError`.
    """
    return RegexTarget(
        pattern, fmt, timeout=timeout, answer_pattern=answer_pattern, flags=flags,
        answer_first=answer_first,
    )


# --------------------------------------------------------------------------- grammar

class GrammarTarget(Target):
    """A user Lark grammar, read like the built-in grammar of the format's family.

    The grammar must define ``completion`` and ``transcript`` and use the rule (and
    terminal) names of the family's built-in file (``grammars/bracket.lark`` for
    ``bracket``); it may ``%import lines`` like the built-ins. A parse tree the Step
    builder cannot read is reported as a crash naming the grammar.
    """

    kind = "grammar"

    def __init__(self, path: str | os.PathLike[str], fmt: Format | str = "bracket") -> None:
        base = get_format(fmt)
        file = Path(path)
        self.name = f"grammar:{os.fspath(path)}"
        self.path = file.resolve()
        if not self.path.is_file():
            raise GrammarError(f"{file}: grammar file not found")
        self.format = base.model_copy(update={"grammar": str(self.path)})
        lark = lark_parser(self.format)  # GrammarError naming the file if it does not compile
        defined = {getattr(r.origin, "name", str(r.origin)) for r in lark.rules}
        needed = self.format.family.rules
        missing = [r for r in needed if r not in defined]
        if missing:
            raise GrammarError(
                f"{file}: the grammar has no rule {missing[0]!r}; a grammar for the"
                f" {base.name!r} format uses the rule names of the built-in"
                f" {self.format.family.grammar_file} ({', '.join(needed)})"
            )
        self.parser = GrammarParser(self.format, name=self.name)

    def run(self, completion: str) -> ParseResult:
        """Parse with the grammar; a tree the Step builder cannot read is a crash."""
        start = perf_counter()
        try:
            step = self.parser.parse(completion)
        except Exception as exc:
            return ParseResult(
                error=(
                    f"{_describe_exception(exc)} (the parse tree of {self.path.name} does not"
                    f" fit the {self.format.family.name} rule and terminal names)"
                ),
                elapsed=perf_counter() - start,
            )
        return ParseResult(step=step, elapsed=perf_counter() - start)


def grammar_target(path: str | os.PathLike[str], fmt: Format | str = "bracket") -> GrammarTarget:
    """A user Lark grammar file as a target (see :class:`GrammarTarget`).

    Raises :class:`~reactfuzz.errors.GrammarError` naming the file (and Lark's line) when
    the file is missing or does not compile, or lacks a rule the Step builder reads.
    """
    return GrammarTarget(path, fmt)


# --------------------------------------------------------------------------- entry points

_OPTIONS = {
    "function": {"timeout", "cwd", "start_method"},
    "regex": {"timeout", "answer_pattern", "flags", "answer_first"},
    "builtin": set(),
    "grammar": set(),
    "callable": {"timeout"},
}
_ALL_OPTIONS = set().union(*_OPTIONS.values())


def load_target(spec: Any, fmt: Format | str = "bracket", **options: Any) -> Target:
    """One entry point for every kind of target.

    ``spec`` is a built-in parser name (``classic-bracket``), ``"module:attr"`` (a user
    function or parser object, in a worker process), ``"regex:<pattern>"``,
    ``"grammar:<path>"``, or an object: a :class:`Target` (returned as is) or a callable /
    parser object (in-process). ``options`` (``timeout``, ``cwd``, ``start_method``,
    ``answer_pattern``, ``flags``, ``answer_first``) go to the kinds that take them and
    are ignored by the others, so one set of command-line options fits every spec; an
    unknown option is a :class:`~reactfuzz.errors.UsageError`.
    """
    unknown = sorted(set(options) - _ALL_OPTIONS)
    if unknown:
        raise UsageError(
            f"unknown target option {unknown[0]!r} (use {', '.join(sorted(_ALL_OPTIONS))})"
        )

    def pick(kind: str) -> dict[str, Any]:
        return {k: v for k, v in options.items() if k in _OPTIONS[kind]}

    if isinstance(spec, Target):
        return spec
    if not isinstance(spec, str):
        if isinstance(spec, os.PathLike):
            spec = os.fspath(spec)
        else:
            return CallableTarget(spec, fmt, **pick("callable"))
    if spec in PARSERS:
        return builtin_target(spec, fmt)
    if spec.startswith("regex:"):
        return regex_target(spec[len("regex:") :], fmt, **pick("regex"))
    if spec.startswith("grammar:"):
        return grammar_target(spec[len("grammar:") :], fmt)
    if ":" in spec:
        return function_target(spec, fmt, **pick("function"))
    raise UsageError(
        f"unknown target {spec!r}: use a built-in parser ({', '.join(sorted(PARSERS))}),"
        f" 'module:function' (a function or an object with a parse method, importable from"
        f" the working directory), 'regex:<pattern>' or 'grammar:<file.lark>'"
    )


def _registry_from(value: Any, spec: str) -> ToolRegistry | None:
    if isinstance(value, ToolRegistry):
        return value
    if isinstance(value, (list, tuple)):
        if not value:
            raise UsageError(f"--tools {spec}: the list of tools is empty")
        return ToolRegistry(value)
    if isinstance(value, type) and issubclass(value, BaseModel):
        return ToolRegistry([value])
    return None


def load_tools(
    spec: str | ToolRegistry, *, cwd: str | os.PathLike[str] | None = None
) -> ToolRegistry:
    """The ``--tools`` option: ``default``, a ``.json`` file, or ``module:attr``.

    ``module:attr`` may name a :class:`~reactfuzz.tools.ToolRegistry`, a list or tuple of
    typed functions, pydantic models and tools (mixed), a single pydantic model, or a
    zero-argument function returning one of those (a function *is* called, so point at a
    list to register a single function as a tool). Errors are one line:
    :class:`~reactfuzz.errors.InputFileError` for a tool file,
    :class:`~reactfuzz.errors.UsageError` otherwise. ``cwd`` (default: the current
    directory) is where the module is imported from and a relative JSON path is read.
    """
    if isinstance(spec, ToolRegistry):
        return spec
    if not isinstance(spec, str) or not spec:
        raise UsageError(f"--tools needs 'default', a .json file or 'module:attr', not {spec!r}")
    if spec == "default":
        return default_registry()
    directory = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
    if spec.lower().endswith(".json"):
        return load_tools_json(Path(directory, spec) if cwd is not None else spec)
    if ":" not in spec:
        if Path(spec).is_file():
            raise UsageError(
                f"--tools {spec}: a tool file must be JSON (a .json file of tool definitions)"
            )
        raise UsageError(
            f"unknown --tools {spec!r}: use 'default', a .json file of tool definitions or"
            " 'module:attr' (a ToolRegistry, a list of typed functions or pydantic models,"
            " or a function returning one)"
        )
    value = _resolve(spec, directory, "tools")
    try:
        registry = _registry_from(value, spec)
        if registry is None and callable(value) and not isinstance(value, type):
            try:
                required = [
                    p.name for p in inspect.signature(value).parameters.values()
                    if p.default is inspect.Parameter.empty
                    and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                ]
            except (TypeError, ValueError):
                required = []
            if required:
                raise UsageError(
                    f"--tools {spec}: {spec.partition(':')[2]}() takes arguments"
                    f" ({', '.join(required)}); point at a registry or a list of tools, or at"
                    " a function without parameters that returns one"
                )
            with _on_path(directory):
                try:
                    produced = value()
                except Exception as exc:
                    raise UsageError(
                        f"--tools {spec}: calling it raised {_describe_exception(exc)}"
                    ) from None
            registry = _registry_from(produced, spec)
            if registry is None:
                raise UsageError(
                    f"--tools {spec}: the function returned {type(produced).__name__};"
                    " it must return a ToolRegistry or a list of typed functions or"
                    " pydantic models"
                )
    except UsageError as exc:
        message = str(exc)
        if not message.startswith("--tools"):
            message = f"--tools {spec}: {message}"
        raise UsageError(message) from None
    if registry is None:
        raise UsageError(
            f"--tools {spec}: {type(value).__name__} {_short_repr(value)} is not a ToolRegistry,"
            " a list of typed functions or pydantic models, or a function returning one"
        )
    return registry
