"""The pytest plugin (entry point ``pytest11``): reactfuzz options and the seed header.

Options, all in one group with one prefix: ``--reactfuzz-seed``,
``--reactfuzz-max-examples`` and ``--reactfuzz-corpus``. The seed in use is printed in the
session header so that any failure can be rerun exactly.

pytest loads this module in every session of every project where reactfuzz is installed,
so it imports nothing of reactfuzz's own: the seed for the header is resolved here, and
the options reach :mod:`reactfuzz.testing` only in a session that has imported it (a
suite built with ``parser_suite``), before its tests run.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["pytest_addoption", "pytest_collection_finish", "pytest_configure",
           "pytest_report_header"]

_DEFAULT_SEED = 0  # reactfuzz.testing.DEFAULT_SEED, kept equal by tests/test_pytest_plugin.py


_MAX_SEED = 2**64 - 1


def _whole(text: str, low: int, high: int, what: str) -> int:
    """``text`` as a whole number in ``[low, high]``; a ``ValueError`` in one line if not."""
    try:
        value = int(text.strip(), 10)
    except ValueError:
        raise ValueError(f"{what} must be a whole number, not {text!r}") from None
    if not low <= value <= high:
        raise ValueError(f"{what} must be from {low} to {high}, not {value}")
    return value


def _seed_option(text: str) -> int:
    import argparse

    try:
        return _whole(text, -(2**63), _MAX_SEED, "the seed")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _examples_option(text: str) -> int:
    import argparse

    try:
        return _whole(text, 1, 10**9, "the number of examples")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def pytest_addoption(parser: Any) -> None:
    """Add the reactfuzz option group."""
    group = parser.getgroup("reactfuzz", "property tests of agent parsers")
    group.addoption("--reactfuzz-seed", type=_seed_option, default=None,
                    help="seed for reactfuzz suites (default: $REACTFUZZ_SEED or 0)")
    group.addoption("--reactfuzz-max-examples", type=_examples_option, default=None,
                    help="examples per abuse operator in reactfuzz suites")
    group.addoption("--reactfuzz-corpus", default=None,
                    help="corpus directory replayed first and written to by reactfuzz suites")


def _options(config: Any) -> dict[str, Any]:
    return {
        "seed": config.getoption("reactfuzz_seed"),
        "max_examples": config.getoption("reactfuzz_max_examples"),
        "corpus": config.getoption("reactfuzz_corpus"),
    }


def _seed(config: Any) -> int:
    """The seed of this session: ``--reactfuzz-seed``, else ``$REACTFUZZ_SEED``, else 0."""
    given = config.getoption("reactfuzz_seed")
    if given is not None:
        return int(given)
    env = os.environ.get("REACTFUZZ_SEED")
    return _whole(env, -(2**63), _MAX_SEED, "REACTFUZZ_SEED") if env else _DEFAULT_SEED


def _check(config: Any) -> None:
    """Refuse a bad ``$REACTFUZZ_SEED`` or ``--reactfuzz-corpus`` before any test runs."""
    import pytest

    try:
        _seed(config)
    except ValueError as e:
        raise pytest.UsageError(f"reactfuzz: {e}") from None
    corpus = config.getoption("reactfuzz_corpus")
    if corpus and os.path.lexists(corpus) and not os.path.isdir(corpus):
        raise pytest.UsageError(f"reactfuzz: --reactfuzz-corpus {corpus}: not a directory")


def _hand_over(config: Any) -> None:
    # only a session whose tests imported reactfuzz.testing needs the options
    testing = sys.modules.get("reactfuzz.testing")
    if testing is not None:
        testing.session_options.update(_options(config))


def pytest_configure(config: Any) -> None:
    """Check the options, then give them to :mod:`reactfuzz.testing` if it is imported."""
    _check(config)
    _hand_over(config)


def pytest_collection_finish(session: Any) -> None:
    """Give the options to :mod:`reactfuzz.testing` if a collected module imported it."""
    _hand_over(session.config)


def pytest_report_header(config: Any) -> str:
    """Show the seed so a failing run can be replayed."""
    s = _seed(config)
    return f"reactfuzz: seed {s} (rerun with --reactfuzz-seed {s})"
