"""Building tools: from a pydantic model of the arguments or from a typed function.

Only a small, closed set of argument types is supported (:data:`SUPPORTED_ANNOTATIONS`);
anything else is refused when the tool is built, never guessed, and argument models always
forbid undeclared fields. The JSON tool-file reader builds its models here too.
"""

from __future__ import annotations

import datetime as _dt
import enum
import inspect
import keyword
import re
import types
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from ..errors import UsageError
from .tool import NAME_RE, ObservationFn, Tool

__all__ = ["SUPPORTED_ANNOTATIONS", "tool_from_function", "tool_from_model"]

SUPPORTED_ANNOTATIONS = (
    "str, int, float, bool, datetime.date, Literal[...], Enum subclasses, list[str], "
    "X | None and Annotated[X, ...] of these"
)

"""The argument annotations a tool may use, as a phrase for error messages."""


# --------------------------------------------------------------------------- building tools


def _first_paragraph(doc: str | None) -> str:
    if not doc:
        return ""
    text = inspect.cleandoc(doc).strip()
    return " ".join(text.split("\n\n", 1)[0].split())


def _snake_case(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return s.lower()


def camel_case(name: str) -> str:
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


def build_model(
    model_name: str,
    specs: Sequence[tuple[str, Any, Any]],
    validators: dict[str, Any] | None = None,
) -> type[BaseModel]:
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
    return create_model(
        model_name, __config__=ConfigDict(extra="forbid"), __validators__=validators, **fields
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
        if not isinstance(name, str) or not NAME_RE.match(name):
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
        model = build_model(camel_case(name) + "Args", specs)
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
        parts = (info.annotation, *info.metadata)  # Annotated[base, *metadata] at run time
        full: Any = Annotated[parts] if info.metadata else info.annotation
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


def as_tool(
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
