"""Shared test settings: deterministic Hypothesis profiles, the test tiers, shared fixtures.

Tiers: a plain ``pytest`` runs the fast tier (``-m "not slow"`` in pyproject.toml);
``pytest -m slow`` runs the rest. CI runs both. A test is slow when it is marked with
``@pytest.mark.slow`` in its file or named in :data:`SLOW` below. Both tiers run on every
core (pytest-xdist, ``-n auto`` in pyproject.toml): no test may rely on another's state or
order; ``-n 0`` runs them in one process.
"""

from __future__ import annotations

import fnmatch
import importlib
import multiprocessing.heap  # see below (pytester restores sys.modules)
import multiprocessing.sharedctypes  # noqa: F401
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# pytester's in-process runs put ``sys.modules`` back as they found it: a multiprocessing
# module first imported inside one (a worker target's shared counters) would be imported
# again afterwards, and a spawned worker's counters, made from the first import's classes,
# no longer pickle ("not the same object as multiprocessing.heap.BufferWrapper"). Imported
# here, they are in every snapshot, whichever order the tests run in on a worker.
ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"

settings.register_profile(
    "ci", max_examples=200, derandomize=True, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


# The slow tier, for tests in files that keep no marks of their own: "file::test" patterns
# (fnmatch; the test's name without its parameters) and why each one is slow.
SLOW: dict[str, str] = {
    "test_scale.py::test_bench_quick_reports_every_target":
        "runs the quick benchmark over every built-in target (half a minute alone)",
    "test_cli_fuzz.py::test_fuzz_default_run_writes_every_report":
        "a fuzz run at the default size through the CLI, writing every report format",
    "test_strategies.py::test_operator_does_not_break_what_it_does_not_claim":
        "each case searches its whole example budget for a failure that must not exist",
    "test_engine.py::test_same_seed_same_findings":
        "repeats a whole fuzz run to compare it with itself (test_determinism.py keeps a"
        " smaller same-seed check in the fast tier)",
    "test_scale.py::test_explore_is_deterministic_by_seed":
        "repeats whole explorations to compare them with each other",
    "test_guided.py::test_the_default_run_ends_with_a_guided_phase_that_finds_more":
        "two whole runs against a user parser in its worker process",
    "test_guided.py::test_guided_mutations_never_fault_the_grammar_of_any_format*":
        "a guided exploration of the grammar in every built-in format",
    "test_scale.py::test_explore_keys_bugs_the_same_whatever_the_shrinking_budget":
        "two explorations, one shrinking every bug, then a replay",
    "test_scale.py::test_explore_reports_each_bug_once":
        "an exploration large enough to meet each classic bug many times, shrinking each",
    "test_scale.py::test_explore_finds_classic_failures_and_they_replay":
        "an exploration large enough to reach every classic failure, then its replay",
    "test_scale.py::test_workers_find_the_same_as_one_process":
        "a whole run twice, once with two worker processes",
    "test_engine.py::test_json_args_grammar_has_neither_findings_nor_protocol_notes":
        "a whole default-sized run whose search spends its full budget (nothing fails)",
    "test_engine.py::test_grammar_typed_has_no_design_findings":
        "a whole default-sized run whose search spends its full budget (nothing fails)",
    "test_engine.py::test_user_parser_in_a_temporary_directory_is_fuzzed_unchanged":
        "a whole run against a user parser in its worker process",
    "test_cli_fuzz.py::test_user_parser_module_function":
        "a whole CLI run against a user parser in its worker process",
    "test_cli_fuzz.py::test_tools_without_free_text_skip_operators_cleanly":
        "a whole CLI run with a tools file",
    "test_determinism.py::test_without_the_pin_the_imported_constants_leak_in":
        "generates until the imported constants leak in, unpinned (the same-seed check with"
        " the pin stays in the fast tier)",
    "test_fastpath.py::test_fast_path_agrees_with_lark_on_every_operator":
        "parses every operator's scenarios with both readers (the adversarial-text"
        " comparison stays in the fast tier)",
    "test_cli_fuzz.py::test_plugin_registers_a_custom_check":
        "a CLI fuzz run that imports a plugin in its child first",
    "test_cli_fuzz.py::test_workers_print_the_same_report":
        "a CLI run twice, once with two worker processes",
    "test_families_tag.py::test_template_format_fuzzes_end_to_end":
        "a whole fuzz run of a template format",
    "test_families_json.py::test_every_applicable_operator_runs_without_design_findings":
        "every operator's search against the grammar of each JSON format (nothing fails, so"
        " each spends its whole budget)",
    "test_fit.py::test_workers_with_a_user_target_find_the_same":
        "a user-target run twice, once with two worker processes",
    "test_families_tag.py::test_template_format_reads_back_what_it_writes":
        "reads back many renderings of a template format through Lark",
    "test_targets.py::test_the_spawn_start_method_works_too":
        "starts a fresh interpreter for the worker (the fork path stays in the fast tier)",
    "test_bench_sizes.py::test_a_quadratic_parser_fails_its_exponent_and_a_linear_one_passes":
        "times parsers on texts up to hundreds of kilobytes",
    "test_determinism.py::test_the_pin_is_undone_after_a_run":
        "a whole fuzz run (the fast tier keeps the same-seed check of this file)",
}


def _slow_key(item: pytest.Item) -> str:
    return f"{item.path.name}::{getattr(item, 'originalname', item.name)}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests listed in :data:`SLOW`."""
    for item in items:
        key = _slow_key(item)
        if any(fnmatch.fnmatchcase(key, pattern) for pattern in SLOW):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def python_run() -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run ``python ARGS...`` in a fresh interpreter (this venv's); returns the result.

    For what one process cannot show about itself: which modules an import loads, an
    installed copy, the command line as a user runs it.
    """

    def run(*args: str, stdin: str | None = None, env: dict[str, str] | None = None,
            cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, *args], input=stdin, capture_output=True,
                              text=True, env=env, cwd=cwd, timeout=timeout)

    return run


@pytest.fixture
def local_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Any]]:
    """Write a module into a temporary folder on ``sys.path`` and import it.

    ``local_module(name, source)`` returns the imported module; it is forgotten again
    (``sys.modules``, ``sys.path``) after the test.
    """
    names: list[str] = []
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(name: str, source: str) -> Any:
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
        importlib.invalidate_caches()
        names.append(name)
        return importlib.import_module(name)

    yield make
    for name in names:
        sys.modules.pop(name, None)
