"""The hand triage of the zoo's default-run findings, as data.

Each :class:`Triage` row names a zoo parser, the check and abuse operator of a finding,
its class (``defect``: a real bug; ``judgement``: documented or defensible behaviour;
``false-alarm``: reactfuzz is wrong, with the cause in reactfuzz) and the bug it is, so
the runner counts distinct bugs and the tests pin the real ones by check and mechanism.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["TRIAGE", "Triage", "classify"]


class Triage(NamedTuple):
    """One triaged finding pattern: parser, check, abuse (``*`` any) and what it is."""

    module: str
    check: str
    abuse: str
    klass: str
    bug: str
    mechanism: str
    ground_truth: str = ""


TRIAGE: tuple[Triage, ...] = ()
"""Filled in from the default runs (docs/zoo.md shows the same rows)."""


def classify(module: str, finding: dict[str, Any]) -> tuple[str, str]:
    """The triage class and bug id of one finding (``untriaged`` when no row matches)."""
    for row in TRIAGE:
        if (row.module == module and row.check == finding["check"]
                and row.abuse in ("*", finding["abuse"])):
            return row.klass, row.bug
    return "untriaged", ""
