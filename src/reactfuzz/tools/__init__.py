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

The package holds one module per idea, and this facade keeps every public import path:

* :mod:`.tool` -- :class:`Tool` and :class:`ToolParameter`, the model everything reads;
* :mod:`.build` -- building tools from pydantic models and typed functions;
* :mod:`.registry` -- :class:`ToolRegistry`, validation and fake execution;
* :mod:`.execution` -- fake observations, :class:`ToolResult`, binding like CPython;
* :mod:`.json_files` -- JSON tool files in the OpenAI and Anthropic shapes;
* :mod:`.paths` -- :class:`ConfinedPath`, the path-confinement constraint;
* :mod:`.defaults` -- the default billing, weather, email, clock and file tools.

Decisions:

* Only a small, closed set of argument types is supported (see :data:`SUPPORTED_ANNOTATIONS`);
  anything else is refused when the tool is built, never guessed.
* Argument models always forbid undeclared fields (``extra="forbid"``).
* Path confinement (:class:`ConfinedPath`) is pure string logic on normalised paths; it never
  looks at the file system, so symlinks are out of its scope.
"""

from __future__ import annotations

from .build import SUPPORTED_ANNOTATIONS, tool_from_function, tool_from_model

# The default registry, and the default tools with their argument types: public names
# outside __all__ that tests and users' tool modules import from here.
from .defaults import (  # noqa: F401
    AGENT_FILES_ROOT,
    DEFAULT_TOOL_FUNCTIONS,
    AgentFilePath,
    ChargeId,
    CustomerId,
    EmailAddress,
    default_registry,
    get_charge,
    get_time,
    get_weather,
    list_invoices,
    read_file,
    refund,
    search,
    send_email,
)
from .execution import ToolResult, default_observation
from .json_files import load_tools_json
from .paths import ConfinedPath
from .registry import ToolRegistry
from .tool import ObservationFn, Tool, ToolParameter

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
