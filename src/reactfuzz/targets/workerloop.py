"""The loop a ``module:function`` target's worker process runs (see :mod:`.worker`).

The worker imports the user's parser, warms it up, then answers batches: a list of
completions, or a batch of edits (texts and pieces by number, see
:meth:`~.worker.FunctionTarget.run_edits`), whose parses may come back as repeats
(:mod:`.repeats`). It writes its progress to shared memory before each completion, so
the parent times each completion on its own and knows which one hung or killed it.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
from collections.abc import Sequence
from time import monotonic, thread_time
from typing import Any

from ..errors import UsageError
from ..formats import Format
from .adapters import describe_exception, invoke
from .base import ParseResult
from .origin import ProfileRequest, TraceRequest
from .processes import become_subreaper, die_with_parent, guard_group, own_group, run_kept
from .repeats import invoke_repeating
from .sanitise import sanitise_result
from .user_code import resolve_parser

__all__ = ["FLUSH_INTERVAL", "PROTOCOL", "worker_main"]

PROTOCOL = pickle.HIGHEST_PROTOCOL
"""The pickle protocol of every message between a worker and its parent."""

FLUSH_INTERVAL = 0.005
"""Seconds of finished results a worker holds before it sends them, within a batch: what a
hang or a crash makes the parent run again on a fresh worker (results are the same)."""


def worker_main(conn: Any, spec: str, directory: str, fmt: Format, parent: int | None,
                progress: Any = None) -> None:
    """The worker loop: resolve the parser, warm it up, then answer batches of completions.

    A batch is one pickled message (``send_bytes``): a list of completions, or edits.
    Results go back as one pickled list per reply: at the end of the batch, or sooner
    once ``FLUSH_INTERVAL`` has passed since the last reply. Before each completion the
    worker writes to the shared ``progress`` how many completions it has started and
    when the last one did, so the parent can time each completion on its own and tell
    which one hung or killed the worker, without a message per completion.

    Runs in the child, as the leader of its own process group (stopping it kills what the
    parser forked), dying with ``parent`` when one is given. SIGINT is ignored here (the
    parent handles Ctrl-C and stops the worker) and SIGTERM kills; the loop ends on an
    empty message, or when the parent's end of the pipe closes.
    """
    own_group()
    become_subreaper()  # a parser's child that leaves the group stays this process's
    if parent is not None:
        die_with_parent(parent)
    with contextlib.suppress(ValueError, OSError, AttributeError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    guard_group()
    # the loop runs in a child of this process: if the parser crashes it, this process
    # kills what the parser left in sessions of its own before it ends the same way
    run_kept(lambda: _serve(conn, spec, directory, fmt, progress), close=conn.close)


def _serve(conn: Any, spec: str, directory: str, fmt: Format, progress: Any) -> None:
    """The loop itself (see :func:`worker_main`)."""
    sys.path.insert(0, directory)
    try:
        fn = resolve_parser(spec, directory, probed=False)  # this worker is the probe
    except BaseException as exc:  # report anything to the parent
        message = str(exc) if isinstance(exc, UsageError) else describe_exception(exc)
        with contextlib.suppress(Exception):
            conn.send(("fail", message))
        return
    conn.send(("imported", None))  # what follows is the parser's, not the import's
    # the parser's own prints and logs are not reactfuzz's output (one that prints
    # megabytes a call, or logs a traceback for every refusal, would flood the run): its
    # stdout and its Python-level stderr go nowhere from here on
    _silence_output()
    # one warm-up call before "ready", under the startup limit rather than the per-call one:
    # a parser that imports its framework on first use would time out its first call in
    # every fresh worker otherwise, and never get past it
    with contextlib.suppress(Exception):
        fn("")
    conn.send(("ready", None))
    started = 0
    if progress is not None:
        progress[3] = threading.get_native_id()  # whose CPU time the parent may read
    seen: dict[Any, int] = {}  # the plain values read so far (see .repeats)
    # the edits' texts and pieces so far: each comes once, then by number
    texts: list[str] = []
    pieces: list[str] = []
    while True:
        try:
            message = conn.recv_bytes()
        except (EOFError, OSError):
            return
        if not message:
            return
        pending: list[Any] = []
        flushed = monotonic()
        batch = pickle.loads(message)
        # a list of completions, or edits (see FunctionTarget.run_edits): texts with
        # pieces to insert, as numbers, whose parses may come back as repeats
        if isinstance(batch, tuple):
            offset, quick, count, new_texts, new_pieces, codes = batch
            texts += new_texts
            pieces += new_pieces
            items: Sequence[Any] = range(count)
        else:
            offset, quick, items, codes = -1, 0.0, batch, []
        j = 0  # where the next edit's numbers start in codes
        for completion in items:
            now = monotonic()
            if pending and now - flushed >= FLUSH_INTERVAL:
                if not _reply(conn, pending):
                    return
                pending, flushed = [], now
            started += 1
            # one read of the thread's CPU clock (a system call) a completion: the
            # parent's time limit and the parse's own CPU time both start from it
            cpu = thread_time()
            if progress is not None:  # the times first: the parent reads the count first
                progress[1], progress[2] = now, cpu
                progress[0] = started
            if offset >= 0:
                # the text's number, how many pieces, then each piece's offset and number
                text, k = texts[codes[j]], codes[j + 1]
                j += 2
                while k:  # as apply_edit builds it
                    at = codes[j]
                    text = text[:at] + pieces[codes[j + 1]] + text[at:]
                    j += 2
                    k -= 1
                pending.append(invoke_repeating(fn, text, fmt, seen, offset, cpu, quick))
                continue
            traced = isinstance(completion, TraceRequest)
            profiled = isinstance(completion, ProfileRequest)
            pending.append(sanitise_result(invoke(fn, str(completion), fmt, BaseException,
                                                   trace=traced, profile=profiled)))
        if not _reply(conn, pending):
            return


def _silence_output() -> None:
    """Send this process's stdout (the file descriptor and ``sys.stdout``) and
    ``sys.stderr`` (logging, warnings, printed tracebacks) to /dev/null. The stderr file
    descriptor stays: what the interpreter writes as it dies (a fatal error) still shows."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os.dup2(null, 1)
        os.close(null)
        sys.stdout = open(os.devnull, "w")  # for the worker's whole life
        was, sys.stderr = sys.stderr, open(os.devnull, "w")
        import logging  # a framework's handlers made at import hold the stream they found

        loggers = [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
        for logger in loggers:
            for handler in getattr(logger, "handlers", ()):
                if isinstance(handler, logging.StreamHandler) and \
                        handler.stream in (was, sys.__stderr__, sys.__stdout__):
                    handler.setStream(sys.stderr)


def _reply(conn: Any, results: list[Any]) -> bool:
    """Send ``results`` as one message; ``False`` when the parent's end is gone."""
    try:
        data = pickle.dumps(results, PROTOCOL)
    except Exception:  # some Step holds something that does not pickle: say which
        data = pickle.dumps([_picklable(r) for r in results], PROTOCOL)
    try:
        conn.send_bytes(data)
    except (EOFError, OSError):
        return False
    return True


def _picklable(result: Any) -> Any:
    if isinstance(result, tuple) and isinstance(result[1], ParseResult):
        # a value read for the first time: its repeats are what it is sent as
        return (result[0], _picklable(result[1]))
    if not isinstance(result, ParseResult):
        return result  # a repeat: numbers only
    try:
        pickle.dumps(result, PROTOCOL)
    except Exception as exc:
        return ParseResult(
            error=f"the parser's result cannot be sent back: {describe_exception(exc)}",
            elapsed=result.elapsed,
        )
    return result
