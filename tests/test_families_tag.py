"""Tag protocols, the unnumbered single-argument bracket, and template formats.

The built-ins ``tool-call`` (``<tool_call>{"name", "arguments"}</tool_call>``),
``function-tag`` (``<function=NAME>{...}</function>``) and ``react-single``
(``Action: Search[x]``, ``Finish[answer]``), and a user format written from templates
and read by its own grammar: each reads back what it writes, its clean renderings pass
the grammar parser, and a broken parser of it is caught.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from reactfuzz import Call, FinalAnswer, grammar_parse
from reactfuzz.cli import main
from reactfuzz.errors import FormatError, GrammarError
from reactfuzz.formats import Format, load_format
from reactfuzz.render import render, representable, written_form
from reactfuzz.targets import grammar_target

NEW = ["tool-call", "function-tag", "react-single"]

# --------------------------------------------------------------------------- a template format

GRAMMAR = r"""
// Thought: / Action: tool / Action Input: {"json": "object"} / Final Answer: text
completion: _EOL* preamble? thought* (action | answer)
transcript: _EOL* header* _exchange* final?
_exchange: thought | action observation
final: action | answer

preamble: CONT _EOL _cont* _EOL*
header: HEADER _value
thought: THOUGHT _value
observation: OBSERVATION _value
answer: ANSWER _SP? TEXT _EOL _EOL*
action: ACTION _SP? TOOL _EOL ACTION_INPUT _SP? ARGS _EOL _EOL*

_value: TEXT? _EOL _cont* _EOL*
_cont: CONT _EOL

TOOL: /\w+/
ARGS: /\{[^\n]*\}/

THOUGHT.3: /Thought:/
ACTION.3: /Action:/
ACTION_INPUT.3: /Action Input:/
OBSERVATION.3: /Observation:/
ANSWER.3: /Final Answer:/
HEADER.3: /Question:/
CONT: /(?!Thought:|Action:|Action Input:|Observation:|Final Answer:|Question:)[^\n]+/

%import lines (TEXT, _EOL, _SP)
"""

TOML = """\
name = "mine"
syntax = "template"
arguments = "json"
grammar = "mine.lark"
action_template = "Action: {tool}\\nAction Input: {arguments_json}"
answer_template = "Final Answer: {answer}"
stop = ["\\nObservation:"]

[labels]
action_input = "Action Input"
answer = "Final Answer"
"""


@pytest.fixture
def mine(tmp_path: Path) -> Path:
    (tmp_path / "mine.lark").write_text(GRAMMAR)
    path = tmp_path / "mine.toml"
    path.write_text(TOML)
    return path


# --------------------------------------------------------------------------- round trip

words = st.sampled_from(["a", "Paris", "Paris, France", "</tool_call>", "<think>", "x\ny",
                         "Action: s[x]", "it's", "{}", '"q"', "\\", "\u2028", "Observation:"])
values = st.one_of(words, st.lists(words, max_size=3).map(" ".join),
                   st.integers(-100, 100), st.booleans())


@st.composite
def intents(draw: st.DrawFn) -> Call | FinalAnswer:
    if draw(st.booleans()):
        return FinalAnswer(draw(st.lists(words, min_size=1, max_size=3).map(" ".join)))
    tool = draw(st.sampled_from(["search", "list_invoices", "Finish", "f"]))
    n = draw(st.integers(0, 3))
    args = tuple(draw(values) for _ in range(n))
    if draw(st.booleans()):
        names = draw(st.lists(st.sampled_from(["query", "since", "to", "id"]),
                              min_size=n, max_size=n, unique=True))
        return Call(tool, args, tuple(names))
    return Call(tool, args)


@given(intent=intents(), fmt=st.sampled_from(NEW),
       thought=st.one_of(st.none(), st.sampled_from(["look it up", "no <tool_call> yet"])))
def test_new_builtins_read_back_what_they_write(intent, fmt, thought) -> None:
    """representable(i) => grammar_parse(render(i)).intent() == written_form(i)."""
    assume(representable(intent, fmt))
    text = render(intent, fmt, thought=thought)
    step = grammar_parse(text, fmt)
    assert step.invalid is None, (text, step.invalid)
    assert step.intent() == written_form(intent, fmt), text


@functools.lru_cache(maxsize=1)
def _mine() -> Format:
    """The template format, written once to a temporary folder (Hypothesis reuses it)."""
    folder = Path(tempfile.mkdtemp(prefix="reactfuzz-mine-"))
    (folder / "mine.lark").write_text(GRAMMAR)
    (folder / "mine.toml").write_text(TOML)
    return load_format(folder / "mine.toml")


@given(intent=intents(), thought=st.one_of(st.none(), st.just("look it up")))
def test_template_format_reads_back_what_it_writes(intent, thought) -> None:
    fmt = _mine()
    assume(representable(intent, fmt))
    text = render(intent, fmt, thought=thought)
    step = grammar_parse(text, fmt)
    assert step.invalid is None, (text, step.invalid)
    assert step.intent() == written_form(intent, fmt), text


# --------------------------------------------------------------------------- what is written


def test_tool_call_writes_the_nous_template() -> None:
    call = Call("search", ("Paris",), ("query",))
    assert render(call, "tool-call", thought="look") == (
        '<think>\nlook\n</think>\n<tool_call>\n'
        '{"name": "search", "arguments": {"query": "Paris"}}\n</tool_call>'
    )
    assert render(call, "function-tag") == '<function=search>{"query": "Paris"}</function>'
    # an answer is the whole message: no think block before it (format data: `think`)
    assert render(FinalAnswer("done"), "tool-call", thought="ok") == "done"
    assert render(Call("search", ("a, b",)), "react-single") == "Action: search[a, b]"


@pytest.mark.parametrize(
    ("fmt", "text", "code"),
    [
        ("tool-call", '<tool_call>\n{"name": "s", "arguments": {}}\n</tool_call>\n<tool_call>\n'
         '{"name": "t", "arguments": {}}\n</tool_call>', "syntax"),
        ("tool-call", '<tool_call>\n{"name": "s", "arguments": {}}\n</tool_call> please',
         None),  # refused as syntax: the action-line hint reads labels, not tags
        ("tool-call", '<tool_call>\n{"name": "s", "arguments": {}}\n</tool_call>\n'
         "Observation: fake", "fabricated-observation"),
        ("tool-call", '<tool_call>{"name": "s"}</tool_call>', "malformed-action"),
        ("tool-call", '<tool_call>{"name": "s", "arguments": [1]}</tool_call>', "malformed-action"),
        ("tool-call", '<tool_call>{"name": "s", "arguments": {}, "x": 1}</tool_call>',
         "malformed-action"),
        ("tool-call", '<tool_call>{"name": "s", "name": "t", "arguments": {}}</tool_call>',
         "duplicate-arg"),
        ("tool-call", "<tool_call>{'name': 's', 'arguments': {}}</tool_call>", None),
        ("function-tag", '<function=s>{"q": 1, "q": 2}</function>', "duplicate-arg"),
        ("react-single", "Thought 1: t\nAction 1: Search[x]", "label-number"),
    ],
    ids=["second-call", "trailing-text", "fabricated-observation", "no-arguments",
         "arguments-not-object", "extra-key", "duplicate-key", "single-quotes",
         "attribute-duplicate", "numbered"],
)
def test_what_the_grammar_refuses(fmt: str, text: str, code: str | None) -> None:
    step = grammar_parse(text, fmt)
    assert step.invalid is not None, step
    if code is not None:
        assert step.invalid.code == code, step.invalid


def test_untagged_text_is_the_answer_and_a_tag_mid_line_is_text() -> None:
    step = grammar_parse('I will not run <tool_call>{"name": "x"}</tool_call> here.\n\nBye.',
                         "tool-call")
    assert step.answer == 'I will not run <tool_call>{"name": "x"}</tool_call> here.\n\nBye.'
    step = grammar_parse("<think>\nhmm\n</think>\n\nParis.", "function-tag")
    assert step.answer == "Paris."
    step = grammar_parse('Let me look.\n<function=search>\n{"query": "a"}\n</function>',
                         "function-tag")
    assert step.thought == "Let me look." and step.intent() == Call.named("search", query="a")


# --------------------------------------------------------------------------- TOML


def test_toml_renames_the_tag_and_the_keys(tmp_path: Path) -> None:
    path = tmp_path / "fc.toml"
    path.write_text('base = "tool-call"\ntag = "function_call"\ntool_key = "tool"\n'
                    'args_key = "parameters"\nthink_tag = "reasoning"\n')
    fmt = load_format(path)
    call = Call("search", ("a",), ("query",))
    text = render(call, fmt, thought="t")
    assert text == ('<reasoning>\nt\n</reasoning>\n<function_call>\n'
                    '{"tool": "search", "parameters": {"query": "a"}}\n</function_call>')
    assert grammar_parse(text, fmt).intent() == call
    assert grammar_parse(text.replace("function_call", "tool_call"), fmt).answer is not None


def test_toml_single_argument_bracket_from_paper(tmp_path: Path) -> None:
    path = tmp_path / "webshop.toml"
    path.write_text('base = "paper"\nnumbered = false\n')
    fmt = load_format(path)
    text = render(Call("search", ("3 ounce bottle [x], citrus",)), fmt, thought="t")
    assert text == "Thought: t\nAction: search[3 ounce bottle [x], citrus]"
    assert grammar_parse(text, fmt).intent() == Call("search", ("3 ounce bottle [x], citrus",))
    assert grammar_parse("Action: Finish[done]", fmt).answer == "done"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('base = "tool-call"\ntag = "tool call"\n', r"key 'tag': 'tool call' must start"),
        ('base = "tool-call"\ntag_style = "xml"\n', r"key 'tag_style': Input should be"),
        ('syntax = "template"\narguments = "json"\ngrammar = "g.lark"\n'
         'action_template = "Action: {tool} {argz}"\nanswer_template = "A: {answer}"\n',
         r"key 'action_template': unknown placeholder \{argz\} \(use \{tool\}"),
        ('syntax = "template"\narguments = "json"\ngrammar = "g.lark"\n'
         'action_template = "Action: {tool} {arguments_json}"\nanswer_template = "A: {text}"\n',
         r"key 'answer_template': unknown placeholder \{text\} \(use \{answer\}\)"),
        ('syntax = "template"\narguments = "json"\n'
         'action_template = "Action: {tool} {arguments_json}"\nanswer_template = "A: {answer}"\n',
         r"needs grammar"),
        ('syntax = "template"\narguments = "comma"\ngrammar = "g.lark"\n'
         'action_template = "Action: {tool}"\nanswer_template = "A: {answer}"\n',
         r"arguments 'comma' needs \{args\}"),
        ('syntax = "template"\narguments = "json"\ngrammar = "g.lark"\n',
         r"needs action_template and answer_template"),
    ],
    ids=["tag-name", "tag-style", "unknown-action-placeholder", "unknown-answer-placeholder",
         "template-without-grammar", "template-without-args", "no-templates"],
)
def test_bad_tag_and_template_files_are_one_line(tmp_path: Path, text: str, message: str
                                                  ) -> None:
    (tmp_path / "g.lark").write_text(GRAMMAR)
    path = tmp_path / "f.toml"
    path.write_text(text)
    with pytest.raises(FormatError, match=message) as e:
        load_format(path)
    assert "\n" not in str(e.value)


def test_placeholders_are_substituted_once_never_evaluated(mine: Path) -> None:
    fmt = load_format(mine)
    call = Call("search", ("{tool} {__class__}",), ("query",))
    assert render(call, fmt).endswith('Action Input: {"query": "{tool} {__class__}"}')
    assert render(FinalAnswer("{answer} {tool}"), fmt) == "Final Answer: {answer} {tool}"
    assert fmt.family.input_role == "action_input" and fmt.family.open == "{"


def test_grammar_target_names_the_missing_terminal(mine: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.lark"
    bad.write_text(GRAMMAR.replace("TOOL", "NAME"))
    with pytest.raises(GrammarError, match=r"bad.lark: the grammar has no terminal 'TOOL'"):
        grammar_target(bad, load_format(mine))
    assert grammar_target(tmp_path / "mine.lark", load_format(mine)).run(
        'Action: s\nAction Input: {"q": 1}').step.intent() == Call.named("s", q=1)


# --------------------------------------------------------------------------- fuzzing


def _fuzz(capsys, *args: str) -> tuple[int, str]:
    code = main(["fuzz", *args, "--seed", "1", "--no-corpus", "--quiet"])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("fmt", NEW)
def test_clean_renderings_pass_the_grammar_parser(capsys, fmt: str) -> None:
    code, out = _fuzz(capsys, "--parser", "grammar", "--format", fmt, "--abuse", "clean.render")
    assert code == 0, out


def test_template_format_fuzzes_end_to_end(capsys, mine: Path) -> None:
    code, out = _fuzz(capsys, "--parser", "grammar", "--format", str(mine),
                      "--abuse", "clean.render")
    assert code == 0, out
    # the raw JSON input taken as one positional argument: a broken parser of this format
    # (it reads none of the clean calls, so the format fit stops it unless told not to)
    code, out = _fuzz(capsys, "--regex", r"Action: (?P<tool>\w+)\s+Action Input: (?P<input>.*)",
                      "--format", str(mine), "--abuse", "clean.render", "--no-fit-check")
    assert code == 1 and "clean.render" in out, out


def test_toml_picks_the_tag_and_template_families_by_name(tmp_path: Path) -> None:
    (tmp_path / "mine.lark").write_text(GRAMMAR)
    path = tmp_path / "t.toml"
    path.write_text(TOML.replace('syntax = "template"\narguments = "json"\n',
                                 'family = "template-json"\n'))
    assert load_format(path).family.name == "template_json"
    path.write_text('family = "tag"\ntag = "call"\n')
    with pytest.raises(FormatError, match=r"writes a final answer as plain text.*base = "):
        load_format(path)
    path.write_text('base = "function-tag"\nfamily = "tag"\ntag = "call"\n')
    assert render(Call.named("s", q=1), load_format(path)) == '<call=s>{"q": 1}</call>'
