"""The pytest plugin (entry point ``pytest11``): reactfuzz options and the seed header.

Options, all in one group with one prefix: ``--reactfuzz-seed``,
``--reactfuzz-max-examples`` and ``--reactfuzz-corpus``. The seed in use is printed in the
session header so that any failure can be rerun exactly.
"""

from __future__ import annotations

from typing import Any

from . import testing

__all__ = ["pytest_addoption", "pytest_configure", "pytest_report_header"]


def pytest_addoption(parser: Any) -> None:
    """Add the reactfuzz option group."""
    group = parser.getgroup("reactfuzz", "property tests of agent parsers")
    group.addoption("--reactfuzz-seed", type=int, default=None,
                    help="seed for reactfuzz suites (default: $REACTFUZZ_SEED or 0)")
    group.addoption("--reactfuzz-max-examples", type=int, default=None,
                    help="examples per abuse operator in reactfuzz suites")
    group.addoption("--reactfuzz-corpus", default=None,
                    help="corpus directory replayed first and written to by reactfuzz suites")


def pytest_configure(config: Any) -> None:
    """Pass the options to :mod:`reactfuzz.testing`."""
    testing.session_options.update(
        seed=config.getoption("reactfuzz_seed"),
        max_examples=config.getoption("reactfuzz_max_examples"),
        corpus=config.getoption("reactfuzz_corpus"),
    )


def pytest_report_header(config: Any) -> str:
    """Show the seed so a failing run can be replayed."""
    return f"reactfuzz: seed {testing._seed()} (rerun with --reactfuzz-seed {testing._seed()})"
