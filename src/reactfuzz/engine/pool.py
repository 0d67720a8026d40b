"""A small process pool whose workers may start processes of their own.

``multiprocessing.Pool`` makes its workers daemonic, and a daemonic process may not have
children; but a ``module:function`` target runs the user's parser in a worker process of
its own (the only way to stop it in the middle of C code). The engine's workers here are
ordinary processes, so a target keeps its per-call time limit and hang isolation under
``--workers N``. The parent stops every worker it started, whatever happens.
"""

from __future__ import annotations

import contextlib
import queue as _queue
import traceback
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["WorkerFailed", "map_unordered"]


class WorkerFailed(RuntimeError):
    """A worker process died, or raised something that cannot be sent back as it was."""


def _loop(tasks: Any, results: Any, initializer: Callable[..., None], initargs: tuple[Any, ...],
          func: Callable[[Any], Any]) -> None:
    """A worker: run ``func`` on each task until the ``None`` sentinel."""
    initializer(*initargs)
    while True:
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


def map_unordered(
    ctx: Any,
    processes: int,
    func: Callable[[Any], Any],
    tasks: Iterable[Any],
    *,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...] = (),
    started: Callable[[], None] | None = None,
) -> list[Any]:
    """``func`` over ``tasks`` in ``processes`` non-daemonic processes of ``ctx``.

    Results come back in completion order; the first exception a task raised is raised
    here (after every worker is stopped). ``started`` runs once every worker is forked (a
    thread must not exist while forking). Ctrl-C stops the workers and re-raises.
    """
    items = list(tasks)
    todo, done = ctx.Queue(), ctx.Queue()
    for item in enumerate(items):
        todo.put(item)
    workers = [
        ctx.Process(target=_loop, args=(todo, done, initializer, initargs, func),
                    name=f"reactfuzz-engine-{i}", daemon=False)
        for i in range(max(1, min(processes, len(items))))
    ]
    for _ in workers:
        todo.put(None)
    out: list[Any] = []
    try:
        for w in workers:
            w.start()
        if started is not None:
            started()
        while len(out) < len(items):
            try:
                _index, ok, value = done.get(timeout=0.2)
            except _queue.Empty:
                if not any(w.is_alive() for w in workers) and done.empty():
                    codes = ", ".join(str(w.exitcode) for w in workers)
                    raise WorkerFailed(f"the engine's workers exited early (exit codes {codes})"
                                       ) from None
                continue
            if not ok:
                raise value
            out.append(value)
    finally:
        for w in workers:
            w.join(timeout=5 if len(out) == len(items) else 0.2)
            if w.is_alive():
                w.terminate()
                w.join(timeout=2)
            if w.is_alive():
                w.kill()
                w.join(timeout=2)
        for q in (todo, done):
            with contextlib.suppress(Exception):
                q.close()
                q.cancel_join_thread()
    return out
