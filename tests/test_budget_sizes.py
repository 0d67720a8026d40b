"""Sizes grow with the budget, and the time a parse may take grows with its input.

Ten times the default budget writes inputs ten times as long and allows ten times the
time on them: a linear parser keeps within it, a quadratic one (a hundred times slower)
does not, so a larger budget finds super-linear parsing the default cannot see.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from reactfuzz.engine import FuzzConfig, run_fuzz
from reactfuzz.engine.config import DEFAULT_MAX_EXAMPLES
from reactfuzz.formats import get_format
from reactfuzz.limits import time_allowed
from reactfuzz.oracle import STRICT
from reactfuzz.strategies import Sizes, scenarios
from reactfuzz.strategies.abuses.size import (
    MAX_RUN,
    MAX_SCALED_RUN,
    call_start,
    longest_run,
    run_length,
)
from reactfuzz.strategies.catalogue import Context
from reactfuzz.tools import default_registry


def test_the_longest_run_and_the_time_allowed_grow_together() -> None:
    assert longest_run(0.2) == longest_run(1.0) == MAX_RUN  # never shorter than the default
    assert longest_run(10.0) == 10 * MAX_RUN
    assert longest_run(10_000.0) == MAX_SCALED_RUN
    assert time_allowed(100, 1.0) == time_allowed(MAX_RUN, 1.0) == 1.0
    assert time_allowed(10 * MAX_RUN, 0.5) == pytest.approx(5.0)


def test_a_run_s_budget_sets_its_sizes() -> None:
    default = FuzzConfig(targets=["classic-bracket"])
    assert (default.max_examples, default.size_scale) == (DEFAULT_MAX_EXAMPLES, 1.0)
    tenfold = FuzzConfig(targets=["classic-bracket"], max_examples=10 * DEFAULT_MAX_EXAMPLES)
    assert tenfold.size_scale == 10.0


def _lengthy(completion: str) -> tuple[str, str]:
    """Hangs (0.3 s) on a short text; linear at 4 us a character on a long one."""
    time.sleep(0.3 if len(completion) < 100 else 4e-6 * len(completion))
    return ("final", "done")


@pytest.mark.parametrize("kind", [pytest.param("worker", marks=pytest.mark.slow),
                                  "in-process"])
def test_each_call_is_stopped_at_the_time_its_length_allows(tmp_path: Path, kind: str) -> None:
    # 0.1 s up to 16 kB, then in proportion: a short text that hangs is stopped at 0.1 s,
    # a 64 kB one that takes 0.26 s (linear) runs to its end, within its 0.4 s
    from reactfuzz.targets import load_target

    (tmp_path / "lengthy.py").write_text(
        "import time\n"
        "def parse(completion):\n"
        "    time.sleep(0.3 if len(completion) < 100 else 4e-6 * len(completion))\n"
        "    return ('final', 'done')\n")
    target = (load_target("lengthy:parse", "bracket", cwd=tmp_path, timeout=0.1)
              if kind == "worker" else load_target(_lengthy, "bracket", timeout=0.1))
    try:
        assert target.limit_for("x" * 100) == 0.1
        assert target.limit_for("x" * 4 * MAX_RUN) == pytest.approx(0.4)
        short = target.run("Answer: x")
        assert short.timed_out  # at its 0.1 s limit, not at the 0.4 s of a long text
        assert not target.run("Answer: " + "x" * (4 * MAX_RUN - 8)).timed_out
    finally:
        target.close()


@pytest.mark.parametrize("fmt, start", [
    ("bracket", "Action: search["),
    ("tool-call", '<tool_call> {"name": "search", "arguments": {'),
    ("function-tag", "<function=search>{"),
    ("action-input-json", "Action: search Action Input:"),
])
def test_a_call_start_is_how_the_format_opens_a_call_on_one_line(fmt: str, start: str) -> None:
    assert call_start(get_format(fmt), "search", ("query",)) == start
    assert call_start(get_format("json-bare"), "search", ("query",)) == ""  # no thought


def _longest(sizes: Sizes, abuse: str) -> int:
    longest = [0]

    # one draw in 2 x scale is long: enough draws to meet several, derandomized
    @settings(max_examples=int(20 * max(1.0, sizes.scale)), database=None, deadline=None,
              derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(sc=scenarios(default_registry(), "bracket", abuses=[abuse], sizes=sizes),
           _=st.just(None))
    def draw(sc: object, _: None) -> None:
        longest[0] = max(longest[0], len(sc.completion))  # type: ignore[attr-defined]

    draw()
    return longest[0]


@pytest.mark.slow  # draws 660 run lengths
def test_long_runs_are_as_many_at_any_budget_and_longer() -> None:
    # a slow linear parser pays ten times the default's time at ten times the budget
    def count_long(scale: float) -> int:
        runs: list[int] = []

        @settings(max_examples=int(60 * scale), database=None, deadline=None,
                  derandomize=True, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(data=st.data())
        def draw(data: st.DataObject) -> None:
            ctx = Context(data.draw, get_format("bracket"), default_registry(), STRICT,
                          Sizes(scale))
            runs.append(run_length(ctx))

        draw()
        return sum(r > 64 for r in runs)

    at_default, tenfold = count_long(1.0), count_long(10.0)
    assert 15 <= at_default <= 45 and 15 <= tenfold <= 45, (at_default, tenfold)


@pytest.mark.slow  # writes a few hundred inputs of up to 330 kB
def test_the_size_operators_write_what_sizes_allow() -> None:
    for abuse in ("size.long-argument", "size.repeated-call-start", "size.label-run-argument"):
        # a run of MAX_RUN repeats of one or two characters, and the call around it
        assert MAX_RUN <= _longest(Sizes(1.0), abuse) < 3 * MAX_RUN, abuse
        assert 10 * MAX_RUN <= _longest(Sizes(10.0), abuse) < 30 * MAX_RUN, abuse
        assert _longest(Sizes(10.0, long=False), abuse) < 1000, abuse  # after two slow parses


# a parser whose time grows with the square of its input: 0.02 s at 16 kB (a fifth of the
# limit: under it and under the share whose growth is measured), 2 s at ten times that
QUADRATIC = '''
import time
def parse(completion):
    time.sleep(0.02 * (len(completion) / 16384) ** 2)
    answer = completion.rfind("Answer:")
    if answer >= 0:
        return ("final", completion[answer + 7:].strip())
    raise ValueError("no answer")
'''


def _bounded_time_findings(source: str, module: str, fmt: str, tmp_path: Path,
                           scale: int) -> list[str]:
    """The bounded-time findings of ``size.repeated-call-start`` on a parser written from
    ``source`` as ``module`` (a name of its own: a module is imported once a process),
    at ``scale`` times the default budget."""
    (tmp_path / f"{module}.py").write_text(source)
    config = FuzzConfig(targets=[f"{module}:parse"], format=fmt, cwd=str(tmp_path),
                        checks=["bounded-time"], abuses=["size.repeated-call-start"],
                        seed=1, max_examples=scale * DEFAULT_MAX_EXAMPLES, time_limit=0.1,
                        format_fit=False, replay_corpus=False)
    return [json.dumps(f.model_dump(mode="json")) for f in run_fuzz(config).findings]


@pytest.mark.slow
def test_only_the_larger_budget_finds_a_quadratic_parse(tmp_path: Path) -> None:
    assert _bounded_time_findings(QUADRATIC, "quadratic", "bracket", tmp_path, 1) == []
    found = _bounded_time_findings(QUADRATIC, "quadratic", "bracket", tmp_path, 10)
    assert len(found) == 1 and "longer than" in found[0]


# a tag-format reader that is quadratic only in a message with no call closing (a lazy
# `<tool_call>(.*?)</tool_call>` tried from every opener): the repeats must reach the
# message itself, since a tag format writes no thought before an answer. 0.015 s at 16 kB
# (more room under the share whose growth is measured than QUADRATIC's), 1.5 s at ten
# times that: past the larger budget's limit
QUADRATIC_UNCLOSED = '''
import json, time
def parse(completion):
    if "</tool_call>" in completion:
        body = completion.split("<tool_call>")[-1].split("</tool_call>")[0]
        call = json.loads(body)
        return ("action", (call["name"], call["arguments"]))
    time.sleep(0.015 * (len(completion) / 16384) ** 2)
    return ("final", completion)
'''


@pytest.mark.slow
def test_the_larger_budget_times_unclosed_call_starts_in_a_tag_format_s_message(
        tmp_path: Path) -> None:
    assert _bounded_time_findings(QUADRATIC_UNCLOSED, "unclosed", "tool-call", tmp_path,
                                  1) == []
    found = _bounded_time_findings(QUADRATIC_UNCLOSED, "unclosed", "tool-call", tmp_path, 10)
    assert len(found) == 1 and "longer than" in found[0] and "</tool_call>" not in found[0]


@pytest.mark.slow  # draws arguments of 2 MiB
def test_a_parser_s_result_keeps_the_longest_argument_written_whole() -> None:
    # a result longer than MAX_VALUE_CHARS is cut, which reads as another value: every
    # argument reactfuzz writes must stay below it, at the largest budget too
    from reactfuzz.targets.sanitise import MAX_VALUE_CHARS, bounded_text

    top = Sizes(MAX_SCALED_RUN / MAX_RUN)
    longest = max(_longest(top, a) for a in ("size.long-argument", "size.long-thought"))
    assert 2 * MAX_SCALED_RUN <= longest < MAX_VALUE_CHARS
    text = "a " * MAX_SCALED_RUN
    assert bounded_text(text) == text
