"""JSON tool files: provider tool definitions in the OpenAI, Anthropic and MCP shapes.

Agents already send their tools to providers as JSON Schema; :func:`load_tools_json`
reads those files back into a registry. The schema is checked against its draft's
metaschema and arguments are validated by ``jsonschema``; references (``$ref``) are read
only inside the file and inlined, never fetched. What the argument generator cannot draw
(recursive references, keywords only Draft 2019-09/2020-12 know) is an
:class:`~reactfuzz.errors.InputFileError` naming the file, the tool and the JSON path.
Reading a file never imports or runs anything it names.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from collections.abc import Iterator
from typing import Any, Literal

import jsonschema
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for
from pydantic import BaseModel, Field, TypeAdapter, model_validator
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable

from ..errors import InputFileError
from ..limits import load_json_text, read_user_file
from ..model import DuplicateKeyError, no_duplicate_keys
from .build import build_model, camel_case
from .registry import ToolRegistry
from .tool import NAME_RE, ObservationFn, Tool

__all__ = ["load_tools_json"]

MAX_TOOLS_BYTES = 16 * 1024 * 1024
"""The largest tools file read (16 MiB: thousands of tools)."""

_SUPPORTED_JSON = (
    "supported: JSON Schema Draft 4 to 2020-12 (2020-12 when no $schema is given) with an "
    "object of named properties at the top, $ref only inside the file and not recursive, "
    "and none of prefixItems, unevaluatedItems, unevaluatedProperties, dependentRequired, "
    "dependentSchemas, minContains, maxContains, $dynamicRef, $recursiveRef"
)
_LATE_KEYWORDS = frozenset({
    "prefixItems", "unevaluatedItems", "unevaluatedProperties", "dependentRequired",
    "dependentSchemas", "minContains", "maxContains", "$dynamicRef", "$dynamicAnchor",
    "$recursiveRef", "$recursiveAnchor",
})
"""Keywords the argument generator (Draft 4 to 7) cannot draw for: refused, never ignored."""

_IDENT_RE = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")
_ANNOTATION_KEYS = frozenset({"title", "description", "examples", "$comment", "deprecated"})
_TOP_KEYS = _ANNOTATION_KEYS | {"type", "properties", "required", "additionalProperties",
                                "$schema", "$id", "$defs", "definitions"}
_SCHEMA_KEYS = frozenset({"items", "additionalItems", "additionalProperties", "not", "if",
                          "then", "else", "contains", "propertyNames"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "items"})
_SCHEMA_MAPS = frozenset({"properties", "patternProperties"})
_PY_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}


def load_tools_json(
    path: str | os.PathLike[str], *, observations: ObservationFn | None = None
) -> ToolRegistry:
    """Load a registry from a JSON file of provider tool definitions.

    Accepted shapes: a list of ``{"name", "description", "parameters"}`` (OpenAI, also inside
    ``{"type": "function", "function": {...}}``), of ``{"name", "description",
    "input_schema"}`` (Anthropic) or of ``{"name", "description", "inputSchema"}`` (MCP); a
    ``{"tools": [...]}`` object (an MCP ``tools/list`` result), also inside a JSON-RPC
    response's ``result``. Raises :class:`~reactfuzz.errors.InputFileError` for unreadable or
    invalid JSON, an invalid schema and any unsupported feature, naming file, tool and path.
    """
    file = os.fspath(path)
    raw = read_user_file(file, "tool file", limit=MAX_TOOLS_BYTES)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{file}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = load_json_text(text, file, object_pairs_hook=no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise InputFileError(
            f"{file}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except DuplicateKeyError as exc:
        raise InputFileError(f"{file}: the key {exc.key!r} appears twice in an object") from None
    return ToolRegistry.from_definitions(data, source=file, observations=observations)


def _jp(where: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if _IDENT_RE.match(key) else f"{where}[{json.dumps(key)}]"


def _one_line(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class JsonToolReader:
    """Turns JSON tool definitions into tools, refusing whatever it does not support."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.tool = "?"

    def unsupported(self, where: str, what: str) -> InputFileError:
        return InputFileError(
            f"{self.source}: tool {self.tool} uses {what} at {where}, which reactfuzz does "
            f"not support ({_SUPPORTED_JSON})"
        )

    def invalid(self, where: str, what: str) -> InputFileError:
        return InputFileError(f"{self.source}: tool {self.tool}: {what} at {where}")

    def read(self, data: Any) -> list[Tool]:
        where = "$"
        if isinstance(data, dict) and "result" in data and "jsonrpc" in data:
            data, where = data["result"], "$.result"  # a JSON-RPC response to tools/list
        if isinstance(data, dict) and "tools" in data:
            data, where = data["tools"], _jp(where, "tools")
        if not isinstance(data, list):
            raise InputFileError(
                f"{self.source}: expected a JSON list of tool definitions at {where}, "
                f"found {_json_type(data)}"
            )
        if not data:
            raise InputFileError(
                f"{self.source}: no tool definitions at {where}: a fuzz run needs at least one"
            )
        tools: list[Tool] = []
        seen: set[str] = set()
        for i, entry in enumerate(data):
            tool = self.read_tool(_jp(where, i), i, entry)
            if tool.name in seen:
                raise InputFileError(
                    f"{self.source}: tool name {tool.name!r} is defined twice "
                    f"(second time at {_jp(where, i)})"
                )
            seen.add(tool.name)
            tools.append(tool)
        return tools

    def read_tool(self, where: str, index: int, entry: Any) -> Tool:
        self.tool = f"#{index}"
        if not isinstance(entry, dict):
            raise self.invalid(where, f"expected a tool definition, found {_json_type(entry)}")
        kind = entry.get("type", "function")
        if kind not in ("function", "custom"):
            raise self.unsupported(_jp(where, "type"), f"tool type {kind!r} (only functions)")
        if "function" in entry:
            where = _jp(where, "function")
            entry = entry["function"]
            if not isinstance(entry, dict):
                raise self.invalid(where, f"expected an object, found {_json_type(entry)}")
        name = entry.get("name")
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise self.invalid(
                _jp(where, "name"),
                f"the name {_one_line(repr(name), 80)} is not valid (1 to 64 letters,"
                " digits, '_' or '-')",
            )
        self.tool = repr(name)
        description = entry.get("description", "")
        if not isinstance(description, str):
            raise self.invalid(_jp(where, "description"), "the description must be a string")
        keys = [k for k in ("parameters", "input_schema", "inputSchema") if k in entry]
        if len(keys) > 1:
            raise self.invalid(where, f"both {keys[0]!r} and {keys[1]!r} are given")
        swhere = _jp(where, keys[0] if keys else "parameters")
        schema = self.read_schema(swhere, entry[keys[0]] if keys else {})
        specs = [self.read_property(_jp(_jp(swhere, "properties"), pname), pname, prop,
                                    pname in schema.get("required", ()))
                 for pname, prop in schema["properties"].items()]
        model = build_model(camel_case(name) + "Args", specs,
                             validators=_schema_validators(schema))
        return Tool(name, " ".join(description.split()), model, schema=schema)

    def read_schema(self, where: str, schema: Any) -> dict[str, Any]:
        """Check a tool's parameter schema and return it self-contained (references inlined)."""
        if not isinstance(schema, dict):
            raise self.invalid(where, f"expected a JSON Schema object, found {_json_type(schema)}")
        cls: Any = validator_for(schema, default=None)  # type: ignore[arg-type]
        if cls is None or cls.META_SCHEMA.get("$schema", "").find("draft-03") >= 0:
            if "$schema" in schema:
                raise self.unsupported(_jp(where, "$schema"),
                                       f"the dialect {json.dumps(schema['$schema'])}")
            cls = jsonschema.Draft202012Validator
        try:
            cls.check_schema(schema)
        except SchemaError as exc:
            at = where
            for key in exc.path:
                at = _jp(at, key)
            raise self.invalid(at, f"not a valid schema: {_one_line(exc.message)}") from None
        for key in schema:
            if key not in _TOP_KEYS:
                raise self.unsupported(_jp(where, key), f"{key!r} on the parameters object")
        if schema.get("type", "object") != "object":
            raise self.unsupported(_jp(where, "type"), f"parameters of type {schema['type']!r}")
        extra = schema.get("additionalProperties", False)
        if extra is not False:
            raise self.unsupported(
                _jp(where, "additionalProperties"), f"additionalProperties {json.dumps(extra)}"
            )
        props = schema.get("properties", {})
        for i, rname in enumerate(schema.get("required", [])):
            if rname not in props:
                raise self.invalid(
                    _jp(_jp(where, "required"), i), f"{rname!r} is not one of the properties"
                )
        for pname in props:
            if not pname:
                raise self.invalid(_jp(where, "properties"), "a property name is empty")
        resource = Resource.from_contents(schema, default_specification=_spec(cls))
        resolver = Registry().with_resource("urn:tool", resource).resolver("urn:tool")
        out = self.inline(where, schema, resolver, ())
        kept = {k: v for k, v in out.items() if k not in ("$defs", "definitions", "$id")}
        return {"type": "object", "properties": {}, **kept, "additionalProperties": False}

    def inline(self, where: str, node: Any, resolver: Any, refs: tuple[str, ...]) -> Any:
        """The schema ``node`` with every ``$ref`` replaced by its target (``nullable`` too)."""
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        if "$ref" in node:
            ref, rwhere = node["$ref"], _jp(where, "$ref")
            if not ref.startswith("#"):
                raise self.unsupported(rwhere, f"the $ref {json.dumps(ref)} to another document "
                                       "(nothing is fetched)")
            if ref in refs:
                raise self.unsupported(rwhere, f"the recursive $ref {json.dumps(ref)}")
            try:
                target = resolver.lookup(ref).contents
            except Unresolvable:
                raise self.invalid(rwhere, f"the $ref {json.dumps(ref)} points nowhere") from None
            out.update(self.inline(where, target, resolver, (*refs, ref)))
        for key, value in node.items():
            kwhere = _jp(where, key)
            if key in _LATE_KEYWORDS:
                raise self.unsupported(kwhere, repr(key))
            if key in ("$ref", "title"):  # titles: as in every tool's json_schema()
                continue
            if key in _SCHEMA_KEYS and isinstance(value, dict):
                value = self.inline(kwhere, value, resolver, refs)
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                value = [self.inline(_jp(kwhere, i), v, resolver, refs)
                         for i, v in enumerate(value)]
            elif key in _SCHEMA_MAPS:
                value = {k: self.inline(_jp(kwhere, k), v, resolver, refs)
                         for k, v in value.items()}
            out[key] = value
        if out.pop("nullable", False) is True:  # OpenAPI's flag: the JSON Schema way
            if isinstance(out.get("type"), str):
                out["type"] = [out["type"], "null"]
            if isinstance(out.get("enum"), list) and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        return out

    def check_drawable(self, where: str, prop: Any) -> None:
        """Refuse bounds no value meets and sizes that would make the run's work unbounded,
        naming the JSON path: before a run, not as a traceback in the middle of one."""
        for at, node in _nodes(where, prop):
            enum = node.get("enum")
            if isinstance(enum, list) and len(enum) > MAX_ENUM:
                raise self.invalid(_jp(at, "enum"), f"{len(enum)} values is more than"
                                   f" reactfuzz draws from (at most {MAX_ENUM})")
            for low, high in _BOUNDS:
                a, b = _number(node.get(low)), _number(node.get(high))
                if a is not None and b is not None and a > b:
                    raise self.invalid(_jp(at, low), f"{low} {a:g} is more than {high} {b:g}:"
                                       " no value meets both")
                if low != "minimum" and a is not None and a > MAX_DRAWN_SIZE:
                    raise self.invalid(_jp(at, low), f"{low} {a:g} is more than reactfuzz"
                                       f" draws (at most {MAX_DRAWN_SIZE})")

    def read_property(
        self, where: str, name: str, prop: Any, required: bool
    ) -> tuple[str, Any, Any]:
        """(name, annotation, FieldInfo) of one top-level property, its default checked."""
        from hypothesis_jsonschema import from_schema  # the generator decides satisfiability

        self.check_drawable(where, prop)
        try:
            strategy = from_schema(prop)
            strategy.validate()  # what Hypothesis would refuse when it first draws
            empty = strategy.is_empty
        except Exception as exc:  # InvalidArgument and the like: bounds it cannot draw
            raise self.invalid(where, "reactfuzz cannot draw a value for this property ("
                               f"{_one_line(str(exc), 120)})") from None
        if empty:
            raise self.invalid(where, "no value satisfies this property's schema")
        annotation = _annotation(prop)
        default: Any = ... if required else None
        if "default" in prop and not required:
            check = validator_for(prop, default=jsonschema.Draft202012Validator)
            problem = jsonschema.exceptions.best_match(
                check(prop, format_checker=check.FORMAT_CHECKER).iter_errors(prop["default"]))
            if problem is not None:
                raise self.invalid(
                    _jp(where, "default"),
                    f"the default {json.dumps(prop['default'])} does not match the property",
                )
            default = TypeAdapter(annotation).validate_python(prop["default"])
        description = prop.get("description") if isinstance(prop, dict) else None
        if not isinstance(description, str):
            description = None
        return name, annotation, Field(default, description=description)


MAX_ENUM = 1000
"""The most values an ``enum`` of a tool's schema may list: each is a value to draw and to
check, and a larger list is a file to fix, not a run to wait for."""

MAX_DRAWN_SIZE = 10_000
"""The largest ``minLength``/``minItems``/``minProperties`` a tool's schema may ask for."""

_BOUNDS = (("minLength", "maxLength"), ("minItems", "maxItems"),
           ("minProperties", "maxProperties"), ("minimum", "maximum"))


def _number(value: Any) -> float | None:
    """``value`` as a number when it is one (a JSON bool is not)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _nodes(where: str, node: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object inside ``node`` (itself first), with its JSON path."""
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            if key in ("enum", "const", "default", "examples"):
                continue
            yield from _nodes(_jp(where, key), value)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _nodes(_jp(where, i), value)


def _spec(cls: Any) -> Any:
    from referencing.jsonschema import specification_with

    return specification_with(cls.META_SCHEMA["$schema"])


def _annotation(prop: Any) -> Any:
    """The Python type of a property where one fits it exactly (``Any`` otherwise).

    Dates become :class:`datetime.date`, enums of strings and integers a ``Literal``; the
    schema itself, constraints and all, is checked by ``jsonschema`` on every validation.
    """
    if not isinstance(prop, dict) or prop.keys() & {"allOf", "oneOf", "not", "if", "const"}:
        return Any
    options = prop.get("anyOf")
    if options is not None:
        inner = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
        if len(inner) == 1 and len(options) == 2 and "type" not in prop and "enum" not in prop:
            one = _annotation(inner[0])
            return Any if one is Any else one | None
        return Any
    types = prop.get("type")
    nullable = isinstance(types, list) and "null" in types
    if isinstance(types, list):
        rest = [t for t in types if t != "null"]
        if len(rest) != 1:
            return Any
        types = rest[0]
    base: Any
    if "enum" in prop:
        values = [v for v in prop["enum"] if v is not None]
        if not values or not all(isinstance(v, (str, int)) for v in values):
            return Any
        base, nullable = Literal[tuple(values)], nullable or None in prop["enum"]
    elif types == "string" and prop.get("format") == "date":
        base = _dt.date
    elif isinstance(types, str) and types in _PY_TYPES:
        base = _PY_TYPES[types]
    else:
        return Any
    return base | None if nullable else base


def _schema_validators(schema: dict[str, Any]) -> dict[str, Any]:
    """A pydantic model validator checking the given arguments against the tool's schema."""
    cls: Any = validator_for(schema, default=jsonschema.Draft202012Validator)
    check = cls(schema, format_checker=cls.FORMAT_CHECKER)

    def json_schema_check(self: BaseModel) -> BaseModel:
        given = self.model_dump(mode="json", by_alias=True, include=self.model_fields_set)
        problem = jsonschema.exceptions.best_match(check.iter_errors(given))
        if problem is not None:
            at = "".join(f"[{k!r}]" if isinstance(k, str) else f"[{k}]" for k in problem.path)
            raise ValueError(f"{at or 'arguments'}: {_one_line(problem.message)}")
        return self

    return {"json_schema_check": model_validator(mode="after")(json_schema_check)}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"
