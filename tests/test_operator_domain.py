"""``content.domain-text``: arguments as agents send them (SQL, code, shell, paths, URLs,
Markdown, paragraphs) catch guards keyed on content, and leave a correct reader alone.

Each deliberately broken reader below is the grammar's reading with one guard of the kind
real parsers grow:

* a semicolon guard that keeps an argument's first statement only (a naive SQL or shell
  injection filter);
* a fenced-blob regex, ```` ```json\\n(.*?)``` ````, that ends the action at the first code
  fence, one inside a JSON string included;
* an XML library run over the call block first, which refuses the raw ``&`` and ``<`` an
  XML-like tool-call format writes unescaped (``a && b``, ``status <> 'closed'``).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import find

from reactfuzz import BUILTIN_FORMATS
from reactfuzz.formats.grammars import grammar_parse
from reactfuzz.model import Action, Invalid, Step
from reactfuzz.strategies import ABUSES
from reactfuzz.strategies.abuses.domain import DOMAINS, domain_text, text_forms
from test_operators_mechanisms import _caught, _grammar, _left_alone, _settings

OP = "content.domain-text"


def _first_statement(fmt: str) -> object:
    """The grammar's reading, each text argument then cut at its first ``;``."""

    def read(text: str) -> Step:
        step = grammar_parse(text, fmt)
        if step.action is None or step.action.args is None:
            return step
        a = step.action
        args = tuple(v.split(";")[0] if isinstance(v, str) else v for v in a.args)
        return Step(thought=step.thought, action=Action(a.tool, a.raw, args, a.names))

    return read


def _fenced_blob(text: str) -> Step:
    """The blob between ```` ```json ```` and the next fence, wherever that fence stands."""
    m = re.search(r"```json\n(.*?)```", text, re.DOTALL)
    if m is None:
        return Step(invalid=Invalid("no-action", "no fenced blob"))
    try:
        obj = json.loads(m.group(1))
    except ValueError as e:
        return Step(invalid=Invalid("unparseable", str(e)))
    args = obj.get("action_input")
    if not isinstance(args, dict):
        return Step(invalid=Invalid("malformed-arg", "no arguments object"))
    return Step(action=Action(str(obj.get("action")), json.dumps(args), tuple(args.values()),
                              tuple(args)))


def _xml_library(text: str) -> Step:
    """The grammar's reading of ``xml-invoke``, once an XML parser accepts the call block."""
    m = re.search(r"<invoke .*?</invoke>", text, re.DOTALL)
    if m is not None:
        try:
            ET.fromstring(m.group())
        except ET.ParseError as e:
            return Step(invalid=Invalid("unparseable", str(e)))
    return grammar_parse(text, "xml-invoke")


# --- what it draws -----------------------------------------------------------------------


def test_each_kind_shrinks_to_a_text_with_its_own_syntax() -> None:
    simplest = {k: find(s, lambda _: True, settings=_settings(5)) for k, s in DOMAINS.items()}
    assert simplest["sql"] == "SELECT * FROM users WHERE name = 'O''Brien';"
    assert "|" in simplest["shell"]
    assert "\n" in simplest["code"] and "#" in simplest["code"]
    assert "\\" in find(domain_text("path"), lambda p: p.startswith("C:"), settings=_settings(50))
    assert find(domain_text("url"), lambda u: "&" in u and "%20" in u, settings=_settings(200))
    assert find(domain_text("markdown"), lambda m: "```" in m and "|" in m, settings=_settings(200))
    assert "\n\n" in simplest["paragraphs"]


def test_a_format_without_blank_lines_or_line_breaks_gets_the_nearest_text() -> None:
    assert text_forms("a\n\n  b") == ["a\n\n  b", "a\n  b", "a b"]
    assert text_forms("one line") == ["one line"]


def test_the_operator_applies_to_every_format() -> None:
    # it writes a free-text argument as the format writes text: every format has one
    assert all(ABUSES[OP].applies_to(f) for f in BUILTIN_FORMATS)


def test_bracket_quotes_only_what_needs_quotes_and_paper_gets_one_line() -> None:
    from reactfuzz.strategies import scenarios
    from reactfuzz.tools import default_registry

    reg = default_registry()
    sc = find(scenarios(reg, "bracket", abuses=[OP]), lambda s: '["' in s.completion,
              settings=_settings(100))
    assert sc.acceptable.representable  # quoted: the format carries it
    paper = find(scenarios(reg, "paper", abuses=[OP]), lambda s: "```" in s.completion,
                 settings=_settings(200))
    assert paper.completion.count("\n") == 1  # the thought line and the action line


# --- guards keyed on content --------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["tool-call", "bracket"])
def test_catches_a_reader_that_keeps_the_first_statement(fmt: str) -> None:
    sc = _caught(_first_statement(fmt), fmt, OP)
    assert ";" in sc.completion


def test_catches_a_fenced_blob_cut_at_a_fence_inside_a_string() -> None:
    sc = _caught(_fenced_blob, "json-blob-fenced", OP)
    assert sc.completion.count("```") >= 3  # the blob's fences and one in the argument


def test_catches_an_xml_library_that_refuses_a_raw_ampersand_or_angle_bracket() -> None:
    sc = _caught(_xml_library, "xml-invoke", OP)
    value = re.search(r'<parameter name="\w+">(.*?)</parameter>', sc.completion, re.DOTALL)
    assert value is not None and re.search(r"[&<]", value.group(1)), sc.completion


@pytest.mark.parametrize("fmt", ["bracket", "action-input", "json-blob-fenced", "xml-invoke"])
def test_leaves_the_grammar_alone(fmt: str) -> None:
    _left_alone(_grammar(fmt), fmt, OP)


def test_the_classic_fenced_blob_parser_ends_its_blob_at_a_fence_in_an_argument() -> None:
    """The built-in classic reader of ``json-blob-fenced`` has the fenced-blob guard above."""
    from reactfuzz.parsers import get_parser

    classic = get_parser("classic-json-blob-fenced", "json-blob-fenced")
    sc = _caught(classic.parse, "json-blob-fenced", OP)
    assert sc.completion.count("```") >= 3
