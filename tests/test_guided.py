"""Guided exploration: the path a parse takes through the target's code steers the search.

``tests/mazeagent.py`` hides a wrong call three conditions deep in its thought handling.
Unguided exploration, which mutates the pool's bases afresh each time, does not reach it
(nor at ten times the budget, measured: docs/long-campaigns.md); guided exploration keeps
each mutation that reached a new line and adds to it, and does. The coverage it reports
counts the target's own lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reactfuzz.cli import main
from reactfuzz.engine.coverage import Coverage, executable_lines
from reactfuzz.engine.explore import ExploreConfig, ExploreResult, explore

MAZE = Path(__file__).with_name("mazeagent.py")
DEEP = "\u202e"  # the third piece the buggy branch needs


@pytest.fixture
def maze(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The maze parser as a user's module in their own folder."""
    (tmp_path / "mazeagent.py").write_text(MAZE.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _explore(folder: Path, *, guided: bool) -> ExploreResult:
    return explore(ExploreConfig(target="mazeagent:parse", format="bracket", seed=0,
                                 scenarios=2000, abuses=["clean.render"], guided=guided,
                                 cwd=str(folder)))


def test_guided_exploration_reaches_a_branch_unguided_does_not(maze: Path) -> None:
    plain = _explore(maze, guided=False)
    guided = _explore(maze, guided=True)
    assert not any(DEEP in f.completion for f in plain.findings)
    deep = [f for f in guided.findings if DEEP in f.completion]
    assert deep  # a wrong call, or a call of delete_file refused: either way, reached
    # the finding reproduces from its completion alone, shrunk to the pieces it needs
    text = deep[0].completion
    assert text.index("[INST]") < text.index("```") < text.index(DEEP)
    assert guided.favoured >= 3  # one kept mutation per new branch at least
    assert guided.lines_reached > 0 and guided.lines_total >= guided.lines_reached
    assert "of the target's code in 1 file" in guided.coverage
    assert plain.coverage == "" and plain.lines_reached == 0  # unguided traces nothing


def test_coverage_counts_lines_and_finds_files_again(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("def f(x):\n    if x:\n        return 1\n    return 2\n", encoding="utf-8")
    assert executable_lines(str(src)) >= {1, 2, 3, 4}
    cov = Coverage()
    assert cov.add([("m.py", 2), ("m.py", 3)]) == 2
    assert cov.add([("m.py", 3)]) == 0
    reached, total = cov.totals(str(tmp_path))
    assert reached == 2 and total >= 4
    assert cov.describe(str(tmp_path)).startswith("2/")
    assert Coverage().describe() == "no line of the target's own Python code was traced"


def test_guided_needs_explore_and_prints_the_coverage(maze: Path, capsys) -> None:
    base = ["fuzz", "--target", "mazeagent:parse", "--abuse", "clean.render", "--no-corpus",
            "--seed", "0"]
    assert main([*base, "--guided"]) == 2
    assert "add --explore N" in capsys.readouterr().err
    main([*base, "--explore", "300", "--guided", "--quiet"])
    out = capsys.readouterr().out
    assert "guided:" in out and "of the target's code" in out
