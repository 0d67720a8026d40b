"""Format fit: does a target read the configured format's clean renderings at all?

A parser fuzzed in a format it does not speak refuses every clean rendering, and a run
then reports dozens of findings that all say "wrong format". Before fuzzing, each target
is probed with :data:`PROBE_EXAMPLES` clean renderings (the ``clean.render`` operator's
scenarios, drawn with the fixed seed :data:`PROBE_SEED`, so the probe is the same every
run): calls of several tools and final answers, written exactly as the format says.

A rendering is *read* when the target's outcome is the intended one (the call ran with
the intended arguments, or the answer came back). The format **fits** when the target
reads at least :data:`FIT_THRESHOLD` of the clean *calls* (of the answers, if the tools
give no call to write). Calls decide because they are what a format is about: a parser
that reads every call but no answer (the unanchored classic loop in ``bracket``) speaks
the format and has a bug worth a finding; one that reads only the answers (a bracket
parser given ``json-args``: ``Answer:`` is the same in both) does not.

:func:`check_fit` raises :class:`FormatFitError` (a usage error: one line, exit 2) for a
target the format does not fit, naming the built-in formats whose clean renderings it
does read; :func:`choose_format` is ``--format auto``: every built-in format probed, the
best fit picked. Built-in formats are read from the registry, so a new one is probed
with no change here.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace

from pydantic import ValidationError

from ..dispatch import Executed, Finished, Outcome
from ..errors import UsageError
from ..formats import BUILTIN_FORMATS, Format, get_format
from ..model import FinalAnswer
from ..oracle import STRICT, Policy
from ..strategies import Scenario, for_each_example, scenarios
from ..targets import Target, load_target, load_tools
from ..tools import ToolRegistry
from .config import FuzzConfig, auto_dispatcher
from .example import decide_example

__all__ = [
    "FIT_THRESHOLD",
    "PROBE_EXAMPLES",
    "PROBE_SEED",
    "FormatChoice",
    "FormatFit",
    "FormatFitError",
    "check_fit",
    "choose_format",
    "probe_format",
    "probe_formats",
    "resolve_auto",
]

FIT_THRESHOLD = 0.5
"""The share of clean calls a target must read for the format to fit it."""

PROBE_EXAMPLES = 24
"""Clean renderings drawn per format (duplicates and renderings the format cannot carry
are dropped, so a probe makes a few dozen calls at most)."""

PROBE_SEED = 0
"""The probe's seed: the same renderings every run, whatever the run's own seed."""


class FormatFitError(UsageError):
    """The target does not read the configured format's clean renderings."""


@dataclass(frozen=True)
class FormatFit:
    """How well one target read one format's clean renderings.

    ``first_miss`` is one clean rendering it did not read and what it made of it.
    """

    format: str
    calls: int = 0
    calls_read: int = 0
    answers: int = 0
    answers_read: int = 0
    elapsed: float = 0.0
    first_miss: tuple[str, str] | None = None

    @property
    def rate(self) -> float:
        """The deciding share: of the calls read, or of the answers if no call was probed."""
        if self.calls:
            return self.calls_read / self.calls
        return self.answers_read / self.answers if self.answers else 1.0

    @property
    def fits(self) -> bool:
        """Whether the target reads enough of the format to be fuzzed in it."""
        return self.rate >= FIT_THRESHOLD

    @property
    def answer_rate(self) -> float:
        """The share of the answers read (1 when no answer was probed)."""
        return self.answers_read / self.answers if self.answers else 1.0

    @property
    def score(self) -> float:
        """What ``--format auto`` ranks by: the share of calls read plus the share of
        answers read (a format that reads every call and no answer is no better than one
        that reads every answer and a few calls less)."""
        return self.rate + self.answer_rate

    @property
    def complete(self) -> bool:
        """Whether every clean call and every clean answer was read right."""
        return self.calls_read == self.calls and self.answers_read == self.answers

    def counts(self) -> str:
        """``"12/12 calls, 0/8 answers"``."""
        return f"{self.calls_read}/{self.calls} calls, {self.answers_read}/{self.answers} answers"

    def __str__(self) -> str:
        return f"{self.format} ({self.counts()})"


_CACHE: dict[object, list[Scenario]] = {}
_CACHE_SIZE = 32


def _probe_scenarios(fmt: Format, registry: ToolRegistry, policy: Policy,
                     examples: int, seed: int) -> list[Scenario]:
    """The format's clean renderings the format can carry, each completion once.

    Drawing them is most of a probe's cost, so they are kept per format, tools, policy
    and seed for the life of the process (the same inputs draw the same renderings).
    """
    try:
        key: object = (fmt, tuple(registry), policy, examples, seed)
        cached = _CACHE.get(key)
    except TypeError:  # something unhashable in a user's tools: draw every time
        key, cached = None, None
    if cached is not None:
        return cached
    found: dict[str, Scenario] = {}

    def keep(sc: Scenario) -> None:
        acc = sc.acceptable
        if acc.representable and (acc.calls or acc.answers) and sc.completion not in found:
            found[sc.completion] = sc

    for_each_example(scenarios(registry, fmt, abuses=["clean.render"], policy=policy), keep,
                     examples=examples, seed=seed)
    result = list(found.values())
    if key is not None:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = result
    return result


def _reads(outcome: Outcome, sc: Scenario, registry: ToolRegistry) -> bool:
    """Whether the target read the rendering as meant: the answer, or the intended call
    (values compared once validated: a positional loop passes strings unvalidated, which
    is a finding of its own, not a sign of the wrong format)."""
    if not isinstance(outcome, (Executed, Finished)):
        return False
    if sc.acceptable.accepts(outcome):
        return True
    if not isinstance(outcome, Executed) or outcome.call.names is None:
        return False
    try:
        call = registry.validate(outcome.call.tool, outcome.call.kwargs())
    except (ValidationError, KeyError, ValueError):
        return False
    return sc.acceptable.accepts(Executed(call))


def probe_format(
    target: Target,
    fmt: Format | str,
    registry: ToolRegistry,
    dispatcher: str,
    *,
    policy: Policy = STRICT,
    time_limit: float = 1.0,
    examples: int = PROBE_EXAMPLES,
    seed: int = PROBE_SEED,
) -> FormatFit:
    """Probe ``target`` with ``fmt``'s clean renderings (deterministic for a seed).

    Raises :class:`~reactfuzz.targets.UnsupportedResultError` when the target returns a
    value reactfuzz cannot read.
    """
    fmt = get_format(fmt)
    start = time.perf_counter()
    calls = calls_read = answers = answers_read = 0
    first_miss: tuple[str, str] | None = None
    for sc in _probe_scenarios(fmt, registry, policy, examples, seed):
        decided = decide_example(sc.completion, target, fmt, registry, dispatcher,
                                 time_limit=time_limit)
        outcome = decided.outcome
        read = _reads(outcome, sc, registry)
        if isinstance(sc.intent, FinalAnswer):
            answers += 1
            answers_read += read
        else:
            calls += 1
            calls_read += read
        if not read and first_miss is None:
            first_miss = (sc.completion, str(outcome))
    return FormatFit(fmt.name, calls, calls_read, answers, answers_read,
                     time.perf_counter() - start, first_miss)


def probe_formats(
    spec: str,
    registry: ToolRegistry,
    dispatcher: str,
    formats: Iterable[str] | None = None,
    *,
    policy: Policy = STRICT,
    time_limit: float = 1.0,
    cwd: str | None = None,
) -> list[FormatFit]:
    """Probe the target ``spec`` in each format (default: every built-in format)."""
    fits = []
    for name in formats if formats is not None else list(BUILTIN_FORMATS):
        fmt = get_format(name)
        target = load_target(spec, fmt, timeout=time_limit, cwd=cwd)
        try:
            fits.append(probe_format(target, fmt, registry, dispatcher, policy=policy,
                                     time_limit=time_limit))
        finally:
            target.close()
    return fits


def _dispatcher(config: FuzzConfig, target: str) -> str:
    return auto_dispatcher(target) if config.dispatcher == "auto" else config.dispatcher


def _short(text: str, limit: int = 80) -> str:
    text = repr(text)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def check_fit(config: FuzzConfig, fmt: Format, registry: ToolRegistry) -> dict[str, FormatFit]:
    """Probe every target of ``config`` in ``fmt``; raise :class:`FormatFitError` for the
    first one the format does not fit, naming the built-in formats that do."""
    result: dict[str, FormatFit] = {}
    for spec in config.targets:
        dispatcher = _dispatcher(config, spec)
        target = load_target(spec, fmt, timeout=config.time_limit, cwd=config.cwd)
        try:
            fit = probe_format(target, fmt, registry, dispatcher, policy=config.policy,
                               time_limit=config.time_limit)
        finally:
            target.close()
        if not fit.fits:
            others = probe_formats(spec, registry, dispatcher,
                                   [f for f in BUILTIN_FORMATS if f != fmt.name],
                                   policy=config.policy, time_limit=config.time_limit,
                                   cwd=config.cwd)
            raise FormatFitError(_misfit_message(spec, fit, others))
        result[spec] = fit
    return result


def _misfit_message(spec: str, fit: FormatFit, others: list[FormatFit]) -> str:
    good = sorted((f for f in others if f.fits), key=lambda f: f.score, reverse=True)
    where = (f"built-in formats it reads: {', '.join(map(str, good))};"
             f" use --format {good[0].format} (or --format auto)" if good else
             "no built-in format fits it either; describe its protocol in a .toml format"
             " (see docs/custom-formats.md)")
    miss = ""
    if fit.first_miss is not None:
        miss = f" (of {_short(fit.first_miss[0])} it made: {_short(fit.first_miss[1], 120)})"
    return (f"{spec} does not read the {fit.format} format: it read {fit.counts()} of its"
            f" clean renderings, under {FIT_THRESHOLD:.0%} of the calls{miss}; {where};"
            " --no-fit-check fuzzes it anyway")


@dataclass(frozen=True)
class FormatChoice:
    """What ``--format auto`` picked, and every format's fit per target."""

    format: str
    fits: dict[str, list[FormatFit]]

    def picked(self) -> dict[str, FormatFit]:
        """Each target's fit in the picked format."""
        return {spec: next(f for f in fits if f.format == self.format)
                for spec, fits in self.fits.items()}

    def explain(self) -> str:
        """One line per target: the acceptance of every built-in format, best first."""
        lines = []
        for spec, fits in self.fits.items():
            ranked = sorted(fits, key=lambda f: f.score, reverse=True)
            lines.append(f"format auto: {spec}: " + "; ".join(map(str, ranked)))
        return "\n".join(lines)

    def summary(self) -> str:
        """The pick in one line, and a warning line when it does not read every clean
        call and answer of some target (printed even under ``-q``)."""
        picked = self.picked()
        out = [f"format auto: picked {self.format} ("
               + "; ".join(f"{spec}: {fit.counts()}" for spec, fit in picked.items()) + ")"]
        partial = [f"{spec} ({fit.counts()})" for spec, fit in picked.items()
                   if not fit.complete]
        if partial:
            out.append(f"format auto: warning: {self.format} is the best fit but does not read"
                       f" every clean rendering of {', '.join(partial)}: findings may be the"
                       " format's, not the target's; describe the protocol in a .toml format"
                       " (docs/custom-formats.md) or pass --format")
        return "\n".join(out)


def specificity(name: str) -> int:
    """How many of the other built-in formats' clean renderings ``name``'s grammar refuses
    or reads otherwise: a stricter format says more about a target that reads it, so it
    wins a tie. Computed once per process (the built-in grammars on their probes)."""
    return _specificities().get(name, 0)


_SPECIFICITY: dict[str, int] = {}


def _specificities() -> dict[str, int]:
    if not _SPECIFICITY:
        from ..formats.grammars import grammar_parse
        from ..tools import default_registry

        registry = default_registry()
        probes = {n: _probe_scenarios(get_format(n), registry, STRICT, PROBE_EXAMPLES,
                                      PROBE_SEED) for n in BUILTIN_FORMATS}
        for name in BUILTIN_FORMATS:
            fmt = get_format(name)
            refused = 0
            for other, scs in probes.items():
                if other == name:
                    continue
                for sc in scs:
                    step = grammar_parse(sc.completion, fmt)
                    if step.invalid is not None:
                        refused += 1
            _SPECIFICITY[name] = refused
    return _SPECIFICITY


def rank_formats(fits: dict[str, list[FormatFit]], names: list[str]) -> list[str]:
    """The formats every target fits, best first: by the summed share of calls and answers
    read right; then by the clean calls read (a format that carries more of the tools'
    calls, several arguments for one, tests more of the parser); then by specificity; then
    by name (never by list order alone)."""
    candidates = [n for i, n in enumerate(names) if all(fs[i].fits for fs in fits.values())]

    def read(name: str) -> tuple[float, int]:
        i = names.index(name)
        return (-sum(fs[i].score for fs in fits.values()),
                -sum(fs[i].calls_read for fs in fits.values()))

    # specificity costs a probe of every built-in format: asked only where reads tie
    ranked: list[str] = []
    for _, tied in itertools.groupby(sorted(candidates, key=read), key=read):
        group = list(tied)
        ranked += sorted(group, key=lambda n: (-specificity(n), n)) if len(group) > 1 else group
    return ranked


def choose_format(config: FuzzConfig) -> FormatChoice:
    """``--format auto``: probe every built-in format, pick the best fit for every target
    (:func:`rank_formats`); none fitting is a :class:`FormatFitError` listing what each
    format read."""
    registry = load_tools(config.tools, cwd=config.cwd)
    fits = {spec: probe_formats(spec, registry, _dispatcher(config, spec),
                                policy=config.policy, time_limit=config.time_limit,
                                cwd=config.cwd)
            for spec in config.targets}
    ranked = rank_formats(fits, list(BUILTIN_FORMATS))
    if not ranked:
        detail = "; ".join(f"{spec}: " + ", ".join(map(str, fs)) for spec, fs in fits.items())
        raise FormatFitError(
            f"--format auto: no built-in format fits ({detail}); describe the protocol in a"
            " .toml format (see docs/custom-formats.md)")
    return FormatChoice(ranked[0], fits)


def resolve_auto(config: FuzzConfig) -> FuzzConfig:
    """``config`` with ``format="auto"`` replaced by the pick (already probed: no re-check)."""
    if config.format != "auto":
        return config
    return replace(config, format=choose_format(config).format, format_fit=False)
