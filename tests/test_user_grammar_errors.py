"""A user's grammar speaks in its own words: compile errors name its rules and terminals
(not Lark's reprs), and a completion its grammar refuses lists what the user's grammar
expected, its own terminals included."""

from __future__ import annotations

from pathlib import Path

import pytest

from reactfuzz.errors import FormatError
from reactfuzz.formats import load_format
from reactfuzz.formats.grammars import grammar_dir, grammar_parse

SEMICOLONS = {  # the bracket grammar with ';' between arguments, a terminal of its own
    "(COMMA arg)*": "(ARGSEP arg)*",
    'COMMA: ","': 'ARGSEP: ";"',
    '[^,\\[\\]\\n]+': '[^;\\[\\]\\n]+',
}


def _format(tmp_path: Path, name: str, edits: dict[str, str]):  # type: ignore[no-untyped-def]
    text = (grammar_dir() / "bracket.lark").read_text(encoding="utf-8")
    for old, new in edits.items():
        assert old in text, old
        text = text.replace(old, new)
    (tmp_path / f"{name}.lark").write_text(text, encoding="utf-8")
    toml = tmp_path / f"{name}.toml"
    toml.write_text(f'name = "{name}"\nbase = "bracket"\ngrammar = "{name}.lark"\n',
                    encoding="utf-8")
    return load_format(str(toml))


def test_a_refusal_lists_the_users_own_terminal_as_written(tmp_path: Path) -> None:
    fmt = _format(tmp_path, "semi", SEMICOLONS)
    assert grammar_parse("Thought: x\nAction: search[a; b]\n", fmt).action is not None
    step = grammar_parse("Thought: x\nAction: search[a; b\n", fmt)
    assert step.invalid is not None
    assert set(step.invalid.expected) == {"';'", "']'"}  # not 'argsep', not 'comma'


def _compile_error(tmp_path: Path, name: str, edits: dict[str, str]) -> str:
    with pytest.raises(FormatError) as e:  # when the format file is read
        _format(tmp_path, name, {**SEMICOLONS, **edits})
    return str(e.value)


def test_an_undefined_terminal_is_called_a_terminal(tmp_path: Path) -> None:
    said = _compile_error(tmp_path, "noterm", {'ARGSEP: ";"': ""})
    assert "terminal 'ARGSEP' used but not defined (in rule action)" in said
    assert "needs the rules 'completion'" not in said  # that hint is for those rules


def test_a_conflict_names_the_users_two_rules(tmp_path: Path) -> None:
    said = _compile_error(tmp_path, "clash", {"arg: (BARE | QUOTED)?":
                                             "arg: (BARE | QUOTED)? | extra\nextra: BARE?"})
    assert "Reduce/Reduce conflict before terminal" in said
    assert "'extra'" in said and "'arg'" in said
    assert "Terminal(" not in said and "NonTerminal(" not in said


def test_a_missing_entry_point_keeps_its_hint(tmp_path: Path) -> None:
    said = _compile_error(tmp_path, "noentry", {"transcript: _EOL* header* _exchange* final?":
                                                "history: _EOL* header* _exchange* final?"})
    assert "'transcript'" in said and "needs the rules 'completion' and 'transcript'" in said
