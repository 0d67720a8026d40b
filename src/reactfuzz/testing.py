"""Fuzz your own parser from your own pytest suite, in one line.

In a test module of your repository::

    from reactfuzz.testing import parser_suite

    TestMyAgentParser = parser_suite("myagent.parsing:parse", format="bracket",
                                     tools="myagent.tools:REGISTRY")

pytest then collects one test per check (``test_no_wrong_call``, ``test_no_crash``, ...).
``loop_suite("myagent:run", format="bracket")`` does the same for a whole agent loop
(``run(llm, tools, task) -> str``), one test per loop check (``test_loop_step_limit``, ...).
The fuzz run happens once per suite (the first test runs it, the others read its result),
replays the corpus first when one is given, honours ``--reactfuzz-seed`` (the seed is
printed in pytest's header, so a failure reproduces) and ``--reactfuzz-max-examples``.

Each failure shows, per finding, the command that replays it and a test function ready to
paste into the suite: it calls :func:`assert_fixed` on the finding (its corpus file when
one was written, else the finding itself inline), so the bug stays fixed once it is.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .engine.checks import CHECKS
from .engine.corpus import Finding
from .engine.results import RunSummary

__all__ = ["DEFAULT_SEED", "assert_fixed", "loop_suite", "parser_suite", "regression_test",
           "session_options"]

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

    def detail(run: RunSummary, f: Finding) -> list[str]:
        from .reporting import visible

        return [f"    completion: {visible(f.completion, limit=200)}",
                f"    expected: {f.expected}; observed: {f.observed}",
                f"    replay: {_replay_line(run, f)}",
                "    a test for your suite (passes once the parser is fixed):",
                *("        " + line if line else ""
                  for line in regression_test(f, _saved(run, f)).splitlines())]

    return _suite("ReactfuzzSuite", f"reactfuzz checks of {target} ({format})", target,
                  {c: CHECKS[c].description for c in ids}, summary, detail)


def _suite(prefix: str, doc: str, target: str, checks: dict[str, str],
           summary: Callable[[], RunSummary],
           detail: Callable[[RunSummary, Finding], list[str]]) -> type:
    """A test class with one test per check id of ``checks`` (id -> description): each
    fails listing its findings in ``summary()``'s run, ``detail`` lines under each."""

    def make(check_id: str) -> Callable[[Any], None]:
        def test(self: Any) -> None:
            import pytest

            run = summary()
            found = [f for f in run.findings if f.check == check_id]  # notes too, if strict
            if not found:
                return
            lines = [f"{len(found)} finding(s) of {check_id} against {target}"
                     f" (seed {run.seed}; rerun with --reactfuzz-seed {run.seed}):"]
            for f in found:
                lines.append(f"- [{f.severity}] {f.failure} via {f.abuse}: {f.explanation}")
                lines += detail(run, f)
            pytest.fail("\n".join(lines), pytrace=False)

        test.__name__ = _test_name(check_id)
        test.__doc__ = checks[check_id]
        return test

    namespace: dict[str, Any] = {_test_name(c): make(c) for c in checks}
    namespace["__doc__"] = doc
    safe = re.sub(r"\W", "_", target)
    return type(f"{prefix}_{safe}", (), namespace)


def _saved(run: RunSummary, finding: Finding) -> str | None:
    """The corpus file a run wrote the finding to, if it kept a corpus."""
    return f"{run.corpus_dir.rstrip('/')}/{finding.filename}" if run.corpus_dir else None


def _replay_line(run: RunSummary, finding: Finding) -> str:
    """The command that replays a finding (a corpus file), or reruns its search."""
    path = _saved(run, finding)
    if path is not None:
        return finding.replay_command(path)
    return (f"reactfuzz fuzz --target {finding.target} --format {finding.format}"
            f" --abuse {finding.abuse} --check {finding.check} --seed {run.seed}"
            " (pass --reactfuzz-corpus DIR to keep findings as files)")


def regression_test(finding: Finding, path: str | Path | None = None) -> str:
    """A pytest test function, as source text to paste into a suite, that fails while
    ``finding`` still reproduces against its target.

    With ``path`` (the finding's corpus file, committed beside the suite) the test replays
    that file; without, the finding is written inline as JSON, so the test needs nothing
    else. The text is plain Python: names, a docstring and string literals only.
    """
    name = re.sub(r"\W", "_", f"test_{finding.check}_{finding.abuse}_{finding.id[:8]}")
    what = re.sub(r"\s+", " ", f"{finding.failure} via {finding.abuse}").strip()
    source = repr(str(path)) if path is not None else \
        repr(json.dumps(finding.model_dump(mode="json"), ensure_ascii=True))
    extra = f", tools={finding.tools!r}" if finding.tools != "default" else ""
    return "\n".join([
        f"def {name}():",
        f"    {json.dumps('reactfuzz finding: ' + what)}",
        "    from reactfuzz.testing import assert_fixed",
        "",
        f"    assert_fixed({source}, target={finding.target!r}{extra})",
        "",
    ])


def assert_fixed(finding: str | Path | Finding, *, target: str | None = None,
                 tools: str | None = None, time_limit: float = 1.0) -> None:
    """Fail (``AssertionError``) while a finding still reproduces against ``target``.

    ``finding`` is a corpus file, a :class:`~reactfuzz.engine.corpus.Finding`, or one as JSON
    text (what :func:`regression_test` writes inline). ``target`` defaults to the finding's
    own, which must then be data (a built-in parser, ``regex:``, ``grammar:``): a target that
    is code is always named by the caller, never by the finding.
    """
    from .engine.corpus import load_finding, save_finding
    from .engine.replay import replay_corpus

    if isinstance(finding, str) and finding.lstrip().startswith("{"):
        finding = Finding.model_validate_json(finding)
    with tempfile.TemporaryDirectory(prefix="reactfuzz-") as tmp:
        path = save_finding(finding, tmp) if isinstance(finding, Finding) else Path(finding)
        # the dispatcher it was found with, whoever names the target
        how = load_finding(path).dispatcher
        replayed = replay_corpus([path], target=target, dispatcher=how, tools=tools,
                                 time_limit=time_limit)
        if replayed.skipped:
            raise AssertionError(f"{path}: its target is code: name it with target=...")
        for r in replayed.results:
            if r.reproduced:
                raise AssertionError(
                    f"still reproduces: {r.finding.failure} via {r.finding.abuse} against"
                    f" {target or r.finding.target}: {r.finding.explanation}"
                    f" (observed {r.observed}; expected {r.finding.expected})")


def loop_suite(
    target: str,
    *,
    format: str = "bracket",
    tools: str = "default",
    checks: list[str] | None = None,
    kinds: list[str] | None = None,
    max_examples: int = 10,
    corpus: str | None = None,
    max_calls: int = 30,
    time_limit: float = 10.0,
) -> type:
    """A test class with one test per loop check for the agent loop ``target``
    (``module:function``, ``run(llm, tools, task) -> str``): ``reactfuzz loop`` as tests."""
    from .agentloop import LOOP_CHECKS

    ids = list(checks) if checks is not None else list(LOOP_CHECKS)
    cache: dict[str, RunSummary] = {}

    def summary() -> RunSummary:
        from .agentloop import LoopConfig, run_loop

        if "run" not in cache:
            cache["run"] = run_loop(LoopConfig(
                target=target, format=format, tools=tools, seed=_seed(), checks=ids,
                kinds=kinds, max_examples=int(session_options.get("max_examples")
                                              or max_examples),
                corpus=session_options.get("corpus") or corpus, max_calls=max_calls,
                time_limit=time_limit))
        return cache["run"]

    def detail(run: RunSummary, f: Finding) -> list[str]:
        from .textsafe import visible

        return [f"    script: {visible(f.completion, limit=300)}",
                f"    observed: {f.observed}", f"    fix: {f.fix}"]

    return _suite("ReactfuzzLoopSuite", f"reactfuzz loop checks of {target} ({format})",
                  target, {c: LOOP_CHECKS[c].description for c in ids}, summary, detail)
