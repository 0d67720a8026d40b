"""The drop-in safe parser: the format's grammar plus typed dispatch, for any format and
tool registry, with no design finding when reactfuzz fuzzes it as a user's own target."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import reactfuzz
from reactfuzz import Executed, Finished, Rejected, SafeParser, default_registry, safe_parser
from reactfuzz.cli import main
from reactfuzz.engine.advice import GENERIC
from reactfuzz.formats import BUILTIN_FORMATS

GERMAN = """name = "german"
base = "bracket"
stop = ["Beobachtung:"]

[labels]
thought = "Gedanke"
action = "Aktion"
observation = "Beobachtung"
answer = "Antwort"
headers = ["Frage"]
"""


@pytest.fixture
def bracket() -> SafeParser:
    return safe_parser("bracket", default_registry())


def test_it_runs_what_the_model_meant(bracket: SafeParser) -> None:
    out = bracket.decide("Thought: I check.\nAction: list_invoices[cus_8812, 2026-07-01]")
    assert isinstance(out, Executed)
    assert out.call.kwargs()["customer_id"] == "cus_8812"
    assert isinstance(bracket.decide('Thought: t\nAction: search["Paris, France"]'), Executed)
    assert bracket.decide("Thought: done\nAnswer: charged once") == Finished("charged once")


@pytest.mark.parametrize(("text", "kind"), [
    # what the classic regex loop gets wrong, refused with the reason
    ("Thought: t\nAction: search[Paris, France]", "extra-arg"),
    ("Thought: t\nAction: list_invoices[cus_8812, last July]", "malformed-arg"),
    ("Thought: t\nAction: list_invoices[cus_8812]", "missing-arg"),
    ("Thought: t\nAction: delete_everything[x]", "unknown-tool"),
    ("Thought: t\nAction: search[a]\nAction: search[b]", "unparseable"),
    ("Thought: t\nAction: search[a] and then more", "unparseable"),
])
def test_it_refuses_what_it_cannot_run_safely(bracket: SafeParser, text: str, kind: str) -> None:
    out = bracket.decide(text)
    assert isinstance(out, Rejected) and out.reason == kind, out
    step = bracket.parse(text)  # the Step says the same to any dispatcher
    assert step.invalid is not None
    assert reactfuzz.dispatch_positional(step, default_registry()).kind == "rejected"


def test_a_label_inside_a_thought_is_text(bracket: SafeParser) -> None:
    out = bracket.decide("Thought: the user said Answer: maybe\nAction: search[a]")
    assert isinstance(out, Executed) and out.call.tool == "search"
    step = bracket.parse("Thought: no action here, I mention Action: search[a] only")
    assert step.action is None


def test_tools_from_functions_a_json_file_and_a_toml_format(tmp_path: Path) -> None:
    def lookup(city: str, days: int = 1) -> str:
        """Look a city up."""
        return city

    p = safe_parser("json-args", [lookup])
    out = p.decide('Thought: t\nAction: lookup{"city": "Paris", "days": 2}')
    assert isinstance(out, Executed) and out.call.kwargs() == {"city": "Paris", "days": 2}
    assert p.decide('Thought: t\nAction: lookup{"city": "Paris", "days": "two"}').kind == \
        "rejected"
    spec = tmp_path / "tools.json"
    spec.write_text(json.dumps([{"name": "lookup", "description": "d", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}},
        "required": ["city"]}}]), encoding="utf-8")
    assert safe_parser("bracket", spec).decide("Thought: t\nAction: lookup[Oslo]").kind == \
        "executed"
    de = tmp_path / "de.toml"
    de.write_text(GERMAN, encoding="utf-8")
    p = safe_parser(str(de), default_registry())
    assert p.stop == ("Beobachtung:",)
    assert p.decide("Gedanke: t\nAktion: search[a]").kind == "executed"
    assert p.decide("Gedanke: t\nAction: search[a]").kind == "rejected"


# --------------------------------------------------------------------------------------
# reactfuzz fuzz on it, as a user target

TARGET = """import reactfuzz
parser = reactfuzz.safe_parser({fmt!r}, reactfuzz.default_registry())
"""


@pytest.fixture
def fuzz(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> Callable[..., dict]:
    """``reactfuzz fuzz --target MODULE:ATTR`` in a temporary folder; the JSON report."""
    monkeypatch.chdir(tmp_path)

    def run(module: str, source: str, fmt: str, *args: str) -> dict:
        (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
        report = tmp_path / f"{module}.json"
        code = main(["fuzz", "--target", f"{module}:parser", "--format", fmt, "--seed", "1",
                     "--no-corpus", "-q", "--json", str(report), *args])
        capsys.readouterr()
        data: dict = json.loads(report.read_text(encoding="utf-8"))
        assert code == (1 if data["findings"] else 0)
        return data

    return run


def _design(data: dict) -> list[str]:
    return [f"{f['check']} {f['abuse']}: {f['completion']!r}" for f in data["findings"]
            if f["cause"] == "design"]


def test_fuzz_finds_nothing_in_the_safe_parser(fuzz: Callable[..., dict]) -> None:
    data = fuzz("safe_bracket", TARGET.format(fmt="bracket"), "bracket",
                "--max-examples", "2", "--abuse", "injected.*")
    assert data["examples"] > 0 and _design(data) == []


@pytest.mark.slow
@pytest.mark.parametrize("fmt", [*BUILTIN_FORMATS, "german.toml"])
def test_fuzz_finds_no_design_fault_on_any_format(fuzz: Callable[..., dict], tmp_path: Path,
                                                  fmt: str) -> None:
    (tmp_path / "german.toml").write_text(GERMAN, encoding="utf-8")
    module = "safe_" + fmt.replace("-", "_").replace(".", "_")
    data = fuzz(module, TARGET.format(fmt=fmt), fmt, "--max-examples", "6")
    assert data["examples"] > 0 and _design(data) == []


# --------------------------------------------------------------------------------------
# A newcomer's path: a hand-written regex loop, its findings and their advice, the switch

REGEX_LOOP = r'''import re
from reactfuzz import Action, Step, Invalid

ACTION_RE = re.compile(r"Action:\s*(\w+)\[(.*)\]")


def parser(text):
    if "Answer:" in text:
        return Step(answer=text.split("Answer:", 1)[1].strip())
    m = ACTION_RE.search(text)
    if m is None:
        return Step(invalid=Invalid("unparseable", "no action"))
    return Step(action=Action(m.group(1), m.group(2)))
'''


@pytest.mark.slow
def test_a_newcomer_fuzzes_a_regex_loop_reads_the_advice_and_switches(
        fuzz: Callable[..., dict]) -> None:
    before = fuzz("my_agent", REGEX_LOOP, "bracket", "--max-examples", "10",
                  "--dispatcher", "positional")
    assert _design(before), "the regex loop has findings"
    advice = before["advice"]
    assert all(advice[f] and advice[f] != GENERIC for f in advice)
    assert len(advice) == len(before["findings"]) + len(before["protocol_notes"])
    after = fuzz("my_agent_safe", TARGET.format(fmt="bracket"), "bracket",
                 "--max-examples", "10")
    assert _design(after) == []
