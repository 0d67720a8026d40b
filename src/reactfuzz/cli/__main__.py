"""``python -m reactfuzz.cli``: the same as the ``reactfuzz`` command."""

from . import entry

entry()
