"""`reactfuzz fuzz`, `replay` and `study` from the command line, output pinned by snapshots.

Commands run in this process through :func:`reactfuzz.cli.main` (the ``cli`` fixture); what
needs a real process runs one (``process``): plugins and user modules, which would stay
imported and registered here, workers, and Ctrl-C.

Set REACTFUZZ_UPDATE_SNAPSHOTS=1 to rewrite the files in tests/snapshots/ after a
deliberate change of the output.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from reactfuzz.cli import main

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"


@dataclass
class Result:
    """What a command did: its exit code and what it printed."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys, monkeypatch) -> Callable[..., Result]:
    """Run ``reactfuzz ARGS`` in this process: ``main(argv)``, output captured."""

    def run(*args: str, cwd: Path | None = None) -> Result:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as e:  # argparse: a usage error
            code = e.code if isinstance(e.code, int) else 1
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


def process(*args: str, cwd: Path | None = None, timeout: int = 300) -> Result:
    """Run ``python -m reactfuzz ARGS`` in a new process."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8", COLUMNS="100")
    r = subprocess.run([sys.executable, "-m", "reactfuzz", *args], capture_output=True,
                       text=True, env=env, cwd=cwd, timeout=timeout)
    return Result(r.returncode, r.stdout, r.stderr)


def normalise(text: str) -> str:
    """Timings vary between runs; everything else must not."""
    text = re.sub(r"\d+(\.\d+)? ?s\b", "<t>s", text)
    return re.sub(r"\d+ examples", "<n> examples", text)


def snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("REACTFUZZ_UPDATE_SNAPSHOTS") or not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"snapshot {name} changed"


SMALL = ["--seed", "1", "--max-examples", "20", "--no-corpus", "-q", "--color", "never",
         "--abuse", "injected.delimiter", "--abuse", "injected.answer-label-in-thought",
         "--abuse", "missing.argument-dropped"]


def test_fuzz_classic_bracket_console_snapshot(cli, tmp_path: Path) -> None:
    r = cli("fuzz", "--parser", "classic-bracket", "--format", "bracket", *SMALL, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    for verdict in ("wrong-call", "crash", "hijacked-answer"):
        assert verdict in r.stdout
    snapshot("fuzz_classic_bracket.txt", normalise(r.stdout))


def test_fuzz_grammar_exits_0_snapshot(cli, tmp_path: Path) -> None:
    r = cli("fuzz", "--parser", "grammar", "--format", "bracket", *SMALL, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    snapshot("fuzz_grammar.txt", normalise(r.stdout))


def test_fuzz_default_run_writes_every_report(cli, tmp_path: Path) -> None:
    """The must-show command, on defaults, with every report format."""
    r = cli("fuzz", "--parser", "classic-bracket", "--format", "bracket", "--seed", "1",
            "--json", "out/run.json", "--events", "out/events.ndjson",
            "--junit", "out/junit.xml", "--markdown", "out/pr.md", "--html", "out/run.html",
            cwd=tmp_path)
    assert r.returncode == 1
    assert "seed 1" in r.stdout
    data = json.loads((tmp_path / "out/run.json").read_text())
    verdicts = {f["verdict"] for f in data["findings"]}
    assert {"wrong-call", "crash", "hijacked-answer"} <= verdicts
    events = [json.loads(line) for line in (tmp_path / "out/events.ndjson").read_text()
              .splitlines()]
    assert events[0]["kind"] == "run-started" and events[-1]["kind"] == "run-finished"
    import xml.etree.ElementTree as ET

    suite = ET.parse(tmp_path / "out/junit.xml").getroot()
    assert suite.iter("testcase")
    assert "<svg" in (tmp_path / "out/run.html").read_text()
    corpus = list((tmp_path / "fuzz_corpus").glob("*.json"))
    assert len(corpus) == len(data["findings"])
    # same seed, same findings
    r2 = cli("fuzz", "--parser", "classic-bracket", "--format", "bracket", "--seed", "1",
             "--no-replay", "--json", "out/run2.json", "-q", cwd=tmp_path)
    assert r2.returncode == 1
    data2 = json.loads((tmp_path / "out/run2.json").read_text())
    key = lambda d: sorted((f["check"], f["verdict"], f["abuse"], f["completion"])  # noqa: E731
                           for f in d["findings"])
    assert key(data) == key(data2)
    # replay reproduces every file
    r3 = cli("replay", "fuzz_corpus", "--expect-reproduced", cwd=tmp_path)
    assert r3.returncode == 0, r3.stdout
    assert f"{len(corpus)} of {len(corpus)} findings reproduce" in r3.stdout


def test_replay_project_corpus_reproduces_every_file(cli) -> None:
    r = cli("replay", str(ROOT / "fuzz_corpus"), "--expect-reproduced")
    assert r.returncode == 0, r.stdout[-2000:]
    n = len(list((ROOT / "fuzz_corpus").glob("*.json")))
    assert f"{n} of {n} findings reproduce" in r.stdout


def test_replay_against_a_fixed_parser_reports_fixed(cli, tmp_path: Path) -> None:
    corpus = ROOT / "fuzz_corpus"
    one = next(p for p in sorted(corpus.glob("no-crash-*.json")))
    r = cli("replay", str(one), "--target", "grammar")
    assert r.returncode == 0, r.stdout
    assert "FIXED" in r.stdout and "0 of 1 findings reproduce against grammar" in r.stdout


def test_user_parser_module_function(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(textwrap.dedent('''
        import re
        ACTION_RE = re.compile(r"^Action:\\s*(\\w+)\\[(.*)\\]\\s*$", re.MULTILINE)

        def parse(text):
            if "Answer:" in text:
                return ("final", text.split("Answer:")[-1].strip())
            m = ACTION_RE.search(text)
            return ("action", (m.group(1), [a.strip() for a in m.group(2).split(",")]))
    '''))
    r = process("fuzz", "--target", "agent:parse", "--format", "bracket", "--seed", "2",
            "--max-examples", "15", "--no-corpus", "-q", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "AttributeError" in r.stdout  # m is None for a completion without an action
    assert "hijacked-answer" in r.stdout


@pytest.mark.parametrize(
    ("args", "files", "message"),
    [
        (["fuzz", "--parser", "classic-bracket", "--max-examples", "x"], {},
         "argument --max-examples: 'x' is not a whole number"),
        (["fuzz", "--parser", "nope"], {}, "unknown target 'nope'"),
        (["fuzz"], {}, "name what to fuzz"),
        (["fuzz", "--target", "missing_mod:parse"], {}, "missing_mod"),
        (["fuzz", "--parser", "grammar", "--tools", "tools.json"], {"tools.json": "[{]"},
         "tools.json"),
        (["fuzz", "--parser", "grammar", "--format", "f.toml"], {"f.toml": "base = 'x'\n"},
         "f.toml: key 'base'"),
        (["fuzz", "--parser", "grammar", "--abuse", "nope"], {}, "unknown abuse 'nope'"),
        (["fuzz", "--parser", "grammar", "--check", "nope"], {}, "unknown check 'nope'"),
        (["replay", "c"], {"c/bad.json": "{oops"}, "bad.json:1: not valid JSON"),
        (["replay", "nowhere"], {}, "nowhere: no such corpus"),
        (["study", "--design", "nope"], {}, "unknown design 'nope'"),
    ],
    ids=["bad-int", "unknown-parser", "no-target", "bad-import", "bad-tools-file",
         "bad-format-file", "unknown-abuse", "unknown-check", "bad-corpus-file",
         "missing-corpus", "unknown-design"],
)
def test_bad_input_is_one_line_exit_2(cli, tmp_path: Path, args, files, message) -> None:
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    r = cli(*args, cwd=tmp_path)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, r.stderr
    assert message in lines[0]


def test_study_writes_markdown_and_html(cli, tmp_path: Path) -> None:
    r = cli("study", "--examples", "3", "--design", "classic", "--design", "json-args",
            "--abuse", "injected.*", "--out", "s", "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "injected.delimiter" in r.stdout
    assert "json-args" in r.stdout.split("\nConclusion:\n")[1]  # the study's conclusion
    md = (tmp_path / "s/study.md").read_text()
    assert "injected.second-action" in md
    assert "<svg" in (tmp_path / "s/study.html").read_text()


def test_list_commands(cli) -> None:
    assert "injected.delimiter" in cli("abuses").stdout
    assert "no-wrong-call" in cli("checks").stdout


def test_plugin_registers_a_custom_check(tmp_path: Path) -> None:
    (tmp_path / "mychecks.py").write_text(textwrap.dedent('''
        from reactfuzz.engine.checks import Failure, check

        @check("no-refund", "refund never runs")
        def _no_refund(inp):
            call = getattr(inp.outcome, "call", None)
            if call is not None and call.tool == "refund":
                return Failure("refund-ran", "refund ran", "high")
    '''))
    r = process("fuzz", "--parser", "grammar", "--plugin", "mychecks", "--check", "no-refund",
            "--abuse", "clean.render", "--seed", "1", "-q", "--no-corpus", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "refund-ran" in r.stdout


def test_tools_without_free_text_skip_operators_cleanly(cli, tmp_path: Path) -> None:
    """Operators that need a free-text argument have nothing to work on: skipped, no crash."""
    (tmp_path / "tools.json").write_text(json.dumps([{
        "name": "add", "description": "Add two numbers.",
        "parameters": {"type": "object", "properties": {"a": {"type": "integer"},
                                                        "b": {"type": "integer"}},
                       "required": ["a", "b"]}}]))
    r = cli("fuzz", "--parser", "grammar", "--tools", "tools.json", "--seed", "1", "-q",
            "--no-corpus", "--max-examples", "10", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_workers_print_the_same_report(tmp_path: Path) -> None:
    """Two worker processes find what one finds: the console report is the same snapshot."""
    r = process("fuzz", "--parser", "classic-bracket", "--format", "bracket", *SMALL,
                "--workers", "2", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    snapshot("fuzz_classic_bracket.txt", normalise(r.stdout))


@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_keeps_the_findings_and_exits_130(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONIOENCODING="utf-8", COLUMNS="100")
    proc = subprocess.Popen(
        [sys.executable, "-m", "reactfuzz", "fuzz", "--parser", "classic-bracket", "--seed", "1",
         "--no-corpus", "--max-examples", "100000", "--color", "never", "-v"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # progress (-v): interrupt once the first operator started
            if line.startswith("  start classic-bracket · "):
                break
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    # 130, or killed by the SIGINT itself when it lands at exit (a shell shows 130 for both)
    assert proc.returncode in (130, -signal.SIGINT), (out, err)
    assert "interrupted: the results below are partial" in out
    assert "exit code 130" in out


SARIF_AGENT = """
import re

ACTION = re.compile(r"Action: (\\w+)\\[(.*)\\]")


def parse(text):
    m = ACTION.search(text)
    return {"tool": m.group(1), "args": m.group(2).split(",")} if m else {"error": "none"}
"""


@pytest.mark.slow  # three runs of a user parser in a worker process: about 6 s
def test_fuzz_writes_sarif_and_reruns_say_known(cli, tmp_path: Path) -> None:
    """``fuzz --sarif FILE`` writes a log valid against the SARIF 2.1.0 schema, pointing at
    the parser's file; a rerun calls the replayed findings known, not new; no run leaves a
    ``.hypothesis`` folder in the working directory."""
    import jsonschema

    (tmp_path / "sarif_cli_agent.py").write_text(SARIF_AGENT, encoding="utf-8")
    args = ("fuzz", "--target", "sarif_cli_agent:parse", "--seed", "1", "--max-examples",
            "5", "--abuse", "injected.second-action")
    r = cli(*args, "--sarif", "out/run.sarif", "-q", cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    log = json.loads((tmp_path / "out/run.sarif").read_text(encoding="utf-8"))
    schema = json.loads((Path(__file__).parent / "data/sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(log)
    where = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "sarif_cli_agent.py"
    # the line the parser returned from for the bug, not its def line
    assert SARIF_AGENT.splitlines()[where["region"]["startLine"] - 1].strip().startswith(
        "return {")
    n = len(log["runs"][0]["results"])
    assert f"({0} known, {n} new, 0 fixed)" in r.stdout
    again = cli(*args, "-q", cwd=tmp_path)
    assert f"({n} known, 0 new, 0 fixed)" in again.stdout
    assert "known findings still fail the run" in again.stdout
    based = cli(*args, "--baseline", "fuzz_corpus", "-q", cwd=tmp_path)
    assert based.returncode == 0 and f"({n} known, 0 new, 0 fixed)" in based.stdout
    assert not (tmp_path / ".hypothesis").exists()


def test_fuzz_sarif_option_writes_a_log_and_no_hypothesis_folder(cli, tmp_path: Path) -> None:
    """The fast tier's share of the above: a built-in parser, one report, one rerun."""
    args = ("fuzz", "--parser", "classic-bracket", "--seed", "1", "--max-examples", "3",
            "--abuse", "injected.second-action", "-q")
    r = cli(*args, "--sarif", "run.sarif", cwd=tmp_path)
    log = json.loads((tmp_path / "run.sarif").read_text(encoding="utf-8"))
    assert r.returncode == 1 and log["version"] == "2.1.0" and log["runs"][0]["results"]
    n = len(log["runs"][0]["results"])
    assert f"({n} known, 0 new, 0 fixed)" in cli(*args, cwd=tmp_path).stdout
    assert not (tmp_path / ".hypothesis").exists()
