"""Signals, user code at import, and odd results: no finding lost, no process left.

A run stopped by Ctrl-C (SIGINT) or a CI cancel (SIGTERM) writes every report, and the
reports name exactly the findings on disk; SIGKILL leaves valid corpus files. Workers,
a hung parser and whatever it forked are reaped whatever stops the run. User modules
that hang or end the interpreter at import are one readable error, and whatever a
parser returns is a finding or a refusal, never an aborted run.

The signal suite (``slow``) runs the command line in a session of its own and reads
the session from ``/proc`` afterwards to find any process left.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from reactfuzz.engine.corpus import (
    MAX_FIELD_CHARS,
    bounded_finding,
    iter_corpus,
    load_finding,
    save_finding,
    sweep_temp_files,
)
from reactfuzz.engine.signals import Terminated, deferred_signals, sigterm_interrupts
from reactfuzz.errors import UsageError
from reactfuzz.targets import load_target, load_tools
from reactfuzz.targets.sanitise import MAX_VALUE_CHARS, sanitise_result

POSIX = pytest.mark.skipif(os.name == "nt" or not hasattr(os, "fork"), reason="POSIX signals")
LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
ROOT = Path(__file__).resolve().parent.parent


# --------------------------------------------------------------------------- helpers


def _session(sid: int) -> list[int]:
    """The processes whose session is ``sid`` (Linux ``/proc``), zombies left out."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2] == "Z"


def _wait_gone(pids: list[int], seconds: float = 15.0) -> list[int]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        left = [p for p in pids if not _gone(p)]
        if not left:
            return []
        time.sleep(0.05)
    return [p for p in pids if not _gone(p)]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONIOENCODING="utf-8", COLUMNS="100",
                PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))


# --------------------------------------------------------------------------- results


class _Hostile:
    """Every dunder a report or a check would call raises."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        raise RuntimeError("repr")

    def __str__(self) -> str:
        return "fine"


def _cyclic() -> list[Any]:
    a: list[Any] = []
    a.append(a)
    return a


def _cyclic_dict() -> dict[str, Any]:
    d: dict[str, Any] = {}
    d["q"] = d
    return d


def _deep(n: int) -> list[Any]:
    value: list[Any] = ["deep"]
    for _ in range(n):
        value = [value]
    return value


@pytest.mark.parametrize("value", [_cyclic(), _cyclic_dict(), [_Hostile()], "x" * 12_000_000,
                                   _deep(2000)],
                         ids=["cyclic-list", "cyclic-dict", "hostile-dunders", "12MB", "deep"])
def test_odd_results_become_bounded_comparable_printable_steps(value: Any) -> None:
    def parse(completion: str) -> Any:
        return ("action", "search", value)

    target = load_target(parse, "bracket")
    result = target.run("Thought: a\nAction: search[a]")
    step = result.to_step()
    assert step == step  # compares,
    text = repr(step) + str(result)  # prints,
    assert len(text) < 2 * MAX_VALUE_CHARS  # and is bounded
    # still wrong, so a finding: an action with marked values, or a crash the adapter saw
    assert step.action is None or step.action.args != ("a",)
    assert step.action is not None or step.invalid is not None


def test_a_huge_string_keeps_its_length_and_hash() -> None:
    from reactfuzz.model import Action, Step
    from reactfuzz.targets.base import ParseResult

    big = "y" * (MAX_VALUE_CHARS + 1)
    result = sanitise_result(ParseResult(step=Step(answer=big)))
    assert result.step is not None and result.step.answer is not None
    assert f"truncated: {len(big)} chars, sha256 " in result.step.answer
    clean = ParseResult(step=Step(action=Action("t", "r", ("a", 1, None))))
    same = sanitise_result(clean)
    assert same is clean  # nothing to change: no copy per call
    cut = sanitise_result(ParseResult(step=Step(action=Action("t", "r", ("a", big)))))
    assert cut.step is not None and cut.step.action is not None
    assert cut.step.action.args[0] == "a" and "truncated" in cut.step.action.args[1]


def test_long_finding_text_is_cut_in_the_corpus_and_still_replays(tmp_path: Path) -> None:
    _, original = next(iter_corpus(ROOT / "fuzz_corpus"))
    huge = original.model_copy(update={"observed": "z" * 1_000_000,
                                       "explanation": "e" * 50_000})
    path = save_finding(huge, tmp_path)
    assert path.stat().st_size < 6 * MAX_FIELD_CHARS + 4 * len(original.completion) + 8192
    back = load_finding(path)
    assert back.completion == original.completion  # the whole completion: replayable
    assert "truncated: 1000000 chars, sha256" in back.observed
    assert bounded_finding(back) == back  # cutting is idempotent
    assert bounded_finding(original) is original


def test_temporary_files_of_a_killed_save_are_swept_when_old(tmp_path: Path) -> None:
    old, new = tmp_path / ".tmp-old.json", tmp_path / ".tmp-new.json"
    old.write_text("{")
    new.write_text("{")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    assert sweep_temp_files(tmp_path) == 1
    assert not old.exists() and new.exists()  # maybe another run saving right now


# --------------------------------------------------------------------------- user code


_BAD_MODULES = {
    "exits": ("import sys\nsys.exit(0)\n", "raised SystemExit"),
    "os_exit": ("import os\nos._exit(3)\n", "exited with code 3"),
    "crashes": ("import ctypes\nctypes.string_at(0)\n", "killed by signal SIGSEGV"),
    "hangs": ("import time\ntime.sleep(60)\n", "did not finish within 0.5s"),
    "raises": ("raise RuntimeError('nope')\n", "RuntimeError: nope"),
}


@POSIX
@pytest.mark.parametrize("kind", sorted(_BAD_MODULES))
@pytest.mark.parametrize("what", ["target", "tools"])
def test_user_code_that_ends_or_hangs_at_import_is_one_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, what: str) -> None:
    source, message = _BAD_MODULES[kind]
    name = f"bad_{kind}_{what}"
    (tmp_path / f"{name}.py").write_text(source + "TOOLS = []\ndef parse(c): return None\n")
    # a short limit only where the module hangs: the others must not time out on a loaded
    # machine before they fail the way they fail
    monkeypatch.setenv("REACTFUZZ_IMPORT_TIMEOUT", "0.5" if kind == "hangs" else "30")
    with pytest.raises(UsageError) as err:
        if what == "target":
            load_target(f"{name}:parse", "bracket", cwd=tmp_path)
        else:
            load_tools(f"{name}:TOOLS", cwd=tmp_path)
    assert name in str(err.value) and message in str(err.value)
    assert name not in sys.modules  # reactfuzz's own process never ran it


def test_a_bad_import_time_limit_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from reactfuzz.targets.user_code import import_timeout

    for bad in ("0", "-1", "nan", "abc"):
        monkeypatch.setenv("REACTFUZZ_IMPORT_TIMEOUT", bad)
        with pytest.raises(UsageError, match="REACTFUZZ_IMPORT_TIMEOUT"):
            import_timeout()


# --------------------------------------------------------------------------- signals


@POSIX
def test_signals_wait_while_findings_and_reports_are_written() -> None:
    # what the handler was before (a shell's background job starts with SIGINT ignored,
    # and Python then installs no default_int_handler): the blocks must give it back
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), deferred_signals():
        signal.raise_signal(signal.SIGINT)
        done = True  # the block runs to its end first
    assert done
    with pytest.raises(Terminated), sigterm_interrupts(), deferred_signals():
        signal.raise_signal(signal.SIGTERM)
    with deferred_signals(reraise=False) as got:
        signal.raise_signal(signal.SIGTERM)
    assert got == [signal.SIGTERM]
    assert signal.getsignal(signal.SIGINT) is before


@POSIX
def test_a_signal_once_the_run_finished_waits_for_the_reports(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the moment after the last event and before the reports is a real window (the CI
    # suite below hit it with two workers); here the signal lands exactly in it
    from reactfuzz.cli import main
    from reactfuzz.engine import RunFinished
    from reactfuzz.reporting import json as json_reports

    class SignalOnFinish(json_reports.NdjsonLog):
        def __call__(self, event: Any) -> None:
            super().__call__(event)
            if isinstance(event, RunFinished):
                signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr("reactfuzz.reporting.NdjsonLog", SignalOnFinish)
    code = main(["fuzz", "--parser", "classic-bracket", "--abuse", "malformed.empty",
                 "--max-examples", "5", "-q", "--no-replay", "--corpus", str(tmp_path / "c"),
                 "--events", str(tmp_path / "e.ndjson"), "--json", str(tmp_path / "r.json")])
    assert code == 130
    reported = {load_finding_data(f).filename
                for f in json.loads((tmp_path / "r.json").read_text())["findings"]}
    assert reported and reported == {p.name for p, _ in iter_corpus(tmp_path / "c")}


@POSIX
@pytest.mark.parametrize("mode", [[], pytest.param(
    ["--explore", "300", "--workers", "2"], marks=pytest.mark.slow, id="explore")])
def test_a_signal_while_the_reports_are_written_loses_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: list[str]) -> None:
    from reactfuzz import reporting
    from reactfuzz.cli import main

    write_json = reporting.write_json

    def signal_then_write(*args: Any, **kwargs: Any) -> Any:
        signal.raise_signal(signal.SIGTERM)
        return write_json(*args, **kwargs)

    monkeypatch.setattr(reporting, "write_json", signal_then_write)
    code = main(["fuzz", "--parser", "classic-bracket", *mode, "--abuse", "malformed.empty",
                 "--max-examples", "5", "-q",
                 "--no-replay", "--seed", "1", "--corpus", str(tmp_path / "c"),
                 "--json", str(tmp_path / "r.json"), "--junit", str(tmp_path / "r.xml")])
    assert code == 143
    assert json.loads((tmp_path / "r.json").read_text())["findings"]
    assert (tmp_path / "r.xml").exists()



def _signal_handlers(config: Any) -> tuple[Any, Any]:
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)


@POSIX
def test_exploration_workers_leave_signals_to_their_parent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a worker that kept the parent's handler printed a traceback when the pool ended it
    from reactfuzz.engine import explore

    monkeypatch.setattr(explore, "_explore_worker", _signal_handlers)
    with sigterm_interrupts():
        got = explore.explore_parallel(explore.ExploreConfig(target="classic-bracket"), 2)
    assert got == [(signal.SIG_IGN, signal.SIG_DFL)] * 2


@POSIX
def test_a_signal_whose_exception_is_lost_still_stops_the_search() -> None:
    from reactfuzz.engine.signals import check_stop

    with sigterm_interrupts():
        try:  # as a garbage-collector callback inside Hypothesis swallows it
            signal.raise_signal(signal.SIGTERM)
        except KeyboardInterrupt:
            pass
        with pytest.raises(Terminated):
            check_stop()  # the search looks before every example
    check_stop()  # the run is over: nothing pending


@POSIX
@LINUX
def test_a_timed_out_parser_and_what_it_forked_are_killed(tmp_path: Path) -> None:
    (tmp_path / "forks.py").write_text(
        "import subprocess, sys, time\n"
        "def parse(c):\n"
        "    if 'hang' in c:\n"
        "        p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"        open({str(tmp_path / 'pid')!r}, 'w').write(str(p.pid))\n"
        "        time.sleep(60)\n"
        "    return ('final', c)\n")
    target = load_target("forks:parse", "bracket", cwd=tmp_path, timeout=0.3)
    try:
        assert target.run("Answer: hang").timed_out
        grandchild = int((tmp_path / "pid").read_text())
        assert _wait_gone([grandchild]) == []
        assert target.run("Answer: fine").step is not None  # a fresh worker
    finally:
        target.close()


@POSIX
def test_ctrl_c_while_starting_is_one_line(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "reactfuzz", "fuzz", "--parser",
                             "classic-bracket", "--no-corpus"], cwd=tmp_path, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.25)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (130, -signal.SIGINT), err
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 1, err


# --------------------------------------------------------------------------- the suite

_RUN = ["fuzz", "--parser", "classic-bracket", "--seed", "3", "--max-examples", "25",
        "--no-replay", "--color", "never", "-q"]
# a short run for the signals that must wait for its end
_SHORT = ["--abuse", "malformed", "--abuse", "missing", "--abuse", "extra", "--abuse",
          "injected.answer-label-in-thought", "--max-examples", "8"]
_WAIT_FOR = {"mid": '"operator-finished"', "hang": "", "reports": '"run-finished"'}


def _run_and_signal(tmp_path: Path, signum: int, moment: str, workers: int,
                    extra: list[str] | None = None) -> dict[str, Any]:
    """Run the CLI in a session of its own, send ``signum`` to it at ``moment``
    (``start``; ``mid`` once an operator finished; ``hang`` while a call hangs;
    ``reports`` once the run finished, while the reports are written)."""
    out_dir = tmp_path / "out"
    events = out_dir / "events.ndjson"
    args = [sys.executable, "-m", "reactfuzz", *_RUN, *(extra or []),
            *(_SHORT if moment == "reports" else []),
            "--workers", str(workers), "--corpus", str(tmp_path / "corpus"),
            "--json", str(out_dir / "r.json"), "--html", str(out_dir / "r.html"),
            "--junit", str(out_dir / "r.xml"), "--events", str(events)]
    proc = subprocess.Popen(args, cwd=tmp_path, env=_env(), start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    want = _WAIT_FOR.get(moment)
    end = time.monotonic() + 120
    try:
        if want is None:
            time.sleep(0.3)
        else:
            hanging = tmp_path / "hanging"  # the parser writes it as it starts to hang
            while time.monotonic() < end and proc.poll() is None:
                if moment == "hang" and hanging.exists():
                    break
                if moment != "hang" and events.exists() and want in events.read_text():
                    break
                time.sleep(0.005)
            assert proc.poll() is None, "the run ended before the moment to signal it"
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    left = _wait_gone(_session(proc.pid))
    return {"code": proc.returncode, "out": out, "err": err, "left": left,
            "corpus": tmp_path / "corpus", "out_dir": out_dir}


def _check(r: dict[str, Any], signum: int) -> None:
    assert r["left"] == [], f"processes left: {r['left']}"
    corpus: Path = r["corpus"]
    temp = [p.name for d in (corpus, r["out_dir"]) if d.is_dir() for p in d.iterdir()
            if p.name.startswith(".tmp-")]
    if signum == signal.SIGKILL:
        # nothing runs after a SIGKILL: a file being saved at that instant stays as its
        # temporary (corpus reading skips it, the next run sweeps it once stale)
        assert len(temp) <= 2, temp
    else:
        assert temp == []
    on_disk = {p.name for p, _ in iter_corpus(corpus)}  # and every file is valid
    assert "Traceback" not in r["err"], r["err"]
    if signum == signal.SIGKILL:
        return
    report = r["out_dir"] / "r.json"
    if not report.exists():  # stopped while starting: nothing was found, nothing written
        assert r["code"] in (130, 143, -signal.SIGINT, -signal.SIGTERM), r["err"]
        assert on_disk == set()
        return
    data = json.loads(report.read_text())
    reported = {load_finding_data(f).filename for f in data["findings"]}
    assert reported == on_disk
    assert (r["out_dir"] / "r.html").exists() and (r["out_dir"] / "r.xml").exists()
    assert f"{len(reported)} finding" in r["out"]
    expected = {signal.SIGINT: 130, signal.SIGTERM: 143}[signum]
    assert r["code"] in (expected, 0, 1), r["err"]  # 0/1: the run had ended already
    if r["code"] == expected and data["interrupted"]:
        assert data["exit_code"] == expected


def load_finding_data(data: dict[str, Any]) -> Any:
    from reactfuzz.engine.corpus import Finding

    return Finding.model_validate(data)


@pytest.mark.slow
@POSIX
@LINUX
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("moment", ["start", "mid", "reports"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
                         ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_signal_suite(tmp_path: Path, signum: int, moment: str, workers: int) -> None:
    _check(_run_and_signal(tmp_path, signum, moment, workers), signum)


_HANGS = (
    "import re, subprocess, sys, time\n"
    "ACTION = re.compile(r'^Action:\\s*(\\w+)\\[(.*)\\]\\s*$', re.M)\n"
    "def parse(c):\n"
    "    if ',' in c:  # hangs, after forking a process of its own\n"
    "        subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
    "        open('hanging', 'w').close()\n"
    "        while True:\n"
    "            pass\n"
    "    m = ACTION.search(c)\n"
    "    if m:\n"
    "        return ('action', m.group(1), m.group(2))\n"
    "    a = re.search(r'Answer:\\s*(.*)', c)\n"
    "    return ('final', a.group(1)) if a else None\n"
)


@pytest.mark.slow
@POSIX
@LINUX
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
                         ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_a_hung_parser_and_its_children_never_outlive_the_run(
        tmp_path: Path, signum: int, workers: int) -> None:
    (tmp_path / "hangs.py").write_text(_HANGS)
    r = _run_and_signal(tmp_path, signum, "hang", workers,
                        ["--target", "hangs:parse", "--no-fit-check", "--time-limit", "5",
                         "--abuse", "malformed", "--abuse", "extra", "--abuse", "missing"])
    _check(r, signum)


@pytest.mark.slow
@POSIX
@LINUX
@pytest.mark.parametrize("workers", [1, 2])
def test_a_finished_run_leaves_no_process(tmp_path: Path, workers: int) -> None:
    (tmp_path / "hangs.py").write_text(_HANGS)
    args = [sys.executable, "-m", "reactfuzz", *_RUN, "--target", "hangs:parse",
            "--no-fit-check", "--time-limit", "0.3", "--abuse", "malformed", "--abuse",
            "extra", "--max-examples", "4", "--workers", str(workers), "--no-corpus"]
    proc = subprocess.Popen(args, cwd=tmp_path, env=_env(), start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, err
    assert "timeout" in out and "Traceback" not in err
    # the run's session id is its pid: whatever it left behind is still in that session
    assert _wait_gone(_session(proc.pid)) == []


_ODD = (
    "import re\n"
    "class Hostile:\n"
    "    def __eq__(self, other): raise RuntimeError('eq')\n"
    "    __hash__ = object.__hash__\n"
    "    def __repr__(self): raise RuntimeError('repr')\n"
    "def _name(c):\n"
    "    m = re.search(r'Action: (\\w+)\\[', c)\n"
    "    return m.group(1) if m else 'search'\n"
    "def cyclic(c):\n"
    "    a = []\n"
    "    a.append(a)\n"
    "    return ('action', _name(c), a)\n"
    "def hostile(c):\n"
    "    return ('action', _name(c), [Hostile()])\n"
    "def huge(c):\n"
    "    return ('action', _name(c), 'x' * 5_000_000)\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("fn", ["cyclic", "hostile", "huge"])
def test_odd_results_are_findings_in_a_real_run(tmp_path: Path, fn: str) -> None:
    (tmp_path / "odd.py").write_text(_ODD)
    r = subprocess.run([sys.executable, "-m", "reactfuzz", *_RUN, "--target", f"odd:{fn}",
                        "--no-fit-check", "--abuse", "malformed", "--max-examples", "10",
                        "--corpus", "corpus", "--json", "r.json"], cwd=tmp_path, env=_env(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 1, r.stderr
    files = list((tmp_path / "corpus").glob("*.json"))
    assert files and all(f.stat().st_size < 64_000 for f in files)
    assert (tmp_path / "r.json").stat().st_size < 64_000 * (len(files) + 1)


@POSIX
@pytest.mark.slow
def test_sigkill_with_workers_keeps_what_finished_operators_found(tmp_path: Path) -> None:
    """Workers save each operator's findings as it ends: killing the parent outright loses
    only the operators still running, as in a serial run."""
    out_dir = tmp_path / "out"
    events = out_dir / "events.ndjson"
    proc = subprocess.Popen(
        [sys.executable, "-m", "reactfuzz", *_RUN, "--workers", "2", "--corpus",
         str(tmp_path / "corpus"), "--events", str(events)],
        cwd=tmp_path, env=_env(), start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 120
    try:
        found = False
        while time.monotonic() < end and proc.poll() is None and not found:
            if events.exists():
                for line in events.read_text().splitlines():
                    event = json.loads(line) if line.strip() else {}
                    data = event.get("data", {})
                    if event.get("kind") == "operator-finished" and any(
                            data.get("failures", {}).values()):
                        found = True
            time.sleep(0.01)
        assert found and proc.poll() is None, "no operator with a failure finished in time"
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert _wait_gone(_session(proc.pid)) == []
    on_disk = [p for p, _ in iter_corpus(tmp_path / "corpus")]
    assert on_disk, "a finished operator's findings were lost with the parent"


def test_a_signal_inside_a_gc_callback_is_remembered_not_raised() -> None:
    """Python prints an exception raised in a garbage-collector callback ("Exception
    ignored in ...", a traceback on stderr) and drops it: the handler remembers the stop
    there instead, and the search raises it before its next example."""
    import gc
    import signal as _signal
    import sys as _sys

    from reactfuzz.engine import signals

    seen: list[str] = []

    def callback(phase: str, info: dict) -> None:
        if phase == "start" and not seen:
            try:
                signals._interrupt(_signal.SIGINT, _sys._getframe())
                seen.append("returned")
            except KeyboardInterrupt:
                seen.append("raised")

    signals.reset_stop()
    gc.callbacks.append(callback)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(callback)
    assert seen == ["returned"]
    with pytest.raises(KeyboardInterrupt):
        signals.check_stop()
    signals.reset_stop()
    with pytest.raises(KeyboardInterrupt):  # anywhere else it interrupts at once
        signals._interrupt(_signal.SIGINT, _sys._getframe())
    signals.reset_stop()


LATE_SIGNAL = """
import atexit, os, signal, sys, time
from reactfuzz import cli

def late():  # a signal while Python shuts down, after the run reported its code
    os.kill(os.getpid(), signal.{name})
    time.sleep(0.2)

def main(argv=None):
    atexit.register(late)
    return 1

cli.main = main
cli.entry()
"""


@POSIX
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_after_the_run_changes_neither_its_code_nor_its_output(name: str) -> None:
    r = subprocess.run([sys.executable, "-c", LATE_SIGNAL.format(name=name)],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert r.stderr == "", r.stderr


FINALISER_SCRIPT = """
import gc, signal, sys, time
from reactfuzz import __main__ as entry

signal.signal(signal.SIGTERM, entry._terminated)


class Freed:
    def __del__(self):
        signal.raise_signal(signal.SIGTERM)


def callback(phase, info):
    if phase == "start":
        signal.raise_signal(signal.SIGTERM)


try:
    if sys.argv[1] == "del":
        Freed()  # freed at once: the handler runs inside its __del__
    else:
        gc.callbacks.append(callback)  # as Hypothesis installs one
        gc.collect()
        gc.callbacks.remove(callback)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        time.sleep(0.01)
except entry.Terminated:
    print("terminated outside the finaliser")
    sys.exit(0)
sys.exit(1)
"""


@POSIX
@pytest.mark.parametrize("where", ["del", "gc-callback"])
def test_a_sigterm_inside_a_finaliser_at_startup_comes_again_outside_it(where: str) -> None:
    """Between the CLI's import and the run's own handlers, SIGTERM raises Terminated; one
    that lands inside a ``__del__`` would be printed as "Exception ignored" and lost (seen
    once in CI: a regex's groups freed while a grammar compiled). It is delivered again."""
    r = subprocess.run([sys.executable, "-c", FINALISER_SCRIPT, where], capture_output=True,
                       text=True, timeout=60, env=_env())
    assert r.returncode == 0, r.stderr
    assert "terminated outside the finaliser" in r.stdout
    assert "Exception ignored" not in r.stderr


def test_an_interrupt_wrapped_while_a_module_loads_is_one_line(monkeypatch, capsys) -> None:
    """Python 3.11 wraps a KeyboardInterrupt that lands inside a class's ``__set_name__``
    (a dataclass field of Hypothesis, imported when a command starts) in a RuntimeError:
    it is still an interrupt, one line and 130, while any other RuntimeError stays one."""
    import reactfuzz.cli.fuzz as fuzz_cli
    from reactfuzz.cli import interrupt_behind, main

    def interrupted_import(args: object) -> int:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise RuntimeError("Error calling __set_name__ on 'Field' instance") from e

    monkeypatch.setattr(fuzz_cli, "_cmd_fuzz", interrupted_import)
    assert main(["fuzz", "--parser", "classic-bracket", "--no-corpus"]) == 130
    assert capsys.readouterr().err.strip() == "reactfuzz: interrupted"
    assert interrupt_behind(RuntimeError("x")) is None
    try:
        raise ValueError("not an interrupt") from RuntimeError("y")
    except ValueError as e:
        assert interrupt_behind(e) is None
