"""The fuzz engine, the corpus and replay, as a library."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from reactfuzz.engine import FuzzConfig, replay, run_fuzz
from reactfuzz.engine.checks import CHECKS, CheckInput, Failure, check
from reactfuzz.engine.corpus import Finding, iter_corpus, load_finding, save_finding
from reactfuzz.errors import InputFileError, UsageError

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz_corpus"


def small(**kw) -> FuzzConfig:
    base = dict(targets=["classic-bracket"], format="bracket", seed=7, max_examples=25,
                corpus=None)
    base.update(kw)
    return FuzzConfig(**base)


@pytest.fixture(scope="module")
def classic_run():
    return run_fuzz(small())


def test_classic_bracket_has_the_three_critical_kinds(classic_run) -> None:
    verdicts = {f.failure for f in classic_run.findings}
    assert {"wrong-call", "crash", "hijacked-answer"} <= verdicts
    assert classic_run.exit_code == 1


def test_findings_are_minimal(classic_run) -> None:
    # one root cause (too many positional arguments) reached by several operators is one
    # finding, shrunk to a one-line action
    delimiter = [f for f in classic_run.findings if f.failure == "crash" and "takes" in
                 f.signature and "injected.delimiter" in [f.abuse, *f.also_reached]]
    assert delimiter and delimiter[0].completion.count("\n") == 1
    for f in classic_run.findings:
        assert len(f.completion) < 200, f.completion


def test_findings_are_deduplicated(classic_run) -> None:
    keys = [f.root_key() for f in classic_run.findings]
    assert len(keys) == len(set(keys)), "one finding per root cause"


def test_same_seed_same_findings(classic_run) -> None:
    again = run_fuzz(small())
    assert [f.id for f in again.findings] == [f.id for f in classic_run.findings]


def test_grammar_typed_has_no_design_findings() -> None:
    run = run_fuzz(small(targets=["grammar"]))
    assert run.findings == []
    assert run.exit_code == 0
    assert all(f.cause == "protocol" for f in run.protocol_notes)


def test_json_args_grammar_has_neither_findings_nor_protocol_notes() -> None:
    run = run_fuzz(small(targets=["grammar"], format="json-args"))
    assert run.findings == [] and run.protocol_notes == []


def test_corpus_is_written_atomically_and_replayed(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    run = run_fuzz(small(corpus=str(corpus), abuses=["injected.delimiter"]))
    files = sorted(corpus.glob("*.json"))
    assert len(files) == len(run.findings) > 0
    assert not list(corpus.glob(".tmp-*"))
    again = run_fuzz(small(corpus=str(corpus), abuses=["injected.delimiter"]))
    assert again.replayed == len(files) and again.reproduced == len(files)


def test_baseline_absorbs_known_findings(tmp_path: Path) -> None:
    base = tmp_path / "base"
    first = run_fuzz(small(corpus=str(base), abuses=["injected.delimiter"]))
    second = run_fuzz(small(baseline=str(base), abuses=["injected.delimiter",
                                                         "injected.second-action"]))
    assert second.baseline_known == len(first.findings)
    assert {f.abuse for f in second.findings} == {"injected.second-action"}


def test_a_rerun_calls_replayed_findings_known_not_new(tmp_path: Path) -> None:
    """Without a baseline a rerun still fails on what the corpus held, but says it is
    known; with the corpus as baseline the same findings are known and pass."""
    corpus = tmp_path / "corpus"
    first = run_fuzz(small(corpus=str(corpus), abuses=["injected.delimiter"],
                           max_examples=8))
    assert first.known == 0 and len(first.new_findings) == len(first.findings) > 0
    again = run_fuzz(small(corpus=str(corpus), abuses=["injected.delimiter"],
                           max_examples=8))
    assert again.new_findings == [] and again.known == len(first.findings)
    assert again.fixed == 0 and again.exit_code == 1
    based = run_fuzz(small(baseline=str(corpus), abuses=["injected.delimiter",
                                                          "injected.second-action"],
                         max_examples=8))
    assert based.known == len(first.findings)
    assert based.new_findings == based.findings
    assert {f.abuse for f in based.findings} == {"injected.second-action"}


def test_a_stored_finding_that_no_longer_reproduces_is_fixed(tmp_path: Path) -> None:
    """A corpus finding the parser no longer repeats is counted fixed, one that still
    reproduces known, and neither is new (the grammar parser is the fixed one)."""
    broken = run_fuzz(small(abuses=["injected.second-action"], seed=1, max_examples=10))
    corpus = tmp_path / "corpus"
    for f in broken.findings:
        save_finding(f.model_copy(update={"target": "grammar"}), corpus)
    run = run_fuzz(small(targets=["grammar"], corpus=str(corpus),
                         abuses=["injected.second-action"], max_examples=10))
    assert run.findings == [] and run.replayed == len(broken.findings)
    assert run.fixed == len({f.dedup_key() for f in broken.findings}) > 0
    assert run.known == 0 and run.exit_code == 0
    without = run_fuzz(small(targets=["grammar"], corpus=str(corpus), replay_corpus=False,
                             abuses=["injected.second-action"], max_examples=10))
    assert without.fixed == 0 and without.known == 0  # not replayed: nothing is claimed


def test_interrupt_keeps_findings(tmp_path: Path, monkeypatch) -> None:
    """Ctrl-C during the second operator: the first operator's findings are on disk."""
    import reactfuzz.engine.search as search

    calls = {"n": 0}
    real = search.search

    def interrupting(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(search, "search", interrupting)
    corpus = tmp_path / "c"
    run = run_fuzz(small(corpus=str(corpus), abuses=["injected.delimiter",
                                                       "injected.second-action"]))
    assert run.interrupted and run.exit_code == 130
    assert run.findings and len(list(corpus.glob("*.json"))) == len(run.findings)


def test_user_parser_in_a_temporary_directory_is_fuzzed_unchanged(tmp_path: Path) -> None:
    (tmp_path / "tutorial_agent.py").write_text(textwrap.dedent('''
        import re

        def parse(text):
            if "Final Answer:" in text:
                return ("final", text.split("Final Answer:")[-1].strip())
            m = re.search(r"Action: (.*?)\\nAction Input: (.*)", text)
            return ("action", (m.group(1).strip(), m.group(2).strip()))
    '''))
    run = run_fuzz(FuzzConfig(targets=["tutorial_agent:parse"], format="action-input",
                              seed=3, max_examples=15, corpus=None, cwd=str(tmp_path)))
    verdicts = {f.failure for f in run.findings}
    assert "crash" in verdicts  # m is None -> AttributeError
    assert any("AttributeError" in f.explanation for f in run.findings)


def test_custom_check_is_registered_and_can_fail() -> None:
    @check("search-only", "a demo check: the agent may only search")
    def _search_only(inp: CheckInput) -> Failure | None:
        ran = getattr(inp.outcome, "call", None)
        if ran is not None and ran.tool != "search":
            return Failure("not-search", f"{ran.tool} ran", "low")
        return None

    try:
        run = run_fuzz(small(targets=["grammar"], checks=["search-only"],
                             abuses=["clean.render"]))
        assert {(f.check, f.failure) for f in run.findings} == {("search-only", "not-search")}
        assert "Action: " in run.findings[0].completion
    finally:
        CHECKS.remove("search-only")


def test_unknown_check_abuse_and_target_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="unknown check"):
        run_fuzz(small(checks=["nope"]))
    with pytest.raises(UsageError, match="unknown abuse"):
        run_fuzz(small(abuses=["nope"]))
    with pytest.raises(UsageError):
        run_fuzz(small(targets=["nope"]))


def test_finding_file_round_trips_and_bad_files_are_clear(tmp_path: Path, classic_run) -> None:
    f = classic_run.findings[0]
    path = save_finding(f, tmp_path)
    assert load_finding(path) == f
    assert f.reproduction().count("\n") == 4
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputFileError, match=r"bad\.json:1: not valid JSON"):
        load_finding(bad)
    data = json.loads(path.read_text())
    data["schema_version"] = 99
    bad.write_text(json.dumps(data))
    with pytest.raises(InputFileError, match="schema_version 99 is not supported"):
        load_finding(bad)
    data["schema_version"] = 1
    data["completion_b64"] = "AAAA"
    bad.write_text(json.dumps(data))
    with pytest.raises(InputFileError, match="completion_b64"):
        load_finding(bad)


# --- the project's own corpus: a test over every member ---------------------------------

MEMBERS = sorted(CORPUS.glob("*.json"))


def test_the_project_corpus_covers_every_classic_target() -> None:
    targets = {f.target for _, f in iter_corpus(CORPUS)}
    assert {"classic-bracket", "classic-unanchored", "classic-action-input"} <= targets


@pytest.mark.parametrize("path", MEMBERS, ids=[p.stem for p in MEMBERS])
def test_every_corpus_member_reproduces(path: Path) -> None:
    finding = load_finding(path)
    assert isinstance(finding, Finding)
    assert finding.filename == path.name, "a corpus file is named by its stable hash"
    [result] = replay([path])
    assert result.reproduced, (path.name, result.observed)


def test_interrupt_mid_operator_keeps_its_unshrunk_failures(tmp_path: Path, monkeypatch) -> None:
    """Ctrl-C inside an operator's search: what it had recorded so far is kept, unshrunk."""
    import reactfuzz.engine.search as search

    real_examine = search.examine
    seen = {"failures": 0}

    def examine_then_interrupt(*args, **kwargs):
        ex = real_examine(*args, **kwargs)
        if ex.failure is not None:
            seen["failures"] += 1
            if seen["failures"] == 3:
                raise KeyboardInterrupt
        return ex

    monkeypatch.setattr(search, "examine", examine_then_interrupt)
    corpus = tmp_path / "c"
    run = run_fuzz(small(corpus=str(corpus), abuses=["injected.delimiter"]))
    assert run.interrupted and run.findings
    assert all(not f.shrunk for f in run.findings)
    assert run.examples > 0
    assert len(list(corpus.glob("*.json"))) == len(run.findings)


# --- one example pipeline, typed events, honest finding fields ---------------------------


def _scenario(completion: str):
    from reactfuzz.model import Call
    from reactfuzz.oracle import oracle
    from reactfuzz.strategies import Scenario
    from reactfuzz.tools import default_registry

    intent = Call.named("send_email", to="bob@example.com", subject="Hi, Bob")
    acceptable = oracle(intent, "bracket", default_registry())
    return Scenario("bracket", "injected.delimiter", intent, completion, completion,
                    acceptable)


@pytest.mark.parametrize(("target", "reference_parses"), [("classic-bracket", 1),
                                                          ("grammar", 0)])
def test_one_example_reads_the_reference_at_most_once(monkeypatch, target: str,
                                                      reference_parses: int) -> None:
    """The grammar's reading is shared by the oracle's cause and every check; the grammar
    target's own Step is that reading."""
    import reactfuzz.designs as designs
    from reactfuzz.engine import examine
    from reactfuzz.engine.checks import get_checks
    from reactfuzz.formats import get_format
    from reactfuzz.targets import load_target
    from reactfuzz.tools import default_registry

    calls = {"n": 0}
    real = designs.grammar_parse

    def counting(*args, **kwargs):
        calls["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(designs, "grammar_parse", counting)
    fmt = get_format("bracket")
    sc = _scenario("Thought: mail him\nAction: send_email[bob@example.com, Hi, Bob]")
    with load_target(target, fmt) as t:
        ex = examine(sc, t, fmt, default_registry(), "typed", get_checks(), chunks=[3, 5],
                     target_is_grammar=target == "grammar")
    assert ex.verdict.kind == "wrong-call" and ex.verdict.cause == "protocol"
    assert calls["n"] == reference_parses


def test_an_example_that_needs_no_reference_parses_none(monkeypatch) -> None:
    import reactfuzz.designs as designs
    from reactfuzz.engine import examine
    from reactfuzz.engine.checks import get_checks
    from reactfuzz.formats import get_format
    from reactfuzz.targets import load_target
    from reactfuzz.tools import default_registry

    monkeypatch.setattr(designs, "grammar_parse", lambda *a, **k: pytest.fail("parsed"))
    fmt = get_format("bracket")
    sc = _scenario('Thought: x\nAction: send_email["bob@example.com", "Hi, Bob"]')
    with load_target("hardened-bracket", fmt) as t:
        ex = examine(sc, t, fmt, default_registry(), "typed", get_checks(["no-crash"]))
    assert ex.verdict.ok


def test_events_round_trip_through_plain_data(classic_run) -> None:
    from reactfuzz.engine import events as ev

    samples = [
        ev.RunStarted(1, ("classic-bracket",), "bracket", "positional", 3, 4, workers=2),
        ev.CorpusReplayed("c/x.json", True, "no-crash", "crash"),
        ev.OperatorStarted("classic-bracket", "label.case"),
        ev.ExamplesRan("classic-bracket", "label.case", 12, 2),
        ev.FindingFound(classic_run.findings[0], "c/x.json"),
        ev.OperatorFinished("classic-bracket", "label.case", 12, {"no-crash": 2}, 0.5),
        ev.RunFinished(1, 0, 12, 0.5),
        ev.Interrupted(1),
        ev.StudyStarted(("classic",), 2, 2, 5, 0),
        ev.CellFinished("classic", "label.case", 1, 2, 3, 5),
        ev.StudyFinished(2, 1.0),
    ]
    for e in samples:
        data = json.loads(json.dumps(e.to_dict()))
        back = ev.event_from_dict(data)
        assert back == e
        assert data["time"] == e.timestamp and back.timestamp == e.timestamp
    with pytest.raises(ValueError, match="unknown event kind"):
        ev.event_from_dict({"kind": "nope", "data": {}})


def test_events_carry_when_they_happened_in_utc() -> None:
    """Every event is stamped where it happens (a worker's events keep their own time), as
    UTC ISO 8601 with milliseconds; a log line without a time still reads."""
    import datetime as dt
    import time

    from reactfuzz.engine import events as ev

    before = time.time()
    e = ev.Interrupted(3)
    assert before <= e.at <= time.time()
    stamp = e.to_dict()["time"]
    assert stamp.endswith("Z") and len(stamp) == len("2026-01-01T00:00:00.000Z")
    moment = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert abs(moment.timestamp() - e.at) < 0.001
    assert "at" not in e.to_dict()["data"]
    assert ev.event_from_dict({"kind": "interrupted", "data": {"findings": 3}}) == e
    pinned = ev.Interrupted(3, at=0.0)
    assert pinned.to_dict()["time"] == "1970-01-01T00:00:00.000Z"


def test_a_run_announces_typed_events_in_order() -> None:
    from reactfuzz.engine import events as ev

    seen: list[ev.EngineEvent] = []
    run = run_fuzz(small(abuses=["injected.delimiter"]), seen.append)
    assert isinstance(seen[0], ev.RunStarted) and isinstance(seen[-1], ev.RunFinished)
    assert [type(e) for e in seen[1:3]] == [ev.OperatorStarted, ev.FindingFound] or \
        isinstance(seen[1], ev.OperatorStarted)
    found = [e.finding for e in seen if isinstance(e, ev.FindingFound)]
    assert found == run.findings


def test_strict_protocol_counts_protocol_notes_as_findings() -> None:
    cfg = small(targets=["grammar"], abuses=["injected.delimiter"])
    lax = run_fuzz(cfg)
    strict = run_fuzz(small(targets=["grammar"], abuses=["injected.delimiter"],
                            strict_protocol=True))
    assert lax.protocol_notes and not lax.findings and lax.exit_code == 0
    assert strict.findings == lax.protocol_notes and not strict.protocol_notes
    assert strict.exit_code == 1


def test_finding_names_its_failure_kind_and_reads_the_stored_key(classic_run) -> None:
    f = classic_run.findings[0]
    data = f.model_dump(mode="json")
    assert data["verdict"] == f.failure == f.verdict and "failure" not in data
    assert Finding.model_validate(data) == f
    fields = {**f.model_dump(by_alias=False), "failure": "other"}
    assert Finding(**fields).failure == "other"
