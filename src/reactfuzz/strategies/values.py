"""Argument values from a tool's JSON schema, valid calls and intents.

Values come from small pools where a pool is as good as the whole domain (one choice
each: generation stays cheap and shrinks to the simplest value), from
``hypothesis-jsonschema`` for every schema no pool covers (nested objects, arrays of
objects, unions, formats), and from near-valid strings a schema refuses (a date that is
not a date, ``../``).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st
from pydantic import ValidationError

from ..model import Call, FinalAnswer, Intent
from ..tools import Tool, ToolRegistry
from .text import plain_text

__all__ = [
    "REAL_TEXT",
    "argument_values",
    "intents",
    "is_free_string",
    "prop_kind",
    "real_text",
    "schema_properties",
    "valid_calls",
    "validates",
]


_POOL_KEYS = frozenset({
    "type", "title", "description", "examples", "default", "$comment", "deprecated", "enum",
    "format", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "items", "minItems", "maxItems", "anyOf",
})
"""Schema keywords the value pools below cover; any other sends a property to the generator."""


def prop_kind(prop: dict[str, Any]) -> str:
    """What kind of value a property holds: a pool of realistic values, or ``json``.

    ``json`` is every schema the pools do not cover (objects, arrays of anything but plain
    strings, unions, ``const``, formats other than ``date``): drawn by
    ``hypothesis-jsonschema`` from the schema itself.
    """
    if "enum" in prop:
        return "enum"
    if not prop.keys() <= _POOL_KEYS:
        return "json"
    types = prop.get("type")
    if isinstance(types, list):
        rest = [t for t in types if t != "null"]
        if len(rest) > 1:
            return "json"
        types = rest[0] if rest else "string"
    if prop.get("anyOf"):
        inner = [p for p in prop["anyOf"] if p.get("type") != "null"]
        return prop_kind(inner[0]) if len(inner) == 1 else "json"
    if types == "string" and "format" in prop:
        return "date" if prop["format"] == "date" else "json"
    if types == "string" and "pattern" in prop:
        return "pattern"
    if types == "array":
        items = prop.get("items")
        plain = isinstance(items, dict) and items.get("type") == "string" and (
            items.keys() <= {"type", "title", "description"})
        return "list" if plain else "json"
    if types is None or types == "object":
        return "json"
    return {"integer": "int", "number": "float", "boolean": "bool"}.get(str(types), "string")


_WORDS = "reactfuzz-plain-text"
"""A string format of our own: free strings inside generated values are plain words."""
_DATA_KEYS = frozenset({"enum", "const", "default", "examples"})


def _for_generation(node: Any, closed: bool = True) -> Any:
    """A copy of a schema to draw from: free strings are plain words (as everywhere else, so a
    finding names the operator that made it) and objects carry only their declared keys (a
    model fills in what the schema names); validation still uses the schema as written."""
    if isinstance(node, list):
        return [_for_generation(n, closed) for n in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DATA_KEYS:
            out[key] = value
        elif key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {n: _for_generation(v) for n, v in value.items()}
        else:
            out[key] = _for_generation(value, closed and key != "allOf")
    if out.get("type") == "string" and not out.keys() & {
        "format", "pattern", "minLength", "maxLength", "enum", "const"
    }:
        out["format"] = _WORDS
    if closed and out.get("type") == "object" and "properties" in out and not out.keys() & {
        "additionalProperties", "patternProperties"
    }:
        out["additionalProperties"] = False
    return out


def _generated(prop: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of a schema no pool covers, drawn by ``hypothesis-jsonschema``.

    Objects are assembled here with ``fixed_dictionaries`` (their declared keys, each value
    from its own schema) when the installed Hypothesis no longer has the internal API
    ``hypothesis-jsonschema`` 0.23 draws objects with; every other schema goes to it whole.
    """
    import jsonschema

    schema = _for_generation(prop)
    check = jsonschema.validators.validator_for(prop, default=jsonschema.Draft202012Validator)
    valid = check(prop, format_checker=check.FORMAT_CHECKER).is_valid
    return _drawn(schema).filter(valid)


def _drawn(schema: Any) -> st.SearchStrategy[Any]:
    from hypothesis.internal.conjecture import utils as cu
    from hypothesis_jsonschema import from_schema

    if hasattr(cu.many, "more") or not _has_object(schema):
        return from_schema(schema, custom_formats={_WORDS: plain_text()})
    rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([_drawn({**rest, **branch}) for branch in schema[key]])
    types = schema.get("type")
    if isinstance(types, list) and "null" in types and len(types) == 2:
        other = next(t for t in types if t != "null")
        return st.none() | _drawn({**schema, "type": other})
    if types == "array":
        return st.lists(_drawn(schema.get("items", {})), min_size=schema.get("minItems", 0),
                        max_size=schema.get("maxItems", 3))
    props = schema.get("properties", {})
    required = [k for k in schema.get("required", []) if k in props]
    return st.fixed_dictionaries(
        {k: _drawn(props[k]) for k in required},
        optional={k: _drawn(v) for k, v in props.items() if k not in required},
    )


def _has_object(node: Any) -> bool:
    if isinstance(node, list):
        return any(_has_object(n) for n in node)
    if not isinstance(node, dict):
        return False
    return node.get("type") == "object" or "properties" in node or any(
        _has_object(v) for k, v in node.items() if k not in _DATA_KEYS)


@lru_cache(maxsize=256)
def schema_properties(tool: Tool) -> dict[str, dict[str, Any]]:
    return dict(tool.json_schema().get("properties", {}))


def is_free_string(tool: Tool, name: str) -> bool:
    return prop_kind(schema_properties(tool).get(name, {})) == "string"


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
    # a confined path: traversal, then what a tool could decode or expand out of the root
    "string": ("../../etc/passwd", "/etc/passwd", "%2e%2e/%2e%2e/etc/passwd",
               "\uff0e\uff0e/\uff0e\uff0e/etc/passwd", "~/.ssh/id_rsa", "$HOME/.ssh/id_rsa",
               "..\\..\\windows\\win.ini", "C:/Windows/win.ini"),
    "list": ("a", ""),
    "json": ("", "none", "{}"),
}


REAL_TEXT: tuple[str, ...] = (
    "it's", "the user's invoice", "O'Hare", 'say "hi"', "it's \"fine\"", "a\\b",
    "C:\\Users\\ana", "50% off", "Zürich", "naïve café", "Ærøskøbing", "東京の請求書",
    "refund 🎉", "👍", "\u00e9t\u00e9 d'\u00e9t\u00e9", "l'été", "won't", "rock 'n' roll",
    "https://example.com/inv/7", "1/2 off",
)
"""Free text as users write it: apostrophes, double quotes, backslashes, non-ASCII letters,
CJK, emoji and slashes (some encoders write ``/`` as ``\\/``), simplest first (``it's``: a
lone apostrophe). Not drawn for ordinary arguments, whose values stay plain words so a
finding names the operator that made it; the ``content.*`` operators draw from here."""


def real_text() -> st.SearchStrategy[str]:
    """One value of :data:`REAL_TEXT` (one choice: shrinks to ``it's``)."""
    return _REAL


_REAL = st.sampled_from(REAL_TEXT)


def argument_values(
    tool: Tool, name: str, *, valid: bool = True
) -> st.SearchStrategy[Any]:
    """Values for one parameter: valid ones (from its schema), or near-valid ones that a
    schema refuses (a date that is not a date, an id that breaks its pattern, ``../``)."""
    return _argument_values(tool, name, valid)


@lru_cache(maxsize=1024)
def _argument_values(tool: Tool, name: str, valid: bool) -> st.SearchStrategy[Any]:
    prop = schema_properties(tool).get(name, {})
    kind = prop_kind(prop)
    if not valid:
        return st.sampled_from(_NEAR_VALID[kind])
    if kind == "enum":
        return st.sampled_from(prop["enum"])
    if kind == "json":  # what no pool covers: the maintained generator, from the schema
        return _generated(prop)
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
        amounts = [v for v in _AMOUNTS if lo <= v <= hi and xlo < v < xhi]
        if amounts:
            return st.sampled_from(amounts)
        return st.floats(max(lo, xlo), min(hi, xhi), exclude_min=xlo > lo,
                         exclude_max=xhi < hi, allow_nan=False)
    if kind == "bool":
        return st.booleans()
    if kind == "list":
        return st.lists(plain_text(), max_size=3)
    return plain_text()


def validates(registry: ToolRegistry, call: Call) -> bool:
    try:
        registry.validate(call.tool, call.kwargs())
    except (ValidationError, Exception):
        return False
    return True


def valid_calls(
    registry: ToolRegistry,
    *,
    tools: Sequence[str] | None = None,
    optional: bool | None = None,
) -> st.SearchStrategy[Call]:
    """A call valid against its tool's schema, with named arguments in declared order.

    ``optional=None`` lets each defaulted parameter be given or left out; ``True`` gives
    all, ``False`` none.
    """
    names = tuple(tools) if tools is not None else registry.names()
    return _valid_calls_of(registry, names, optional)


# One strategy object per registry, tools and optional, and per choice inside it: the
# operators ask for calls at every draw, and Hypothesis validates every new strategy
# object before its first draw, which cost about an eighth of generating a scenario.
# The draws are the same (the tool is looked up at each draw, by name).


@lru_cache(maxsize=256)
def _valid_calls_of(registry: ToolRegistry, names: tuple[str, ...],
                    optional: bool | None) -> st.SearchStrategy[Call]:
    return _valid_calls(registry, tools=names, optional=optional)


@lru_cache(maxsize=1024)
def _sampled(names: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.sampled_from(names)


@lru_cache(maxsize=64)
def _up_to(n: int) -> st.SearchStrategy[int]:
    return st.integers(0, n)


@st.composite
def _valid_calls(
    draw: st.DrawFn,
    registry: ToolRegistry,
    *,
    tools: Sequence[str] | None = None,
    optional: bool | None = None,
) -> Call:
    """What :func:`valid_calls` draws."""
    names = tuple(tools) if tools is not None else registry.names()
    tool = registry[draw(_sampled(names))]
    n_optional = len(tool.parameters) - len(tool.required_names)
    if optional is None:  # how many defaulted parameters to give, in order (one choice)
        give_optional = draw(_up_to(n_optional)) if n_optional else 0
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
    assume(validates(registry, call))
    return call


def intents(
    registry: ToolRegistry, *, answers: bool = True, tools: Sequence[str] | None = None
) -> st.SearchStrategy[Intent]:
    """What a model means: a valid call from the registry, or (with ``answers``) an answer."""
    calls = valid_calls(registry, tools=tools)
    if not answers:
        return calls
    return st.one_of(calls, plain_text().map(FinalAnswer))
