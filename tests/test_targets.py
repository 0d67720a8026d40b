"""Specification of reactfuzz.targets: what reactfuzz fuzzes, and how it calls it safely."""

from __future__ import annotations

import json
import multiprocessing
import shutil
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from reactfuzz.errors import GrammarError, InputFileError, UsageError
from reactfuzz.formats.grammars import grammar_dir, grammar_parse
from reactfuzz.model import Action, Call, Invalid, Step
from reactfuzz.parsers import PARSERS, Parser
from reactfuzz.targets import (
    BuiltinTarget,
    CallableTarget,
    FunctionTarget,
    GrammarTarget,
    ParseResult,
    RegexTarget,
    Target,
    adapt,
    builtin_target,
    function_target,
    grammar_target,
    load_target,
    load_tools,
    regex_target,
)
from reactfuzz.tools import ToolRegistry

# --------------------------------------------------------------------------- stand-ins
# Result classes shaped like the frameworks' (only the attributes the adapter reads).


@dataclass
class AgentAction:  # langchain_core.agents.AgentAction
    tool: str
    tool_input: str | dict[str, Any]
    log: str = ""


@dataclass
class AgentFinish:  # langchain_core.agents.AgentFinish
    return_values: dict[str, Any]
    log: str = ""


@dataclass
class ActionReasoningStep:  # llama_index ...react.types.ActionReasoningStep
    thought: str
    action: str
    action_input: dict[str, Any] | None


@dataclass
class ResponseReasoningStep:  # llama_index ...react.types.ResponseReasoningStep
    thought: str
    response: str
    is_streaming: bool = False


class Junk:
    def __repr__(self) -> str:
        return "Junk()"


def act(tool: str, raw: str, args: tuple[Any, ...] | None, names: tuple[str, ...] | None = None,
        thought: str = "") -> Step:
    return Step(thought=thought, action=Action(tool, raw, args, names))


def ans(text: str, thought: str = "") -> Step:
    return Step(thought=thought, answer=text)


OWN_STEP = act("search", "x", ("x",), thought="t")

# (id, what the parser returned, format, the Step it adapts to)
ADAPTED = [
    ("step/as-is", OWN_STEP, "bracket", OWN_STEP),
    ("action/as-an-action-step", Action("search", "x", ("x",)), "bracket", act("search", "x", ("x",))),
    ("call/positional", Call("search", ("x",)), "bracket", act("search", "x", ("x",))),
    ("call/named", Call.named("search", query="x"), "bracket",
     act("search", '{"query": "x"}', ("x",), ("query",))),
    ("tuple/action-pair-string-arg", ("action", ("search", "Paris, France")), "bracket",
     act("search", "Paris, France", ("Paris, France",))),
    ("tuple/action-triple", ("action", "search", "x"), "bracket", act("search", "x", ("x",))),
    ("tuple/action-list-args", ("action", ("list_invoices", ["cus_1", "2026-07-01"])), "bracket",
     act("list_invoices", "cus_1, 2026-07-01", ("cus_1", "2026-07-01"))),
    ("tuple/action-tuple-args", ("action", "refund", ("ch_1", 5.0)), "bracket",
     act("refund", "ch_1, 5.0", ("ch_1", 5.0))),
    ("tuple/action-dict-args", ("action", ("refund", {"charge_id": "ch_1", "amount": 5})), "bracket",
     act("refund", '{"charge_id": "ch_1", "amount": 5}', ("ch_1", 5), ("charge_id", "amount"))),
    ("tuple/action-none-arg-is-no-args", ("action", "get_time", None), "bracket",
     act("get_time", "", ())),
    ("tuple/action-name-only", ("action", "get_time"), "bracket", act("get_time", "", ())),
    ("tuple/action-list-form", ["action", ["search", "x"]], "bracket", act("search", "x", ("x",))),
    ("tuple/final", ("final", "42"), "bracket", ans("42")),
    ("tuple/answer", ("answer", "yes"), "bracket", ans("yes")),
    ("tuple/tag-case-insensitive", ("Final", "ok"), "bracket", ans("ok")),
    ("tuple/finish-action-in-paper-is-the-answer", ("action", ("Finish", "Paris")), "paper",
     ans("Paris")),
    ("tuple/finish-is-a-tool-in-bracket", ("action", ("Finish", "Paris")), "bracket",
     act("Finish", "Paris", ("Paris",))),
    ("json-args/string-object-is-named-args", ("action", "search", '{"query": "x"}'), "json-args",
     act("search", '{"query": "x"}', ("x",), ("query",))),
    ("bracket/string-object-stays-one-arg", ("action", "search", '{"query": "x"}'), "bracket",
     act("search", '{"query": "x"}', ('{"query": "x"}',))),
    ("langchain/agent-action-str", AgentAction("search", "Paris"), "action-input",
     act("search", "Paris", ("Paris",))),
    ("langchain/agent-action-dict", AgentAction("search", {"query": "Paris"}), "action-input",
     act("search", '{"query": "Paris"}', ("Paris",), ("query",))),
    ("langchain/agent-finish-output", AgentFinish({"output": "done"}), "action-input", ans("done")),
    ("langchain/agent-finish-single-value", AgentFinish({"result": "done"}), "action-input",
     ans("done")),
    ("llamaindex/action-step", ActionReasoningStep("I look", "search", {"query": "x"}), "bracket",
     act("search", '{"query": "x"}', ("x",), ("query",), thought="I look")),
    ("llamaindex/response-step", ResponseReasoningStep("I know", "42"), "bracket",
     ans("42", thought="I know")),
    ("dict/action-action-input", {"action": "search", "action_input": "x"}, "bracket",
     act("search", "x", ("x",))),
    ("dict/json-blob-final-answer", {"action": "Final Answer", "action_input": "42"}, "bracket",
     ans("42")),
    ("dict/tool-args", {"tool": "search", "args": ["x"]}, "bracket", act("search", "x", ("x",))),
    ("dict/tool-arguments", {"tool": "search", "arguments": {"query": "x"}}, "bracket",
     act("search", '{"query": "x"}', ("x",), ("query",))),
    ("dict/tool-input", {"tool": "search", "input": "x"}, "bracket", act("search", "x", ("x",))),
    ("dict/tool-tool-input", {"tool": "search", "tool_input": "x"}, "bracket",
     act("search", "x", ("x",))),
    ("dict/tool-without-args", {"tool": "get_time"}, "bracket", act("get_time", "", ())),
    ("dict/thought-kept", {"thought": "hm", "tool": "search", "input": "x"}, "bracket",
     act("search", "x", ("x",), thought="hm")),
    ("dict/final_answer", {"final_answer": "42"}, "bracket", ans("42")),
    ("dict/answer", {"answer": "42"}, "bracket", ans("42")),
    ("dict/output", {"output": "42"}, "bracket", ans("42")),
]


@pytest.mark.parametrize(("result", "fmt", "expected"), [r[1:] for r in ADAPTED],
                         ids=[r[0] for r in ADAPTED])
def test_adapter_reads_every_supported_shape(result: Any, fmt: str, expected: Step) -> None:
    step = adapt(result, fmt)
    assert step == expected
    if step.action is not None:
        assert step.action.names == expected.action.names  # type: ignore[union-attr]


# (id, what the parser returned, the invalid code, a phrase of the message)
NOT_ADAPTED = [
    ("none", None, "no-result", "returned None"),
    ("tuple/invalid", ("invalid", "no action line"), "parser-refused", "no action line"),
    ("tuple/error", ("error", "bad"), "parser-refused", "bad"),
    ("dict/error", {"error": "cannot parse"}, "parser-refused", "cannot parse"),
    ("dict/invalid", {"invalid": "nope"}, "parser-refused", "nope"),
    ("junk/int", 42, "unsupported-result", "int 42"),
    ("junk/str", "search[x]", "unsupported-result", "str 'search[x]'"),
    ("junk/object", Junk(), "unsupported-result", "Junk Junk()"),
    ("junk/unknown-tag", ("call", "x"), "unsupported-result", "tuple"),
    ("junk/empty-tuple", (), "unsupported-result", "tuple"),
    ("junk/action-tuple-shape", ("action", 1, 2, 3), "unsupported-result", "action tuple"),
    ("junk/dict-keys", {"foo": 1}, "unsupported-result", "keys (foo)"),
    ("junk/tool-name-not-str", ("action", (7, "x")), "unsupported-result", "tool name is int"),
    ("junk/answer-none", ("final", None), "unsupported-result", "final answer of None"),
    ("langchain/finish-ambiguous", AgentFinish({"a": "1", "b": "2"}), "unsupported-result",
     "no 'output' key"),
    # a refusal that names its kind carries it as the code; an unknown kind in our own
    # tuple is a configuration error, one a framework's dict carries is not ours to read
    ("tuple/invalid-kind", ("invalid", "missing-arg", "no query"), "missing-arg", "no query"),
    ("tuple/error-kind", ("error", "extra-arg", "no such key"), "extra-arg", "no such key"),
    ("tuple/unknown-kind", ("invalid", "missing", "no query"), "unsupported-result",
     "refusal kind 'missing' is none of unparseable"),
    ("dict/error-kind", {"error": "cannot parse", "kind": "malformed-arg"}, "malformed-arg",
     "cannot parse"),
    ("dict/nested-error-kind", {"error": {"kind": "unknown-tool", "message": "no tool x"}},
     "unknown-tool", "no tool x"),
    ("dict/foreign-kind", {"error": "cannot parse", "kind": "ParseError"}, "parser-refused",
     "cannot parse"),
]


@pytest.mark.parametrize(("result", "code", "phrase"), [r[1:] for r in NOT_ADAPTED],
                         ids=[r[0] for r in NOT_ADAPTED])
def test_adapter_turns_refusals_and_junk_into_invalid_steps(
    result: Any, code: str, phrase: str
) -> None:
    step = adapt(result, "bracket")
    assert step.invalid is not None
    assert step.invalid.code == code
    assert phrase in step.invalid.message
    if code == "unsupported-result":
        assert "supported:" in step.invalid.message and "AgentAction" in step.invalid.message
        assert "\n" not in step.invalid.message



# Result shapes of other frameworks (only the attributes the adapter reads), found by shape.


@dataclass
class FunctionCall:  # qwen-agent FunctionCall / an OpenAI function_call: JSON-string arguments
    name: str
    arguments: str


@dataclass
class Message:  # qwen-agent Message: a call nested in function_call, else the content
    role: str
    content: Any
    function_call: FunctionCall | None = None
    name: str | None = None


@dataclass
class HermesToolCall:  # camel-ai HermesToolCall: arguments already a dict
    name: str
    arguments: dict[str, Any]


@dataclass
class TextArtifact:  # griptape: the answer is in .value
    value: str


@dataclass
class ErrorArtifact:  # griptape: an error returned, not raised
    value: str


@dataclass
class ToolAction:  # griptape ToolAction: name.path is the activity
    name: str
    path: str
    input: dict[str, Any]
    tag: str = "t"


@dataclass
class ActionsSubtask:  # griptape ActionsSubtask: actions, else the output artifact
    input: TextArtifact
    output: Any
    actions: list[ToolAction]


@dataclass
class Finish:  # a finish object whose answer is in .output
    output: str


@dataclass
class AnswerObject:  # ... or in .answer / .final_answer / .content
    answer: str


@dataclass
class FinalAnswerObject:
    final_answer: str


@dataclass
class ContentObject:
    content: str


# (id, what the parser returned, format, the Step it adapts to)
SHAPED = [
    ("dspy/tool", {"next_thought": "look", "next_tool_name": "search",
                   "next_tool_args": {"query": "x"}}, "bracket",
     act("search", '{"query": "x"}', ("x",), ("query",), thought="look")),
    ("dspy/finish-answers-with-the-thought",
     {"next_thought": "it is 42", "next_tool_name": "finish", "next_tool_args": {}}, "bracket",
     ans("it is 42", thought="it is 42")),
    ("qwen/message-with-function-call",
     Message("assistant", "", FunctionCall("search", '{"query": "x"}')), "json-args",
     act("search", '{"query": "x"}', ("x",), ("query",))),
    ("qwen/message-without-call-is-the-answer", Message("assistant", "done"), "bracket",
     ans("done")),
    ("camel/hermes-tool-call", HermesToolCall("search", {"query": "x"}), "bracket",
     act("search", '{"query": "x"}', ("x",), ("query",))),
    ("camel/function-tag-dict", {"function": "search", "arguments": {"query": "x"}}, "bracket",
     act("search", '{"query": "x"}', ("x",), ("query",))),
    ("openai/tool-calls-first-runs",
     {"tool_calls": [{"type": "function", "function": {"name": "search",
                                                       "arguments": {"query": "x"}}},
                     {"type": "function", "function": {"name": "get_time", "arguments": {}}}]},
     "bracket", act("search", '{"query": "x"}', ("x",), ("query",))),
    ("smolagents/name-arguments", {"name": "search", "arguments": {"query": "x"}}, "bracket",
     act("search", '{"query": "x"}', ("x",), ("query",))),
    ("smolagents/final-answer-tool", {"name": "final_answer", "arguments": {"answer": "42"}},
     "bracket", ans("42")),
    ("swarms/name-parameters", {"name": "search", "parameters": {"query": "x"}}, "bracket",
     act("search", '{"query": "x"}', ("x",), ("query",))),
    ("griptape/answer-artifact",
     ActionsSubtask(TextArtifact("t"), TextArtifact("hello"), []), "bracket", ans("hello")),
    ("griptape/action", ActionsSubtask(TextArtifact("t"), None,
                                       [ToolAction("Tool", "search", {"query": "x"})]),
     "bracket", act("Tool.search", '{"query": "x"}', ("x",), ("query",))),
    ("finish/output", Finish("done"), "bracket", ans("done")),
    ("finish/answer", AnswerObject("done"), "bracket", ans("done")),
    ("finish/final_answer", FinalAnswerObject("done"), "bracket", ans("done")),
    ("finish/content", ContentObject("done"), "bracket", ans("done")),
    ("finish/return-values-output", AgentFinish({"output": "done"}), "bracket", ans("done")),
    ("finish/output-artifact", Finish(TextArtifact("done")), "bracket", ans("done")),  # type: ignore[arg-type]
    ("dict/nested-action", {"action": {"name": "search", "arguments": {"query": "x"}}}, "bracket",
     act("search", '{"query": "x"}', ("x",), ("query",))),
]


@pytest.mark.parametrize(("result", "fmt", "expected"), [r[1:] for r in SHAPED],
                         ids=[r[0] for r in SHAPED])
def test_framework_results_are_read_by_shape(result: Any, fmt: str, expected: Step) -> None:
    step = adapt(result, fmt)
    assert step == expected
    if step.action is not None:
        assert step.action.names == expected.action.names  # type: ignore[union-attr]


def test_an_error_artifact_is_a_refusal() -> None:
    step = adapt(ActionsSubtask(TextArtifact("t"), ErrorArtifact("tool not found"), []))
    assert step.invalid is not None and step.invalid.code == "parser-refused"
    assert "tool not found" in step.invalid.message


def test_an_object_of_no_known_shape_names_what_came_back() -> None:
    step = adapt(Finish(Junk()))  # type: ignore[arg-type]
    assert step.invalid is not None and step.invalid.code == "unsupported-result"
    assert "'output'" in step.invalid.message and "Junk()" in step.invalid.message


# --------------------------------------------------------------------------- ParseResult


def test_parse_result_holds_exactly_one_outcome() -> None:
    with pytest.raises(ValueError):
        ParseResult()
    with pytest.raises(ValueError):
        ParseResult(step=ans("x"), timed_out=True)
    assert ParseResult(error="IndexError: list index out of range").crashed
    assert not ParseResult(timed_out=True).crashed


@pytest.mark.parametrize(("result", "code"), [
    (ParseResult(step=ans("x")), None),
    (ParseResult(error="KeyError: 'a'"), "parser-crashed"),
    (ParseResult(timed_out=True, elapsed=1.0), "timeout"),
], ids=["step", "crash", "timeout"])
def test_parse_result_as_a_step(result: ParseResult, code: str | None) -> None:
    step = result.to_step()
    assert (step.invalid.code if step.invalid else None) == code
    if result.error:
        assert result.error in step.invalid.message  # type: ignore[union-attr]


# --------------------------------------------------------------------------- exceptions


class OutputParserException(Exception):  # named like LangChain's
    pass


class ParseError(RuntimeError):
    pass


class StrictParseError(ParseError):
    pass


def raiser(exc: BaseException):  # type: ignore[no-untyped-def]
    def parse(text: str) -> Any:
        raise exc

    return parse


class MissingArgument(ValueError):
    """A framework's refusal that says why: a required argument is missing."""

    kind = "missing-arg"


class ForeignKind(ValueError):
    """A refusal whose ``kind`` means something else (not a reject kind): ignored."""

    kind = "json"


def recurse(text: str) -> Any:
    return recurse(text)


# (id, parser, refused?, the error or refusal text)
RAISED = [
    ("ValueError-is-a-refusal", raiser(ValueError("no action found")), True, "no action found"),
    ("ValueError-subclass-is-a-refusal", raiser(json.JSONDecodeError("bad", "x", 0)), True, "bad"),
    ("OutputParserException-is-a-refusal", raiser(OutputParserException("Could not parse")), True,
     "Could not parse"),
    ("ParseError-is-a-refusal", raiser(ParseError("nope")), True, "nope"),
    ("ParseError-subclass-is-a-refusal", raiser(StrictParseError("strict")), True, "strict"),
    ("empty-refusal-names-the-type", raiser(ValueError()), True, "ValueError"),
    ("kind-attribute-names-the-kind", raiser(MissingArgument("needs 'query'")), "missing-arg",
     "needs 'query'"),
    ("foreign-kind-attribute-is-ignored", raiser(ForeignKind("x")), True, "x"),
    ("IndexError-is-a-crash", raiser(IndexError("list index out of range")), False,
     "IndexError: list index out of range"),
    ("KeyError-is-a-crash", raiser(KeyError("action")), False, "KeyError: 'action'"),
    ("TypeError-is-a-crash", raiser(TypeError("bad operand")), False, "TypeError: bad operand"),
    ("AttributeError-is-a-crash", raiser(AttributeError("x")), False, "AttributeError: x"),
    ("RecursionError-is-a-crash", recurse, False, "RecursionError: maximum recursion depth"),
    ("SystemExit-is-a-crash", raiser(SystemExit(3)), False, "SystemExit: 3"),
]


@pytest.mark.parametrize(("parse", "refused", "text"), [r[1:] for r in RAISED],
                         ids=[r[0] for r in RAISED])
def test_exceptions_are_refusals_or_crashes(parse: Any, refused: bool | str, text: str) -> None:
    """A refusal's code is the kind its exception names (``kind``), else parser-refused."""
    result = function_target(parse, "bracket").run("Action: x[1]")
    if refused:
        assert result.step is not None and result.step.invalid is not None
        assert result.step.invalid.code == (refused if isinstance(refused, str)
                                            else "parser-refused")
        assert text in result.step.invalid.message
    else:
        assert result.crashed
        assert result.error is not None and result.error.startswith(text)


# --------------------------------------------------------------------------- user functions

TUTORIAL = '''\
import re
def parse(text):
    if "Final Answer:" in text:
        return ("final", text.split("Final Answer:")[-1].strip())
    m = re.search(r"Action: (.*?)\\nAction Input: (.*)", text)
    return ("action", (m.group(1).strip(), m.group(2).strip()))   # crashes when no match
'''

HELPERS = '''\

import os

def loop(text):
    if text == "loop":
        while True:
            pass
    return ("final", text)

def die(text):
    if text == "die":
        os._exit(3)
    return ("final", text)

def refuse(text):
    raise ValueError("Could not parse LLM output: " + text)

def index(text):
    return text.split("Action:")[1]

def unpicklable(text):
    return ("action", ("search", {"query": lambda: text}))

class Parser:
    def parse(self, text):
        return {"action": "search", "action_input": text}

parser = Parser()
NOT_CALLABLE = 42
'''


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    """A directory holding myagent.py: the tutorial parser plus misbehaving ones."""
    (tmp_path / "myagent.py").write_text(TUTORIAL + HELPERS)
    (tmp_path / "boom.py").write_text('raise RuntimeError("config missing")\n')
    (tmp_path / "broken_syntax.py").write_text("def parse(text)\n    return None\n")
    (tmp_path / "needs_dep.py").write_text("import surely_not_installed_dep\n")
    return tmp_path


def test_a_tutorial_parser_is_fuzzed_unchanged(agent_dir: Path) -> None:
    with load_target("myagent:parse", "action-input", cwd=agent_dir) as target:
        assert isinstance(target, FunctionTarget)
        good = target.run("Thought: look it up\nAction: search\nAction Input: Paris, France")
        assert good.step == act("search", "Paris, France", ("Paris, France",))
        assert target.run("Final Answer: 42").step == ans("42")
        crash = target.run("Thought: I know this one.")
        assert crash.crashed
        assert crash.error == "AttributeError: 'NoneType' object has no attribute 'group'"
        step = target.parse("Thought: I know this one.")
        assert step.invalid is not None and step.invalid.code == "parser-crashed"
        assert target.restarts == 0  # a Python exception does not cost the worker


def test_an_infinite_loop_times_out_and_the_worker_is_replaced(agent_dir: Path) -> None:
    with load_target("myagent:loop", "bracket", cwd=agent_dir, timeout=0.3) as target:
        result = target.run("loop")
        assert result.timed_out and not result.crashed
        assert result.elapsed >= 0.25  # it ran to its limit (a lower bound holds under load)
        assert target.parse("loop").invalid.code == "timeout"  # type: ignore[union-attr]
        assert target.run("fine").step == ans("fine")
        assert target.restarts == 2


def test_a_parser_that_kills_its_process_is_a_crash_and_the_next_call_works(
    agent_dir: Path,
) -> None:
    with load_target("myagent:die", "bracket", cwd=agent_dir) as target:
        result = target.run("die")
        assert result.crashed
        assert result.error == "worker died: exit code 3"
        assert target.run("fine").step == ans("fine")
        assert target.restarts == 1


@pytest.mark.parametrize(("spec", "refused", "text"), [
    ("myagent:refuse", True, "Could not parse LLM output: hello"),
    ("myagent:index", False, "IndexError: list index out of range"),
    ("myagent:unpicklable", False, "the parser's result cannot be sent back"),
], ids=["ValueError-refused", "IndexError-crash", "unpicklable-result-crash"])
def test_worker_classifies_what_the_parser_raised(
    agent_dir: Path, spec: str, refused: bool, text: str
) -> None:
    with load_target(spec, "bracket", cwd=agent_dir) as target:
        result = target.run("hello")
        if refused:
            assert result.step is not None and result.step.invalid is not None
            assert result.step.invalid.code == "parser-refused"
            assert result.step.invalid.message == text
        else:
            assert result.error is not None and result.error.startswith(text)
        assert target.restarts == 0  # an exception does not cost the worker


def test_an_object_with_a_parse_method(agent_dir: Path) -> None:
    with load_target("myagent:parser", "bracket", cwd=agent_dir) as target:
        assert target.run("x").step == act("search", "x", ("x",))


# (id, spec, phrase of the one-line message)
BAD_SPECS = [
    ("module-not-found", "nomodule:parse", "no module named 'nomodule'"),
    ("attribute-missing", "myagent:missing", "has no attribute 'missing'"),
    ("no-colon", "myagent", "unknown target 'myagent'"),
    ("raises-on-import", "boom:parse", "RuntimeError: config missing"),
    ("syntax-error", "broken_syntax:parse", "SyntaxError"),
    ("imports-a-missing-dependency", "needs_dep:parse", "surely_not_installed_dep"),
    ("not-callable", "myagent:NOT_CALLABLE", "not a function or an object with a parse method"),
    ("a-class", "myagent:Parser", "is a class: point at an instance"),
    ("empty-attribute", "myagent:", "not an import path"),
]


@pytest.mark.parametrize(("spec", "phrase"), [r[1:] for r in BAD_SPECS],
                         ids=[r[0] for r in BAD_SPECS])
def test_bad_import_paths_are_one_line_usage_errors(
    agent_dir: Path, spec: str, phrase: str
) -> None:
    with pytest.raises(UsageError) as info:
        load_target(spec, "bracket", cwd=agent_dir)
    message = str(info.value)
    assert "\n" not in message
    assert phrase in message
    assert repr(spec) in message


def test_function_target_without_a_colon_explains_the_form(agent_dir: Path) -> None:
    with pytest.raises(UsageError, match=r"write 'module:function', for example 'myagent:parse'"):
        function_target("myagent", cwd=agent_dir)


def test_the_working_directory_decides_which_module_is_imported(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for d, text in ((one, "one"), (two, "two")):
        d.mkdir()
        (d / "myagent.py").write_text(f"def parse(text):\n    return ('final', {text!r})\n")
    with load_target("myagent:parse", cwd=one) as a, load_target("myagent:parse", cwd=two) as b:
        assert a.run("x").step == ans("one")
        assert b.run("x").step == ans("two")


def test_close_stops_the_worker_and_is_idempotent(agent_dir: Path) -> None:
    target = load_target("myagent:parse", "action-input", cwd=agent_dir)
    assert isinstance(target, FunctionTarget)
    worker = target._holder["worker"]
    assert worker is not None and worker.process.is_alive()
    target.close()
    target.close()
    assert not worker.process.is_alive()
    with pytest.raises(UsageError, match="closed"):
        target.run("x")


@pytest.mark.skipif("spawn" not in multiprocessing.get_all_start_methods(), reason="no spawn")
def test_the_spawn_start_method_works_too(agent_dir: Path) -> None:
    with function_target("myagent:die", "bracket", cwd=agent_dir, start_method="spawn") as target:
        assert target.run("fine").step == ans("fine")
        assert target.run("die").error == "worker died: exit code 3"
        assert target.run("again").step == ans("again")


def test_an_imported_callable_runs_in_process_with_a_soft_timeout() -> None:
    def spin(text: str) -> Any:
        if text == "loop":
            while True:
                pass
        return ("final", text)

    before = signal.getsignal(signal.SIGALRM)
    target = function_target(spin, "bracket", timeout=0.2)
    assert isinstance(target, CallableTarget)
    assert target.name.endswith("spin")
    result = target.run("loop")
    assert result.timed_out and result.elapsed >= 0.15
    assert target.run("ok").step == ans("ok")
    assert signal.getsignal(signal.SIGALRM) is before


def test_a_parser_object_runs_in_process() -> None:
    class Mine:
        def parse(self, text: str) -> Any:
            return AgentAction("search", text)

    assert load_target(Mine()).run("q").step == act("search", "q", ("q",))


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), "1"], ids=repr)
def test_a_timeout_must_be_a_positive_number(timeout: Any) -> None:
    with pytest.raises(UsageError, match="timeout"):
        function_target(lambda t: None, timeout=timeout)


# --------------------------------------------------------------------------- built-ins


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_every_builtin_parser_is_a_target_that_round_trips_its_name(name: str) -> None:
    target = load_target(name, "bracket")
    assert isinstance(target, BuiltinTarget) and target.name == name
    assert load_target(target.name, "bracket").name == name
    result = target.run("Thought: hm\nAction: search[x]")
    assert result.step is not None and result.elapsed >= 0
    assert isinstance(target, Parser)  # a target plugs in wherever a parser does


def test_a_builtin_regex_timeout_is_reported_as_timed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    @dataclass(frozen=True)
    class Slow:
        format: Any
        name: str = "slow"

        def parse(self, completion: str) -> Step:
            return Step(invalid=Invalid("timeout", "ran past 1s"))

    PARSERS.add("slow", Slow)
    try:
        assert builtin_target("slow").run("x").timed_out
    finally:
        PARSERS.remove("slow")


def test_load_target_unknown_name_lists_builtins_and_forms() -> None:
    with pytest.raises(UsageError) as info:
        load_target("classic")
    message = str(info.value)
    for name in PARSERS:
        assert name in message
    for form in ("module:function", "regex:<pattern>", "grammar:"):
        assert form in message


def test_load_target_passes_options_only_where_they_apply() -> None:
    assert isinstance(load_target("grammar", timeout=2.0, cwd="."), BuiltinTarget)
    with pytest.raises(UsageError, match="unknown target option 'timout'"):
        load_target("grammar", timout=2.0)


def test_load_target_returns_a_target_as_is() -> None:
    target = builtin_target("grammar")
    assert load_target(target) is target


# --------------------------------------------------------------------------- regex targets

CLASSIC = r"^Action:\s*(?P<tool>\w+)\[(?P<args>.*)\]\s*$"

# (id, pattern, format, options, completion, the Step)
REGEX_READS = [
    ("args-split-on-commas", CLASSIC, "bracket", {}, "Thought: hm\nAction: search[Paris, France]",
     act("search", "Paris, France", ("Paris", "France"), thought="hm")),
    ("empty-brackets-one-empty-arg", CLASSIC, "bracket", {}, "Action: get_time[]",
     act("get_time", "", ("",))),
    ("answer-label-at-line-start", CLASSIC, "bracket", {}, "Thought: done\nAnswer: 42\nreally",
     ans("42\nreally", thought="done")),
    ("answer-first-like-the-classic-loop", CLASSIC, "bracket", {},
     "Action: search[x]\nAnswer: early", ans("early", thought="Action: search[x]")),
    ("action-first-when-asked", CLASSIC, "bracket", {"answer_first": False},
     "Action: search[x]\nAnswer: early", act("search", "x", ("x",))),
    ("input-group-one-argument", r"^Action: (?P<tool>.+)\nAction Input: (?P<input>.*)",
     "action-input", {}, "Action: search\nAction Input:  Paris, France ",
     act("search", "Paris, France", ("Paris, France",))),
    ("final-answer-label-of-the-format", r"^Action: (?P<tool>.+)\nAction Input: (?P<input>.*)",
     "action-input", {}, "Final Answer: yes", ans("yes")),
    ("finish-action-is-the-answer", r"^Action \d+: (?P<tool>\w+)\[(?P<args>.*)\]", "paper", {},
     "Thought 1: ok\nAction 1: Finish[Paris]", ans("Paris", thought="ok")),
    ("thought-group", r"^Thought: (?P<thought>.*)\nAction: (?P<tool>\w+)\[(?P<args>.*)\]",
     "bracket", {}, "Thought: why\nAction: search[x]", act("search", "x", ("x",), thought="why")),
    ("answer-group-in-the-pattern",
     r"^(?:Action: (?P<tool>\w+)\[(?P<args>.*)\]|Done: (?P<answer>.*))", "bracket", {},
     "Answer: not this\nDone: that", ans("that", thought="Answer: not this")),
    ("own-answer-pattern", CLASSIC, "bracket", {"answer_pattern": r"^FINAL (?P<answer>.*)"},
     "FINAL x", ans("x")),
    ("inline-flags", r"(?i)^action:\s*(?P<tool>\w+)\[(?P<args>.*)\]", "bracket", {},
     "ACTION: search[x]", act("search", "x", ("x",))),
]


@pytest.mark.parametrize(("pattern", "fmt", "options", "completion", "expected"),
                         [r[1:] for r in REGEX_READS], ids=[r[0] for r in REGEX_READS])
def test_regex_target_reads_the_classic_way(
    pattern: str, fmt: str, options: dict[str, Any], completion: str, expected: Step
) -> None:
    target = regex_target(pattern, fmt, **options)
    assert target.run(completion).step == expected
    assert load_target(target.name, fmt, **options).run(completion).step == expected


def test_regex_target_without_a_match_is_invalid() -> None:
    step = load_target(f"regex:{CLASSIC}").parse("Thought: nothing to do")
    assert step.invalid is not None and step.invalid.code == "no-action"


def test_a_catastrophic_pattern_is_a_timeout_finding_not_a_hung_run() -> None:
    # The regex module defuses (a+)+; an alternation of equal branches still explodes.
    target = regex_target(r"^Action:\s*(?P<tool>\w+)\[(?P<args>(a|a)+)\]", timeout=0.2)
    assert isinstance(target, RegexTarget)
    result = target.run("Action: x[" + "a" * 30 + "!]")
    assert result.timed_out  # 2**30 steps would take minutes: the limit ended it
    assert target.run("Action: x[aa]").step == act("x", "aa", ("aa",))


# (id, spec, phrase)
BAD_PATTERNS = [
    ("no-tool-group", r"regex:^Action:\s*(\w+)\[(.*)\]", "no named group 'tool'"),
    ("does-not-compile", r"regex:^Action: (?P<tool>\w+", "does not compile: missing )"),
    ("empty", "regex:", "is empty"),
]


@pytest.mark.parametrize(("spec", "phrase"), [r[1:] for r in BAD_PATTERNS],
                         ids=[r[0] for r in BAD_PATTERNS])
def test_bad_patterns_are_usage_errors(spec: str, phrase: str) -> None:
    with pytest.raises(UsageError, match=phrase.replace("(", r"\(").replace(")", r"\)")) as info:
        load_target(spec)
    assert "\n" not in str(info.value)


def test_an_answer_pattern_needs_an_answer_group() -> None:
    with pytest.raises(UsageError, match="no named group 'answer'"):
        regex_target(CLASSIC, answer_pattern=r"^Answer: (.*)")


# --------------------------------------------------------------------------- grammar targets

GRAMMAR_CASES = [
    "Thought: hm\nAction: search[Paris, France]",
    'Action: search["Paris, France"]',
    "Answer: 42",
    "Action: search[x]\nObservation: made up",
    "nothing here",
]


def test_a_copy_of_the_builtin_grammar_reads_like_the_builtin(tmp_path: Path) -> None:
    path = tmp_path / "mine.lark"
    shutil.copy(grammar_dir() / "bracket.lark", path)
    target = load_target(f"grammar:{path}", "bracket")
    assert isinstance(target, GrammarTarget)
    assert target.format.grammar == str(path.resolve())
    for completion in GRAMMAR_CASES:
        assert target.run(completion).step == grammar_parse(completion, "bracket")


def test_a_grammar_that_does_not_compile_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.lark"
    path.write_text("completion: action\ntranscript: action\naction: ACTION %%% \n")
    with pytest.raises(GrammarError) as info:
        grammar_target(path, "bracket")
    assert str(path) in str(info.value)
    assert "line" in str(info.value)


def test_a_grammar_without_the_familys_rules_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tiny.lark"
    path.write_text('completion: "x" _EOL\ntranscript: completion\n%import lines (_EOL)\n')
    with pytest.raises(GrammarError, match=r"no rule 'action'.*bracket\.lark"):
        grammar_target(path, "bracket")


def test_a_missing_grammar_file_is_a_grammar_error(tmp_path: Path) -> None:
    with pytest.raises(GrammarError, match="not found"):
        load_target(f"grammar:{tmp_path / 'nope.lark'}")


# --------------------------------------------------------------------------- load_tools

TOOLS_MODULE = '''\
from typing import Literal
from pydantic import BaseModel
from reactfuzz.tools import ToolRegistry

def lookup(order_id: str) -> str:
    """Look up an order."""

def cancel(order_id: str, reason: Literal["late", "wrong"] = "late") -> str:
    """Cancel an order."""

class Ship(BaseModel):
    """Ship an order."""
    order_id: str

def untyped(x):
    pass

TOOLS = [lookup, cancel]
MIXED = (lookup, Ship)
REGISTRY = ToolRegistry([cancel])

def make_tools():
    return [lookup]

def needs_args(n):
    return [lookup]

def returns_junk():
    return 42

def raises():
    raise RuntimeError("no tools today")

BAD = [untyped]
EMPTY = []
NUMBER = 7
'''


@pytest.fixture
def tools_dir(tmp_path: Path) -> Path:
    (tmp_path / "mytools.py").write_text(TOOLS_MODULE)
    (tmp_path / "tools.json").write_text(json.dumps([{
        "name": "search", "description": "Search.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
                       "required": ["query"]},
    }]))
    (tmp_path / "tools.yaml").write_text("- search\n")
    return tmp_path


# (id, spec, the tool names)
GOOD_TOOLS = [
    ("list-of-functions", "mytools:TOOLS", ("lookup", "cancel")),
    ("functions-and-models", "mytools:MIXED", ("lookup", "ship")),
    ("registry", "mytools:REGISTRY", ("cancel",)),
    ("factory", "mytools:make_tools", ("lookup",)),
    ("single-model", "mytools:Ship", ("ship",)),
    ("json-file", "tools.json", ("search",)),
]


@pytest.mark.parametrize(("spec", "names"), [r[1:] for r in GOOD_TOOLS],
                         ids=[r[0] for r in GOOD_TOOLS])
def test_load_tools(tools_dir: Path, monkeypatch: pytest.MonkeyPatch, spec: str,
                    names: tuple[str, ...]) -> None:
    monkeypatch.chdir(tools_dir)
    registry = load_tools(spec)
    assert isinstance(registry, ToolRegistry)
    assert registry.names() == names


def test_load_tools_default_and_passthrough() -> None:
    registry = load_tools("default")
    assert "list_invoices" in registry
    assert load_tools(registry) is registry


# (id, spec, error type, phrase)
BAD_TOOLS = [
    ("unknown-word", "defaults", UsageError, "use 'default', a .json file"),
    ("not-json-file", "tools.yaml", UsageError, "must be JSON"),
    ("missing-json-file", "nope.json", InputFileError, "nope.json: tool file not found"),
    ("module-not-found", "nomod:TOOLS", UsageError, "no module named 'nomod'"),
    ("attribute-missing", "mytools:NOPE", UsageError, "has no attribute 'NOPE'"),
    ("not-tools", "mytools:NUMBER", UsageError, "is not a ToolRegistry"),
    ("untyped-function", "mytools:BAD", UsageError, "parameter 'x'"),
    ("empty-list", "mytools:EMPTY", UsageError, "empty"),
    ("factory-with-arguments", "mytools:needs_args", UsageError, "takes arguments (n)"),
    ("factory-returns-junk", "mytools:returns_junk", UsageError, "returned int"),
    ("factory-raises", "mytools:raises", UsageError, "RuntimeError: no tools today"),
]


@pytest.mark.parametrize(("spec", "error", "phrase"), [r[1:] for r in BAD_TOOLS],
                         ids=[r[0] for r in BAD_TOOLS])
def test_bad_tools_are_one_line_errors(tools_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                       spec: str, error: type[Exception], phrase: str) -> None:
    monkeypatch.chdir(tools_dir)
    with pytest.raises(error) as info:
        load_tools(spec)
    assert type(info.value) is error
    assert phrase in str(info.value)
    assert "\n" not in str(info.value)


def test_load_tools_with_an_explicit_directory(tools_dir: Path) -> None:
    assert load_tools("mytools:TOOLS", cwd=tools_dir).names() == ("lookup", "cancel")
    assert load_tools("tools.json", cwd=tools_dir).names() == ("search",)


# --------------------------------------------------------------------------- the base


def test_every_kind_is_a_target_and_a_context_manager(agent_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "g.lark"
    shutil.copy(grammar_dir() / "bracket.lark", path)
    made = [
        load_target("classic-bracket"),
        load_target("myagent:parse", "action-input", cwd=agent_dir),
        load_target(lambda text: ("final", text)),
        load_target(f"regex:{CLASSIC}"),
        load_target(f"grammar:{path}"),
    ]
    for target in made:
        with target as t:
            assert isinstance(t, Target)
            assert isinstance(t.run("Answer: yes"), ParseResult)
            assert t.parse("Answer: yes").kind in ("answer", "invalid", "action")


def test_a_pydantic_result_with_agent_action_fields_is_adapted() -> None:
    class Out(BaseModel):  # LangChain's AgentAction is a pydantic model
        tool: str
        tool_input: dict[str, Any]
        log: str = ""

    assert adapt(Out(tool="search", tool_input={"query": "x"})) == act(
        "search", '{"query": "x"}', ("x",), ("query",)
    )
