"""Fuzz your own parser from your own pytest suite, in one line.

In a test module of your repository::

    from reactfuzz.testing import parser_suite

    TestMyAgentParser = parser_suite("myagent.parsing:parse", format="bracket",
                                     tools="myagent.tools:REGISTRY")

pytest then collects one test per check (``test_no_wrong_call``, ``test_no_crash``, ...).
The fuzz run happens once per suite (the first test runs it, the others read its result),
replays the corpus first when one is given, honours ``--reactfuzz-seed`` (the seed is
printed in pytest's header, so a failure reproduces) and ``--reactfuzz-max-examples``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from .engine.checks import CHECKS
from .engine.results import RunSummary

__all__ = ["DEFAULT_SEED", "parser_suite", "session_options"]

DEFAULT_SEED = 0
"""The seed when neither ``--reactfuzz-seed`` nor ``REACTFUZZ_SEED`` says otherwise."""

# set by the pytest plugin from the command line
session_options: dict[str, Any] = {}


def _seed() -> int:
    if session_options.get("seed") is not None:
        return int(session_options["seed"])
    env = os.environ.get("REACTFUZZ_SEED")
    return int(env) if env else DEFAULT_SEED


def _test_name(check_id: str) -> str:
    return "test_" + re.sub(r"\W", "_", check_id)


def parser_suite(
    target: str,
    *,
    format: str = "bracket",
    tools: str = "default",
    dispatcher: str = "auto",
    checks: list[str] | None = None,
    abuses: list[str] | None = None,
    max_examples: int = 25,
    corpus: str | None = None,
    time_limit: float = 1.0,
    strict_protocol: bool = False,
) -> type:
    """A test class with one test per check for ``target`` (see the module docstring)."""
    ids = list(checks) if checks is not None else list(CHECKS)
    cache: dict[str, RunSummary] = {}

    def summary() -> RunSummary:
        from .engine import FuzzConfig, run_fuzz

        if "run" not in cache:
            config = FuzzConfig(
                targets=[target], format=format, dispatcher=dispatcher, tools=tools,
                checks=ids, abuses=abuses, seed=_seed(),
                max_examples=int(session_options.get("max_examples") or max_examples),
                corpus=session_options.get("corpus") or corpus, time_limit=time_limit,
                strict_protocol=strict_protocol,
            )
            cache["run"] = run_fuzz(config)
        return cache["run"]

    def make(check_id: str) -> Callable[[Any], None]:
        def test(self: Any) -> None:
            import pytest

            from .report import visible

            run = summary()
            found = [f for f in run.findings if f.check == check_id]  # notes too, if strict
            if not found:
                return
            lines = [f"{len(found)} finding(s) of {check_id} against {target}"
                     f" (seed {run.seed}; rerun with --reactfuzz-seed {run.seed}):"]
            for f in found:
                lines.append(f"- [{f.severity}] {f.failure} via {f.abuse}: {f.explanation}")
                lines.append(f"    completion: {visible(f.completion, limit=200)}")
                lines.append(f"    expected: {f.expected}; observed: {f.observed}")
            pytest.fail("\n".join(lines), pytrace=False)

        test.__name__ = _test_name(check_id)
        test.__doc__ = CHECKS[check_id].description
        return test

    namespace: dict[str, Any] = {_test_name(c): make(c) for c in ids}
    namespace["__doc__"] = f"reactfuzz checks of {target} ({format})"
    safe = re.sub(r"\W", "_", target)
    return type(f"ReactfuzzSuite_{safe}", (), namespace)
