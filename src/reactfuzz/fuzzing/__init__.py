"""Coverage-guided fuzzing entry points (Atheris / libFuzzer style) for long campaigns.

Raw bytes carry no intent, so the oracle is the format's own reading: the grammar with
typed dispatch (:mod:`.oracle`). Each input runs through the engine's example pipeline
and the engine's checks that apply to raw bytes (:mod:`.harness`): a target must execute
the call the format reads, or refuse; it must never run another call or one the format
refuses, answer where the format acts (or otherwise), crash, run past its time limit,
act on a model-written observation or refuse without a reason. A failure is shrunk and
written as a corpus finding that ``reactfuzz replay`` reproduces. The package also writes
the format's libFuzzer dictionary (:mod:`.dictionary`) and seed inputs (:mod:`.seeds`),
and runs campaigns under Atheris (:mod:`.libfuzzer`, instrumenting only the target) or a
small pure-Python driver (:mod:`.driver`). Use it from a fuzz script::

    import sys

    import atheris
    from reactfuzz.fuzzing import fuzz_script

    if __name__ == "__main__":
        fuzz_script("mypkg.agent:parse", "bracket")

or from the command line: ``python -m reactfuzz.fuzzing run mypkg.agent:parse --seconds
600`` (see docs/long-campaigns.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .cli import main
from .harness import DEFAULT_CHECKS, FuzzFailure, Harness

__all__ = ["FuzzFailure", "Harness", "entry_point", "fuzz_script", "main"]

_CHECK_SETS = {
    "agrees-with-design": list(DEFAULT_CHECKS),
    "no-crash": ["no-crash"],
    "bounded-time": ["bounded-time"],
}


def entry_point(
    target: str = "classic-bracket",
    fmt: str = "bracket",
    *,
    dispatcher: str = "auto",
    tools: str = "default",
    check: str = "agrees-with-design",
    time_limit: float = 1.0,
    findings: str | os.PathLike[str] | None = None,
) -> Harness:
    """``fuzz_one_input`` for a target: raises :class:`FuzzFailure` on a failure.

    ``check`` is ``agrees-with-design`` (every engine check that applies to raw bytes,
    the format's reading as the oracle), ``no-crash`` or ``bounded-time``. With
    ``findings`` each failure is also written there as a shrunk corpus finding, and root
    causes already there no longer raise.
    """
    if check not in _CHECK_SETS:
        raise ValueError(f"unknown check {check!r}: {', '.join(_CHECK_SETS)}")
    return Harness(target, fmt, dispatcher=dispatcher, tools=tools, checks=_CHECK_SETS[check],
                   time_limit=time_limit, findings=findings, on_failure="raise")


def fuzz_script(target: str, fmt: str = "bracket", *, findings: str | None = None,
                instrument: Sequence[str] = (), tools: str = "default",
                argv: Sequence[str] | None = None) -> None:
    """A whole Atheris fuzz script: the target's harness, only its code instrumented,
    libFuzzer started with ``argv`` (default ``sys.argv``). ``findings`` defaults to a
    ``<script>_findings`` directory beside the script (ClusterFuzzLite ships it with the
    fuzzer): its root causes are known and do not stop the run. Does not return."""
    from .libfuzzer import import_atheris, instrument_modules, target_modules

    atheris = import_atheris()
    args = list(sys.argv if argv is None else argv)
    if findings is None:
        script = Path(args[0] if args else "fuzz").resolve()
        findings = str(script.with_name(script.stem + "_findings"))
    harness = Harness(target, fmt, tools=tools, findings=findings, on_failure="raise")
    instrument_modules(atheris, target_modules(target, instrument))
    atheris.Setup(args, harness)
    atheris.Fuzz()
