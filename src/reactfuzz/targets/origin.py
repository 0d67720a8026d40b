"""Where a parser decided: the origin of an exception, the path a parse took, or where a
slow parse spent its time.

Two failing examples are one bug when the parser decided them in the same place, not
when their texts look alike. For a parser that raises, the place is the exception's type
with the innermost frame in the user's own code and, apart, the innermost frame overall
(the library it called), as Hypothesis's ``InterestingOrigin`` does; it comes with the
traceback at no cost. For a parser that returns a wrong result, the place is the path the
parse took through the target's code -- the lines executed in the target's modules and the
packages it imports, never the standard library or reactfuzz -- recorded by re-running
that one parse under a tracer (``sys.monitoring`` on 3.12+, ``sys.settrace`` before), so
the cost falls on failing examples only.

A parse too slow for its length is one bug per place its time goes, not one per text: the
parse is run again while a second thread samples its stack (:func:`sampled_call`), and the
function of the target's code that holds most samples names the bug.

Files are named relative to the ``sys.path`` entry that holds them (``agent.py``,
``lagent/agents/react.py``), so a key does not depend on the machine; the absolute path is
kept beside it for reports that link to the file.
"""

from __future__ import annotations

import gc
import hashlib
import linecache
import os
import re
import sys
import sysconfig
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from time import perf_counter
from types import CodeType, FrameType, TracebackType
from typing import Any

__all__ = [
    "PROFILE_INTERVAL",
    "PROFILE_SLOWDOWN",
    "TRACE_SLOWDOWN",
    "Origin",
    "ProfileRequest",
    "Site",
    "TraceRequest",
    "code_kind",
    "last_hot",
    "last_path",
    "origin_of_exception",
    "sampled_call",
    "traced_call",
]

TRACE_SLOWDOWN = 20.0
"""How many times its time limit a traced parse may take (line tracing costs that much)."""

PROFILE_SLOWDOWN = 5.0
"""How many times its time limit a profiled parse may take (the sampling thread's share,
and the profile hook on every call)."""

PROFILE_INTERVAL = 0.0005
"""Seconds between two samples of a profiled parse's stack."""

MAX_PATH_LINES = 4096
"""The most lines a path keeps: a parser that executes more is keyed on these."""

MAX_NOTABLE = 12
"""The most lines of a path kept with their text for advice (those that read the text)."""

# a line that reads the completion: a string literal, a split, a search, a decoder
_READS_TEXT = re.compile(
    r"""["'][^"']*["']|\.(?:split|splitlines|find|rfind|index|rindex|partition|"""
    r"""rpartition|startswith|endswith|strip|replace)\(|\b(?:re|regex)\.|"""
    r"""\.(?:search|match|fullmatch|findall|finditer|sub)\(|\b(?:json5?|json_repair|"""
    r"""demjson3?|ast|yaml|literal_eval|loads|repair_json)\b""")


class TraceRequest(str):
    """A completion to parse under the tracer (sent to a worker like a plain completion)."""

    __slots__ = ()


class ProfileRequest(str):
    """A completion to parse under the sampling profiler (:func:`sampled_call`), sent to a
    worker like a plain completion."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Site:
    """One line of code: the file as imported (relative), its absolute path, the line,
    the function and the line's own text (for advice, and for a reader)."""

    file: str
    line: int
    function: str = ""
    path: str = ""
    code: str = ""

    def where(self) -> str:
        """``file:line`` (with the function when known)."""
        at = f"{self.file}:{self.line}"
        return f"{at} in {self.function}" if self.function else at


@dataclass(frozen=True, slots=True)
class Origin:
    """Where one parse decided: a raise (``exc_type`` set) or a returned result.

    ``site`` is the innermost line in the user's own code (for a return: the line the
    user's parse function returned from); ``inner`` the innermost line in a library the
    user's code called (for a raise: the frame that raised, when not the user's; for a
    return: the line the library's entry function returned from). ``path`` is the set of
    lines the parse executed in the target's code (empty for a raise, and for a target
    with no Python code of its own).
    """

    exc_type: str = ""
    site: Site | None = None
    inner: Site | None = None
    path: tuple[tuple[str, int], ...] = ()
    notable: tuple[Site, ...] = field(default=())
    hot: Site | None = None
    """For a profiled parse: the busiest line of the function of the target's code that
    held most of the samples (:func:`sampled_call`)."""

    @property
    def raised(self) -> bool:
        """Whether the parse ended in an exception."""
        return bool(self.exc_type)

    def key(self) -> str:
        """What tells this origin from another, machine-independent; empty when nothing
        is known (no frame of the target's code took part)."""
        if self.raised:
            parts = [self.exc_type]
            if self.site is not None:
                parts.append(f"at {self.site.file}:{self.site.line}")
            if self.inner is not None:
                parts.append(f"in {self.inner.file}:{self.inner.line}")
            return " ".join(parts)
        # a returned result: the line it returned from in the user's code and in the
        # library that decided (the whole path varies with incidental branches -- which
        # of two ``except`` clauses caught a bad call -- and is kept for guidance, not
        # for keys)
        parts = []
        if self.site is not None:
            parts.append(f"returned at {self.site.file}:{self.site.line}")
        if self.inner is not None:
            parts.append(f"via {self.inner.file}:{self.inner.line}")
        return " ".join(parts)

    def path_digest(self) -> str:
        """A short hash of the whole path ("" when none was recorded)."""
        if not self.path:
            return ""
        return hashlib.sha256(repr(self.path).encode()).hexdigest()[:12]

    def deciding(self) -> Site | None:
        """The line to show a reader: the user's line, else the library's, else where a
        profiled parse spent its time."""
        return self.site or self.inner or self.hot


# ------------------------------------------------------------------ whose code is it


@lru_cache(maxsize=1)
def _stdlib_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    dirs = {os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib") if k in paths}
    return tuple(sorted(d + os.sep for d in dirs))


@lru_cache(maxsize=1)
def _own_dir() -> str:
    return os.path.realpath(os.path.dirname(os.path.dirname(__file__))) + os.sep


_PACKAGE_DIRS = ("site-packages", "dist-packages")
# the fuzzing machinery around a target, never the target's own code (a Hypothesis
# garbage-collector callback can run inside a traced parse)
_MACHINERY = frozenset({"hypothesis", "_hypothesis_ftz_detector", "_pytest", "pytest",
                        "pluggy", "coverage", "atheris"})


@lru_cache(maxsize=4096)
def code_kind(filename: str) -> str:
    """Whose code a file holds: ``user``, ``package`` (installed), ``stdlib``,
    ``reactfuzz`` (this package), ``machinery`` (Hypothesis, pytest: what runs around a
    target), or ``none`` (no file: ``<string>``, frozen modules)."""
    if not filename or filename.startswith("<"):
        return "none"
    real = os.path.realpath(filename)
    if real.startswith(_own_dir()):
        return "reactfuzz"
    parts = real.split(os.sep)
    for i, p in enumerate(parts[:-1]):
        if p in _PACKAGE_DIRS:
            top = parts[i + 1].removesuffix(".py")
            return "machinery" if top in _MACHINERY else "package"
    if real.startswith(_stdlib_dirs()):
        return "stdlib"
    return "user"


@lru_cache(maxsize=4096)
def _relative(filename: str) -> str:
    """``filename`` relative to the ``sys.path`` entry that holds it (the import path)."""
    real = os.path.realpath(filename)
    best = ""
    for entry in sys.path:
        root = os.path.realpath(entry or os.getcwd()) + os.sep
        if real.startswith(root) and len(root) > len(best):
            best = root
    rel = real[len(best):] if best else os.path.basename(real)
    return rel.replace(os.sep, "/")


@lru_cache(maxsize=4096)
def _site(filename: str, line: int, function: str) -> Site:
    """The :class:`Site` of a frame (kept: a parser raises from the same few lines, and
    resolving the path costs system calls)."""
    code = linecache.getline(filename, line).strip()[:200]
    return Site(_relative(filename), line, function, os.path.realpath(filename), code)


def _is_target(filename: str, own: tuple[str, ...]) -> bool:
    kind = code_kind(filename)
    if kind in ("user", "package"):
        return True
    return kind == "reactfuzz" and bool(own) and os.path.realpath(filename).startswith(own)


# ------------------------------------------------------------------------- a raise


def origin_of_exception(exc: BaseException, own: tuple[str, ...] = ()) -> Origin:
    """Where ``exc`` came from: its type, the innermost frame in the user's code, and the
    innermost frame of the target's code overall when that is a library's.

    ``own`` names directories of reactfuzz that count as the target's code (a built-in
    parser's module).
    """
    frames: list[tuple[str, int, str]] = []
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append((code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    site = inner = None
    for filename, line, function in reversed(frames):
        if not _is_target(filename, own):
            continue
        if inner is None:
            inner = (filename, line, function)
        if code_kind(filename) == "user" or (own and code_kind(filename) == "reactfuzz"):
            site = (filename, line, function)
            break
    if isinstance(exc, RecursionError):
        site, inner = _recursion_entry(frames, own, site, inner)
    if site is not None and site == inner:
        inner = None
    return Origin(
        exc_type=_type_name(exc),
        site=_site(*site) if site else None,
        inner=_site(*inner) if inner else None,
    )


def _recursion_entry(frames: list[tuple[str, int, str]], own: tuple[str, ...],
                     site: tuple[str, int, str] | None,
                     inner: tuple[str, int, str] | None,
                     ) -> tuple[tuple[str, int, str] | None, tuple[str, int, str] | None]:
    """Where a RecursionError is keyed: where the stack ran out is wherever the recursion
    stood then, so the key is the call into it (the first frame of the target's code
    whose function recurs, or, for a recursion in C, the first one inside the site) and
    the user's frame at or before it."""
    ours = [f for f in frames if _is_target(f[0], own)]
    funcs = [(f[0], f[2]) for f in ours]
    entry = next((i for i, fn in enumerate(funcs) if fn in funcs[i + 1:]), None)
    if entry is None:
        if site is None:
            return site, inner
        deeper = ours[ours.index(site) + 1:]
        return site, next(iter(deeper), None)
    user = [f for f in ours[:entry + 1]
            if code_kind(f[0]) == "user" or (own and code_kind(f[0]) == "reactfuzz")]
    site = user[-1] if user else None
    return site, ours[entry]


def _type_name(exc: BaseException) -> str:
    try:
        return type(exc).__qualname__
    except Exception:  # pragma: no cover - a class whose name cannot be read
        return "Exception"


# -------------------------------------------------------------------------- a path


class _Recorder:
    """What one traced parse executed in the target's code."""

    def __init__(self, own: tuple[str, ...]) -> None:
        self.own = own
        self.lines: set[tuple[str, int]] = set()
        self.files: dict[str, bool] = {}
        # (depth, is user code, caller is user code, file, line, function, lines run
        # while the frame was active, the frame's id, (the caller's id, its line), the
        # returned value's id) per return
        self.returns: list[tuple[int, bool, bool, str, int, str, int, int,
                                 tuple[int, int], int]] = []
        self.events = 0  # line events so far
        self.starts: dict[int, int] = {}  # id(frame) -> line events when it started

    def started(self, frame: FrameType) -> None:
        self.starts[id(frame)] = self.events

    def wanted(self, filename: str) -> bool:
        hit = self.files.get(filename)
        if hit is None:
            hit = self.files[filename] = _is_target(filename, self.own)
        return hit

    def line(self, code: CodeType, lineno: int) -> None:
        self.events += 1
        if len(self.lines) < MAX_PATH_LINES:
            self.lines.add((code.co_filename, lineno))

    def returned(self, frame: FrameType, lineno: int, value: Any = None) -> None:
        code = frame.f_code
        depth, up = 0, frame.f_back
        caller_user = False
        caller = (id(up), up.f_lineno) if up is not None else (0, 0)
        if up is not None:
            caller_user = self.wanted(up.f_code.co_filename) and self._user(
                up.f_code.co_filename)
        while up is not None:
            depth += 1
            up = up.f_back
        span = self.events - self.starts.pop(id(frame), self.events)
        self.returns.append((depth, self._user(code.co_filename), caller_user,
                             code.co_filename, lineno, code.co_name, span, id(frame),
                             caller, id(value)))

    def _user(self, filename: str) -> bool:
        kind = code_kind(filename)
        return kind == "user" or (kind == "reactfuzz" and bool(self.own))

    @staticmethod
    def _feeds(callee: tuple[Any, ...], caller: tuple[Any, ...]) -> bool:
        """Whether ``callee`` returned into ``caller``'s return statement (``return
        helper(text)``): user code, called from that frame, and the very value the caller
        returned (not a part of it, as ``Step(thought=helper(text))``)."""
        return bool(callee[1]) and callee[8][0] == caller[7] and callee[9] == caller[9]

    def origin(self) -> Origin:
        if not self.returns:
            return Origin()
        top = min(r[0] for r in self.returns)
        site = inner = None
        outer = [i for i, r in enumerate(self.returns) if r[0] == top]
        if outer and self.returns[outer[-1]][1]:
            # down the chain of ``return helper(text)``: each return just before its
            # caller's, one level deeper, in the user's code; the deepest decided
            at = outer[-1]
            while at > 0 and self._feeds(self.returns[at - 1], self.returns[at]):
                at -= 1
            site = self.returns[at]
        # the library's entry point: of the package functions the user's code called (or,
        # for a target that is itself a package function, the outermost), the one that
        # ran the most lines: the framework's parse, not a property read after it
        entries = [r for r in self.returns if not r[1] and (r[2] or r[0] == top)]
        if entries:
            inner = max(reversed(entries), key=lambda r: r[6])
        path = tuple(sorted((_relative(f), n) for f, n in self.lines))
        notable: list[Site] = []
        for f, n in sorted(self.lines):
            code = linecache.getline(f, n).strip()
            if code and not code.startswith(("#", "def ", "class ", "return", '"""')) \
                    and _READS_TEXT.search(code):
                notable.append(Site(_relative(f), n, "", os.path.realpath(f), code[:200]))
                if len(notable) == MAX_NOTABLE:
                    break
        return Origin(
            site=_site(site[3], site[4], site[5]) if site else None,
            inner=_site(inner[3], inner[4], inner[5]) if inner else None,
            path=path,
            notable=tuple(notable),
        )


def _trace_with_settrace(call: Callable[[], Any], rec: _Recorder) -> Any:
    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            rec.line(frame.f_code, frame.f_lineno)
        elif event == "return":
            rec.returned(frame, frame.f_lineno, arg)
        return local

    def global_(frame: FrameType, event: str, arg: Any) -> Any:
        if event != "call" or not rec.wanted(frame.f_code.co_filename):
            return None
        rec.started(frame)
        return local

    previous = sys.gettrace()
    sys.settrace(global_)
    try:
        return call()
    finally:
        sys.settrace(previous)


_TOOL_LOCK = threading.Lock()


def _trace_with_monitoring(call: Callable[[], Any], rec: _Recorder) -> Any:  # pragma: no cover
    monitoring = sys.monitoring  # type: ignore[attr-defined]
    events = monitoring.events
    with _TOOL_LOCK:
        tool = next((t for t in range(6) if monitoring.get_tool(t) is None), None)
        if tool is None:  # every tool id taken (a debugger, coverage): fall back
            return _trace_with_settrace(call, rec)
        monitoring.use_tool_id(tool, "reactfuzz")
    disable = monitoring.DISABLE

    def on_line(code: CodeType, lineno: int) -> Any:
        if not rec.wanted(code.co_filename):
            return disable
        rec.line(code, lineno)
        return None

    def on_start(code: CodeType, offset: int) -> Any:
        if not rec.wanted(code.co_filename):
            return disable
        rec.started(sys._getframe(1))
        return None

    def on_return(code: CodeType, offset: int, retval: Any) -> Any:
        if not rec.wanted(code.co_filename):
            return disable
        frame = sys._getframe(1)
        rec.returned(frame, frame.f_lineno, retval)
        return None

    try:
        monitoring.register_callback(tool, events.LINE, on_line)
        monitoring.register_callback(tool, events.PY_RETURN, on_return)
        monitoring.register_callback(tool, events.PY_START, on_start)
        monitoring.set_events(tool, events.LINE | events.PY_RETURN | events.PY_START)
        return call()
    finally:
        monitoring.set_events(tool, 0)
        monitoring.register_callback(tool, events.LINE, None)
        monitoring.register_callback(tool, events.PY_RETURN, None)
        monitoring.register_callback(tool, events.PY_START, None)
        monitoring.free_tool_id(tool)


_LAST = threading.local()


def last_path() -> Origin | None:
    """The path of this thread's last traced call (the lines a raising parse ran before
    it raised, which its exception's frames do not show)."""
    return getattr(_LAST, "origin", None)


def traced_call(call: Callable[[], Any], own: tuple[str, ...] = ()) -> tuple[Any, Origin]:
    """Run ``call()`` recording the lines it executes in the target's code; returns its
    result and the :class:`Origin` of the result. A raise propagates; its path is kept
    for :func:`last_path`."""
    rec = _Recorder(own)
    _LAST.origin = None
    collecting = gc.isenabled()
    gc.disable()  # a collection's callbacks would run inside the parse's path
    try:
        if hasattr(sys, "monitoring"):  # pragma: no cover - 3.12+
            result = _trace_with_monitoring(call, rec)
        else:
            result = _trace_with_settrace(call, rec)
    except BaseException:
        _LAST.origin = rec.origin()
        raise
    finally:
        if collecting:
            gc.enable()
    return result, rec.origin()


# -------------------------------------------------------------- where the time goes


def last_hot() -> Site | None:
    """Where this thread's last profiled call (:func:`sampled_call`) spent its time."""
    return getattr(_LAST, "hot", None)


def sampled_call(call: Callable[[], Any], own: tuple[str, ...] = ()) -> Any:
    """Run ``call()`` while a second thread samples this thread's stack every
    :data:`PROFILE_INTERVAL` seconds; :func:`last_hot` then says where the time went (also
    when ``call`` raised). A sample counts for the innermost frame in the target's code (the
    standard library counts for the line that called it). A regex or a decoder written in C
    holds the interpreter for its whole call, so no sample lands inside it: each C call is
    also timed (``sys.setprofile``) and counts for its calling line, one sample per
    interval it took. The function with the most samples wins (ties: the first by file and
    name), shown at its busiest line. Keyed by function, not line: which of two lines of
    one loop leads varies from run to run, the function holding the time does not."""
    me = threading.get_ident()
    by_function: Counter[tuple[str, str]] = Counter()
    by_line: Counter[tuple[str, str, int]] = Counter()
    wanted: dict[str, bool] = {}
    done = threading.Event()

    def count(frame: FrameType | None, n: int) -> None:
        while frame is not None:
            code = frame.f_code
            hit = wanted.get(code.co_filename)
            if hit is None:
                hit = wanted[code.co_filename] = _is_target(code.co_filename, own)
            if hit:
                by_function[code.co_filename, code.co_name] += n
                by_line[code.co_filename, code.co_name, frame.f_lineno] += n
                return
            frame = frame.f_back

    def sample() -> None:
        frames = sys._current_frames
        while not done.wait(PROFILE_INTERVAL):
            count(frames().get(me), 1)

    started: list[float] = []

    def on_event(frame: FrameType, event: str, arg: Any) -> None:
        if event == "c_call":
            started.append(perf_counter())
        elif event in ("c_return", "c_exception") and started:
            took = perf_counter() - started.pop()
            if took >= PROFILE_INTERVAL:
                count(frame, int(took / PROFILE_INTERVAL))

    _LAST.hot = None
    sampler = threading.Thread(target=sample, name="reactfuzz-profile", daemon=True)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(PROFILE_INTERVAL)  # the parse yields to the sampler that often
    sampler.start()
    sys.setprofile(on_event)
    try:
        return call()
    finally:
        sys.setprofile(None)
        done.set()
        sampler.join()
        sys.setswitchinterval(interval)
        _LAST.hot = _busiest(by_function, by_line)


def _busiest(by_function: Counter[tuple[str, str]],
             by_line: Counter[tuple[str, str, int]]) -> Site | None:
    if not by_function:
        return None
    (filename, function), _ = min(by_function.items(), key=lambda kv: (-kv[1], kv[0]))
    line = min((n for (f, fn, n) in by_line if (f, fn) == (filename, function)),
               key=lambda n: (-by_line[filename, function, n], n))
    return _site(filename, line, function)
