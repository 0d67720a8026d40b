"""The long-campaign harness: one fuzzer input through the engine's pipeline and checks.

:class:`Harness` is ``fuzz_one_input``: it decodes the bytes, parses them once with the
target, dispatches, takes the format's reading as the intent (:mod:`.oracle`), judges,
and runs the engine's checks that apply to raw bytes. A failure that is the design's is
shrunk (:mod:`.shrink`) and written as a corpus finding -- the engine's format, written
atomically -- that ``reactfuzz replay`` reproduces. Then, as the caller chose, it raises
:class:`FuzzFailure` (libFuzzer records a crash) or is recorded and the campaign goes on.
Root causes already in the findings directory are known: they neither stop a campaign
nor are written again, so runs sharing one directory build on each other.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from ..designs import Reading
from ..dispatch import Finished, Outcome
from ..engine import decide_example
from ..engine.checks import Check, CheckInput, Failure
from ..engine.config import FuzzConfig, resolve
from ..engine.corpus import Finding, iter_corpus, save_finding
from ..engine.example import Example, ranked_failures, to_finding
from ..errors import UsageError
from ..formats import Format
from ..model import Call, Step
from ..oracle import judge
from ..parsers import PARSERS
from ..strategies import Scenario
from ..targets import CallableTarget, Target, load_target
from ..targets.user_code import resolve_parser
from .oracle import NO_ACTION, scenario_from_reading
from .shrink import shrink_text

__all__ = ["DEFAULT_CHECKS", "NOT_APPLICABLE", "CampaignStats", "FuzzFailure", "Harness"]

DEFAULT_CHECKS = (
    "no-wrong-call", "no-unvalidated-call", "no-hijacked-answer", "no-crash", "bounded-time",
    "no-fabricated-observation", "clean-rejection",
)
"""The engine's checks that apply to raw bytes, run on every input."""

NOT_APPLICABLE = {
    "no-silent-drop": "raw bytes cannot say a refusal is wrong (it is a retry)",
    "right-rejection": "raw bytes cannot say which refusal is right",
    "roundtrip": "raw bytes are no clean rendering of an intent",
    "agrees-with-grammar": "the grammar's reading is the oracle already",
    "stream-invariance": "the input arrives whole",
}
"""The engine's checks a raw-bytes campaign leaves out, and why."""

Key = tuple[str, str, str]  # check, failure kind, root-cause signature


class FuzzFailure(AssertionError):
    """A failure of the target on one fuzzer input (the fuzzer records it as a crash)."""


@dataclass
class CampaignStats:
    """What a campaign ran and found so far."""

    started: float = field(default_factory=time.perf_counter)
    runs: int = 0
    failing: int = 0  # inputs on which some check failed (the design's fault)
    kinds: Counter[tuple[str, str]] = field(default_factory=Counter)  # (check, kind) -> inputs
    findings: list[Finding] = field(default_factory=list)  # new root causes, shrunk
    known: int = 0  # failing inputs whose root cause was in the findings directory

    @property
    def seconds(self) -> float:
        """Seconds since the campaign started."""
        return time.perf_counter() - self.started

    def summary(self) -> str:
        """A few lines: runs per second and failures by check and kind."""
        secs = self.seconds
        lines = [f"{self.runs} runs in {secs:.1f} s ({self.runs / max(secs, 1e-9):,.0f}"
                 f" runs/s), {self.failing} failing, {len(self.findings)} new findings"]
        for (check_id, kind), n in sorted(self.kinds.items()):
            new = sum(f.check == check_id and f.failure == kind for f in self.findings)
            lines.append(f"  {check_id:<26} {kind:<22} {n:>7} inputs {new:>4} findings")
        return "\n".join(lines)


def _plain(answer: str) -> str:
    """An answer without what no model means: ``\r\n`` and the spaces ending a line."""
    lines = answer.replace("\r\n", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip()


def _readable(failure: Failure, intent: object) -> Failure:
    """The failure's message with the no-action intent said in words."""
    if not (isinstance(intent, Call) and intent.tool == NO_ACTION):
        return failure
    text = str(intent)
    message = failure.message.replace(f"where the model meant {text}",
                                      "where the format reads no action")
    message = message.replace(f"instead of {text}", "where the format reads no action")
    message = message.replace(f"instead of {NO_ACTION}:", "where the format reads no action:")
    return replace(failure, message=message)


def _in_process(spec: str, fmt: Format, time_limit: float, cwd: str | None) -> Target:
    """A ``module:attr`` target imported into this process (coverage needs it here)."""
    directory = os.path.abspath(cwd or os.getcwd())
    if directory not in sys.path:
        sys.path.insert(0, directory)
    # resolved as every target is: probed in a child first (a module that hangs or ends the
    # interpreter on import is one line), any exception its import raises one line too
    obj = resolve_parser(spec, directory)
    return CallableTarget(obj, fmt, timeout=time_limit, name=spec)


class Harness:
    """``fuzz_one_input`` for one target and format, with the engine's checks.

    ``on_failure="raise"`` raises :class:`FuzzFailure` on every failure whose root cause
    is not in ``findings`` yet (libFuzzer's way: the input becomes a crash file);
    ``"record"`` writes the finding and goes on, each root cause once. ``in_process``
    imports a ``module:attr`` target into this process, which coverage needs (the
    engine runs it in a worker process instead).
    """

    def __init__(
        self,
        target: str = "classic-bracket",
        fmt: str = "bracket",
        *,
        dispatcher: str = "auto",
        tools: str = "default",
        checks: list[str] | None = None,
        time_limit: float = 1.0,
        findings: str | os.PathLike[str] | None = None,
        on_failure: Literal["raise", "record"] = "raise",
        in_process: bool = True,
        cwd: str | None = None,
        shrink_budget: int = 4000,
        shrink_seconds: float = 10.0,
    ) -> None:
        plan = resolve(FuzzConfig(targets=[target], format=fmt, dispatcher=dispatcher,
                                  tools=tools, checks=list(checks or DEFAULT_CHECKS), seed=0,
                                  cwd=cwd))
        self.fmt = plan.fmt
        self.target_spec = target
        self.dispatcher = plan.dispatchers[target]
        self.tools_spec = tools
        self.registry = plan.registry
        self.checks: list[Check] = plan.checks
        self.time_limit = time_limit
        self.findings_dir = Path(findings) if findings is not None else None
        if on_failure not in ("raise", "record"):
            raise UsageError(f"on_failure must be 'raise' or 'record', not {on_failure!r}")
        self.on_failure = on_failure
        self.shrink_budget = shrink_budget
        self.shrink_seconds = shrink_seconds
        self.is_grammar = target == "grammar"
        code_target = not (target in PARSERS or target.startswith(("regex:", "grammar:")))
        self.target: Target = (_in_process(target, self.fmt, time_limit, cwd)
                               if in_process and code_target
                               else load_target(target, self.fmt, timeout=time_limit, cwd=cwd))
        self.stats = CampaignStats()
        self.known: set[Key] = set()
        self.seen: set[Key] = set()
        self.last: Example | None = None  # the last input's example (drivers read it)
        if self.findings_dir is not None:
            for _, f in iter_corpus(self.findings_dir):
                if self._ours(f):
                    self.known.add((f.check, f.failure, f.signature))

    def _ours(self, f: Finding) -> bool:
        return (f.target == self.target_spec and f.dispatcher == self.dispatcher
                and f.format in (self.fmt.name, self.fmt.source))

    # ------------------------------------------------------------------ the pipeline

    def examine(self, text: str) -> Example:
        """Run one completion through the pipeline and the checks (a design fault first)."""
        d = decide_example(text, self.target, self.fmt, self.registry, self.dispatcher,
                           time_limit=self.time_limit, target_is_grammar=self.is_grammar)
        return self._judge(text, d.step, d.outcome, d.result.error, d.result.timed_out,
                           d.result.elapsed, d.reading)

    def _judge(self, text: str, step: Step | None, outcome: Outcome, error: str | None,
               timed_out: bool, elapsed: float, reading: Reading) -> Example:
        sc: Scenario = scenario_from_reading(text, self.fmt.name, reading)
        verdict = judge(outcome, sc.acceptable, self.registry,
                        completion=text, fmt=self.fmt, reading=reading.outcome)
        inp = CheckInput(scenario=sc, fmt=self.fmt, registry=self.registry,
                         step=step, outcome=outcome,
                         verdict=verdict, error=error, timed_out=timed_out, elapsed=elapsed,
                         time_limit=self.time_limit, target_is_grammar=self.is_grammar,
                         reading=reading)
        # the engine's rule for which failure wins; raw bytes count design faults only
        first: tuple[str, Failure] | None = next(
            ((c.id, _readable(f, sc.intent)) for c, f in ranked_failures(self.checks, inp)
             if f.cause == "design" and self._counts(c.id, inp)), None)
        return Example(sc, step, outcome, verdict, first[1] if first else None,
                       first[0] if first else None, reading)

    @staticmethod
    def _counts(check_id: str, inp: CheckInput) -> bool:
        """Whether a check's failure is the design's: acting on a model-written observation
        is the format's own doing when the format's reading acts the same way, and an
        answer that differs from the format's only in line endings or the spaces ending a
        line is the same answer (the grammar trims them; no model means them)."""
        if check_id == "no-fabricated-observation":
            return inp.outcome != inp.reference.outcome()
        if check_id == "no-hijacked-answer":
            got, want = inp.outcome, inp.reference.outcome()
            return not (isinstance(got, Finished) and isinstance(want, Finished)
                        and _plain(got.answer) == _plain(want.answer))
        return True

    # ------------------------------------------------------------------ fuzz_one_input

    def __call__(self, data: bytes) -> None:
        """Check one fuzzer input; a new failure is written, then raised or recorded."""
        self.stats.runs += 1
        text = data.decode("utf-8", errors="replace")
        ex = self.last = self.examine(text)
        if ex.failure is None or ex.check is None:
            return
        self.stats.failing += 1
        self.stats.kinds[(ex.check, ex.failure.kind)] += 1
        key = (ex.check, ex.failure.kind, ex.failure.signature)
        if key in self.known or (self.on_failure == "record" and key in self.seen):
            self.stats.known += key in self.known
            return
        self.seen.add(key)
        finding, path = self.record(ex)
        if self.on_failure == "raise":
            where = f" (written to {path})" if path else ""
            raise FuzzFailure(
                f"{finding.check} ({finding.failure}): {finding.explanation}; observed"
                f" {finding.observed}; {ex.scenario.acceptable.reason}: {text!r}; shrunk:"
                f" {finding.completion!r}{where}")

    def record(self, ex: Example) -> tuple[Finding, Path | None]:
        """Shrink a failing example into a finding; write it if it is a new root cause."""
        finding = self.shrink(ex)
        shrunk_key = (finding.check, finding.failure, finding.signature)
        self.seen.add(shrunk_key)
        path = None
        if shrunk_key not in self.known and all(
                f.root_key() != finding.root_key() for f in self.stats.findings):
            self.stats.findings.append(finding)
            if self.findings_dir is not None:
                path = save_finding(finding, self.findings_dir)
        return finding, path

    def shrink(self, ex: Example) -> Finding:
        """The finding for a failing example, its completion shrunk (same check, kind and
        root-cause signature)."""
        assert ex.failure is not None and ex.check is not None
        want = (ex.check, ex.failure.kind, ex.failure.signature)

        def fails(text: str) -> bool:
            e = self.examine(text)
            return e.failure is not None and (e.check, e.failure.kind,
                                              e.failure.signature) == want

        small = shrink_text(ex.scenario.completion, fails, budget=self.shrink_budget,
                            seconds=self.shrink_seconds)
        final = self.examine(small)
        if final.failure is None or final.check != ex.check:  # a flaky target: keep as is
            final, small = ex, ex.scenario.completion
        return to_finding(final, self.target_spec, self.fmt, self.dispatcher, self.tools_spec,
                          None, True)

    def finding_for(self, data: bytes) -> Finding | None:
        """The shrunk finding one input makes (``None`` when it passes every check)."""
        ex = self.examine(data.decode("utf-8", errors="replace"))
        return self.shrink(ex) if ex.failure is not None else None

    def close(self) -> None:
        """Release the target (a worker process, when it runs in one)."""
        self.target.close()
