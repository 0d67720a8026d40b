"""Formats: dialects of the text protocol as data, and the protocol families as objects.

* :mod:`.spec` -- :class:`Format` and :class:`Labels` (pydantic: TOML input is untrusted);
* :mod:`.family` -- :class:`Family`, the base of the protocol families, and the
  :data:`FAMILIES` registry; one module per family: :mod:`.bracket`, :mod:`.paper`,
  :mod:`.action_input`, :mod:`.json_args`;
* :mod:`.builtin` -- the four built-in formats, :func:`get_format`, :func:`load_format`.

``fmt.family`` is the family object of a format (``fmt.family.name`` its name); code that
writes, reads or abuses an action asks it instead of switching on a name.
"""

from __future__ import annotations

from .builtin import BUILTIN_FORMATS, get_format, load_format
from .family import (
    FAMILIES,
    Family,
    Representability,
    encode_text,
    family_for,
    label_pattern,
    register_family,
)
from .spec import Format, Labels

__all__ = [
    "BUILTIN_FORMATS",
    "FAMILIES",
    "Family",
    "Format",
    "Labels",
    "Representability",
    "encode_text",
    "family_for",
    "get_format",
    "label_pattern",
    "load_format",
    "register_family",
]
