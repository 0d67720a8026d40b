"""Formats as data: built-ins, user formats from TOML, and the errors a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from reactfuzz import BUILTIN_FORMATS, Call, FinalAnswer, grammar_parse, parse_transcript
from reactfuzz.errors import FormatError
from reactfuzz.formats import Format, get_format, load_format
from reactfuzz.render import render

FIRST_FORMATS = ["bracket", "paper", "action-input", "json-args", "action-input-json",
                 "json-blob", "json-blob-fenced", "react-single", "tool-call", "function-tag",
                 "xml-invoke", "xml-function", "xml-tags", "pythonic", "dspy-react", "json-bare"]
"""The built-in formats in their order; a family added later declares its own after them."""


def test_builtins_with_grammars() -> None:
    assert list(BUILTIN_FORMATS)[:len(FIRST_FORMATS)] == FIRST_FORMATS
    for fmt in BUILTIN_FORMATS.values():
        assert fmt.notes, f"{fmt.name} must document its label-variant decisions"
        assert fmt.grammar and fmt.grammar.endswith(".lark")


def write(tmp_path: Path, text: str, name: str = "fmt.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_user_format_relabels_a_builtin(tmp_path: Path) -> None:
    p = write(tmp_path, """
name = "german"
base = "bracket"
stop = ["Beobachtung:"]

[labels]
thought = "Gedanke"
action = "Aktion"
observation = "Beobachtung"
answer = "Antwort"
headers = ["Frage"]
""")
    fmt = load_format(p)
    assert fmt.name == "german" and fmt.family.name == "bracket"
    step = grammar_parse("Gedanke: suchen\nAktion: search[Berlin]", fmt)
    assert step.intent() == Call("search", ("Berlin",))
    # the built-in labels are plain text in this format
    assert grammar_parse("Thought: x\nAction: search[y]", fmt).kind == "invalid"
    assert grammar_parse("Gedanke: x\nAntwort: fertig", fmt).intent() == FinalAnswer("fertig")
    t = parse_transcript(
        "Frage: q\nGedanke: a\nAktion: s[x]\nBeobachtung: o\nAntwort: b\n", fmt
    )
    assert t.ok, t.invalid
    assert render(Call("s", ("x",)), fmt, thought="t") == "Gedanke: t\nAktion: s[x]"


def test_user_format_with_a_label_that_extends_another(tmp_path: Path) -> None:
    p = write(tmp_path, 'base = "action-input"\n[labels]\naction = "Tool"\naction_input = "Tool Input"\n')
    fmt = load_format(p)
    assert fmt.name == "fmt"
    step = grammar_parse("Thought: t\nTool: Search\nTool Input: x", fmt)
    assert step.intent() == Call("Search", ("x",))


def test_user_format_with_own_grammar_file(tmp_path: Path) -> None:
    from reactfuzz.formats.grammars import grammar_dir

    src = (grammar_dir() / "bracket.lark").read_text()
    (tmp_path / "mine.lark").write_text(src)
    fmt = load_format(write(tmp_path, 'base = "bracket"\ngrammar = "mine.lark"\n'))
    assert grammar_parse("Action: s[x]", fmt).intent() == Call("s", ("x",))


def test_broken_grammar_file_is_an_error_at_load_naming_both_files(tmp_path: Path) -> None:
    (tmp_path / "bad.lark").write_text("completion: THIS_IS_NOT_DEFINED\n")
    with pytest.raises(FormatError, match=r"fmt\.toml: key 'grammar': .*bad\.lark"):
        load_format(write(tmp_path, 'base = "bracket"\ngrammar = "bad.lark"\n'))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name = 'x'\nbase = \n", r"fmt\.toml: not valid TOML"),
        ("base = 'bracket'\ncolour = 'red'\n", r"key 'colour': unknown key \(allowed: .*labels"),
        ("base = 'nope'\n", r"key 'base': 'nope' is not a built-in format"),
        ("base = 'bracket'\n[labels]\nthought = 'Thought:'\n", r"key 'labels.thought': .*colon"),
        ("base = 'bracket'\nnumbered = [1]\n", r"key 'numbered'"),
        ("base = 'bracket'\narguments = 'json'\n", r"does not go with arguments"),
        ("base = 'bracket'\ngrammar = 'missing.lark'\n", r"key 'grammar': grammar file .* not found"),
        ("base = 'bracket'\nstop = ['']\n", r"stop sequences must not be empty"),
    ],
    ids=["toml-syntax", "unknown-key", "unknown-base", "label-with-colon", "wrong-type",
         "syntax-arguments", "missing-grammar", "empty-stop"],
)
def test_bad_format_files_name_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(FormatError, match=message) as info:
        load_format(p)
    assert str(p) in str(info.value) or "fmt.toml" in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_format_file_and_unknown_name() -> None:
    with pytest.raises(FormatError, match="not found"):
        get_format("does/not/exist.toml")
    with pytest.raises(FormatError, match="unknown format 'nope': use one of bracket"):
        get_format("nope")


def test_format_model_is_frozen_and_strict() -> None:
    fmt = BUILTIN_FORMATS["bracket"]
    with pytest.raises(ValidationError, match="frozen"):
        fmt.name = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs"):
        Format(name="x", unknown=1)  # type: ignore[call-arg]
    assert fmt.label("thought") == "Thought:"
    assert BUILTIN_FORMATS["paper"].label("action", 3) == "Action 3:"


# --------------------------------------------------------------------------- families


def test_each_builtin_format_has_its_family_object() -> None:
    from reactfuzz.formats import FAMILIES, Family

    first = ["bracket", "paper", "action_input", "json_args", "action_input_json", "json_blob",
             "tag", "template_json", "template_comma", "template_single", "sections",
             "bare_json", "xml", "pythonic"]
    assert list(FAMILIES)[:len(first)] == first  # a family module added later follows
    names = {n: f.family.name for n, f in BUILTIN_FORMATS.items() if n in FIRST_FORMATS}
    assert names == {"bracket": "bracket", "paper": "paper",
                     "action-input": "action_input", "json-args": "json_args",
                     "action-input-json": "action_input_json", "json-blob": "json_blob",
                     "json-blob-fenced": "json_blob", "react-single": "paper",
                     "tool-call": "tag", "function-tag": "tag", "dspy-react": "sections",
                     "json-bare": "bare_json", "xml-invoke": "xml", "xml-function": "xml",
                     "xml-tags": "xml", "pythonic": "pythonic"}
    for fmt in BUILTIN_FORMATS.values():
        fam = fmt.family
        assert isinstance(fam, Family) and FAMILIES[fam.name] is fam
        assert fmt.grammar == fam.grammar_for(fmt)
        assert {"completion", "transcript", "action"} <= set(fam.rules)


@pytest.mark.parametrize(
    ("fmt", "text", "args", "action_line"),
    [
        ("bracket", "Thought: t\nAction: s[a, b]", "[a, b]", "Action: s[a, b]"),
        ("paper", "Thought 1: t\nAction 1: S[a]", "[a]", "Action 1: S[a]"),
        ("action-input", "Thought: t\nAction: s\nAction Input: a b", " a b", "Action: s"),
        ("json-args", 'Thought: t\nAction: s {"q": "a"}', '{"q": "a"}', 'Action: s {"q": "a"}'),
    ],
    ids=["bracket", "paper", "action-input", "json-args"],
)
def test_family_operator_data_locates_the_arguments(
    fmt: str, text: str, args: str, action_line: str
) -> None:
    f = get_format(fmt)
    assert text[f.family.args_start(text, f):] == args
    assert text[: f.family.action_line_end(text, f)].endswith("\n" + action_line)


def test_a_second_family_for_the_same_data_is_refused() -> None:
    from reactfuzz.errors import UsageError
    from reactfuzz.formats import register_family
    from reactfuzz.formats.bracket import BracketFamily

    with pytest.raises(UsageError, match="already registered"):
        register_family(BracketFamily())


def test_unknown_syntax_names_the_registered_ones(tmp_path: Path) -> None:
    # the first families' syntaxes, in order (a family added later is named after them)
    with pytest.raises(FormatError, match=r"key 'syntax': Input should be 'bracket', "
                       r"'action-input', 'json-args', 'json-blob', 'tag', 'template', 'sections', 'bare-json', 'xml',? (or )?'pythonic'"):
        load_format(write(tmp_path, "base = 'bracket'\nsyntax = 'xmlish'\n"))


@pytest.mark.parametrize(
    ("roles", "kw", "text", "found"),
    [
        ((), {}, "a\nAction 2: x", "Action 2:"),
        (("answer",), {}, "Final Answer: x", "Final Answer:"),
        (("action",), {}, "x Action: y\n  Action: z", None),
        (("action",), {"number": False}, "Action 2: x", None),
        (("action",), {"number": False, "colon": False}, "Action Input: x", "Action"),
        (("headers",), {}, "Question: q", "Question:"),
    ],
    ids=["any-numbered", "answer", "not-mid-line-or-indented", "unnumbered", "bare-word",
         "headers"],
)
def test_line_start_re_is_the_label_at_a_line_start(
    roles: tuple[str, ...], kw: dict[str, bool], text: str, found: str | None
) -> None:
    m = get_format("action-input").line_start_re(*roles, **kw).search(text)
    assert (m.group() if m else None) == found


def test_line_start_re_only_counts_newline_as_a_line_break() -> None:
    rx = get_format("bracket").line_start_re("answer")
    assert rx.search("x\u2028Answer: a") is None
    assert rx.search("x\rAnswer: a") is None
    assert rx.search("x\nAnswer: a") is not None
