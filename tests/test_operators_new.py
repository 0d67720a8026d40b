"""The operators for long inputs, quotes, stop lists, markup, label variants, tool names,
JSON arguments and answer/action order: each ``breaks`` claim checked both ways.

For each operator: every classic design it claims is broken (Hypothesis finds a
design-fault counterexample), every classic design it does not claim survives a search,
and no grammar + typed design is ever judged anything but ok or a protocol note on it
(no wrong call, no silent drop, no wrong refusal: the false alarms a maintainer rejects).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis.errors import NoSuchExample, Unsatisfiable

from reactfuzz import BUILTIN_FORMATS
from reactfuzz.designs import BUILTIN_DESIGNS, Design
from reactfuzz.dispatch import bind_typed
from reactfuzz.formats.grammars import grammar_parse
from reactfuzz.model import Action, Step
from reactfuzz.oracle import judge
from reactfuzz.strategies import ABUSES, Scenario, scenarios
from reactfuzz.tools import default_registry

CLASSIC = ("classic-bracket", "classic-unanchored", "classic-action-input")
GRAMMAR_DESIGNS = {f: Design(f"grammar:{f}", f, "grammar", "typed") for f in BUILTIN_FORMATS}
"""The reference design of every built-in format: its grammar and typed dispatch."""
FIRST_FAMILIES = ("clean", "malformed", "missing", "extra", "injected", "label", "fabricated")
NEW = [a for a in ABUSES.values() if a.family not in FIRST_FAMILIES]
"""Every operator after the first families' (an operator family added later included)."""
REG = default_registry()


def _settings(n: int, *, shrink: bool = True) -> settings:
    phases = (Phase.generate, Phase.shrink) if shrink else (Phase.generate,)
    return settings(database=None, max_examples=n, derandomize=True, deadline=None,
                    phases=phases, suppress_health_check=list(HealthCheck))


def verdict_of(design_name: str, sc: Scenario):
    design = BUILTIN_DESIGNS.get(design_name) or GRAMMAR_DESIGNS[design_name.split(":")[1]]
    _, outcome = design.run(sc.completion, REG)
    return judge(outcome, sc.acceptable, REG, completion=sc.completion, fmt=design.fmt)


def _design_fault(v) -> bool:
    return not v.ok and v.cause == "design"


def breaks(design_name: str, abuse: str, n: int, *, shrink: bool = False) -> Scenario:
    fmt = BUILTIN_DESIGNS[design_name].format
    return find(scenarios(REG, fmt, abuses=[abuse]),
                lambda sc: _design_fault(verdict_of(design_name, sc)),
                settings=_settings(n, shrink=shrink))


def _slow_if_size(abuse: str, *rest: str) -> object:
    """Long texts cost a parse each: the size operators run in the slow tier."""
    marks = [pytest.mark.slow] if abuse.startswith("size.") else []
    return pytest.param(abuse, *rest, marks=marks, id="/".join((abuse, *rest)))


# --- the catalogue ----------------------------------------------------------------------


def test_new_operators_are_registered_after_the_others_and_documented() -> None:
    ids = list(ABUSES)
    first_new = ids.index(NEW[0].id)
    assert [a.family for a in ABUSES.values()][first_new:] == [a.family for a in NEW]
    for a in NEW:
        assert a.description and a.why and a.expects, a.id
        assert a.breaks or a.breaks_none_because, a.id
        assert set(a.breaks) <= set(CLASSIC), a.id


JSON_FORMATS = {"json-args", "action-input-json", "json-blob", "json-blob-fenced", "tool-call",
                "function-tag", "dspy-react", "json-bare"}
TAG_FORMATS = {"tool-call", "function-tag"}
XML_FORMATS = {"xml-invoke", "xml-function", "xml-tags"}
BARE = {"json-bare", "pythonic"}  # the whole completion is the call: no thought, no label
APPLIES = {
    # operator: the built-in formats it applies to (from the family's attributes); the
    # others apply to every format
    "quoting.wrapped": {"bracket"},  # an optional quote: a JSON family's quotes are syntax
    "json.nested": JSON_FORMATS,
    "json.comment": JSON_FORMATS,
    "json.label-in-string": JSON_FORMATS,
    "json.scalar-args": JSON_FORMATS,
    "json.template-braces": JSON_FORMATS,
    "json.python-set": JSON_FORMATS,
    "content.lenient-json": JSON_FORMATS,
    # a tag format's answer is unmarked text: answer + action is a thought and an action
    "order.answer-and-action": set(BUILTIN_FORMATS) - TAG_FORMATS - XML_FORMATS - BARE,
    # a brace needs a format whose arguments open with one (action-input: a bare line; the
    # XML formats: tags)
    "prose.lone-brace": set(BUILTIN_FORMATS) - {"action-input"} - XML_FORMATS,
    # only where the answer is a finish action
    "prose.plain-answer": {"paper", "json-blob", "json-blob-fenced", "react-single", "dspy-react"},
    "prose.opens-with-stop": {f for f, fmt in BUILTIN_FORMATS.items() if fmt.stop},
    # calls written as a JSON object of a tool key and an arguments key
    "json.call-shape": {"json-blob", "json-blob-fenced", "tool-call", "json-bare"},
    # a part moved needs a format that writes labels
    "layout.part-moved": {"bracket", "paper", "action-input", "json-args", "action-input-json",
                          "json-blob", "json-blob-fenced", "react-single"},
    # a run of arguments needs a format whose calls carry several
    "size.unclosed-argument-run": set(BUILTIN_FORMATS) - {"paper", "action-input",
                                                          "react-single"},
    # a bare JSON or pythonic completion has no thought to repeat a call's start in
    "size.repeated-call-start": set(BUILTIN_FORMATS) - BARE,
    # only where the action's JSON holds more than the arguments object
    "layout.pretty-action": {"json-blob", "json-blob-fenced", "tool-call", "json-bare"},
    # a tag, XML, section, bare-JSON or pythonic format writes no `Label:`: nothing to vary, emphasise
    # or pad
    **{op: set(BUILTIN_FORMATS) - TAG_FORMATS - XML_FORMATS - BARE - {"dspy-react"}
       for op in (
        "markup.emphasis", "markup.block", "variant.case", "variant.spacing",
        "size.long-run", "size.label-gap-run", "size.label-run-argument")},
}


def test_which_new_operator_applies_to_which_format() -> None:
    every = set(BUILTIN_FORMATS)
    assert set(APPLIES) <= {a.id for a in NEW}
    for a in NEW:
        formats = {f for f in BUILTIN_FORMATS if a.applies_to(f)}
        if a.id in APPLIES:
            assert formats == APPLIES[a.id], a.id
        else:  # an operator added later says itself what a format needs for it
            assert formats == every or (formats and a.needs), a.id


# --- the claims, both ways --------------------------------------------------------------

CLAIMS = [_slow_if_size(a.id, d) for a in NEW for d in a.breaks]


@pytest.mark.parametrize(("abuse", "design"), CLAIMS)
def test_operator_breaks_the_classic_design_it_claims(abuse: str, design: str) -> None:
    # generation only: shrinking every claim is the slow tier's job (below)
    sc = breaks(design, abuse, 150)
    assert not verdict_of(design, sc).ok


@pytest.mark.slow
@pytest.mark.parametrize(("abuse", "design"), CLAIMS)
def test_a_claimed_break_shrinks_to_a_short_example(abuse: str, design: str) -> None:
    sc = breaks(design, abuse, 150, shrink=True)
    assert len(sc.completion) < 200, sc.completion


UNCLAIMED = [
    _slow_if_size(a.id, d) for a in NEW for d in CLASSIC
    if d not in a.breaks and a.applies_to(BUILTIN_DESIGNS[d].format)
]


@pytest.mark.parametrize(("abuse", "design"), UNCLAIMED)
def test_operator_does_not_break_what_it_does_not_claim(abuse: str, design: str) -> None:
    with pytest.raises((NoSuchExample, Unsatisfiable)):
        sc = breaks(design, abuse, 60)
        pytest.fail(f"{abuse} also breaks {design}: {sc.completion!r} -> {verdict_of(design, sc)}")


PAIRS = [_slow_if_size(a.id, d.name) for a in NEW for f, d in GRAMMAR_DESIGNS.items()
         if a.applies_to(f)]


@pytest.mark.parametrize(("abuse", "design"), PAIRS)
def test_grammar_typed_designs_are_never_at_fault(abuse: str, design: str) -> None:
    """Not only no wrong call: no silent drop and no wrong refusal either, in every format."""
    fmt = design.split(":")[1]

    @_settings(20)
    @given(sc=scenarios(REG, fmt, abuses=[abuse]))
    def check(sc: Scenario) -> None:
        v = verdict_of(design, sc)
        assert not _design_fault(v), (sc.completion[:300], v)

    try:
        check()
    except Unsatisfiable:
        pytest.skip(f"{abuse} finds no scenario in {fmt}")


# --- deliberately broken parsers the unclaimed operators catch --------------------------


def _quote_stripping(text: str, fmt: str) -> Step:
    """The grammar's reading, then `.strip('"')` on every argument (a common habit)."""
    step = grammar_parse(text, fmt)
    if step.action is None or step.action.args is None:
        return step
    a = step.action
    args = tuple(x.strip('"') if isinstance(x, str) else x for x in a.args)
    return Step(thought=step.thought, action=Action(a.tool, a.raw, args, a.names))


def test_quoted_phrases_catch_a_quote_stripping_parser() -> None:
    def wrong(sc: Scenario) -> bool:
        outcome = bind_typed(_quote_stripping(sc.completion, "action-input"), REG)
        v = judge(outcome, sc.acceptable, REG, completion=sc.completion, fmt="action-input")
        return _design_fault(v)

    sc = find(scenarios(REG, "action-input", abuses=["quoting.content"]), wrong,
              settings=_settings(100))
    assert '"' in sc.completion


def test_a_partial_stop_word_is_not_read_into_the_input_in_action_input() -> None:
    # the input runs to the end, and the grammar leaves a dangling `Observ` out of it: a
    # parser that passes it to the tool is at fault (tests/test_partial_stop.py)
    with pytest.raises((NoSuchExample, Unsatisfiable)):
        find(scenarios(REG, "action-input", abuses=["stop.partial"]),
             lambda s: not verdict_of("grammar-action-input", s).ok, settings=_settings(100))


@pytest.mark.slow
def test_a_long_argument_times_out_a_backtracking_action_regex() -> None:
    from reactfuzz.targets.regexes import RegexTarget

    target = RegexTarget(r"^Action:\s*(?P<tool>\w+)\[(?P<args>(?:\s*\w*\s*)*)\]\s*$",
                         "bracket", timeout=0.5)
    sc = find(scenarios(REG, "bracket", abuses=["size.long-argument"]),
              lambda s: target.run(s.completion).timed_out, settings=_settings(40))
    assert len(sc.completion) > 1000
