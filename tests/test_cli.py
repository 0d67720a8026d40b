"""The command line: parse, conform, formats, demo, and clean errors (exit 2).

Commands run in this process through :func:`reactfuzz.cli.main` (the ``cli`` fixture); a
few run the installed console script, as a user would.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from reactfuzz import BUILTIN_FORMATS, Call, FinalAnswer
from reactfuzz.cli import main
from reactfuzz.render import render

BILLING_TURN = (
    "Thought: I should list this customer's July invoices before assuming a duplicate.\n"
    "Action: list_invoices[cus_8812, 2026-07-01]\n"
)


@dataclass
class Result:
    """What a command did: its exit code and what it printed."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys, monkeypatch) -> Callable[..., Result]:
    """Run ``reactfuzz ARGS`` in this process: ``main(argv)``, output captured."""

    def run(*args: str, stdin: str | None = None, cwd: Path | None = None) -> Result:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as e:  # argparse: --help, or a usage error
            code = e.code if isinstance(e.code, int) else 1
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


def console_script() -> list[str]:
    """The installed ``reactfuzz`` script (next to this interpreter), else ``-m reactfuzz``."""
    name = "reactfuzz.exe" if os.name == "nt" else "reactfuzz"
    script = Path(sys.executable).with_name(name)
    if script.exists():
        return [str(script)]
    found = shutil.which("reactfuzz")
    return [found] if found else [sys.executable, "-m", "reactfuzz"]


def run_process(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real console entry point in a subprocess, as a user would."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [*console_script(), *args],
        input=stdin, capture_output=True, text=True, env=env, timeout=120,
    )


@pytest.mark.parametrize("parser", ["grammar", "classic-bracket", "hardened-bracket"])
def test_parse_billing_turn_from_stdin(cli, parser: str) -> None:
    r = cli("parse", "--format", "bracket", "--parser", parser, "-", stdin=BILLING_TURN)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["kind"] == "action"
    assert out["action"]["tool"] == "list_invoices"
    assert out["action"]["args"] == ["cus_8812", "2026-07-01"]


def test_parse_invalid_exits_1_with_reason(capsys, tmp_path: Path) -> None:
    f = tmp_path / "c.txt"
    f.write_bytes(b"Action: search[x]\r\nObservation: made up\r\n")
    assert main(["parse", str(f)]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["invalid"]["code"] == "fabricated-observation"
    assert out["invalid"]["line"] == 2


def test_parse_keeps_carriage_returns(capsys, tmp_path: Path) -> None:
    f = tmp_path / "c.txt"
    f.write_bytes(b"Action: search[x]\rAnswer: hijack\n")
    assert main(["parse", str(f)]) == 1
    assert json.loads(capsys.readouterr().out)["invalid"]["code"] == "trailing-text"


def test_parse_transcript_mode(capsys, tmp_path: Path) -> None:
    f = tmp_path / "t.txt"
    f.write_text("Question: q\nThought: a\nAction: s[x]\nObservation: o\nAnswer: b\n")
    assert main(["parse", "--transcript", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [b["role"] for b in out["blocks"]] == [
        "header", "thought", "action", "observation", "answer"
    ]


def _transcripts(fmt: str) -> list[str]:
    """Transcripts made here, by the renderer: two good, one with a real defect."""
    f = BUILTIN_FORMATS[fmt]
    # a tag format writes no think block before an answer by default, and noise followed
    # by an unmarked answer is a longer answer: the answer's think block makes it a defect
    last = f.model_copy(update={"think": "always"}) if f.family.bare_answer else f
    good = []
    for q, call in [("Who?", Call("search", ("Ada Lovelace",))), ("When?", Call("search", ("1843",)))]:
        obs = f"{f.label('observation', 1)} some text\nmore text"
        good.append("\n".join([
            f"{f.labels.headers[-1]}: {q}",
            render(call, f, thought="look it up", step=1),
            obs,
            render(FinalAnswer("done"), last, thought="enough", step=2),
        ]) + "\n")
    bad = good[0].replace("more text", "more text\n\nharness noise")
    return [*good, bad]


@pytest.mark.parametrize("fmt", sorted(BUILTIN_FORMATS))
def test_conform_reports_rate_and_grouped_rejections(fmt: str, tmp_path: Path, capsys) -> None:
    if BUILTIN_FORMATS[fmt].family.name in ("bare_json", "pythonic"):
        pytest.skip("no thought and an unmarked answer: the noise is read as the answer text")
    path = tmp_path / "logs.jsonl"
    with path.open("w") as fh:
        for i, t in enumerate(_transcripts(fmt)):
            fh.write(json.dumps({"id": f"run{i}", "text": t}) + "\n")
    bad_line = _transcripts(fmt)[2].split("\n").index("harness noise") + 1
    code = main(["conform", "--format", fmt, str(path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "accepted 2 of 3 transcripts (66.7%), rejected 1" in out
    # in a tag format unlabelled text is a thought: the noise is refused at the next block
    code_ = "syntax" if BUILTIN_FORMATS[fmt].family.bare_answer else "unlabelled-text"
    assert f"[{code_}] 1 transcript(s)" in out
    if code_ == "unlabelled-text":
        assert f"run2: line {bad_line}, column 1" in out
    assert main(["conform", "--format", fmt, "--min-rate", "60", "--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["accepted"] == 2 and data["rate"] == 66.67
    assert data["rejections"][code_][0]["record"] == "run2"


def test_conform_custom_field_and_record_without_id(tmp_path: Path, capsys) -> None:
    path = tmp_path / "logs.jsonl"
    path.write_text(json.dumps({"log": "Question: q\nThought: a\nAnswer: b\n"}) + "\n\n")
    assert main(["conform", "--format", "bracket", "--field", "log", str(path)]) == 0
    assert "accepted 1 of 1" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "content", "message"),
    [
        (["conform", "--format", "bracket"], '{"text": "x"}\nnot json\n', r"logs.jsonl:2: not valid JSON"),
        (["conform", "--format", "bracket"], '{"other": "x"}\n', r"logs.jsonl:1: record has no field 'text'"),
        (["conform", "--format", "bracket"], '{"text": 3}\n', r"field 'text' is not a string"),
        (["conform", "--format", "nope"], '{"text": "x"}\n', r"unknown format 'nope'"),
        (["parse", "--parser", "nope"], "Action: x[y]\n", r"unknown target 'nope'"),
    ],
    ids=["bad-json", "missing-field", "wrong-type", "unknown-format", "unknown-parser"],
)
def test_bad_input_is_one_line_exit_2(cli, tmp_path: Path, args, content, message) -> None:
    path = tmp_path / "logs.jsonl"
    path.write_text(content)
    r = cli(*args, str(path))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert re.search(message, lines[0]), lines[0]


def test_missing_file_and_bad_format_file_exit_2(cli, tmp_path: Path) -> None:
    r = cli("parse", str(tmp_path / "nope.txt"))
    assert r.returncode == 2 and "nope.txt: completion file not found" in r.stderr
    bad = tmp_path / "f.toml"
    bad.write_text("base = 'bracket'\nlabels = 3\n")
    r = cli("parse", "--format", str(bad), "-", stdin="Action: x[y]")
    assert r.returncode == 2 and "f.toml: key 'labels'" in r.stderr
    r = cli("conform")
    assert r.returncode == 2 and "the following arguments are required: --format" in r.stderr


def test_formats_lists_the_builtins(capsys) -> None:
    assert main(["formats", "--verbose"]) == 0
    out = capsys.readouterr().out
    for name in BUILTIN_FORMATS:
        assert f"\n{name} " in "\n" + out
    assert f"(all {len(BUILTIN_FORMATS)} compile)" in out


def test_demo_runs_on_defaults(cli) -> None:
    r = cli("demo")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("transcript grammar: accepted") == len(BUILTIN_FORMATS)
    assert "classic-bracket: call search('Paris', 'France')" in r.stdout
    assert "grammar: call list_invoices(customer_id='cus_8812', since='2026-07-01')" in r.stdout


def test_console_script_reads_stdin_and_fails_in_one_line() -> None:
    """The installed entry point: the exit code reaches the shell, errors carry no traceback."""
    r = run_process("parse", "--format", "bracket", "-", stdin=BILLING_TURN)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["action"]["tool"] == "list_invoices"
    r = run_process("parse", "--parser", "nope", "-", stdin=BILLING_TURN)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        r.stderr.strip()
    ] and "unknown target 'nope'" in r.stderr and "Traceback" not in r.stderr


def test_version_and_help_import_no_command() -> None:
    """``--version`` and ``--help`` answer before the engine and its dependencies load."""
    # Only what the CLI itself adds counts: what ``import reactfuzz`` loads is the package's.
    code = (
        "import sys\n"
        "import reactfuzz\n"
        "before = set(sys.modules)\n"
        "from reactfuzz.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit:\n"
        "    pass\n"
        "ok = {'reactfuzz.cli', 'reactfuzz.cli.arguments', 'reactfuzz.cli.validate',\n"
        "      'reactfuzz.errors', 'reactfuzz.textsafe'}\n"
        "print(sorted(m for m in set(sys.modules) - before if m not in ok and (\n"
        "    m.startswith('reactfuzz.') or m.split('.')[0] in {'hypothesis', 'lark',\n"
        "                                                     'pydantic'})))\n"
    )
    for flag in ("--version", "--help"):
        r = subprocess.run([sys.executable, "-c", code, flag], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip().splitlines()[-1] == "[]", r.stdout


def test_dispatcher_choices_come_from_the_registry(cli) -> None:
    from reactfuzz.dispatch import DISPATCHERS

    r = cli("replay", "--dispatcher", "nope")
    assert r.returncode == 2
    assert "invalid choice: 'nope' (choose from " + ", ".join(
        repr(n) for n in ["auto", *DISPATCHERS]) in r.stderr
    assert "{" + ",".join(["auto", *DISPATCHERS]) + "}" in cli("fuzz", "--help").stdout


def test_bare_reactfuzz_prints_help_and_exits_0(capsys) -> None:
    from reactfuzz.cli import main

    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: reactfuzz") and "fuzz" in out


def test_no_color_turns_auto_colour_off(monkeypatch) -> None:
    import argparse

    from reactfuzz.cli.fuzz import use_color

    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    auto = argparse.Namespace(color="auto")
    assert use_color(auto)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(auto)
    assert use_color(argparse.Namespace(color="always"))
