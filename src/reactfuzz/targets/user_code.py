"""Importing user code: ``module:attr`` paths resolved from a working directory.

User code is only ever imported with :func:`importlib.import_module` from a ``module:attr``
path; model text and user strings are never evaluated. Every failure is one
:class:`~reactfuzz.errors.UsageError` line naming the path and what to do. Both parser
targets and ``--tools`` modules are read through here.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, cast

from ..errors import UsageError
from .adapters import describe_exception, short_repr

__all__ = ["import_timeout", "probe", "resolve_function", "resolve_parser"]

IMPORT_TIMEOUT = 60.0
"""Seconds importing a user module may take (``REACTFUZZ_IMPORT_TIMEOUT`` overrides it)."""


def import_timeout() -> float:
    """The time limit on importing user code: ``$REACTFUZZ_IMPORT_TIMEOUT`` or 60 s."""
    raw = os.environ.get("REACTFUZZ_IMPORT_TIMEOUT", "").strip()
    if not raw:
        return IMPORT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise UsageError(
            f"REACTFUZZ_IMPORT_TIMEOUT={raw!r}: give a positive number of seconds"
        )
    return value


_IN_PROBE = False
"""Set in a probing child: what it imports is not probed again."""


def probe(run: Callable[[], Any], label: str) -> None:
    """Run ``run`` (an import of user code) in a forked child first, under a time limit.

    User code that hangs at import, exits (``sys.exit``, ``os._exit``) or crashes the
    interpreter would take reactfuzz with it; in a child it is one readable
    :class:`UsageError` naming ``label``. What ``run`` raises is reported as its message.
    Without ``fork``, or with other threads running (forking them is unsafe), nothing is
    probed. The child leads its own process group, killed whole on a timeout.
    """
    global _IN_PROBE
    if _IN_PROBE or not hasattr(os, "fork") or threading.active_count() > 1:
        return
    limit = import_timeout()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: import, say how it went, never return
        status = 1
        _IN_PROBE = True
        try:
            os.close(read_end)
            with contextlib.suppress(OSError):
                os.setpgid(0, 0)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            import faulthandler

            faulthandler.disable()  # a crash is reported as one line by the parent
            with contextlib.suppress(OSError):  # the real import prints; the probe does not
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
            try:
                run()
                message = ""
            except BaseException as exc:
                message = str(exc) if isinstance(exc, UsageError) else (
                    f"{label}: importing it raised {describe_exception(exc)}")
            os.write(write_end, ("ok\n" + message).encode("utf-8", "replace")[:65536])
            status = 0
        finally:
            with contextlib.suppress(Exception):
                sys.stderr.flush()
            os._exit(status)
    os.close(write_end)
    data = b""
    deadline = time.monotonic() + limit
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                _kill_probe(pid)
                raise UsageError(
                    f"{label}: importing it did not finish within {limit:g}s (a module must"
                    " not block at import; REACTFUZZ_IMPORT_TIMEOUT sets the limit)"
                )
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            data += chunk
    except BaseException:
        _kill_probe(pid)
        raise
    finally:
        os.close(read_end)
    _, status = os.waitpid(pid, 0)
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)  # anything the import forked
    if not data.startswith(b"ok\n"):
        if os.WIFSIGNALED(status):
            how = f"was killed by signal {signal.Signals(os.WTERMSIG(status)).name}"
        else:
            how = f"exited with code {os.WEXITSTATUS(status)}"
        raise UsageError(
            f"{label}: the process importing it {how} (the module ends the interpreter at"
            " import: fix it so that importing it only defines things)"
        )
    message = data[3:].decode("utf-8", "replace")
    if message:
        raise UsageError(message)


def _kill_probe(pid: int) -> None:
    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        with contextlib.suppress(OSError):
            kill()
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)

# ----------------------------------------------------------------- importing user code

_LOADED_FROM: dict[str, str] = {}
"""Top-level module name -> the directory reactfuzz imported it from."""


@contextlib.contextmanager
def on_path(directory: str) -> Iterator[None]:
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


def _needs_import(module: str, directory: str) -> bool:
    """Whether :func:`_import_module` would run the module's code (it is not loaded yet)."""
    top = module.partition(".")[0]
    if module not in sys.modules:
        return True
    previous = _LOADED_FROM.get(top)
    return previous is not None and previous != directory


def resolve(spec: str, directory: str, what: str, *, probed: bool = True) -> Any:
    """The object a ``module:attr`` path names, importing the module from ``directory``.

    A module not imported yet is first imported in a child with a time limit
    (:func:`probe`), so one that hangs or ends the interpreter is a readable error.
    Every failure is one :class:`UsageError` line naming the path and what to do.
    """
    module, attr = _split_spec(spec, what)
    if probed and _needs_import(module, directory):
        probe(lambda: resolve(spec, directory, what, probed=False), repr(spec))
    with on_path(directory):
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
                f"{spec!r}: importing {module!r} failed: {describe_exception(exc)}"
                " (install what it imports, or fix the module)"
            ) from None
        except BaseException as exc:  # SyntaxError, SystemExit, anything
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise UsageError(
                f"{spec!r}: importing {module!r} raised {describe_exception(exc)}"
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
                f"{spec!r}: reading {part!r} raised {describe_exception(exc)}"
            ) from None
    return obj


def parse_callable(obj: Any, label: str) -> Callable[[str], Any]:
    """The function to call: ``obj.parse`` for a parser object, else ``obj`` itself."""
    if isinstance(obj, type):
        raise UsageError(
            f"{label} is a class: point at an instance (for example `parser = "
            f"{obj.__name__}()` in the module, then 'module:parser') or at a function"
        )
    parse = getattr(obj, "parse", None)
    if callable(parse):
        return parse
    if callable(obj):
        return obj
    raise UsageError(
        f"{label} is {type(obj).__name__} {short_repr(obj)}, not a function or an object"
        " with a parse method"
    )


def resolve_function(spec: str, directory: str, what: str = "function") -> Callable[..., Any]:
    """The callable a ``module:attr`` path names (an agent loop, a hook), imported from
    ``directory`` after a probe in a child; any failure is one :class:`UsageError` line."""
    obj = resolve(spec, directory, what)
    if not callable(obj):
        raise UsageError(f"{spec!r}: {type(obj).__name__} is not callable (name a function)")
    return cast(Callable[..., Any], obj)


def resolve_parser(spec: str, directory: str, *, probed: bool = True) -> Callable[[str], Any]:
    """The parse function a ``module:attr`` path names, imported from ``directory`` into
    this process (after a probe in a child with a time limit, unless ``probed`` is false
    because this process is the probe); any failure, whatever the module raises, is one
    :class:`UsageError` line naming the path and what to do."""
    return parse_callable(resolve(spec, directory, "function", probed=probed), repr(spec))
