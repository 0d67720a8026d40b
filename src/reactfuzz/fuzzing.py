"""Coverage-guided fuzzing entry points (Atheris / libFuzzer style) for long campaigns.

Every check is exposed as ``fuzz_one_input(data: bytes) -> None`` that raises on a
failure, so users who outgrow one machine run reactfuzz on an existing fuzzing
infrastructure (Atheris locally, ClusterFuzzLite or OSS-Fuzz in CI) instead of ours.

Raw bytes carry no intent, so the oracle is the format's own reading: the grammar with
typed dispatch. A target must execute the call the grammar + typed design executes, or
refuse; it must never execute another call, answer where the grammar acts (or the other
way round), crash, or run past its time limit. Use it from a fuzz script::

    import atheris, sys
    from reactfuzz.fuzzing import entry_point

    fuzz_one_input = entry_point("mypkg.agent:parse", fmt="bracket")
    atheris.Setup(sys.argv, fuzz_one_input)
    atheris.Fuzz()

or run ``python -m reactfuzz.fuzzing TARGET [FORMAT] -- <libFuzzer options>``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from .dispatch import Crashed, Executed, Finished, get_dispatcher
from .engine import auto_dispatcher, decide_example
from .formats import get_format
from .targets import load_target, load_tools

__all__ = ["FuzzFailure", "entry_point", "main"]


class FuzzFailure(AssertionError):
    """A failure of the target on one fuzzer input (the fuzzer records it as a crash)."""


def entry_point(
    target: str = "classic-bracket",
    fmt: str = "bracket",
    *,
    dispatcher: str = "auto",
    tools: str = "default",
    check: str = "agrees-with-design",
    time_limit: float = 1.0,
) -> Callable[[bytes], None]:
    """``fuzz_one_input`` for a target and one check.

    ``check`` is ``agrees-with-design`` (the decision matches grammar + typed dispatch, as
    above), ``no-crash`` (the parser and dispatcher never raise) or ``bounded-time``.
    """
    f = get_format(fmt)
    tgt = load_target(target, f, timeout=time_limit)
    registry = load_tools(tools)
    how = auto_dispatcher(target) if dispatcher == "auto" else dispatcher
    get_dispatcher(how)  # an unknown dispatcher fails here, not on the first input
    if check not in ("agrees-with-design", "no-crash", "bounded-time"):
        raise ValueError(f"unknown check {check!r}: agrees-with-design, no-crash, bounded-time")

    def fuzz_one_input(data: bytes) -> None:
        text = data.decode("utf-8", errors="replace")
        ex = decide_example(text, tgt, f, registry, how, time_limit=time_limit,
                            target_is_grammar=target == "grammar")
        result, outcome = ex.result, ex.outcome
        if result.timed_out or result.elapsed > time_limit:
            raise FuzzFailure(f"bounded-time: parsing took over {time_limit:g}s: {text!r}")
        if check == "bounded-time":
            return
        if result.error is not None:
            raise FuzzFailure(f"no-crash: the parser raised {result.error}: {text!r}")
        if isinstance(outcome, Crashed):
            raise FuzzFailure(f"no-crash: {outcome}: {text!r}")
        if check == "no-crash":
            return
        reading = ex.reading.outcome()
        if isinstance(outcome, Executed):
            ran = outcome.call
            try:
                ran = registry.validate(ran.tool, ran.kwargs()) if ran.names else ran
            except Exception:
                raise FuzzFailure(f"unvalidated-call: {outcome}: {text!r}") from None
            if not (isinstance(reading, Executed) and reading.call.same_as(ran)):
                raise FuzzFailure(f"wrong-call: {outcome}; the format reads {reading}: {text!r}")
        elif isinstance(outcome, Finished) and not (
            isinstance(reading, Finished) and reading.answer == outcome.answer
        ):
            raise FuzzFailure(f"hijacked-answer: {outcome}; the format reads {reading}:"
                              f" {text!r}")

    fuzz_one_input.__name__ = f"fuzz_one_input_{check.replace('-', '_')}"
    return fuzz_one_input


def main(argv: list[str] | None = None) -> None:
    """``python -m reactfuzz.fuzzing TARGET [FORMAT] [libFuzzer args]`` under Atheris."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0].startswith("-"):
        print("usage: python -m reactfuzz.fuzzing TARGET [FORMAT] [libFuzzer options]",
              file=sys.stderr)
        raise SystemExit(2)
    target = args.pop(0)
    fmt = args.pop(0) if args and not args[0].startswith("-") else "bracket"
    try:
        import atheris  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        print("reactfuzz: error: Atheris is not installed (pip install atheris)",
              file=sys.stderr)
        raise SystemExit(2) from None
    fn = entry_point(target, fmt)
    atheris.Setup([sys.argv[0], *args], fn)
    atheris.Fuzz()


if __name__ == "__main__":  # pragma: no cover
    main()
