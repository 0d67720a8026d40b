"""answer_scope = "message": a client that hands over the whole message as the answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from reactfuzz.dispatch import Finished
from reactfuzz.formats import load_format
from reactfuzz.model import Call, FinalAnswer
from reactfuzz.oracle import STRICT, judge, oracle
from reactfuzz.render import render
from reactfuzz.tools import default_registry

REG = default_registry()


def _fmt(tmp_path: Path, scope: str) -> object:
    path = tmp_path / f"{scope}.toml"
    path.write_text(f'name = "trace-{scope}"\nbase = "action-input-json"\n'
                    f'answer_scope = "{scope}"\n')
    return load_format(str(path))


@pytest.mark.parametrize("scope, ok", [("message", True), ("text", False)])
def test_the_whole_message_is_the_answer_only_where_the_format_says_so(
        tmp_path: Path, scope: str, ok: bool) -> None:
    fmt = _fmt(tmp_path, scope)
    intent = FinalAnswer("the refund is on its way")
    text = render(intent, fmt, thought="I know it")
    acceptable = oracle(intent, fmt, REG, STRICT)
    verdict = judge(Finished(text), acceptable, REG, completion=text, fmt=fmt)
    assert verdict.ok is ok


def test_a_whole_message_that_meant_an_action_is_still_a_hijacked_answer(tmp_path: Path) -> None:
    fmt = _fmt(tmp_path, "message")
    intent = Call.named("search", query="refunds")
    text = render(intent, fmt, thought="look it up").rsplit("\n", 1)[0]  # input line lost
    acceptable = oracle(intent, fmt, REG, STRICT)
    verdict = judge(Finished(text), acceptable, REG, completion=text, fmt=fmt)
    assert verdict.kind == "hijacked-answer"


def test_answer_scope_is_checked(tmp_path: Path) -> None:
    from reactfuzz.errors import FormatError

    path = tmp_path / "bad.toml"
    path.write_text('name = "bad"\nbase = "action-input-json"\nanswer_scope = "all"\n')
    with pytest.raises(FormatError):
        load_format(str(path))


@pytest.mark.slow
def test_roundtrip_accepts_the_whole_message_only_in_message_scope(tmp_path: Path) -> None:
    from reactfuzz.engine import FuzzConfig, run_fuzz

    for scope, clean_failures in (("message", 0), ("text", 1)):
        _fmt(tmp_path, scope)
        module = tmp_path / f"trace_{scope}.py"
        module.write_text(
            "def parse(text):\n"
            "    if '\\nAction:' in '\\n' + text:\n"
            "        raise ValueError('no actions in this test')\n"
            "    return ('final', text)\n")
        result = run_fuzz(FuzzConfig(
            targets=[f"trace_{scope}:parse"], format=str(tmp_path / f"{scope}.toml"),
            abuses=["clean.render"], max_examples=8, seed=1, cwd=str(tmp_path),
            format_fit=False, replay_corpus=False))
        fails = [f for f in result.findings if f.abuse == "clean.render"
                 and f.check in ("roundtrip", "no-hijacked-answer")]
        assert bool(fails) is bool(clean_failures), (scope, fails)
