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
from .model import Action, Call, FinalAnswer, Intent, Invalid, Step
from .oracle import STRICT, Acceptable, Expectation, Policy, Verdict, judge, oracle
from .parsers import PARSERS, Parser, get_parser, register_parser
from .render import render, representable, written_form
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
    "BUILTIN_DESIGNS",
    "BUILTIN_FORMATS",
    "PARSERS",
    "STRICT",
    "Acceptable",
    "Action",
    "Call",
    "Crashed",
    "Design",
    "Executed",
    "Expectation",
    "FinalAnswer",
    "Finished",
    "Format",
    "FormatError",
    "GrammarError",
    "InputFileError",
    "Intent",
    "Invalid",
    "Labels",
    "Outcome",
    "Parser",
    "Policy",
    "ReactfuzzError",
    "Rejected",
    "Step",
    "Tool",
    "ToolRegistry",
    "Transcript",
    "UsageError",
    "Verdict",
    "__version__",
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
    "register_parser",
    "render",
    "representable",
    "tool_from_function",
    "tool_from_model",
    "written_form",
]
