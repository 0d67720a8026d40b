"""Where the writer and the operators put things: thoughts, argument edits, observation labels.

A tag format writes a thought where its ``think`` data says (before calls only, by
default: an answer is the whole message text); the JSON operators edit the arguments
object itself, inside a template's placeholder, a tag or a wrapper object, never the
text around it; a format's observation label may be a non-word token (griptape's
``<|Response|>``), so a fabricated observation is written as a model following that
prompt writes it. Each is shown against a parser that reads the format as its
frameworks do (left alone) and one that does not (caught).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from reactfuzz import Call, FinalAnswer, grammar_parse
from reactfuzz.dispatch import bind_typed
from reactfuzz.errors import FormatError
from reactfuzz.formats import Format, get_format, load_format
from reactfuzz.model import Action, Step
from reactfuzz.oracle import judge
from reactfuzz.render import render, representable, written_form
from reactfuzz.strategies import Scenario, scenarios
from reactfuzz.strategies.abuses._parts import args_object
from reactfuzz.tools import default_registry

ROOT = Path(__file__).resolve().parent.parent
GRIPTAPE = str(ROOT / "zoo" / "formats" / "griptape.toml")
REG = default_registry()


def _settings(n: int) -> settings:
    return settings(database=None, max_examples=n, derandomize=True, deadline=None,
                    phases=[Phase.generate], suppress_health_check=list(HealthCheck))


def _fault(parse, fmt: Format | str):
    """A predicate: the parser's reading of a scenario is the parser's fault."""
    def wrong(sc: Scenario) -> bool:
        outcome = bind_typed(parse(sc.completion), REG)
        v = judge(outcome, sc.acceptable, REG, completion=sc.completion, fmt=fmt)
        return not v.ok and v.cause == "design"
    return wrong


def _with(fmt: str, tmp_path: Path, **data: str) -> Format:
    lines = [f'base = "{fmt}"', *(f"{k} = {json.dumps(v)}" for k, v in data.items())]
    path = tmp_path / "f.toml"
    path.write_text("\n".join(lines) + "\n")
    return load_format(path)


# --------------------------------------------------------------------------- think blocks

CALL = Call("search", ("Paris",), ("query",))


def test_tag_formats_write_a_think_block_before_calls_and_none_before_answers() -> None:
    assert render(CALL, "tool-call", thought="look").startswith("<think>\nlook\n</think>\n")
    assert render(CALL, "function-tag", thought="look").startswith("<think>\nlook\n</think>\n")
    for fmt in ("tool-call", "function-tag"):
        assert render(FinalAnswer("Paris."), fmt, thought="look") == "Paris."


def test_think_is_format_data(tmp_path: Path) -> None:
    always = _with("tool-call", tmp_path, think="always")
    assert render(FinalAnswer("Paris."), always, thought="ok") == "<think>\nok\n</think>\nParis."
    never = _with("function-tag", tmp_path, think="never")
    assert render(CALL, never, thought="look") == (
        'look\n<function=search>{"query": "Paris"}</function>')
    assert render(FinalAnswer("Paris."), never, thought="look") == "Paris."
    # every placement reads back the same
    for fmt in (always, never):
        for intent in (CALL, FinalAnswer("Paris.")):
            step = grammar_parse(render(intent, fmt, thought="look it up"), fmt)
            assert step.intent() == written_form(intent, fmt)


@given(think=st.sampled_from(["calls", "always", "never"]),
       base=st.sampled_from(["tool-call", "function-tag"]),
       intent=st.sampled_from([CALL, FinalAnswer("Paris, France."), Call.named("get_time")]),
       thought=st.sampled_from(["a", "I must not run <tool_call> here", "x: y"]))
@settings(max_examples=30, deadline=None, database=None)
def test_every_think_placement_reads_back(think, base, intent, thought) -> None:
    fmt = get_format(base).model_validate(get_format(base).model_dump() | {"think": think})
    assert representable(intent, fmt)
    step = grammar_parse(render(intent, fmt, thought=thought), fmt)
    assert step.intent() == written_form(intent, fmt), step


def _whole_text_answer(fmt: Format):
    """How camel-ai reads a tag protocol: a call if the grammar finds one, else the whole
    message text is the answer (think block included)."""
    def parse(text: str) -> Step:
        step = grammar_parse(text, fmt)
        return step if step.action is not None else Step(answer=text)
    return parse


@pytest.mark.parametrize("base", ["tool-call", "function-tag"])
def test_clean_answers_are_read_right_by_a_whole_message_reader(base: str, tmp_path: Path
                                                                ) -> None:
    fmt = get_format(base)
    with pytest.raises(NoSuchExample):
        find(scenarios(REG, fmt, abuses=["clean.render"]), _fault(_whole_text_answer(fmt), fmt),
             settings=_settings(20))
    # the same reader is caught where the format keeps a think block before answers
    always = _with(base, tmp_path, think="always")
    sc = find(scenarios(REG, always, abuses=["clean.render"]),
              _fault(_whole_text_answer(always), always), settings=_settings(20))
    assert sc.completion.startswith("<think>")


def test_operators_that_need_a_thought_still_write_one() -> None:
    sc = find(scenarios(REG, "tool-call", abuses=["injected.action-in-thought"]),
              lambda s: True, settings=_settings(5))
    assert sc.completion.startswith("<think>\nI must not run <tool_call>")


def test_think_is_read_only_by_the_tag_and_xml_families(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="'think' is read only by the tag and xml families"):
        _with("json-blob", tmp_path, think="never")
    with pytest.raises(FormatError, match="think"):
        _with("tool-call", tmp_path, think="sometimes")


# --------------------------------------------------------------------------- JSON edits

JSON_FORMATS = ["tool-call", "function-tag", "json-blob", "json-blob-fenced",
                "action-input-json", "json-args", GRIPTAPE]
EDITS = ["malformed.invalid-json", "extra.duplicate-name", "malformed.unbalanced-bracket"]


@pytest.mark.parametrize("abuse", EDITS)
@pytest.mark.parametrize("fmt", JSON_FORMATS, ids=lambda f: Path(f).stem)
def test_json_edits_land_inside_the_arguments_object(fmt: str, abuse: str) -> None:
    """The text around the arguments (the template's literal text, the closing tag, a
    wrapper's keys) is exactly what the clean rendering writes."""
    f = get_format(fmt)
    seen: list[Scenario] = []

    @_settings(10)
    @given(sc=scenarios(REG, f, abuses=[abuse]))
    def check(sc: Scenario) -> None:
        assert isinstance(sc.intent, Call)
        clean = render(sc.intent, f, thought="T")
        start, end, _ = args_object(clean, sc.intent)
        before = clean[clean.rfind("\n", 0, start) + 1 : start]
        _, sep, tail = sc.raw.partition(before)
        assert sep and tail.endswith(clean[end:]), (sc.raw, clean)
        edited = tail[: len(tail) - len(clean[end:])]
        assert edited != clean[start:end]
        if abuse == "extra.duplicate-name":  # the repeated key is one of the object's own
            keys = [k for k, _ in json.loads(edited, object_pairs_hook=lambda p: p)]
            assert len(keys) == len(set(keys)) + 1, edited
        seen.append(sc)

    check()
    assert seen


def _no_dupes(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("duplicate key")
    return dict(pairs)


def _top_level_keys_ignored(text: str) -> Step:
    """smolagents' reading of a blob: name and arguments, other keys ignored, a key given
    twice inside the arguments refused."""
    blob = text[text.find("{") : text.rfind("}") + 1]
    try:
        obj = json.loads(blob, object_pairs_hook=_no_dupes)
    except ValueError:
        return grammar_parse("", "json-blob")  # an invalid Step
    args = obj["arguments"]
    return Step(action=Action(obj["name"], json.dumps(args), tuple(args.values()), tuple(args)))


def _first_wins(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for k, v in pairs:
        out.setdefault(k, v)
    return out


def _first_value_wins(text: str) -> Step:
    """The same reader keeping a repeated key's *first* value, which no JSON parser does."""
    obj = json.loads(text[text.find("{") : text.rfind("}") + 1], object_pairs_hook=_first_wins)
    args = obj["arguments"]
    return Step(action=Action(obj["name"], json.dumps(args), tuple(args.values()), tuple(args)))


def test_duplicate_name_in_json_blob_is_the_arguments_key() -> None:
    # left alone: the repeated key is refused inside the arguments; extra top-level keys
    # (which the operator used to write) would not be a repetition at all
    with pytest.raises(NoSuchExample):
        find(scenarios(REG, "json-blob", abuses=["extra.duplicate-name"]),
             _fault(_top_level_keys_ignored, "json-blob"), settings=_settings(15))
    sc = find(scenarios(REG, "json-blob", abuses=["extra.duplicate-name"]),
              _fault(_first_value_wins, "json-blob"), settings=_settings(30))
    obj = json.loads(sc.completion[sc.completion.find("{"):])
    assert set(obj) == {"name", "arguments"} and obj["arguments"]


def _griptape_like(text: str, *, strict: bool = False, first: bool = False) -> Step:
    """griptape's reading: the first ``[`` after ``Actions:`` to the last ``]``, decoded
    (``strict``: a key given twice is refused; ``first``: its first value is kept, which no
    JSON parser does); no list: the raw text is the answer."""
    m = re.search(r"Actions:[^\[]*(\[.*\])", text, re.DOTALL)
    if m is None:
        return Step(answer=text)
    try:
        hook = _no_dupes if strict else (_first_wins if first else None)
        actions = json.loads(m.group(1), object_pairs_hook=hook)
    except ValueError:
        return grammar_parse("", GRIPTAPE)  # an invalid Step: an error artifact
    a = actions[0]
    args = a["input"]
    return Step(action=Action(a["path"], json.dumps(args), tuple(args.values()), tuple(args)))


@pytest.mark.parametrize("abuse", EDITS)
def test_template_json_edits_leave_a_griptape_reader_alone(abuse: str) -> None:
    """The edit breaks the arguments, not the list around them: the reader refuses the
    JSON (or the repeated key) instead of taking the whole text for an answer."""
    with pytest.raises(NoSuchExample):
        find(scenarios(REG, GRIPTAPE, abuses=[abuse]),
             _fault(lambda t: _griptape_like(t, strict=True), GRIPTAPE),
             settings=_settings(15))


def test_a_repeated_key_inside_the_template_catches_first_value_wins() -> None:
    # JSON's own reading (the last value) is acceptable; keeping the first is not
    with pytest.raises(NoSuchExample):
        find(scenarios(REG, GRIPTAPE, abuses=["extra.duplicate-name"]),
             _fault(_griptape_like, GRIPTAPE), settings=_settings(15))
    sc = find(scenarios(REG, GRIPTAPE, abuses=["extra.duplicate-name"]),
              _fault(lambda t: _griptape_like(t, first=True), GRIPTAPE), settings=_settings(30))
    assert sc.completion.endswith(' (2)"}}]')


# --------------------------------------------------------------------------- observation label


def test_griptape_observation_label_is_its_response_token() -> None:
    fmt = get_format(GRIPTAPE)
    assert fmt.label("observation") == "<|Response|>:"
    sc = find(scenarios(REG, fmt, abuses=["fabricated.observation-no-stop"]),
              lambda s: True, settings=_settings(3))
    assert "\n<|Response|>: " in sc.completion
    # the client's stop word cuts what a model following griptape's prompt invents
    sc = find(scenarios(REG, fmt, abuses=["fabricated.observation"]),
              lambda s: True, settings=_settings(3))
    assert sc.raw.count("<|Response|>") == 1 and "<|Response|>" not in sc.completion
    step = grammar_parse(sc.raw, fmt)
    assert step.invalid is not None and step.invalid.code == "fabricated-observation"


def test_a_lenient_reader_is_caught_without_the_stop_word() -> None:
    """griptape-like reading ignores text after the list; with no stop word the invented
    answer is not what it returns, so nothing is hijacked: a reader that takes the last
    'Answer:' instead is caught."""
    def answer_wins(text: str) -> Step:
        m = re.search(r"(?m)^Answer: (.*)$", text)
        return Step(answer=m.group(1)) if m else _griptape_like(text)

    sc = find(scenarios(REG, GRIPTAPE, abuses=["fabricated.observation-no-stop"]),
              _fault(answer_wins, GRIPTAPE), settings=_settings(20))
    assert "<|Response|>:" in sc.completion


@pytest.mark.parametrize(("label", "ok"), [
    ("<|Response|>", True), ("Tool Output", True), ("[[result]]", True),
    ("a:b", False), (" x", False), ("x\ny", False), ("", False),
])
def test_observation_label_may_be_a_token_without_colon_or_spaces(
        tmp_path: Path, label: str, ok: bool) -> None:
    path = tmp_path / "obs.toml"
    path.write_text(f'base = "bracket"\n[labels]\nobservation = {json.dumps(label)}\n')
    if ok:
        assert load_format(path).label("observation") == f"{label}:"
    else:
        with pytest.raises(FormatError, match="observation label"):
            load_format(path)


def test_other_labels_are_still_words(tmp_path: Path) -> None:
    path = tmp_path / "act.toml"
    path.write_text('base = "bracket"\n[labels]\naction = "<|Act|>"\n')
    with pytest.raises(FormatError, match="must start with a letter"):
        load_format(path)


# --------------------------------------------------------------------------- skips and selections

LABEL_OPS = ["label.case", "label.spacing", "label.numbering", "label.odd-line-break",
             "markup.emphasis", "markup.block", "variant.case", "variant.spacing",
             "size.long-run"]


def test_label_operators_skip_tag_formats_saying_why() -> None:
    """They would write the clean rendering (no label to vary) or break the closing tag."""
    from reactfuzz.engine import FuzzConfig, run_fuzz
    from reactfuzz.strategies import ABUSES

    for op in LABEL_OPS:
        assert not ABUSES[op].applies_to("tool-call") and not ABUSES[op].applies_to(
            "function-tag"), op
        assert ABUSES[op].applies_to("bracket") and ABUSES[op].applies_to(GRIPTAPE), op
    run = run_fuzz(FuzzConfig(targets=["grammar"], format="tool-call", seed=1, max_examples=2,
                              corpus=None, abuses=["clean.render", "label.case",
                                                   "variant.case"]))
    skipped = {o.abuse: o.skipped for o in run.operators}
    assert skipped["clean.render"] == ""
    assert skipped["label.case"] == ("does not apply to tool-call: it needs an action label"
                                     " the format writes at a line start")
    assert skipped["variant.case"].endswith("it needs labels the format writes at line starts")


def test_a_selection_of_operators_none_of_which_applies_is_refused() -> None:
    from reactfuzz.engine import FuzzConfig, run_fuzz
    from reactfuzz.errors import UsageError

    with pytest.raises(UsageError, match=r"none of the selected operators \(json\.nested.*"
                       r"applies to format 'bracket'; the operators that apply: clean\.render"):
        run_fuzz(FuzzConfig(targets=["grammar"], format="bracket", seed=1, max_examples=5,
                            corpus=None, abuses=["json.nested", "json.comment"]))


def test_abuse_family_that_does_not_apply_is_one_line_exit_2(capsys) -> None:
    from reactfuzz.cli import main

    code = main(["fuzz", "--target", "classic-bracket", "--abuse", "json.*", "--no-corpus",
                 "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "none of the selected operators (json.nested" in err[0]
    assert "the operators that apply: clean.render" in err[0]


@pytest.mark.parametrize("fmt", ["tool-call", "function-tag"])
def test_an_answer_holding_the_call_tag_is_not_representable(fmt: str) -> None:
    """The call tag is reserved for calls: an answer quoting one mid-line cannot be
    written, so a reader that runs it is a protocol note, not a design finding."""
    from reactfuzz import FinalAnswer
    from reactfuzz.render import representable

    f = get_format(fmt)
    tag = "<tool_call>" if fmt == "tool-call" else "<function=search>"
    assert not representable(FinalAnswer(f"do not {tag} x"), f).ok
    assert representable(FinalAnswer("do not call anything"), f).ok


def _tag_calls(text: str, which: int) -> Step:
    """A Hermes-style reader: every <tool_call> block, and the one at ``which`` runs."""
    blocks = re.findall(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", text, re.DOTALL)
    if not blocks:
        return Step(answer=text)
    obj = json.loads(blocks[which])
    args = obj["arguments"]
    return Step(action=Action(obj["name"], json.dumps(args), tuple(args.values()), tuple(args)))


def test_parallel_calls_run_the_first_and_dropping_it_is_caught() -> None:
    """tool-call runs parallel calls: the first of two running is right (no finding), a
    reader that runs only the last drops the model's first call."""
    assert get_format("tool-call").parallel_calls
    with pytest.raises(NoSuchExample):
        find(scenarios(REG, "tool-call", abuses=["injected.second-action"]),
             _fault(lambda t: _tag_calls(t, 0), "tool-call"), settings=_settings(15))
    find(scenarios(REG, "tool-call", abuses=["injected.second-action"]),
         _fault(lambda t: _tag_calls(t, -1), "tool-call"), settings=_settings(30))
