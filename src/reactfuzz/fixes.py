"""The fixes: one concrete change per parser mechanism, named once for every layer.

Advice is declared where the thing it is about is registered: an abuse operator's with
:func:`~reactfuzz.strategies.register_abuse` (``advice=Advice(...)``), a check's with
:func:`~reactfuzz.engine.checks.check` (``advice=...``), a format family's as
:attr:`Family.advice <reactfuzz.formats.Family.advice>`. The mechanisms many of them share
are named here; :mod:`reactfuzz.engine.advice` chooses among the declared texts for a
finding and renders the choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "ACTION_ANYWHERE",
    "ANCHOR",
    "ANSWER_TEXT",
    "BIND",
    "BRACE_PROSE",
    "CALL_SHAPE",
    "CASE",
    "CLEAN_MISREAD",
    "CRLF",
    "DOMAIN_TEXT",
    "EMPTY_TEXT",
    "GENERIC",
    "IN_PLACE",
    "JSON_FAMILIES",
    "JSON_FIELD",
    "LAST_KEY",
    "LENIENT",
    "LINEAR",
    "LINES",
    "MULTILINE_ARG",
    "NAMES",
    "NO_TRAILING",
    "ONE_STEP",
    "PARTIAL_STOP",
    "PROTOCOL",
    "QUOTE",
    "QUOTE_STOP_WORD",
    "SCHEMA",
    "SPACING",
    "STOP",
    "STRICT_JSON",
    "STRIP_MARKUP",
    "UNWRAP",
    "WHOLE_TEXT",
    "Advice",
]

# ---------------------------------------------------------------------------- mechanisms

ANCHOR: Final = ("Match labels only at the start of a line (`^Action:` with `re.MULTILINE`)"
                 " and never with `\"Answer:\" in text`, so a label quoted in a thought, an"
                 " argument or an answer stays text.")
ONE_STEP: Final = ("Refuse a completion holding two actions, or an action and an answer, and"
                   " ask the model again instead of running whichever matched first.")
NO_TRAILING: Final = ("Refuse text after the action on its line (end the pattern with"
                      " `\\s*$` and use a non-greedy argument group), so a chatty or"
                      " half-written action never runs.")
QUOTE: Final = ("Never split the argument text on commas: have the model write text"
                " arguments as JSON strings (`search[\"Paris, France\"]`) or use a"
                " JSON-arguments format, and decode them with `json.loads`.")
SCHEMA: Final = ("Validate the arguments against the tool's schema (a pydantic model or"
                 " `jsonschema`) before the call, and send the validation error back to the"
                 " model instead of running the tool.")
BIND: Final = ("Bind the arguments by name and validate them against the tool's schema"
               " instead of calling `fn(*args)`: a missing or surplus value is then a"
               " refusal, not a shifted argument or a `TypeError`.")
STOP: Final = ("Send the format's stop list to the provider (`stop=[\"Observation:\"]`) and"
               " cut the completion at the first line that starts with the observation label"
               " before acting on it or keeping it in the transcript.")
LINES: Final = ("Match labels only at the start of a line split on `\\n` alone (`^Answer:` with"
                " `re.MULTILINE`, not `in text` or `str.splitlines()`), so a label after `\\r`,"
                " `\\u2028` or `\\x85` stays inside its line.")
CRLF: Final = ("Normalise `\\r\\n` to `\\n` before parsing (or allow `\\r?$`), so a"
               " completion with Windows line endings reads as the same action.")
JSON_FIELD: Final = ("Read the arguments object with `json.loads` on the argument field"
                     " itself, not on a slice from the first `{` to the last `}` of the"
                     " text, and refuse what does not decode.")
STRICT_JSON: Final = ("Decode the arguments with a strict `json.loads` (no JSON5, no quote"
                      " swapping, no comment stripping) and refuse what does not decode,"
                      " instead of guessing a call.")
LAST_KEY: Final = ("Read a repeated argument name as JSON does (the last value wins) or"
                   " refuse it; never keep the first copy.")
NAMES: Final = ("Look tool names up exactly in the registry and refuse an unknown name"
                " with the list of tools (no case folding, prefix stripping or closest"
                " match, and no `tools[name]` KeyError).")
UNWRAP: Final = ("Bind the top-level keys of the arguments object to the tool's parameters"
                 " and refuse a nested wrapper (`{\"args\": {...}}`) through schema"
                 " validation instead of unwrapping it.")
STRIP_MARKUP: Final = ("Accept the action with markdown around it (strip `**`, backticks and"
                       " code fences around the label and the name) or refuse it with a"
                       " reason; never run a name or value with the markup kept.")
CASE: Final = ("Match labels in one case and refuse the others with a reason, or accept"
               " every case consistently for every label; a case-insensitive `in` test"
               " for the answer label alone finds it inside thoughts.")
SPACING: Final = ("Allow optional spaces around the label's colon (`^Action\\s*:\\s*`) in"
                  " one place for every label, and refuse anything else with a reason.")
WHOLE_TEXT: Final = ("Take a free-text argument exactly as written: no quote swapping, no"
                     " `.strip('\"')`, no unescaping the format does not define.")
LINEAR: Final = ("Remove nested or overlapping quantifiers (`(\\s*\\w*\\s*)*`, `\\s*$` after"
                 " `.*`), or parse with a grammar, and run user-facing regexes with a"
                 " timeout (`regex` module `timeout=`).")
CALL_SHAPE: Final = ("Decode the call object once and check its shape: read the shapes"
                     " you document and refuse any other with a message the model can act"
                     " on; never drop a call without a word, show it as the answer, or index"
                     " into a value that is not an object.")
MULTILINE_ARG: Final = ("Read the action's value up to the next label line (DOTALL, or a"
                        " JSON decoder on the whole field), so an argument spread over"
                        " several lines is not cut at its first line.")
ANSWER_TEXT: Final = ("Show the user only the text after the answer label, and treat a"
                      " completion with neither an action nor an answer label as a refusal"
                      " to retry, not as the answer.")
EMPTY_TEXT: Final = ("Treat an empty or label-only completion as a refusal with a reason,"
                     " not as an empty final answer.")
BRACE_PROSE: Final = ("Find the action by its label or fence and decode only that field;"
                      " a brace or bracket in the surrounding prose is text.")
PARTIAL_STOP: Final = ("Refuse an action whose value ends in the first letters of the stop"
                       " word (`Observ`), or cut them off, instead of running it with them.")
IN_PLACE: Final = ("Read each part where the format puts it: the tool name from the action"
                   " line alone, the arguments as one JSON field (a string ends at its"
                   " closing quote, whatever it holds) and the answer to its end.")
DOMAIN_TEXT: Final = ("End an argument only where the format ends it (its closing quote, bracket,"
                      " tag or the next label line), never at a `;`, `|`, `&`, `#`, code fence"
                      " or line break inside it, and pass the text on whole.")
LENIENT: Final = ("Decode with a strict `json.loads` first; a JSON5 or repair fallback must"
                  " give the same strings (`\\ud83c\\udf89` is one emoji, never two lone"
                  " surrogates) or refuse.")

CLEAN_MISREAD: Final = ("Your parser misreads the format's own clean output: compare its labels,"
                        " argument encoding and quoting with `reactfuzz parse --format FORMAT`"
                        " and fix the pattern.")
ACTION_ANYWHERE: Final = ("Anchor the action pattern at a line start (`re.match`/`^` with"
                          " `re.MULTILINE`, not `re.search` anywhere), so an action mentioned in"
                          " a thought is not run.")
QUOTE_STOP_WORD: Final = ("Ask the model to quote or rephrase an argument that holds the stop"
                          " word: the provider cuts the completion there.")

PROTOCOL: Final = ("The format cannot carry this intent as written: have the model quote"
                   " text arguments, or move to a format with JSON arguments (`json-args`,"
                   " a tool-call tag), where any text fits in a string.")
"""The advice on a protocol note (the format cannot carry the intent) without its own."""

GENERIC: Final = ("Replace the hand-written parser with the format's grammar and typed"
                  " dispatch (`reactfuzz.safe_parser(format, tools)`), which refuses what"
                  " it cannot read.")
"""The advice when nothing more precise is known."""

JSON_FAMILIES: Final = ("json_args", "action_input_json", "json_blob", "bare_json", "tag")
"""The families whose arguments are one JSON value a decoder reads (operators word some
fixes for them in JSON's terms)."""

# ---------------------------------------------------------------------------- an operator's


@dataclass(frozen=True)
class Advice:
    """An abuse operator's fix (``register_abuse(..., advice=Advice(...))``).

    ``wrong``: when the design acted on a misreading (a wrong call, a hijacked answer, a
    laxer reading than the grammar's); ``drop``: when it refused a text the format carries
    (a silent drop, a stricter reading), the same as ``wrong`` when not given. ``family``
    words ``wrong`` for one format family (a delimiter is a comma in brackets, a quote in
    JSON); ``checks`` gives the fix of one check's failures on this operator when it is
    neither the check's own nor the operator's (a crash on a shifted argument: bind by
    name); ``protocol`` is the fix of a protocol note on it (the format cannot carry the
    intent), instead of :data:`PROTOCOL`.
    """

    wrong: str
    drop: str = ""
    family: Mapping[str, str] = field(default_factory=dict)
    checks: Mapping[str, str] = field(default_factory=dict)
    protocol: str = ""

    def __post_init__(self) -> None:
        if not self.drop:
            object.__setattr__(self, "drop", self.wrong)
