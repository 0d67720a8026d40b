"""Errors reactfuzz raises at its *user* (bad grammar, format, option, corpus file).

Findings about the parser under test are never raised: they are data (an invalid
``Step``, and later a ``Finding``). Only mistakes in how reactfuzz was called or
configured are exceptions, and the CLI prints each as one line with exit code 2.

The tree::

    ReactfuzzError
     +-- FormatError (ValueError)      a format file or format spec is wrong
     +-- GrammarError (ValueError)     a Lark grammar does not load or compile
     +-- InputFileError (ValueError)   an input file (JSONL, completion) cannot be read
     +-- UsageError (ValueError)       an option or name is wrong (unknown parser, ...)
"""

from __future__ import annotations

__all__ = [
    "FormatError",
    "GrammarError",
    "InputFileError",
    "ReactfuzzError",
    "UsageError",
]


class ReactfuzzError(Exception):
    """Base of every error reactfuzz raises because of how it was called or configured."""


class FormatError(ReactfuzzError, ValueError):
    """A format (built-in name, TOML file or spec) is missing or invalid."""


class GrammarError(ReactfuzzError, ValueError):
    """A grammar file is missing, unreadable or does not compile."""


class InputFileError(ReactfuzzError, ValueError):
    """An input file the user named cannot be read or has the wrong shape."""


class UsageError(ReactfuzzError, ValueError):
    """An option, name or argument is not valid (unknown parser, bad field, ...)."""
