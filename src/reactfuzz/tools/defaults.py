"""The default registry: billing, weather, email, clock and file tools.

These typed functions are the tools the built-in scenarios, the study and the docs use.
Their bodies never run (a fake tool is answered by the registry); their annotations are the
schema, including the confined ``read_file`` path.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from functools import cache
from typing import Annotated, Literal

from pydantic import Field

from .build import tool_from_function
from .paths import ConfinedPath
from .registry import ToolRegistry
from .tool import ObservationFn, Tool

__all__ = ["AGENT_FILES_ROOT", "DEFAULT_TOOL_FUNCTIONS", "default_registry"]

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
