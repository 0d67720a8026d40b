"""Running the harness under Atheris (libFuzzer), instrumenting only the target.

Coverage feedback is what makes libFuzzer find anything, and its cost is per instrumented
line: instrumenting everything a run imports (Hypothesis, pydantic, Lark: hundreds of
modules) makes start-up take half a minute and drowns the target's few edges in noise.
Only the target's code is instrumented here: the user's package for ``module:attr`` (and
any package named with ``instrument``), reactfuzz's parser modules when a built-in parser
is the target. Atheris is an optional dependency (``pip install 'reactfuzz[fuzz]'``).
"""

from __future__ import annotations

import inspect
import os
import sys
import tempfile
import time
import types
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..parsers import PARSERS
from .harness import Harness

__all__ = ["import_atheris", "instrument_modules", "run_atheris", "target_modules"]

_BUILTIN_CODE = {
    "grammar": ("reactfuzz.parsers", "reactfuzz.formats.grammars", "reactfuzz.formats.fastpath"),
}
"""The reactfuzz modules holding a built-in target's code (default: the parsers module)."""


def import_atheris() -> Any:
    """The ``atheris`` module, or a usage error saying how to install it."""
    try:
        import atheris  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        raise UsageError("Atheris is not installed (pip install 'reactfuzz[fuzz]', or use"
                         " --driver python)") from None
    return atheris


def target_modules(target: str, extra: Iterable[str] = ()) -> list[str]:
    """The module (package) names whose code is the target's: what to instrument."""
    if target in PARSERS:
        mods = list(_BUILTIN_CODE.get(target, ("reactfuzz.parsers",)))
    elif target.startswith("grammar:"):
        mods = ["reactfuzz.targets.grammar", "reactfuzz.formats.grammars"]
    elif target.startswith("regex:"):
        mods = []  # the pattern runs in C: the dictionary and seeds do the work
    else:
        mods = [target.partition(":")[0].partition(".")[0]]
    return list(dict.fromkeys([*mods, *extra]))


def _functions(module: types.ModuleType) -> Iterable[types.FunctionType]:
    """Every plain function defined in ``module``, including methods of its classes."""
    for value in list(vars(module).values()):
        if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            yield value
        elif inspect.isclass(value) and value.__module__ == module.__name__:
            for member in vars(value).values():
                fn = member.__func__ if isinstance(member, (staticmethod, classmethod)) \
                    else member.fget if isinstance(member, property) else member
                if isinstance(fn, types.FunctionType) and fn.__module__ == module.__name__:
                    yield fn


def instrument_modules(atheris: Any, names: Sequence[str]) -> int:
    """Add Atheris coverage instrumentation to the functions of the modules named (a name
    covers its submodules) that are imported; returns how many functions."""
    done: set[int] = set()
    for mod_name, module in sorted(sys.modules.items()):
        if module is None or not any(mod_name == n or mod_name.startswith(n + ".")
                                     for n in names):
            continue
        for fn in _functions(module):
            if id(fn.__code__) not in done:
                atheris.instrument_func(fn)
                done.add(id(fn.__code__))
    return len(done)


def run_atheris(harness: Harness, seeds: Sequence[bytes], dictionary: str, *,
                seconds: float | None, inputs: str | os.PathLike[str] | None = None,
                instrument: Sequence[str] = (), libfuzzer_args: Sequence[str] = ()) -> None:
    """Fuzz ``harness`` under libFuzzer: seeds written to the ``inputs`` corpus directory
    (libFuzzer adds what it finds there: share it between runs), the dictionary passed
    with ``-dict``. After ``seconds`` the summary goes to stderr and the process exits:
    1 when the campaign wrote new findings, else 0. Does not return."""
    from .seeds import write_inputs

    atheris = import_atheris()
    work = Path(tempfile.mkdtemp(prefix="reactfuzz-fuzz-"))
    corpus = Path(inputs) if inputs is not None else work / "inputs"
    write_inputs(seeds, corpus)
    dict_path = work / "format.dict"
    dict_path.write_text(dictionary, encoding="utf-8")
    count = instrument_modules(atheris, target_modules(harness.target_spec, instrument))
    print(f"reactfuzz: instrumented {count} functions of"
          f" {', '.join(target_modules(harness.target_spec, instrument)) or 'nothing'}",
          file=sys.stderr)
    deadline = None if seconds is None else time.perf_counter() + seconds
    reported = [0]

    def one_input(data: bytes) -> None:
        if deadline is not None and time.perf_counter() >= deadline:
            print(harness.stats.summary(), file=sys.stderr, flush=True)
            sys.stdout.flush()
            os._exit(1 if harness.stats.findings else 0)
        harness(data)
        while reported[0] < len(harness.stats.findings):
            f = harness.stats.findings[reported[0]]
            reported[0] += 1
            print(f"reactfuzz: finding {f.check} ({f.failure}): {f.completion!r}",
                  file=sys.stderr, flush=True)

    defaults = [f"-{k}" for k in ("max_len=4096", "timeout=10")
                if not any(a.startswith(f"-{k.partition('=')[0]}=") for a in libfuzzer_args)]
    argv = [sys.argv[0], f"-dict={dict_path}", *defaults, *libfuzzer_args, str(corpus)]
    atheris.Setup(argv, one_input)
    atheris.Fuzz()
