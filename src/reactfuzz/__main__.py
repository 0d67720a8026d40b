"""``python -m reactfuzz``: the same as the ``reactfuzz`` command."""

from .cli import entry

entry()
