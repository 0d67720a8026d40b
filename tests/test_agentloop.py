"""`reactfuzz loop`: the fake model drives whole agent loops, and every loop check catches the
loop written with its mistake, while the careful twin gets no finding."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import loops
from reactfuzz.agentloop import (
    LOOP_CHECKS,
    LoopConfig,
    Script,
    ScriptedModel,
    ScriptTurn,
    play,
    run_loop,
)
from reactfuzz.engine.results import RunSummary
from reactfuzz.formats import get_format
from reactfuzz.model import Call
from reactfuzz.tools import default_registry

pytest_plugins = ["pytester"]

HERE = Path(__file__).resolve().parent


def _run(loop: loops.Loop, *, fmt: str = "bracket", kinds: list[str] | None = None,
         corpus: str | None = None, seed: int = 1, examples: int = 10) -> RunSummary:
    return run_loop(LoopConfig(target=f"loops:{loop.__name__}", loop=loop, format=fmt,
                               corpus=corpus, max_examples=examples, seed=seed,
                               kinds=kinds or ["loop."]))


def _bugs(summary: RunSummary) -> set[tuple[str, str]]:
    return {(f.check, f.failure) for f in summary.findings}


def test_a_loop_without_stop_sequence_or_step_limit_gets_a_finding_for_each() -> None:
    checks = {c for c, _ in _bugs(_run(loops.careless))}
    assert {"loop-stop-sequence", "loop-step-limit"} <= checks


@pytest.mark.parametrize("fmt", ["bracket", "action-input"])
def test_the_careful_twin_gets_no_finding(fmt: str) -> None:
    summary = _run(loops.careful_but(fmt=fmt), fmt=fmt, kinds=["loop.", "injected.",
                                                                "malformed."])
    assert summary.examples > 100
    assert not summary.findings, [f.explanation for f in summary.findings]


MISTAKE_CHECK = {
    "no-stop": "loop-stop-sequence", "no-limit": "loop-step-limit",
    "ignores-result": "loop-observation", "unlabelled-result": "loop-observation",
    "pastes-twice": "loop-prompt-growth", "returns-unparsed": "loop-parse-failure",
    "answers-early": "loop-answer", "raises-on-refusal": "loop-no-crash",
}


@pytest.mark.parametrize(("mistake", "check"), sorted(MISTAKE_CHECK.items()))
def test_each_check_catches_the_loop_that_makes_its_mistake(mistake: str, check: str) -> None:
    found = _bugs(_run(loops.careful_but(mistake)))
    assert {c for c, _ in found} == {check}, found


def test_a_call_cut_by_the_length_limit_that_runs_is_a_finding() -> None:
    found = _bugs(_run(loops.careful_but("runs-cut-calls", fmt="action-input"),
                       fmt="action-input"))
    assert found == {("loop-length-cut", "ran-a-cut-call")}


def test_the_tool_call_check_catches_comma_splitting() -> None:
    found = _bugs(_run(loops.careless, kinds=["loop.clean"], examples=30))
    assert ("loop-tool-call", "wrong-call-other-values") in found, found


def test_every_check_has_a_test_that_shows_it_catching_a_loop() -> None:
    shown = set(MISTAKE_CHECK.values()) | {"loop-length-cut", "loop-tool-call"}
    assert shown == set(LOOP_CHECKS)


def test_findings_are_shrunk_to_short_scripts() -> None:
    summary = _run(loops.careless, kinds=["loop.both-roles", "loop.never-answers"])
    for f in summary.findings:
        assert f.shrunk, f
        assert f.script is not None and len(f.script["turns"]) <= 2, f.script


def test_a_loop_written_against_the_openai_sdk_runs_unchanged() -> None:
    summary = _run(loops.openai_chat, kinds=["loop.", "injected."])
    assert summary.examples > 50 and not summary.findings


def test_the_fake_client_has_the_sdk_shapes() -> None:
    fmt = get_format("bracket")
    turns = (ScriptTurn("Thought: a\nAction: search[x]\nObservation: made up", Call.named(
        "search", query="x")),)
    model = ScriptedModel(Script("loop.clean", "task", turns))
    chat = model.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}],
                                         stop=list(fmt.stop))
    assert chat.choices[0].message.content == "Thought: a\nAction: search[x]\n"
    assert chat.choices[0].finish_reason == "stop"
    text = model.completions.create(model="m", prompt="q", stop=None)
    assert text.choices[0].text.endswith("made up") and text.usage.total_tokens > 0
    chunks = list(model.chat.completions.create(model="m", messages=[], stream=True))
    assert "".join(c.choices[0].delta.content for c in chunks).endswith("made up")
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert [c.prompt for c in model.calls] == ["q", "q", ""]


def test_the_step_bound_cannot_be_swallowed_by_the_loop() -> None:
    def swallows(llm, tools, task):  # type: ignore[no-untyped-def]
        while True:
            try:
                llm("go")
            except Exception:
                pass

    script = Script("loop.never-answers", "t", (ScriptTurn("Thought: a\nAction: get_time[]",
                                                           Call.named("get_time")),),
                    endless=True)
    run = play(swallows, script, default_registry(), max_calls=5)
    assert run.ended == "step-bound" and len(run.calls) == 5


def test_the_same_seed_finds_the_same_bugs() -> None:
    a, b = _run(loops.careless, seed=7), _run(loops.careless, seed=7)
    assert [(f.id, f.completion) for f in a.findings] == [(f.id, f.completion)
                                                         for f in b.findings]


def test_corpus_findings_replay_and_a_fixed_loop_says_so(tmp_path: Path) -> None:
    corpus = str(tmp_path / "loop_corpus")
    first = _run(loops.careful_but("no-limit"), corpus=corpus)
    files = sorted(Path(corpus).glob("*.json"))
    assert len(files) == len(first.findings) == 1
    data = json.loads(files[0].read_text())
    assert data["script"]["endless"] is True and data["dispatcher"] == "loop"
    again_cmd = first.findings[0].replay_command(files[0])
    assert again_cmd == f"reactfuzz loop --target {first.findings[0].target} --corpus {corpus}"
    assert "reactfuzz loop" in first.findings[0].reproduction()
    served = first.findings[0].model_copy(update={"target": "node agent.js"})
    assert served.replay_command(files[0]).startswith("reactfuzz serve --command 'node agent.js'")
    again = _run(loops.careful_but("no-limit"), corpus=corpus, seed=2)
    assert again.replayed == 1 and again.reproduced == 1 and again.known == 1
    fixed = run_loop(LoopConfig(target=first.findings[0].target, loop=loops.careful,
                                corpus=corpus, max_examples=5, seed=3, kinds=["loop."]))
    assert fixed.replayed == 1 and fixed.reproduced == 0 and fixed.fixed == 1
    assert not fixed.findings


def _cli(*args: str, cwd: Path = HERE) -> subprocess.CompletedProcess[str]:
    """The command in this process (``main``), run from ``cwd``: what a user runs, without
    a second of interpreter start-up per test."""
    import contextlib
    import io
    import os

    from reactfuzz.cli import main

    out, err, here = io.StringIO(), io.StringIO(), os.getcwd()
    try:
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 2
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def test_the_loop_command_reports_as_fuzz_does(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    r = _cli("loop", "--target", "loops:careless", "--seed", "1", "--max-examples", "5",
             "--kind", "loop.", "--no-corpus", "-q", "--json", str(out), "--junit",
             str(tmp_path / "r.xml"), "--markdown", str(tmp_path / "r.md"))
    assert r.returncode == 1, r.stderr
    assert "loop-step-limit" in r.stdout and "loop-stop-sequence" in r.stdout
    data = json.loads(out.read_text())
    assert {f["check"] for f in data["findings"]} >= {"loop-step-limit", "loop-stop-sequence"}
    assert "loop-step-limit" in (tmp_path / "r.xml").read_text()
    clean = _cli("loop", "--target", "loops:careful", "--seed", "1", "--max-examples", "5",
                 "--kind", "loop.", "--no-corpus", "-q")
    assert clean.returncode == 0, clean.stdout + clean.stderr


@pytest.mark.slow
def test_a_bad_loop_target_is_one_line() -> None:
    """As a user runs it (every other bad input of the command is in the bad-input table)."""
    r = subprocess.run([sys.executable, "-m", "reactfuzz", "loop", "--no-corpus", "-q",
                        "--target", "nosuch_module_x:run"], capture_output=True, text=True,
                       cwd=HERE, timeout=600)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "nosuch_module_x" in lines[0], r.stderr


def test_replay_refuses_a_loop_finding_with_a_pointer(tmp_path: Path) -> None:
    corpus = tmp_path / "lc"
    _run(loops.careful_but("no-limit"), corpus=str(corpus))
    r = _cli("replay", str(corpus), "--trust-corpus")
    assert r.returncode == 2 and "reactfuzz loop" in r.stderr, r.stderr


LOOP_SUITE = '''
from reactfuzz.testing import loop_suite

TestLoop = loop_suite("agent:run", format="bracket", kinds=["loop."], max_examples=5,
                      checks=["loop-stop-sequence", "loop-step-limit", "loop-observation"])
'''


@pytest.mark.parametrize(("loop", "outcomes"), [("careless", {"failed": 2, "passed": 1}),
                                               ("careful", {"passed": 3})])
def test_loop_suite_is_one_test_per_loop_check(pytester: pytest.Pytester, loop: str,
                                               outcomes: dict[str, int]) -> None:
    pytester.makepyfile(agent=(HERE / "loops.py").read_text() + f"\nrun = {loop}\n",
                        test_agent=LOOP_SUITE)
    result = pytester.runpytest("-p", "no:cacheprovider", "-v")
    if loop == "careless":
        result.stdout.fnmatch_lines(["*TestLoop::test_loop_stop_sequence FAILED*",
                                     "*TestLoop::test_loop_step_limit FAILED*",
                                     "*TestLoop::test_loop_observation PASSED*"])
        result.stdout.fnmatch_lines(["*finding(s) of loop-step-limit against agent:run*",
                                     "*fix: Bound the loop*"])
    result.assert_outcomes(**outcomes)


@pytest.mark.parametrize(("flags", "checks"), [
    pytest.param("", set(), marks=pytest.mark.slow),
    pytest.param("--stream", set(), marks=pytest.mark.slow),
    ("--no-stop", {"loop-stop-sequence"}),
    pytest.param("--no-limit", {"loop-step-limit"}, marks=pytest.mark.slow)])
def test_an_http_client_pointed_at_serve_runs_end_to_end(tmp_path: Path, flags: str,
                                                         checks: set[str]) -> None:
    out = tmp_path / "r.json"
    r = _cli("serve", "--command", f"{sys.executable} http_agent.py {flags}", "--seed", "1",
             "--max-examples", "3", "--kind", "loop.", "--no-corpus", "-q", "--json", str(out))
    assert r.returncode == (1 if checks else 0), r.stdout + r.stderr
    data = json.loads(out.read_text())
    assert {f["check"] for f in data["findings"]} == checks
    assert data["examples"] >= 15


def test_the_fake_provider_speaks_the_openai_http_api() -> None:
    import urllib.error
    import urllib.request

    from reactfuzz.agentloop.serve import FakeProvider

    def post(url: str, body: object) -> tuple[int, bytes]:
        req = urllib.request.Request(url, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    turn = ScriptTurn("Thought: a\nAction: search[x]\nObservation: made up",
                      Call.named("search", query="x"))
    with FakeProvider() as provider:
        base = provider.base_url
        assert post(f"{base}/chat/completions", {"messages": []})[0] == 503  # no script yet
        provider.model = ScriptedModel(Script("loop.clean", "t", (turn,)), max_calls=3)
        with urllib.request.urlopen(f"{base}/models", timeout=10) as resp:
            assert json.load(resp)["data"][0]["id"] == "reactfuzz-fake"
        status, raw = post(f"{base}/chat/completions",
                           {"messages": [{"role": "user", "content": "q"}],
                            "stop": ["Observation:"]})
        data = json.loads(raw)
        assert status == 200 and data["choices"][0]["finish_reason"] == "stop"
        assert data["choices"][0]["message"]["content"] == "Thought: a\nAction: search[x]\n"
        status, raw = post(f"{base}/completions", {"prompt": "q", "stream": True})
        events = [ln[6:] for ln in raw.decode().splitlines() if ln.startswith("data: ")]
        assert events[-1] == "[DONE]"
        assert "".join(json.loads(e)["choices"][0]["text"] for e in events[:-1]).endswith(
            "made up")
        assert post(f"{base}/chat/completions", {"messages": 5})[0] == 400
        assert post(f"{base}/chat/completions", [1])[0] == 400
        assert post(f"{base}/nothing", {})[0] == 404
        assert post(f"{base}/completions", {"prompt": "q", "stop": "Thought"})[0] == 200
        assert post(f"{base}/completions", {"prompt": "q"})[0] == 429  # the bound: 3 calls
        assert provider.bound_hit
        assert [c.stop for c in provider.model.calls] == [("Observation:",), (), ("Thought",)]
        assert provider.model.calls[2].text == ""  # cut at the stop word it starts with


SLOW_LOOP = """
import sys, time
sys.path.insert(0, {here!r})
from loops import careless

def run(llm, tools, task):
    def slow(prompt, stop=None):
        time.sleep(0.005)
        return llm(prompt, stop=stop)
    return careless(slow, tools, task)
"""


@pytest.mark.slow
@pytest.mark.parametrize("signum", [2, 15])
def test_a_signal_mid_run_keeps_every_finding_made(tmp_path: Path, signum: int) -> None:
    import time

    (tmp_path / "slowloop.py").write_text(SLOW_LOOP.format(here=str(HERE)))
    corpus, report = tmp_path / "lc", tmp_path / "r.json"
    proc = subprocess.Popen([sys.executable, "-m", "reactfuzz", "loop", "--target",
                             "slowloop:run", "--seed", "1", "--max-examples", "200",
                             "--corpus", str(corpus), "--json", str(report), "-q"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 120
    while not list(corpus.glob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)
    proc.send_signal(signum)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == (130 if signum == 2 else 143), err
    data = json.loads(report.read_text())
    on_disk = {p.name for p in corpus.glob("*.json")}
    assert data["findings"] and len(on_disk) == len(data["findings"]), (on_disk, err)
    assert not list(corpus.glob(".tmp-*"))
