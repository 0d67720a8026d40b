"""One example, start to finish: parse once, dispatch, judge, check.

Every part of the engine -- the search, replay, exploration, the study -- and the
coverage-guided entry points decide an example here. The completion is parsed by the
target once; the format's reference reading (grammar + typed binding) is computed at most
once, and only if the oracle's cause or a check asks for it; the checks all see the same
Step, Outcome, verdict and reading.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..designs import Decision, ParserFailed, Reading, decide
from ..dispatch import Outcome, get_dispatcher
from ..errors import UsageError
from ..formats import Format
from ..llm import split_chunks, stream_parse
from ..model import Step
from ..oracle import Verdict, judge
from ..parsers import Parser
from ..strategies import Scenario
from ..targets import ParseResult, Target
from ..targets.origin import Origin
from ..tools import ToolRegistry
from .advice import advice_for
from .checks import Check, CheckInput, Failure
from .corpus import AcceptableSpec, Finding, IntentSpec, OriginSpec, pick_examples
from .growth import GROWTH_FLOOR, measure_growth
from .rootcause import with_origin

__all__ = ["Decided", "Example", "decide_example", "examine", "prefetch_origins",
           "ranked_failures", "to_finding", "with_path"]


@dataclass(frozen=True)
class Decided:
    """A completion parsed once and dispatched, with the reference reading at hand."""

    decision: Decision
    result: ParseResult  # how the parse went: the Step, a crash or a timeout, and its time
    reading: Reading

    @property
    def step(self) -> Step | None:
        """The target's Step (``None`` when it crashed or timed out)."""
        return self.decision.step

    @property
    def outcome(self) -> Outcome:
        """What the dispatcher made of the Step (``crashed`` for a parser failure)."""
        return self.decision.outcome


def decide_example(
    text: str,
    target: Target | Parser,
    fmt: Format,
    registry: ToolRegistry,
    dispatcher: str,
    *,
    time_limit: float = 1.0,
    target_is_grammar: bool = False,
    parsed: ParseResult | None = None,
) -> Decided:
    """Parse ``text`` once with ``target`` and dispatch the Step (on a reset registry).

    ``target`` is a :class:`~reactfuzz.targets.Target` (crashes and timeouts are data) or
    a plain parser (what a design ships). ``target_is_grammar`` says the target *is* the
    format's grammar, so its Step doubles as the reference reading's. ``parsed`` is what
    ``target.run(text)`` gave already (a batch parsed ahead): it is used, not re-run.
    """
    registry.reset()
    results: list[ParseResult] = []

    def parse(completion: str) -> Step:
        if not isinstance(target, Target):
            step = target.parse(completion)
            results.append(ParseResult(step=step))
            return step
        result = parsed if parsed is not None else target.run(completion)
        results.append(result)
        if result.step is not None:
            return result.step
        if result.timed_out:
            limit = target.limit_for(completion) or time_limit  # the target's own limit
            raise ParserFailed("Timeout", f"the parser ran past {limit:.3g}s")
        name, _, message = (result.error or "Exception: ?").partition(": ")
        raise ParserFailed(name, message)

    decision = decide(text, parse, get_dispatcher(dispatcher), registry)
    if results:
        result = results[0]
    else:  # a plain parser raised: the crashed outcome says what
        crashed = decision.outcome
        result = ParseResult(error=f"{getattr(crashed, 'exc_type', 'Exception')}:"
                                   f" {getattr(crashed, 'message', '?')}")
    known = decision.step if target_is_grammar else None
    return Decided(decision, result, Reading(text, fmt, registry, step=known))


@dataclass(frozen=True)
class Example:
    """One example run through a target: everything the checks and the findings need."""

    scenario: Scenario
    step: Step | None
    outcome: Outcome
    verdict: Verdict
    failure: Failure | None
    check: str | None
    reading: Reading | None = None
    origin: Origin | None = None  # where the target decided (failing examples only)


def examine(
    scenario: Scenario,
    target: Target | Parser,
    fmt: Format,
    registry: ToolRegistry,
    dispatcher: str,
    checks: list[Check],
    *,
    time_limit: float = 1.0,
    chunks: list[int] | None = None,
    stream: str = "whole",
    target_is_grammar: bool = False,
    attribute: bool = True,
    parsed: ParseResult | None = None,
    keyed: bool = True,
) -> Example:
    """Decide one scenario, judge the outcome, then run every check on it.

    ``attribute=False`` skips telling design faults from protocol ambiguity (the reference
    reading); every bad verdict then counts as the design's, for a caller that re-checks.
    ``chunks`` also feeds the completion to the target in pieces of those sizes (for the
    stream-invariance check). ``parsed`` is the target's result for the completion when
    the caller parsed it already (a batch through :meth:`~reactfuzz.targets.Target.run_many`).
    ``keyed=False`` says whether it fails, not which bug: no signature, no traced origin
    (exploration's loop keys the few failures it keeps afterwards).
    """
    decided = decide_example(scenario.completion, target, fmt, registry, dispatcher,
                             time_limit=time_limit, target_is_grammar=target_is_grammar,
                             parsed=parsed)
    step, outcome, result, reading = (decided.step, decided.outcome, decided.result,
                                      decided.reading)
    verdict = judge(outcome, scenario.acceptable, registry,
                    completion=scenario.completion if attribute else None, fmt=fmt,
                    reading=reading.outcome)
    streamed = None
    if chunks is not None and step is not None and not result.timed_out:
        assert isinstance(target, Target)
        pieces = split_chunks(scenario.completion, chunks)
        streamed = stream_parse(target, pieces, eager=stream == "eager")
    growth = None
    if (isinstance(target, Target) and not result.timed_out
            and result.elapsed >= GROWTH_FLOOR * time_limit  # else no growth is measured
            and any(c.id == "bounded-time" for c in checks)):
        growth = measure_growth(target, scenario.completion, result, time_limit)
    inp = CheckInput(
        scenario=scenario, fmt=fmt, registry=registry, step=step, outcome=outcome,
        verdict=verdict, error=result.error, timed_out=result.timed_out,
        elapsed=result.elapsed, time_limit=time_limit,
        target_is_grammar=target_is_grammar,
        streamed_step=streamed, reading=reading, growth=growth, keyed=keyed,
    )
    failures = ranked_failures(checks, inp)
    if not failures:
        return Example(scenario, step, outcome, verdict, None, None, reading)
    failed, failure = failures[0]
    origin = None
    if failed.by_origin and keyed and isinstance(target, Target) and not result.timed_out:
        origin = origin_of(target, scenario.completion, result)
        if origin is not None:
            failure = keyed_by_origin(failure, origin)
    elif (failure.kind == "timeout" and keyed and isinstance(target, Target)
          and not result.timed_out):  # a hang would hang again: it keeps the plain key
        origin = hot_origin(target, scenario.completion)
        if origin is not None:
            failure = keyed_by_hot(failure, origin)
    return Example(scenario, step, outcome, verdict, failure, failed.id, reading, origin)


def hot_origin(target: Target, completion: str) -> Origin | None:
    """Where a slow parse of ``completion`` that finished in its time spends it
    (:meth:`Target.hotspot`), as an origin; profiled once per text and kept on the target;
    ``None`` when nothing of the target's code was sampled."""
    def find(text: str) -> Origin | None:
        hot = target.hotspot(text)
        return None if hot is None else Origin(hot=hot)

    return _once(target, "_reactfuzz_hot", completion, find)


def keyed_by_hot(failure: Failure, origin: Origin) -> Failure:
    """A slow parse's failure keyed on the function its time goes to: two slow mechanisms
    of one parser are two bugs, one mechanism at any length is one."""
    assert origin.hot is not None
    where = f"time in {origin.hot.file}:{origin.hot.function or origin.hot.line}"
    return replace(failure, signature=with_origin(failure.signature, where))


def ranked_failures(checks: list[Check], inp: CheckInput) -> list[tuple[Check, Failure]]:
    """Every check's failure on one example, the one that wins first: a design fault
    before a protocol note, then in the checks' order (the one rule every caller uses)."""
    failures = []
    for c in checks:
        try:
            f = c(inp)
        except Exception as e:  # a bug in a (user) check, not a finding about the target
            raise UsageError(f"check {c.id!r} raised {type(e).__name__}: {e}") from None
        if f is not None:
            failures.append((c, f))
    failures.sort(key=lambda cf: cf[1].cause != "design")
    return failures


_TRACES_KEPT = 64  # a path holds up to 4,096 lines: a small cache keeps memory flat


def origin_of(target: Target, completion: str, result: ParseResult) -> Origin | None:
    """Where ``target`` decided on ``completion``: the frames of what it raised (they came
    with ``result``), else the path of a traced parse (once per completion, kept on the
    target itself: shrinking meets the same texts again, and another target never shares
    the cache)."""
    if result.origin is not None and result.origin.raised:
        return result.origin
    return _once(target, "_reactfuzz_traces", completion, target.trace)


def _once(target: Target, attr: str, completion: str,
          find: Callable[[str], Origin | None]) -> Origin | None:
    """``find(completion)``, kept on ``target`` under ``attr`` (the last
    :data:`_TRACES_KEPT` texts): a text met again is not parsed again."""
    cache = _kept(target, attr)
    key = _trace_key(completion)
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    origin = find(completion)
    _remember(cache, key, origin)
    return origin


def _trace_cache(target: Target) -> OrderedDict[str, Origin | None]:
    """The traces kept on ``target`` itself (a new, unkept one for a target class with
    slots: every trace then runs)."""
    return _kept(target, "_reactfuzz_traces")


def _kept(target: Target, attr: str) -> OrderedDict[str, Origin | None]:
    """The origins kept on ``target`` under ``attr`` (a new, unkept cache for a target
    class with slots)."""
    cache: OrderedDict[str, Origin | None] | None = getattr(target, attr, None)
    if cache is None:
        cache = OrderedDict()
        try:
            setattr(target, attr, cache)
        except AttributeError:
            pass
    return cache


def _remember(cache: OrderedDict[str, Origin | None], key: str, origin: Origin | None) -> None:
    cache[key] = origin
    while len(cache) > _TRACES_KEPT:
        cache.popitem(last=False)


def prefetch_origins(target: Target, completions: list[str]) -> None:
    """Trace, in one message to the target, the completions whose origin
    :func:`origin_of` would trace one at a time (at most the cache's size are kept)."""
    from ..targets.origin import TraceRequest

    cache = _trace_cache(target)
    keys = {_trace_key(c): c for c in completions[:_TRACES_KEPT]}
    todo = [k for k in keys if k not in cache]
    if not todo or getattr(target, "_reactfuzz_traces", None) is not cache:
        return  # nothing to trace, or nowhere to keep what would be traced
    for k, res in zip(todo, target.run_many([TraceRequest(keys[k]) for k in todo])):
        _remember(cache, k, None if res.timed_out else res.origin)


def _trace_key(completion: str) -> str:
    return hashlib.sha1(completion.encode("utf-8", "surrogatepass")).hexdigest()


def with_path(ex: Example, target: Target) -> Example:
    """``ex`` with the path its parse ran when it raised (a raise's frames show where it
    ended, not the label test that led there): traced once per new bug, for its advice."""
    o = ex.origin
    if o is None or not o.raised or o.path:
        return ex
    traced = target.trace(ex.scenario.completion)
    if traced is None or not traced.raised or traced.exc_type != o.exc_type:
        return ex
    return replace(ex, origin=replace(o, path=traced.path, notable=traced.notable))


def keyed_by_origin(failure: Failure, origin: Origin) -> Failure:
    """``failure`` with its signature keyed on where the parser decided (the outcome's
    shape, then the origin), when the origin says anything; unchanged otherwise."""
    key = origin.key()
    if not key:
        return failure
    shape = failure.shape or failure.signature
    if origin.raised:
        # the raise site says which bug; what the message says varies with the text
        shape = shape.split(":", 1)[0]
    return replace(failure, signature=with_origin(shape, key))


def to_finding(ex: Example, target: str, fmt: Format, dispatcher: str, tools: str,
               seed: int | None, shrunk: bool, *, count: int = 1,
               examples: list[str] | None = None) -> Finding:
    """The finding an example's first failure makes (the example must have failed), with
    ``count`` failing examples of its bug met and a few ``examples`` of them."""
    assert ex.failure is not None and ex.check is not None
    sc = ex.scenario
    finding = Finding(
        target=target,
        format=fmt.source or fmt.name,
        dispatcher=dispatcher,
        tools=tools,
        check=ex.check,
        failure=ex.failure.kind,
        cause=ex.failure.cause,
        severity=ex.failure.severity,
        abuse=sc.abuse,
        completion=sc.completion,
        intent=IntentSpec.of(sc.intent),
        acceptable=AcceptableSpec.of(sc.acceptable),
        expected=sc.acceptable.describe(),
        observed=str(ex.outcome),
        explanation=ex.failure.message,
        seed=seed,
        shrunk=shrunk,
        signature=ex.failure.signature,
        origin=OriginSpec.of(ex.origin),
        count=max(1, count),
        examples=pick_examples(examples or [], sc.completion),
    )
    return finding.model_copy(update={"fix": advice_for(finding)})
