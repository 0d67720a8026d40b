"""The abuse operators, one module per abuse family.

Importing this package registers every built-in operator in
:data:`~reactfuzz.strategies.ABUSES`. The import order below is the registration order,
which fixes the order of reports and of the study: append, never reorder.
"""

from __future__ import annotations

# isort: off
from . import clean
from . import malformed
from . import missing
from . import extra
from . import injected
from . import label
from . import fabricated
from . import size
from . import quoting
from . import stop
from . import markup
from . import variant
from . import names
from . import json_args
from . import order
from . import content
from . import domain  # the content family's last operator: families stay together
from . import prose
from . import layout
# isort: on

__all__ = [
    "clean", "content", "domain", "extra", "fabricated", "injected", "json_args", "label", "layout",
    "malformed", "markup", "missing", "names", "order", "prose", "quoting", "size", "stop",
    "variant",
]
