"""Small promises that broke under an independent run: each case failed before its fix.

Budgets bound the work they name, a replay that replayed nothing does not pass, a typo in
a corpus file is an error rather than "fixed", a format's name cannot write to the
terminal, and an exception that cannot describe itself is still described.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from reactfuzz.cli import main
from reactfuzz.engine.config import FuzzConfig
from reactfuzz.engine.run import run_fuzz
from reactfuzz.targets import load_target

ROOT = Path(__file__).resolve().parent.parent
GOOD = ROOT / "fuzz_corpus" / "no-crash-extra.positional-8941da71f324aa7a.json"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as e:  # argparse
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_time_budget_stops_an_operator_mid_search(capsys: pytest.CaptureFixture[str]) -> None:
    """``--time-budget`` bounds the run, not only when operators start: a budget of a
    million examples per operator stops within the budget and keeps what it found."""
    start = time.process_time()
    summary = run_fuzz(FuzzConfig(targets=["classic-bracket"], seed=1, max_examples=1_000_000,
                                  time_budget=2.0, abuses=["injected.answer-and-action",
                                                           "extra.positional"]))
    assert time.process_time() - start < 20  # generous for a loaded machine: not minutes
    assert summary.findings  # the interrupted operator's findings are kept
    assert "time budget spent" in summary.operators[0].skipped


def test_max_examples_has_an_upper_bound(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["fuzz", "--parser", "classic-bracket", "--no-corpus",
                         "--max-examples", str(10**30)], capsys)
    assert code == 2 and "--max-examples" in err and "more than" in err


def test_expect_reproduced_fails_when_nothing_was_replayed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(GOOD.read_text())
    data["target"] = "agent_with_typo:parse"  # names code: skipped without --target
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "x.json").write_text(json.dumps(data))
    code, _, err = _run(["replay", str(tmp_path / "c"), "--expect-reproduced"], capsys)
    assert code == 1 and "skipped" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = _run(["replay", str(empty), "--expect-reproduced"], capsys)
    assert code == 1 and "no finding was replayed" in err
    # without --expect-reproduced, nothing to replay is still fine
    assert _run(["replay", str(empty)], capsys)[0] == 0


def test_a_typo_in_a_corpus_files_verdict_is_an_error_not_fixed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(GOOD.read_text())
    data["verdict"] = "crsh"
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(data))
    code, out, err = _run(["replay", str(path)], capsys)
    assert code == 2 and "FIXED" not in out
    assert "verdict" in err and "crsh" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("name", ["evil\x1b]0;pwned\x07", "clear\x1b[2J", "two\nlines",
                                  "bidi\u202eevil", ""])
def test_a_format_name_cannot_write_to_the_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    fmt = tmp_path / "f.toml"
    fmt.write_text(f"name = {json.dumps(name)}\nbase = \"bracket\"\n")
    code, out, err = _run(["fuzz", "--parser", "grammar", "--format", str(fmt),
                           "--max-examples", "1", "--no-corpus"], capsys)
    assert code == 2 and "key 'name'" in err
    assert "\x1b" not in out + err and "\u202e" not in out + err


_UNSPEAKABLE = '''
class Unspeakable(Exception):
    def __str__(self):
        raise RuntimeError("my message cannot be read")


class Odd(Exception):
    def __str__(self):
        return 42


def parse(text):
    if "Answer" in text:
        raise Odd()
    raise Unspeakable()
'''


def test_an_exception_that_cannot_describe_itself_is_described(tmp_path: Path) -> None:
    """A parser raising an exception whose ``__str__`` raises (or returns a non-string)
    is a crash that names the exception: the worker stays alive."""
    (tmp_path / "unspeakable.py").write_text(_UNSPEAKABLE)
    target = load_target("unspeakable:parse", "bracket", cwd=str(tmp_path))
    try:
        first = target.run("Thought: a\nAction: search[a]")
        second = target.run("Thought: a\nAnswer: b")
        restarts = getattr(target, "restarts", 0)
    finally:
        target.close()
    assert first.error == "Unspeakable: (its message cannot be read)"
    assert second.error == "Odd: (its message cannot be read)"
    assert restarts == 0  # no worker died
    assert first.origin is not None and first.origin.exc_type == "Unspeakable"


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.2])
def test_sigterm_in_the_first_moments_is_one_line_and_143(delay: float, tmp_path: Path) -> None:
    """A CI cancel that lands while reactfuzz is still starting: one line, exit 143, no
    traceback (before, the default action ended the process without a word)."""
    import os
    import signal
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "reactfuzz", "study", "--out",
                             str(tmp_path / "s")], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # the interpreter itself must be up to run any handler: wait until the process catches
    # SIGTERM (its mask in /proc), however loaded the machine, then for the delay
    caught = 1 << (signal.SIGTERM - 1)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        status = Path(f"/proc/{proc.pid}/status").read_text()
        mask = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
        if int(mask.split()[1], 16) & caught:
            break
        time.sleep(0.005)
    time.sleep(delay)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, (proc.returncode, err[-500:])
    assert "Traceback" not in err and "terminated" in err


_LOUD = '''
import re
import sys

print("imported")  # at import: the user's to see


def parse(text):
    sys.stdout.write("x" * 100_000)
    print("and more")
    if "Answer:" in text:
        return ("final", text.split("Answer:", 1)[1].strip())
    m = re.search(r"^Action:\\s*(\\w+)\\[(.*)\\]", text, re.M)
    if m is None:
        raise ValueError("no")
    return ("action", (m.group(1), m.group(2)))
'''

_SLOW_START = '''
import time

def parse(text):
    if text == "":
        time.sleep(30)
    raise ValueError("no")
'''


def test_a_parsers_prints_do_not_reach_reactfuzzs_output(tmp_path: Path) -> None:
    """A parser that prints 100 kB a call: reactfuzz's own output stays the report."""
    import os
    import subprocess
    import sys

    (tmp_path / "loud.py").write_text(_LOUD)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run([sys.executable, "-m", "reactfuzz", "fuzz", "--target", "loud:parse",
                           "--format", "bracket", "--seed", "1", "--max-examples", "3",
                           "--abuse", "extra.positional", "--no-corpus", "-q"], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode in (0, 1), proc.stderr[-500:]
    assert "x" * 1000 not in proc.stdout and "and more" not in proc.stdout
    assert len(proc.stdout) < 20_000


def test_a_parser_that_hangs_on_its_first_call_is_not_blamed_on_its_import(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reactfuzz.errors import UsageError

    monkeypatch.setenv("REACTFUZZ_IMPORT_TIMEOUT", "2")
    (tmp_path / "slowstart.py").write_text(_SLOW_START)
    with pytest.raises(UsageError) as e:
        load_target("slowstart:parse", "bracket", cwd=str(tmp_path))
    assert "first call" in str(e.value) and "import" not in str(e.value).split("(")[0]


_FORKS = '''
import os
import re
import time


def parse(text):
    if os.fork() == 0:  # a child that leaves the worker's process group and session
        os.setsid()
        with open(os.environ["PIDS_FILE"], "a") as fh:
            fh.write(f"{os.getpid()}\\n")
        time.sleep(120)
        os._exit(0)
    m = re.search(r"^Action:\\s*(\\w+)\\[(.*)\\]", text, re.M)
    if m is None:
        return ("final", text)
    return ("action", (m.group(1), m.group(2)))
'''


# the same, then the parser kills its own process: the worker crashes on every call
_FORKS_AND_DIES = _FORKS.replace(
    "    m = re.search", "    if text:\n        os.kill(os.getpid(), 9)\n    m = re.search")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="descendants are read from /proc")
@pytest.mark.parametrize("source", [_FORKS, _FORKS_AND_DIES], ids=["lives", "crashes"])
def test_a_parsers_child_in_its_own_session_ends_with_the_run(
        source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    (tmp_path / "forks.py").write_text(source)
    pids = tmp_path / "pids.txt"
    monkeypatch.setenv("PIDS_FILE", str(pids))
    run_fuzz(FuzzConfig(targets=["forks:parse"], seed=1, max_examples=2,
                        abuses=["extra.positional"], cwd=str(tmp_path), format_fit=False))
    started = [int(p) for p in pids.read_text().split()]
    assert started
    time.sleep(0.5)
    alive = []
    for pid in started:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                state = fh.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.append(pid)
    for pid in alive:  # leave nothing behind whatever the test says
        os.kill(pid, 9)
    assert not alive, f"{len(alive)} of {len(started)} children still run"
