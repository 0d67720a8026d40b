"""JSON tool files: provider tool definitions in the OpenAI and Anthropic shapes.

Agents already send their tools to providers as JSON Schema; :func:`load_tools_json`
reads those files back into a registry. Only a documented subset of JSON Schema is
accepted, and anything outside it is an :class:`~reactfuzz.errors.InputFileError` naming
the file, the tool and the JSON path, never a guess.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from ..errors import InputFileError
from ..limits import load_json_text, read_user_file
from ..model import DuplicateKeyError, no_duplicate_keys
from .build import _build_model, _camel_case, _supported
from .registry import ToolRegistry
from .tool import _NAME_RE, ObservationFn, Tool

__all__ = ["load_tools_json"]

MAX_TOOLS_BYTES = 16 * 1024 * 1024
"""The largest tools file read (16 MiB: thousands of tools)."""

_SUPPORTED_JSON = (
    "supported: an object schema whose properties have type string (with format date, "
    "pattern, minLength, maxLength), integer or number (with minimum, maximum, "
    "exclusiveMinimum, exclusiveMaximum), boolean or array of strings (with minItems, "
    "maxItems), or an enum, with default, and null allowed through a type list, "
    "anyOf [X, null] or nullable"
)


# --------------------------------------------------------------------------- JSON tool files


def load_tools_json(
    path: str | os.PathLike[str], *, observations: ObservationFn | None = None
) -> ToolRegistry:
    """Load a registry from a JSON file holding a list of provider tool definitions.

    Accepted shapes: ``{"name", "description", "parameters"}`` (OpenAI function style, also
    inside ``{"type": "function", "function": {...}}``) and ``{"name", "description",
    "input_schema"}`` (Anthropic style); a ``{"tools": [...]}`` object is accepted too.
    Raises :class:`~reactfuzz.errors.InputFileError` for unreadable or invalid JSON and for
    any schema feature outside the supported subset, naming the file, tool and JSON path.
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


_IDENT_RE = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")
_ANNOTATION_KEYS = frozenset({"title", "description", "examples", "$comment", "deprecated"})
_OBJECT_KEYS = _ANNOTATION_KEYS | {"type", "properties", "required", "additionalProperties",
                                   "$schema"}
_TYPE_KEYS: dict[str, frozenset[str]] = {
    "string": frozenset({"pattern", "minLength", "maxLength", "format"}),
    "integer": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}),
    "boolean": frozenset(),
    "array": frozenset({"items", "minItems", "maxItems"}),
}
_TYPE_KEYS_ALL: frozenset[str] = frozenset().union(*_TYPE_KEYS.values())
_PROPERTY_KEYS = _ANNOTATION_KEYS | {"type", "enum", "default", "anyOf", "nullable"}.union(
    *_TYPE_KEYS.values()
)
_CONSTRAINTS = {
    "pattern": "pattern",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_length",
    "maxItems": "max_length",
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
}
_BASE_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}
_NO_DEFAULT = object()


def _jp(where: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if _IDENT_RE.match(key) else f"{where}[{json.dumps(key)}]"


class _JsonToolReader:
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
        if isinstance(data, dict) and "tools" in data:
            data, where = data["tools"], "$.tools"
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
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise self.invalid(
                _jp(where, "name"),
                f"the name {name!r} is not valid (1 to 64 letters, digits, '_' or '-')",
            )
        self.tool = repr(name)
        description = entry.get("description", "")
        if not isinstance(description, str):
            raise self.invalid(_jp(where, "description"), "the description must be a string")
        keys = [k for k in ("parameters", "input_schema") if k in entry]
        if len(keys) == 2:
            raise self.invalid(where, "both 'parameters' and 'input_schema' are given")
        specs: list[tuple[str, Any, Any]] = []
        if keys:
            specs = self.read_object(_jp(where, keys[0]), entry[keys[0]])
        try:
            model = _build_model(_camel_case(name) + "Args", specs)
        except Exception as exc:  # pragma: no cover - each property was checked already
            raise self.invalid(where, f"pydantic refused the argument model: {exc}") from None
        return Tool(name, " ".join(description.split()), model)

    def read_object(self, where: str, schema: Any) -> list[tuple[str, Any, Any]]:
        if not isinstance(schema, dict):
            raise self.invalid(where, f"expected a JSON Schema object, found {_json_type(schema)}")
        for key in schema:
            if key not in _OBJECT_KEYS:
                raise self.unsupported(_jp(where, key), repr(key))
        if schema.get("type", "object") != "object":
            raise self.unsupported(_jp(where, "type"), f"parameters of type {schema['type']!r}")
        extra = schema.get("additionalProperties", False)
        if extra is not False:
            raise self.unsupported(
                _jp(where, "additionalProperties"), f"additionalProperties {json.dumps(extra)}"
            )
        props = schema.get("properties", {})
        if not isinstance(props, dict):
            raise self.invalid(_jp(where, "properties"), "'properties' must be an object")
        required = schema.get("required", [])
        if not isinstance(required, list):
            raise self.invalid(_jp(where, "required"), "'required' must be a list of names")
        for i, rname in enumerate(required):
            if not isinstance(rname, str) or rname not in props:
                raise self.invalid(
                    _jp(_jp(where, "required"), i), f"{rname!r} is not one of the properties"
                )
        specs: list[tuple[str, Any, Any]] = []
        for pname, prop in props.items():
            if not pname:
                raise self.invalid(_jp(where, "properties"), "a property name is empty")
            pwhere = _jp(_jp(where, "properties"), pname)
            annotation, default, description = self.read_property(pwhere, prop)
            if pname in required:
                default = ...
            elif default is _NO_DEFAULT:
                default = None  # optional and absent: the tool receives None
            specs.append((pname, annotation, Field(default, description=description)))
        return specs

    def read_property(self, where: str, schema: Any) -> tuple[Any, Any, str | None]:
        """Return (annotation, default or _NO_DEFAULT, description) of one property."""
        if not isinstance(schema, dict):
            raise self.invalid(where, f"expected a JSON Schema object, found {_json_type(schema)}")
        typ = schema.get("type")
        if typ == "object" or (isinstance(typ, list) and "object" in typ):
            raise self.unsupported(_jp(where, "type"), "a nested object")
        for key in schema:
            if key not in _PROPERTY_KEYS:
                raise self.unsupported(_jp(where, key), repr(key))
        description = schema.get("description")
        if description is not None and not isinstance(description, str):
            raise self.invalid(_jp(where, "description"), "the description must be a string")
        if "anyOf" in schema:
            others = [k for k in schema if k not in _ANNOTATION_KEYS | {"anyOf", "default"}]
            if others:
                raise self.unsupported(_jp(where, others[0]), f"{others[0]!r} next to anyOf")
            annotation = self.read_any_of(_jp(where, "anyOf"), schema["anyOf"])
        else:
            annotation = self.read_typed(where, schema)
        default: Any = _NO_DEFAULT
        if "default" in schema:
            try:
                default = TypeAdapter(annotation).validate_python(schema["default"])
            except Exception:
                raise self.invalid(
                    _jp(where, "default"),
                    f"the default {json.dumps(schema['default'])} does not match the property",
                ) from None
        return annotation, default, description

    def read_any_of(self, where: str, members: Any) -> Any:
        shape = "anyOf other than [X, {\"type\": \"null\"}]"
        if not isinstance(members, list) or len(members) != 2:
            raise self.unsupported(where, shape)
        nulls = [i for i, m in enumerate(members) if isinstance(m, dict) and m.get("type") == "null"
                 and set(m) <= _ANNOTATION_KEYS | {"type"}]
        if len(nulls) != 1:
            raise self.unsupported(where, shape)
        i = 1 - nulls[0]
        inner = members[i]
        if not isinstance(inner, dict):
            raise self.invalid(_jp(where, i), "expected a JSON Schema object")
        for key in inner:
            if key not in _PROPERTY_KEYS or key in {"anyOf", "default"}:
                raise self.unsupported(_jp(_jp(where, i), key), f"{key!r} inside anyOf")
        return self.read_typed(_jp(where, i), inner) | None

    def read_typed(self, where: str, schema: dict[str, Any]) -> Any:
        """The annotation of a schema without anyOf (type, enum, nullable, constraints)."""
        nullable = False
        nullable_flag = schema.get("nullable", False)
        if not isinstance(nullable_flag, bool):
            raise self.invalid(_jp(where, "nullable"), "'nullable' must be true or false")
        nullable = nullable_flag
        typ = schema.get("type")
        if isinstance(typ, list):
            rest = [t for t in typ if t != "null"]
            if len(rest) != 1 or len(typ) - len(rest) > 1:
                raise self.unsupported(_jp(where, "type"), f"the type list {json.dumps(typ)}")
            nullable = nullable or len(rest) < len(typ)
            typ = rest[0]
        if "enum" in schema:
            annotation, enum_null = self.read_enum(where, schema, typ)
            nullable = nullable or enum_null
        else:
            if typ is None:
                raise self.invalid(where, "a property needs a 'type' or an 'enum'")
            annotation = self.read_type(where, schema, typ)
        return annotation | None if nullable else annotation

    def read_enum(self, where: str, schema: dict[str, Any], typ: Any) -> tuple[Any, bool]:
        ewhere = _jp(where, "enum")
        values = schema["enum"]
        if not isinstance(values, list) or not values:
            raise self.invalid(ewhere, "'enum' must be a non-empty list")
        others = [k for k in schema if k not in _ANNOTATION_KEYS | {"enum", "type", "default",
                                                                     "nullable"}]
        if others:
            raise self.unsupported(_jp(where, others[0]), f"{others[0]!r} next to enum")
        kinds = {"string": (str,), "integer": (int,), "boolean": (bool,)}
        if typ is not None and typ not in kinds:
            raise self.unsupported(_jp(where, "type"), f"an enum of type {typ!r}")
        choices: list[Any] = []
        for i, value in enumerate(values):
            if value is None:
                continue
            ok = isinstance(value, (str, int))  # bool is an int; floats and objects are not
            if typ is not None:
                ok = ok and isinstance(value, kinds[typ]) and (
                    typ == "boolean" or not isinstance(value, bool)
                )
            if not ok:
                raise self.unsupported(_jp(ewhere, i), f"the enum value {json.dumps(value)}")
            choices.append(value)
        if not choices:
            raise self.invalid(ewhere, "'enum' needs a value other than null")
        return Literal[tuple(choices)], len(choices) < len(values)

    def read_type(self, where: str, schema: dict[str, Any], typ: Any) -> Any:
        twhere = _jp(where, "type")
        if typ == "object":
            raise self.unsupported(twhere, "a nested object")
        if not isinstance(typ, str) or typ not in _TYPE_KEYS:
            raise self.unsupported(twhere, f"the type {json.dumps(typ)}")
        allowed = _TYPE_KEYS[typ]
        for key in schema:
            if key in _TYPE_KEYS_ALL and key not in allowed:
                raise self.unsupported(_jp(where, key), f"{key!r} on a property of type {typ!r}")
        base: Any
        if typ == "array":
            if "items" not in schema:
                raise self.invalid(where, "an array needs 'items' (an array of strings)")
            item = self.read_typed(_jp(where, "items"), self.check_items(where, schema["items"]))
            if not _supported(list[item]):  # type: ignore[valid-type]
                raise self.unsupported(_jp(where, "items"), "array items other than strings")
            base = list[item]  # type: ignore[valid-type]
        elif typ == "string" and "format" in schema:
            fmt = schema["format"]
            if fmt != "date":
                raise self.unsupported(_jp(where, "format"), f"format {json.dumps(fmt)}")
            others = [k for k in ("pattern", "minLength", "maxLength") if k in schema]
            if others:
                raise self.unsupported(_jp(where, others[0]), f"{others[0]!r} on a date")
            base = _dt.date
        else:
            base = _BASE_TYPES[typ]
        constraints: dict[str, Any] = {}
        for key, arg in _CONSTRAINTS.items():
            if key not in schema or key not in allowed:
                continue
            value = schema[key]
            if key == "pattern":
                ok = isinstance(value, str)
            elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            else:
                ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
            if not ok:
                raise self.invalid(_jp(where, key), f"{key} {json.dumps(value)} is not valid")
            constraints[arg] = value
        annotation: Any = Annotated[base, Field(**constraints)] if constraints else base
        try:
            TypeAdapter(annotation)
        except Exception as exc:
            detail = " ".join(str(exc).split())
            raise self.invalid(where, f"pydantic cannot use this property ({detail})") from None
        return annotation

    def check_items(self, where: str, items: Any) -> dict[str, Any]:
        iwhere = _jp(where, "items")
        if not isinstance(items, dict):
            raise self.unsupported(iwhere, f"items {json.dumps(items)}")
        for key in items:
            if key not in _PROPERTY_KEYS or key in {"default", "anyOf", "nullable", "enum"}:
                raise self.unsupported(_jp(iwhere, key), f"{key!r} in array items")
        typ = items.get("type")
        if typ != "string" or "format" in items:
            raise self.unsupported(iwhere, "array items other than strings")
        return items


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
