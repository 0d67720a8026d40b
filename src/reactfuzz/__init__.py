"""reactfuzz: property-based testing for the parsers behind text-protocol ReAct agents."""

from __future__ import annotations

from .designs import BUILTIN_DESIGNS, Design, decision_table
from .dispatch import (
    Crashed,
    Executed,
    Finished,
    Outcome,
    Rejected,
    dispatch_positional,
    dispatch_typed,
    get_dispatcher,
)
from .errors import FormatError, GrammarError, InputFileError, ReactfuzzError, UsageError
from .formats import BUILTIN_FORMATS, Format, Labels, get_format, load_format
from .grammars import Transcript, grammar_parse, parse_transcript
from .llm import Completion, FakeLLM, HypothesisSource, apply_stop, stream_parse
from .loop import RequestTokens, Trace, Turn, run
from .model import Action, Call, FinalAnswer, Intent, Invalid, Step
from .oracle import STRICT, Acceptable, Expectation, Policy, Verdict, judge, oracle
from .parsers import PARSERS, Parser, get_parser, register_parser
from .render import render, representable, written_form
from .strategies import ABUSES, Abuse, Scenario, register_abuse, scenarios, transcripts
from .tools import (
    Tool,
    ToolRegistry,
    default_registry,
    load_tools_json,
    tool_from_function,
    tool_from_model,
)

__version__ = "0.1.0"

__all__ = [
    "ABUSES",
    "BUILTIN_DESIGNS",
    "BUILTIN_FORMATS",
    "PARSERS",
    "STRICT",
    "Abuse",
    "Acceptable",
    "Action",
    "Call",
    "Completion",
    "Crashed",
    "Design",
    "Executed",
    "Expectation",
    "FakeLLM",
    "FinalAnswer",
    "Finished",
    "Format",
    "FormatError",
    "GrammarError",
    "HypothesisSource",
    "InputFileError",
    "Intent",
    "Invalid",
    "Labels",
    "Outcome",
    "Parser",
    "Policy",
    "ReactfuzzError",
    "Rejected",
    "RequestTokens",
    "Scenario",
    "Step",
    "Tool",
    "ToolRegistry",
    "Trace",
    "Transcript",
    "Turn",
    "UsageError",
    "Verdict",
    "__version__",
    "apply_stop",
    "decision_table",
    "default_registry",
    "dispatch_positional",
    "dispatch_typed",
    "get_dispatcher",
    "get_format",
    "get_parser",
    "grammar_parse",
    "judge",
    "load_format",
    "load_tools_json",
    "oracle",
    "parse_transcript",
    "register_abuse",
    "register_parser",
    "render",
    "representable",
    "run",
    "scenarios",
    "stream_parse",
    "tool_from_function",
    "tool_from_model",
    "transcripts",
    "written_form",
]
