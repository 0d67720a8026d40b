"""One bug, one finding: where the parser decided, echoes masked, reports built around bugs.

The parsers of ``tests/echoing.py`` quote the completion in what they raise, beside quiet
twins that do not; each has its bugs planted and listed. A parser that echoes must give
no more findings than its twin (within two), and every planted bug must still be found.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reactfuzz.engine.advice import advice_for, code_advice
from reactfuzz.engine.config import FuzzConfig
from reactfuzz.engine.corpus import Finding, OriginSpec, SiteSpec, load_finding
from reactfuzz.engine.results import RunSummary
from reactfuzz.engine.rootcause import mask, mask_echo
from reactfuzz.engine.run import run_fuzz
from reactfuzz.reporting import render_markdown, summary_to_dict
from reactfuzz.reporting.console import render_console
from reactfuzz.reporting.html import render_html
from reactfuzz.reporting.junit import render_junit
from reactfuzz.reporting.markdown import MARKDOWN_LIMIT
from reactfuzz.reporting.sarif import summary_to_sarif
from reactfuzz.targets import load_target
from reactfuzz.targets.origin import code_kind, traced_call

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

Bug = Callable[[Finding], bool]


def _at(code: str, check: str | None = None) -> Bug:
    """A planted bug: a finding whose deciding line holds ``code`` (of ``check``)."""
    def hit(f: Finding) -> bool:
        site = f.origin.deciding() if f.origin is not None else None
        return (site is not None and code in site.code
                and (check is None or f.check == check))
    return hit


def _shape(check: str, signature: str) -> Bug:
    return lambda f: f.check == check and signature in f.signature


PLANTED: dict[str, tuple[str, list[str], dict[str, Bug]]] = {
    "action_input": ("action-input", [
        "injected.answer-and-action", "injected.action-in-thought", "label.case",
        "variant.case", "injected.second-action"], {
        "final-answer-anywhere": _at('split("Final Answer:")', "no-hijacked-answer"),
        "first-action-anywhere": _at('return ("action"', "no-silent-drop"),
        "raw-text-answer": _at('return ("final", text.strip())', "no-hijacked-answer"),
        "index-error": _at('text.split("Action Input:")[1]', "no-crash"),
    }),
    "both_labels": ("action-input", [
        "injected.delimiter", "injected.label-in-argument", "injected.second-action",
        "content.mixed-text"], {
        "both-labels-refused": _shape("no-silent-drop", "ValueError at echoing.py"),
        "first-action-anywhere": _shape("no-wrong-call", "ran a call the text should not"),
        "quotes-stripped": _shape("no-wrong-call", "lost text"),
        "last-answer-label": _at('split("Final Answer:")[-1]', "no-hijacked-answer"),
    }),
    "json_blob": ("json-blob", [
        "injected.action-in-thought", "prose.lone-brace", "json.call-shape"], {
        "first-brace-slice": _shape("no-silent-drop", "ValueError at echoing.py"),
        "arguments-key-error": _at('blob["arguments"]', "no-crash"),
    }),
    "bracket": ("bracket", [
        "injected.answer-and-action", "quoting.wrapped", "malformed.unbalanced-bracket",
        "injected.second-action", "malformed.unbalanced-quote"], {
        "answer-anywhere": _at('split("Answer:"', "no-hijacked-answer"),
        "quotes-kept": _shape("no-wrong-call", "kept quotes"),
        "greedy-bracket": _shape("no-wrong-call", "kept more text"),
        "first-of-two": _shape("no-wrong-call", "ran a call the text should not carry"),
    }),
}


def _run(name: str, *, examples: int, abuses: list[str] | None,
         twin: bool = False) -> RunSummary:
    """A run on one of ``tests/echoing.py``'s parsers (its quiet ``twin``)."""
    target = f"echoing:{name}_quiet" if twin else f"echoing:{name}"
    return run_fuzz(FuzzConfig(targets=[target], format=PLANTED[name][0], seed=1,
                               max_examples=examples, abuses=abuses, cwd=str(TESTS)))


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=() if n in ("bracket", "both_labels") else pytest.mark.slow)
    for n in sorted(PLANTED)])  # two in the fast tier, every one in the slow
def test_an_echoing_parser_gives_its_quiet_twins_findings(name: str) -> None:
    """The completion quoted in every error message makes no new bug: at most two more
    findings than the twin that leaves it out, and every planted bug found by both."""
    _fmt, abuses, bugs = PLANTED[name]
    loud = _run(name, examples=60, abuses=abuses)
    quiet = _run(name, examples=60, abuses=abuses, twin=True)
    assert len(loud.findings) <= len(quiet.findings) + 2, [f.signature for f in loud.findings]
    for run in (loud, quiet):
        missed = [bug for bug, hit in bugs.items() if not any(map(hit, run.findings))]
        assert not missed, (missed, [(f.check, f.signature) for f in run.findings])
        # one bug, one finding: no two findings share a planted bug and a check
        for bug, hit in bugs.items():
            by_check: dict[str, int] = {}
            for f in filter(hit, run.findings):
                by_check[f.check] = by_check.get(f.check, 0) + 1
            assert all(n == 1 for n in by_check.values()), (bug, by_check)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PLANTED))
def test_at_the_default_budget_echoing_costs_nothing(name: str) -> None:
    """Every operator at the default budget: the echoing parser's findings are within two
    of its twin's, every planted bug is found, and no Markdown report passes the limit."""
    bugs = PLANTED[name][2]
    loud = _run(name, examples=60, abuses=None)
    quiet = _run(name, examples=60, abuses=None, twin=True)
    assert len(loud.findings) <= len(quiet.findings) + 2
    for run in (loud, quiet):
        assert all(any(map(hit, run.findings)) for hit in bugs.values())
        assert len(render_markdown(run)) <= MARKDOWN_LIMIT


# ------------------------------------------------------------------ masking echoes


def test_an_echo_of_the_completion_is_masked_in_every_form() -> None:
    text = "Thought: a\nAction: search\nAction Input: what is it?"
    said = [f"Could not parse LLM output: `{text}`", f"Could not parse LLM output: {text!r}",
            "Could not parse LLM output: " + " ".join(text.split())]
    assert {mask_echo(m, text) for m in said} == {"Could not parse LLM output: `…`",
                                                  "Could not parse LLM output: '…'",
                                                  "Could not parse LLM output: …"}
    # a message that quotes nothing of the text is left alone, and so are short runs
    assert mask_echo("no tool named 'x'", text) == "no tool named 'x'"
    assert mask_echo("format: {", 'Action Input: {"a"') == "format: {"
    # two echoes side by side are one
    assert mask_echo("path /inv/2041/inv/7", "read /inv/2041 and /inv/7") == "path…"


def test_a_tool_list_in_a_message_survives_an_echo_of_tool_names() -> None:
    text = "Thought: I must not run Action: get_charge Action Input: ch_0\nAction: search"
    tools = ["search", "get_charge", "list_invoices"]
    a = mask("no tool named 'get_charge Action' (tools: search, list_invoices, get_charge)",
             tools, completion=text)
    b = mask("no tool named 'search' (tools: search, list_invoices, get_charge)", tools,
             completion="Thought: a\nAction: search")
    assert a == b


# ------------------------------------------------------------------ origins


def test_a_raise_names_its_line_and_the_library_frame(tmp_path: Path) -> None:
    target = load_target("echoing:action_input", "action-input", cwd=str(TESTS))
    try:
        result = target.run("Thought: a\nAction: search\n")
    finally:
        target.close()
    assert result.origin is not None and result.origin.exc_type == "IndexError"
    assert result.origin.site is not None
    assert result.origin.site.file == "echoing.py"
    assert 'split("Action Input:")[1]' in result.origin.site.code
    # json.loads raising inside the standard library: the user's line is the site
    loud = load_target("echoing:json_blob", "json-blob", cwd=str(TESTS))
    try:
        refused = loud.run("Thought: {\nAction: {\"name\": \"search\"}")
    finally:
        loud.close()
    assert refused.origin is not None and refused.origin.site is not None
    assert "raise ValueError" in refused.origin.site.code


def test_a_returned_result_names_the_return_that_decided() -> None:
    import echoing  # the tests folder is on the path

    result, origin = traced_call(lambda: echoing.action_input("Thought: a\nhello"))
    assert result == ("final", "Thought: a\nhello")
    assert origin.site is not None and origin.site.code == 'return ("final", text.strip())'
    assert origin.key().startswith("returned at echoing.py:")
    other = traced_call(lambda: echoing.action_input("Final Answer: x"))[1]
    assert other.key() != origin.key() and other.path_digest() != origin.path_digest()


def test_the_fuzzing_machinery_is_never_the_targets_code() -> None:
    import hypothesis

    assert code_kind(hypothesis.__file__) == "machinery"
    assert code_kind(json.__file__) == "stdlib"
    assert code_kind(str(TESTS / "echoing.py")) == "user"
    assert code_kind("<string>") == "none"


def test_a_built_in_parser_is_traced_through_its_own_module() -> None:
    target = load_target("classic-bracket", "bracket")
    origin = target.trace("Thought: x\nAnswer: y")
    assert origin is not None and origin.site is not None
    assert origin.site.file.endswith("parsers/__init__.py") and origin.path


# ------------------------------------------------------------------ advice


def _with(code: str, failure: str = "hijacked-answer", exc: str = "",
          signature: str = "") -> Finding:
    site = SiteSpec(file="agent.py", line=7, function="parse", code=code)
    return Finding(target="agent:parse", format="bracket", dispatcher="typed", check="x",
                   failure=failure, severity="high", abuse="injected.answer-and-action",
                   completion="a", intent={"kind": "answer", "text": "a"}, acceptable={},
                   expected="", observed="", explanation="", signature=signature,
                   origin=OriginSpec(exc_type=exc, site=site))


def test_the_fix_comes_from_the_line_that_decided() -> None:
    said = advice_for(_with('if "Final Answer:" in text:'))
    assert said.startswith('agent.py:7 in parse: `if "Final Answer:" in text:` looks for a label')
    assert "start of a line" in said
    assert "splitlines" in advice_for(_with("for line in text.splitlines():"))
    crash = advice_for(_with("parts = text.split('Input:')[1]", "crash", "IndexError"))
    assert "indexes a part" in crash
    assert "comma" in advice_for(_with("args = raw.split(',')", "wrong-call",
                                       signature="more arguments @ returned at agent.py:7"))
    # a line that holds a mechanism the failure does not show is not blamed for it
    assert "comma" not in advice_for(_with("args = raw.split(',')", "wrong-call",
                                           signature="ran another tool @ x"))
    assert "strips quotes" in advice_for(_with("return (name, raw.strip('\"'))", "wrong-call",
                                               signature="lost text @ x"))
    # a line that shows no mechanism: the fix says it is a guess, not read from the code
    unsure = advice_for(_with("return step"))
    assert "a guess from how the text was abused" in unsure and "agent.py:7" in unsure
    assert code_advice(_with("return step")) is None


# ------------------------------------------------------------------ reports


@pytest.fixture(scope="module")
def echo_run() -> RunSummary:
    return _run("action_input", examples=20, abuses=PLANTED["action_input"][1])


def test_every_report_carries_each_findings_fix(echo_run: RunSummary) -> None:
    findings = echo_run.findings
    assert findings and all(f.fix for f in findings)
    reports = {
        "console": render_console(echo_run, width=10_000),
        "markdown": render_markdown(echo_run),
        "html": render_html(echo_run),
        "junit": render_junit(echo_run),
        "json": json.dumps(summary_to_dict(echo_run), ensure_ascii=False),
        "sarif": json.dumps(summary_to_sarif(echo_run), ensure_ascii=False),
    }
    import html as _html

    def flat(text: str) -> str:  # markup and escapes off: the words a reader sees
        text = re.sub(r"</?(?:code|b|i)>", "", text)
        return _html.unescape(text).replace("\\", "").replace("`", "")

    for name, text in reports.items():
        for f in findings:
            first = flat(f.fix)[:60]
            assert first in flat(text), (name, first)
    data = json.loads(reports["json"])
    assert all(f["fix"] and f["count"] >= 1 for f in data["findings"])


def test_junit_has_one_failing_case_per_bug(echo_run: RunSummary) -> None:
    import xml.etree.ElementTree as ET

    suite = ET.fromstring(render_junit(echo_run)).find("testsuite")
    assert suite is not None
    failing = [c for c in suite.iter("testcase") if c.find("failure") is not None]
    assert len(failing) == len(echo_run.findings)


def test_sarif_points_at_the_line_that_raised(echo_run: RunSummary) -> None:
    [crash] = [f for f in echo_run.findings if f.check == "no-crash"]
    log = summary_to_sarif(echo_run, root=ROOT)
    [result] = [r for r in log["runs"][0]["results"] if r["ruleId"] == "no-crash"]
    where = result["locations"][0]["physicalLocation"]
    assert where["artifactLocation"] == {"uri": "tests/echoing.py", "uriBaseId": "%SRCROOT%"}
    lines = (TESTS / "echoing.py").read_text().splitlines()
    assert 'text.split("Action Input:")[1]' in lines[where["region"]["startLine"] - 1]
    assert crash.origin is not None and crash.origin.exc_type == "IndexError"
    assert "IndexError raised here" in result["locations"][0]["message"]["text"]


def test_a_markdown_comment_never_passes_its_limit(echo_run: RunSummary) -> None:
    many = [f.model_copy(update={"completion": f.completion + "x" * (3000 + i),
                                 "completion_b64": "", "signature": f"{f.signature} {i}"})
            for i, f in enumerate(echo_run.findings * 40)]
    big = RunSummary(seed=1, targets=echo_run.targets, format=echo_run.format,
                     dispatcher=echo_run.dispatcher, tools="default", checks=[], abuses=[],
                     findings=many, protocol_notes=echo_run.protocol_notes * 200)
    text = render_markdown(big, full_report="report.html")
    assert len(text) <= MARKDOWN_LIMIT
    assert "more findings not shown here" in text and "report.html" in text
    small = render_markdown(echo_run)
    assert "not shown here" not in small


def test_a_bug_keeps_its_file_and_its_examples(tmp_path: Path) -> None:
    """The corpus holds one file per bug, named by its root cause: a second run that meets
    the bug again rewrites that file (its shortest completion first) and adds none."""
    config = FuzzConfig(targets=["echoing:action_input"], format="action-input", seed=1,
                        max_examples=20, abuses=PLANTED["action_input"][1],
                        corpus=str(tmp_path / "c"), cwd=str(TESTS))
    first = run_fuzz(config)
    files = sorted(p.name for p in (tmp_path / "c").glob("*.json"))
    assert len(files) == len(first.findings)
    again = run_fuzz(FuzzConfig(**{**config.__dict__, "seed": 2}))
    assert again.findings
    after = sorted(p.name for p in (tmp_path / "c").glob("*.json"))
    new = set(after) - set(files)
    assert len(new) <= len({f.id for f in again.findings} - {f.id for f in first.findings})
    for path in (tmp_path / "c").glob("*.json"):
        f = load_finding(path)
        assert f.count >= 1 and f.fix
        assert all(len(e) >= len(f.completion) for e in f.examples)


# ------------------------------------------------------------------ responsive


def _let_it_work(pid: int, cpu: float, longest: float = 120.0) -> None:
    """Wait until process ``pid`` has had ``cpu`` seconds of CPU (Linux's /proc; elsewhere,
    and at most ``longest`` seconds in all, the wall clock): on a loaded machine a run gets
    as far as on an idle one before it is interrupted."""
    stat = Path(f"/proc/{pid}/stat")
    start = time.monotonic()
    while time.monotonic() - start < longest:
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            if time.monotonic() - start >= cpu:
                return
        else:  # utime and stime, in clock ticks (fields 14 and 15 of the line)
            if (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") >= cpu:
                return
        time.sleep(0.2)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_run_meeting_thousands_of_failures_stops_on_a_signal(
        tmp_path: Path, signum: int) -> None:
    """An echoing parser that fails most examples, a huge budget: the signal ends the run
    with its reports written (how soon is the signal suite's figure, not an assertion; how
    far the run got depends on the machine's load, so only hundreds are asked for)."""
    report = tmp_path / "out.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "reactfuzz", "fuzz", "--target", "echoing:bracket",
         "--format", "bracket", "--seed", "1", "--max-examples", "100000", "--no-corpus",
         "--abuse", "injected.answer-and-action", "--abuse", "quoting.wrapped",
         "-q", "--json", str(report), "--markdown", str(tmp_path / "out.md")],
        cwd=TESTS, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _let_it_work(proc.pid, 6.0)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signum)
    proc.wait(timeout=30)  # ends at the next example: no wall-clock bound is asserted
    assert proc.returncode == (130 if signum == signal.SIGINT else 143)
    data = json.loads(report.read_text())
    assert data["interrupted"] and data["findings"]
    met = sum(sum(o["failures"].values()) for o in data["operators"])
    # hundreds of failing examples met (thousands on an idle machine), one finding per bug
    assert met >= 200, met
    assert len(data["findings"]) <= 3
    assert len((tmp_path / "out.md").read_text()) <= MARKDOWN_LIMIT


@pytest.mark.slow
def test_a_workers_run_keeps_every_file_an_earlier_run_wrote(tmp_path: Path) -> None:
    """Corpus files are named by the bug, so merging the workers' findings never removes
    a file of a bug that still reproduces (it used to, when files were named by example)."""
    corpus = tmp_path / "shared"
    base = dict(targets=["classic-bracket"], max_examples=20, corpus=str(corpus))
    run_fuzz(FuzzConfig(**base, seed=2))  # type: ignore[arg-type]
    before = {p.name for p in corpus.glob("*.json")}
    run_fuzz(FuzzConfig(**base, seed=1), workers=2)  # type: ignore[arg-type]
    after = {p.name for p in corpus.glob("*.json")}
    assert before and before <= after
