"""The pythonic format (``[search(query="Paris")]``, Llama 3.2 / 4): it reads back what it
writes, refuses what is no list of keyword calls with literal values, decodes values
without running them, is picked by ``--format auto`` for a parser of it, and its classic
comma-splitting parser is caught."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from reactfuzz import Call, FinalAnswer, grammar_parse
from reactfuzz.cli import main
from reactfuzz.engine import FuzzConfig
from reactfuzz.engine.fit import choose_format
from reactfuzz.formats.pythonic import python_literal
from reactfuzz.render import render, representable, written_form

words = st.sampled_from(["a", "Paris, France", "it's", 'say "hi"', "x\ny", "\\", "a=b",
                         "[x]", "f(1)", "\u2028", "é", "🎉", "\t", ")]", "None"])
scalars = st.one_of(words, st.integers(-10**6, 10**6), st.booleans(), st.none(),
                    st.floats(allow_nan=False, allow_infinity=False))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(words, inner, max_size=3)), max_leaves=6)


@given(value=values)
def test_a_literal_reads_back_equal(value) -> None:
    import ast

    assert ast.literal_eval(python_literal(value)) == value


@st.composite
def intents(draw: st.DrawFn) -> Call | FinalAnswer:
    if draw(st.booleans()):
        return FinalAnswer(draw(st.lists(words, min_size=1, max_size=3).map(" ".join)))
    tool = draw(st.sampled_from(["search", "list_invoices", "f", "class"]))
    names = draw(st.lists(st.sampled_from(["query", "since", "to", "id", "lambda"]),
                          max_size=3, unique=True))
    return Call(tool, tuple(draw(values) for _ in names), tuple(names))


@given(intent=intents())
def test_it_reads_back_what_it_writes(intent) -> None:
    assume(representable(intent, "pythonic"))
    text = render(intent, "pythonic", thought="never written")
    step = grammar_parse(text, "pythonic")
    assert step.invalid is None, (text, step.invalid)
    assert step.intent() == written_form(intent, "pythonic"), text


@pytest.mark.parametrize(("text", "code"), [
    ('[search(query="a", query="b")]', "duplicate-arg"),
    ('[search("a")]', "malformed-action"),           # a positional argument
    ("[search(query=1+1)]", "malformed-action"),      # an expression, not a literal
    ("[search(query=__import__('os'))]", "malformed-action"),
    ('[search(query="a"', "malformed-action"),        # cut short
    ('[search(query="a")] thanks', "syntax"),          # text after the list
])
def test_what_the_grammar_refuses(text: str, code: str) -> None:
    step = grammar_parse(text, "pythonic")
    assert step.invalid is not None and step.invalid.code == code, step


def test_parallel_calls_the_first_runs_and_prose_is_the_answer() -> None:
    step = grammar_parse('[search(query="a"),\n  get_time(),]', "pythonic")
    assert step.action is not None and step.action.args == ("a",)
    prose = 'I would call [search(query="a")] next'
    assert grammar_parse(prose, "pythonic").answer == prose


PYTHONIC_AGENT = textwrap.dedent('''
    import ast

    def parse(text):
        """A Llama pythonic reader as a user writes it: ast on the whole text."""
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError:
            return ("final", text.strip())
        if not isinstance(tree.body, ast.List) or not tree.body.elts:
            return ("final", text.strip())
        call = tree.body.elts[0]
        args = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        return ("action", (call.func.id, args))
''')


def test_format_auto_picks_pythonic_for_a_parser_of_it(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "llama_agent.py").write_text(PYTHONIC_AGENT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    choice = choose_format(FuzzConfig(targets=["llama_agent:parse"], format="auto"))
    assert choice.format == "pythonic", choice.explain()


@pytest.mark.slow  # two fuzz runs
def test_the_grammar_passes_and_the_classic_parser_is_caught(capsys) -> None:
    ops = ["--abuse", "clean.render", "--abuse", "injected.delimiter"]
    base = ["fuzz", "--format", "pythonic", "--seed", "1", "--no-corpus", "--quiet", *ops]
    assert main([*base, "--parser", "grammar"]) == 0, capsys.readouterr().out
    assert main([*base, "--parser", "classic-pythonic"]) == 1
    assert "wrong-call" in capsys.readouterr().out


@given(body=st.lists(st.sampled_from(["a", "\\", "x4", "N{nosuchname}", "N{BULLET}", "u12",
                                       "U0011FFFF", "\x00", "'", '"', "\n", "0", "ud800"]),
                     max_size=6).map("".join))
def test_the_grammar_never_raises_on_a_string_python_cannot_read(body: str) -> None:
    """A literal the grammar's terminal admits but Python refuses (a NUL, a bad escape, a
    code point past U+10FFFF) is an invalid step, never an exception (the peer harness
    met a NUL first)."""
    step = grammar_parse(f'[search(query="{body}")]', "pythonic")
    assert step.action is not None or step.invalid is not None
