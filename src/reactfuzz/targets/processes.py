"""Child processes that never outlive reactfuzz: their own process group, tied to a parent.

A user parser runs in a worker process and may fork processes of its own. Each worker
leads a process group of its own, so stopping it kills the group, grandchildren too; on
Linux it also dies with the process that started it (``PR_SET_PDEATHSIG``), and a small
guard process in its group kills the group when the worker dies, so even a ``SIGKILL``
of reactfuzz leaves no parser process behind. A child that leaves the group (``setsid``)
is still the worker's descendant, and the worker adopts it if its parent exits (a child
subreaper), so stopping the worker kills its whole tree first. The worker's loop runs in a
child of its own (:func:`run_kept`): when the parser crashes that child, the worker, still
alive and still the subreaper, kills what the parser left in other sessions before it ends
the same way.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__: list[str] = []

_LINUX = sys.platform.startswith("linux")


def _set_parent_death_signal(signum: int) -> None:
    """Linux: have the kernel send ``signum`` to this process when its parent dies."""
    if not _LINUX:
        return
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signum, 0, 0, 0)  # PR_SET_PDEATHSIG


def own_group() -> None:
    """Make the calling process the leader of a new process group (where it can)."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpgid(0, 0)


def die_with_parent(parent: int) -> None:
    """Die (``SIGKILL``) when ``parent`` dies; if it is already gone, die now."""
    _set_parent_death_signal(signal.SIGKILL)
    if _LINUX and os.getppid() != parent:
        os._exit(1)


def guard_group() -> None:
    """Fork a guard that kills this process's group when this process dies (Linux only).

    The guard only waits for a signal, so it reacts even while the worker is stuck in C
    code; it is in the group it kills, and goes with it.
    """
    if not _LINUX or not hasattr(os, "fork"):
        return
    leader = os.getpid()
    pid = os.fork()
    if pid != 0:
        return
    try:  # the guard
        def kill_group(signum: int, frame: Any) -> None:
            with contextlib.suppress(OSError):
                os.killpg(leader, signal.SIGKILL)
            os._exit(0)

        for sig in (signal.SIGINT, signal.SIGHUP):
            with contextlib.suppress(OSError, ValueError):
                signal.signal(sig, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, kill_group)
        _set_parent_death_signal(signal.SIGTERM)
        if os.getppid() != leader:
            kill_group(0, None)
        os.closerange(3, 65536)  # the worker's pipe is not the guard's to hold open
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1):
                os.dup2(devnull, fd)
        while True:
            signal.pause()
    finally:
        os._exit(0)


def become_subreaper() -> None:
    """Linux: adopt this process's orphaned descendants (``PR_SET_CHILD_SUBREAPER``), so a
    parser's child that starts its own session and loses its parent stays reachable."""
    if not _LINUX:
        return
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def run_kept(body: Callable[[], None], close: Callable[[], None] = lambda: None) -> None:
    """Run ``body`` in a forked child while this process, a subreaper, waits for it; when
    the child ends, however it ends, kill every descendant left (those in sessions of their
    own too), then end as the child ended: its exit code, or its signal. Elsewhere than
    Linux ``body`` runs here. ``close`` drops this process's copies of what only the child
    uses (a pipe whose EOF the other end waits for)."""
    if not _LINUX or not hasattr(os, "fork"):
        body()
        return
    keeper = os.getpid()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            _set_parent_death_signal(signal.SIGKILL)
            if os.getppid() != keeper:
                os._exit(1)
            body()
        except BaseException:
            code = 1
            with contextlib.suppress(Exception):
                import traceback

                traceback.print_exc()
        finally:
            with contextlib.suppress(Exception):
                sys.stderr.flush()
            os._exit(code)
    close()
    status = 0
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:  # pragma: no cover - PEP 475 retries waitpid itself
            continue
        except ChildProcessError:
            break
    kill_tree(keeper)
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:  # what it adopted and killed: no zombies
            pass
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        with contextlib.suppress(Exception):
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the child's crash, not ours
        with contextlib.suppress(OSError, ValueError):
            signal.signal(sig, signal.SIG_DFL)
            os.kill(keeper, sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status) if status else 0)


def descendants(pid: int) -> list[int]:
    """Every living descendant of ``pid`` (Linux, from /proc; elsewhere none), deepest
    first: what a process group misses when a child calls ``setsid()``."""
    if not _LINUX or pid <= 0:
        return []
    parents: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as fh:
                    stat = fh.read()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2:].split()
            if len(fields) > 1:
                parents[int(entry.name)] = int(fields[1])
    found: list[int] = []
    frontier = [pid]
    while frontier:
        children = [c for c, p in parents.items() if p in frontier and c not in found]
        found += children
        frontier = children
    return found[::-1]


def kill_tree(pid: int | None) -> None:
    """``SIGKILL`` every descendant of ``pid`` (not ``pid`` itself), wherever their
    process group or session went."""
    if pid is None:
        return
    for child in descendants(pid):
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)


def kill_group(pgid: int | None) -> None:
    """``SIGKILL`` every process left in group ``pgid`` (nothing if it is gone)."""
    if pgid is None or pgid <= 0 or pgid == os.getpgrp():
        return
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)


def in_main_thread() -> bool:
    """Whether the caller runs in the main thread (signals and parent-death need it)."""
    return threading.current_thread() is threading.main_thread()


def thread_times(tid: int) -> tuple[float, float] | None:
    """The seconds thread ``tid`` has run on a CPU and waited, runnable, for one (Linux,
    from ``/proc/TID/schedstat``); ``None`` where that cannot be read. The second is the
    time a loaded machine took from it: what a time limit should not count."""
    try:
        with open(f"/proc/{tid}/schedstat", "rb") as fh:
            ran, waited = fh.read().split()[:2]
        return int(ran) / 1e9, int(waited) / 1e9
    except (OSError, ValueError):
        return None
