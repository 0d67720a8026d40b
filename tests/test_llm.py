"""The fake LLM: provider semantics (stop sequences, length limit), playing both roles, streaming."""

from __future__ import annotations

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from reactfuzz.errors import UsageError
from reactfuzz.llm import (
    Completion,
    FakeLLM,
    HypothesisSource,
    Request,
    apply_stop,
    split_chunks,
    stream_parse,
)
from reactfuzz.parsers import PARSERS, get_parser

FIND = settings(database=None, max_examples=2000, derandomize=True)

# --- stop sequences -----------------------------------------------------------------------

# (id, text, stop sequences, text the client receives, stop sequence reported)
STOPS = [
    ("no-stop-sequence-occurs", "Action: search[x]", ("Observation:",),
     "Action: search[x]", None),
    ("no-stop-sequences-at-all", "Action: search[x]\nObservation: y", (),
     "Action: search[x]\nObservation: y", None),
    ("cut-and-excluded", "Action: search[x]\nObservation: all good", ("Observation:",),
     "Action: search[x]\n", "Observation:"),
    ("at-position-0", "Observation: all good", ("Observation:",), "", "Observation:"),
    ("earliest-of-several-whatever-their-order", "a STOP1 b STOP2 c", ("STOP2", "STOP1"),
     "a ", "STOP1"),
    ("first-occurrence-of-a-repeated-stop", "x END y END", ("END",), "x ", "END"),
    ("same-start-reports-the-longer", "a\nObservation: b", ("\nObs", "\nObservation:"),
     "a", "\nObservation:"),
    ("overlapping-earliest-start-wins-over-earliest-end", "abcdef", ("cd", "abcdef"),
     "", "abcdef"),
    ("overlapping-shifted", "xObservation:", ("Observation:", "xObs"), "", "xObs"),
    ("stop-inside-an-argument-cuts-mid-argument", "Action: search[what does Observation: mean]",
     ("Observation:",), "Action: search[what does ", "Observation:"),
    ("case-sensitive", "Action: search[x]\nobservation: y", ("Observation:",),
     "Action: search[x]\nobservation: y", None),
    ("paper-newline-stop-leaves-no-newline", "Action 1: search[x]\nObservation 1: y",
     ("\nObservation",), "Action 1: search[x]", "\nObservation"),
    ("numbered-label-escapes-an-unnumbered-stop", "Action: search[x]\nObservation 1: y",
     ("Observation:",), "Action: search[x]\nObservation 1: y", None),
]


@pytest.mark.parametrize(("text", "stop", "received", "matched"), [s[1:] for s in STOPS],
                         ids=[s[0] for s in STOPS])
def test_stop_sequences_cut_like_a_provider(text, stop, received, matched) -> None:
    assert apply_stop(text, stop) == (received, matched)
    completion = FakeLLM([text], stop=stop).complete("Thought:")
    assert (completion.text, completion.stop_sequence) == (received, matched)
    assert completion.raw == text
    assert completion.finish_reason == ("end" if matched is None else "stop")


@given(
    text=st.text(alphabet="ab:\nO", max_size=30),
    stop=st.lists(st.text(alphabet="ab:\nO", min_size=1, max_size=3), max_size=3),
)
def test_apply_stop_cuts_before_the_first_stop_and_nothing_earlier(text, stop) -> None:
    cut, matched = apply_stop(text, stop)
    assert text.startswith(cut)
    assert not any(s in cut for s in stop)  # no complete stop sequence survives
    if matched is None:
        assert cut == text
    else:
        assert matched in stop and text[len(cut):].startswith(matched)


@pytest.mark.parametrize("stop", [("",), "Observation:"], ids=["empty-stop", "bare-string"])
def test_bad_stop_sequences_are_usage_errors(stop) -> None:
    with pytest.raises(UsageError, match="stop"):
        apply_stop("text", stop)
    with pytest.raises(UsageError, match="stop"):
        FakeLLM(["x"], stop=stop)


# --- the length limit ----------------------------------------------------------------------

RAW = "Action: search[x]\nObservation: all good"  # "Observation:" starts at offset 18

# (id, stop sequences, max_chars, text, finish_reason, stop sequence reported)
LIMITS = [
    ("no-limit", (), None, RAW, "end", None),
    ("cuts-mid-label-leaving-a-dangling-Observ", (), 24, "Action: search[x]\nObserv", "length",
     None),
    ("limit-before-the-stop", ("Observation:",), 6, "Action", "length", None),
    ("stop-well-within-the-limit", ("Observation:",), 100, "Action: search[x]\n", "stop",
     "Observation:"),
    ("stop-first-then-length: a stop that starts within the limit wins", ("Observation:",), 24,
     "Action: search[x]\n", "stop", "Observation:"),
    ("limit-equal-to-the-text", (), len(RAW), RAW, "end", None),
    ("zero-limit", (), 0, "", "length", None),
]


@pytest.mark.parametrize(("stop", "max_chars", "text", "finish", "matched"),
                         [c[1:] for c in LIMITS], ids=[c[0] for c in LIMITS])
def test_length_limit_is_applied_after_the_stop(stop, max_chars, text, finish, matched) -> None:
    completion = FakeLLM([RAW], stop=stop, max_chars=max_chars).complete("Thought:")
    assert completion == Completion(text, RAW, finish, matched)


def test_a_request_overrides_the_default_stop_and_limit() -> None:
    llm = FakeLLM([RAW, RAW, RAW], stop=("Observation:",), max_chars=5)
    assert llm.complete("p").text == "Actio"
    assert llm.complete("p", max_chars=100).text == "Action: search[x]\n"
    assert llm.complete("p", stop=(), max_chars=100).text == RAW
    assert [r.stop for r in llm.requests] == [("Observation:",)] * 2 + [()]


@pytest.mark.parametrize("bad", [-1, 1.5, True], ids=["negative", "float", "bool"])
def test_bad_length_limits_are_usage_errors(bad) -> None:
    with pytest.raises(UsageError, match="max_chars"):
        FakeLLM(["x"], max_chars=bad)


# --- sources -------------------------------------------------------------------------------


def test_a_script_is_returned_in_order_and_running_out_says_how_to_fix_it() -> None:
    llm = FakeLLM(["one", "two"])
    assert [llm.complete("p").text for _ in range(2)] == ["one", "two"]
    with pytest.raises(UsageError, match=r"2 completion\(s\).*request 3.*add completions"):
        llm.complete("p")


def test_every_request_is_recorded_with_its_turn() -> None:
    llm = FakeLLM(lambda req: f"turn {req.turn} saw {len(req.prompt)}", stop=("X",))
    llm.complete("ab")
    llm.complete("abcd", stop=("Y", "Z"))
    assert llm.requests == [Request("ab", ("X",), 0), Request("abcd", ("Y", "Z"), 1)]
    assert [c.text for c in llm.completions] == ["turn 0 saw 2", "turn 1 saw 4"]


@given(data=st.data())
def test_hypothesis_source_draws_one_completion_per_turn(data) -> None:
    llm = FakeLLM(HypothesisSource(data, st.sampled_from(["Answer: a", "Action: search[x]"])))
    texts = [llm.complete("p").text for _ in range(3)]
    assert all(t in ("Answer: a", "Action: search[x]") for t in texts)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"source": "Answer: 42"}, "not a string"),
        ({"source": 42}, "not int"),
        ({"source": ["x"], "plays_both_roles": 1.5}, "probability"),
        ({"source": ["x"], "plays_both_roles": -0.1}, "probability"),
    ],
    ids=["string-source", "int-source", "rate-above-1", "rate-below-0"],
)
def test_bad_options_are_usage_errors(kwargs, match) -> None:
    with pytest.raises(UsageError, match=match):
        FakeLLM(**kwargs)


def test_a_source_that_returns_no_string_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="returned int"):
        FakeLLM(lambda req: 42).complete("p")


# --- playing both roles --------------------------------------------------------------------

ACTION = " I should search.\nAction: search[x]"


def roles(rate: float, seed: int, turns: int = 200) -> list[bool]:
    llm = FakeLLM(lambda req: ACTION, plays_both_roles=rate, seed=seed)
    return [llm.complete("p").played_both_roles for _ in range(turns)]


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_rate_zero_never_and_rate_one_always(seed) -> None:
    assert not any(roles(0.0, seed))
    assert all(roles(1.0, seed))


def test_playing_both_roles_is_deterministic_by_seed_and_follows_the_rate() -> None:
    assert roles(0.5, seed=7) == roles(0.5, seed=7)
    assert roles(0.5, seed=7) != roles(0.5, seed=8)
    share = sum(roles(0.3, seed=3, turns=2000)) / 2000
    assert 0.25 < share < 0.35
    # a higher rate fabricates on every turn a lower one does (one uniform draw per turn)
    low, high = roles(0.2, seed=5), roles(0.6, seed=5)
    assert all(h for lo, h in zip(low, high) if lo)


def test_the_fabricated_continuation_comes_before_the_stop_sequence() -> None:
    cut = FakeLLM([ACTION], plays_both_roles=1.0, stop=("Observation:",)).complete("Thought:")
    assert cut.played_both_roles and cut.finish_reason == "stop"
    assert cut.text == ACTION + "\n"
    assert "\nObservation: " in cut.raw
    through = FakeLLM([ACTION], plays_both_roles=1.0).complete("Thought:")
    assert through.text == through.raw
    lines = through.text.split("\n")
    assert lines[:2] == ACTION.split("\n")
    assert [line.split(":")[0] for line in lines[2:]] == ["Observation", "Thought", "Answer"]


@pytest.mark.parametrize(
    ("fmt", "labels"),
    [
        ("bracket", ["Observation", "Thought", "Answer"]),
        ("paper", ["Observation 1", "Thought 2", "Action 2"]),
        ("action-input", ["Observation", "Thought", "Final Answer"]),
        ("json-args", ["Observation", "Thought", "Answer"]),
    ],
)
def test_the_fabricated_continuation_uses_the_format_labels(fmt, labels) -> None:
    text = FakeLLM(["x"], plays_both_roles=1.0, fmt=fmt).complete("p").text
    assert [line.split(":")[0] for line in text.split("\n")[1:]] == labels
    if fmt == "paper":
        assert text.split("\n")[-1].startswith("Action 2: Finish[")


def test_a_length_limit_can_cut_the_fabricated_observation_mid_label() -> None:
    limit = len(ACTION) + len("\nObserv")
    c = FakeLLM([ACTION], plays_both_roles=1.0, max_chars=limit).complete("Thought:")
    assert c.text.endswith("\nObserv") and c.finish_reason == "length"


# --- streaming -----------------------------------------------------------------------------

TEXTS = st.lists(st.sampled_from([*"ab :[]\n", "Observation:", "Answer:", "é"]),
                 max_size=20).map("".join)
SIZES = st.lists(st.integers(1, 6), min_size=1, max_size=5)
STOP_SETS = st.sampled_from([(), ("Observation:",), ("\nObservation", "Answer:")])


@given(raw=TEXTS, sizes=SIZES, stop=STOP_SETS, rate=st.sampled_from([0.0, 1.0]),
       limit=st.none() | st.integers(0, 50))
def test_streaming_yields_exactly_the_completion_in_any_chunking(raw, sizes, stop, rate,
                                                                 limit) -> None:
    def model() -> FakeLLM:
        return FakeLLM([raw], stop=stop, plays_both_roles=rate, max_chars=limit)

    whole = model().complete("Thought:")
    streaming = model()
    chunks = list(streaming.stream("Thought:", chunks=sizes))
    assert "".join(chunks) == whole.text
    assert all(0 < len(c) <= max(sizes) for c in chunks)
    assert streaming.completions == [whole]


def test_chunking_can_be_a_function_of_the_text() -> None:
    llm = FakeLLM(["Answer: I think\nmore"])
    chunks = list(llm.stream("p", chunks=lambda text: [text.index(" ", 8)]))
    assert chunks == ["Answer: I", " think\nmo", "re"]


@pytest.mark.parametrize(
    ("sizes", "chunks"),
    [(None, ["abcdefg"]), ([1], list("abcdefg")), ([2, 3], ["ab", "cde", "fg"]), ([10], ["abcdefg"])],
    ids=["one-chunk", "ones", "cycled", "larger-than-text"],
)
def test_split_chunks_cycles_the_sizes(sizes, chunks) -> None:
    assert split_chunks("abcdefg", sizes) == chunks
    assert split_chunks("", sizes) == []


@pytest.mark.parametrize("sizes", [[], [0], [2, -1], [1.5]], ids=["empty", "zero", "negative", "float"])
def test_bad_chunk_sizes_are_usage_errors(sizes) -> None:
    with pytest.raises(UsageError, match="chunk sizes"):
        split_chunks("abc", sizes)


# --- the streaming consumer ----------------------------------------------------------------

PIECES = ["Thought:", "Action:", "Answer:", "Observation:", "Final Answer:", "Action Input:",
          " ", "\n", "search[", "x", "]", ", ", "I think", "get_time[]", '{"query": "x"}']
COMPLETIONS = st.lists(st.sampled_from(PIECES), max_size=12).map("".join) | st.text(max_size=30)


@pytest.mark.parametrize("name", sorted(PARSERS))
@given(text=COMPLETIONS, sizes=SIZES)
def test_every_parser_reads_a_completion_the_same_whole_or_streamed(name, text, sizes) -> None:
    parser = get_parser(name, "bracket")
    assert stream_parse(parser, split_chunks(text, sizes)) == parser.parse(text)


def test_eager_streaming_acts_on_a_prefix() -> None:
    parser = get_parser("classic-bracket", "bracket")
    text = "Answer: I think\nmore"
    assert stream_parse(parser, ["Answer: I", " think\nmore"], eager=True).answer == "I"
    assert stream_parse(parser, ["Answer: I", " think\nmore"]).answer == "I think\nmore"
    assert stream_parse(parser, [text], eager=True) == parser.parse(text)


def test_eager_streaming_breaks_stream_invariance_and_hypothesis_finds_it() -> None:
    parser = get_parser("classic-bracket", "bracket")

    def differs(case: tuple[str, list[int]]) -> bool:
        text, sizes = case
        return stream_parse(parser, split_chunks(text, sizes), eager=True) != parser.parse(text)

    text, sizes = find(st.tuples(COMPLETIONS, SIZES), differs, settings=FIND)
    assert "Answer:" in text
    eager = stream_parse(parser, split_chunks(text, sizes), eager=True)
    assert eager.answer is not None and eager.answer != parser.parse(text).answer


def test_eager_streaming_of_nothing_parses_the_empty_text() -> None:
    parser = get_parser("grammar", "bracket")
    assert stream_parse(parser, [], eager=True) == parser.parse("")
