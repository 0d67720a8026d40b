"""Fix-it advice: one concrete change for the mechanism behind a finding.

A finding says what went wrong; the advice says what to change, in one or two
sentences, derived only from what the finding already holds: the check, the failure
kind, the abuse operator, the cause (design or protocol) and the format's family. It is
looked up here, in one place, for every report (console, Markdown, HTML, JUnit, JSON and
what builds on them):

1. a pair table (operator, check) for the few pairs whose fix is neither the check's
   nor the operator's alone;
2. the check's own advice, for checks whose fix does not depend on how the text was
   abused (a crash, a slow parse, a refusal without a reason, ...);
3. the operator's advice, in the direction the design erred: it *acted* on a misreading
   (a wrong call, a hijacked answer, a laxer reading than the grammar's) or it *refused*
   a text the format carries (a silent drop, a stricter reading); an operator may give a
   family its own wording (a delimiter is a comma in brackets, a quote in JSON);
4. for a user's own checks and operators, the format family's usual fix, then
   :data:`GENERIC`.

A protocol note (the format cannot carry the intent) gets the format's fix instead:
quote, or move to JSON arguments.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final, NamedTuple

from ..fixes import (
    ANCHOR,
    ANSWER_TEXT,
    BIND,
    BRACE_PROSE,
    CALL_SHAPE,
    CASE,
    CRLF,
    DOMAIN_TEXT,
    EMPTY_TEXT,
    GENERIC,
    IN_PLACE,
    JSON_FIELD,
    LAST_KEY,
    LENIENT,
    LINEAR,
    LINES,
    MULTILINE_ARG,
    NAMES,
    NO_TRAILING,
    ONE_STEP,
    PARTIAL_STOP,
    PROTOCOL,
    QUOTE,
    SCHEMA,
    SPACING,
    STOP,
    STRICT_JSON,
    STRIP_MARKUP,
    UNWRAP,
    WHOLE_TEXT,
)
from ..formats import get_format
from .checks import CHECKS
from .corpus import Finding, SiteSpec

__all__ = [
    "FAMILY_ADVICE",
    "GENERIC",
    "OPERATOR_ADVICE",
    "advice",
    "advice_for",
    "advice_source",
    "code_advice",
]

# ---------------------------------------------------------------------------- operators


class _Fix:
    """An operator's advice: when the design acted on a misreading, and when it refused a
    text the format carries; ``family`` overrides ``wrong`` for one format family."""

    __slots__ = ("drop", "family", "wrong")

    def __init__(self, wrong: str, drop: str, family: dict[str, str] | None = None) -> None:
        self.wrong = wrong
        self.drop = drop
        self.family = family or {}


_JSON_FAMILIES: Final = ("json_args", "action_input_json", "json_blob", "bare_json", "tag")

OPERATOR_ADVICE: Final[dict[str, _Fix]] = {
    "clean.render": _Fix(
        "Your parser misreads the format's own clean output: compare its labels, argument"
        " encoding and quoting with `reactfuzz parse --format FORMAT` and fix the pattern.",
        "Your parser refuses the format's own clean output: compare its labels, argument"
        " encoding and quoting with `reactfuzz parse --format FORMAT` and fix the pattern."),
    "malformed.wrong-type": _Fix(SCHEMA, "Validate the value against the schema rather than"
                                 " refusing it by its text shape; a value the schema"
                                 " accepts must run."),
    "malformed.unbalanced-bracket": _Fix(
        "Refuse an argument list whose brackets do not balance instead of a greedy"
        " `(.*)\\]` reading up to the last bracket on the line.", NO_TRAILING),
    "malformed.unbalanced-quote": _Fix(
        "Decode quoted arguments with a real decoder (`json.loads` on the value) and refuse"
        " a quote that never closes, instead of passing it on inside the value.", WHOLE_TEXT),
    "malformed.empty": _Fix(SCHEMA, "Run an empty value when the schema allows one (an"
                            " optional string may be empty); refuse it only by the schema."),
    "malformed.trailing-text": _Fix(NO_TRAILING, "Allow trailing spaces after the action, and"
                                    " refuse other text with a reason the model can act on."),
    "malformed.invalid-json": _Fix(STRICT_JSON, "Decode valid JSON arguments with"
                                   " `json.loads` as written, without a stricter pre-check."),
    "missing.argument-dropped": _Fix(BIND, "Let the schema decide: an omitted optional"
                                     " argument takes its default and the call runs."),
    "missing.empty-brackets": _Fix(BIND, "Read `name[]` as a call with no arguments and let"
                                   " the schema decide whether that is enough."),
    "missing.no-action-input": _Fix(
        "Refuse an action without its `Action Input:` line (or with an empty one when the"
        " tool needs an argument) instead of running the tool with no input.",
        "Accept the `Action Input:` line with the spacing and case the format allows."),
    "missing.close-tag": _Fix(
        "Read a call whose closing tag or fence is missing at the end of the message (decode"
        " the JSON after the opening tag, whatever its spacing) or refuse it with a reason;"
        " never show the raw call to the user as the answer.", CALL_SHAPE),
    "extra.positional": _Fix(BIND, "Bind declared optional parameters in order; refuse only"
                             " values beyond the declared ones."),
    "extra.undeclared-name": _Fix(
        "Validate the arguments against a schema that forbids undeclared names"
        " (`additionalProperties: false`, pydantic `extra=\"forbid\"`) and refuse them.",
        "Refuse an undeclared argument as extra-arg with its name, or drop it on purpose;"
        " do not refuse the whole text as unreadable."),
    "extra.duplicate-name": _Fix(LAST_KEY, LAST_KEY),
    "injected.delimiter": _Fix(QUOTE, WHOLE_TEXT, {
        f: "Decode the arguments with `json.loads`, where a comma, bracket or brace inside a"
           " string is text, instead of a regex that stops at the first delimiter."
        for f in _JSON_FAMILIES}),
    "injected.label-in-argument": _Fix(ANCHOR, "Read the argument to its end even when it"
                                       " holds a label word; only a label at a line start"
                                       " begins a new field."),
    "injected.stop-in-argument": _Fix(
        "Refuse an action cut short by the stop sequence (an argument list that never"
        " closes) instead of running the half that arrived.",
        "Ask the model to quote or rephrase an argument that holds the stop word: the"
        " provider cuts the completion there."),
    "injected.answer-label-in-thought": _Fix(ANCHOR, ANCHOR),
    "injected.action-in-thought": _Fix(
        "Anchor the action pattern at a line start (`re.match`/`^` with `re.MULTILINE`, not"
        " `re.search` anywhere), so an action mentioned in a thought is not run.", ANCHOR),
    "injected.unicode-line-break": _Fix(LINES, LINES),
    "injected.second-action": _Fix(ONE_STEP, ONE_STEP),
    "injected.answer-and-action": _Fix(ONE_STEP, ONE_STEP),
    "injected.label-in-answer": _Fix(
        "Once the answer label is found, take the rest of the completion as the answer and"
        " never look for an action inside it.", ANCHOR),
    "label.case": _Fix(CASE, CASE),
    "label.spacing": _Fix(SPACING, SPACING),
    "label.numbering": _Fix(
        "Accept a label number (`Action 1:`) in one pattern for every label, or refuse it"
        " with a reason, consistently.",
        "Allow an optional number after each label (`^Action(?: \\d+)?:`)."),
    "label.markdown": _Fix(STRIP_MARKUP, STRIP_MARKUP),
    "label.leading-space": _Fix(
        "Strip leading spaces before matching a label (or allow `^\\s*Action:`) the same"
        " way for every label.",
        "Strip leading spaces before matching a label; a prompt ending in `Thought:` makes"
        " every completion start with one."),
    "label.crlf": _Fix(CRLF, CRLF),
    "label.odd-line-break": _Fix(LINES, LINES),
    "fabricated.observation": _Fix(STOP, STOP),
    "fabricated.observation-no-stop": _Fix(STOP, STOP),
    "size.long-thought": _Fix(LINEAR, "Read a thought of any length: no length cap or"
                              " line limit before the action label."),
    "size.long-argument": _Fix(LINEAR, "Read an argument of any length, spaces and"
                               " punctuation included, as the format writes it."),
    "size.long-run": _Fix(LINEAR, "Allow blank lines and trailing spaces around the action"
                          " (strip each line's end before matching)."),
    "size.label-gap-run": _Fix(
        "Write each label as one literal with one quantifier where spacing may vary"
        " (`Action[ \\t]*:`, not `Action\\s*\\d*\\s*:`), or parse with a grammar: a run of"
        " spaces inside a label must fail in linear time.", LINEAR),
    "size.repeated-call-start": _Fix(
        "Find the action at a line start, once, and read it to its own end (a JSON decoder"
        " on the call, not `Label:[^[]*\\[(.*)\\]` or `<tag>(.*?)</tag>` tried from every"
        " opening in the text): an unclosed start quoted in a thought is then text, and the"
        " time stays linear.", ANCHOR),
    "quoting.wrapped": _Fix(
        "Decode a quoted argument as its value (`\"Paris\"` means Paris) instead of"
        " running the tool with the quotes kept.", WHOLE_TEXT),
    "quoting.content": _Fix(WHOLE_TEXT, WHOLE_TEXT),
    "stop.other-stop": _Fix(STOP, STOP),
    "stop.partial": _Fix(PARTIAL_STOP, PARTIAL_STOP),
    "stop.observation-in-input": _Fix(
        "End the action input at the first line that starts with the observation label and"
        " send the stop list, so a fabricated result never becomes tool input.", STOP),
    "markup.emphasis": _Fix(STRIP_MARKUP, STRIP_MARKUP),
    "markup.argument": _Fix(
        "Strip markdown emphasis around a whole argument (`**Paris**`) or refuse it;"
        " never run the tool with the markup as data.", STRIP_MARKUP),
    "markup.block": _Fix(STRIP_MARKUP, STRIP_MARKUP),
    "markup.multiline-input": _Fix(MULTILINE_ARG, MULTILINE_ARG),
    "variant.case": _Fix(CASE, CASE),
    "variant.spacing": _Fix(SPACING, SPACING),
    "names.unknown": _Fix(NAMES, NAMES),
    "names.answer-word": _Fix(
        "Treat only the format's own answer form as the answer; an action named like the"
        " answer word is an unknown tool to refuse, not the end of the run.", NAMES),
    "json.nested": _Fix(UNWRAP, UNWRAP),
    "json.call-shape": _Fix(CALL_SHAPE, CALL_SHAPE),
    "json.comment": _Fix(STRICT_JSON, STRICT_JSON),
    "json.label-in-string": _Fix(
        "Decode the JSON value before looking for labels, so a line break and a label"
        " inside a JSON string stay inside the string.", JSON_FIELD),
    "order.answer-and-action": _Fix(ONE_STEP, ONE_STEP),
    "content.real-text": _Fix(WHOLE_TEXT, WHOLE_TEXT),
    "content.mixed-text": _Fix(IN_PLACE, IN_PLACE),
    "content.lenient-json": _Fix(LENIENT, STRICT_JSON),
    "prose.lone-brace": _Fix(BRACE_PROSE, BRACE_PROSE, {
        f: JSON_FIELD for f in _JSON_FAMILIES}),
    "prose.plain-answer": _Fix(ANSWER_TEXT, ANSWER_TEXT),
    "prose.opens-with-stop": _Fix(EMPTY_TEXT, EMPTY_TEXT),
    "layout.pretty-action": _Fix(MULTILINE_ARG, MULTILINE_ARG),
    "json.scalar-args": _Fix(
        "Check that the decoded arguments are an object before taking their keys, and"
        " refuse anything else (or bind it to the tool's one parameter on purpose).",
        "Refuse arguments that are no JSON object with a message the model can act on,"
        " or bind a lone value to the tool's one parameter; never raise."),
    "layout.part-moved": _Fix(
        "Read each label's value from the label to the next label line, a line break after"
        " the label included, and do not require a thought before the action.",
        "Allow a line break after a label, blank lines between blocks and a completion"
        " with no thought, as the format does; refusing them drops valid calls."),
    "content.typed-lookalike": _Fix(
        "Type each value by the tool's schema, not by its look: a string parameter keeps"
        " `null`, `None`, `true` or `007` as text.",
        "Type each value by the tool's schema, not by its look: text that reads as null or"
        " a number is still a valid string."),
    "content.domain-text": _Fix(
        DOMAIN_TEXT,
        "Take SQL, code, commands, paths, URLs and Markdown as text the format carries; a guard"
        " that refuses an argument for its content belongs in the tool, against its schema.",
        {"bracket": QUOTE}),
    "size.unclosed-argument-run": _Fix(
        "Match one argument at a time with a pattern that cannot match the separator (no"
        " `.*` inside a repeated group), or parse the call with a grammar or `ast`: an"
        " unclosed call must fail in linear time.", LINEAR),
}
"""Per abuse operator: the fix when the design acted on a misreading, and when it refused."""

# ---------------------------------------------------------------------------- checks


# the checks whose fix is the operator's: which direction each failure kind erred in
_ACTED: Final = {"wrong-call", "hijacked-answer", "disagrees:laxer", "disagrees:other-kind",
                 "disagrees:other-tool", "disagrees:other-arguments", "disagrees:other-answer"}
_REFUSED: Final = {"silent-drop", "disagrees:stricter"}

_PAIR_ADVICE: Final[dict[tuple[str, str], str]] = {
    ("clean.render", "no-crash"): OPERATOR_ADVICE["clean.render"].wrong,
    ("missing.argument-dropped", "no-crash"): BIND,
    ("missing.empty-brackets", "no-crash"): BIND,
    ("extra.positional", "no-crash"): BIND,
    ("extra.undeclared-name", "no-crash"): BIND,
    ("names.unknown", "no-crash"): NAMES,
    ("names.answer-word", "no-crash"): NAMES,
    ("markup.emphasis", "no-crash"): NAMES,
    ("injected.delimiter", "no-crash"): QUOTE,
    ("injected.delimiter", "no-unvalidated-call"): QUOTE,
    ("malformed.wrong-type", "no-crash"): BIND,
    ("malformed.empty", "no-crash"): BIND,
    ("missing.no-action-input", "no-crash"): BIND,
    ("extra.duplicate-name", "no-crash"): LAST_KEY,
    ("json.nested", "no-crash"): UNWRAP,
    ("malformed.invalid-json", "no-crash"): STRICT_JSON,
    ("json.comment", "no-crash"): STRICT_JSON,
}
"""(operator, check) pairs whose fix is more precise than the check's own."""

FAMILY_ADVICE: Final[dict[str, str]] = {
    "bracket": QUOTE,
    "paper": ANCHOR,
    "action_input": ANCHOR,
    "json_args": JSON_FIELD,
    "action_input_json": JSON_FIELD,
    "json_blob": JSON_FIELD,
    "bare_json": STRICT_JSON,
    "tag": ("Read only the first complete tag after the thought, decode its body with"
            " `json.loads`, and refuse tags inside a think block or prose."),
    "sections": ("Split on section markers only at a line start and refuse a field given"
                 " twice instead of keeping one copy."),
}
"""A format family's usual fix, for a user's own checks and operators."""

_PROTOCOL: Final = PROTOCOL
_PROTOCOL_ADVICE: Final[dict[str, str]] = {
    "markup.argument": ("The format reads markup around an argument as data: tell the model"
                        " to write arguments without markdown, or strip emphasis before"
                        " validating."),
    "fabricated.observation-no-stop": STOP,
    "stop.other-stop": STOP,
    "injected.stop-in-argument": OPERATOR_ADVICE["injected.stop-in-argument"].drop,
}



def advice_source(check: str, failure: str, abuse: str, cause: str = "design",
                  family: str = "") -> tuple[str, str]:
    """Where the advice comes from (``pair``, ``check``, ``operator``, ``protocol``,
    ``family`` or ``generic``) and its text."""
    if cause == "protocol":
        return "protocol", _PROTOCOL_ADVICE.get(abuse, _PROTOCOL)
    pair = _PAIR_ADVICE.get((abuse, check))
    if pair is not None:
        return "pair", pair
    registered = CHECKS.get(check)
    if registered is not None and registered.advice:
        return "check", registered.advice
    fix = OPERATOR_ADVICE.get(abuse)
    if fix is not None:
        if failure in _REFUSED:
            return "operator", fix.drop
        if failure in _ACTED or check in ("no-wrong-call", "no-hijacked-answer"):
            return "operator", fix.family.get(family, fix.wrong)
    if family in FAMILY_ADVICE:
        return "family", FAMILY_ADVICE[family]
    return "generic", GENERIC


def advice(check: str, failure: str, abuse: str, cause: str = "design",
           family: str = "") -> str:
    """One or two sentences on what to change for a failure of ``check`` on ``abuse``."""
    return advice_source(check, failure, abuse, cause, family)[1]


@lru_cache(maxsize=64)
def _family(fmt: str) -> str:
    """The protocol family of a finding's format ("" when it cannot be loaded any more)."""
    try:
        return get_format(fmt).family.name
    except Exception:  # a TOML file moved since the run: advice without the family
        return ""


# ---------------------------------------------------------------------------- code


class _Rule(NamedTuple):
    """A mechanism a line of the parser's code shows: what the line does, and the fix.

    A rule explains failures of ``kinds`` (any when empty) whose signature holds one of
    ``shapes`` (any when empty). It reads the deciding lines (where the parser raised or
    returned); with ``on_path`` also the other lines the parse ran that read the text (a
    line that ran is not always the one that decided: an ``if "Answer:" in text`` that
    was false ran too, so path rules are kept to the failures they explain)."""

    name: str
    pattern: re.Pattern[str]
    does: str
    fix: str
    exc: tuple[str, ...] = ()  # only for a raise of one of these types, at its line
    kinds: tuple[str, ...] = ()
    shapes: tuple[str, ...] = ()
    on_path: bool = False


_LABEL = r"""["'][^"'\n]*[A-Za-z]:\s?["']"""
_WHOLE = r"(?:text|completion|message|output|llm_output|response|content|s)"
_HIJACK = ("hijacked-answer", "disagrees:other-kind", "disagrees:other-answer")
_RAN = ("wrong-call", "disagrees:other-tool", "disagrees:other-arguments",
        "disagrees:laxer")
_RULES: Final = (
    _Rule("index", re.compile(r"\[[^\]]*\]"), "indexes a part the completion may not have",
          "Check that the part is there (`len(parts) > 1`, `dict.get`) and refuse the"
          " completion with a reason the model can act on, instead of raising.",
          exc=("IndexError", "KeyError")),
    _Rule("type", re.compile(r"."), "assumes a type the completion does not guarantee",
          "Check the decoded value's type (JSON may give a string, a list or null where"
          " you expect an object) and refuse any other shape with a reason, instead of"
          " raising.", exc=("AttributeError", "TypeError")),
    _Rule("whole-text-answer",
          re.compile(rf"""return\b.*["'](?:final|answer|finish)\w*["']\s*,\s*\(?\s*"""
                     rf"""{_WHOLE}\b(?:\.strip\(\))?\s*\)?\s*\)?\s*$"""),
          "returns the whole completion as the answer", ANSWER_TEXT, kinds=_HIJACK),
    _Rule("label-anywhere",
          re.compile(rf"{_LABEL}\s+(?:not\s+)?in\b|\.(?:split|rsplit|find|rfind|index|"
                     rf"rindex|partition|rpartition|count)\(\s*{_LABEL}"),
          "looks for a label anywhere in the text, not only at a line start", ANCHOR,
          kinds=_HIJACK, on_path=True),
    _Rule("label-anywhere-refused",
          re.compile(rf"{_LABEL}\s+(?:not\s+)?in\b|\.(?:find|rfind|index|count)\(\s*{_LABEL}"),
          "looks for a label anywhere in the text, and the parser refuses on what it finds",
          ANCHOR, kinds=("silent-drop", "disagrees:stricter"), shapes=("unparseable",),
          on_path=True),
    _Rule("strip-quotes", re.compile(r"""\.[lr]?strip\(\s*(?:["'][^"']*["']{2}|'"'|"'")"""),
          "strips quotes off the value", WHOLE_TEXT, kinds=_RAN,
          shapes=("lost text", "another value"), on_path=True),
    _Rule("splitlines", re.compile(r"\.splitlines\("),
          "splits with `str.splitlines()`, which also ends a line at `\\r`, `\\x85` and"
          " `\\u2028`", LINES, kinds=(*_HIJACK, *_RAN), on_path=True),
    _Rule("comma-split", re.compile(r"""\.split\(\s*["'],\s?["']"""),
          "splits the arguments on every comma", QUOTE, kinds=(*_RAN, "unvalidated-call"),
          shapes=("arguments", "another value", "lost text", "schema"), on_path=True),
    _Rule("brace-slice", re.compile(r"""\.(?:find|rfind|index|rindex)\(\s*["'][{}\[\]]["']"""),
          "slices the text at a brace found anywhere in it", JSON_FIELD,
          kinds=("silent-drop", "disagrees:stricter", *_RAN), on_path=True),
    _Rule("lenient-json", re.compile(r"""\b(?:json5|json_repair|repair_json|demjson3?|"""
                                     r"""literal_eval)\b|\.replace\(\s*["']'["']"""),
          "decodes the arguments leniently", LENIENT, kinds=_RAN, on_path=True),
    _Rule("search-anywhere", re.compile(r"\.(?:search|findall|finditer)\("),
          "finds the action with a search over the whole text (unless its pattern starts"
          " with `^` under `re.MULTILINE`, a match anywhere counts, and the first or last"
          " of several wins)", OPERATOR_ADVICE["injected.action-in-thought"].wrong,
          kinds=("wrong-call", "silent-drop", "wrong-rejection", "disagrees:other-tool"),
          shapes=("ran another tool", "unknown-tool", "malformed-arg"), on_path=True),
)


def _lines(finding: Finding) -> list[tuple[SiteSpec, bool]]:
    """The lines of the target's code a finding's origin names, most telling first, each
    with whether it decided: the deciding line, the library's, then the other lines of
    the path that read the text."""
    o = finding.origin
    if o is None:
        return []
    deciding = [(s, True) for s in (o.site, o.inner) if s is not None and s.code]
    return deciding + [(s, False) for s in o.notable if s.code]


def code_advice(finding: Finding) -> tuple[SiteSpec, str, str] | None:
    """The mechanism a finding's origin shows, if any: the line, what it does, the fix."""
    o = finding.origin
    if o is None or finding.cause == "protocol":
        return None
    if finding.failure == "crash" and not o.exc_type:
        return None  # the dispatcher crashed on what the parse returned: not a line of it
    for site, decided in _lines(finding):
        for rule in _RULES:
            if rule.exc and (o.exc_type not in rule.exc or site is not o.deciding()):
                continue
            if not (decided or rule.on_path):
                continue
            if rule.kinds and finding.failure not in rule.kinds:
                continue
            if rule.shapes and not any(x in finding.signature for x in rule.shapes):
                continue
            if rule.pattern.search(site.code):
                return site, rule.does, rule.fix
    return None


def advice_for(finding: Finding) -> str:
    """The fix for one finding's bug: from the mechanism its origin shows (the line of
    code and what it does) when a rule knows it; else from its check, operator and
    format, saying that it was not read from the code when the code was there to read.
    A finding that carries its ``fix`` (every finding a run makes) gives that."""
    if finding.fix:
        return finding.fix
    found = code_advice(finding)
    if found is not None:
        site, does, fix = found
        return f"{site.where()}: `{site.code}` {does}. {fix}"
    source, text = advice_source(finding.check, finding.failure, finding.abuse,
                                 finding.cause, _family(finding.format))
    where = finding.origin.deciding() if finding.origin is not None else None
    if (where is not None and finding.cause == "design"
            and source in ("operator", "family", "generic")):
        return (f"{text} (a guess from how the text was abused: the code at {where.where()}"
                " does not show the mechanism)")
    return text
