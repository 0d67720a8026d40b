"""The study says its conclusion first; every chart colours a verdict by its cause; the fuzz
report's operator chart counts distinct failures, not failing (or shrink) examples."""

from __future__ import annotations

import html
import re

import pytest

from reactfuzz.engine import search as search_module
from reactfuzz.engine.config import FuzzConfig
from reactfuzz.engine.results import StudyCell, StudyResult, wilson
from reactfuzz.engine.run import run_fuzz
from reactfuzz.reporting import render_html, render_study_markdown
from reactfuzz.reporting.common import (
    AMBERS,
    DESIGN_COLOR,
    PROTOCOL_COLOR,
    REDS,
    VERDICT_COLORS,
)
from reactfuzz.reporting.conclusion import study_conclusion
from reactfuzz.reporting.svg import ramp_color

OPS = ["clean.render", "injected.second-action", "malformed.wrong-type"]


def _study(failing: str, safe: str, *, protocol_design: str | None = None) -> StudyResult:
    """Two made-up designs over three operators, 60 examples each: ``failing`` runs the
    wrong call on 12 of injected.second-action's and crashes on 6 of malformed.wrong-type's;
    ``safe`` never fails by its own fault. ``protocol_design`` gets 5 protocol-caused
    wrong calls on malformed.wrong-type (the format's fault, not its own)."""
    cells = []
    for d in (failing, safe):
        for op in OPS:
            counts = {"ok": 60}
            protocol, by_kind = 0, {}
            if d == failing and op == "injected.second-action":
                counts = {"ok": 48, "wrong-call": 12}
            if d == failing and op == "malformed.wrong-type":
                counts = {"ok": 54, "crash": 6}
            if d == protocol_design and op == "malformed.wrong-type":
                counts = {**counts, "ok": counts["ok"] - 5, "wrong-call": 5}
                protocol, by_kind = 5, {"wrong-call": 5}
            cells.append(StudyCell(d, op, 60, counts, protocol, "", by_kind))
    return StudyResult([failing, safe], OPS, cells, seed=0, examples_per_cell=60)


def test_conclusion_names_the_safe_and_the_failing_design_from_the_data() -> None:
    lines = study_conclusion(_study("alpha", "beta", protocol_design="beta"))
    assert 2 <= len(lines) <= 5
    safe, failed, protocol = lines
    assert "`beta`" in safe and "`alpha`" not in safe
    assert "1 of 2 designs had no design fault" in safe and "180 examples" in safe
    assert "`alpha`" in failed and "`beta`" not in failed
    # alpha: 18 of 180 pooled (10 %), worst on the injected family: 12 of 60 (20 %)
    assert "`alpha` 10% [6–15] of 180 examples, worst on the injected operators" in failed
    assert "(20% [12–32])" in failed
    # beta's wrong calls are the protocol's: named there, never counted against beta
    assert "5 of 360 examples" in protocol and "wrong-call 5" in protocol
    assert "`malformed.wrong-type`" in protocol and "protocol notes" in protocol

    # other data, other words: the roles swap, and nothing is left to the protocol
    swapped = study_conclusion(_study("beta", "alpha"))
    assert swapped != lines
    assert "`alpha`" in swapped[0] and "`beta`" not in swapped[0]
    assert "`beta`" in swapped[1] and "`alpha`" not in swapped[1]
    assert "Nothing is left to the protocol" in swapped[2]


def test_conclusion_when_every_design_fails_or_none_does() -> None:
    both = _study("alpha", "beta")
    both.cells = [c for c in both.cells if c.design == "alpha"]
    both.cells += [StudyCell("beta", c.abuse, c.n, dict(c.counts)) for c in both.cells]
    lines = study_conclusion(both)
    assert "no design was free of design faults" in lines[0]
    assert "2 designs failed by their own fault" in lines[1]
    clean = _study("alpha", "beta")
    clean.cells = [StudyCell(c.design, c.abuse, 60, {"ok": 60}) for c in clean.cells]
    lines = study_conclusion(clean)
    assert "2 of 2 designs had no design fault" in lines[0]
    assert lines[1] == "No design failed by its own fault on any operator."


def test_the_upper_bound_of_a_safe_design_is_wilson_of_zero_in_n() -> None:
    # 0 of 60: the 95 % Wilson upper bound is z²/(n+z²) = 3.8416/63.8416 = 6.02 %
    assert wilson(0, 60)[1] == pytest.approx(3.8416 / 63.8416)
    one = _study("alpha", "beta")
    one.cells = [c for c in one.cells if c.abuse == "clean.render"]  # 60 examples each
    assert "95 % Wilson upper bound on the fault rate 6.0%" in study_conclusion(one)[0]
    assert "0 faults in 60 examples each" in study_conclusion(one)[0]


def test_the_conclusion_opens_the_markdown_and_the_html() -> None:
    study = _study("alpha", "beta", protocol_design="beta")
    lines = study_conclusion(study)
    md = render_study_markdown(study)
    assert md.index("**Conclusion**") < md.index("| abuse |")
    assert f"- {lines[0]}" in md
    page = render_html(study)
    box = page.index('<section class="conclusion">')
    assert box < page.index('<table class="matrix">')
    assert html.escape(lines[1].split("`")[0], quote=True) in page[box:]


def _fills(page: str, title: str) -> list[str]:
    """The fill of every SVG segment whose tooltip starts with ``title``."""
    return re.findall(r'fill="(#[0-9a-f]{6})"[^>]*><title>' + re.escape(html.escape(title)),
                      page)


def test_protocol_faults_are_drawn_in_the_protocol_colour_never_the_design_one() -> None:
    page = render_html(_study("alpha", "beta", protocol_design="beta"))
    # the verdict bars: beta's wrong calls are the protocol's, alpha's its own
    assert _fills(page, "beta · protocol fault (any verdict)") == [PROTOCOL_COLOR]
    assert _fills(page, "beta · wrong-call (design)") == []
    assert _fills(page, "alpha · wrong-call (design)") == [VERDICT_COLORS["wrong-call"]]
    assert PROTOCOL_COLOR not in VERDICT_COLORS.values()
    # the pooled rate per design: design faults red, the protocol's amber
    assert _fills(page, "beta · protocol fault") == [PROTOCOL_COLOR, PROTOCOL_COLOR]
    assert _fills(page, "alpha · design fault") == [DESIGN_COLOR]
    # the matrix: beta's protocol-only cell on the amber ramp, alpha's on the red one
    cell = re.search(r'style="background:(#[0-9a-f]{6});[^"]*" title="beta × '
                     r"malformed.wrong-type", page)
    assert cell is not None and cell.group(1) == ramp_color(AMBERS, 5 / 60)
    cell = re.search(r'style="background:(#[0-9a-f]{6});[^"]*" title="alpha × '
                     r"injected.second-action", page)
    assert cell is not None and cell.group(1) == ramp_color(REDS, 12 / 60)


def test_a_mixed_cell_is_coloured_by_its_design_faults_only() -> None:
    study = _study("alpha", "beta", protocol_design="alpha")  # 6 crashes + 5 protocol calls
    page = render_html(study)
    cell = re.search(r'style="background:(#[0-9a-f]{6});[^"]*" title="alpha × '
                     r"malformed.wrong-type", page)
    assert cell is not None and cell.group(1) == ramp_color(REDS, 6 / 60)


def test_operator_chart_counts_distinct_failures_of_a_real_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every failure the search examined, in order: the first `generated` of an operator are
    # its generation phase, the rest shrinking
    seen: dict[str, list[tuple[str, str, str, str] | None]] = {}
    examine = search_module.examine

    def spy(sc, *args, **kwargs):  # type: ignore[no-untyped-def]
        ex = examine(sc, *args, **kwargs)
        f = ex.failure
        seen.setdefault(sc.abuse, []).append(
            None if f is None else (ex.check, f.kind, f.cause, f.signature))
        return ex

    monkeypatch.setattr(search_module, "examine", spy)
    # a design fault (one failure, every example) and a protocol fault (two distinct ones:
    # markup kept by the same return of the parser, as quotes and as other text)
    ops = ["malformed.unbalanced-quote", "markup.argument"]
    summary = run_fuzz(FuzzConfig(targets=["classic-bracket"], abuses=ops, seed=3,
                                  max_examples=20, replay_corpus=False, format_fit=False))
    assert [o.distinct for o in summary.operators] == [
        {"design": {"no-wrong-call": 1}}, {"protocol": {"no-wrong-call": 2}}]
    page = render_html(summary)
    for o in summary.operators:
        drawn = seen[o.abuse][:o.generated]
        assert o.generated == 20 and len(seen[o.abuse]) >= o.generated
        keys = {k for k in drawn if k is not None}
        for cause in ("design", "protocol"):
            distinct = len({k for k in keys if k[2] == cause})
            assert o.distinct_count(cause) == distinct
            bar = _fills(page, f"{o.abuse} · {cause} fault: {distinct}")
            assert bar == ([DESIGN_COLOR if cause == "design" else PROTOCOL_COLOR]
                           if distinct else [])
        failing_examples = sum(o.failures.values())  # what the chart counted before
        assert 0 < o.distinct_count() <= failing_examples
        assert f"{o.distinct_count()} distinct / 20 examples" in page
    # the old count was inflated by repeats of one failure
    assert sum(o.distinct_count() for o in summary.operators) < sum(
        sum(o.failures.values()) for o in summary.operators)
