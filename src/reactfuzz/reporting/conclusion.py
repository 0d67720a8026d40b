"""The study's conclusion in words, written from its measured data alone.

A reader of a matrix of dozens of rows should not have to find the answer in it: the
first lines of every view of a study (Markdown, HTML, the terminal) say which designs were
safe against what, which failed and where worst, and what is the protocol's fault -- with
the number of examples and 95 % Wilson intervals. No design is named in advance: a study of
other designs says other things.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.results import StudyResult, wilson
from .common import family_of, percent_text, rate_ci

__all__ = ["study_conclusion"]

_LISTED = 4  # failing designs named with their worst family; the rest in one more sentence


@dataclass(frozen=True)
class _Design:
    name: str
    n: int
    faults: int
    operators: int
    worst_family: str
    family_faults: int
    family_n: int


def _designs(study: StudyResult) -> list[_Design]:
    out = []
    for d in study.designs:
        cells = [c for c in study.cells if c.design == d and c.n]
        if not cells:
            continue
        families: dict[str, list[int]] = {}
        for c in cells:
            k_n = families.setdefault(family_of(c.abuse), [0, 0])
            k_n[0] += c.design_faults()
            k_n[1] += c.n
        fam, (k, n) = max(families.items(),
                          key=lambda kv: (kv[1][0] / kv[1][1], kv[1][0], kv[0]))
        out.append(_Design(d, sum(c.n for c in cells), sum(c.design_faults() for c in cells),
                           len(cells), fam, k, n))
    return out


def _span(values: list[str]) -> str:
    """``a`` or ``a–b`` (smallest to largest, as given sorted)."""
    return values[0] if values[0] == values[-1] else f"{values[0]}–{values[-1]}"


def _upper(n: int) -> float:
    """The 95 % Wilson upper bound of a fault rate when 0 of ``n`` examples failed."""
    return wilson(0, n)[1]


def study_conclusion(study: StudyResult) -> list[str]:
    """Two to four sentences that open every view of a study: which designs had no design
    fault on any operator (with their examples and the 95 % Wilson upper bound of their fault
    rate), which failed and on which operator family worst (rate with its 95 % Wilson
    interval), and what remains the protocol's fault. Names are in backticks."""
    designs = _designs(study)
    if not designs:
        return ["The study ran no example: there is nothing to conclude."]
    out: list[str] = []
    safe = [d for d in designs if d.faults == 0]
    failed = sorted((d for d in designs if d.faults),
                    key=lambda d: (-d.faults / d.n, -d.faults, d.name))
    scope = (f"Against {len(study.abuses)} abuse operators"
             f" ({study.examples_per_cell} examples each)")
    if safe:
        ns = sorted(d.n for d in safe)
        names = ", ".join(f"`{d.name}`" for d in safe)
        which = (f"{len(safe)} of {len(designs)} designs" if len(safe) > 1
                 else f"1 of {len(designs)} designs")
        out.append(
            f"{scope}, {which} had no design fault on any operator that applies to"
            f" their format: {names} (0 faults in {_span([str(n) for n in ns])} examples"
            f"{' each' if len(safe) > 1 else ''}; 95 % Wilson upper bound on the fault rate"
            f" {_span([percent_text(_upper(n), 1) + '%' for n in reversed(ns)])}).")
    else:
        out.append(f"{scope}, no design was free of design faults: every one of the"
                   f" {len(designs)} designs failed by its own fault somewhere.")
    if failed:
        said = [f"`{d.name}` {rate_ci(d.faults, d.n)} of {d.n} examples, worst on the"
                f" {d.worst_family} operators ({rate_ci(d.family_faults, d.family_n)})"
                for d in failed[:_LISTED]]
        out.append(f"{len(failed)} design{'s' if len(failed) > 1 else ''} failed by"
                   f" {'their' if len(failed) > 1 else 'its'} own fault (rate with its 95 %"
                   f" Wilson interval): " + "; ".join(said) + ".")
        rest = failed[_LISTED:]
        if rest:
            out.append("Also failing, less often: " + ", ".join(
                f"`{d.name}` {rate_ci(d.faults, d.n)}" for d in rest) + ".")
    else:
        out.append("No design failed by its own fault on any operator.")
    out.append(_protocol_sentence(study))
    return out


def _protocol_sentence(study: StudyResult) -> str:
    """What the protocol causes: non-ok verdicts no parser can avoid, the operators most."""
    n = sum(c.n for c in study.cells)
    protocol = sum(c.protocol for c in study.cells)
    if not protocol:
        return ("Nothing is left to the protocol: every non-ok verdict was a design's fault"
                " (no protocol notes).")
    kinds: dict[str, int] = {}
    ops: dict[str, int] = {}
    for c in study.cells:
        for k, v in c.protocol_counts.items():
            kinds[k] = kinds.get(k, 0) + v
        if c.protocol:
            ops[c.abuse] = ops.get(c.abuse, 0) + c.protocol
    top_ops = sorted(ops, key=lambda a: (-ops[a], a))[:3]
    kind_text = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(),
                                                          key=lambda kv: (-kv[1], kv[0])))
    return (f"The protocol's fault, not any design's: {protocol} of {n} examples"
            f" ({rate_ci(protocol, n)}) got a non-ok verdict no parser can avoid, because"
            f" the format cannot carry the intent" + (f" ({kind_text})" if kind_text else "")
            + ", most on " + ", ".join(f"`{a}`" for a in top_ops)
            + "; they are protocol notes, not design faults.")
