"""The operators written from tracker reports: each catches the parser mechanism it names
and leaves a correct reader of the same format alone.

``test_operators_new.py`` checks their ``breaks`` claims against the classic designs (none
of them breaks one) and the grammar + typed designs in every built-in format; here each
gets a tiny deliberately broken parser with the mechanism of a real report:

* ``content.real-text``: every ``'`` made a ``"`` before decoding (camel-ai issue 4169);
* ``prose.lone-brace``: the blob sliced from the first ``{`` to the last ``}`` of the
  whole text (smolagents PR 2427 / PR 2587);
* ``prose.plain-answer``: any text without an action is the answer, label and all
  (xorbitsai/inference PR 1098; smolagents issue 1732 is the same completion refused);
* ``prose.opens-with-stop``: an empty completion taken for an empty answer (smolagents
  issue 1109: the stop word at offset 0);
* ``layout.pretty-action``: a call regex without DOTALL (griptape PR 211 / PR 118);
* ``content.mixed-text``: the tool named by the last ``Action:`` a line break ends,
  anywhere in the text (lagent's ReAct reader), so a label at the end of a line of a
  pretty-printed argument names the tool; a call cut at its first closing tag, one inside
  a JSON string included (qwen-agent's ``<tool_call>`` splitter);
* ``content.lenient-json``: a Python-literal fallback when JSON fails, which reads the JSON
  escape of an emoji (``\\ud83c\\udf89``) as two lone surrogates (what json5 0.17.3 does
  in qwen-agent).
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

from reactfuzz.dispatch import bind_typed
from reactfuzz.formats import get_format
from reactfuzz.formats.grammars import grammar_parse
from reactfuzz.model import Action, Invalid, Step
from reactfuzz.oracle import judge
from reactfuzz.strategies import ABUSES, Scenario, scenarios
from reactfuzz.strategies.abuses._parts import ESCAPES, written_json
from reactfuzz.strategies.abuses.content import special_pieces
from reactfuzz.strategies.values import REAL_TEXT, real_text
from reactfuzz.tools import default_registry

REG = default_registry()
Reader = Callable[[str], Step]


def _settings(n: int) -> settings:
    return settings(database=None, max_examples=n, derandomize=True, deadline=None,
                    phases=(Phase.generate, Phase.shrink),
                    suppress_health_check=list(HealthCheck))


def _at_fault(reader: Reader, fmt: str, sc: Scenario) -> bool:
    v = judge(bind_typed(reader(sc.completion), REG), sc.acceptable, REG,
              completion=sc.completion, fmt=fmt)
    return not v.ok and v.cause == "design"


def _caught(reader: Reader, fmt: str, abuse: str, n: int = 60) -> Scenario:
    return find(scenarios(REG, fmt, abuses=[abuse]), lambda sc: _at_fault(reader, fmt, sc),
                settings=_settings(n))


def _left_alone(reader: Reader, fmt: str, abuse: str, n: int = 40) -> None:
    with pytest.raises(NoSuchExample):
        sc = _caught(reader, fmt, abuse, n)
        pytest.fail(f"{abuse} blames a correct reader: {sc.completion!r}")


def _text_is_answer(fmt: str, *, rewrite: Callable[[str], str] = lambda t: t) -> Reader:
    """The grammar's reading of ``rewrite(text)``; where it finds nothing, the whole text is
    the answer (the chat-message fallback of the tag readers and qwen-agent)."""

    def read(text: str) -> Step:
        step = grammar_parse(rewrite(text), fmt)
        return step if step.invalid is None else Step(answer=text)

    return read


def _grammar(fmt: str) -> Reader:
    return lambda text: grammar_parse(text, fmt)


def _blob_step(obj: object) -> Step:
    if not isinstance(obj, dict) or not isinstance(obj.get("arguments"), dict):
        return Step(invalid=Invalid("malformed-action", "no call object"))
    args = obj["arguments"]
    if obj.get("name") == "final_answer":
        return Step(answer=str(args.get("answer")))
    return Step(action=Action(str(obj.get("name")), json.dumps(args), tuple(args.values()),
                              tuple(args)))


def _first_to_last_brace(text: str) -> Step:
    """smolagents' ``parse_json_blob``: from the first ``{`` to the last ``}`` of the text."""
    try:
        return _blob_step(json.loads(text[text.find("{"): text.rfind("}") + 1]))
    except ValueError as e:
        return Step(invalid=Invalid("malformed-action", str(e)))


def _blob_after_label(text: str) -> Step:
    """The blob decoded where the action label's line starts it, and nothing else."""
    m = re.search(r"(?m)^Action: ", text)
    if m is None:
        return Step(invalid=Invalid("no-action", "no action"))
    try:
        obj, _ = json.JSONDecoder().raw_decode(text, m.end())
    except ValueError as e:
        return Step(invalid=Invalid("malformed-action", str(e)))
    return _blob_step(obj)


# --- content.real-text ------------------------------------------------------------------


def test_real_text_starts_with_a_lone_apostrophe() -> None:
    assert REAL_TEXT[0] == "it's"
    assert find(real_text(), lambda s: True, settings=_settings(5)) == "it's"
    assert any('"' in v for v in REAL_TEXT) and any("\\" in v for v in REAL_TEXT)
    assert any(not v.isascii() for v in REAL_TEXT)


def test_real_text_catches_a_quote_replacing_decoder() -> None:
    camel = _text_is_answer("tool-call", rewrite=lambda t: t.replace("'", '"'))
    sc = _caught(camel, "tool-call", "content.real-text")
    assert "it's" in sc.completion  # shrunk to the lone apostrophe


def test_real_text_leaves_a_json_reader_alone() -> None:
    _left_alone(_text_is_answer("tool-call"), "tool-call", "content.real-text")


# --- prose.lone-brace -------------------------------------------------------------------


def test_a_lone_brace_catches_a_first_to_last_brace_slice() -> None:
    sc = _caught(_first_to_last_brace, "json-blob", "prose.lone-brace")
    assert sc.completion.startswith("Thought: {\n") or "{" in sc.completion.split("\n")[0]


def test_a_lone_brace_leaves_a_blob_reader_alone() -> None:
    _left_alone(_blob_after_label, "json-blob", "prose.lone-brace")


# --- prose.plain-answer -----------------------------------------------------------------


def test_plain_answer_catches_text_taken_for_the_answer() -> None:
    sc = _caught(_text_is_answer("json-blob"), "json-blob", "prose.plain-answer")
    assert sc.completion.startswith("Thought:")  # the thought went to the user too


def test_plain_answer_leaves_a_refusing_reader_alone() -> None:
    _left_alone(_grammar("json-blob"), "json-blob", "prose.plain-answer", 20)


# --- prose.opens-with-stop --------------------------------------------------------------


def test_opening_stop_word_catches_an_empty_answer() -> None:
    sc = _caught(_text_is_answer("json-blob"), "json-blob", "prose.opens-with-stop")
    assert sc.completion == ""  # the provider cut at offset 0


def test_opening_stop_word_leaves_the_grammar_alone() -> None:
    _left_alone(_grammar("action-input"), "action-input", "prose.opens-with-stop", 30)


# --- layout.pretty-action ---------------------------------------------------------------


def _one_line_tag(text: str) -> Step:
    """A ``<tool_call>`` regex without DOTALL: the blob must sit on one line."""
    m = re.search(r"<tool_call>\n(\{.*\})\n</tool_call>", text)
    if m is None:
        return Step(answer=text)
    return _blob_step(json.loads(m.group(1)))


def test_a_pretty_action_catches_a_one_line_regex() -> None:
    sc = _caught(_one_line_tag, "tool-call", "layout.pretty-action")
    assert sc.completion.count("\n") > 4


def test_a_pretty_action_leaves_the_grammar_alone() -> None:
    _left_alone(_grammar("tool-call"), "tool-call", "layout.pretty-action", 20)


# --- content.mixed-text and content.lenient-json -----------------------------------------


def _call(name: str, args: object) -> Step:
    if not isinstance(args, dict):
        return Step(invalid=Invalid("malformed-arg", "not an object"))
    return Step(action=Action(name, json.dumps(args), tuple(args.values()), tuple(args)))


def _last_action_line(text: str) -> Step:
    """The tool named by the last ``Action:`` that a line break ends, anywhere in the text;
    the input from the first ``Action Input:`` to the end (lagent's ReAct reader; its answer
    label is read right here, at a line start, so the action name is the only fault)."""
    answer = re.search(r"(?m)^Final Answer: ?(.*)", text, re.DOTALL)
    if answer is not None and "\nAction:" not in text:
        return Step(answer=answer.group(1))
    names = re.findall(r"Action:(.*?)\n", text)
    inputs = re.findall(r"Action Input:(.*)", text, re.DOTALL)
    if not names or not inputs:
        return Step(invalid=Invalid("no-action", "no action"))
    try:
        return _call(names[-1].strip(), json.loads(inputs[0]))
    except ValueError as e:
        return Step(invalid=Invalid("malformed-arg", str(e)))


def _cut_at_first_close(text: str) -> Step:
    """A ``<tool_call>`` cut at the first ``</tool_call>``, one inside a string included."""
    if "<tool_call>" not in text:
        return Step(answer=text)
    body = text.split("<tool_call>", 1)[1].split("</tool_call>", 1)[0]
    try:
        obj = json.loads(body)
    except ValueError as e:
        return Step(invalid=Invalid("unparseable", str(e)))
    return _call(str(obj.get("name")), obj.get("arguments"))


def _literal_fallback(text: str) -> Step:
    """The grammar's reading, with the arguments decoded by ``json.loads`` and, when that
    fails, by ``ast.literal_eval`` (true/false/null made Python): a Python literal reads
    ``\\ud83c\\udf89`` as two lone surrogates."""
    m = re.search(r"<tool_call>\n(.*)\n</tool_call>", text, re.DOTALL)
    if m is None:
        return Step(answer=text)
    outer = re.match(r'\{"name": "(\w+)", "arguments": (.*)\}$', m.group(1), re.DOTALL)
    if outer is None:
        return Step(invalid=Invalid("malformed-action", "no call object"))
    raw = outer.group(2)
    try:
        args = json.loads(raw)
    except ValueError:
        py = re.sub(r"\b(true|false|null)\b",
                    lambda w: {"true": "True", "false": "False", "null": "None"}[w.group()], raw)
        py = re.sub(r"(?<=[{,])\s*(\w+):", r"'\1':", py)  # bare keys
        try:
            with warnings.catch_warnings():  # `\/` is no Python escape: kept as it is
                warnings.simplefilter("ignore", DeprecationWarning)
                args = ast.literal_eval(py)
        except (ValueError, SyntaxError) as e:
            return Step(invalid=Invalid("unparseable", str(e)))
    return _call(outer.group(1), args)


def test_special_pieces_are_the_formats_own_and_never_a_stop_sequence() -> None:
    tag = special_pieces(get_format("function-tag"))
    assert "</function>" in tag
    assert "[[ ## completed ## ]]" in special_pieces(get_format("dspy-react"))
    action_input = get_format("action-input")
    pieces = special_pieces(action_input)
    assert "Action Input:" in pieces
    assert not any(s in p or p in s for p in pieces for s in action_input.stop)
    assert not any("\n" in p for p in pieces)


def test_lenient_writings_decode_to_the_same_object() -> None:
    obj = {"query": "it's \"x\" \U0001f389 a\\b https://example.com/a", "n": 1}
    for escapes in ESCAPES:
        for how in ("compact", "spaced", "indented"):
            written = written_json(obj, how, escapes=escapes)
            assert json.loads(written) == obj
            assert ("\\ud83c" in written) == ("ascii" in escapes)
            assert ("\\/" in written) == ("solidus" in escapes)
        single = written_json(obj, "single-quotes", escapes=escapes)
        assert single.startswith("{'query': 'it\\'s")
        trailing = written_json(obj, "trailing-comma", escapes=escapes)
        assert trailing.endswith(",}") and json.loads(trailing[:-2] + "}") == obj
    assert ast.literal_eval(written_json(obj, "python", escapes="ascii+solidus")) == obj


@pytest.mark.slow  # a rare pair: a few hundred examples before the search meets it
def test_mixed_text_catches_an_action_label_read_anywhere() -> None:
    sc = _caught(_last_action_line, "action-input-json", "content.mixed-text", 1000)
    # the pair it takes: a label at the end of a line of an argument spread over lines
    assert re.search(r'Action:"\n\}$', sc.completion), sc.completion


@pytest.mark.slow  # a closing tag among some 45 pieces: a few hundred examples
def test_mixed_text_catches_a_cut_at_the_first_closing_tag() -> None:
    sc = _caught(_cut_at_first_close, "tool-call", "content.mixed-text", 500)
    assert sc.completion.count("</tool_call>") >= 2


def test_mixed_text_leaves_the_grammar_alone() -> None:
    for fmt in ("action-input-json", "tool-call"):
        _left_alone(_grammar(fmt), fmt, "content.mixed-text", 60)


def test_lenient_json_catches_a_python_literal_fallback() -> None:
    sc = _caught(_literal_fallback, "tool-call", "content.lenient-json", 200)
    assert "\\u" in sc.completion  # the escape is what the fallback misreads


def test_lenient_json_leaves_a_strict_reader_alone() -> None:
    _left_alone(_grammar("tool-call"), "tool-call", "content.lenient-json", 60)


def test_the_new_operators_apply_where_the_format_has_what_they_need() -> None:
    assert not ABUSES["layout.pretty-action"].applies_to("function-tag")  # arguments only
    assert not ABUSES["prose.plain-answer"].applies_to("bracket")  # has an answer label
    assert not ABUSES["prose.opens-with-stop"].applies_to("tool-call")  # no stop word
    assert ABUSES["content.real-text"].applies_to("bracket")
    assert ABUSES["content.mixed-text"].applies_to("bracket")
    assert ABUSES["content.lenient-json"].applies_to("tool-call")
    assert not ABUSES["content.lenient-json"].applies_to("bracket")  # no JSON arguments


def test_a_call_lost_from_a_clean_text_is_its_own_root_cause() -> None:
    """camel's dropped call (valid JSON rewritten) is not its broken-JSON message finding."""
    from reactfuzz.dispatch import Finished
    from reactfuzz.engine.rootcause import outcome_signature
    from reactfuzz.formats import get_format
    from reactfuzz.model import Call

    meant, fmt = Call.named("search", query="it's"), get_format("tool-call")
    lost = outcome_signature("hijacked-answer", Finished("x"), meant, (meant,), "x", fmt,
                             refusable=False)
    broken = outcome_signature("hijacked-answer", Finished("x"), meant, (meant,), "x", fmt)
    assert lost != broken and "carries" in lost


def test_two_ways_of_decoding_a_string_wrong_are_two_root_causes() -> None:
    """Lone surrogates and a kept backslash are different decoder bugs, and neither is
    "another value": one run keeps one finding per root cause, so they must not merge."""
    from reactfuzz.dispatch import Executed
    from reactfuzz.engine.rootcause import outcome_signature
    from reactfuzz.model import Call

    fmt = get_format("tool-call")

    def signature(meant: str, ran: str) -> str:
        want, got = Call.named("search", query=meant), Call.named("search", query=ran)
        return outcome_signature("wrong-call", Executed(got), want, (want,), "x", fmt)

    surrogates = signature("refund \U0001f389", "refund \ud83c\udf89")
    backslash = signature("https://example.com/a", "https:\\/\\/example.com\\/a")
    other = signature("it's", 'it"s')
    assert surrogates == "decoded to lone surrogates"
    assert backslash == "kept an escape's backslash"
    assert len({surrogates, backslash, other}) == 3
    assert signature("a\\b", "ab") != backslash  # a backslash lost is not one kept


# --- json.call-shape, missing.close-tag, size.repeated-call-start ----------------------


@pytest.mark.parametrize("fmt", ["tool-call", "json-blob"])
def test_call_shape_catches_a_reader_that_wants_exactly_its_two_keys(fmt: str) -> None:
    # qwen-agent's Nous reader: a call object without both keys is dropped without a word
    sc = _caught(_text_is_answer(fmt), fmt, "json.call-shape", 100)
    assert sc.completion.count("{") >= 1
    _left_alone(_grammar(fmt), fmt, "json.call-shape", 60)


def test_call_shape_writes_every_drift_of_the_call_object() -> None:
    from reactfuzz.strategies.abuses.json_args import SHAPES, call_object_keys, drifted

    call = {"name": "search", "arguments": {"query": "a"}}
    assert call_object_keys(get_format("tool-call")) == ("name", "arguments")
    assert call_object_keys(get_format("bracket")) is None  # no JSON call object
    assert call_object_keys(get_format("function-tag")) is None  # the name is in the tag
    written = {s: drifted(call, s, "name", "arguments") for s in SHAPES}
    assert written["no-arguments"] == {"name": "search"}
    assert written["other-arguments-key"] == {"name": "search", "parameters": {"query": "a"}}
    assert written["extra-key"] == {"id": "call_1", **call}
    assert written["function-wrapper"] == {"type": "function", "function": call}
    assert json.loads(written["arguments-string"]["arguments"]) == {"query": "a"}
    assert json.loads(written["call-string"]) == call
    assert written["call-list"] == [call]


@pytest.mark.parametrize("fmt", ["tool-call", "function-tag", "json-blob-fenced"])
def test_a_missing_close_tag_catches_a_pattern_that_needs_it(fmt: str) -> None:
    # camel's `<tool_call>...</tool_call>` and `<function=...>...</function>` readers
    sc = _caught(_text_is_answer(fmt), fmt, "missing.close-tag", 60)
    assert not sc.completion.rstrip().endswith(("</tool_call>", "</function>", "```"))
    _left_alone(_grammar(fmt), fmt, "missing.close-tag", 40)


def _lazy_across_openers(text: str) -> Step:
    """camel's Hermes reader: `<tool_call>\\s*({.*?})\\s*</tool_call>` with DOTALL, from the
    first opener anywhere; JSON it cannot decode makes the text a message."""
    m = re.search(r"<tool_call>\s*({.*?})\s*</tool_call>", text, re.DOTALL)
    try:
        return _blob_step(json.loads(m.group(1))) if m else Step(answer=text)
    except ValueError:
        return Step(answer=text)


def test_repeated_call_starts_catch_a_pattern_tried_from_every_opener() -> None:
    sc = _caught(_lazy_across_openers, "tool-call", "size.repeated-call-start", 60)
    assert sc.completion.count("<tool_call>") >= 2
    _left_alone(_grammar("tool-call"), "tool-call", "size.repeated-call-start", 30)


def _skips_what_it_cannot_read(completion: str) -> tuple[str, object]:
    """camel's Hermes reader, as a mechanism: every `<tool_call>{...}</tool_call>` (lazy,
    across lines) is decoded, one it cannot read or bind is skipped, and with no call left
    the whole text is the answer."""
    import json
    import re

    for m in re.finditer(r"<tool_call>\s*({.*?})\s*</tool_call>", completion, re.DOTALL):
        try:
            call = json.loads(m.group(1))
            return ("action", (call["name"], dict(call["arguments"])))
        except (ValueError, KeyError, TypeError):
            continue
    return ("final", completion)


def test_a_call_read_as_a_message_splits_by_how_the_format_reads_the_text() -> None:
    """Broken JSON and a call of another shape are one bug of such a reader (it skips what
    it cannot decode); an unclosed tag and an opener in the thought that swallows the real
    call are two others. The format's own reading of the text tells them apart."""
    from dataclasses import replace

    from reactfuzz.engine.checks import get_checks
    from reactfuzz.engine.example import examine
    from reactfuzz.kinds import ANY_REFUSAL
    from reactfuzz.model import Call
    from reactfuzz.oracle import oracle
    from reactfuzz.strategies import Scenario
    from reactfuzz.targets import load_target

    fmt, registry = get_format("tool-call"), default_registry()
    meant = Call.named("search", query="a")
    call = '{"name": "search", "arguments": {"query": "a"}}'
    texts = {
        "broken": f"<tool_call>\n{call[:-1]}\n</tool_call>",
        "shape": '<tool_call>\n{"name": "search", "parameters": {"query": "a"}}\n</tool_call>',
        "unclosed": f"<tool_call>\n{call}",
        "swallowed": f'<think>\nx <tool_call> {{"name": "search"\n</think>\n<tool_call>\n{call}'
                     "\n</tool_call>",
    }
    target = load_target(_skips_what_it_cannot_read, "tool-call")
    signatures = {}
    for name, text in texts.items():
        acceptable = replace(oracle(meant, "tool-call", registry), rejections=ANY_REFUSAL)
        sc = Scenario("tool-call", "x", meant, text, text, acceptable)
        ex = examine(sc, target, fmt, registry, "typed", get_checks(["no-hijacked-answer"]))
        assert ex.failure is not None, name
        signatures[name] = ex.failure.signature
    assert signatures["broken"] == signatures["shape"]
    assert len({signatures[n] for n in ("broken", "unclosed", "swallowed")}) == 3, signatures


# --- content.typed-lookalike -------------------------------------------------------------


def _guessing_types(fmt: str) -> Reader:
    """The grammar's reading, each text value then typed by its look (``json.loads``, else
    the text): what XML and text-protocol readers do that convert without the schema."""

    def read(text: str) -> Step:
        step = grammar_parse(text, fmt)
        if step.action is None:
            return step
        typed = []
        for value in step.action.args:
            try:
                typed.append(json.loads(value) if isinstance(value, str) else value)
            except ValueError:
                typed.append(value)
        return Step(thought=step.thought, action=Action(
            step.action.tool, step.action.raw, tuple(typed), step.action.names))

    return read


@pytest.mark.parametrize("fmt", ["xml-invoke", "bracket"])
def test_typed_lookalike_catches_a_reader_that_types_by_look(fmt: str) -> None:
    sc = _caught(_guessing_types(fmt), fmt, "content.typed-lookalike")
    assert ">null<" in sc.completion or "[null" in sc.completion  # shrunk to the first


def test_typed_lookalike_leaves_a_schema_reader_alone() -> None:
    _left_alone(_grammar("xml-invoke"), "xml-invoke", "content.typed-lookalike")


# --- size.unclosed-argument-run -----------------------------------------------------------

# a call regex with a quantifier over one argument nested in one over the list, '.*'
# matching commas (DOTALL): the shape of a pythonic reader's pattern (sglang issue 31912)
NESTED = r"\[(\w+\((\w+=.*,\s*)*(\w+=.*\s*)?\)\s*)+\]"


@pytest.mark.slow  # long runs parse for seconds in the grammar's left-alone search
def test_unclosed_argument_run_writes_what_a_nested_regex_cannot_finish() -> None:
    import regex

    def long_cut(sc: Scenario) -> bool:
        return sc.completion.startswith("[f(") and sc.completion.count("=") >= 40

    sc = find(scenarios(REG, "pythonic", abuses=["size.unclosed-argument-run"]), long_cut,
              settings=_settings(200))
    assert not sc.completion.rstrip().endswith("]")  # cut: no closing bracket comes
    # 2^40 ways to split the run: no machine finishes it, whatever its load
    with pytest.raises(TimeoutError):
        regex.search(NESTED, sc.completion, regex.DOTALL, timeout=0.2)
    # the grammar refuses it at once, and a reader of the grammar is left alone
    assert grammar_parse(sc.completion, "pythonic").invalid is not None
    _left_alone(_grammar("pythonic"), "pythonic", "size.unclosed-argument-run")


# --- layout.part-moved --------------------------------------------------------------------


def _same_line_only(text: str) -> Step:
    """A bracket reader whose label takes `[ \\t]*`, not `\\s*`: the value must share the
    label's line, where the format lets it start on the next one."""
    m = re.search(r"(?m)^Action:[ \t]*(\w+)\[(.*)\][ \t]*$", text)
    if m is not None:
        return Step(action=Action(m.group(1), m.group(2), (m.group(2),)))
    m = re.search(r"(?m)^Answer:[ \t]*(\S.*)$", text)
    if m is not None:
        return Step(answer=m.group(1).strip())
    return Step(invalid=Invalid("no-action", "no action on a label's line"))


def test_part_moved_catches_a_reader_that_wants_the_value_on_the_labels_line() -> None:
    sc = _caught(_same_line_only, "bracket", "layout.part-moved")
    assert re.search(r"(?m)^(Action|Answer):\n", sc.completion)


def test_part_moved_leaves_the_grammar_alone() -> None:
    _left_alone(_grammar("bracket"), "bracket", "layout.part-moved")
    _left_alone(_grammar("action-input-json"), "action-input-json", "layout.part-moved")


# --- json.scalar-args --------------------------------------------------------------------


def _keys_of_decoded(text: str) -> Step:
    """The grammar's reading of the action, then the arguments' keys taken as a dict's,
    whatever the JSON was (lagent's parse_inputs: ``set(inputs)`` after ``json.loads``)."""
    m = re.search(r"(?m)^Action Input: (.*)$", text)
    if m is None:
        return grammar_parse(text, "action-input-json")
    set(json.loads(m.group(1)))  # TypeError on a number or a bool: the mechanism's crash
    return grammar_parse(text, "action-input-json")


def test_scalar_args_catch_a_reader_that_takes_the_keys_of_any_json() -> None:
    def crashes(sc: Scenario) -> bool:
        try:
            _keys_of_decoded(sc.completion)
        except TypeError:
            return True
        return False

    sc = find(scenarios(REG, "action-input-json", abuses=["json.scalar-args"]), crashes,
              settings=_settings(60))
    assert re.search(r"(?m)^Action Input: (42|true)$", sc.completion)


def test_scalar_args_leave_the_grammar_alone() -> None:
    _left_alone(_grammar("action-input-json"), "action-input-json", "json.scalar-args")


# --- size.label-gap-run --------------------------------------------------------------------

# a label with adjacent quantifiers over the same spaces (a step number that may or may not
# stand between them), searched anywhere: every split of a run is tried before it fails
ADJACENT = r"Action[ \t]*\d*[ \t]*:[ \t]*(\w+)\[(.*)\]"


@pytest.mark.slow  # the left-alone search parses runs of thousands of spaces
def test_label_gap_run_writes_what_adjacent_quantifiers_take_seconds_on() -> None:
    import regex

    def long_gap(sc: Scenario) -> bool:
        return re.search(r"Action[ \t]{8000,}", sc.completion) is not None

    sc = find(scenarios(REG, "bracket", abuses=["size.label-gap-run"]), long_gap,
              settings=_settings(300))
    # n spaces split two ways: n^2/2 tries, tens of millions at 8,000 and more; a linear
    # reader takes microseconds, so a limit of a tenth of a second has room either way
    with pytest.raises(TimeoutError):
        regex.search(ADJACENT, sc.completion, timeout=0.1)
    assert regex.search(r"Action[ \t]*:[ \t]*(\w+)\[(.*)\]", sc.completion, timeout=0.1) \
        is not None or grammar_parse(sc.completion, "bracket").invalid is not None
    _left_alone(_grammar("bracket"), "bracket", "size.label-gap-run", n=20)


# --- size.label-run-argument ---------------------------------------------------------------


@pytest.mark.slow  # the scans of a ten-times-budget argument
def test_label_run_argument_writes_what_a_findall_from_every_label_takes_seconds_on() -> None:
    import regex

    from reactfuzz.strategies import Sizes

    def long_run(sc: Scenario) -> bool:
        return len(sc.completion.rsplit("\n", 1)[-1]) > 100_000

    fmt = "action-input-json"
    sc = find(scenarios(REG, fmt, abuses=["size.label-run-argument"], sizes=Sizes(10.0)),
              long_run, settings=_settings(300))
    last = sc.completion.rsplit("\n", 1)[-1]
    label = last.split('"x ', 1)[1].split(" ", 1)[0]  # the label the argument repeats
    assert last.startswith("Action Input:") and label.endswith(":")
    assert last.count(label) > 10_000
    # from each of the ten thousand labels on the last line, a scan to its end: 10^9 steps
    # (seconds); the same label found once at a line start takes a millisecond
    with pytest.raises(TimeoutError):
        regex.findall(regex.escape(label) + r"(.*?)\n", sc.completion, timeout=0.1)
    regex.findall("^" + regex.escape(label) + "(.*)$", sc.completion, flags=regex.M,
                  timeout=0.1)
    _left_alone(_grammar(fmt), fmt, "size.label-run-argument", n=30)

