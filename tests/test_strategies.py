"""The abuse catalogue against the designs: every operator's claim is checked.

For each operator: the classic designs it claims to break are broken (Hypothesis finds a
counterexample and shrinks it), the ones it does not claim are not (within a budget), and
no grammar + typed design is ever judged wrong-call, unvalidated-call or hijacked-answer
on it unless the format itself cannot carry the intent (a ``protocol`` cause).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample, Unsatisfiable

from reactfuzz import BUILTIN_FORMATS, parse_transcript
from reactfuzz.designs import BUILTIN_DESIGNS
from reactfuzz.oracle import judge
from reactfuzz.strategies import (
    ABUSES,
    LINE_BREAKS,
    Scenario,
    abuse_ids,
    adversarial_pieces,
    adversarial_text,
    intents,
    scenarios,
    transcripts,
)
from reactfuzz.tools import default_registry

CLASSIC = ("classic-bracket", "classic-unanchored", "classic-action-input")
GRAMMAR_DESIGNS = ("grammar-bracket", "grammar-json-args", "grammar-paper", "grammar-action-input")
BAD = {"wrong-call", "unvalidated-call", "hijacked-answer"}
ORIGINAL = ("clean", "malformed", "missing", "extra", "injected", "label", "fabricated")
"""The first abuse families; the later ones are specified in test_operators_new.py."""
OPERATORS = [a for a in ABUSES.values() if a.family in ORIGINAL]
FIND = settings(database=None, max_examples=300, derandomize=True,
                suppress_health_check=list(HealthCheck))


def verdict_of(design_name: str, sc: Scenario):
    design = BUILTIN_DESIGNS[design_name]
    reg = default_registry()
    _, outcome = design.run(sc.completion, reg)
    return judge(outcome, sc.acceptable, reg, completion=sc.completion, fmt=design.fmt)


def _design_fault(v) -> bool:
    """A verdict that is the design's fault (not the protocol's ambiguity)."""
    return not v.ok and v.cause == "design"


def breaks(design_name: str, abuse: str) -> Scenario:
    design = BUILTIN_DESIGNS[design_name]
    return find(
        scenarios(default_registry(), design.format, abuses=[abuse]),
        lambda sc: _design_fault(verdict_of(design_name, sc)),
        settings=FIND,
    )


def test_catalogue_is_complete_and_documented() -> None:
    families = {a.family for a in ABUSES.values()}
    assert families >= set(ORIGINAL)
    assert len(ABUSES) >= 25
    for a in ABUSES.values():
        assert a.description and a.why and a.expects, a.id
        assert a.breaks or a.breaks_none_because, f"{a.id}: say which classic design fails, or why none"
        assert set(a.breaks) <= set(CLASSIC), a.id
        assert any(a.applies_to(f) for f in BUILTIN_FORMATS), a.id


CLAIMS = [(a.id, d) for a in OPERATORS for d in a.breaks]


@pytest.mark.parametrize(("abuse", "design"), CLAIMS, ids=[f"{a}/{d}" for a, d in CLAIMS])
def test_operator_breaks_the_classic_design_it_claims(abuse: str, design: str) -> None:
    sc = breaks(design, abuse)
    v = verdict_of(design, sc)
    assert not v.ok
    # the minimal example is short: shrinking removed everything that does not matter
    assert len(sc.completion) < 160, sc.completion


UNCLAIMED = [
    (a.id, d) for a in OPERATORS for d in CLASSIC
    if d not in a.breaks and a.applies_to(BUILTIN_DESIGNS[d].format)
]


@pytest.mark.parametrize(("abuse", "design"), UNCLAIMED, ids=[f"{a}/{d}" for a, d in UNCLAIMED])
def test_operator_does_not_break_what_it_does_not_claim(abuse: str, design: str) -> None:
    """The catalogue is honest both ways: an unclaimed design survives a search."""
    with pytest.raises((NoSuchExample, Unsatisfiable)):
        sc = breaks(design, abuse)
        pytest.fail(f"{abuse} also breaks {design}: {sc.completion!r} -> {verdict_of(design, sc)}")


PAIRS = [(a.id, d) for a in OPERATORS for d in GRAMMAR_DESIGNS
         if a.applies_to(BUILTIN_DESIGNS[d].format)]


@pytest.mark.parametrize(("abuse", "design"), PAIRS, ids=[f"{a}/{d}" for a, d in PAIRS])
def test_grammar_typed_designs_never_run_a_wrong_call(abuse: str, design: str) -> None:
    fmt = BUILTIN_DESIGNS[design].format

    @settings(max_examples=25, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(sc=scenarios(default_registry(), fmt, abuses=[abuse]))
    def check(sc: Scenario) -> None:
        v = verdict_of(design, sc)
        assert not (v.kind in BAD and v.cause == "design"), (sc.completion, v)

    try:
        check()
    except Unsatisfiable:
        pytest.skip(f"{abuse} finds no scenario in {fmt}")


# --- minimal examples: shrinking lands on the character that matters ---------------------


def test_delimiter_shrinks_to_a_lone_comma() -> None:
    sc = breaks("classic-bracket", "injected.delimiter")
    assert sc.intent.args == (",",)
    assert sc.completion.endswith("Action: search[,]")


def test_unicode_line_break_shrinks_to_the_break() -> None:
    sc = breaks("classic-unanchored", "injected.unicode-line-break")
    odd = [c for c in sc.completion if c in "".join(LINE_BREAKS[2:])]
    assert len(odd) == 1


def test_answer_label_in_thought_hijacks_the_classic_loop() -> None:
    sc = breaks("classic-bracket", "injected.answer-label-in-thought")
    v = verdict_of("classic-bracket", sc)
    assert v.kind == "hijacked-answer"
    assert "Answer" in v.explanation and "stands inside line 1" in v.explanation


def test_stop_in_argument_cuts_the_completion() -> None:
    # in action-input the cut leaves a shorter, valid input: the protocol's fault
    sc = find(scenarios(default_registry(), "action-input", abuses=["injected.stop-in-argument"]),
              lambda s: not verdict_of("grammar-action-input", s).ok, settings=FIND)
    v = verdict_of("grammar-action-input", sc)
    assert (v.kind, v.cause) == ("wrong-call", "protocol")


# --- the generators themselves ----------------------------------------------------------


@pytest.mark.parametrize("fmt", sorted(BUILTIN_FORMATS))
def test_pieces_derive_from_the_format(fmt: str) -> None:
    f = BUILTIN_FORMATS[fmt]
    pieces = adversarial_pieces(f)
    for stop in f.stop:
        assert stop in pieces
    for word in f.labels.all().values():
        assert f"{word}:" in pieces
    assert "\u2028" in pieces and "<|im_end|>" in pieces


def test_user_format_gets_the_catalogue(tmp_path) -> None:
    from reactfuzz.formats import load_format

    p = tmp_path / "de.toml"
    p.write_text('base = "bracket"\nstop = ["Beobachtung:"]\n[labels]\naction = "Aktion"\n'
                 'thought = "Gedanke"\nobservation = "Beobachtung"\nanswer = "Antwort"\n')
    fmt = load_format(p)
    assert "Aktion:" in adversarial_pieces(fmt)
    assert set(abuse_ids(fmt)) == set(abuse_ids("bracket"))
    sc = find(scenarios(default_registry(), fmt, abuses=["injected.second-action"]),
              lambda s: True, settings=FIND)
    assert sc.completion.count("Aktion:") == 2


@given(text=adversarial_text("bracket"))
def test_adversarial_text_is_text(text: str) -> None:
    assert isinstance(text, str)


@given(intent=intents(default_registry()), fmt=st.sampled_from(sorted(BUILTIN_FORMATS)))
def test_clean_intents_are_valid(intent, fmt) -> None:
    from reactfuzz.oracle import oracle

    acc = oracle(intent, fmt, default_registry())
    assert acc.calls or acc.answers


@pytest.mark.parametrize("method", ["render", "grammar"])
@pytest.mark.parametrize("fmt", sorted(BUILTIN_FORMATS))
def test_transcripts_are_accepted_by_the_grammar(fmt: str, method: str) -> None:
    @settings(max_examples=30, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(text=transcripts(fmt, method=method))
    def check(text: str) -> None:
        t = parse_transcript(text, fmt)
        assert t.ok, (text, t.invalid)

    check()


def test_transcript_keywords_appear_mid_line() -> None:
    for method in ("render", "grammar"):
        seen = find(transcripts("bracket", method=method),
                    lambda s: " Answer:" in s or " Action: x[y]" in s, settings=FIND)
        assert parse_transcript(seen, "bracket").ok


def test_catalogue_order_is_registration_order() -> None:
    # reports and the study list operators in this order: new ones go at the end
    assert list(ABUSES)[:7] == [
        "clean.render", "malformed.wrong-type", "malformed.unbalanced-bracket",
        "malformed.unbalanced-quote", "malformed.empty", "malformed.trailing-text",
        "malformed.invalid-json",
    ]
    families = [a.family for a in ABUSES.values()]
    order = list(dict.fromkeys(families))
    assert order[: len(ORIGINAL)] == list(ORIGINAL)
    assert families == sorted(families, key=order.index)


def test_a_second_operator_with_the_same_id_is_refused() -> None:
    from reactfuzz.errors import UsageError
    from reactfuzz.strategies import register_abuse

    with pytest.raises(UsageError, match=r"'clean\.render' is already registered"):
        register_abuse("clean.render", family="clean", description="", why="", expects="")(
            lambda ctx: None  # type: ignore[arg-type, return-value]
        )
    assert ABUSES["clean.render"].description.startswith("no abuse")
