"""``module:function`` targets: a user parser in a persistent worker process.

Python runs signal handlers between bytecodes, so a C-level loop (a catastrophic ``re``
match) cannot be interrupted in-process. A worker process can be: a parser past its time
limit is killed and replaced, a parser that kills its process is a crash, and the next
call gets a fresh worker. This module is the parent's side; the loop the worker runs is
:mod:`.workerloop`.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import select
import signal
import threading
import weakref
from collections.abc import Callable, Sequence
from time import monotonic
from typing import Any

from ..errors import UsageError
from ..formats import Format, get_format
from .adapters import check_supported, describe_exception
from .base import (
    DEFAULT_TIMEOUT,
    Edit,
    ParseResult,
    Repeat,
    Target,
    apply_edit,
    check_timeout,
)
from .origin import Origin, TraceRequest
from .processes import in_main_thread, kill_group, kill_tree, thread_times
from .user_code import import_timeout, resolve_parser
from .workerloop import PROTOCOL, worker_main

__all__ = ["STARTUP_TIMEOUT", "FunctionTarget"]

STARVED_WAIT = 10.0
"""A completion past its time limit that has not had its limit's worth of CPU because the
machine was loaded (it was runnable, not sleeping) gets more time, up to this many times
its limit in all: a busy machine neither makes a timeout nor hides a real one. (A parse
that sleeps or blocks is not waiting for a CPU: it times out at its limit.)"""

STARVED_PROBE = 0.05
"""Seconds between two looks at a completion past its limit (see :meth:`_Worker.starved`)."""

STARTUP_TIMEOUT = 60.0
"""Seconds a worker process may take to import the user's module and report ready (the
default; ``REACTFUZZ_IMPORT_TIMEOUT`` overrides it)."""


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, ctx: Any, spec: str, directory: str, fmt: Format) -> None:
        parent_end, child_end = ctx.Pipe(duplex=True)
        self.conn = parent_end
        # tied to this process only when started from the main thread: the kernel's
        # parent-death signal fires when the forking *thread* ends
        parent = os.getpid() if in_main_thread() else None
        # [completions started, when the last one started (time.monotonic), the worker's
        # thread CPU time then, the worker thread's id]
        self.progress = ctx.RawArray("d", 4)
        self.started = 0  # completions started as of the last batch the parent sent
        self.offset = 0  # what its repeats' indices start from (see FunctionTarget)
        # the edits' texts and pieces sent to it, by number
        self.texts: dict[str, int] = {}
        self.pieces: dict[str, int] = {}
        self.process = ctx.Process(
            target=worker_main,
            args=(child_end, spec, directory, fmt, parent, self.progress),
            name=f"reactfuzz-worker[{spec}]",
            daemon=True,
        )
        self.process.start()
        self.pgid: int | None = self.process.pid  # the worker leads its own group
        child_end.close()  # so that the parent sees EOF when the worker dies
        # one poll object for the worker's life: ``Connection.poll`` builds a selector on
        # every call, which costs more than a fast parser's whole call
        self._poller = select.poll()
        self._poller.register(self.conn.fileno(), select.POLLIN)
        self._look: tuple[float, float, float, float] | None = None  # see ``starved``

    def numbered(self, edits: Sequence[Edit], todo: list[int]
                 ) -> tuple[list[str], list[str], list[int]]:
        """The edits ``todo`` as sent to this worker: the texts and the pieces it has not
        had yet, and every edit as numbers (its text's, how many pieces, then each piece's
        offset and number). A base's text crosses once, not once per mutation, and a batch
        is one flat list of small integers, which pickle writes and reads without making
        an object per edit."""
        texts, pieces = self.texts, self.pieces
        new_texts: list[str] = []
        new_pieces: list[str] = []
        codes: list[int] = []
        add = codes.append
        for i in todo:
            text, inserts = edits[i]
            ref = texts.get(text)
            if ref is None:
                ref = texts[text] = len(texts)
                new_texts.append(text)
            add(ref)
            add(len(inserts))
            for at, piece in inserts:
                number = pieces.get(piece)
                if number is None:
                    number = pieces[piece] = len(pieces)
                    new_pieces.append(piece)
                add(at)
                add(number)
        return new_texts, new_pieces, codes

    def running(self) -> tuple[int, float]:
        """How many completions the worker has started, and when the last one started."""
        while True:
            count, since, again = self.progress[0], self.progress[1], self.progress[0]
            if count == again:
                return int(count), since

    def starved(self, limit: float, since: float) -> bool:
        """Whether the completion that started at ``since`` and ran past its ``limit`` has
        been held back by a loaded machine: it has used less than ``limit`` seconds of CPU,
        and since the last look (none yet: look again after :data:`STARVED_PROBE`) it
        mostly ran or waited to run, rather than sleeping or blocking; at most until
        :data:`STARVED_WAIT` times its limit. Where thread times cannot be read, never."""
        tid = int(self.progress[3])
        times = thread_times(tid) if tid else None
        now = monotonic()
        if times is None or now - since >= STARVED_WAIT * limit:
            return False
        ran, waited = times
        if ran - self.progress[2] >= limit:
            return False  # it had its limit's worth of CPU: a real timeout
        last, self._look = self._look, (since, now, ran, waited)
        if last is None or last[0] != since:
            return True
        return (ran - last[2]) + (waited - last[3]) >= 0.5 * (now - last[1])

    def readable(self, timeout: float | None) -> bool:
        """Whether a reply (or EOF) is waiting, within ``timeout`` seconds (``None``: block)."""
        ms = None if timeout is None else max(0, int(timeout * 1000 + 0.999))
        while True:
            try:
                return bool(self._poller.poll(ms))
            except InterruptedError:  # pragma: no cover - PEP 475 retries poll itself
                continue

    def wait_ready(self, spec: str) -> None:
        """Wait for the worker to import the parser, then for its warm-up call ``fn("")``;
        a hang or a death in either is one line that says which."""
        limit = import_timeout()
        for step in ("imported", "ready"):
            if not self.conn.poll(limit):
                self.stop()
                raise UsageError(
                    f"{spec!r}: the worker process did not start within {limit:g}s"
                    " (does importing the module take that long? REACTFUZZ_IMPORT_TIMEOUT"
                    " sets the limit)" if step == "imported" else
                    f"{spec!r}: the parser's first call, {spec}(''), did not return within"
                    f" {limit:g}s after its module imported (REACTFUZZ_IMPORT_TIMEOUT sets"
                    " the limit)"
                )
            try:
                status, message = self.conn.recv()
            except (EOFError, OSError):
                code = self.reap()
                raise UsageError(
                    f"{spec!r}: the worker process died while "
                    + ("starting" if step == "imported" else f"running {spec}('')")
                    + f" ({_exit_description(code)}; its error output, if any, is above)"
                ) from None
            if status == "fail":
                self.stop()
                raise UsageError(message)

    def reap(self) -> int | None:
        """Wait briefly for a worker whose pipe closed; kill it if it lingers."""
        kill_tree(self.process.pid)  # what the parser forked, its own sessions too
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
        kill_tree(proc.pid)  # first, while the worker still holds what it adopted
        if gently and proc.is_alive():
            with contextlib.suppress(OSError, ValueError):
                self.conn.send_bytes(b"")
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

    Completions go to the worker over a pipe, a batch (``run_many``) in one message; the
    worker sends results back as they finish, in groups, and the parent gives each
    completion ``timeout`` seconds from when the worker started it. On a timeout the
    worker is stopped (SIGTERM, then SIGKILL) and the result is ``timed_out``; if the
    worker dies (``os._exit``, a segfault) the result is a crash ``"worker died: exit
    code N"``. Either way the next call starts a fresh worker (``restarts`` counts them).
    Adaptation happens in the worker; ``elapsed`` is the time the worker measured for a
    completed call, the time waited otherwise. Calls are
    serialised (a lock), so a target may be shared between threads.
    """

    kind = "function"
    batch = 1024  # a round trip wakes both processes: about what 64 fast parses cost

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
        self.timeout = check_timeout(timeout)
        self.cwd = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
        if not os.path.isdir(self.cwd):
            raise UsageError(f"{spec!r}: the working directory {self.cwd} does not exist")
        resolve_parser(spec, self.cwd)  # fail now, in the parent, with one readable line
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
        self._known: list[ParseResult] = []  # the values workers read for run_edits
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
        worker.offset = len(self._known)  # its first read value's index (see run_edits)
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

    @property
    def worker_pid(self) -> int | None:
        """The running worker's process id (its loop runs in a child of it), or ``None``
        when none runs: what a benchmark reads the worker's own CPU time from."""
        worker = self._holder["worker"]
        return worker.process.pid if worker is not None and worker.process.is_alive() \
            else None

    def run(self, completion: str) -> ParseResult:
        """Send one completion to the worker and wait at most :meth:`limit_for` it."""
        return self.run_many((completion,))[0]

    def trace(self, completion: str) -> Origin | None:
        """Parse ``completion`` again in the worker under the tracer (see :mod:`.origin`)."""
        result = self.run_many((TraceRequest(completion),))[0]
        return None if result.timed_out else result.origin

    def run_many(self, completions: Sequence[str]) -> list[ParseResult]:
        """Send the completions to the worker in one message; each keeps its time limit.

        If completion *k* runs past its :meth:`limit_for` it is ``timed_out`` and the worker is
        killed; if it kills the worker it is a ``"worker died"`` crash. Either way the
        completions after *k* (and any finished ones the worker had not sent yet) run
        again on a fresh worker, so every result is the one ``run`` would have given.
        """
        results = self._run_all(completions, lambda i: self.limit_for(completions[i]), False)
        # an unreadable result is the caller's error, raised where ``run`` would raise it
        return [check_supported(r, self.name, c) for r, c in zip(results, completions)]

    def run_edits(self, edits: Sequence[Edit], quick: float = 0.0
                  ) -> list[ParseResult | Repeat]:
        """:meth:`run_many` of the edits' texts, built in the worker, which answers a parse
        whose plain return value it has read before with a :data:`~.base.Repeat` (see
        :mod:`.repeats`; its bare index when the parse took less than ``quick`` seconds);
        time limits, hangs and crashes as in :meth:`run_many`."""
        def limit(i: int) -> float | None:
            text, inserts = edits[i]
            return self.limit_for(text + "".join(p for _, p in inserts))  # as long as it

        results = self._run_all(edits, limit, True, quick)
        for r, e in zip(results, edits):
            if isinstance(r, ParseResult) and r.step is not None and r.step.invalid is not None:
                check_supported(r, self.name, apply_edit(e))  # the text only when it raises
        return results

    def repeated(self, index: int) -> ParseResult:
        """The result a :data:`~.base.Repeat` of :meth:`run_edits` repeats."""
        return self._known[index]

    def _run_all(self, items: Sequence[Any], limit: Callable[[int], float | None],
                 edits: bool, quick: float = 0.0) -> list[Any]:
        """Every item's result, over as many workers as hangs and crashes take."""
        with self._lock:
            if self._closed:
                raise UsageError(f"target {self.name!r} is closed")
            results: list[Any] = [None] * len(items)
            todo = list(range(len(items)))
            while todo:
                todo = self._batch(items, limit, todo, results, edits, quick)
        return results

    def _batch(self, items: Sequence[Any], limit_of: Callable[[int], float | None],
               todo: list[int],
               results: list[Any], edits: bool, quick: float) -> list[int]:
        """Run ``todo`` on one worker; the indices left to run when the worker was lost."""
        worker = self._worker()
        base = worker.started
        worker.started += len(todo)
        sent = monotonic()
        payload: Any = [items[i] for i in todo] if not edits else \
            (worker.offset, quick, len(todo), *worker.numbered(items, todo))
        try:
            worker.conn.send_bytes(pickle.dumps(payload, PROTOCOL))
        except (OSError, EOFError):
            pass  # the worker is gone: reading below reports how
        got = 0
        extended = 0.0  # past its limit, the completion running is waited for until then
        while got < len(todo):
            count, since = worker.running()
            at = count - base - 1  # the batch position now running
            if at < got:  # not started yet: time it from the last word from the worker
                at, since = got, sent
            limit = limit_of(todo[at])
            wait = None if limit is None else max(limit - (monotonic() - since),
                                                  extended - monotonic())
            try:
                ready = worker.readable(None if wait is None else max(0.0, wait))
            except (OSError, ValueError):
                ready = True  # the worker is gone: recv below reports how
            if not ready:
                if limit is not None and (monotonic() - since < limit
                                          or monotonic() < extended):
                    continue  # woke a little early, or the next completion just started
                count, _ = worker.running()
                if count - base - 1 != at and count - base - 1 >= got:
                    continue  # it moved on meanwhile
                if limit is not None and worker.starved(limit, since):
                    extended = monotonic() + STARVED_PROBE
                    continue  # the machine, not the parser, held it back: wait on
                self._discard(worker, kill=True)
                results[todo[at]] = ParseResult(timed_out=True, elapsed=monotonic() - since)
                return todo[got:at] + todo[at + 1:]
            try:
                reply = pickle.loads(worker.conn.recv_bytes())
            except (EOFError, OSError):
                code = self._discard(worker, kill=False)
                count, last = worker.running()  # the one it died on
                if count - base - 1 >= got:
                    at, since = count - base - 1, last
                results[todo[at]] = ParseResult(error=f"worker died: {_exit_description(code)}",
                                                elapsed=monotonic() - since)
                return todo[got:at] + todo[at + 1:]
            except Exception as exc:  # a result the parent cannot unpickle
                reply = describe_exception(exc)
            if not self._readable(reply, edits):
                self._discard(worker, kill=True)
                results[todo[got]] = ParseResult(
                    error=f"the parser's result cannot be read: {reply}"
                    if isinstance(reply, str) else "the worker sent an unexpected message",
                    elapsed=monotonic() - since)
                return todo[got + 1:]
            for r in reply[: len(todo) - got]:
                if type(r) is tuple and len(r) == 2:  # a value read for the first time
                    self._known.append(r[1])
                    r = r[1]
                results[todo[got]] = r
                got += 1
            sent = monotonic()
        return []

    def _readable(self, reply: Any, edits: bool) -> bool:
        """Whether ``reply`` is a list of results (or, for edits, repeats and first reads
        numbered in the order the parent keeps them)."""
        if not isinstance(reply, list):
            return False
        if not edits:
            return all(isinstance(r, ParseResult) for r in reply)
        at = len(self._known)
        for r in reply:
            if type(r) is int:  # a quick repeat
                if not 0 <= r < at:
                    return False
            elif type(r) is tuple:
                n = len(r)
                if n == 3:
                    if not 0 <= r[0] < at:
                        return False
                elif n == 2 and r[0] == at and isinstance(r[1], ParseResult):
                    at += 1
                else:
                    return False
            elif not isinstance(r, ParseResult):
                return False
        return True

    def close(self) -> None:
        """Stop the worker process (idempotent)."""
        with self._lock:
            self._closed = True
            self._finalizer()
