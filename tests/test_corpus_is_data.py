"""A corpus is data: replaying one never imports or runs the code a file names."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from reactfuzz.cli import main
from reactfuzz.engine import FuzzConfig, run_fuzz
from reactfuzz.engine.replay import is_code_reference, replay_corpus

ROOT = Path(__file__).resolve().parents[1]
A_FINDING = ROOT / "fuzz_corpus" / "no-crash-extra.positional-8941da71f324aa7a.json"


def _hostile_corpus(tmp_path: Path, **fields: str) -> tuple[Path, Path]:
    """A copy of a real finding whose fields name a module that leaves a mark if imported."""
    marker = tmp_path / "imported"
    (tmp_path / "evil_mod.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n"
        "def parse(text):\n    return ('final', 'x')\n"
        "TOOLS = []\n"
    )
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    data = json.loads(A_FINDING.read_text())
    data.update(fields)
    (corpus / A_FINDING.name).write_text(json.dumps(data))
    return corpus, marker


def test_code_references_are_told_from_data() -> None:
    assert not is_code_reference("classic-bracket")
    assert not is_code_reference("regex:Action: (?P<tool>\\w+)")
    assert is_code_reference("os:system") and is_code_reference("evil_mod:parse")
    assert not is_code_reference("default", tools=True)
    assert not is_code_reference("tools.json", tools=True)
    assert is_code_reference("evil_mod:TOOLS", tools=True)


def test_replay_skips_a_file_naming_a_module(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for fields in ({"target": "evil_mod:parse"}, {"tools": "evil_mod:TOOLS"},
                   {"target": "os:system"}):
        corpus, marker = _hostile_corpus(tmp_path, **fields)
        done = replay_corpus([corpus], cwd=str(tmp_path))
        assert done.results == [] and len(done.skipped) == 1, fields
        assert not marker.exists(), fields
        shutil.rmtree(corpus)


def test_replay_cli_reports_the_skip_and_trust_is_explicit(tmp_path: Path, monkeypatch,
                                                           capsys) -> None:
    monkeypatch.chdir(tmp_path)
    corpus, marker = _hostile_corpus(tmp_path, target="os:system")
    assert main(["replay", str(corpus)]) == 0
    err = capsys.readouterr().err
    assert "skipped 1 finding(s) whose file names code" in err and "--trust-corpus" in err
    assert not marker.exists()
    # naming a target on the command line replays the same finding against it (exit 1:
    # the finding still reproduces)
    assert main(["replay", str(corpus), "--target", "classic-bracket"]) == 1
    assert "1 of 1 findings reproduce against classic-bracket" in capsys.readouterr().out


def test_fuzz_never_loads_a_corpus_file_of_another_target(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    corpus, marker = _hostile_corpus(tmp_path, target="evil_mod:parse")
    summary = run_fuzz(FuzzConfig(targets=["classic-bracket"], seed=1, max_examples=5,
                                  abuses=["clean.render"], corpus=str(corpus),
                                  cwd=str(tmp_path)))
    assert summary.replayed == 0
    assert not marker.exists()


def test_a_plugin_check_finding_is_counted_by_fuzz_and_replayed_with_its_plugin(
        tmp_path: Path, monkeypatch, capsys) -> None:
    """A shared corpus may hold findings of a plugin's check: fuzz skips and counts them,
    replay names the file and asks for --plugin, and replays them once it is loaded."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    corpus, _ = _hostile_corpus(tmp_path, check="team-plugin-check")
    summary = run_fuzz(FuzzConfig(targets=["classic-bracket"], seed=1, max_examples=5,
                                  abuses=["clean.render"], corpus=str(corpus),
                                  cwd=str(tmp_path)))
    assert summary.replayed == 0 and summary.replay_skipped == 1
    assert main(["replay", str(corpus)]) == 2
    err = capsys.readouterr().err
    assert "team-plugin-check" in err and "--plugin" in err and err.count("\n") == 1
    (tmp_path / "team_plugin.py").write_text(
        "from reactfuzz.engine.checks import CHECKS, check\n"
        "if 'team-plugin-check' not in CHECKS:\n"
        "    check('team-plugin-check', 'a team check')(lambda inp: None)\n")
    from reactfuzz.engine.checks import CHECKS

    try:
        assert main(["replay", str(corpus), "--plugin", "team_plugin"]) == 0
        out = capsys.readouterr().out
        assert "[team-plugin-check/" in out  # replayed (its check never fails: FIXED)
    finally:
        if "team-plugin-check" in CHECKS:
            CHECKS.remove("team-plugin-check")
