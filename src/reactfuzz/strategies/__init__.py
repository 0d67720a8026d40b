"""Hypothesis strategies: adversarial text, argument values, intents, abuses and scenarios.

Everything is derived from a :class:`~reactfuzz.formats.Format`'s data (labels,
delimiters, stop sequences, argument encoding) and its protocol family, and from a
:class:`~reactfuzz.tools.ToolRegistry`'s schemas, so a user's own TOML format and tools
get the whole operator catalogue with no code. Strategies are built from Hypothesis
primitives (``sampled_from``, ``lists``, ``one_of``) so a failure shrinks to the one
character that matters -- a lone ``,`` or ``\\u2028`` -- not to a random blob.

Public factories take keyword-only options; the abuse operators are registered by id in
:data:`ABUSES` (add one with :func:`register_abuse`, its fix with :class:`Advice`).

* :mod:`.text` -- the adversarial alphabet; :mod:`.values` -- argument values, calls, intents;
* :mod:`.catalogue` -- :class:`Abuse`, :data:`ABUSES`, :func:`register_abuse`;
* :mod:`.abuses` -- the operators, one module per abuse family;
* :mod:`.scenarios` -- scenarios and the generation-only runner; :mod:`.transcripts`.
"""

from __future__ import annotations

from ..registry import import_modules
from .abuses.fabricated import NO_STOP as NO_STOP
from .catalogue import ABUSES, Abuse, Advice, Sizes, Writing, abuse_ids, register_abuse
from .catalogue import ANY_REFUSAL as ANY_REFUSAL
from .scenarios import Scenario, for_each_example, scenarios
from .text import (
    LINE_BREAKS,
    adversarial_pieces,
    adversarial_text,
)
from .text import ODD_LINE_BREAKS as ODD_LINE_BREAKS
from .text import WORDS as WORDS
from .transcripts import transcripts
from .values import argument_values, intents, valid_calls

# an operator module added to abuses/ and not yet in its import list registers after them
import_modules(f"{__name__}.abuses")

__all__ = [
    "ABUSES",
    "LINE_BREAKS",
    "Abuse",
    "Advice",
    "Scenario",
    "Sizes",
    "Writing",
    "abuse_ids",
    "adversarial_pieces",
    "adversarial_text",
    "argument_values",
    "for_each_example",
    "intents",
    "register_abuse",
    "scenarios",
    "transcripts",
    "valid_calls",
]

