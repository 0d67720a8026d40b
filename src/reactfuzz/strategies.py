"""Hypothesis strategies: adversarial text, argument values, intents, abuses and scenarios.

Everything is derived from a :class:`~reactfuzz.formats.Format`'s data (labels,
delimiters, stop sequences, argument encoding) and a
:class:`~reactfuzz.tools.ToolRegistry`'s schemas, so a user's own TOML format and tools
get the whole operator catalogue with no code. Strategies are built from Hypothesis
primitives (``sampled_from``, ``lists``, ``one_of``) so a failure shrinks to the one
character that matters -- a lone ``,`` or ``\\u2028`` -- not to a random blob.

Public factories take keyword-only options; the abuse operators are registered by id in
:data:`ABUSES` (add one with :func:`register_abuse`).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, assume, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from pydantic import ValidationError

from ._determinism import pinned
from .formats import BUILTIN_FORMATS, Format, get_format
from .llm import apply_stop
from .model import Call, FinalAnswer, Intent
from .oracle import STRICT, Acceptable, Expectation, Policy, oracle
from .render import encode_text, render
from .tools import Tool, ToolRegistry

__all__ = [
    "ABUSES",
    "LINE_BREAKS",
    "Abuse",
    "Scenario",
    "Writing",
    "abuse_ids",
    "adversarial_pieces",
    "adversarial_text",
    "argument_values",
    "for_each_example",
    "intents",
    "register_abuse",
    "scenarios",
    "transcripts",
    "valid_calls",
]

# --------------------------------------------------------------------------------------
# The adversarial alphabet.

LINE_BREAKS: tuple[str, ...] = (
    "\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029",
)
"""Every character sequence some line splitter treats as a line break."""

ODD_LINE_BREAKS: tuple[str, ...] = LINE_BREAKS[2:]
"""Line breaks other than ``\\n`` and ``\\r\\n``: where MULTILINE and splitlines disagree."""

INVISIBLES: tuple[str, ...] = ("\u200b", "\u200c", "\u200d", "\ufeff", "\u202e", "\u2066", "\u2069")
CHAT_TOKENS: tuple[str, ...] = ("<|im_end|>", "</s>", "<|endoftext|>", "[INST]", "<|eot_id|>")
MARKDOWN: tuple[str, ...] = ("```", "**", "`", "> ", "- ")
WORDS: tuple[str, ...] = (
    "a", "the", "Paris", "invoice", "July", "cus_8812", "refund", "42", "ok", "x",
)


def _all_labels(fmt: Format) -> list[str]:
    out: list[str] = []
    for f in [fmt, *BUILTIN_FORMATS.values()]:
        for w in f.labels.all().values():
            out.append(f"{w}:")
        if f.finish_action:
            out.append(f"{f.finish_action}[")
    return list(dict.fromkeys(out))


def adversarial_pieces(fmt: Format | str = "bracket") -> tuple[str, ...]:
    """Every string the format (and its neighbours) treats specially, ordered so that
    shrinking lands on the simplest: delimiters, labels, stop sequences, line breaks,
    invisible and bidi characters, look-alike labels, markdown, chat tokens."""
    fmt = get_format(fmt)
    lookalikes = (f"\u0410{fmt.labels.action[1:]}:", f"{fmt.labels.action.lower()}:")
    pieces = [
        *fmt.family.delimiters,
        *_all_labels(fmt),
        *fmt.stop,
        *LINE_BREAKS,
        *INVISIBLES,
        *lookalikes,
        *MARKDOWN,
        f"**{fmt.labels.action}:**",
        *CHAT_TOKENS,
    ]
    return tuple(dict.fromkeys(pieces))


def adversarial_text(
    fmt: Format | str = "bracket", *, max_pieces: int = 6, long: bool = True
) -> st.SearchStrategy[str]:
    """Text mixing ordinary words with the format's special strings (and now and then a
    very long value); shrinks to ``""`` and then to single pieces."""
    pieces = adversarial_pieces(fmt)
    part = st.one_of(st.sampled_from(WORDS), st.sampled_from(pieces), st.text(max_size=3))
    text = st.lists(part, max_size=max_pieces).map("".join)
    if long:
        text = st.one_of(text, st.integers(200, 4000).map(lambda n: ("a " * n)[:n]))
    return text


def _phrases() -> tuple[str, ...]:
    """One to four ordinary words, every combination of a few, simplest first."""
    out = list(WORDS)
    for a in WORDS[:6]:
        for b in WORDS:
            out.append(f"{a} {b}")
    out += [f"{a} {b} {c} {d}" for a, b, c, d in zip(WORDS, WORDS[3:], WORDS[5:], WORDS[1:])]
    return tuple(dict.fromkeys(out))


_PLAIN = st.sampled_from(_phrases())


def _plain_text() -> st.SearchStrategy[str]:
    """Ordinary words, representable in every format (for the parts that are not abused).

    One choice per phrase (a pool built once) keeps scenario generation cheap; the pool
    starts with single words, so shrinking lands on ``"a"``."""
    return _PLAIN


# --------------------------------------------------------------------------------------
# Argument values from a tool's JSON schema.


def _prop_kind(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return "enum"
    types = prop.get("type")
    if isinstance(types, list):
        types = next((t for t in types if t != "null"), "string")
    if prop.get("anyOf"):
        inner = [p for p in prop["anyOf"] if p.get("type") != "null"]
        return _prop_kind(inner[0]) if inner else "string"
    if types == "string" and prop.get("format") == "date":
        return "date"
    if types == "string" and "pattern" in prop:
        return "pattern"
    return {"integer": "int", "number": "float", "boolean": "bool", "array": "list"}.get(
        str(types), "string"
    )


@lru_cache(maxsize=256)
def _properties(tool: Tool) -> dict[str, dict[str, Any]]:
    return dict(tool.json_schema().get("properties", {}))


def _is_free_string(tool: Tool, name: str) -> bool:
    return _prop_kind(_properties(tool).get(name, {})) == "string"


_ID_ALPHABET = st.characters(
    codec="ascii", categories=("Lu", "Ll", "Nd"), include_characters="_@.-"
)

def _id_suffixes(n: int = 97) -> tuple[str, ...]:
    """Alphanumeric id tails, simplest first (one choice each: cheap, shrinks to "0")."""
    import random as _random
    import string

    rng = _random.Random(1)
    alnum = string.digits + string.ascii_letters
    out = ["0", "1", "a", "A"]
    while len(out) < n:
        out.append("".join(rng.choice(alnum) for _ in range(rng.randint(1, 10))))
    return tuple(dict.fromkeys(out))


_ID_SUFFIXES = _id_suffixes()

_DATES = tuple(_dt.date(2000, 1, 1) + _dt.timedelta(days=97 * i) for i in range(48))
_AMOUNTS = (1.0, 0.5, 12.5, 99.99, 100.0, 250.0, 0.01, 1000.0, 42.0, 7.25, -1.0, 0.0)
_PATTERN_CANDIDATES = (
    "a@b.co", "bob@example.com", "x@y.z", "ana.li@mail.example.org", "ops@acme.io",
    "0@0.0", "a", "x", "A1", "abc", "2026-07-01", "INV-2041", "ch_1", "cus_1", "a.b", "a-b",
)

_NEAR_VALID: dict[str, tuple[str, ...]] = {
    "date": ("last July", "2026-13-01", "2026/07/01", "07/01/2026", "yesterday", ""),
    "int": ("abc", "1.5", "one", "", "1e3"),
    "float": ("abc", "lots", "", "1,5", "-5"),
    "bool": ("maybe", "2", ""),
    "enum": ("kelvin", "Metric", "", "other"),
    "pattern": ("INV-2041", "", "cus 8812", "../../etc/passwd"),
    "string": ("../../etc/passwd", "/etc/passwd"),
    "list": ("a", ""),
}


def argument_values(
    tool: Tool, name: str, *, valid: bool = True
) -> st.SearchStrategy[Any]:
    """Values for one parameter: valid ones (from its schema), or near-valid ones that a
    schema refuses (a date that is not a date, an id that breaks its pattern, ``../``)."""
    return _argument_values(tool, name, valid)


@lru_cache(maxsize=1024)
def _argument_values(tool: Tool, name: str, valid: bool) -> st.SearchStrategy[Any]:
    prop = _properties(tool).get(name, {})
    kind = _prop_kind(prop)
    if not valid:
        return st.sampled_from(_NEAR_VALID[kind])
    if kind == "enum":
        return st.sampled_from(prop["enum"])
    # Pools drawn in one choice where a pool is as good as the full domain: a parser cannot
    # tell one date or amount from another, and fewer choices per scenario make generation
    # several times cheaper (Hypothesis's cost is per choice). Pools start with the
    # simplest value, so shrinking still lands on it.
    if kind == "date":
        return st.sampled_from(_DATES)
    if kind == "pattern":
        # ordinary characters only: a delimiter inside a valid id is the injection
        # operators' business, so each finding is attributed to the operator that made it
        pattern = prop["pattern"]
        literal = re.match(r"\^([A-Za-z0-9_-]+)\[A-Za-z0-9\]\+\$$", pattern)
        if literal is not None:  # the common `^prefix_[A-Za-z0-9]+$`: cheaper than from_regex
            prefix = literal.group(1)
            return st.sampled_from(_ID_SUFFIXES).map(lambda s: prefix + s)
        compiled = re.compile(pattern)
        fitting = [c for c in _PATTERN_CANDIDATES if compiled.fullmatch(c)]
        if len(fitting) >= 3:  # e.g. emails: a few real-looking ones are enough
            return st.sampled_from(fitting)
        return st.from_regex(pattern, fullmatch=True, alphabet=_ID_ALPHABET)
    if kind == "int":
        return st.integers(prop.get("minimum", -(10**6)), prop.get("maximum", 10**6))
    if kind == "float":
        lo, hi = prop.get("minimum", float("-inf")), prop.get("maximum", float("inf"))
        xlo = prop.get("exclusiveMinimum", float("-inf"))
        xhi = prop.get("exclusiveMaximum", float("inf"))
        fitting = [v for v in _AMOUNTS if lo <= v <= hi and xlo < v < xhi]
        if fitting:
            return st.sampled_from(fitting)
        return st.floats(max(lo, xlo), min(hi, xhi), exclude_min=xlo > lo,
                         exclude_max=xhi < hi, allow_nan=False)
    if kind == "bool":
        return st.booleans()
    if kind == "list":
        return st.lists(_plain_text(), max_size=3)
    return _plain_text()


def _validates(registry: ToolRegistry, call: Call) -> bool:
    try:
        registry.validate(call.tool, call.kwargs())
    except (ValidationError, Exception):
        return False
    return True


@st.composite
def valid_calls(
    draw: st.DrawFn,
    registry: ToolRegistry,
    *,
    tools: Sequence[str] | None = None,
    optional: bool | None = None,
) -> Call:
    """A call valid against its tool's schema, with named arguments in declared order.

    ``optional=None`` lets each defaulted parameter be given or left out; ``True`` gives
    all, ``False`` none.
    """
    names = list(tools) if tools is not None else list(registry.names())
    tool = registry[draw(st.sampled_from(names))]
    n_optional = len(tool.parameters) - len(tool.required_names)
    if optional is None:  # how many defaulted parameters to give, in order (one choice)
        give_optional = draw(st.integers(0, n_optional)) if n_optional else 0
    else:
        give_optional = n_optional if optional else 0
    kwargs: dict[str, Any] = {}
    for p in tool.parameters:
        if not p.required:
            if give_optional == 0:
                break  # later optional values would shift in positional formats
            give_optional -= 1
        kwargs[p.name] = draw(argument_values(tool, p.name))
    call = Call.named(tool.name, **kwargs)
    assume(_validates(registry, call))
    return call


def intents(
    registry: ToolRegistry, *, answers: bool = True, tools: Sequence[str] | None = None
) -> st.SearchStrategy[Intent]:
    """What a model means: a valid call from the registry, or (with ``answers``) an answer."""
    calls = valid_calls(registry, tools=tools)
    if not answers:
        return calls
    return st.one_of(calls, _plain_text().map(FinalAnswer))


# --------------------------------------------------------------------------------------
# Abuse operators.


@dataclass(frozen=True)
class Writing:
    """How an abused intent was written: what the model meant and the text it wrote.

    ``core_end`` is the offset where the intent's own writing ends (after it, only
    continuation such as a fabricated observation), so a stop-sequence cut before it
    means the text no longer carries the intent.
    """

    intent: Intent
    text: str
    expectation: Expectation | None = None
    quoted: bool = False
    core_end: int | None = None


@dataclass(frozen=True)
class _Ctx:
    draw: st.DrawFn
    fmt: Format
    registry: ToolRegistry
    policy: Policy

    def call(self, pred: Callable[[Tool], bool] | None = None, **kw: Any) -> Call:
        tools = [t.name for t in self.registry if pred is None or pred(t)]
        assume(tools)
        if self.fmt.arguments == "single":
            kw["optional"] = False  # a one-argument format carries only the required one
        return self.draw(valid_calls(self.registry, tools=tools, **kw))

    def thought(self) -> str:
        return self.draw(_plain_text())

    def render(self, intent: Intent, thought: str | None = None, **kw: Any) -> str:
        return render(intent, self.fmt, thought=thought if thought is not None else self.thought(),
                      **kw)


@dataclass(frozen=True)
class Abuse:
    """A named transformation of how an intent is written, with what the oracle expects."""

    id: str
    family: str
    description: str
    why: str
    expects: str
    write: Callable[[_Ctx], Writing] = field(repr=False)
    applies: Callable[[Format], bool] = field(default=lambda fmt: True, repr=False)
    breaks: tuple[str, ...] = ()
    breaks_none_because: str = ""

    def applies_to(self, fmt: Format | str) -> bool:
        """Whether this operator means anything in the format."""
        return self.applies(get_format(fmt))


ABUSES: dict[str, Abuse] = {}
"""The operator catalogue by stable id."""


def register_abuse(
    id: str,
    *,
    family: str,
    description: str,
    why: str,
    expects: str,
    applies: Callable[[Format], bool] | None = None,
    breaks: tuple[str, ...] = (),
    breaks_none_because: str = "",
) -> Callable[[Callable[[_Ctx], Writing]], Callable[[_Ctx], Writing]]:
    """Register an abuse operator (a decorator over ``write(ctx) -> Writing``).

    ``breaks`` names the classic designs known to fail on it (the tests check the claim);
    an operator no classic design fails says why in ``breaks_none_because``.
    """

    def deco(fn: Callable[[_Ctx], Writing]) -> Callable[[_Ctx], Writing]:
        if id in ABUSES:
            raise ValueError(f"abuse {id!r} is already registered")
        ABUSES[id] = Abuse(id, family, description, why, expects, fn,
                           applies or (lambda fmt: True), breaks, breaks_none_because)
        return fn

    return deco


def abuse_ids(fmt: Format | str | None = None) -> list[str]:
    """The ids of all operators, or of those that apply to ``fmt``."""
    if fmt is None:
        return list(ABUSES)
    return [a.id for a in ABUSES.values() if a.applies_to(fmt)]


def _multi_arg(fmt: Format) -> bool:
    return fmt.family.max_args is None


def _typed_param(tool: Tool) -> list[str]:
    return [n for n, p in _properties(tool).items() if _prop_kind(p) != "string"]


def _free_params(tool: Tool) -> list[str]:
    return [n for n in tool.names if _is_free_string(tool, n)]


def _single_arg_ok(fmt: Format, tool: Tool) -> bool:
    """Single-argument formats can only carry tools with one required parameter."""
    if fmt.arguments != "single":
        return True
    return len(tool.required_names) == 1


def _line_of(text: str, fmt: Format, role: str) -> int:
    """Offset of the start of the first line that starts with ``role``'s label (or len(text))."""
    m = fmt.line_start_re(role, number=False, colon=False).search(text)
    return m.start() if m else len(text)


from reactfuzz.kinds import ANY_REFUSAL  # noqa: E402

# ---- clean


@register_abuse(
    "clean.render", family="clean",
    description="no abuse: the intent written exactly as the format says",
    why="the baseline every other operator is measured against; also the round-trip check",
    expects="the intended call or answer",
    breaks=("classic-unanchored",),
)
def _clean(ctx: _Ctx) -> Writing:
    if ctx.draw(st.booleans()):
        answer = FinalAnswer(ctx.thought())
        return Writing(answer, ctx.render(answer))
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    return Writing(intent, ctx.render(intent))


# ---- malformed


@register_abuse(
    "malformed.wrong-type", family="malformed",
    description="a typed argument (date, number, enum, pattern, path) gets a near-valid string",
    why="regex parsers pass text through; only a schema knows 'last July' is not a date",
    expects="refused as malformed-arg",
    breaks=("classic", "classic-unanchored", "classic-action-input"),
)
def _wrong_type(ctx: _Ctx) -> Writing:
    base = ctx.call(lambda t: bool(_typed_param(t)) and _single_arg_ok(ctx.fmt, t), optional=False)
    tool = ctx.registry[base.tool]
    candidates = [n for n in _typed_param(tool) if n in (base.names or ())]
    assume(candidates)
    name = ctx.draw(st.sampled_from(candidates))
    bad = ctx.draw(argument_values(tool, name, valid=False))
    kwargs = base.kwargs() | {name: bad}
    intent = Call.named(base.tool, **kwargs)
    assume(not _validates(ctx.registry, intent))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "malformed.unbalanced-bracket", family="malformed",
    description="the argument list loses its closing bracket or gains an opening one",
    why="a greedy `(.*)\\]` runs whatever lies between the first `[` and the last `]`",
    expects="the intended call, or refused (unparseable)",
    applies=lambda f: f.family.open is not None,
    breaks=("classic", "classic-unanchored"),
)
def _unbalanced_bracket(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: bool(t.required_names) and _single_arg_ok(ctx.fmt, t),
                      optional=False)
    text = ctx.render(intent)
    close, open_ = ctx.fmt.family.close, ctx.fmt.family.open
    assert close is not None and open_ is not None
    where = text.rfind(close)
    how = ctx.draw(st.sampled_from(["drop-close", "extra-open", "close-early"]))
    if how == "drop-close":
        text = text[:where] + text[where + 1 :]
    elif how == "extra-open":
        text = text[:where] + open_ + text[where:]
    else:
        start = text.find(open_, text.find(ctx.fmt.labels.action + ":"))
        text = text[: start + 1] + close + text[start + 1 :]
    return Writing(intent, text, Expectation(frozenset({"unparseable", "malformed-arg"})))


@register_abuse(
    "malformed.unbalanced-quote", family="malformed",
    description="a quote opens inside an argument and never closes",
    why="parsers that do not quote pass the stray quote on as part of the value",
    expects="the intended call, or refused (unparseable / malformed-arg)",
    breaks=("classic", "classic-unanchored"),
)
def _unbalanced_quote(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: bool(_free_params(t)) and _single_arg_ok(ctx.fmt, t),
                      optional=False)
    text = ctx.render(intent)
    free = [n for n in (intent.names or ()) if n in _free_params(ctx.registry[intent.tool])]
    value = encode_text(intent.kwargs()[free[0]])
    at = ctx.fmt.family.args_start(text, ctx.fmt)
    head, action = text[:at], text[at:]
    action = action.replace(ctx.fmt.family.written_value(value), '"' + value, 1)
    text = head + action
    return Writing(intent, text, Expectation(frozenset({"unparseable", "malformed-arg"})))


@register_abuse(
    "malformed.empty", family="malformed",
    description="an argument is written empty",
    why="an empty string is valid text for a regex but rarely for the tool",
    expects="what the schema says of an empty value: run it, or refuse",
    applies=_multi_arg,
    breaks=("classic", "classic-unanchored"),
)
def _empty(ctx: _Ctx) -> Writing:
    base = ctx.call(lambda t: bool(t.required_names), optional=False)
    name = ctx.draw(st.sampled_from(list(base.names or ())))
    intent = Call.named(base.tool, **(base.kwargs() | {name: ""}))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "malformed.trailing-text", family="malformed",
    description="text follows the action on its line",
    why="an unanchored or greedy regex keeps going to the last `]` on the line",
    expects="the intended call, or refused (unparseable)",
    breaks=("classic", "classic-unanchored", "classic-action-input"),
)
def _trailing_text(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t), optional=False)
    text = ctx.render(intent)
    tail = ctx.draw(st.sampled_from([" please", " (see [1])", " and then Answer: done", "]"]))
    at = ctx.fmt.family.action_line_end(text, ctx.fmt)
    text = text[:at] + tail + text[at:]
    # the trailing text may end up in the tool name (action-input): unknown-tool is right too
    return Writing(intent, text, Expectation(ANY_REFUSAL | {"unknown-tool"}))


@register_abuse(
    "malformed.invalid-json", family="malformed",
    description="the JSON arguments are not JSON (single quotes, trailing comma, bare key)",
    why="lenient decoders guess; a guess is a call nobody validated",
    expects="the intended call, or refused (unparseable)",
    applies=lambda f: f.family.json_arguments,
    breaks_none_because="no classic regex design reads JSON arguments",
)
def _invalid_json(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: bool(t.required_names), optional=False)
    text = ctx.render(intent)
    how = ctx.draw(st.sampled_from(["single-quotes", "trailing-comma", "bare-key", "python"]))
    start = text.find("{")
    blob = text[start:]
    if how == "single-quotes":
        blob = blob.replace('"', "'")
    elif how == "trailing-comma":
        blob = blob[:-1] + ", }"
    elif how == "bare-key":
        blob = re.sub(r'"(\w+)":', r"\1:", blob, count=1)
    else:
        blob = blob.replace("true", "True").replace("null", "None").replace('"', "'")
    return Writing(intent, text[:start] + blob,
                   Expectation(frozenset({"unparseable", "malformed-arg"})))


# ---- missing


@register_abuse(
    "missing.argument-dropped", family="missing",
    description="a required argument is left out",
    why="the classic loop calls fn(*args): TypeError kills it, or the others shift position",
    expects="refused as missing-arg (positional text may also read as malformed)",
    breaks=("classic", "classic-unanchored", "classic-action-input"),
)
def _arg_dropped(ctx: _Ctx) -> Writing:
    base = ctx.call(lambda t: len(t.required_names) >= 1, optional=False)
    tool = ctx.registry[base.tool]
    name = ctx.draw(st.sampled_from(list(tool.required_names)))
    kwargs = {k: v for k, v in base.kwargs().items() if k != name}
    intent = Call.named(base.tool, **kwargs)
    return Writing(intent, ctx.render(intent), Expectation(frozenset({"unparseable"})))


@register_abuse(
    "missing.empty-brackets", family="missing",
    description="the action is written with no arguments at all",
    why="`name[]` splits into one empty argument for a classic loop",
    expects="refused as missing-arg",
    applies=_multi_arg,
    breaks=("classic", "classic-unanchored"),
)
def _empty_brackets(ctx: _Ctx) -> Writing:
    base = ctx.call(lambda t: len(t.required_names) >= 1, optional=False)
    intent = Call.named(base.tool)
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "missing.no-action-input", family="missing",
    description="the `Action Input:` line is missing",
    why="the MRKL regex needs both lines; a lenient one may run the tool with no input",
    expects="refused (unparseable / missing-arg)",
    applies=lambda f: f.family.input_role is not None,
    breaks_none_because="classic-action-input finds no Action/Action Input pair and refuses",
)
def _no_action_input(ctx: _Ctx) -> Writing:
    base = ctx.call(lambda t: len(t.required_names) == 1, optional=False)
    text = ctx.render(base)
    role = ctx.fmt.family.input_role
    assert role is not None
    label = f"\n{getattr(ctx.fmt.labels, role)}:"
    text = text[: text.find(label)]
    return Writing(Call.named(base.tool), text, Expectation(frozenset({"unparseable"})))


# ---- extra


@register_abuse(
    "extra.positional", family="extra",
    description="one more positional value than the tool takes",
    why="Python binds it to an optional parameter, or the call dies with TypeError",
    expects="refused as extra-arg",
    applies=lambda f: _multi_arg(f) and not f.family.named_args,
    breaks=("classic", "classic-unanchored"),
)
def _extra_positional(ctx: _Ctx) -> Writing:
    base = ctx.call(optional=True)
    extra = ctx.draw(st.sampled_from(["true", "en", "2", "all"]))
    intent = Call(base.tool, (*base.args, extra))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "extra.undeclared-name", family="extra",
    description="a named argument the tool does not declare",
    why="`fn(**kwargs)` raises TypeError; a lenient binder silently drops it",
    expects="refused as extra-arg (or dropped, if the policy says so)",
    applies=lambda f: f.family.named_args,
    breaks_none_because="no classic regex design reads named arguments",
)
def _undeclared(ctx: _Ctx) -> Writing:
    base = ctx.call()
    key = ctx.draw(st.sampled_from(["expand", "lang", "force", "debug"]))
    assume(key not in ctx.registry[base.tool].names)
    intent = Call.named(base.tool, **(base.kwargs() | {key: True}))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "extra.duplicate-name", family="extra",
    description="the same argument name twice with two values",
    why="json.loads keeps the last value silently: which one did the model mean?",
    expects="refused (extra-arg / ambiguous); never run",
    applies=lambda f: f.family.named_args,
    breaks_none_because="no classic regex design reads named arguments",
)
def _duplicate(ctx: _Ctx) -> Writing:
    base = ctx.call(lambda t: any(_is_free_string(t, n) for n in t.required_names),
                    optional=False)
    tool = ctx.registry[base.tool]
    name = next(n for n in tool.required_names if _is_free_string(tool, n))
    text = ctx.render(base)
    other = json.dumps(f"{base.kwargs()[name]} (2)")
    text = text[:-1] + f", {json.dumps(name)}: {other}}}"
    return Writing(base, text, Expectation(frozenset({"extra-arg", "ambiguous", "unparseable"}),
                                          allow_intended=False, note="a name given twice"))


# ---- injected


@register_abuse(
    "injected.delimiter", family="injected",
    description="the format's own delimiter inside a text argument",
    why="`search[Paris, France]` is two arguments to a comma splitter",
    expects="the intended call, or refused (the format cannot carry it unquoted)",
    breaks=("classic", "classic-unanchored", "classic-action-input"),
)
def _delimiter(ctx: _Ctx) -> Writing:
    base = ctx.call(lambda t: bool(_free_params(t)) and _single_arg_ok(ctx.fmt, t))
    tool = ctx.registry[base.tool]
    name = ctx.draw(st.sampled_from([n for n in _free_params(tool) if n in (base.names or ())]))
    delim = ctx.draw(st.sampled_from(ctx.fmt.family.delimiters))
    pre = ctx.draw(st.sampled_from(["", "Paris", "a"]))
    post = ctx.draw(st.sampled_from(["", " France", "b"]))
    intent = Call.named(base.tool, **(base.kwargs() | {name: pre + delim + post}))
    assume(_validates(ctx.registry, intent))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "injected.label-in-argument", family="injected",
    description="a protocol label inside a text argument",
    why="`\"Answer:\" in text` fires on an argument that merely mentions the label",
    expects="the intended call, or refused",
    breaks=("classic", "classic-action-input"),
)
def _label_in_arg(ctx: _Ctx) -> Writing:
    base = ctx.call(lambda t: bool(_free_params(t)) and _single_arg_ok(ctx.fmt, t))
    tool = ctx.registry[base.tool]
    name = ctx.draw(st.sampled_from([n for n in _free_params(tool) if n in (base.names or ())]))
    label = ctx.draw(st.sampled_from(_all_labels(ctx.fmt)))
    sep = ctx.draw(st.sampled_from([" ", "\n"]))
    value = f"what does{sep}{label} mean"
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(_validates(ctx.registry, intent))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "injected.stop-in-argument", family="injected",
    description="a stop sequence inside an argument: the provider cuts the completion there",
    why="the client receives half an action; a lenient parser runs the half",
    expects="refused; a truncated call never runs",
    breaks_none_because="the cut leaves no closing bracket (refused), or in action-input a "
    "shorter valid input that every parser reads alike: a protocol finding, not a parser's",
)
def _stop_in_arg(ctx: _Ctx) -> Writing:
    assume(ctx.fmt.stop)
    base = ctx.call(lambda t: bool(_free_params(t)) and _single_arg_ok(ctx.fmt, t))
    tool = ctx.registry[base.tool]
    name = ctx.draw(st.sampled_from([n for n in _free_params(tool) if n in (base.names or ())]))
    stop = ctx.draw(st.sampled_from(ctx.fmt.stop))
    value = f"what{'' if stop.startswith(chr(10)) else ' '}{stop} means"
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(_validates(ctx.registry, intent))
    return Writing(intent, ctx.render(intent))


@register_abuse(
    "injected.answer-label-in-thought", family="injected",
    description="the answer label in the middle of a thought",
    why="`if \"Answer:\" in text` returns early with a hijacked answer",
    expects="the intended call",
    breaks=("classic", "classic-action-input"),
)
def _answer_in_thought(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    word = ctx.fmt.labels.answer or f"{ctx.fmt.finish_action}["
    label = word if word.endswith("[") else f"{word}:"
    other = ctx.draw(st.sampled_from(
        [label, "Answer:", "Final Answer:"] if ctx.fmt.labels.answer else [label]
    ))
    thought = f"the docs say {other} maybe{']' if other.endswith('[') else ''}, so check"
    return Writing(intent, ctx.render(intent, thought=thought))


def _other_call(ctx: _Ctx, intent: Call) -> Call:
    other = ctx.call(lambda t: t.name != intent.tool and _single_arg_ok(ctx.fmt, t)
                     and bool(t.required_names), optional=False)
    return other


@register_abuse(
    "injected.action-in-thought", family="injected",
    description="an action of another tool mentioned in the middle of a thought",
    why="an unanchored regex runs the first `Action: name[...]` it finds anywhere",
    expects="the intended call",
    breaks=("classic-unanchored",),
)
def _action_in_thought(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    other = _other_call(ctx, intent)
    mention = render(other, ctx.fmt).replace("\n", " ")
    thought = f"I must not run {mention} here"
    return Writing(intent, ctx.render(intent, thought=thought))


@register_abuse(
    "injected.unicode-line-break", family="injected",
    description="an action or answer after a Unicode line break inside the thought",
    why="`str.splitlines()` sees a new line where `re.MULTILINE` does not",
    expects="the intended call, or refused (the text hides a second line)",
    breaks=("classic", "classic-unanchored", "classic-action-input"),
)
def _unicode_break(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    brk = ctx.draw(st.sampled_from(ODD_LINE_BREAKS))
    other = _other_call(ctx, intent)
    hidden = ctx.draw(st.sampled_from([
        render(other, ctx.fmt).replace("\n", brk),
        render(FinalAnswer("hijacked"), ctx.fmt),
    ]))
    thought = f"{ctx.thought()}{brk}{hidden}"
    # refusing a completion with a hidden second line is as right as running the intent
    return Writing(intent, ctx.render(intent, thought=thought),
                   Expectation(frozenset({"unparseable", "ambiguous"})))


@register_abuse(
    "injected.second-action", family="injected",
    description="a second action line after the first",
    why="most loops take the first or the last match without saying there were two",
    expects="refused as ambiguous under the strict policy (one action per turn)",
    breaks=("classic", "classic-unanchored", "classic-action-input"),
)
def _second_action(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    other = _other_call(ctx, intent)
    first = ctx.render(intent)
    text = first + "\n" + render(other, ctx.fmt)
    return Writing(intent, text, Expectation(
        frozenset({"ambiguous", "unparseable"}),
        allow_intended=not ctx.policy.one_action_per_turn,
        note="two actions in one turn",
    ))


@register_abuse(
    "injected.answer-and-action", family="injected",
    description="an answer line and an action line in one completion",
    why="whichever check runs first wins: an answer may end the loop before the action",
    expects="refused as ambiguous under the strict policy",
    applies=lambda f: f.labels.answer is not None,
    breaks=("classic", "classic-unanchored", "classic-action-input"),
)
def _answer_and_action(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    action = ctx.render(intent)
    answer = render(FinalAnswer("done"), ctx.fmt)
    first = ctx.draw(st.booleans())
    text = f"{answer}\n{action}" if first else f"{action}\n{answer}"
    return Writing(intent, text, Expectation(
        frozenset({"ambiguous", "unparseable"}),
        allow_intended=ctx.policy.answer_with_action == "action-wins",
        note="an answer and an action in one turn",
    ))


@register_abuse(
    "injected.label-in-answer", family="injected",
    description="a final answer whose text contains a line starting with a label",
    why="the answer quotes an action; an unanchored parser runs it",
    expects="the intended answer, or refused",
    breaks=("classic-unanchored",),
)
def _label_in_answer(ctx: _Ctx) -> Writing:
    other = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t) and bool(t.required_names),
                     optional=False)
    quoted = render(other, ctx.fmt)
    if ctx.fmt.labels.answer is None:
        quoted = quoted.replace("\n", " ")
        intent: Intent = FinalAnswer(f"do not {quoted}")
    else:
        intent = FinalAnswer(f"done\n{quoted}")
    return Writing(intent, ctx.render(intent))


# ---- label variants


def _variant(intent: Intent, new: str) -> Writing:
    """A label variant: the format refuses it (for any reason: a retry) or reads the intent."""
    return Writing(intent, new, Expectation(ANY_REFUSAL))


@register_abuse(
    "label.case", family="label",
    description="a label in another case (`action:`, `ACTION:`)",
    why="models drift in case; case-sensitive regexes then miss the action",
    expects="the intended call, or refused (unparseable)",
    breaks_none_because="every classic regex is case-sensitive: the variant costs a retry, "
    "not a wrong call",
)
def _case(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    label = ctx.fmt.labels.action
    new = ctx.draw(st.sampled_from([label.lower(), label.upper()]))
    assume(new != label)
    return _variant(intent, ctx.fmt.line_start_re("action", number=False, colon=False).sub(
        new, text))


@register_abuse(
    "label.spacing", family="label",
    description="spacing around the label's colon (`Action :`, `Action:   x`, `Action:x`)",
    why="`\\s*` after the colon is common, a space before it is not",
    expects="the intended call, or refused (unparseable)",
    breaks_none_because="the classic patterns allow any spacing after the colon and refuse a "
    "space before it",
)
def _spacing(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    label = ctx.fmt.labels.action
    new = ctx.draw(st.sampled_from([f"{label} :", f"{label}:   ", f"{label}:\t", f"{label}:"]))
    m = ctx.fmt.line_start_re("action").search(text)
    if m is not None:  # the label and one space after its colon give way to the variant
        rest = text[m.end():]
        text = text[: m.start()] + new + (rest[1:] if rest.startswith(" ") else rest)
    return _variant(intent, text)


@register_abuse(
    "label.numbering", family="label",
    description="labels numbered in an unnumbered format, or the numbers dropped",
    why="numbering is the ReAct paper's habit; LangChain's copy removed it",
    expects="the intended call, or refused (unparseable)",
    breaks_none_because="classic regexes either require the exact label or refuse",
)
def _numbering(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    if ctx.fmt.numbered:
        new = re.sub(r"(?m)^(\w[\w ]*?) \d+:", r"\1:", text)
    else:
        n = ctx.draw(st.integers(1, 9))
        new = ctx.fmt.line_start_re(number=False).sub(lambda m: f"{m['word']} {n}:", text)
    return _variant(intent, new)


@register_abuse(
    "label.markdown", family="label",
    description="markdown around the action: bold labels or a code fence",
    why="chat models format their answers; the label is no longer at column 1",
    expects="the intended call, or refused (unparseable)",
    breaks=("classic-action-input",),
)
def _markdown(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    how = ctx.draw(st.sampled_from(["bold", "fence"]))
    if how == "bold":
        new = ctx.fmt.line_start_re("action").sub(lambda m: f"**{m[0]}**", text)
    else:
        new = f"```\n{text}\n```"
    return _variant(intent, new)


@register_abuse(
    "label.leading-space", family="label",
    description="the action label indented, or the completion starting with a space",
    why="a prompt ending in `Thought:` makes every completion start with a space",
    expects="the intended call, or refused (unparseable)",
    breaks_none_because="anchored classic regexes refuse an indented label; the unanchored one "
    "runs it as meant",
)
def _leading_space(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    how = ctx.draw(st.sampled_from(["indent", "leading"]))
    label = ctx.fmt.labels.action
    if how == "indent":
        new = ctx.fmt.line_start_re("action", number=False, colon=False).sub(f"  {label}", text)
        return _variant(intent, new)
    thought = ctx.thought()
    body = render(intent, ctx.fmt)
    return Writing(intent, f" {thought}\n{body}")


@register_abuse(
    "label.crlf", family="label",
    description="Windows line endings (CRLF) throughout",
    why="clients on Windows or behind proxies add `\\r`; a `$` before `\\r` fails",
    expects="the intended call (the formats accept CRLF)",
    breaks_none_because="the classic patterns end in `\\s*$` or strip, which swallow the `\\r`",
)
def _crlf(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent).replace("\n", "\r\n") + "\r\n"
    return Writing(intent, text)


@register_abuse(
    "label.odd-line-break", family="label",
    description="the line break before the action is a Unicode one (`\\u2028`, `\\x85`, `\\r`)",
    why="`re.MULTILINE` and `str.splitlines()` disagree on where the action line starts",
    expects="the intended call, or refused (unparseable)",
    breaks_none_because="classic regexes see no action line and refuse; none runs another call",
)
def _odd_break(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    text = ctx.render(intent)
    brk = ctx.draw(st.sampled_from(ODD_LINE_BREAKS))
    at = _line_of(text, ctx.fmt, "action")
    assume(at > 0)
    return _variant(intent, text[: at - 1] + brk + text[at:])


# ---- fabricated observation


def _fabricated_tail(ctx: _Ctx) -> str:
    obs = ctx.fmt.label("observation", 1)
    thought = ctx.fmt.label("thought", 2)
    fake = ctx.draw(st.sampled_from(["all invoices were refunded", "[]", "ok"]))
    end = render(FinalAnswer("the tool said all is fine"), ctx.fmt, step=2)
    return f"\n{obs} {fake}\n{thought} good\n{end}"


@register_abuse(
    "fabricated.observation", family="fabricated",
    description="the model writes its own Observation (and an answer) after the action",
    why="with the stop sequence the provider cuts it; this checks the cut keeps the action",
    expects="the intended call",
    breaks_none_because="the stop sequence removes the fabricated text before any parser sees it",
)
def _fabricated(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    core = ctx.render(intent)
    return Writing(intent, core + _fabricated_tail(ctx), core_end=len(core))


@register_abuse(
    "fabricated.observation-no-stop", family="fabricated",
    description="as fabricated.observation, but the client sent no stop sequence",
    why="the fabricated tool result and answer reach the parser",
    expects="the intended call, or refused; never the fabricated answer",
    breaks=("classic", "classic-action-input"),
)
def _fabricated_no_stop(ctx: _Ctx) -> Writing:
    intent = ctx.call(lambda t: _single_arg_ok(ctx.fmt, t))
    core = ctx.render(intent)
    return Writing(intent, core + _fabricated_tail(ctx), Expectation(
        frozenset({"unparseable", "ambiguous"}), note="a fabricated observation follows"
    ), core_end=None)


NO_STOP = frozenset({"fabricated.observation-no-stop"})
"""Operators whose text reaches the parser without the provider's stop-sequence cut."""


# --------------------------------------------------------------------------------------
# Scenarios.


@dataclass(frozen=True)
class Scenario:
    """An intent, the abuse applied to how it was written, and the completion as the
    provider returns it, with the oracle's acceptable outcomes."""

    format: str
    abuse: str
    intent: Intent
    raw: str
    completion: str
    acceptable: Acceptable
    stop_sequence: str | None = None

    def __str__(self) -> str:
        return f"[{self.abuse}] {self.completion!r}"


def scenarios(
    registry: ToolRegistry,
    fmt: Format | str = "bracket",
    *,
    abuses: Sequence[str] | None = None,
    policy: Policy = STRICT,
) -> st.SearchStrategy[Scenario]:
    """Scenarios for ``fmt``: a drawn abuse operator applied to a drawn intent, the stop
    sequence applied as the provider would, and the oracle's verdict on what is right."""
    fmt = get_format(fmt)
    ids = list(abuses) if abuses is not None else abuse_ids(fmt)
    for i in ids:
        if i not in ABUSES:
            raise ValueError(f"unknown abuse {i!r}: use one of {', '.join(ABUSES)}")
    ids = [i for i in ids if ABUSES[i].applies_to(fmt)]
    if not ids:
        raise ValueError(f"none of the abuses applies to format {fmt.name!r}")
    return _scenarios(registry, fmt, st.sampled_from(ids), policy)


@st.composite
def _scenarios(draw: st.DrawFn, registry: ToolRegistry, fmt: Format,
               ids: st.SearchStrategy[str], policy: Policy) -> Scenario:
    op = ABUSES[draw(ids)]
    writing = op.write(_Ctx(draw, fmt, registry, policy))
    raw = writing.text
    stop = () if op.id in NO_STOP else fmt.stop
    completion, matched = apply_stop(raw, stop)
    expectation = writing.expectation
    core_end = writing.core_end if writing.core_end is not None else len(raw)
    if matched is not None and len(completion) < core_end:
        # the provider cut inside the intent's own text: it cannot arrive any more
        expectation = Expectation(ANY_REFUSAL, allow_intended=False,
                                  note=f"the stop sequence {matched!r} cut the text")
    acceptable = oracle(writing.intent, fmt, registry, policy, expectation=expectation,
                        quoted=writing.quoted)
    return Scenario(fmt.name, op.id, writing.intent, raw, completion, acceptable, matched)


@pinned
def for_each_example(
    strategy: st.SearchStrategy[Any], body: Callable[[Any], object], *, examples: int,
    seed: int,
) -> None:
    """Call ``body`` on ``examples`` values of ``strategy``: generation only, seeded, no
    database, no shrinking -- how the study, the exploration pool and the bench draw.

    An exception from ``body`` propagates (after Hypothesis replays that example once);
    ``hypothesis.errors.Unsatisfiable`` means the strategy found nothing to draw.
    """

    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck))
    @given(x=strategy)
    def run(x: Any) -> None:
        body(x)

    hypothesis_seed(seed)(run)()


# --------------------------------------------------------------------------------------
# Valid transcripts from the grammar.


_MID = ("Answer:", "Action: x[y]", "Observation:", ", ", "[1]", "{}", "Final Answer:")


def transcripts(
    fmt: Format | str = "bracket",
    *,
    method: str = "render",
    registry: ToolRegistry | None = None,
) -> st.SearchStrategy[str]:
    """Valid multi-turn transcripts of a format, free text seeded with protocol keywords
    in the middle of lines.

    ``method="render"`` (default) composes them from the format's own writer: a header,
    turns of thought, rendered action and observation, and a final answer -- valid by
    construction and about ten times cheaper than grammar-driven generation.
    ``method="grammar"`` draws them from the format's Lark grammar with
    ``hypothesis.extra.lark.from_lark`` (explicit strategies for the free-text terminals),
    which covers shapes the writer never produces (blank lines, CRLF, label-then-newline).
    """
    if method == "grammar":
        return _grammar_transcripts(get_format(fmt))
    if method != "render":
        raise ValueError(f"method must be 'render' or 'grammar', not {method!r}")
    from .tools import default_registry

    fmt = get_format(fmt)
    registry = registry or default_registry()
    # a transcript is syntax: tool names from the registry, arguments as plain words
    # (schema validity is the scenarios' business), so no validation is paid per draw
    # every (tool, arguments) pairing is built once and drawn in one choice
    counts = (1,) if fmt.arguments == "single" else (1, 2, 3)
    triples = [(a, b, c) for a in WORDS[:4] for b in WORDS for c in WORDS[:3]]
    pool = [
        Call(t.name, words[:n], (t.names + tuple(f"arg{i}" for i in range(n)))[:n])
        for words in triples for t in registry if t.names for n in counts
    ]
    pool.sort(key=lambda c: (len(c.args), len(" ".join(c.args))))
    return _rendered_transcripts(fmt, st.sampled_from(pool))


_WORD = st.sampled_from(WORDS)


def _line_pool(n: int = 256) -> tuple[str, ...]:
    """Lines of free text, built once: a word first (never a label), protocol keywords
    mid-line. Drawing a whole line in one choice keeps generation cheap; the pool starts
    with the simplest lines, so shrinking lands on them."""
    import random as _random

    rng = _random.Random(0)
    lines = list(WORDS)
    while len(lines) < n:
        k = rng.randint(1, 7)
        words = [rng.choice(WORDS)] + [
            rng.choice(_MID) if rng.random() < 0.25 else rng.choice(WORDS) for _ in range(k)
        ]
        lines.append(" ".join(words))
    return tuple(lines)


_TEXT_LINE = st.sampled_from(_line_pool())
"""A line of free text with protocol keywords in the middle."""

_OBSERVATION = st.sampled_from(
    _line_pool()[:128] + tuple(f"{a}\n{b}" for a, b in zip(_line_pool()[128:], _line_pool()))
)
"""An observation of one or two lines (continuation lines never start with a label)."""


@st.composite
def _rendered_transcripts(draw: st.DrawFn, fmt: Format, calls: st.SearchStrategy[Call]) -> str:
    parts = [f"{draw(st.sampled_from(fmt.labels.headers))}: {draw(_TEXT_LINE)}"]
    steps = draw(st.integers(0, 3))
    for n in range(1, steps + 1):
        parts.append(render(draw(calls), fmt, thought=draw(_TEXT_LINE), step=n))
        parts.append(f"{fmt.label('observation', n)} {draw(_OBSERVATION)}")
    if draw(st.integers(0, 2)):
        answer = FinalAnswer(draw(_TEXT_LINE))
        parts.append(render(answer, fmt, thought=draw(_TEXT_LINE), step=steps + 1))
    return "\n".join(parts) + "\n"


def _grammar_transcripts(fmt: Format) -> st.SearchStrategy[str]:
    """Transcripts from the grammar itself (``from_lark`` with explicit strategies)."""
    from hypothesis.extra.lark import from_lark

    from .grammars import lark_parser

    parser = lark_parser(fmt)
    labels = set(fmt.labels.all().values())
    mid = st.sampled_from([*WORDS, "Answer:", "Action: x[y]", "Observation:", ", ", "[1]", "{}"])

    def line_text(first: bool) -> st.SearchStrategy[str]:
        words = st.lists(mid, min_size=1, max_size=5).map(" ".join)
        if first:
            return words.map(lambda s: " " + s)
        return words.filter(lambda s: not any(s.startswith(w) for w in labels)).map(
            lambda s: s if s.strip() else "x"
        )

    def label(role: str) -> st.SearchStrategy[str]:
        return st.just(f"{getattr(fmt.labels, role)}:")

    explicit: dict[str, st.SearchStrategy[str]] = {
        "TEXT": line_text(True),
        "CONT": st.sampled_from(WORDS).flatmap(lambda w: line_text(False).map(lambda s: w + s)),
        "THOUGHT": label("thought"),
        "ACTION": label("action"),
        "OBSERVATION": label("observation"),
        "HEADER": st.sampled_from([f"{h}:" for h in fmt.labels.headers]),
        "_EOL": st.sampled_from(["\n", "\n", "\r\n", "  \n"]),
        "_SP": st.just(" "),
        "_BREAK": st.just("\n"),
        "TOOL": st.sampled_from(["search", "get_charge", "list_invoices"]),
        "NAME": st.sampled_from(["search", "get_charge", "list_invoices"]),
        "BARE": st.sampled_from(WORDS),
        "QUOTED": st.sampled_from(['"Paris, France"', '"a]b"', '"x"']),
        "CALL": st.sampled_from(["Search[Paris]", "Lookup[a, b (c)]", "Search[x [y] z]"]),
        "_JWS": st.sampled_from([" ", "\n", ""]).filter(bool),
        "STRING": st.sampled_from(['"a"', '"cus_8812"', '"x, y"']),
        "NUMBER": st.sampled_from(["1", "-2.5", "0"]),
    }
    if fmt.labels.answer:
        explicit["ANSWER"] = label("answer")
    if fmt.labels.action_input:
        explicit["ACTION_INPUT"] = label("action_input")
    terminals = {t.name for t in parser.terminals}
    explicit = {k: v for k, v in explicit.items() if k in terminals}
    strategy = from_lark(parser, start="transcript", explicit=explicit)
    if fmt.numbered:
        strategy = strategy.map(lambda s: _renumber(s, fmt))
    return strategy


def _renumber(text: str, fmt: Format) -> str:
    """Give a numbered format's labels the numbers its grammar check expects."""
    roles = {fmt.labels.thought: "thought", fmt.labels.action: "action",
             fmt.labels.observation: "observation"}
    pat = fmt.line_start_re("thought", "action", "observation")
    n, last = 0, None

    def fix(m: re.Match[str]) -> str:
        nonlocal n, last
        role = roles[m["word"]]
        if (role != "observation" and last in (None, "observation")) or (
            role == "thought" and last == "thought"
        ):
            n += 1
        last = role
        return f"{m['word']} {n}:"

    return pat.sub(fix, text)
