"""What an operator, a check and a format family are is declared where each is registered.

A new operator or a new check is one file: registered from one module, with its advice,
severity, kinds and whether exploration runs it, it runs, is advised and is listed and
documented wherever the project enumerates operators and checks, with no other edit. A
new format family is at most three files: its module (with its classic parser's design
and its advice), its grammar and its classic parser.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from reactfuzz.engine.advice import advice_for, advice_source
from reactfuzz.engine.checks import CHECKS, CheckInput, Failure, check, fast_checks
from reactfuzz.engine.config import FuzzConfig
from reactfuzz.engine.explore import ExploreConfig, explore
from reactfuzz.engine.run import run_fuzz
from reactfuzz.strategies import ABUSES

ROOT = Path(__file__).resolve().parent.parent

PLUGIN = '''
"""One module: an operator and a check, each with everything it is."""

from reactfuzz.engine.checks import CheckInput, Failure, check
from reactfuzz.dispatch import Executed
from reactfuzz.strategies import Advice, Writing, register_abuse


@register_abuse(
    "plugin.search-call", family="plugin",
    description="a clean call of the search tool",
    why="a demo: the plugin check refuses every search",
    expects="the intended call",
    breaks_none_because="every design reads a clean call",
    advice=Advice("Plugin: fix the misreading.", "Plugin: read what the format carries.",
                  checks={"plugin-no-search": "Plugin: never run search."}),
)
def _search_call(ctx):
    intent = ctx.call(lambda t: t.name == "search")
    return Writing(intent, ctx.render(intent))


@check("plugin-no-search", "a demo check: search never runs", kinds=("ran-search",),
       severity="low", advice="Plugin check: search is not allowed.", fast=True)
def _no_search(inp: CheckInput):
    if isinstance(inp.outcome, Executed) and inp.outcome.call.tool == "search":
        return Failure("ran-search", "search ran")
    return None
'''


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "one_file_plugin.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("one_file_plugin")
    try:
        yield
    finally:
        ABUSES.remove("plugin.search-call")
        CHECKS.remove("plugin-no-search")
        sys.modules.pop("one_file_plugin", None)


@pytest.mark.usefixtures("plugin")
def test_an_operator_and_a_check_from_one_module_run_and_are_advised() -> None:
    run = run_fuzz(FuzzConfig(targets=["classic-bracket"], format="bracket", seed=3,
                              max_examples=10, corpus=None, abuses=["plugin.search-call"],
                              checks=["plugin-no-search", "no-crash"]))
    (found,) = run.findings
    assert (found.check, found.failure, found.abuse) == (
        "plugin-no-search", "ran-search", "plugin.search-call")
    assert found.severity == "low"  # declared at check(), not in the Failure
    assert advice_for(found) == "Plugin: never run search."  # the operator's, for this check
    # the check's own advice on other operators, the operator's on built-in checks
    assert advice_source("plugin-no-search", "ran-search", "clean.render") == (
        "check", "Plugin check: search is not allowed.")
    assert advice("no-wrong-call", "wrong-call", "plugin.search-call") == \
        "Plugin: fix the misreading."
    assert advice("no-silent-drop", "silent-drop", "plugin.search-call") == \
        "Plugin: read what the format carries."


def advice(check_id: str, kind: str, abuse: str) -> str:
    return advice_source(check_id, kind, abuse)[1]


@pytest.mark.usefixtures("plugin")
def test_a_check_registered_fast_runs_in_the_exploration() -> None:
    assert "plugin-no-search" in fast_checks()
    result = explore(ExploreConfig(target="classic-bracket", abuses=["plugin.search-call"],
                                   checks=["plugin-no-search"], scenarios=60, seed=1))
    assert {(f.check, f.abuse) for f in result.findings} == {
        ("plugin-no-search", "plugin.search-call")}


@pytest.mark.usefixtures("plugin")
def test_an_operator_and_a_check_from_one_module_are_listed_and_documented(
        capsys: pytest.CaptureFixture[str]) -> None:
    from reactfuzz.cli import main
    from reactfuzz.docgen import BLOCKS

    assert main(["abuses"]) == 0
    assert "plugin.search-call  " in capsys.readouterr().out
    assert main(["checks"]) == 0
    assert "plugin-no-search  " in capsys.readouterr().out
    listed = BLOCKS["docs/cli.md"]["checks-list"]()
    assert "plugin-no-search" in listed
    table = BLOCKS["docs/custom-checks.md"]["check-table"]()
    assert "| `plugin-no-search` | `ran-search` (low) | yes | yes |" in table
    catalogue = BLOCKS["docs/abuses.md"]["catalogue"]()
    assert "| `plugin.search-call` | a clean call of the search tool |" in catalogue


def test_a_check_registered_without_the_new_keywords_keeps_its_old_defaults() -> None:
    @check("plugin-plain", "a check as plugins wrote them before")
    def _plain(inp: CheckInput) -> Failure | None:
        return Failure("plain", "always")

    try:
        registered = CHECKS["plugin-plain"]
        assert (registered.kinds, registered.advice, registered.fast) == ((), "", False)
        assert "plugin-plain" not in fast_checks()
        failure = registered(None)  # type: ignore[arg-type]
        assert failure is not None and failure.severity == "high"
        # no advice of its own: the operator's, then the family's
        assert advice_source("plugin-plain", "plain", "injected.delimiter",
                             family="bracket")[0] == "family"
    finally:
        CHECKS.remove("plugin-plain")


# --- a format family: three files -------------------------------------------------------

FAMILY = '''
"""A demo family: the bracket protocol under another syntax name."""

from ..fixes import ANCHOR
from .bracket import BracketFamily
from .family import register_family
from .spec import Format, Labels


class ShoutFamily(BracketFamily):
    name = "shout"
    syntax = "shout"
    arguments = "comma"
    grammar_file = "shout.lark"
    advice = ANCHOR
    classic = {"shout": "the bracket regex, unchanged"}

    def builtin_formats(self):
        return (Format(name="shout", description="bracket, shouted", notes="a demo",
                       syntax="shout", arguments="comma", labels=Labels()),)


SHOUT = register_family(ShoutFamily())
'''

PARSER = '''
"""The demo family's classic parser."""

from . import ClassicBracketParser, register_parser


@register_parser("classic-shout", "the bracket regex on the shout format")
def _classic_shout(fmt):
    return ClassicBracketParser(fmt)
'''

PROBE = '''
from reactfuzz.designs import BUILTIN_DESIGNS
from reactfuzz.engine.advice import advice_source
from reactfuzz.fixes import ANCHOR
from reactfuzz.formats import BUILTIN_FORMATS, FAMILIES
from reactfuzz.tools import default_registry

assert list(FAMILIES)[-1] == "shout" and list(BUILTIN_FORMATS)[-1] == "shout"
classic, grammar = BUILTIN_DESIGNS["classic-shout"], BUILTIN_DESIGNS["grammar-shout"]
assert (classic.parser, classic.dispatcher) == ("classic-shout", "positional")
text = "Thought: a\\nAction: search[Paris]"
for design in (classic, grammar):
    step, outcome = design.run(text, default_registry())
    assert outcome.kind == "executed", (design.name, outcome)
assert advice_source("my-check", "mine", "mine.odd", family="shout") == ("family", ANCHOR)
print("ok")
'''


@pytest.mark.skipif(not (ROOT / "grammars").is_dir(), reason="needs a checkout")
def test_a_new_family_is_three_files(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "reactfuzz", src / "reactfuzz",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "grammars", tmp_path / "grammars")
    # the three files, and nothing else edited
    (src / "reactfuzz" / "formats" / "shout.py").write_text(FAMILY, encoding="utf-8")
    shutil.copy(ROOT / "grammars" / "bracket.lark", tmp_path / "grammars" / "shout.lark")
    (src / "reactfuzz" / "parsers" / "classic_shout.py").write_text(PARSER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(PROBE)], env=env,
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"
