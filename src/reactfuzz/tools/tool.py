"""The tool model: a name, a description and a pydantic model of the arguments.

A :class:`Tool` is what the dispatcher, the oracle and the generators read: its
:class:`ToolParameter` list in positional order, its JSON Schema and its provider definition.
It lives apart from how tools are built and registered so that every other module of the
package depends on it, and it on nothing of theirs.
"""

from __future__ import annotations

import copy
import inspect
import keyword
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ..errors import UsageError
from ..model import Call

__all__ = ["ObservationFn", "Tool", "ToolParameter"]

ObservationFn = Callable[[Call], str]
"""Turns a call into the observation text a fake tool returns."""


NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


# --------------------------------------------------------------------------- tools


class ToolParameter(NamedTuple):
    """One argument of a tool: name, annotation, whether it is required, and its default.

    ``default`` is :data:`inspect.Parameter.empty` for a required parameter.
    """

    name: str
    annotation: Any
    required: bool
    default: Any


@dataclass(frozen=True)
class Tool:
    """A tool: a name, a description and a pydantic model of its arguments, in positional order.

    ``observations`` optionally replaces the registry's observation function for this tool.
    ``schema``, for a tool read from a JSON tool file, is its parameter schema as read
    (references inlined): what :meth:`json_schema` returns and the arguments are checked by.
    """

    name: str
    description: str
    args_model: type[BaseModel]
    observations: ObservationFn | None = field(default=None, compare=False, repr=False)
    schema: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    _params: tuple[ToolParameter, ...] = field(init=False, repr=False, compare=False)
    _fields: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not NAME_RE.match(self.name):
            raise UsageError(
                f"tool name {self.name!r} is not valid; a name is 1 to 64 letters, digits, "
                "'_' or '-', not starting with a digit or '-'"
            )
        if not isinstance(self.args_model, type) or not issubclass(self.args_model, BaseModel):
            raise UsageError(f"tool {self.name!r}: args_model must be a BaseModel subclass")
        if self.args_model.model_config.get("extra") != "forbid":
            raise UsageError(
                f"tool {self.name!r}: the argument model {self.args_model.__name__} must forbid "
                "undeclared fields (model_config extra='forbid'); tool_from_model does this for you"
            )
        params: list[ToolParameter] = []
        names: list[str] = []
        for fname, info in self.args_model.model_fields.items():
            pname = _external_name(self.name, fname, info)
            ann: Any = info.annotation
            if info.metadata:
                parts = (ann, *info.metadata)  # Annotated[ann, *metadata], built at run time
                ann = Annotated[parts]
            required = info.is_required()
            default = inspect.Parameter.empty if required else info.get_default(
                call_default_factory=True
            )
            params.append(ToolParameter(pname, ann, required, default))
            names.append(fname)
        object.__setattr__(self, "_params", tuple(params))
        object.__setattr__(self, "_fields", tuple(names))

    @property
    def parameters(self) -> tuple[ToolParameter, ...]:
        """The arguments in declared (positional) order."""
        return self._params

    @property
    def names(self) -> tuple[str, ...]:
        """The argument names in declared order."""
        return tuple(p.name for p in self._params)

    @property
    def required_names(self) -> tuple[str, ...]:
        """The names of the required arguments, in declared order."""
        return tuple(p.name for p in self._params if p.required)

    def validate(self, kwargs: Mapping[str, Any]) -> Call:
        """Validate keyword arguments into a Call (declared order, defaults filled in).

        Raises :class:`pydantic.ValidationError` for missing, undeclared or malformed arguments.
        """
        instance = self.args_model.model_validate(dict(kwargs))
        if self.schema is None:  # a model or a function: its own defaults are the values
            values = tuple(getattr(instance, f) for f in self._fields)
            return Call(self.name, values, self.names)
        # a JSON tool: an optional argument the model left out, with no declared default,
        # stays out (no None the real function never asked for: fn(**call.kwargs()) works)
        declared = self.schema.get("properties", {})
        kept = [(f, p) for f, p in zip(self._fields, self.names)
                if f in instance.model_fields_set or "default" in declared.get(p, {})]
        return Call(self.name, tuple(getattr(instance, f) for f, _ in kept),
                    tuple(p for _, p in kept))

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments, self-contained (no ``$ref``) and without titles."""
        if self.schema is not None:
            return copy.deepcopy(dict(self.schema))
        schema = self.args_model.model_json_schema(by_alias=True)
        defs = schema.pop("$defs", {})
        return _clean_schema(schema, defs)

    def definition(self, style: Literal["openai", "anthropic"] = "openai") -> dict[str, Any]:
        """The tool as a provider tool definition (what :func:`load_tools_json` reads back)."""
        key = "parameters" if style == "openai" else "input_schema"
        return {"name": self.name, "description": self.description, key: self.json_schema()}

    def signature(self) -> inspect.Signature:
        """The Python signature of a function implementing this tool (positional-or-keyword)."""
        problem = self._python_problem()
        if problem:
            raise UsageError(f"tool {self.name!r} cannot be a Python function: {problem}")
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        return inspect.Signature(
            [inspect.Parameter(p.name, kind, default=p.default, annotation=p.annotation)
             for p in self._params],
            return_annotation=str,
        )

    def _python_problem(self) -> str | None:
        seen_optional: str | None = None
        for p in self._params:
            if not p.name.isidentifier() or keyword.iskeyword(p.name):
                return f"parameter {p.name!r} is not a Python identifier"
            if p.required and seen_optional is not None:
                return f"required parameter {p.name!r} follows optional parameter {seen_optional!r}"
            if not p.required and seen_optional is None:
                seen_optional = p.name
        return None


def _external_name(tool: str, fname: str, info: FieldInfo) -> str:
    alias = info.validation_alias
    if alias is None:
        return info.alias or fname
    if isinstance(alias, str):
        return alias
    raise UsageError(
        f"tool {tool!r}: field {fname!r} uses {type(alias).__name__}; only a plain string alias "
        "is supported"
    )


def _clean_schema(node: Any, defs: Mapping[str, Any]) -> Any:
    if isinstance(node, list):
        return [_clean_schema(x, defs) for x in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _clean_schema(merged, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _clean_schema(sub, defs) for name, sub in value.items()}
        else:
            out[key] = _clean_schema(value, defs)
    return out
