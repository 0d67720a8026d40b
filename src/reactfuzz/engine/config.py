"""What a fuzz run is asked to do, and the objects its names stand for, resolved once.

:class:`FuzzConfig` holds names (a format, checks, abuse operators, dispatchers), as the
command line and the pytest integration give them; :func:`resolve` turns them into objects
in one place, so an unknown name is one usage error before anything runs.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from ..dispatch import get_dispatcher
from ..errors import UsageError
from ..formats import Format, get_format
from ..oracle import STRICT, Policy
from ..strategies import ABUSES, abuse_ids
from ..targets import load_tools
from ..tools import ToolRegistry
from .checks import Check, get_checks
from .corpus import iter_corpus

__all__ = ["DEFAULT_MAX_EXAMPLES", "FuzzConfig", "Plan", "auto_dispatcher", "operator_seed",
           "require_applicable", "resolve"]


DEFAULT_MAX_EXAMPLES = 60
"""Examples per operator and target when nothing says otherwise (``--max-examples``)."""


def auto_dispatcher(target: str) -> str:
    """The dispatcher a target ships with: positional for the classic presets, else typed."""
    return "positional" if target.startswith("classic-") else "typed"


@dataclass
class FuzzConfig:
    """What to fuzz and how hard (every option of ``reactfuzz fuzz``)."""

    targets: list[str]
    format: str = "bracket"
    dispatcher: str = "auto"
    tools: str = "default"
    checks: list[str] | None = None
    abuses: list[str] | None = None
    seed: int | None = None
    max_examples: int = DEFAULT_MAX_EXAMPLES
    time_budget: float | None = None
    corpus: str | None = None
    baseline: str | None = None
    replay_corpus: bool = True
    policy: Policy = field(default_factory=lambda: STRICT)
    time_limit: float = 1.0
    cwd: str | None = None
    stream: str = "whole"  # "whole" or "eager": how the client consumes a streamed completion
    hypothesis_db: str | None = None  # shared by workers and runs; then the seed is not used
    strict_protocol: bool = False  # protocol notes count as findings (and fail the run)
    format_fit: bool = True  # probe each target with clean renderings first (engine.fit)
    guided: int | None = None
    """Scenarios per target of the coverage-guided phase after the searches (``0``: none;
    ``None``: 20 per ``max_examples`` when every operator runs, none when ``abuses`` chose
    some; see :mod:`.guided`)."""

    @property
    def size_scale(self) -> float:
        """How many times the default budget this run has: the size operators' longest
        inputs grow with it (a larger budget reaches where a quadratic parse shows)."""
        return max(1.0, self.max_examples / DEFAULT_MAX_EXAMPLES)


@dataclass(frozen=True)
class Plan:
    """A config's names resolved to objects: what one run works with."""

    seed: int
    fmt: Format
    checks: list[Check]
    abuses: list[str]
    dispatchers: dict[str, str]  # target -> dispatcher name
    registry: ToolRegistry
    baseline: frozenset[tuple[str, ...]]

    @property
    def dispatcher(self) -> str:
        """The dispatchers of every target, as a summary names them."""
        return ", ".join(sorted(set(self.dispatchers.values())))


def resolve(config: FuzzConfig) -> Plan:
    """Resolve a config's names (or raise a usage error for the first unknown one): what
    a fuzz run, an exploration and the coverage-guided harness each work with.

    A config without a seed gets a fresh one here, so everything after sees one number.
    """
    seed = config.seed if config.seed is not None else random.SystemRandom().randrange(2**32)
    fmt = get_format(config.format)
    checks = get_checks(config.checks)
    wanted = config.abuses if config.abuses is not None else abuse_ids(fmt)
    for a in wanted:
        if a not in ABUSES:
            raise UsageError(f"unknown abuse {a!r}: use one of {', '.join(ABUSES)}")
    dispatchers = {
        t: auto_dispatcher(t) if config.dispatcher == "auto" else config.dispatcher
        for t in config.targets
    }
    for d in set(dispatchers.values()):
        get_dispatcher(d)
    return Plan(seed, fmt, checks, list(wanted), dispatchers,
                load_tools(config.tools, cwd=config.cwd), _baseline_keys(config.baseline))


def require_applicable(abuses: list[str] | None, fmt: Format) -> None:
    """Refuse a selection of operators none of which applies to ``fmt`` (an explicit
    ``--abuse`` that would otherwise end in an empty run), naming those that apply."""
    if abuses is None or any(ABUSES[a].applies_to(fmt) for a in abuses):
        return
    chosen = ", ".join(abuses)
    raise UsageError(
        f"none of the selected operators ({chosen}) applies to format {fmt.name!r};"
        f" the operators that apply: {', '.join(abuse_ids(fmt))}"
    )


def _baseline_keys(baseline: str | None) -> frozenset[tuple[str, ...]]:
    if not baseline:
        return frozenset()
    if not Path(baseline).exists():
        raise UsageError(f"baseline {baseline!r} not found: give a corpus directory or file")
    # the old key (operator included) and the root cause: files written before findings
    # carried a signature still match what they matched
    return frozenset(k for _, f in iter_corpus(baseline) for k in (f.dedup_key(), f.root_key()))


def operator_seed(seed: int, target: str, abuse: str) -> int:
    """The seed of one operator's search: the run seed, the target and the operator only,
    so how operators are split over workers never changes what is found."""
    return (seed * 1_000_003 + zlib.crc32(f"{target}\0{abuse}".encode())) % (2**32)
