"""One vocabulary: the kinds and severities defined once, and one argument binder."""

from __future__ import annotations

import importlib
from typing import Any, get_args

import pytest

from reactfuzz import kinds
from reactfuzz.dispatch import (
    DISPATCH_WORDING,
    DISPATCHERS,
    Rejected,
    bind_arguments,
    dispatch_typed,
    get_dispatcher,
)
from reactfuzz.errors import UsageError
from reactfuzz.model import Call
from reactfuzz.oracle import INTENT_WORDING, Policy
from reactfuzz.registry import Registry
from reactfuzz.tools import default_registry

# the package exports functions named like some modules (``oracle``): import the modules
checks, common, dispatch, oracle, strategies, study = (
    importlib.import_module(f"reactfuzz.{name}")
    for name in (
        "engine.checks", "reporting.common", "dispatch", "oracle", "strategies",
        "engine.study"
    )
)

# --- the kinds and severities --------------------------------------------------------


def test_the_severity_scale_is_ordered_none_to_critical() -> None:
    assert kinds.SEVERITY_SCALE == ("none", "low", "medium", "high", "critical")
    assert [kinds.SEVERITY_RANK[s] for s in kinds.SEVERITY_SCALE] == [0, 1, 2, 3, 4]
    assert all(kinds.SEVERITIES[s] for s in kinds.SEVERITY_SCALE)


@pytest.mark.parametrize("kind", get_args(kinds.VerdictKind))
def test_every_verdict_kind_has_a_severity_and_a_meaning(kind: str) -> None:
    graded = kinds.VERDICTS[kind]  # type: ignore[index]
    assert graded.severity in kinds.SEVERITY_SCALE
    assert graded.meaning and "\n" not in graded.meaning
    assert kinds.SEVERITY[kind] == graded.severity
    assert kinds.VERDICT_MEANING[kind] == graded.meaning
    assert oracle.Verdict(kind, "x").severity == graded.severity


def test_verdicts_are_listed_ok_first_then_worst_first() -> None:
    ranks = [kinds.SEVERITY_RANK[g.severity] for g in kinds.VERDICTS.values()]
    assert next(iter(kinds.VERDICTS)) == "ok"
    assert ranks[1:] == sorted(ranks[1:], reverse=True)


@pytest.mark.parametrize("kind", get_args(kinds.RejectKind))
def test_every_reject_kind_has_a_meaning(kind: str) -> None:
    assert kinds.REJECTIONS[kind]  # type: ignore[index]
    assert kind in kinds.REJECT_KINDS


def test_any_refusal_is_every_reject_kind_unknown_tool_included() -> None:
    assert kinds.ANY_REFUSAL == frozenset(get_args(kinds.RejectKind))
    assert "unknown-tool" in kinds.ANY_REFUSAL


def test_every_disagreement_is_graded_on_the_scale() -> None:
    for kind, graded in kinds.DISAGREEMENTS.items():
        assert kinds.DISAGREEMENT_SEVERITY[kind] in kinds.SEVERITY_SCALE
        assert graded.meaning


def test_the_old_names_are_the_one_definition() -> None:
    assert oracle.SEVERITY is kinds.SEVERITY
    assert oracle.VerdictKind is kinds.VerdictKind
    assert dispatch.RejectKind is kinds.RejectKind
    assert dispatch.REJECT_KINDS is kinds.REJECT_KINDS
    assert strategies.ANY_REFUSAL is kinds.ANY_REFUSAL
    assert checks.DISAGREEMENT_SEVERITY is kinds.DISAGREEMENT_SEVERITY
    assert study.SEVERITY_RANK is kinds.SEVERITY_RANK
    assert checks.SEVERITY is study.SEVERITY is kinds.SEVERITY
    assert common.SEVERITIES == tuple(reversed(kinds.SEVERITY_SCALE))


# --- one argument binder --------------------------------------------------------------

LAST_WINS: dict[str, Any] = {}
STRICT: dict[str, Any] = {"duplicates": "refuse", "wording": INTENT_WORDING}
DROP: dict[str, Any] = {**STRICT, "undeclared": "drop"}

BINDINGS = [
    # id, tool, args, names, options, kwargs or (reject kind, message)
    ("positional", "search", ("x",), None, LAST_WINS, {"query": "x"}),
    ("positional-optional-left-out", "get_weather", ("Paris",), None, LAST_WINS,
     {"city": "Paris"}),
    ("named", "get_weather", ("metric", "Paris"), ("units", "city"), LAST_WINS,
     {"units": "metric", "city": "Paris"}),
    ("no-arguments", "get_time", (), None, LAST_WINS, {}),
    ("unknown-tool/dispatch", "nope", ("x",), None, LAST_WINS,
     ("unknown-tool", "no tool named 'nope' (tools: search, list_invoices, get_charge, refund,"
      " get_weather, send_email, get_time, read_file)")),
    ("unknown-tool/intent", "nope", ("x",), None, STRICT,
     ("unknown-tool", "there is no tool 'nope'")),
    ("too-many/dispatch", "get_charge", ("ch_1", "x"), None, LAST_WINS,
     ("extra-arg", "get_charge takes 1 argument(s) (charge_id), 2 given")),
    ("too-many/dispatch/none-declared", "get_time", ("x",), None, LAST_WINS,
     ("extra-arg", "get_time takes 0 argument(s) (none), 1 given")),
    ("too-many/intent", "get_charge", ("ch_1", "x"), None, STRICT,
     ("extra-arg", "get_charge takes 1 argument(s), the intent has 2")),
    ("undeclared-refused/dispatch", "search", ("x", "en"), ("query", "lang"), LAST_WINS,
     ("extra-arg", "search has no argument 'lang' (arguments: query)")),
    ("undeclared-refused/dispatch/none-declared", "get_time", ("x",), ("tz",), LAST_WINS,
     ("extra-arg", "get_time has no argument 'tz' (arguments: )")),
    ("undeclared-refused/intent", "search", ("x", "en"), ("query", "lang"), STRICT,
     ("extra-arg", "search declares no argument 'lang'")),
    ("undeclared-dropped", "search", ("x", "en"), ("query", "lang"), DROP, {"query": "x"}),
    ("undeclared-dropped-then-missing", "search", ("en",), ("lang",), DROP,
     ("missing-arg", "search needs 'query'")),
    ("duplicate-last-wins", "search", ("x", "y"), ("query", "query"), LAST_WINS,
     {"query": "y"}),
    ("duplicate-refused", "search", ("x", "y"), ("query", "query"), STRICT,
     ("extra-arg", "an argument is given twice")),
    ("duplicate-refused-before-undeclared", "search", ("x", "y", "z"),
     ("query", "query", "lang"), STRICT, ("extra-arg", "an argument is given twice")),
    ("missing/dispatch", "list_invoices", (), None, LAST_WINS,
     ("missing-arg", "list_invoices needs 'customer_id', 'since'")),
    ("missing/intent", "list_invoices", (), None, STRICT,
     ("missing-arg", "list_invoices needs 'customer_id'")),
    ("missing-named", "refund", ("ch_1",), ("charge_id",), LAST_WINS,
     ("missing-arg", "refund needs 'amount'")),
]


@pytest.mark.parametrize(("tool", "args", "names", "options", "want"),
                         [b[1:] for b in BINDINGS], ids=[b[0] for b in BINDINGS])
def test_bind_arguments(tool: str, args: tuple[Any, ...], names: tuple[str, ...] | None,
                        options: dict[str, Any], want: Any) -> None:
    got = bind_arguments(default_registry(), tool, args, names, **options)
    if isinstance(want, dict):
        assert got == want
    else:
        assert got == Rejected(*want)


def test_the_oracle_and_the_dispatcher_share_the_binder() -> None:
    reg = default_registry()
    acc = oracle.oracle(Call.named("search", query="x", lang="en"), "json-args", reg)
    assert acc.rejections == {"extra-arg"}
    assert acc.reason == "refuse: search declares no argument 'lang'"
    dropped = oracle.oracle(Call.named("search", query="x", lang="en"), "json-args", reg,
                            Policy(undeclared_args="drop"))
    assert dropped.calls == (Call("search", ("x",), ("query",)),)
    assert DISPATCH_WORDING.unknown_tool != INTENT_WORDING.unknown_tool


# --- the dispatcher registry ----------------------------------------------------------


def test_dispatchers_are_a_registry() -> None:
    assert isinstance(DISPATCHERS, Registry)
    assert DISPATCHERS.names() == ["positional", "typed"]
    assert get_dispatcher("typed") is dispatch_typed
    with pytest.raises(UsageError, match="already registered"):
        DISPATCHERS.add("typed", dispatch_typed)
    with pytest.raises(UsageError) as e:
        get_dispatcher("nope")
    assert str(e.value) == "unknown dispatcher 'nope': use one of positional, typed"
