"""Scenarios: an abuse operator applied to an intent, cut as the provider would cut it.

Also :func:`for_each_example`, the generation-only runner the study, the exploration
pool and the bench draw with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from .._determinism import pinned
from ..formats import Format, get_format
from ..llm import apply_stop
from ..model import Intent
from ..oracle import STRICT, Acceptable, Expectation, Policy, oracle
from ..tools import ToolRegistry
from . import abuses as _abuses  # noqa: F401  (registers the built-in operators)
from .catalogue import ABUSES, ANY_REFUSAL, Context, Sizes, abuse_ids

__all__ = ["Scenario", "for_each_example", "scenarios"]


@dataclass(frozen=True)
class Scenario:
    """An intent, the abuse applied to how it was written, and the completion as the
    provider returns it, with the oracle's acceptable outcomes."""

    format: str
    abuse: str
    intent: Intent
    raw: str
    completion: str
    acceptable: Acceptable
    stop_sequence: str | None = None

    def __str__(self) -> str:
        return f"[{self.abuse}] {self.completion!r}"


def scenarios(
    registry: ToolRegistry,
    fmt: Format | str = "bracket",
    *,
    abuses: Sequence[str] | None = None,
    policy: Policy = STRICT,
    sizes: Sizes | None = None,
) -> st.SearchStrategy[Scenario]:
    """Scenarios for ``fmt``: a drawn abuse operator applied to a drawn intent, the stop
    sequence applied as the provider would, and the oracle's verdict on what is right;
    ``sizes`` says how long the size operators' long inputs are (see :class:`Sizes`)."""
    fmt = get_format(fmt)
    ids = list(abuses) if abuses is not None else abuse_ids(fmt)
    for i in ids:
        if i not in ABUSES:
            raise ValueError(f"unknown abuse {i!r}: use one of {', '.join(ABUSES)}")
    ids = [i for i in ids if ABUSES[i].applies_to(fmt)]
    if not ids:
        raise ValueError(f"none of the abuses applies to format {fmt.name!r}")
    return _scenarios(registry, fmt, st.sampled_from(ids), policy, sizes or Sizes())


@st.composite
def _scenarios(draw: st.DrawFn, registry: ToolRegistry, fmt: Format,
               ids: st.SearchStrategy[str], policy: Policy, sizes: Sizes) -> Scenario:
    op = ABUSES[draw(ids)]
    writing = op.write(Context(draw, fmt, registry, policy, sizes))
    raw = writing.text
    stop = () if op.no_stop else fmt.stop
    completion, matched = apply_stop(raw, stop)
    expectation = writing.expectation
    core_end = writing.core_end if writing.core_end is not None else len(raw)
    if matched is not None and len(completion) < core_end:
        # the provider cut inside the intent's own text: it cannot arrive any more
        expectation = Expectation(ANY_REFUSAL, allow_intended=False,
                                  note=f"the stop sequence {matched!r} cut the text")
    acceptable = oracle(writing.intent, fmt, registry, policy, expectation=expectation,
                        quoted=writing.quoted)
    return Scenario(fmt.name, op.id, writing.intent, raw, completion, acceptable, matched)


@pinned
def for_each_example(
    strategy: st.SearchStrategy[Any], body: Callable[[Any], object], *, examples: int,
    seed: int,
) -> None:
    """Call ``body`` on ``examples`` values of ``strategy``: generation only, seeded, no
    database, no shrinking -- how the study, the exploration pool and the bench draw.

    An exception from ``body`` propagates (after Hypothesis replays that example once);
    ``hypothesis.errors.Unsatisfiable`` means the strategy found nothing to draw.
    """

    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck))
    @given(x=strategy)
    def run(x: Any) -> None:
        body(x)

    hypothesis_seed(seed)(run)()
