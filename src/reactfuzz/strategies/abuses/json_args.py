"""JSON arguments: nested objects, comments, a label inside a string with a real line break,
the call's shape, scalar arguments, template braces and Python sets.

For families whose arguments are one JSON value (:attr:`Family.json_arguments`). Missing,
extra and duplicate keys, single quotes and trailing commas are the ``missing.*``,
``extra.*`` and ``malformed.invalid-json`` operators; these add what they do not write.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from ...fixes import CALL_SHAPE, JSON_FIELD, STRICT_JSON, UNWRAP, Advice
from ...formats import Format
from ...model import Call
from ...oracle import Expectation
from ...render import render
from ..catalogue import ANY_REFUSAL, Context, Writing, register_abuse, single_arg_ok
from ..values import validates
from ._parts import PROBE, args_object, free_call, outer_value, with_json, written_json

NO_CLASSIC_JSON = "no classic regex design reads JSON arguments"
"""Why no classic design breaks on an operator that writes only inside JSON arguments."""


def _json_arguments(fmt: Format) -> bool:
    """Whether the format's arguments are one JSON value: where these operators apply."""
    return fmt.family.json_arguments


def _blob(ctx: Context, call: Call) -> tuple[str, int, int, dict[str, Any]]:
    """The rendered text, where its JSON arguments start and end, and the object."""
    text = ctx.render(call)
    start, end, obj = args_object(text, call)
    return text, start, end, obj


@register_abuse(
    "json.nested", family="json",
    description="the arguments one level down: `{\"query\": {\"query\": \"x\"}}`, "
    "`{\"args\": {...}}`, `{\"input\": {...}}`",
    why="a decoder that unwraps a single key, or passes the inner object on as the value, "
    "runs a call nobody validated",
    expects="refused (malformed-arg / missing-arg / extra-arg / unparseable)",
    applies=_json_arguments,
    breaks_none_because=NO_CLASSIC_JSON,
    advice=Advice(UNWRAP, checks={"no-crash": UNWRAP}),
)
def _nested(ctx: Context) -> Writing:
    base = ctx.call(lambda t: bool(t.required_names), optional=False)
    text, start, end, obj = _blob(ctx, base)
    how = ctx.draw(st.sampled_from(["wrapper", "self"]))
    new: dict[str, object]
    if how == "wrapper":
        key = ctx.draw(st.sampled_from(["args", "arguments", "input", "action_input"]))
        assume(key not in ctx.registry[base.tool].names)
        new = {key: obj}
    else:
        first = next(iter(obj))
        new = {**obj, first: {first: obj[first]}}
    return Writing(base, with_json(text, start, end, new), Expectation(
        frozenset({"malformed-arg", "missing-arg", "extra-arg", "unparseable"}),
        allow_intended=False, note="the arguments are nested one level too deep"))


@register_abuse(
    "json.comment", family="json",
    description="a comment inside the JSON arguments (`// ...`, `/* ... */`, `# ...`)",
    why="JSON has no comments; a lenient decoder (JSON5, a regex strip) reads them and may "
    "take a commented-out value",
    expects="the intended call, or refused (unparseable)",
    applies=_json_arguments,
    breaks_none_because=NO_CLASSIC_JSON,
    advice=Advice(STRICT_JSON, checks={"no-crash": STRICT_JSON}),
)
def _comment(ctx: Context) -> Writing:
    base = ctx.call(lambda t: bool(t.required_names), optional=False)
    text, start, end, obj = _blob(ctx, base)
    style = ctx.draw(st.sampled_from(["//", "/*", "#"]))
    note = written_json(obj, escapes="ascii")
    body = written_json(obj)
    comment = f"/* was {note} */" if style == "/*" else f"{style} was {note}\n"
    blob = "{" + comment + body[1:] if ctx.draw(st.booleans()) else body[:-1] + comment + "}"
    return Writing(base, text[:start] + blob + text[end:], Expectation(ANY_REFUSAL))


@register_abuse(
    "json.label-in-string", family="json",
    description="a JSON string holding a real line break followed by a label "
    "(`{\"query\": \"x<newline>Answer: y\"}`)",
    why="the label now starts a line: a line-based reader sees an answer, a strict JSON "
    "decoder sees a control character",
    expects="refused (unparseable / ambiguous), or the intended call",
    applies=_json_arguments,
    breaks_none_because=NO_CLASSIC_JSON,
    advice=Advice(
        "Decode the JSON value before looking for labels, so a line break and a label inside a"
        " JSON string stay inside the string.",
        JSON_FIELD),
)
def _label_in_string(ctx: Context) -> Writing:
    base, name = free_call(ctx, lambda t: len(t.required_names) >= 1, optional=False)
    role = ctx.draw(st.sampled_from(
        [r for r in ("answer", "observation", "action", "thought") if
         getattr(ctx.fmt.labels, r)]))
    label = ctx.fmt.label(role, 2)
    value = f"x\n{label} y"
    intent = Call.named(base.tool, **(base.kwargs() | {name: value}))
    assume(validates(ctx.registry, intent))
    text = ctx.render(intent).replace("\\n" + label, "\n" + label, 1)
    return Writing(intent, text, Expectation(frozenset({"unparseable", "ambiguous"})))


_OTHER_ARGS_KEYS = ("arguments", "parameters", "input", "args", "action_input")
"""Where protocols put a call's arguments: a model trained on one writes its key in another."""
SHAPES = ("no-arguments", "other-arguments-key", "extra-key", "function-wrapper",
          "arguments-string", "call-string", "call-list")
"""How a call object drifts from ``{tool_key: name, args_key: {...}}``: the arguments key
left out (a tool without parameters), another protocol's arguments key, an ``id`` or
``type`` key added, OpenAI's ``{"type": "function", "function": {...}}`` wrapper, the
arguments as a JSON string (as OpenAI's API carries them), the whole call as a JSON
string, or a list of one call."""


@lru_cache(maxsize=64)
def call_object_keys(fmt: Format) -> tuple[str, str] | None:
    """The tool and arguments keys when the format writes each call as a JSON object of
    exactly those two keys (a blob, a tag's call object, a bare JSON call); else ``None``."""
    if not fmt.family.json_arguments:
        return None
    text = render(PROBE, fmt)
    where = outer_value(text, PROBE)
    if where is None:
        return None
    value = json.loads(text[where[0]:where[1]])
    keys = (fmt.tool_key, fmt.args_key)
    if not isinstance(value, dict) or list(value) != list(keys) or value[keys[0]] != "probe":
        return None
    return keys


def drifted(call: dict[str, Any], shape: str, tool_key: str, args_key: str,
            other: str = "parameters", extra: tuple[str, str] = ("id", "call_1")) -> Any:
    """The call object written in ``shape`` (see :data:`SHAPES`)."""
    if shape == "no-arguments":
        return {tool_key: call[tool_key]}
    if shape == "other-arguments-key":
        return {tool_key: call[tool_key], other: call[args_key]}
    if shape == "extra-key":
        return {extra[0]: extra[1], **call}
    if shape == "function-wrapper":
        return {"type": "function", "function": call}
    if shape == "arguments-string":
        return {**call, args_key: json.dumps(call[args_key], ensure_ascii=False)}
    if shape == "call-string":
        return json.dumps(call, ensure_ascii=False)
    return [call]


@register_abuse(
    "json.call-shape", family="json",
    description="the call object in another protocol's shape: no arguments key, another "
    "arguments key (`parameters`, `input`), an `id` key, OpenAI's `function` wrapper, the "
    "arguments or the whole call as a JSON string, a list of one call",
    why="a reader that checks for exactly its two keys drops the call without a word (the "
    "text is then the answer), or crashes on a value that is not an object",
    expects="the intended call, or refused",
    applies=lambda f: call_object_keys(f) is not None,
    needs="calls written as a JSON object of a tool key and an arguments key",
    breaks_none_because="no classic regex design reads a JSON call object",
    advice=Advice(CALL_SHAPE),
)
def _call_shape(ctx: Context) -> Writing:
    keys = call_object_keys(ctx.fmt)
    assert keys is not None
    shape = ctx.draw(st.sampled_from(SHAPES))
    if shape == "no-arguments":  # a tool without parameters: its call is its name
        base = ctx.call(lambda t: not t.names)
    else:
        base = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    text = ctx.render(base)
    where = outer_value(text, base)
    assume(where is not None)
    assert where is not None
    start, end = where
    other = ctx.draw(st.sampled_from([k for k in _OTHER_ARGS_KEYS if k != keys[1]]))
    extra = ctx.draw(st.sampled_from([("id", "call_1"), ("type", "function")]))
    value = drifted(json.loads(text[start:end]), shape, *keys, other=other, extra=extra)
    text = with_json(text, start, end, value, "compact" if ctx.draw(st.booleans()) else "spaced")
    return Writing(base, text, Expectation(ANY_REFUSAL))


@register_abuse(
    "json.scalar-args", family="json",
    description="the arguments written as a JSON value that is no object: the argument's "
    "string alone (`\"Paris\"`), a list of it, a number or `true`, as models write it for a "
    "one-argument tool",
    why="a reader that decodes the JSON and then takes its keys (`set(args)`, `args.items()`, "
    "`tool(**args)`) raises TypeError on a number or a bool instead of refusing: the agent "
    "loop dies where a retry was due",
    expects="refused, or the intended call with the value bound to the tool's one parameter",
    applies=_json_arguments,
    breaks_none_because=NO_CLASSIC_JSON,
    advice=Advice(
        "Check that the decoded arguments are an object before taking their keys, and refuse"
        " anything else (or bind it to the tool's one parameter on purpose).",
        "Refuse arguments that are no JSON object with a message the model can act on, or bind a"
        " lone value to the tool's one parameter; never raise."),
)
def _scalar_args(ctx: Context) -> Writing:
    base, name = free_call(ctx, lambda t: len(t.required_names) == 1, optional=False)
    how = ctx.draw(st.sampled_from(["string", "list", "number", "bool"]))
    value, written = {  # the argument's value, and the JSON value the model writes
        "string": (base.kwargs()[name], base.kwargs()[name]),
        "list": (base.kwargs()[name], [base.kwargs()[name]]),
        "number": ("42", 42),
        "bool": ("true", True),
    }[how]
    intent = Call.named(base.tool, **{name: value})
    assume(validates(ctx.registry, intent))
    text, start, end, _ = _blob(ctx, intent)
    return Writing(intent, with_json(text, start, end, written), Expectation(ANY_REFUSAL))


LITERAL_FALLBACK: str = (
    "Catch every error of the fallback decoder (`ast.literal_eval` raises TypeError,"
    " MemoryError and RecursionError as well as ValueError and SyntaxError) and keep only"
    " values JSON can write (no set, bytes or complex), refusing the rest with a message.")
"""The fix for a Python-literal fallback that lets errors or non-JSON values through."""


@register_abuse(
    "json.template-braces", family="json",
    description="the call's JSON with every brace doubled (`{{\"query\": \"x\"}}`), as a "
    "prompt template escapes braces for `str.format`, Jinja or LangChain and a model "
    "copies them; the whole call object or its arguments",
    why="JSON refuses it; a fallback to `ast.literal_eval` reads `{{...}}` as a set holding "
    "a dict and raises TypeError (unhashable), which `except (ValueError, SyntaxError)` "
    "lets out: the request fails instead of the call being refused",
    expects="refused (unparseable / malformed-arg), or the intended call",
    applies=_json_arguments,
    breaks_none_because=NO_CLASSIC_JSON,
    advice=Advice(LITERAL_FALLBACK, STRICT_JSON),
)
def _template_braces(ctx: Context) -> Writing:
    base = ctx.call(lambda t: single_arg_ok(ctx.fmt, t))
    text = ctx.render(base)
    outer = outer_value(text, base) if base.names else None
    if outer is None or ctx.draw(st.booleans()):
        start, end, _ = args_object(text, base)
    else:
        start, end = outer
    doubled = text[start:end].replace("{", "{{").replace("}", "}}")
    return Writing(base, text[:start] + doubled + text[end:],
                   Expectation(frozenset({"unparseable", "malformed-arg"})))


@register_abuse(
    "json.python-set", family="json",
    description="an argument written as a Python set of words (`{'query': {'paris', "
    "'hotels'}}`) in arguments written as a Python dict, as a model that writes Python puts "
    "braces where several values are due",
    why="`ast.literal_eval` (the usual fallback after `json.loads`) reads it as a set, which "
    "no JSON encoder writes: the call goes on and `json.dumps` of its arguments raises "
    "TypeError later, outside any parse error handling",
    expects="refused (malformed-arg / unparseable)",
    applies=_json_arguments,
    breaks_none_because=NO_CLASSIC_JSON,
    advice=Advice(LITERAL_FALLBACK, STRICT_JSON),
)
def _python_set(ctx: Context) -> Writing:
    base, name = free_call(ctx)
    text, start, end, obj = _blob(ctx, base)
    words = ctx.draw(st.lists(st.sampled_from(["paris", "hotels", "a", "2024", "b"]),
                              min_size=1, max_size=3, unique=True))
    # written by hand in the drawn order: a set's repr() order changes with hash seeds
    items = [f"{k!r}: " + ("{" + ", ".join(map(repr, words)) + "}" if k == name else repr(v))
             for k, v in obj.items()]
    return Writing(base, text[:start] + "{" + ", ".join(items) + "}" + text[end:],
                   Expectation(frozenset({"malformed-arg", "unparseable"}),
                               allow_intended=False,
                               note="a set of words is no text: the argument is malformed"))
