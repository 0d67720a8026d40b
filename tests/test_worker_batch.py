"""Batched user targets: ``run_many`` sends completions to the worker in one message and
gives exactly what ``run`` gives one by one, time limit, hangs and crashes included; the
exploration that parses in batches is the same run, seed for seed, as one that does not."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from reactfuzz.engine.explore import ExploreConfig, explore
from reactfuzz.targets import FunctionTarget, ParseResult, load_target

MISBEHAVING = '''\
import os, signal

def parse(text):
    if text == "hang":
        while True:
            pass
    if text == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if text == "raise":
        raise KeyError("no action")
    if text.startswith("Answer:"):
        return ("final", text[len("Answer:"):].strip())
    return ("action", ("search", text))
'''


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    (tmp_path / "misbehaving.py").write_text(MISBEHAVING)
    return tmp_path


def _same(r: ParseResult) -> ParseResult:
    """A result without its timing, which no two runs share."""
    return replace(r, elapsed=0.0)


def test_a_batch_gives_what_run_gives_one_by_one(agent_dir: Path) -> None:
    batch = ["Answer: 1", "raise", "find x", "hang", "Answer: 2", "segfault", "find y",
             "Answer: 3"]
    with load_target("misbehaving:parse", "bracket", cwd=agent_dir, timeout=0.2) as target:
        assert isinstance(target, FunctionTarget)
        batched = target.run_many(batch)
        restarts = target.restarts
        one_by_one = [target.run(c) for c in batch]
    assert [_same(r) for r in batched] == [_same(r) for r in one_by_one]
    hung, died = batched[3], batched[5]
    assert hung.timed_out and hung.elapsed >= 0.2
    assert died.error is not None and died.error.startswith("worker died: exit code -11")
    assert batched[1].error == "KeyError: 'no action'"
    assert batched[0].step is not None and batched[0].step.answer == "1"
    assert batched[7].step is not None and batched[7].step.answer == "3"  # after both
    assert restarts == 2  # one new worker after the hang, one after the crash
    # the hang cost its own time limit, not one per completion after it
    assert [r.timed_out for r in batched] == [c == "hang" for c in batch]


def test_a_batch_of_ordinary_completions_costs_no_restart(agent_dir: Path) -> None:
    batch = [f"find {i}" for i in range(200)] + ["Answer: done"]
    with load_target("misbehaving:parse", "bracket", cwd=agent_dir) as target:
        assert isinstance(target, FunctionTarget)
        results = target.run_many(batch)
        assert target.restarts == 0
        assert target.run_many([]) == []
    assert [r.step.action.raw for r in results[:-1]] == [  # type: ignore[union-attr]
        f"find {i}" for i in range(200)]
    assert results[-1].step is not None and results[-1].step.answer == "done"


def test_run_many_of_an_in_process_target_is_run_on_each() -> None:
    with load_target("classic-bracket", "bracket") as target:
        texts = ["Thought: a\nAction: search[x]", "Answer: 42", "nothing"]
        assert [_same(r) for r in target.run_many(texts)] == [
            _same(target.run(t)) for t in texts]


BROKEN = (  # a classic regex parser: an answer label anywhere wins, a crash on no action
    "import re\n"
    "def parse(text):\n"
    "    m = re.search(r'Answer:(.*)', text, re.S)\n"
    "    if m:\n"
    "        return ('final', m.group(1).strip())\n"
    "    m = re.search(r'Action: (\\w+)\\[(.*)\\]', text, re.S)\n"
    "    return ('action', (m.group(1), m.group(2)))\n"
)


def test_batched_exploration_is_the_serial_run(agent_dir: Path) -> None:
    """A broken user parser explored with batches finds exactly what one-at-a-time finds."""
    (agent_dir / "broken.py").write_text(BROKEN)
    cfg = ExploreConfig(target="broken:parse", scenarios=300, seed=3, pool_per_operator=2,
                        abuses=["injected.answer-label-in-thought", "malformed.empty"],
                        shrink_examples=10, cwd=str(agent_dir))
    serial = explore(replace(cfg, batch=1))
    batched = explore(cfg)
    assert serial.failing > 0 and serial.findings  # the parser is broken: something to find
    assert batched.failing == serial.failing
    assert [f.model_dump() for f in batched.findings] == [f.model_dump() for f in serial.findings]


def test_a_user_target_explores_over_two_workers_from_one_pool(agent_dir: Path) -> None:
    """Each exploring process starts the target's own worker (they were daemonic once, and
    could not), and both draw from the one pool built before they forked."""
    from reactfuzz.engine.explore import explore_parallel

    (agent_dir / "broken2.py").write_text(BROKEN)
    cfg = ExploreConfig(target="broken2:parse", scenarios=200, seed=3, pool_per_operator=2,
                        abuses=["injected.answer-label-in-thought", "malformed.empty"],
                        shrink_budget=0.0, cwd=str(agent_dir))
    results = explore_parallel(cfg, 2)
    assert [r.seed for r in results] == [3, 4]
    assert results[0].pool == results[1].pool > 0
    assert all(r.failing > 0 and r.findings for r in results)


def test_without_a_time_limit_a_crash_is_still_pinned_on_its_completion(
    agent_dir: Path,
) -> None:
    with load_target("misbehaving:parse", "bracket", cwd=agent_dir, timeout=None) as target:
        results = target.run_many(["find a", "find b", "segfault", "Answer: c"])
    assert [r.step.action.raw for r in results[:2]] == ["find a", "find b"]  # type: ignore[union-attr]
    assert results[2].error is not None and results[2].error.startswith("worker died")
    assert results[3].step is not None and results[3].step.answer == "c"


def test_edits_give_what_run_many_gives_on_their_texts(agent_dir: Path) -> None:
    """A worker builds an edit's text itself and answers a value it has read before with a
    repeat of it: the same results as ``run_many`` on the texts, hang and crash included,
    and a repeat still points at the right result after a fresh worker took over."""
    from reactfuzz.targets.base import apply_edit

    edits = [("find x", [(5, "1")]), ("find x", [(5, "1")]), ("Answer: 1", []), ("hang", []),
             ("find x", [(5, "1")]), ("raise", []), ("Answer: 1", []), ("segfault", []),
             ("find x", [(4, "!")]), ("Answer: 1", []), ("raise", [])]
    with load_target("misbehaving:parse", "bracket", cwd=agent_dir, timeout=0.2) as target:
        got = target.run_edits(edits)
        full = [target.repeated(g[0]) if isinstance(g, tuple) else g for g in got]
        expected = target.run_many([apply_edit(e) for e in edits])
        assert target.restarts >= 4  # two in each batch (more on a machine slower than 0.2s)
        # a raise repeats too: the same type, message and lines
        raised = target.run_edits([("raise", []), ("raise", [])])
    assert [_same(r) for r in full] == [_same(r) for r in expected]
    # which worker read what depends on when each sent its results; a value read twice in
    # a row by one worker is a repeat the second time
    assert isinstance(got[1], tuple) and not isinstance(got[0], tuple)
    assert all(g[1] >= 0 and (g[2] is None or g[2] >= 0) for g in got if isinstance(g, tuple))
    first, repeat = raised
    assert isinstance(repeat, tuple) and isinstance(first, ParseResult)
    assert first.error == "KeyError: 'no action'"
    assert _same(target.repeated(repeat[0])) == _same(first)


def test_a_quick_repeat_comes_back_as_its_bare_index(agent_dir: Path) -> None:
    """Given ``quick`` seconds, a repeat that took less is its index alone (a caller that
    only tells slow parses apart needs no timing); it names the result a timed repeat of
    the same edit names, and pieces, texts and raises are read as without it."""
    from reactfuzz.targets.base import apply_edit

    edits = [("Answer: 1", []), ("Answer: 1", [(9, " ")]), ("raise", []), ("raise", []),
             ("Answer: 1", []), ("find x", [(5, "1"), (4, "!")]), ("find! 1x", [])]
    with load_target("misbehaving:parse", "bracket", cwd=agent_dir) as target:
        quick = target.run_edits(edits, quick=60.0)
        timed = target.run_edits(edits)
        full = [target.repeated(g if isinstance(g, int) else g[0])
                if isinstance(g, (int, tuple)) else g for g in quick]
        expected = target.run_many([apply_edit(e) for e in edits])
    assert [type(g).__name__ for g in quick] == ["ParseResult", "int", "ParseResult", "int",
                                                 "int", "ParseResult", "int"]
    assert all(isinstance(g, tuple) and len(g) == 3 for g in timed)  # read in the first
    assert [g for g in quick if isinstance(g, int)] == [timed[i][0] for i in (1, 3, 4, 6)]
    assert [_same(r) for r in full] == [_same(r) for r in expected]


def test_a_value_that_is_not_plain_is_never_a_repeat() -> None:
    from reactfuzz.targets.repeats import plain

    assert plain(("action", ("search", "q"))) and plain(None) and plain("x")
    assert not plain(["action", "x"]) and not plain(("final", 1)) and not plain(("a", {}))

    class Text(str):
        pass

    assert not plain((Text("final"), "x"))


def test_explore_draws_the_numbers_the_public_calls_draw() -> None:
    """The mutation draws from ``random.Random._randbelow`` what ``randint``, ``randrange``
    and ``choice`` would: the same inserts, seed for seed."""
    import random

    from reactfuzz.engine.mutation import Slots, draw_inserts
    from reactfuzz.formats import get_format

    slots = Slots("Thought: a longer thought line\nand one more\nAction: search[q]",
                   get_format("bracket"))
    pieces = ["Answer:", "x", "Action:"]
    fast, slow = random.Random(5), random.Random(5)
    for _ in range(200):
        kept = [(12, "y")] if fast.random() < 0.5 else None
        slow.random()
        public = sorted([*(kept or []), *((slots.at(slow.randrange(slots.total)),
                                          slow.choice(pieces))
                                         for _ in range(slow.randint(1, 3)))], reverse=True)
        assert draw_inserts(fast, pieces, 3, slots, kept) == public
    assert fast.random() == slow.random()


def test_the_loops_drawer_draws_what_draw_inserts_draws() -> None:
    """The exploration loop's drawer is ``draw_inserts`` without its per-call set-up: the
    same inserts from the same generator, for bases with and without slots."""
    import random

    from reactfuzz.engine.mutation import Slots, draw_inserts, inserts_drawer
    from reactfuzz.formats import get_format

    fmt = get_format("bracket")
    bases = [Slots("Thought: a longer thought line\nand one more\nAction: search[q]", fmt),
             Slots("Thought: x\nAction: search[q]", fmt), Slots("Action: search[q]", fmt)]
    pieces = ["Answer:", "x", "Action:", "Observation:", "y"]
    for most in (1, 2, 3, 5):
        fast, slow = random.Random(most), random.Random(most)
        draw = inserts_drawer(fast, pieces, most)
        for i in range(300):
            slots = bases[i % len(bases)]
            assert draw(slots) == draw_inserts(slow, pieces, most, slots)
        assert fast.random() == slow.random()


def test_a_user_target_explored_with_repeats_is_judged_as_in_full(
    agent_dir: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The worker's repeats and the loop's verdict cache change nothing: judging every
    scenario in full (every repeat made a result again) fails the same scenarios and
    finds the same bugs, through the one worker or through one scenario a round trip."""
    import reactfuzz.engine.explore as ex

    (agent_dir / "broken3.py").write_text(BROKEN)
    cfg = ExploreConfig(target="broken3:parse", scenarios=600, seed=5, pool_per_operator=3,
                        abuses=["injected.answer-label-in-thought", "malformed.empty",
                                "clean.render"],
                        shrink_budget=0.0, cwd=str(agent_dir))
    cached = explore(cfg)
    monkeypatch.setattr(ex, "_fingerprint", lambda res, slow: None)
    full, serial = explore(cfg), explore(replace(cfg, batch=1))
    assert cached.failing == full.failing == serial.failing > 0
    keys = [f.root_key() for f in cached.findings]
    assert keys and keys == [f.root_key() for f in full.findings] \
        == [f.root_key() for f in serial.findings]


NOISY = '''\
import logging, sys, warnings

log = logging.getLogger("noisy.framework")
configured = logging.getLogger("noisy.configured")
configured.addHandler(logging.StreamHandler())  # made at import: it holds sys.stderr


def parse(text):
    print("PRINTED", text)
    print("STDERR", text, file=sys.stderr)
    log.error("LOGGED %s", text)
    configured.error("HANDLED %s", text)
    warnings.warn("WARNED " + text)
    raise ValueError("no action")
'''


def test_a_parsers_prints_logs_and_warnings_stay_out_of_the_run(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A framework that logs a traceback for every refusal would flood the terminal (one
    real reader printed 699 of them in a default run): after its warm-up the worker sends
    the parser's stdout, stderr, logs and warnings nowhere."""
    (tmp_path / "noisy.py").write_text(NOISY)
    with load_target("noisy:parse", "bracket", cwd=tmp_path) as target:
        capfd.readouterr()
        results = target.run_many(["one", "two"])
    assert all(r.step is not None and r.step.invalid is not None for r in results)
    out, err = capfd.readouterr()
    for word in ("PRINTED", "STDERR", "LOGGED", "HANDLED", "WARNED"):
        assert word not in out + err
