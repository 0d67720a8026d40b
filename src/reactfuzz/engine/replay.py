"""Replay: re-run corpus findings against their target and say which still reproduce.

A corpus is data: it comes from pull requests and CI artifacts. Replaying one never imports
what a file names. A finding runs against a target and tools that are data (a built-in
parser, a ``regex:`` or ``grammar:`` target; ``default`` or a ``.json`` tool file), or that
the caller named itself (the command line's ``--target`` / ``--tools``, a fuzz run's own
targets); a finding naming any other ``module:attr`` is skipped and counted, unless the
caller passes ``trust=True`` (the documented ``--trust-corpus``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..dispatch import DISPATCHERS
from ..errors import InputFileError, ReactfuzzError, UsageError
from ..formats import get_format
from ..strategies import Scenario
from ..targets import Target, load_target, load_tools
from ..tools import ToolRegistry
from .checks import CHECKS, get_checks
from .config import auto_dispatcher
from .corpus import Finding, is_code_reference, iter_corpus
from .events import CorpusReplayed, EventSink
from .example import examine
from .results import RunSummary

__all__ = ["ReplayResult", "Replayed", "is_code_reference", "replay", "replay_corpus",
           "settle"]

T = TypeVar("T")


@dataclass(frozen=True)
class ReplayResult:
    """One corpus file replayed: does its finding still reproduce?"""

    path: Path
    finding: Finding
    reproduced: bool
    observed: str
    verdict: str  # the oracle's verdict on the outcome observed now


@dataclass(frozen=True)
class Replayed:
    """What a replay ran, and the corpus files it would not run (they name code)."""

    results: list[ReplayResult]
    skipped: list[Path]
    unregistered: list[Path] = field(default_factory=list)
    """Files whose check is not registered here (a plugin's check: load it with --plugin)."""


def replay(
    paths: Iterable[str | Path],
    *,
    target: str | None = None,
    dispatcher: str | None = None,
    time_limit: float = 1.0,
    cwd: str | None = None,
    emit: EventSink | None = None,
    tools: str | None = None,
    trust: bool = False,
) -> list[ReplayResult]:
    """Re-run corpus findings (files or directories) against their target (or ``target``).

    With ``target`` the dispatcher is ``dispatcher`` or the target's own (``auto``);
    without, each finding runs with the dispatcher it was found with. A finding reproduces
    when its check fails again with the same failure kind. Findings whose file names code
    to import are skipped (see the module docstring and :func:`replay_corpus`).
    """
    return replay_corpus(paths, target=target, dispatcher=dispatcher, time_limit=time_limit,
                         cwd=cwd, emit=emit, tools=tools, trust=trust).results


def replay_corpus(
    paths: Iterable[str | Path],
    *,
    target: str | None = None,
    dispatcher: str | None = None,
    time_limit: float = 1.0,
    cwd: str | None = None,
    emit: EventSink | None = None,
    tools: str | None = None,
    trust: bool = False,
    only_targets: Collection[str] | None = None,
    only_formats: Collection[str] | None = None,
    trusted_tools: Collection[str] = (),
    skip_unregistered: bool = False,
) -> Replayed:
    """:func:`replay`, also saying which files were skipped because they name code.

    ``tools`` replaces every finding's tools (a caller-named reference is trusted);
    ``only_targets`` / ``only_formats`` keep just those findings, before anything loads;
    ``skip_unregistered`` counts a finding of a check not registered here (a plugin's)
    instead of refusing it.
    """
    out: list[ReplayResult] = []
    skipped: list[Path] = []
    unregistered: list[Path] = []
    targets: dict[tuple[str, str], Target] = {}
    registries: dict[str, ToolRegistry] = {}
    try:
        for p in paths:
            for path, finding in iter_corpus(p):
                if only_targets is not None and finding.target not in only_targets:
                    continue
                if only_formats is not None and finding.format not in only_formats:
                    continue
                name = target or finding.target
                tools_ref = tools or finding.tools
                named_by_file = (target is None and (only_targets is None)
                                 and is_code_reference(name))
                if not trust and (named_by_file or (
                        tools is None and tools_ref not in trusted_tools
                        and is_code_reference(tools_ref, tools=True))):
                    skipped.append(path)
                    continue
                if finding.script is not None:  # a loop's finding: its script replays it
                    if not skip_unregistered:
                        raise UsageError(f"{path}: a finding of 'reactfuzz loop': replay it"
                                         " there (reactfuzz loop --target MODULE:FUNCTION"
                                         " --corpus DIR)")
                    unregistered.append(path)
                    continue
                if finding.check not in CHECKS:  # a plugin's check, not loaded in this run
                    if not skip_unregistered:
                        raise UsageError(f"{path}: key 'check': {finding.check!r} is not"
                                         " registered here: load the plugin that registers"
                                         " it with --plugin MODULE")
                    unregistered.append(path)
                    continue
                declared = CHECKS[finding.check].kinds
                if declared and finding.failure not in declared:
                    raise InputFileError(
                        f"{path}: key 'verdict': {finding.failure!r} is not a failure of"
                        f" check {finding.check!r} ({', '.join(declared)})")
                fmt = _field(path, "format", get_format, finding.format)
                key = (name, finding.format)
                if key not in targets:  # a target or tools the caller named is not the file's
                    targets[key] = _field(None if target else path, "target", load_target,
                                          name, fmt, timeout=time_limit, cwd=cwd)
                if tools_ref not in registries:
                    registries[tools_ref] = _field(None if tools else path, "tools",
                                                   load_tools, tools_ref)
                registry = registries[tools_ref]
                intent = finding.intent.intent()
                acceptable = finding.acceptable.acceptable(intent, registry)
                sc = Scenario(fmt.name, finding.abuse, intent, finding.completion,
                              finding.completion, acceptable)
                checks = _field(path, "check", get_checks, [finding.check])
                if target is None:
                    how = finding.dispatcher
                    _field(path, "dispatcher", DISPATCHERS.get_or_raise, how)
                elif dispatcher in (None, "auto"):
                    how = auto_dispatcher(target)
                else:
                    how = dispatcher
                ex = examine(sc, targets[key], fmt, registry, how, checks,
                             time_limit=time_limit, chunks=[4, 7])
                reproduced = ex.failure is not None and ex.failure.kind == finding.failure
                out.append(ReplayResult(path, finding, reproduced, str(ex.outcome),
                                        ex.verdict.kind))
                if emit is not None:
                    emit(CorpusReplayed(str(path), reproduced, finding.check, finding.failure))
    finally:
        for t in targets.values():
            t.close()
    return Replayed(out, skipped, unregistered)


def _field(path: Path | None, key: str, load: Callable[..., T], *args: Any,
           **kwargs: Any) -> T:
    """``load(*args, **kwargs)``; a usage error names the corpus file and key it came from
    (``path`` ``None``: the value came from the caller, not from a file)."""
    try:
        return load(*args, **kwargs)
    except ReactfuzzError as e:
        if path is None:
            raise
        raise type(e)(f"{path}: key {key!r}: {e}") from None


def replay_known(paths: Sequence[str | None], targets: list[str], formats: tuple[str, ...],
                 *, time_limit: float, cwd: str | None, emit: EventSink | None,
                 tools: str = "default") -> Replayed:
    """Replay what a run already knows (its corpus, its baseline) before it searches: the
    findings of the run's targets and format, each file once even when two paths hold it.
    Findings of checks not registered here (a plugin's) are counted in ``unregistered``,
    never an error: the corpus may be shared."""
    # only the run's own targets (named by its caller) and format are loaded: a file naming
    # anything else is never imported
    replayed = replay_corpus(_distinct(paths), time_limit=time_limit, cwd=cwd, emit=emit,
                             only_targets=targets, only_formats=formats,
                             trusted_tools=(tools,), skip_unregistered=True)
    out: dict[str, ReplayResult] = {}
    for r in replayed.results:
        out.setdefault(r.finding.id, r)  # the same finding in the corpus and the baseline
    unregistered = {p.resolve(): p for p in replayed.unregistered}
    return Replayed(list(out.values()), replayed.skipped, list(unregistered.values()))


def _distinct(paths: Sequence[str | None]) -> list[str]:
    """The paths that exist, each place once (a baseline may be the corpus itself)."""
    seen: dict[Path, str] = {}
    for p in paths:
        if p and Path(p).exists():
            seen.setdefault(Path(p).resolve(), p)
    return list(seen.values())


def stored_findings(paths: Sequence[str | None], targets: Collection[str],
                    formats: Collection[str]) -> list[Finding]:
    """The findings the corpus and baseline files hold for a run's targets and format, read
    without running anything (a run that does not replay still knows what they hold)."""
    out: dict[str, Finding] = {}
    for p in _distinct(paths):
        for _, f in iter_corpus(p):
            if f.target in targets and f.format in formats:
                out.setdefault(f.id, f)
    return list(out.values())


def _keys(f: Finding) -> set[tuple[str, ...]]:
    """What makes a finding of this run the same as a stored one: its file, its operator's
    bug (``dedup_key``) or its root cause (``root_key``), as the baseline matches."""
    return {("id", f.id), ("bug", *f.dedup_key()), ("root", *f.root_key())}


def settle(summary: RunSummary, stored: Sequence[Finding],
           replayed: Mapping[str, bool] | None = None) -> None:
    """Count what the corpus and the baseline already held: known, new and fixed.

    A finding of this run that a stored finding matches is known (its id goes to
    ``summary.known_ids``), and so is one a baseline absorbed; a stored finding the run did
    not find again is known when its replay reproduced and fixed when it did not (stored
    findings of one bug count once, fixed only when none of them reproduces). Replayed
    findings are never new.
    """
    entries = list({f.id: f for f in stored}.values())
    reproduced = dict(replayed or {})  # stored id -> whether its replay reproduced it
    by_key: dict[tuple[str, ...], set[int]] = {}
    for i, e in enumerate(entries):
        for k in _keys(e):
            by_key.setdefault(k, set()).add(i)
    hit: set[int] = set()

    def match(f: Finding) -> bool:
        found = {i for k in _keys(f) for i in by_key.get(k, ())}
        hit.update(found)
        return bool(found)

    summary.known_ids = [f.id for f in summary.findings if match(f)]
    absorbed = {f.root_key(): f for f in summary.absorbed}
    for f in absorbed.values():
        match(f)
    bugs: dict[tuple[str, ...], list[bool | None]] = {}
    for i, e in enumerate(entries):
        if i not in hit:
            bugs.setdefault(e.dedup_key(), []).append(reproduced.get(e.id))
    still = sum(1 for states in bugs.values() if any(states))
    summary.fixed = sum(1 for states in bugs.values()
                        if states and all(s is False for s in states))
    summary.known = len(summary.known_ids) + len(absorbed) + still
