"""The tool registry: tools by name, typed validation and fake execution.

A :class:`ToolRegistry` validates keyword arguments into a :class:`~reactfuzz.model.Call`
(the typed dispatch design) and hands out plain Python functions with each tool's real
signature (the positional design, where Python's own argument binding decides what
happens). Every call is recorded and answered with a fake observation; nothing else ever
happens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from pydantic import BaseModel

from ..errors import UsageError
from ..model import Call
from .build import as_tool, tool_from_function, tool_from_model
from .execution import ToolResult, bind_like_python, default_observation
from .tool import ObservationFn, Tool

__all__ = ["ToolRegistry"]

_T = TypeVar("_T")


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
        from .json_files import JsonToolReader  # the reader builds on this module

        registry = cls(observations=observations)
        for tool in JsonToolReader(source).read(definitions):
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
        tool = as_tool(obj, name, description, observations)
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
            values = bind_like_python(tool.name, params, args, kwargs)
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
