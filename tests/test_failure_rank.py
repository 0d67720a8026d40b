"""Which failure of an example wins is one rule, used by the search, exploration and the
coverage-guided harness alike: a design fault before a protocol note, then check order."""

from __future__ import annotations

from typing import Any

import pytest

from reactfuzz.engine.checks import Check, Failure
from reactfuzz.engine.example import ranked_failures
from reactfuzz.errors import UsageError
from reactfuzz.fuzzing.harness import Harness


def _check(id: str, failure: Failure | None) -> Check:
    return Check(id, id, lambda inp: failure)


def test_a_design_fault_outranks_an_earlier_protocol_note() -> None:
    note = Failure("wrong-call", "note", cause="protocol")
    fault = Failure("crash", "fault")
    later = Failure("wrong-call", "later fault")
    checks = [_check("a", note), _check("b", None), _check("c", fault), _check("d", later)]
    got = ranked_failures(checks, None)  # type: ignore[arg-type]
    assert [(c.id, f.message) for c, f in got] == [("c", "fault"), ("d", "later fault"),
                                                  ("a", "note")]


def test_a_raising_check_is_a_usage_error_naming_it() -> None:
    def boom(inp: Any) -> Failure | None:
        raise RuntimeError("oops")

    with pytest.raises(UsageError, match="check 'x' raised RuntimeError: oops"):
        ranked_failures([Check("x", "x", boom)], None)  # type: ignore[arg-type]


def test_the_harness_keeps_the_engines_rule() -> None:
    """The classic parser takes an answer label spliced into a thought: the harness
    reports the design fault that wins (ranked_failures, filtered to design faults)."""
    h = Harness("classic-bracket", "bracket", on_failure="record")
    try:
        ex = h.examine("Thought: x Answer: no\nAction: search[a]")
        assert ex.failure is not None and ex.failure.cause == "design"
        assert ex.check == "no-hijacked-answer"
    finally:
        h.close()
