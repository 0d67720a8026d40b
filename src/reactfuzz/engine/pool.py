"""A small process pool whose workers may start processes of their own.

``multiprocessing.Pool`` makes its workers daemonic, and a daemonic process may not have
children; but a ``module:function`` target runs the user's parser in a worker process of
its own (the only way to stop it in the middle of C code). The engine's workers here are
ordinary processes, so a target keeps its per-call time limit and hang isolation under
``--workers N``. The parent stops every worker it started, whatever happens.

Each worker leads its own process group and dies with the parent (Linux), so a
terminal's Ctrl-C reaches the parent alone: on Ctrl-C or SIGTERM the parent asks every
worker to stop (SIGINT), collects what they had found for a few seconds, then kills
what is left.
"""

from __future__ import annotations

import contextlib
import os
import queue as _queue
import signal
import time
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from ..targets.processes import die_with_parent, kill_group, own_group

__all__ = ["GRACE", "WorkerFailed", "map_unordered"]

GRACE = 10.0
"""Seconds the workers get, once interrupted, to hand back what they found."""


class WorkerFailed(RuntimeError):
    """A worker process died, or raised something that cannot be sent back as it was."""


def _loop(tasks: Any, results: Any, stop: Any, parent: int,
          initializer: Callable[..., None], initargs: tuple[Any, ...],
          func: Callable[[Any], Any]) -> None:
    """A worker: run ``func`` on each task until the ``None`` sentinel or a stop."""
    own_group()
    die_with_parent(parent)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's last resort: die
    try:
        initializer(*initargs)
        while not stop.is_set():
            item = tasks.get()
            if item is None:
                return
            index, task = item
            try:
                results.put((index, True, func(task)))
            except BaseException as exc:  # sent back to the parent, which raises it
                try:
                    results.put((index, False, exc))
                except Exception:  # the exception does not pickle
                    results.put((index, False, WorkerFailed(traceback.format_exc(limit=5))))
                if isinstance(exc, KeyboardInterrupt):
                    return
    except KeyboardInterrupt:  # stopped between tasks: nothing to hand back
        return


def map_unordered(
    ctx: Any,
    processes: int,
    func: Callable[[Any], Any],
    tasks: Iterable[Any],
    *,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...] = (),
    started: Callable[[], None] | None = None,
    results: list[Any] | None = None,
) -> list[Any]:
    """``func`` over ``tasks`` in ``processes`` non-daemonic processes of ``ctx``.

    Results come back in completion order, appended to ``results`` (a new list by
    default) as they arrive; the first exception a task raised is raised here (after
    every worker is stopped). ``started`` runs once every worker is forked (a thread must
    not exist while forking). On Ctrl-C (or SIGTERM raised as one) the workers are
    asked to stop, what they hand back within :data:`GRACE` seconds is appended to
    ``results``, and the interruption is re-raised.
    """
    items = list(tasks)
    out: list[Any] = [] if results is None else results
    todo, done, stop = ctx.Queue(), ctx.Queue(), ctx.Event()
    for item in enumerate(items):
        todo.put(item)
    workers = [
        ctx.Process(target=_loop,
                    args=(todo, done, stop, os.getpid(), initializer, initargs, func),
                    name=f"reactfuzz-engine-{i}", daemon=False)
        for i in range(max(1, min(processes, len(items))))
    ]
    for _ in workers:
        todo.put(None)
    received = 0
    try:
        for w in workers:
            w.start()
        if started is not None:
            started()
        while received < len(items):
            try:
                _index, ok, value = done.get(timeout=0.2)
            except _queue.Empty:
                if not any(w.is_alive() for w in workers) and done.empty():
                    codes = ", ".join(str(w.exitcode) for w in workers)
                    raise WorkerFailed(f"the engine's workers exited early (exit codes {codes})"
                                       ) from None
                continue
            received += 1
            if not ok:
                raise value
            out.append(value)
    except KeyboardInterrupt:
        _wind_down(workers, done, stop, out)
        raise
    finally:
        for w in workers:
            w.join(timeout=5 if received == len(items) else 0.2)
            if w.is_alive():
                w.terminate()
                w.join(timeout=2)
            if w.is_alive():
                w.kill()
                w.join(timeout=2)
            kill_group(w.pid)  # anything a worker left in its group
        for q in (todo, done):
            with contextlib.suppress(Exception):
                q.close()
                q.cancel_join_thread()
    return out


def _wind_down(workers: list[Any], done: Any, stop: Any, out: list[Any]) -> None:
    """Ask every worker to stop and keep what they hand back within :data:`GRACE`."""
    stop.set()
    for w in workers:
        if w.is_alive() and w.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(w.pid, signal.SIGINT)
    deadline = time.monotonic() + GRACE
    try:
        while time.monotonic() < deadline:
            try:
                _index, ok, value = done.get(timeout=0.1)
            except _queue.Empty:
                if not any(w.is_alive() for w in workers) and done.empty():
                    return
                continue
            if ok:
                out.append(value)
    except KeyboardInterrupt:  # asked twice: stop waiting
        return
