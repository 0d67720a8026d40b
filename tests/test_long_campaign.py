"""The long-campaign harness: dictionary, seeds, the raw-bytes oracle, findings that replay,
instrumenting only the target, and a campaign that finds what the engine finds."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reactfuzz.designs import Reading
from reactfuzz.engine import replay
from reactfuzz.engine.corpus import iter_corpus
from reactfuzz.formats import get_format
from reactfuzz.fuzzing import FuzzFailure, Harness, entry_point
from reactfuzz.fuzzing.cli import main
from reactfuzz.fuzzing.dictionary import dictionary_entries, dictionary_text
from reactfuzz.fuzzing.driver import run_driver
from reactfuzz.fuzzing.libfuzzer import instrument_modules, target_modules
from reactfuzz.fuzzing.oracle import NO_ACTION, acceptable_from_reading
from reactfuzz.fuzzing.seeds import corpus_inputs, seed_inputs, write_inputs
from reactfuzz.fuzzing.shrink import shrink_text
from reactfuzz.model import Call, FinalAnswer
from reactfuzz.tools import default_registry

ENGINE_KINDS = {"wrong-call", "unvalidated-call", "hijacked-answer", "crash"}
"""The failure kinds the default engine run reports on classic-bracket (docs/long-campaigns.md)."""

BROKEN = '''
import re
from reactfuzz.model import Action, Invalid, Step

def parse(text):
    if "Answer:" in text:  # anywhere, not at a line start: the classic mistake
        return Step(answer=text.split("Answer:", 1)[1].strip())
    m = re.search(r"^Action: (\\w+)\\[(.*)\\]$", text, re.M)
    if m is None:
        return Step(invalid=Invalid("malformed-action", "no action line"))
    return Step(action=Action(m.group(1), m.group(2), (m.group(2),) if m.group(2) else ()))
'''


# --------------------------------------------------------------------------- dictionary

def test_the_dictionary_is_written_from_the_format_data() -> None:
    reg = default_registry()
    bracket = dictionary_entries(get_format("bracket"), reg)
    for piece in ("Action:", "\nAction: ", "Observation:", "Answer:", "[", "]", ",", '"',
                  "```", "\u2028", "search", "list_invoices[", "customer_id"):
        assert piece in bracket, piece
    json_blob = dictionary_entries(get_format("json-blob"), reg)
    assert '"action"' in json_blob or any(k.startswith('"') for k in json_blob)
    text = dictionary_text(get_format("bracket"), reg)
    body = [line for line in text.splitlines() if not line.startswith("#")]
    assert len(body) == len(bracket)
    # libFuzzer's syntax: printable ASCII inside the quotes, escapes for the rest
    assert all(re.fullmatch(r'kw\d+="(?:[ !#-\[\]-~]|\\\\|\\"|\\x[0-9A-F]{2})*"', line)
               for line in body)


# --------------------------------------------------------------------------- the oracle

def test_the_oracle_of_raw_bytes_is_the_format_reading() -> None:
    fmt, reg = get_format("bracket"), default_registry()
    call = acceptable_from_reading(Reading("Thought: a\nAction: search[x]", fmt, reg))
    assert [c.tool for c in call.calls] == ["search"] and call.rejections
    answer = acceptable_from_reading(Reading("Thought: a\nAnswer: done", fmt, reg))
    assert answer.intent == FinalAnswer("done") and answer.answers == ("done",)
    nothing = acceptable_from_reading(Reading("Thought: a\nAction: search[x]\nnoise", fmt, reg))
    assert nothing.calls == () and nothing.answers == ()
    refused = acceptable_from_reading(Reading("Action: get_weather[,]", fmt, reg))
    assert isinstance(refused.intent, Call) and refused.intent.tool == "get_weather"
    assert isinstance(nothing.intent, Call) and nothing.intent.tool in ("search", NO_ACTION)


# --------------------------------------------------------------------------- the harness

def test_a_broken_parser_is_caught_and_a_correct_one_left_alone(local_module: Any) -> None:
    local_module("campaign_broken", BROKEN)
    hijack = b"Thought: I will not write Answer: yes\nAction: search[a]"
    with pytest.raises(FuzzFailure, match="no-hijacked-answer"):
        Harness("campaign_broken:parse")(hijack)
    correct = Harness("grammar")
    for data in (hijack, b"Thought: a\nAction: search[a]", b"\xff\x00Answer:", b""):
        correct(data)
    Harness("campaign_broken:parse")(b"Thought: a\nAction: search[a]")  # agrees: no failure
    # an answer that differs only in line endings or the spaces ending a line is the same
    Harness("classic-bracket")(b"Thought: a\nAnswer: one \r\ntwo")


def test_a_failure_is_a_shrunk_corpus_finding_that_replays(tmp_path: Path) -> None:
    h = entry_point("classic-bracket", "bracket", findings=tmp_path)
    padded = b"Thought: first\nThought: second thought\nAction: search[Paris, France]"
    with pytest.raises(FuzzFailure, match="no-crash"):
        h(padded)
    [(path, finding)] = list(iter_corpus(tmp_path))
    assert finding.check == "no-crash" and finding.shrunk and finding.abuse == "fuzz.bytes"
    assert len(finding.completion) < len(padded) and "Thought" not in finding.completion
    assert [r.reproduced for r in replay([path])] == [True]
    # the root cause is known now: a campaign sharing the directory goes past it
    entry_point("classic-bracket", "bracket", findings=tmp_path)(padded)


def test_recording_writes_each_root_cause_once(tmp_path: Path) -> None:
    h = Harness("classic-bracket", findings=tmp_path, on_failure="record")
    for data in (b"Action: search[a, b]", b"Thought: x\nAction: search[a, b]", b"Answer: ok"):
        h(data)
    assert h.stats.runs == 3 and h.stats.failing == 2
    assert len(h.stats.findings) == 1 and len(list(tmp_path.glob("*.json"))) == 1


def test_shrinking_keeps_the_failure_and_is_deterministic() -> None:
    def fails(s: str) -> bool:
        return "Answer:" in s and "x" in s

    text = "Thought: one\nThought: two x\nAnswer: y"
    assert shrink_text(text, fails) == shrink_text(text, fails)
    assert fails(shrink_text(text, fails)) and len(shrink_text(text, fails)) <= 8


# --------------------------------------------------------------------------- seeds, corpus

def test_corpus_inputs_read_findings_and_raw_files(tmp_path: Path) -> None:
    h = Harness("classic-bracket", findings=tmp_path / "f", on_failure="record")
    h(b"Action: search[a, b]")
    write_inputs([b"raw input", b"raw input"], tmp_path / "in")
    got = corpus_inputs([tmp_path / "f", tmp_path / "in", tmp_path / "missing"])
    assert got == [h.stats.findings[0].completion.encode(), b"raw input"]


# --------------------------------------------------------------------------- instrumenting

class _FakeAtheris:
    def __init__(self) -> None:
        self.modules: set[str] = set()

    def instrument_func(self, fn: Any) -> Any:
        self.modules.add(fn.__module__)
        return fn


def test_only_the_target_is_instrumented(local_module: Any) -> None:
    fake = _FakeAtheris()
    assert instrument_modules(fake, target_modules("classic-bracket")) > 0
    # the parsers package and its modules, nothing of Hypothesis, pydantic or Lark
    assert "reactfuzz.parsers" in fake.modules
    assert all(m.startswith("reactfuzz.parsers") for m in fake.modules)
    local_module("campaign_broken", BROKEN)
    fake = _FakeAtheris()
    instrument_modules(fake, target_modules("campaign_broken:parse"))
    assert fake.modules == {"campaign_broken"}
    assert target_modules("zoo.x:parse", ["qwen_agent"]) == ["zoo", "qwen_agent"]


# --------------------------------------------------------------------------- command line

def test_the_command_line_prints_the_dictionary_and_refuses_bad_input(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["dict", "--format", "bracket"])
    assert done.value.code == 0 and 'kw0=","' in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["dict", "--format", "no-such-format"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err


# --------------------------------------------------------------------------- campaigns

@pytest.mark.slow
def test_a_short_campaign_finds_the_engine_kinds_and_its_files_replay(tmp_path: Path) -> None:
    """From the shipped seeds and dictionary, a few seconds of the pure-Python driver
    report every kind of failure the default engine run reports on classic-bracket."""
    fmt, reg = get_format("bracket"), default_registry()
    h = Harness("classic-bracket", findings=tmp_path, on_failure="record", shrink_seconds=2)
    seeds = seed_inputs(fmt, reg, seed=0)
    stats = run_driver(h, seeds, dictionary_entries(fmt, reg), runs=len(seeds) + 500, seed=0)
    assert ENGINE_KINDS <= {f.failure for f in stats.findings}
    assert all(len(f.completion) < 60 for f in stats.findings)  # shrunk, not the seeds
    done = subprocess.run([sys.executable, "-m", "reactfuzz", "replay", str(tmp_path),
                           "--expect-reproduced"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_an_atheris_campaign_finds_the_engine_kinds(tmp_path: Path) -> None:
    pytest.importorskip("atheris")
    done = subprocess.run(
        [sys.executable, "-m", "reactfuzz.fuzzing", "run", "classic-bracket", "--driver",
         "atheris", "--seconds", "10", "--findings", str(tmp_path / "f"), "--inputs",
         str(tmp_path / "in")], capture_output=True, text=True, timeout=180)
    assert done.returncode == 1, done.stderr[-2000:]
    kinds = {f.failure for _, f in iter_corpus(tmp_path / "f")}
    assert ENGINE_KINDS <= kinds, done.stderr[-2000:]
    assert "runs/s" in done.stderr
