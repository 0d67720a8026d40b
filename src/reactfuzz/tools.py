"""Tools and tool registries: what an agent can call, with a pydantic model of its arguments.

A :class:`Tool` is a name, a one-line description and a pydantic model whose field order is
the positional order of the arguments. Tools are built from a pydantic model
(:func:`tool_from_model`), from a plain typed Python function (:func:`tool_from_function`) or
from the JSON tool definitions agents already send to providers (:func:`load_tools_json`).

A :class:`ToolRegistry` holds tools by name, validates keyword arguments into a
:class:`~reactfuzz.model.Call` (the typed dispatch design) and hands out plain Python
functions with each tool's real signature (the positional dispatch design, where Python's
own argument binding decides what happens). Execution is always fake: a call is recorded and
answered with a deterministic observation string; nothing else happens, ever.

Decisions:

* Only a small, closed set of argument types is supported (see :data:`SUPPORTED_ANNOTATIONS`);
  anything else is refused when the tool is built, never guessed.
* Argument models always forbid undeclared fields (``extra="forbid"``).
* Path confinement (:class:`ConfinedPath`) is pure string logic on normalised paths; it never
  looks at the file system, so symlinks are out of its scope.
"""

from __future__ import annotations

import datetime as _dt
import enum
import inspect
import json
import keyword
import os
import re
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import (
    Annotated,
    Any,
    Literal,
    NamedTuple,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model
from pydantic.fields import FieldInfo
from pydantic_core import core_schema

from .errors import InputFileError, UsageError
from .model import Call, DuplicateKeyError, no_duplicate_keys

__all__ = [
    "SUPPORTED_ANNOTATIONS",
    "ConfinedPath",
    "ObservationFn",
    "Tool",
    "ToolParameter",
    "ToolRegistry",
    "ToolResult",
    "default_observation",
    "default_registry",
    "load_tools_json",
    "tool_from_function",
    "tool_from_model",
]

ObservationFn = Callable[[Call], str]
"""Turns a call into the observation text a fake tool returns."""

SUPPORTED_ANNOTATIONS = (
    "str, int, float, bool, datetime.date, Literal[...], Enum subclasses, list[str], "
    "X | None and Annotated[X, ...] of these"
)
"""The argument annotations a tool may use, as a phrase for error messages."""

_SUPPORTED_JSON = (
    "supported: an object schema whose properties have type string (with format date, "
    "pattern, minLength, maxLength), integer or number (with minimum, maximum, "
    "exclusiveMinimum, exclusiveMaximum), boolean or array of strings (with minItems, "
    "maxItems), or an enum, with default, and null allowed through a type list, "
    "anyOf [X, null] or nullable"
)

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
_T = TypeVar("_T")


# --------------------------------------------------------------------------- observations


def default_observation(call: Call) -> str:
    """The default fake observation: ``ok:`` and the call, e.g. ``ok: search(query='x')``."""
    return f"ok: {call}"


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One recorded fake execution: the call as the tool received it and what it returned.

    ``source`` is ``"execute"`` for :meth:`ToolRegistry.execute` and ``"python"`` for a
    function from :meth:`ToolRegistry.python_callable`; for the latter ``positional`` and
    ``keywords`` hold the values exactly as Python passed them. ``error`` is set (and
    ``observation`` is ``None``) when the observation function raised.
    """

    call: Call
    observation: str | None
    source: Literal["execute", "python"] = "execute"
    positional: tuple[Any, ...] = ()
    keywords: tuple[tuple[str, Any], ...] = ()
    error: str | None = None


# --------------------------------------------------------------------------- path confinement


@dataclass(frozen=True, slots=True)
class ConfinedPath:
    """A constraint for ``Annotated[str, ConfinedPath(root)]``: the path must stay inside ``root``.

    Relative paths are taken relative to ``root``; absolute paths must lie under it. The
    check joins and normalises with :func:`os.path.normpath` (pure string logic: the file
    system is never touched, so symlinks are not considered) and rejects empty paths and NUL
    bytes. The validated value is returned unchanged.
    """

    root: str

    def __post_init__(self) -> None:
        root = self.root
        if not isinstance(root, str) or "\x00" in root or not os.path.isabs(root):
            raise UsageError(f"ConfinedPath needs an absolute directory as root, not {root!r}")
        object.__setattr__(self, "root", os.path.normpath(root))

    def contains(self, path: str) -> bool:
        """Whether ``path`` stays inside the root (the same rule as validation)."""
        return self._reason(path) is None

    def check(self, path: str) -> str:
        """Return ``path`` unchanged if it stays inside the root, else raise ``ValueError``."""
        reason = self._reason(path)
        if reason is not None:
            raise ValueError(reason)
        return path

    def _reason(self, path: str) -> str | None:
        if not isinstance(path, str):
            return f"a path must be a string, not {type(path).__name__}"
        if "\x00" in path:
            return "a path must not contain a NUL byte"
        if not path:
            return "a path must not be empty"
        joined = os.path.normpath(os.path.join(self.root, path))
        root = self.root
        prefix = root if root.endswith(os.sep) else root + os.sep
        if joined != root and not joined.startswith(prefix):
            return f"path {path!r} resolves to {joined!r}, outside {root!r}"
        return None

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))


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
    """

    name: str
    description: str
    args_model: type[BaseModel]
    observations: ObservationFn | None = field(default=None, compare=False, repr=False)
    _params: tuple[ToolParameter, ...] = field(init=False, repr=False, compare=False)
    _fields: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
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
            ann = info.annotation
            if info.metadata:
                ann = Annotated[(ann, *info.metadata)]  # type: ignore[valid-type]
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
        values = tuple(getattr(instance, f) for f in self._fields)
        return Call(self.name, values, self.names)

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments, self-contained (no ``$ref``) and without titles."""
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


# --------------------------------------------------------------------------- building tools


def _first_paragraph(doc: str | None) -> str:
    if not doc:
        return ""
    text = inspect.cleandoc(doc).strip()
    return " ".join(text.split("\n\n", 1)[0].split())


def _snake_case(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return s.lower()


def _camel_case(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[_\-]+", name) if part)


def _type_name(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return "no annotation"
    if isinstance(annotation, type) and get_origin(annotation) is None:
        return annotation.__qualname__
    return repr(annotation).replace("typing.", "")


def _supported(annotation: Any) -> bool:
    """Whether an annotation is in the supported set (see SUPPORTED_ANNOTATIONS)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _supported(get_args(annotation)[0])
    if annotation in (str, int, float, bool) or annotation is _dt.date:
        return True
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return True
    if origin is Literal:
        values = get_args(annotation)
        return bool(values) and all(
            v is None or (isinstance(v, (str, int, bool)) and not isinstance(v, enum.Enum))
            for v in values
        )
    if origin is list:
        args = get_args(annotation)
        if len(args) != 1:
            return False
        item = args[0]
        while get_origin(item) is Annotated:
            item = get_args(item)[0]
        return item is str
    if origin is Union or origin is types.UnionType:
        args = get_args(annotation)
        rest = [a for a in args if a is not type(None)]
        return len(rest) == 1 and len(args) == 2 and _supported(rest[0])
    return False


def _sample(annotation: Any) -> Any:
    """A value of the (supported) annotation's base type, ignoring constraints."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _sample(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return _sample(next(a for a in get_args(annotation) if a is not type(None)))
    if origin is Literal:
        return get_args(annotation)[0]
    if origin is list:
        return [_sample(get_args(annotation)[0])]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return next(iter(annotation)).value
    samples = {str: "a", int: 1, float: 1.0, bool: True, _dt.date: _dt.date(2000, 1, 1)}
    return samples[annotation]


def _constraint_problem(annotation: Any) -> str | None:
    """Why pydantic cannot apply a constraint of ``annotation``, or ``None`` if it can.

    Pydantic accepts a misplaced constraint (``pattern`` on an ``int``) when the model is
    built and raises ``TypeError`` on every validation; a probe value finds it early.
    """
    try:
        TypeAdapter(annotation).validate_python(_sample(annotation))
    except TypeError as exc:
        return " ".join(str(exc).split())
    except Exception:  # a ValidationError: the probe value merely fails a constraint
        return None
    return None


def _safe_field_name(name: str) -> bool:
    return (
        name.isidentifier()
        and not keyword.iskeyword(name)
        and not name.startswith("_")
        and not name.startswith("model_")
        and not hasattr(BaseModel, name)
    )


def _build_model(model_name: str, specs: Sequence[tuple[str, Any, Any]]) -> type[BaseModel]:
    """Create an ``extra="forbid"`` model from (name, annotation, default-or-FieldInfo) triples.

    A name pydantic cannot use as an attribute (``_x``, ``json``, ``from``, ``a-b``) gets an
    internal field name and keeps the real name as its alias.
    """
    taken = {name for name, _, _ in specs if _safe_field_name(name)}
    fields: dict[str, Any] = {}
    for i, (name, annotation, default) in enumerate(specs):
        if name in taken:
            fields[name] = (annotation, default)
            continue
        internal = f"arg{i}"
        while internal in taken or internal in fields:
            internal += "_"
        fields[internal] = (Annotated[annotation, Field(alias=name)], default)
    return create_model(  # type: ignore[call-overload, no-any-return]
        model_name, __config__=ConfigDict(extra="forbid"), **fields
    )


def tool_from_function(
    fn: Callable[..., Any],
    name: str | None = None,
    description: str | None = None,
    *,
    observations: ObservationFn | None = None,
) -> Tool:
    """Build a tool from a typed Python function (its body is never called).

    Parameters become arguments in order; a parameter with a default is optional. The
    description defaults to the first paragraph of the docstring. Raises
    :class:`~reactfuzz.errors.UsageError` for a parameter without a supported annotation,
    for ``*args``/``**kwargs`` and for keyword-only parameters.
    """
    label = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    if name is None:
        name = getattr(fn, "__name__", None)
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise UsageError(f"cannot name a tool after {label!r}; pass name=")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"cannot read the signature of {label}: {exc}") from None
    try:
        hints = get_type_hints(fn, include_extras=True)
    except Exception as exc:  # NameError, TypeError, ...: unresolvable string annotations
        raise UsageError(f"cannot resolve the annotations of {label}(): {exc}") from None
    specs: list[tuple[str, Any, Any]] = []
    for p in sig.parameters.values():
        where = f"cannot build tool {name!r} from {label}(): parameter {p.name!r}"
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            raise UsageError(
                f"cannot build tool {name!r} from {label}(): '*{p.name}' is variadic; a tool "
                f"has a fixed list of parameters annotated with {SUPPORTED_ANNOTATIONS}"
            )
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            raise UsageError(
                f"cannot build tool {name!r} from {label}(): '**{p.name}' is variadic; a tool "
                f"has a fixed list of parameters annotated with {SUPPORTED_ANNOTATIONS}"
            )
        if p.kind is inspect.Parameter.KEYWORD_ONLY:
            raise UsageError(
                f"{where} is keyword-only; tool arguments are positional-or-keyword, in "
                "declared order"
            )
        annotation = hints.get(p.name, inspect.Parameter.empty)
        if not _supported(annotation):
            raise UsageError(
                f"{where} has {_type_name(annotation)}; supported annotations are "
                f"{SUPPORTED_ANNOTATIONS}"
            )
        problem = _constraint_problem(annotation)
        if problem:
            raise UsageError(f"{where} has a constraint pydantic cannot apply: {problem}")
        default = ... if p.default is inspect.Parameter.empty else p.default
        specs.append((p.name, annotation, default))
    try:
        model = _build_model(_camel_case(name) + "Args", specs)
    except UsageError:
        raise
    except Exception as exc:  # pydantic refuses a constraint (e.g. pattern on an int)
        detail = " ".join(str(exc).split())
        raise UsageError(f"cannot build tool {name!r} from {label}(): {detail}") from None
    if description is None:
        description = _first_paragraph(getattr(fn, "__doc__", None))
    return Tool(name, description, model, observations)


def tool_from_model(
    model: type[BaseModel],
    name: str | None = None,
    description: str | None = None,
    *,
    observations: ObservationFn | None = None,
) -> Tool:
    """Build a tool from a pydantic model of its arguments (field order = positional order).

    The name defaults to the snake_case class name and the description to the first
    paragraph of the class docstring. A model that does not forbid undeclared fields is
    wrapped in a subclass that does.
    """
    if not isinstance(model, type) or not issubclass(model, BaseModel):
        raise UsageError(f"tool_from_model needs a pydantic BaseModel subclass, not {model!r}")
    if name is None:
        name = _snake_case(model.__name__)
    for fname, info in model.model_fields.items():
        if not _supported(info.annotation):
            raise UsageError(
                f"cannot build tool {name!r} from model {model.__name__}: field {fname!r} has "
                f"{_type_name(info.annotation)}; supported annotations are {SUPPORTED_ANNOTATIONS}"
            )
        full = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
        problem = _constraint_problem(full)
        if problem:
            raise UsageError(
                f"cannot build tool {name!r} from model {model.__name__}: field {fname!r} has a "
                f"constraint pydantic cannot apply: {problem}"
            )
    if description is None:
        description = _first_paragraph(model.__dict__.get("__doc__"))
    if model.model_config.get("extra") != "forbid":
        model = type(
            model.__name__,
            (model,),
            {
                "model_config": ConfigDict(extra="forbid"),
                "__module__": model.__module__,
                "__doc__": model.__dict__.get("__doc__"),
            },
        )
    return Tool(name, description, model, observations)


def _as_tool(
    obj: Any,
    name: str | None = None,
    description: str | None = None,
    observations: ObservationFn | None = None,
) -> Tool:
    if isinstance(obj, Tool):
        changes: dict[str, Any] = {}
        if name is not None:
            changes["name"] = name
        if description is not None:
            changes["description"] = description
        if observations is not None:
            changes["observations"] = observations
        return replace(obj, **changes) if changes else obj
    if isinstance(obj, type) and issubclass(obj, BaseModel):
        return tool_from_model(obj, name, description, observations=observations)
    if callable(obj):
        return tool_from_function(obj, name, description, observations=observations)
    raise UsageError(
        f"cannot register {obj!r}: expected a Tool, a pydantic model class or a typed function"
    )


# --------------------------------------------------------------------------- registry


class ToolRegistry:
    """An ordered collection of tools by name, with validation and fake execution.

    Iterating yields the tools; ``name in registry`` tests names. ``execute`` and the
    functions from ``python_callable`` record every call in ``calls`` (and ``results``)
    and return an observation from the tool's, else the registry's, else the default
    :data:`ObservationFn`. Nothing else ever happens.
    """

    def __init__(
        self,
        tools: Iterable[Tool | Callable[..., Any] | type[BaseModel]] = (),
        *,
        observations: ObservationFn | None = None,
    ) -> None:
        self._tools: dict[str, Tool] = {}
        self.observations: ObservationFn | None = observations
        self.results: list[ToolResult] = []
        for obj in tools:
            self.register(obj)

    # -- construction

    @classmethod
    def from_functions(
        cls, *fns: Callable[..., Any], observations: ObservationFn | None = None
    ) -> ToolRegistry:
        """A registry of tools built from typed functions, in the order given."""
        return cls([tool_from_function(fn) for fn in fns], observations=observations)

    @classmethod
    def from_models(
        cls, *models: type[BaseModel], observations: ObservationFn | None = None
    ) -> ToolRegistry:
        """A registry of tools built from pydantic argument models, in the order given."""
        return cls([tool_from_model(m) for m in models], observations=observations)

    @classmethod
    def from_definitions(
        cls,
        definitions: Any,
        *,
        source: str = "<definitions>",
        observations: ObservationFn | None = None,
    ) -> ToolRegistry:
        """A registry from already-parsed JSON tool definitions (see :func:`load_tools_json`)."""
        registry = cls(observations=observations)
        for tool in _JsonToolReader(source).read(definitions):
            registry.register(tool)
        return registry

    def register(
        self,
        obj: Any = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        observations: ObservationFn | None = None,
    ) -> Any:
        """Add a Tool, pydantic model or typed function; returns it unchanged (a decorator).

        Usable as ``@registry.register`` and ``@registry.register(name=..., observations=...)``.
        Raises :class:`~reactfuzz.errors.UsageError` if the name is already registered.
        """
        if obj is None:
            def decorator(target: _T) -> _T:
                self.register(target, name=name, description=description,
                              observations=observations)
                return target

            return decorator
        tool = _as_tool(obj, name, description, observations)
        if tool.name in self._tools:
            raise UsageError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return obj

    # -- mapping

    def get(self, name: str) -> Tool | None:
        """The tool with this name, or ``None``."""
        return self._tools.get(name)

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __contains__(self, name: object) -> bool:
        if isinstance(name, Tool):
            return self._tools.get(name.name) == name
        return isinstance(name, str) and name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"ToolRegistry({list(self._tools)!r})"

    def names(self) -> tuple[str, ...]:
        """The tool names in registration order."""
        return tuple(self._tools)

    def _require(self, name: str) -> Tool:
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            raise UsageError(f"no tool named {name!r} in this registry (tools: {known})")
        return tool

    # -- typed dispatch

    def validate(self, name: str, kwargs: Mapping[str, Any]) -> Call:
        """Validate keyword arguments for a tool into a Call (declared order, defaults filled in).

        Raises :class:`pydantic.ValidationError` for bad arguments and
        :class:`~reactfuzz.errors.UsageError` for an unknown tool name.
        """
        return self._require(name).validate(kwargs)

    # -- fake execution

    @property
    def calls(self) -> list[Call]:
        """Every call executed so far, in order (a fresh list)."""
        return [r.call for r in self.results]

    def reset(self) -> None:
        """Forget the recorded calls."""
        self.results.clear()

    def execute(self, call: Call) -> str:
        """Record the call and return its observation; arguments are neither checked nor used."""
        return self._run(self._require(call.tool), call, ToolResult(call, None))

    def _run(self, tool: Tool, call: Call, record: ToolResult) -> str:
        fn = tool.observations or self.observations or default_observation
        try:
            observation = fn(call)
        except Exception as exc:
            self.results.append(replace(record, error=f"{type(exc).__name__}: {exc}"))
            raise
        if not isinstance(observation, str):
            raise UsageError(
                f"the observation function for tool {tool.name!r} returned "
                f"{type(observation).__name__}, not str"
            )
        self.results.append(replace(record, observation=observation))
        return observation

    def python_callable(self, name: str) -> Callable[..., str]:
        """A plain function with the tool's real signature that records what it receives.

        Arguments are bound the way Python binds them (same ``TypeError`` messages for
        missing, surplus, unknown or repeated arguments; defaults applied), never
        validated, and the recorded Call names every parameter in declared order.
        """
        tool = self._require(name)
        signature = tool.signature()
        params = tool.parameters
        registry = self

        def fake_tool(*args: Any, **kwargs: Any) -> str:
            values = _bind_like_python(tool.name, params, args, kwargs)
            call = Call(tool.name, tuple(values.values()), tuple(values))
            record = ToolResult(
                call, None, "python", tuple(args), tuple(kwargs.items())
            )
            return registry._run(tool, call, record)

        fake_tool.__name__ = tool.name
        fake_tool.__qualname__ = tool.name
        fake_tool.__doc__ = tool.description
        fake_tool.__signature__ = signature  # type: ignore[attr-defined]
        fake_tool.__annotations__ = {p.name: p.annotation for p in params} | {"return": str}
        return fake_tool


def _quoted(names: Sequence[str]) -> str:
    reprs = [repr(n) for n in names]
    if len(reprs) == 1:
        return reprs[0]
    if len(reprs) == 2:
        return f"{reprs[0]} and {reprs[1]}"
    return ", ".join(reprs[:-1]) + f", and {reprs[-1]}"


def _bind_like_python(
    qualname: str, params: Sequence[ToolParameter], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """Bind arguments as CPython binds them to ``def qualname(p1, p2=d, ...)``.

    The checks run in CPython's order with CPython's messages: unknown keyword, repeated
    argument, too many positional arguments, missing required arguments.
    """
    names = [p.name for p in params]
    values: dict[str, Any] = dict(zip(names, args, strict=False))
    known = set(names)
    for key, value in kwargs.items():
        if key not in known:
            raise TypeError(f"{qualname}() got an unexpected keyword argument '{key}'")
        if key in values:
            raise TypeError(f"{qualname}() got multiple values for argument '{key}'")
        values[key] = value
    if len(args) > len(names):
        n_defaults = sum(1 for p in params if not p.required)
        if n_defaults:
            sig, plural = f"from {len(names) - n_defaults} to {len(names)}", True
        else:
            sig, plural = str(len(names)), len(names) != 1
        raise TypeError(
            f"{qualname}() takes {sig} positional argument{'s' if plural else ''} but "
            f"{len(args)} {'was' if len(args) == 1 else 'were'} given"
        )
    missing = [p.name for p in params if p.required and p.name not in values]
    if missing:
        raise TypeError(
            f"{qualname}() missing {len(missing)} required positional "
            f"argument{'s' if len(missing) != 1 else ''}: {_quoted(missing)}"
        )
    return {p.name: values.get(p.name, p.default) for p in params}


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
    try:
        text = Path(file).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputFileError(f"cannot read tool file {file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{file}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text, object_pairs_hook=no_duplicate_keys)
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
        return Literal[tuple(choices)], len(choices) < len(values)  # type: ignore[valid-type]

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
        annotation = Annotated[base, Field(**constraints)] if constraints else base
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


# --------------------------------------------------------------------------- default registry

AGENT_FILES_ROOT = "/srv/agent-files"
"""The directory ``read_file`` of the default registry is confined to."""

_FAKE_ONLY = "reactfuzz tools are never run; use ToolRegistry.execute or python_callable"

CustomerId = Annotated[str, Field(pattern=r"^cus_[A-Za-z0-9]+$")]
ChargeId = Annotated[str, Field(pattern=r"^ch_[A-Za-z0-9]+$")]
EmailAddress = Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
AgentFilePath = Annotated[str, ConfinedPath(AGENT_FILES_ROOT)]


def search(query: str) -> str:
    """Search the help-center articles for a query."""
    raise NotImplementedError(_FAKE_ONLY)


def list_invoices(customer_id: CustomerId, since: _dt.date) -> str:
    """List a customer's invoices issued on or after a date (YYYY-MM-DD)."""
    raise NotImplementedError(_FAKE_ONLY)


def get_charge(charge_id: ChargeId) -> str:
    """Look up one charge by its id."""
    raise NotImplementedError(_FAKE_ONLY)


def refund(
    charge_id: ChargeId,
    amount: Annotated[float, Field(gt=0)],
    reason: Literal["duplicate", "fraudulent", "requested_by_customer"] = "requested_by_customer",
) -> str:
    """Refund an amount of a charge, giving a reason."""
    raise NotImplementedError(_FAKE_ONLY)


def get_weather(city: str, units: Literal["metric", "imperial"] = "metric") -> str:
    """Get the current weather for a city."""
    raise NotImplementedError(_FAKE_ONLY)


def send_email(to: EmailAddress, subject: str, body: str = "") -> str:
    """Send an email to one recipient."""
    raise NotImplementedError(_FAKE_ONLY)


def get_time() -> str:
    """Get the current date and time in UTC."""
    raise NotImplementedError(_FAKE_ONLY)


def read_file(path: AgentFilePath) -> str:
    """Read a text file under /srv/agent-files."""
    raise NotImplementedError(_FAKE_ONLY)


DEFAULT_TOOL_FUNCTIONS: tuple[Callable[..., str], ...] = (
    search,
    list_invoices,
    get_charge,
    refund,
    get_weather,
    send_email,
    get_time,
    read_file,
)
"""The typed functions behind :func:`default_registry`, in registration order."""


@cache
def _default_tools() -> tuple[Tool, ...]:
    return tuple(tool_from_function(fn) for fn in DEFAULT_TOOL_FUNCTIONS)


def default_registry(*, observations: ObservationFn | None = None) -> ToolRegistry:
    """A fresh registry of the built-in billing, weather, email, clock and file tools."""
    return ToolRegistry(_default_tools(), observations=observations)
