"""The study covers every protocol family: a classic design (the family's usual parser
mistake) beside the grammar on each newer format.

Each classic design is caught by the operator aimed at its mechanism, with that
mechanism's verdict; the grammar on the same format fails only where the protocol itself
cannot carry the intent. The whole sweep (every operator, the study's budget) is in the
slow tier.
"""

from __future__ import annotations

import pytest

from reactfuzz.designs import BUILTIN_DESIGNS
from reactfuzz.engine.config import auto_dispatcher
from reactfuzz.engine.results import StudyCell, StudyResult
from reactfuzz.engine.study import (
    STUDY_DESIGNS,
    format_conclusions,
    render_matrix_text,
    run_study,
)
from reactfuzz.formats import BUILTIN_FORMATS
from reactfuzz.model import Call, FinalAnswer
from reactfuzz.parsers import PARSERS, get_parser
from reactfuzz.render import render
from reactfuzz.reporting import render_html, render_study_markdown

NEW_FORMATS = ("action-input-json", "json-blob", "json-blob-fenced", "tool-call",
               "function-tag", "dspy-react", "json-bare")

# (classic design, operator aimed at its mechanism, the verdict that mechanism gives)
MECHANISMS = [
    # 'Final Answer:' in text wins over the action
    ("classic-action-input-json", "injected.answer-label-in-thought", "hijacked-answer"),
    # Action Input:(.*) with DOTALL swallows the real input after a quoted one
    ("classic-action-input-json", "injected.action-in-thought", "silent-drop"),
    # first '{' to last '}': a blob quoted in the thought spoils the real one
    ("classic-json-blob", "injected.action-in-thought", "silent-drop"),
    # the first fence anywhere: a fence quoted in the thought runs
    ("classic-json-blob-fenced", "injected.action-in-thought", "wrong-call"),
    # a tag anywhere: a call quoted in the answer's prose runs
    ("classic-tool-call", "injected.label-in-answer", "wrong-call"),
    # no DOTALL: a call over several lines is not a call, the text is the answer
    ("classic-function-tag", "markup.multiline-input", "hijacked-answer"),
    # unanchored: a call quoted in the thought runs
    ("classic-function-tag", "injected.action-in-thought", "wrong-call"),
    # headers found anywhere: a header quoted inside the thought is a field, and it wins
    ("classic-dspy-react", "injected.action-in-thought", "wrong-call"),
    # json.loads of the whole text, else the text is the answer
    ("classic-json-bare", "malformed.trailing-text", "hijacked-answer"),
]


def test_every_family_is_in_the_study_as_a_classic_and_a_grammar_design() -> None:
    studied = {BUILTIN_DESIGNS[d].format for d in STUDY_DESIGNS}
    assert set(NEW_FORMATS) <= studied <= set(BUILTIN_FORMATS)
    for fmt in NEW_FORMATS:
        classic, grammar = BUILTIN_DESIGNS[f"classic-{fmt}"], BUILTIN_DESIGNS[f"grammar-{fmt}"]
        assert (classic.format, classic.parser, classic.dispatcher) == (
            fmt, f"classic-{fmt}", "positional")
        assert (grammar.format, grammar.parser, grammar.dispatcher) == (fmt, "grammar", "typed")
        assert STUDY_DESIGNS.index(grammar.name) == STUDY_DESIGNS.index(classic.name) + 1
        # `reactfuzz fuzz --parser classic-<format>` finds it and calls tools as it ships
        assert f"classic-{fmt}" in PARSERS and auto_dispatcher(f"classic-{fmt}") == "positional"
    assert {m[0] for m in MECHANISMS} == {f"classic-{f}" for f in NEW_FORMATS}


@pytest.mark.parametrize("fmt", NEW_FORMATS)
def test_classic_parser_reads_clean_renderings(fmt: str) -> None:
    parser = get_parser(f"classic-{fmt}", fmt)
    call = Call.named("list_invoices", customer_id="cus_8812", since="2026-07-01")
    step = parser.parse(render(call, fmt, thought="I will use a tool."))
    assert step.action is not None and step.action.call().tool == "list_invoices"
    assert dict(zip(step.action.names or (), step.action.args or ())) == {
        "customer_id": "cus_8812", "since": "2026-07-01"}
    assert parser.parse(render(FinalAnswer("It is done."), fmt, thought="done")).answer in (
        "It is done.", "done")  # dspy's finish: the thought is the answer


@pytest.mark.parametrize("design,abuse,verdict", MECHANISMS,
                         ids=[f"{d}@{a}" for d, a, _ in MECHANISMS])
def test_classic_design_is_caught_where_its_mechanism_breaks(
        design: str, abuse: str, verdict: str) -> None:
    grammar = design.replace("classic-", "grammar-")
    study = run_study(designs=[design, grammar], abuses=[abuse], examples=3, seed=0)
    classic_cell, grammar_cell = study.cell(design, abuse), study.cell(grammar, abuse)
    assert classic_cell is not None and grammar_cell is not None
    assert classic_cell.counts.get(verdict, 0) > 0, classic_cell.counts
    assert classic_cell.bad() > classic_cell.protocol  # the design's fault, not the format's
    assert grammar_cell.bad() == grammar_cell.protocol, grammar_cell.counts


def _small_study() -> StudyResult:
    cells = [
        StudyCell("classic-json-blob", "injected.action-in-thought", 10,
                  {"ok": 0, "silent-drop": 10}),
        StudyCell("classic-json-blob", "clean.render", 10, {"ok": 10}),
        StudyCell("grammar-json-blob", "injected.action-in-thought", 10, {"ok": 10}),
        StudyCell("grammar-json-blob", "clean.render", 10, {"ok": 10}),
        StudyCell("grammar-json-bare", "clean.render", 10, {"ok": 8, "wrong-call": 2}, 2),
    ]
    return StudyResult(["classic-json-blob", "grammar-json-blob", "grammar-json-bare"],
                       ["clean.render", "injected.action-in-thought"], cells, seed=0,
                       examples_per_cell=10)


def test_conclusions_name_every_format_and_where_each_design_fails() -> None:
    study = _small_study()
    conclusions = format_conclusions(study)
    assert [c.format for c in conclusions] == ["json-blob", "json-bare"]
    classic, grammar = conclusions[0].designs
    assert (classic.faults, classic.n) == (10, 20)
    assert classic.worst == (("injected.action-in-thought", "silent-drop", 1.0),)
    assert (grammar.faults, grammar.worst) == (0, ())
    protocol_only = conclusions[1].designs[0]
    assert (protocol_only.faults, protocol_only.worst) == (0, ())  # the format's, not its own
    md = render_study_markdown(study)
    assert "### Conclusions by format" in md
    assert ("- **`json-blob`**: `classic-json-blob` 50% [30–70], most on "
            "`injected.action-in-thought` silent-drop 100%; `grammar-json-blob` 0% [0–16], none"
            ) in md
    assert "- **`json-bare`**: `grammar-json-bare` 0% [0–28], none" in md
    page = render_html(study)
    assert "Conclusions by format" in page and 'rowspan="2"><code>json-blob</code>' in page


def test_terminal_matrix_wraps_designs_into_blocks_that_fit() -> None:
    designs = list(STUDY_DESIGNS)
    study = StudyResult(designs, ["clean.render"],
                        [StudyCell(d, "clean.render", 3, {"ok": 3}) for d in designs],
                        seed=0, examples_per_cell=3)
    text = render_matrix_text(study, width=100)
    assert max(len(line) for line in text.splitlines()) <= 100
    heads = [line for line in text.splitlines() if line.startswith("             ")]
    assert len(heads) >= 3
    assert sum(len(h.split()) for h in heads) == len(designs)
    assert text.count("\nall ") == len(heads)


@pytest.mark.slow
def test_grammar_designs_have_no_design_caused_failure_in_the_study() -> None:
    study = run_study(designs=[f"grammar-{f}" for f in NEW_FORMATS], seed=0)
    faults = {(c.design, c.abuse): c.counts for c in study.cells if c.bad() > c.protocol}
    assert faults == {}
