"""``python -m reactfuzz``: the same as the ``reactfuzz`` command.

The CLI is imported inside :func:`run`, so a Ctrl-C that lands while it loads is one line
and exit 130, like one that lands later, never a traceback.
"""

from __future__ import annotations

import sys


def run() -> None:
    """The console-script entry point: import the CLI, then run it."""
    try:
        from .cli import entry
    except KeyboardInterrupt:
        print("reactfuzz: interrupted", file=sys.stderr)
        sys.exit(130)
    entry()


if __name__ == "__main__":
    run()
