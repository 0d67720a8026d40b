"""Fix-it advice: one concrete change for the mechanism behind a finding.

A finding says what went wrong; the advice says what to change, in one or two
sentences, derived only from what the finding already holds: the check, the failure
kind, the abuse operator, the cause (design or protocol) and the format's family. The
texts are declared where each of those is registered (``register_abuse(...,
advice=Advice(...))``, ``check(..., advice=...)``, ``Family.advice``; the mechanisms they
share are named in :mod:`reactfuzz.fixes`); this module chooses among them, in one place,
for every report (console, Markdown, HTML, JUnit, JSON and what builds on them):

1. the operator's advice for this check (``Advice.checks``), for the few pairs whose fix
   is neither the check's nor the operator's alone;
2. the check's own advice, for checks whose fix does not depend on how the text was
   abused (a crash, a slow parse, a refusal without a reason, ...);
3. the operator's advice, in the direction the design erred: it *acted* on a misreading
   (a wrong call, a hijacked answer, a laxer reading than the grammar's) or it *refused*
   a text the format carries (a silent drop, a stricter reading); an operator may give a
   family its own wording (a delimiter is a comma in brackets, a quote in JSON);
4. for checks and operators that declare none (a user's own), the format family's usual
   fix, then :data:`~reactfuzz.fixes.GENERIC`.

A protocol note (the format cannot carry the intent) gets the operator's protocol advice,
else the format's fix: quote, or move to JSON arguments.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final, NamedTuple

from ..fixes import (
    ACTION_ANYWHERE,
    ANCHOR,
    ANSWER_TEXT,
    GENERIC,
    JSON_FIELD,
    LENIENT,
    LINES,
    PROTOCOL,
    QUOTE,
    WHOLE_TEXT,
)
from ..formats import FAMILIES, get_format
from ..strategies import ABUSES
from .checks import CHECKS
from .corpus import Finding, SiteSpec

__all__ = [
    "GENERIC",
    "advice",
    "advice_for",
    "advice_source",
    "code_advice",
]

# which direction each failure kind erred in, for the operator's advice
_ACTED: Final = {"wrong-call", "hijacked-answer", "disagrees:laxer", "disagrees:other-kind",
                 "disagrees:other-tool", "disagrees:other-arguments", "disagrees:other-answer"}
_REFUSED: Final = {"silent-drop", "disagrees:stricter"}


def _acts_only(check: str) -> bool:
    """Whether every failure the check declares is an action on a misreading (a wrong
    call, a hijacked answer): its failures get the operator's advice for that direction."""
    registered = CHECKS.get(check)
    return registered is not None and bool(registered.kinds) and all(
        k in _ACTED for k in registered.kinds)


def advice_source(check: str, failure: str, abuse: str, cause: str = "design",
                  family: str = "") -> tuple[str, str]:
    """Where the advice comes from (``pair``, ``check``, ``operator``, ``protocol``,
    ``family`` or ``generic``) and its text."""
    op = ABUSES.get(abuse)
    fix = op.advice if op is not None else None
    if cause == "protocol":
        return "protocol", (fix.protocol if fix is not None and fix.protocol else PROTOCOL)
    if fix is not None and check in fix.checks:
        return "pair", fix.checks[check]
    registered = CHECKS.get(check)
    if registered is not None and registered.advice:
        return "check", registered.advice
    if fix is not None:
        if failure in _REFUSED:
            return "operator", fix.drop
        if failure in _ACTED or _acts_only(check):
            return "operator", fix.family.get(family, fix.wrong)
    registered_family = FAMILIES.get(family)
    if registered_family is not None and registered_family.advice:
        return "family", registered_family.advice
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
          " of several wins)", ACTION_ANYWHERE,
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
