"""reactfuzz: property-based testing for the parsers behind text-protocol ReAct agents."""

from __future__ import annotations

from .checks import CHECKS, Check, CheckInput, Failure, check
from .corpus import Finding
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
from .engine import FuzzConfig, replay, run_fuzz, run_fuzz_parallel
from .errors import FormatError, GrammarError, InputFileError, ReactfuzzError, UsageError
from .formats import BUILTIN_FORMATS, Format, Labels, get_format, load_format
from .grammars import Transcript, grammar_parse, parse_transcript
from .llm import Completion, FakeLLM, HypothesisSource, apply_stop, stream_parse
from .loop import RequestTokens, Trace, Turn, run
from .model import Action, Call, FinalAnswer, Intent, Invalid, Step
from .oracle import STRICT, Acceptable, Expectation, Policy, Verdict, judge, oracle
from .parsers import PARSERS, Parser, get_parser, register_parser
from .render import render, representable, written_form
from .results import RunSummary, StudyResult
from .strategies import ABUSES, Abuse, Scenario, register_abuse, scenarios, transcripts
from .study import run_study
from .targets import Target, load_target, load_tools
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
    "CHECKS",
    "PARSERS",
    "STRICT",
    "Abuse",
    "Acceptable",
    "Action",
    "Call",
    "Check",
    "CheckInput",
    "Completion",
    "Crashed",
    "Design",
    "Executed",
    "Expectation",
    "Failure",
    "FakeLLM",
    "FinalAnswer",
    "Finding",
    "Finished",
    "Format",
    "FormatError",
    "FuzzConfig",
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
    "RunSummary",
    "Scenario",
    "Step",
    "StudyResult",
    "Target",
    "Tool",
    "ToolRegistry",
    "Trace",
    "Transcript",
    "Turn",
    "UsageError",
    "Verdict",
    "__version__",
    "apply_stop",
    "check",
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
    "load_target",
    "load_tools",
    "load_tools_json",
    "oracle",
    "parse_transcript",
    "register_abuse",
    "register_parser",
    "render",
    "replay",
    "representable",
    "run",
    "run_fuzz",
    "run_fuzz_parallel",
    "run_study",
    "scenarios",
    "stream_parse",
    "tool_from_function",
    "tool_from_model",
    "transcripts",
    "written_form",
]
