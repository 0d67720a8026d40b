"""The zoo frameworks' own agent loops under `reactfuzz loop` (docs/zoo.md, "The loops"):
each triaged defect is found again, and qwen-agent, which sends its stop words, gets no
stop-sequence finding. Skipped where the framework is not installed (`pip install -e
'.[zoo]'`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from reactfuzz.agentloop import LoopConfig, run_loop

ROOT = Path(__file__).resolve().parent.parent

# module, framework package, format, kinds to run, (check, failure) each must find,
# checks each must not fail
CASES = [
    ("lagent_react", "lagent", "zoo/formats/lagent-react.toml",
     ["loop.both-roles", "json.label-in-string"],
     {("loop-stop-sequence", "believed-a-made-up-observation"),
      ("loop-answer", "answered-for-the-model")}, set()),
    ("qwen_agent_react", "qwen_agent", "zoo/formats/qwen-react.toml",
     ["loop.both-roles", "prose.opens-with-stop"],
     {("loop-no-crash", "IndexError")}, {"loop-stop-sequence"}),
    ("dspy_react", "dspy", "dspy-react",
     ["loop.length-cut", "injected.unicode-line-break", "names.unknown"],
     {("loop-length-cut", "ran-a-cut-call"), ("loop-tool-call", "wrong-call-another-tool"),
      ("loop-no-crash", "AdapterParseError")}, set()),
]


@pytest.mark.slow
@pytest.mark.parametrize(("module", "package", "fmt", "kinds", "found", "clean"), CASES,
                         ids=[c[0] for c in CASES])
def test_a_zoo_loop_shows_its_triaged_defects(
        module: str, package: str, fmt: str, kinds: list[str], found: set[tuple[str, str]],
        clean: set[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed (pip install -e '.[zoo]')")
    monkeypatch.chdir(tmp_path)  # frameworks that write a workspace write it here
    monkeypatch.syspath_prepend(str(ROOT))
    fmt_path = str(ROOT / fmt) if fmt.endswith(".toml") else fmt
    summary = run_loop(LoopConfig(target=f"zoo.loops.{module}:run", format=fmt_path,
                                  kinds=kinds, max_examples=10, seed=1, corpus=None,
                                  cwd=str(ROOT)))
    got = {(f.check, f.failure) for f in summary.findings}
    assert found <= got, got
    assert not {c for c, _ in got} & clean, got
