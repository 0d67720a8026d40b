"""``module:function`` targets: a user parser in a persistent worker process.

Python runs signal handlers between bytecodes, so a C-level loop (a catastrophic ``re``
match) cannot be interrupted in-process. A worker process can be: a parser past its time
limit is killed and replaced, a parser that kills its process is a crash, and the next
call gets a fresh worker.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import weakref
from time import perf_counter
from typing import Any

from ..errors import UsageError
from ..formats import Format, get_format
from .adapters import _describe_exception, _invoke, check_supported
from .base import DEFAULT_TIMEOUT, ParseResult, Target, _check_timeout
from .processes import die_with_parent, guard_group, in_main_thread, kill_group, own_group
from .sanitise import sanitise_result
from .user_code import _resolve_parser, import_timeout

__all__ = ["STARTUP_TIMEOUT", "FunctionTarget"]

STARTUP_TIMEOUT = 60.0
"""Seconds a worker process may take to import the user's module and report ready (the
default; ``REACTFUZZ_IMPORT_TIMEOUT`` overrides it)."""


# ----------------------------------------------------------------- the worker process


def _worker_main(conn: Any, spec: str, directory: str, fmt: Format, parent: int | None) -> None:
    """The worker loop: resolve the parser, warm it up, then answer one completion at a time.

    Runs in the child, as the leader of its own process group (stopping it kills what the
    parser forked), dying with ``parent`` when one is given. SIGINT is ignored here (the
    parent handles Ctrl-C and stops the worker) and SIGTERM kills; the loop ends on
    ``None``, or when the parent's end of the pipe closes.
    """
    own_group()
    if parent is not None:
        die_with_parent(parent)
    with contextlib.suppress(ValueError, OSError, AttributeError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    guard_group()
    sys.path.insert(0, directory)
    try:
        fn = _resolve_parser(spec, directory, probed=False)  # this worker is the probe
    except BaseException as exc:  # report anything to the parent
        message = str(exc) if isinstance(exc, UsageError) else _describe_exception(exc)
        with contextlib.suppress(Exception):
            conn.send(("fail", message))
        return
    # one warm-up call before "ready", under the startup limit rather than the per-call one:
    # a parser that imports its framework on first use would time out its first call in
    # every fresh worker otherwise, and never get past it
    with contextlib.suppress(Exception):
        fn("")
    conn.send(("ready", None))
    while True:
        try:
            completion = conn.recv()
        except (EOFError, OSError):
            return
        if completion is None:
            return
        result = sanitise_result(_invoke(fn, completion, fmt, BaseException))
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
        # tied to this process only when started from the main thread: the kernel's
        # parent-death signal fires when the forking *thread* ends
        parent = os.getpid() if in_main_thread() else None
        self.process = ctx.Process(
            target=_worker_main,
            args=(child_end, spec, directory, fmt, parent),
            name=f"reactfuzz-worker[{spec}]",
            daemon=True,
        )
        self.process.start()
        self.pgid: int | None = self.process.pid  # the worker leads its own group
        child_end.close()  # so that the parent sees EOF when the worker dies

    def wait_ready(self, spec: str) -> None:
        limit = import_timeout()
        if not self.conn.poll(limit):
            self.stop()
            raise UsageError(
                f"{spec!r}: the worker process did not start within {limit:g}s"
                " (does importing the module take that long? REACTFUZZ_IMPORT_TIMEOUT"
                " sets the limit)"
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
        kill_group(self.pgid)  # what the parser forked goes with it
        with contextlib.suppress(OSError):
            self.conn.close()
        return self.process.exitcode

    def stop(self, *, gently: bool = False) -> None:
        """Stop the worker and its process group: ask it (``gently``), then SIGKILL."""
        proc = self.process
        if gently and proc.is_alive():
            with contextlib.suppress(OSError, ValueError):
                self.conn.send(None)
            proc.join(0.5)
        kill_group(self.pgid)  # the worker and everything the parser forked
        if proc.is_alive():
            proc.kill()  # not yet in its own group
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
            return check_supported(result, self.name, completion)

    def close(self) -> None:
        """Stop the worker process (idempotent)."""
        with self._lock:
            self._closed = True
            self._finalizer()
