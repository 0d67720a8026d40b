"""The XML call formats: ``xml-invoke`` (``<invoke name><parameter name>``),
``xml-function`` (``<function=T><parameter=k>``) and ``xml-tags`` (the tool's name as
the tag). Each reads back what it writes, refuses what it cannot tell apart, can be
renamed or unwrapped from TOML, is picked by ``--format auto`` for a parser of it, and
its classic parser is caught."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from reactfuzz import Call, FinalAnswer, grammar_parse
from reactfuzz.cli import main
from reactfuzz.engine import FuzzConfig
from reactfuzz.engine.fit import choose_format, probe_format
from reactfuzz.errors import FormatError
from reactfuzz.formats import load_format
from reactfuzz.render import render, representable, written_form
from reactfuzz.targets import load_target
from reactfuzz.tools import default_registry

XML = ["xml-invoke", "xml-function", "xml-tags"]

words = st.sampled_from(["a", "Paris, France", "</parameter>", "<think>", "x\ny", "\n",
                         'say "hi"', "a < b", "it's", "{}", "\\", "\u2028", "Observation:",
                         "<query>", "</search>", " padded ", "\r"])
values = st.one_of(words, st.lists(words, max_size=3).map("".join), st.integers(-100, 100),
                   st.booleans())


@st.composite
def intents(draw: st.DrawFn) -> Call | FinalAnswer:
    if draw(st.booleans()):
        return FinalAnswer(draw(st.lists(words, min_size=1, max_size=3).map(" ".join)))
    tool = draw(st.sampled_from(["search", "list_invoices", "f", "think"]))
    n = draw(st.integers(0, 3))
    names = draw(st.lists(st.sampled_from(["query", "since", "to", "id"]), min_size=n,
                          max_size=n, unique=True))
    return Call(tool, tuple(draw(values) for _ in range(n)), tuple(names))


@given(intent=intents(), fmt=st.sampled_from(XML),
       thought=st.one_of(st.none(), st.sampled_from(["look it up", "no <invoke yet"])))
def test_each_reads_back_what_it_writes(intent, fmt, thought) -> None:
    """representable(i) => grammar_parse(render(i)).intent() == written_form(i)."""
    assume(representable(intent, fmt))
    text = render(intent, fmt, thought=thought)
    step = grammar_parse(text, fmt)
    assert step.invalid is None, (text, step.invalid)
    assert step.intent() == written_form(intent, fmt), text


def test_the_writers_follow_the_models_templates() -> None:
    call = Call.named("search", query="a, b", limit=3)
    assert render(call, "xml-invoke") == (
        '<minimax:tool_call>\n<invoke name="search">\n<parameter name="query">a, b</parameter>\n'
        '<parameter name="limit">3</parameter>\n</invoke>\n</minimax:tool_call>')
    assert render(call, "xml-function") == (
        "<tool_call>\n<function=search>\n<parameter=query>\na, b\n</parameter>\n"
        "<parameter=limit>\n3\n</parameter>\n</function>\n</tool_call>")
    assert render(call, "xml-tags") == "<search>\n<query>a, b</query>\n<limit>3</limit>\n</search>"
    assert render(FinalAnswer("done"), "xml-invoke", thought="t") == "done"


INVOKE = '<minimax:tool_call>\n<invoke name="search">\n{}\n</invoke>\n</minimax:tool_call>'


@pytest.mark.parametrize(("fmt", "text", "expected"), [
    # one line break at each edge of a value is layout, more is the value's
    ("xml-invoke", INVOKE.format('<parameter name="q">\nx\n</parameter>'), ("x",)),
    ("xml-invoke", INVOKE.format('<parameter name="q">\n\nx</parameter>'), ("\nx",)),
    ("xml-function", "<tool_call>\n<function=s>\n<parameter=q>\r\nx\r\n</parameter>\n"
                     "</function>\n</tool_call>", ("x",)),
    # parallel calls in one wrapper: the first runs
    ("xml-invoke", INVOKE.format('<parameter name="q">1</parameter>\n</invoke>\n'
                                 '<invoke name="delete_file">'), ("1",)),
    # no parameters, and an empty value
    ("xml-tags", "<search>\n</search>", ()),
    ("xml-tags", "<search><q></q></search>", ("",)),
])
def test_values_and_calls_as_the_grammar_reads_them(fmt: str, text: str, expected) -> None:
    step = grammar_parse(text, fmt)
    assert step.action is not None, step.invalid
    assert step.action.args == expected


@pytest.mark.parametrize(("fmt", "text", "code"), [
    # a parameter given twice: which one runs is not the text's to say
    ("xml-invoke", INVOKE.format('<parameter name="q">1</parameter><parameter name="q">2'
                                 "</parameter>"), "duplicate-arg"),
    # the element style closes each tag by its own name
    ("xml-tags", "<search>\n<q>1</p>\n</search>", "malformed-arg"),
    ("xml-tags", "<search>\n<q>1</q>\n</find>", "malformed-action"),
    # a call outside the wrapper, text after the call, an unclosed call
    ("xml-invoke", '<invoke name="search"><parameter name="q">1</parameter></invoke>', "syntax"),
    ("xml-invoke", INVOKE.format("") + " and then", "syntax"),
    ("xml-invoke", '<minimax:tool_call>\n<invoke name="search">\n', "malformed-action"),
    # text between parameters is no parameter
    ("xml-function", "<tool_call>\n<function=s>\nhello\n</function>\n</tool_call>",
     "malformed-action"),
    # a think block is not a call of a tool named think
    ("xml-tags", "hello\n<think>\n<q>1</q>\n</think>", "syntax"),
])
def test_what_the_grammar_refuses(fmt: str, text: str, code: str) -> None:
    step = grammar_parse(text, fmt)
    assert step.invalid is not None and step.invalid.code == code, step


def test_a_call_mid_line_or_in_a_think_block_is_text() -> None:
    think = '<think>\nmaybe <minimax:tool_call><invoke name="x"></invoke></minimax:tool_call>\n</think>\nno'
    assert grammar_parse(think, "xml-invoke").answer == "no"
    inline = 'I would write <minimax:tool_call> here'
    assert grammar_parse(inline, "xml-invoke").answer == inline


def test_toml_renames_the_wrapper_and_unwraps(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    path.write_text('base = "xml-invoke"\nname = "fc"\ntag = "function_calls"\n')
    fmt = load_format(path)
    text = render(Call.named("search", query="a"), fmt)
    assert text.startswith("<function_calls>\n<invoke") and grammar_parse(text, fmt).action
    path.write_text('base = "xml-invoke"\nname = "bare"\nwrapped = false\n')
    bare = load_format(path)
    text = render(Call.named("search", query="a"), bare)
    assert text.startswith('<invoke name="search">')
    assert grammar_parse(text, bare).action is not None
    path.write_text('base = "bracket"\nname = "b"\nxml_style = "element"\n')
    with pytest.raises(FormatError, match="'xml_style' is read only by the xml family"):
        load_format(path)
    path.write_text('base = "xml-invoke"\nname = "b"\ntag = "a:b:c"\n')
    with pytest.raises(FormatError, match="at most one ':'"):
        load_format(path)


def test_format_auto_picks_xml_invoke_for_a_parser_of_it(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # the parser as a user's module in their own folder
    source = Path(__file__).with_name("xmlagent.py").read_text(encoding="utf-8")
    (tmp_path / "xmlagent.py").write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    reg = default_registry()
    target = load_target("xmlagent:parse")
    fit = probe_format(target, "xml-invoke", reg, "typed")
    assert fit.calls >= 8 and fit.calls_read == fit.calls
    assert fit.answers >= 4 and fit.answers_read == fit.answers
    choice = choose_format(FuzzConfig(targets=["xmlagent:parse"], format="auto"))
    assert choice.format == "xml-invoke", choice.explain()


def _fuzz(capsys, *args: str) -> tuple[int, str]:
    code = main(["fuzz", *args, "--seed", "1", "--no-corpus", "--quiet"])
    return code, capsys.readouterr().out


@pytest.mark.slow  # three fuzz runs of three operators each
@pytest.mark.parametrize("fmt", XML)
def test_the_grammar_passes_and_the_classic_parser_is_caught(capsys, fmt: str) -> None:
    ops = ["--abuse", "clean.render", "--abuse", "injected.action-in-thought",
           "--abuse", "injected.second-action"]
    code, out = _fuzz(capsys, "--parser", "grammar", "--format", fmt, *ops)
    assert code == 0, out
    code, out = _fuzz(capsys, "--parser", f"classic-{fmt}", "--format", fmt, *ops)
    assert code == 1 and "wrong-call" in out, out
