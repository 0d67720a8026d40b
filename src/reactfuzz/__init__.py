"""reactfuzz: property-based testing for the parsers behind text-protocol ReAct agents.

Every public name is importable from here, but ``import reactfuzz`` loads none of the
modules behind them: a name's home module is imported the first time the name is used
(PEP 562), so the pytest plugin and ``reactfuzz --help`` do not pay for Hypothesis, Lark
and pydantic up front. ``_EXPORTS`` is the one table of which name lives where.
"""

from __future__ import annotations

import importlib as _importlib
import sys as _sys
import types as _types
import typing as _typing

if _typing.TYPE_CHECKING:
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
    from .engine.checks import CHECKS, Check, CheckInput, Failure, check
    from .engine.corpus import Finding
    from .engine.results import RunSummary, StudyResult
    from .engine.study import run_study
    from .errors import FormatError, GrammarError, InputFileError, ReactfuzzError, UsageError
    from .formats import BUILTIN_FORMATS, Format, Labels, get_format, load_format
    from .formats.grammars import Transcript, grammar_parse, parse_transcript
    from .llm import Completion, FakeLLM, HypothesisSource, apply_stop, stream_parse
    from .loop import RequestTokens, Trace, Turn, run
    from .model import Action, Call, FinalAnswer, Intent, Invalid, Step
    from .oracle import STRICT, Acceptable, Expectation, Policy, Verdict, judge, oracle
    from .parsers import PARSERS, Parser, get_parser, register_parser
    from .render import render, representable, written_form
    from .safe import SafeParser, safe_parser
    from .strategies import ABUSES, Abuse, Scenario, register_abuse, scenarios, transcripts
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

# home module (relative to this package) -> the public names it provides
_HOMES: dict[str, tuple[str, ...]] = {
    "engine.checks": ("CHECKS", "Check", "CheckInput", "Failure", "check"),
    "engine.corpus": ("Finding",),
    "designs": ("BUILTIN_DESIGNS", "Design", "decision_table"),
    "dispatch": ("Crashed", "Executed", "Finished", "Outcome", "Rejected",
                 "dispatch_positional", "dispatch_typed", "get_dispatcher"),
    "engine": ("FuzzConfig", "replay", "run_fuzz", "run_fuzz_parallel"),
    "errors": ("FormatError", "GrammarError", "InputFileError", "ReactfuzzError", "UsageError"),
    "formats": ("BUILTIN_FORMATS", "Format", "Labels", "get_format", "load_format"),
    "formats.grammars": ("Transcript", "grammar_parse", "parse_transcript"),
    "llm": ("Completion", "FakeLLM", "HypothesisSource", "apply_stop", "stream_parse"),
    "loop": ("RequestTokens", "Trace", "Turn", "run"),
    "model": ("Action", "Call", "FinalAnswer", "Intent", "Invalid", "Step"),
    "oracle": ("STRICT", "Acceptable", "Expectation", "Policy", "Verdict", "judge", "oracle"),
    "parsers": ("PARSERS", "Parser", "get_parser", "register_parser"),
    "render": ("render", "representable", "written_form"),
    "engine.results": ("RunSummary", "StudyResult"),
    "safe": ("SafeParser", "safe_parser"),
    "strategies": ("ABUSES", "Abuse", "Scenario", "register_abuse", "scenarios", "transcripts"),
    "engine.study": ("run_study",),
    "targets": ("Target", "load_target", "load_tools"),
    "tools": ("Tool", "ToolRegistry", "default_registry", "load_tools_json",
              "tool_from_function", "tool_from_model"),
}

_EXPORTS: dict[str, str] = {name: home for home, names in _HOMES.items() for name in names}
"""Public name -> its home module."""

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
    "SafeParser",
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
    "safe_parser",
    "scenarios",
    "stream_parse",
    "tool_from_function",
    "tool_from_model",
    "transcripts",
    "written_form",
]


def __getattr__(name: str) -> _typing.Any:
    """Import a public name's home module on first use and keep the name here."""
    home = _EXPORTS.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, whether or not they have been loaded yet."""
    return sorted({*globals(), *__all__})


class _Facade(_types.ModuleType):
    """This package's module type: a loaded submodule never shadows a public name.

    Importing a submodule binds it on its package; ``reactfuzz.oracle`` and
    ``reactfuzz.render`` are public functions named like their modules, and stay so.
    """

    def __setattr__(self, name: str, value: _typing.Any) -> None:
        if isinstance(value, _types.ModuleType) and _EXPORTS.get(name) == name:
            return  # the public function wins, loaded on first access as any other name
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Facade
