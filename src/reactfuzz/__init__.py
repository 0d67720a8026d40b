"""reactfuzz: property-based testing for the parsers behind text-protocol ReAct agents."""

from __future__ import annotations

from .errors import FormatError, GrammarError, InputFileError, ReactfuzzError, UsageError
from .formats import BUILTIN_FORMATS, Format, Labels, get_format, load_format
from .grammars import Transcript, grammar_parse, parse_transcript
from .model import Action, Call, FinalAnswer, Intent, Invalid, Step

__version__ = "0.1.0"

__all__ = [
    "BUILTIN_FORMATS",
    "Action",
    "Call",
    "FinalAnswer",
    "Format",
    "FormatError",
    "GrammarError",
    "InputFileError",
    "Intent",
    "Invalid",
    "Labels",
    "ReactfuzzError",
    "Step",
    "Transcript",
    "UsageError",
    "__version__",
    "get_format",
    "grammar_parse",
    "load_format",
    "parse_transcript",
]
