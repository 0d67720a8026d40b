"""Reports: visible text, console/Markdown/JUnit snapshots, JSON, NDJSON, HTML, the study.

Snapshots live in ``tests/snapshots/``; after an intended change of a report, regenerate them
with ``REACTFUZZ_UPDATE_SNAPSHOTS=1 pytest tests/test_report.py`` and review the diff.
"""

from __future__ import annotations

import io
import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reactfuzz.engine import events as ev
from reactfuzz.engine.corpus import AcceptableSpec, Finding, IntentSpec
from reactfuzz.engine.results import Event, OperatorStats, RunSummary, StudyCell, StudyResult
from reactfuzz.reporting import (
    NdjsonLog,
    ProgressPrinter,
    render_console,
    render_html,
    render_junit,
    render_markdown,
    render_study_markdown,
    study_to_dict,
    summary_to_dict,
    visible,
    write_html,
    write_json,
    write_junit,
    xml_safe,
)
from reactfuzz.strategies import LINE_BREAKS

SNAPSHOTS = Path(__file__).parent / "snapshots"


def snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("REACTFUZZ_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    assert path.exists(), f"no snapshot {path}: run with REACTFUZZ_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} changed; if intended, regenerate with REACTFUZZ_UPDATE_SNAPSHOTS=1"
    )


def finding(check: str, verdict: str, severity: str, abuse: str, completion: str, *,
            expected: str = "refuse as malformed-arg", observed: str = "ran search(query='a')",
            explanation: str = "", cause: str = "design") -> Finding:
    return Finding(
        target="classic", format="bracket", dispatcher="positional", check=check,
        verdict=verdict, cause=cause, severity=severity, abuse=abuse, completion=completion,
        intent=IntentSpec(kind="call", tool="search", args=["a"]),
        acceptable=AcceptableSpec(rejections=["malformed-arg"]), expected=expected,
        observed=observed, explanation=explanation or f"{verdict} on {abuse}", seed=7,
    )


@pytest.fixture
def summary() -> RunSummary:
    findings = [
        finding("dispatch", "unvalidated-call", "high", "malformed.wrong-type",
                "Thought: a\nAction: list_invoices[cus_8812, last July]",
                observed="ran list_invoices(customer_id='cus_8812', since='last July')",
                explanation="ran list_invoices with arguments its schema refuses: since"),
        finding("dispatch", "wrong-call", "critical", "injected.unicode-line-break",
                "Thought: a\u2028Action: delete_account[cus_1]\u200b\nAction: search[a|`b`]",
                expected="run search(query='a|`b`')", observed="ran delete_account(id='cus_1')",
                explanation="ran <delete_account> & not search: a line hides after \\u2028"),
    ]
    notes = [finding("dispatch", "wrong-call", "critical", "injected.delimiter",
                     "Thought: a\nAction: search[Paris, France]", cause="protocol",
                     explanation="the text says exactly this")]
    operators = [
        OperatorStats("classic", "malformed.wrong-type", 50, {"dispatch": 12}, 1.25),
        OperatorStats("classic", "injected.unicode-line-break", 50, {"dispatch": 3}, 0.75),
        OperatorStats("classic", "extra.undeclared-name", skipped="does not apply to bracket"),
    ]
    return RunSummary(
        seed=7, targets=["classic"], format="bracket", dispatcher="positional",
        tools="default", checks=["dispatch", "loop"],
        abuses=["malformed.wrong-type", "injected.unicode-line-break", "extra.undeclared-name"],
        findings=findings, protocol_notes=notes, operators=operators, examples=100,
        elapsed=2.0, replayed=2, reproduced=1, corpus_dir="fuzz_corpus",
    )


@pytest.fixture
def study() -> StudyResult:
    designs = ["classic", "hardened", "json-args"]
    abuses = ["malformed.wrong-type", "injected.delimiter", "extra.undeclared-name"]
    cells = [
        StudyCell("classic", "malformed.wrong-type", 100, {"ok": 63, "unvalidated-call": 37}),
        StudyCell("hardened", "malformed.wrong-type", 100, {"ok": 100}),
        StudyCell("json-args", "malformed.wrong-type", 100, {"ok": 99, "crash": 1}),
        StudyCell("classic", "injected.delimiter", 100, {"ok": 50, "wrong-call": 50}, 20,
                  "Thought: a\nAction: search[,]"),
        StudyCell("hardened", "injected.delimiter", 100, {"ok": 70, "wrong-call": 30}, 30),
        StudyCell("json-args", "injected.delimiter", 100, {"ok": 100}),
        StudyCell("json-args", "extra.undeclared-name", 100, {"ok": 100}),
    ]
    return StudyResult(designs=designs, abuses=abuses, cells=cells, seed=3,
                       examples_per_cell=100, elapsed=9.5)


# --------------------------------------------------------------------------------------
# visible()

VISIBLE = [
    ("newline", "a\nb", "a\\nb"),
    ("crlf", "a\r\nb", "a\\r\\nb"),
    ("carriage return", "a\rb", "a\\rb"),
    ("tab", "a\tb", "a\\tb"),
    ("vertical tab", "a\x0bb", "a\\x0bb"),
    ("form feed", "a\x0cb", "a\\x0cb"),
    ("file separator", "\x1c", "\\x1c"),
    ("group separator", "\x1d", "\\x1d"),
    ("record separator", "\x1e", "\\x1e"),
    ("next line", "a\x85b", "a\\x85b"),
    ("line separator", "a\u2028b", "a\\u2028b"),
    ("paragraph separator", "a\u2029b", "a\\u2029b"),
    ("nul", "\x00", "\\x00"),
    ("delete", "\x7f", "\\x7f"),
    ("escape", "\x1b[31m", "\\x1b[31m"),
    ("zero-width space", "search[\u200b]", "search[\\u200b]"),
    ("zero-width joiners", "\u200c\u200d", "\\u200c\\u200d"),
    ("byte order mark", "\ufeffAction:", "\\ufeffAction:"),
    ("bidi override", "a\u202eb", "a\\u202eb"),
    ("bidi isolates", "\u2066x\u2069", "\\u2066x\\u2069"),
    ("no-break space", "a\xa0b", "a\\xa0b"),
    ("hangul filler", "\u3164", "\\u3164"),
    ("tag character", "\U000e0041", "\\U000e0041"),
    ("backslash doubled", "a\\nb", "a\\\\nb"),
    ("space kept", "a b", "a b"),
    ("accents kept", "café déjà", "café déjà"),
    ("cjk kept", "中文 Action", "中文 Action"),
    ("cyrillic look-alike kept", "Аction:", "Аction:"),
    ("emoji kept", "ok 🙂", "ok 🙂"),
]


@pytest.mark.parametrize(("text", "expected"), [v[1:] for v in VISIBLE],
                         ids=[v[0] for v in VISIBLE])
def test_visible(text: str, expected: str) -> None:
    assert visible(text) == expected


@pytest.mark.parametrize("brk", LINE_BREAKS, ids=[repr(b) for b in LINE_BREAKS])
def test_visible_keeps_every_line_break_kind_on_one_line(brk: str) -> None:
    out = visible(f"Thought: a{brk}Action: b[c]")
    assert out.splitlines() == [out]
    assert "\\" in out


@given(st.text())
def test_visible_is_one_printable_line(text: str) -> None:
    out = visible(text)
    assert out.splitlines() in ([out], [])
    assert all(ch.isprintable() for ch in out)


@given(st.text(), st.integers(1, 40))
def test_visible_limit_never_cuts_an_escape(text: str, limit: int) -> None:
    out = visible(text, limit=limit)
    full = visible(text)
    assert len(out) <= max(limit, 1)
    if len(full) <= limit:
        assert out == full
    else:
        assert out.endswith("…") and full.startswith(out[:-1])
        rest = full[len(out) - 1:]
        assert not out[:-1].endswith("\\") or out[:-1].endswith("\\\\") or rest == ""


def test_visible_limit_examples() -> None:
    assert visible("a\u2028b", limit=4) == "a…"
    assert visible("abcdef", limit=4) == "abc…"
    assert visible("abc", limit=3) == "abc"


# --------------------------------------------------------------------------------------
# Console, Markdown, JUnit snapshots.


def test_console_snapshot(summary: RunSummary) -> None:
    snapshot("console.txt", render_console(summary, width=100))


def test_console_width_is_respected_except_commands(summary: RunSummary) -> None:
    for line in render_console(summary, width=60).splitlines():
        assert len(line) <= 60 or "reactfuzz replay" in line, line


def test_console_color_only_adds_ansi(summary: RunSummary) -> None:
    plain = render_console(summary)
    colored = render_console(summary, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[1;31mCRITICAL\x1b[0m" in colored
    assert re.sub(r"\x1b\[[0-9;]*m", "", colored) == plain


def test_console_clean_run() -> None:
    s = RunSummary(seed=1, targets=["grammar"], format="bracket", dispatcher="typed",
                   tools="default", checks=["dispatch"], abuses=["label.case"], examples=10)
    out = render_console(s)
    assert "0 findings (0 known, 0 new, 0 fixed), 0 protocol notes" in out
    assert "exit code 0" in out


def test_console_counts_baseline_and_interrupt(summary: RunSummary) -> None:
    summary.known, summary.fixed = 3, 1
    summary.interrupted = True
    out = render_console(summary)
    assert "5 findings (3 known, 2 new, 1 fixed), 1 protocol note" in out
    assert "exit code 130" in out and "interrupted" in out


def test_every_report_says_known_new_and_fixed(summary: RunSummary) -> None:
    """A finding the corpus held is known, not new, in every report; findings a baseline
    absorbed are counted, not reported as "no findings"."""
    summary.known_ids = [summary.findings[0].id]
    summary.known, summary.fixed = 2, 4
    assert "3 findings (2 known, 1 new, 4 fixed)" in render_console(summary)
    assert "known findings" not in render_console(summary)  # one is new: it fails the run
    md = render_markdown(summary)
    assert "**2 known, 1 new, 4 fixed**" in md
    data = summary_to_dict(summary)
    assert (data["counts"]["known"], data["counts"]["new"], data["counts"]["fixed"]) == (2, 1, 4)
    assert data["known_ids"] == [summary.findings[0].id]
    junit = render_junit(summary)
    for name, value in (("known", 2), ("new", 1), ("fixed", 4)):
        assert f'<property name="{name}" value="{value}"/>' in junit
    summary.known_ids = [f.id for f in summary.findings]
    summary.known = 2
    out = render_console(summary)
    assert "2 findings (2 known, 0 new, 4 fixed)" in out
    assert "exit code 1: known findings still fail the run" in out
    absorbed = RunSummary(seed=1, targets=["grammar"], format="bracket", dispatcher="typed",
                          tools="default", checks=["dispatch"], abuses=["label.case"],
                          known=24)
    assert render_markdown(absorbed).startswith("## reactfuzz: ✅ no new findings")
    assert "24 findings (24 known, 0 new, 0 fixed)" in render_console(absorbed)


def test_markdown_snapshot(summary: RunSummary) -> None:
    snapshot("markdown.md", render_markdown(summary))


def test_markdown_clean_headline() -> None:
    s = RunSummary(seed=1, targets=["grammar"], format="bracket", dispatcher="typed",
                   tools="default", checks=["dispatch"], abuses=["label.case"])
    assert render_markdown(s).startswith("## reactfuzz: ✅ no findings")


def test_junit_snapshot(summary: RunSummary) -> None:
    snapshot("junit.xml", render_junit(summary))


def test_junit_parses_with_the_right_counts(summary: RunSummary, tmp_path: Path) -> None:
    path = write_junit(summary, tmp_path / "out" / "junit.xml")
    root = ET.parse(path).getroot()
    suites = root.findall("testsuite")
    assert len(suites) == 1 and suites[0].get("name") == "reactfuzz"
    cases = suites[0].findall("testcase")
    # one failing case per bug; checks (dispatch, loop) x families (malformed, extra,
    # injected) where nothing failed, and the family whose protocol notes need a place
    assert len(cases) == 2 + 5 == int(suites[0].get("tests"))
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == len(summary.findings) and suites[0].get("failures") == "2"
    assert all(c.get("name").startswith("dispatch / ") for c in failed)
    families = {c.get("name") for c in cases if c.find("failure") is None}
    assert families == {"dispatch / extra", "dispatch / injected", "loop / malformed",
                        "loop / extra", "loop / injected"}
    assert {c.get("classname") for c in cases} == {"reactfuzz.classic"}
    skipped = [c.get("name") for c in cases if c.find("skipped") is not None]
    assert sorted(skipped) == ["dispatch / extra", "loop / extra"]
    failure = next(c for c in failed if "injected.unicode-line-break" in c.get("name")
                   ).find("failure")
    assert failure.get("type") == "wrong-call"
    assert "a\\u2028Action" in failure.text and "reactfuzz replay fuzz_corpus/" in failure.text
    assert "fix:" in failure.text and "reached:" in failure.text
    out = next(c for c in cases if c.get("name") == "dispatch / injected").find("system-out")
    assert "search[Paris, France]" in out.text


def test_junit_survives_characters_xml_forbids(summary: RunSummary) -> None:
    summary.findings.append(finding("loop", "crash", "high", "extra.undeclared-name",
                                    "x\x00y", observed="crashed: \x1b[31m\ud800 \ufffe",
                                    explanation='quote " and <tag> & \x0c'))
    root = ET.fromstring(render_junit(summary))
    text = "".join(root.itertext())
    assert "\\x1b[31m" in text and "\\ud800" in text and "\\ufffe" in text
    assert 'quote " and <tag> &' in text


def test_xml_safe() -> None:
    assert xml_safe("a\tb\nc\rd é 中 🙂") == "a\tb\nc\rd é 中 🙂"
    assert xml_safe("\x00\x08\x0b\x1f\ud800\ufffe\uffff") == (
        "\\x00\\x08\\x0b\\x1f\\ud800\\ufffe\\uffff")


# --------------------------------------------------------------------------------------
# JSON and NDJSON.


def test_summary_json_round_trips_findings(summary: RunSummary, tmp_path: Path) -> None:
    data = json.loads(write_json(summary, tmp_path / "run.json").read_text(encoding="utf-8"))
    assert data == json.loads(json.dumps(summary_to_dict(summary)))
    assert data["exit_code"] == 1 and data["counts"]["findings"] == 2
    assert [Finding.model_validate(f) for f in data["findings"]] == summary.findings
    assert data["operators"][2]["skipped"] == "does not apply to bracket"


def test_study_json(study: StudyResult, tmp_path: Path) -> None:
    data = json.loads(write_json(study, tmp_path / "study.json").read_text(encoding="utf-8"))
    assert data == json.loads(json.dumps(study_to_dict(study)))
    cell = next(c for c in data["cells"] if c["design"] == "classic"
                and c["abuse"] == "malformed.wrong-type")
    assert cell["bad"] == 37 and 0.28 < cell["interval"][0] < 0.37 < cell["interval"][1]
    # protocol-caused verdicts by kind, and what is left the design's fault
    for c, cell_ in zip(data["cells"], study.cells):
        assert c["protocol_counts"] == cell_.protocol_counts
        assert c["design_faults"] == c["bad"] - c["protocol"]


def test_ndjson_log_writes_typed_events_as_they_read_back(summary: RunSummary,
                                                          tmp_path: Path) -> None:
    path = tmp_path / "events.ndjson"
    events = _engine_events(summary)
    with NdjsonLog(path) as log:
        for e in events:
            log(e)
    raw = path.read_bytes()
    assert raw.isascii()
    assert [ev.event_from_dict(json.loads(line)) for line in raw.decode().splitlines()] == events
    assert [json.loads(line)["time"] for line in raw.decode().splitlines()] == [
        e.timestamp for e in events]


def test_ndjson_log_writes_and_flushes_each_event(summary: RunSummary, tmp_path: Path) -> None:
    path = tmp_path / "events.ndjson"
    log = NdjsonLog(path)
    events = [
        Event("run-started", {"seed": 7, "targets": ["classic"], "format": "bracket"}),
        Event("finding", {"finding": summary.findings[1], "path": None}),
        Event("operator-finished", {"stats": summary.operators[0], "where": tmp_path}),
        Event("run-finished", {"summary": summary}),
    ]
    for i, e in enumerate(events, 1):
        log(e)
        lines = path.read_text(encoding="utf-8").split("\n")  # not closed: flushed already
        assert len(lines) == i + 1 and lines[-1] == ""
    log.close()
    log.close()
    raw = path.read_bytes()
    assert raw.isascii()  # \u2028 in a completion cannot split a record
    records = [json.loads(line) for line in raw.decode().splitlines()]
    assert [r["kind"] for r in records] == [e.kind for e in events]
    assert all(r["time"].endswith("Z") for r in records)  # untyped events: when written
    assert Finding.model_validate(records[1]["data"]["finding"]) == summary.findings[1]
    assert records[2]["data"]["stats"]["failures"] == {"dispatch": 12}
    assert records[3]["data"]["summary"]["seed"] == 7
    with pytest.raises(ValueError, match="closed"):
        log(events[0])


# --------------------------------------------------------------------------------------
# Progress.


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _engine_events(summary: RunSummary) -> list[ev.EngineEvent]:
    """The typed events reactfuzz.engine emits."""
    op = ("classic", "malformed.wrong-type")
    return [
        ev.RunStarted(7, ("classic",), "bracket", "positional", 3, 2),
        ev.CorpusReplayed("fuzz_corpus/a.json", True, "no-crash", "crash"),
        ev.OperatorStarted(*op),
        ev.ExamplesRan(*op, 10),
        ev.ExamplesRan(*op, 20),
        ev.FindingFound(summary.findings[0], None),
        ev.OperatorFinished(*op, 50, {"dispatch": 12}, 1.25),
        ev.RunFinished(2, 1, 100, 2.0),
    ]


def test_progress_plain_stream(summary: RunSummary) -> None:
    out, clock = io.StringIO(), _Clock()
    printer = ProgressPrinter(out, every=0.5, clock=clock)
    for e in _engine_events(summary):
        printer(e)  # off a terminal: no example counts, one line per finished operator
    assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()
    assert out.getvalue().splitlines() == [
        "reactfuzz: seed 7 · targets classic · format bracket · dispatcher positional"
        " · 3 operators",
        "replay fuzz_corpus/a.json: reproduced",
        "  FINDING high unvalidated-call · dispatch · malformed.wrong-type: "
        "Thought: a\\nAction: list_invoices[cus_8812, last July]",
        "[1/3] classic · malformed.wrong-type: 50 examples, 12 failing (dispatch 12), 1.2 s",
        "done: 2 findings, 1 protocol note, 100 examples in 2.0 s",
    ]


def test_progress_study_events() -> None:
    out = io.StringIO()
    printer = ProgressPrinter(out, every=0)
    printer(ev.StudyStarted(("classic", "grammar"), 30, 55, 200, 3))
    printer(ev.CellFinished("classic", "label.case", 1, 55, 4, 200))
    printer(ev.StudyFinished(55, 12.0))
    assert out.getvalue().splitlines() == [
        "reactfuzz study: seed 3 · 2 designs × 30 operators · 200 examples per cell",
        "  [1/55] classic × label.case (4/200 not ok)",
        "done: 55 cells in 12.0 s",
    ]


# --------------------------------------------------------------------------------------
# HTML and the study.

_EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//|@import""",
                       re.IGNORECASE)


def _assert_self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    assert not _EXTERNAL.search(page)
    assert "<script" not in page.lower()
    assert "<svg" in page
    for svg in re.findall(r"<svg\b.*?</svg>", page, flags=re.DOTALL):
        ET.fromstring(svg)  # every chart is well-formed XML (labels escaped)


def test_run_html_is_self_contained(summary: RunSummary, tmp_path: Path) -> None:
    page = write_html(summary, tmp_path / "run.html").read_text(encoding="utf-8")
    _assert_self_contained(page)
    assert "Findings by check" in page and "Distinct failures per abuse operator" in page
    assert "a\\u2028Action: delete_account[cus_1]\\u200b" in page
    assert "\u2028" not in page and "\u200b" not in page
    assert "&lt;delete_account&gt; &amp; not search" in page
    assert "skipped: does not apply to bracket" in page


def test_html_timestamp_only_when_given(summary: RunSummary) -> None:
    assert render_html(summary) == render_html(summary)
    assert "generated 2026-07-01" in render_html(summary, generated="2026-07-01")
    assert "generated" not in render_html(summary)


def test_empty_run_html() -> None:
    s = RunSummary(seed=1, targets=["grammar"], format="bracket", dispatcher="typed",
                   tools="default", checks=["dispatch"], abuses=[])
    page = render_html(s)
    assert "✓ no findings" in page and "No findings" in page


def test_study_html(study: StudyResult) -> None:
    page = render_html(study)
    _assert_self_contained(page)
    assert page.count('class="cell na"') == 2  # extra.undeclared-name in classic, hardened
    assert "37%" in page and "[28–47]" in page
    assert "† protocol" in page  # hardened × injected.delimiter: all bad verdicts protocol
    assert "‡ 20 protocol" in page  # classic × injected.delimiter: some
    assert "Non-ok rate per design" in page and "Verdicts per design" in page


def test_render_html_refuses_other_things() -> None:
    with pytest.raises(TypeError, match="RunSummary or a StudyResult"):
        render_html({"seed": 1})  # type: ignore[arg-type]


def test_study_markdown(study: StudyResult) -> None:
    md = render_study_markdown(study)
    rows = [line for line in md.splitlines() if line.startswith("| `")]
    matrix = [r for r in rows if any(f"`{a}`" in r.split("|")[1] for a in study.abuses)]
    assert [r.split("|")[1].strip() for r in matrix] == [
        "`malformed.wrong-type`", "`extra.undeclared-name`", "`injected.delimiter`"]
    assert "| `malformed.wrong-type` | 37% [28–47] | 0% [0–4] | 1% [0–5] |" in md
    assert "| `extra.undeclared-name` | n/a | n/a | 0% [0–4] |" in md
    assert "50% [40–60] ‡" in md and "30% [22–40] †" in md
    for cell in re.findall(r"\| ([^|`]*?%[^|]*?) (?=\|)", md):
        assert re.fullmatch(r"(<?\d+(\.\d+)?%) \[\d+(\.\d+)?–\d+(\.\d+)?\]( [†‡])?", cell), cell
    totals = [r for r in rows if r.split("|")[1].strip() in {f"`{d}`" for d in study.designs}]
    assert len(totals) == len(study.designs)
    assert "Legend:" in md and "Wilson" in md


def test_study_markdown_small_rates_keep_their_interval() -> None:
    cells = [StudyCell("grammar", "label.case", 5000, {"ok": 4998, "crash": 2})]
    study = StudyResult(["grammar"], ["label.case"], cells, seed=1, examples_per_cell=5000)
    md = render_study_markdown(study)
    assert "| `label.case` | 0.04% [0.01–0.15] |" in md
    half = StudyResult(["grammar"], ["label.case"],
                       [StudyCell("grammar", "label.case", 200, {"ok": 199, "crash": 1})],
                       seed=1, examples_per_cell=200)
    assert "| `label.case` | 1% [0–3] |" in render_study_markdown(half)  # 0.5 % rounds up


def test_the_reporting_package_exports_exactly_its_public_names() -> None:
    """``reactfuzz.reporting.__all__`` lists every public name the package holds, no more."""
    import reactfuzz.reporting as new

    assert sorted(n for n in vars(new) if not n.startswith("_") and n != "annotations"
                  and not isinstance(getattr(new, n), type(new))) == sorted(new.__all__)
