"""A seed means one run, whatever else the process has imported.

Hypothesis sometimes draws a string or number found in a "local" module (any module loaded
from outside site-packages and the standard library). A user's test module or ``--target``
full of protocol text would then change what reactfuzz generates for the same seed.
:mod:`reactfuzz._determinism` pins that pool empty while reactfuzz generates; these tests
show the pin holds, is undone afterwards, and is needed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import errors, find, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers

from reactfuzz import _determinism
from reactfuzz.engine import FuzzConfig, run_fuzz

pytestmark = pytest.mark.skipif(not _determinism.pinning_available(),
                                reason="this Hypothesis has no local-constant pool")

# one string no strategy would write by chance: only the constant pool can produce it
BAIT = "Observation: ],]Act,"  # at most 20 characters, or Hypothesis skips it

TEMPTING = f'''
"""Constants a parser's own test module might hold."""
BAIT = {BAIT!r}
LABELS = ["Action:", "Observation:", "Thought:", "Answer:", "Final Answer:", "Action Input:"]
DELIMITERS = ["]", "[", ",", ", ", "\\n", "\\u2028", "\\x85", "\\r\\n", '"', "'"]
CALLS = ["search[Paris, France]", "list_invoices[cus_8812, 2026-07-01]",
         "delete_account[cus_1]", '{{"query": "x"}}']
NUMBERS = [0, 1, -1, 7, 42, 2026, 8812, 10**6, 2**31 - 1]
'''


# a few operators that draw free text and break the classic design
ABUSES = ["injected.delimiter", "injected.answer-label-in-thought", "malformed.wrong-type",
          "extra.positional", "label.case"]


def fingerprint(seed: int = 3) -> list[tuple[str, str, str, str]]:
    run = run_fuzz(FuzzConfig(targets=["classic-bracket"], format="bracket", seed=seed,
                              max_examples=15, corpus=None, abuses=ABUSES))
    return [(f.abuse, f.check, f.verdict, f.completion) for f in run.findings]


@pytest.fixture
def tempting(local_module: Callable[..., Any]) -> None:
    """A local module full of protocol text, imported (a fresh name: Hypothesis reads a
    module's constants once)."""
    global _count
    _count += 1
    local_module(f"tempting_constants_{_count}", TEMPTING)


_count = 0


def _unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    # fixed_constants() then finds no pool to pin and generates as plain Hypothesis does
    monkeypatch.setattr(_determinism, "_providers", lambda: (None, None))


def _draws_bait() -> bool:
    """Whether Hypothesis, left to itself, generates ``BAIT`` (only a constant can).

    Each draw takes a pool constant with probability 1/20, and no other constant of this
    length and alphabet exists, so 300 examples find it unless the pool is pinned empty.
    """
    text = st.text(alphabet=sorted(set(BAIT)), min_size=len(BAIT), max_size=len(BAIT))
    try:
        find(text, lambda s: s == BAIT,
             settings=settings(max_examples=300, database=None, derandomize=True))
    except errors.NoSuchExample:
        return False
    return True


def test_same_seed_same_findings_after_importing_tempting_constants(
    request: pytest.FixtureRequest,
) -> None:
    before = fingerprint()
    assert before, "the classic design should have findings"
    request.getfixturevalue("tempting")
    assert fingerprint() == before


def test_the_pin_is_undone_after_a_run(tempting: None) -> None:
    original = providers._get_local_constants
    fingerprint()
    assert providers._get_local_constants is original
    assert _determinism._depth == 0
    assert BAIT in providers._get_local_constants().strings


def test_the_pin_is_reentrant_and_restores() -> None:
    original = providers._get_local_constants
    with _determinism.fixed_constants():
        with _determinism.fixed_constants():
            assert len(providers._get_local_constants()) == 0
        assert len(providers._get_local_constants()) == 0
    assert providers._get_local_constants is original


def test_without_the_pin_the_imported_constants_leak_in(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _unpinned(monkeypatch)
    before = fingerprint()
    request.getfixturevalue("tempting")
    after = fingerprint()
    # Findings are shrunk, so they may happen to agree; generation itself must not.
    if after == before:
        assert _draws_bait(), "unpinned Hypothesis never drew the imported constant"
    monkeypatch.undo()
    with _determinism.fixed_constants():
        assert not _draws_bait()


def test_pinned_generation_never_draws_the_constant(tempting: None) -> None:
    with _determinism.fixed_constants():
        assert not _draws_bait()
    assert _draws_bait()
