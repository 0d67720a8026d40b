"""A larger budget reaches further: deeper nesting, more bases for the guided phase, and
the numerals no finite value has.

Two readers stand for the zoo's: one decodes JSON arguments with a pure-Python recursive
decoder (several frames a level, as json5 does), one converts numbers with ``float`` and
then ``int`` inside ``except ValueError`` (SGLang's MiniMax-M2 reader). The default budget
catches both; a reader that refuses what it cannot decode is left alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

from reactfuzz.engine.config import DEFAULT_MAX_EXAMPLES, FuzzConfig
from reactfuzz.engine.run import run_fuzz
from reactfuzz.engine.search import SAMPLE, sample_size
from reactfuzz.strategies import Sizes
from reactfuzz.strategies.abuses.size import NEST_DEPTH
from reactfuzz.targets.origin import origin_of_exception

RECURSIVE = '''
import json
import re

_DECODER = json.JSONDecoder()


def _ws(s, i):
    while s[i] in " \\n\\t":
        i += 1
    return i


def _value(s, i):
    i = _ws(s, i)
    if s[i] in "[{":
        return _container(s, i)
    return _DECODER.raw_decode(s, i)


def _container(s, i):
    close = "]" if s[i] == "[" else "}"
    return _items(s, i + 1, close, [] if close == "]" else {})


def _items(s, i, close, out):
    while True:
        i = _ws(s, i)
        if s[i] == close:
            return out, i + 1
        i = _item(s, i, out)
        i = _ws(s, i)
        if s[i] == ",":
            i += 1


def _item(s, i, out):
    if isinstance(out, dict):
        key, i = _DECODER.raw_decode(s, i)
        i = _ws(s, i) + 1  # the colon
        out[key], i = _value(s, i)
        return i
    value, i = _value(s, i)
    out.append(value)
    return i


def parse(completion):
    action = re.search(r"(?m)^Action:[ \\t]*(\\w+)[ \\t]*$", completion)
    given = re.search(r"(?ms)^Action Input:[ \\t]*(.*)", completion)
    if action is None or given is None:
        answer = re.search(r"(?ms)^Final Answer:[ \\t]*(.*)", completion)
        if answer is not None:
            return ("final", answer.group(1).strip())
        raise ValueError("no action")
    try:
        args, _ = _value(given.group(1).strip(), 0)
    except (ValueError, IndexError) as exc:  # RecursionError is neither
        raise ValueError(f"bad arguments: {exc}") from exc
    if not isinstance(args, dict):
        raise ValueError("arguments are not an object")
    return ("action", (action.group(1), args))
'''

CAREFUL = RECURSIVE.replace("except (ValueError, IndexError) as exc:",
                            "except (ValueError, IndexError, RecursionError) as exc:")

NUMBERS = '''
import re


def _number(text):
    try:
        value = float(text)
        return value if value != int(value) else int(value)  # OverflowError on inf
    except (ValueError, TypeError):
        return text


def parse(completion):
    call = re.search(r'<invoke name="(\\w+)">(.*?)</invoke>', completion, re.S)
    if call is None:
        return ("final", completion.rpartition("</think>")[2].strip())
    args = {}
    for name, value in re.findall(r'<parameter name="(\\w+)">(.*?)</parameter>', call.group(2),
                                  re.S):
        args[name] = _number(value) if name == "amount" else value
    return ("action", (call.group(1), args))
'''

SAFE_NUMBERS = NUMBERS.replace("except (ValueError, TypeError):",
                               "except (ValueError, TypeError, OverflowError):")


def _crashes(tmp_path: Path, module: str, source: str, fmt: str, abuse: str,
             max_examples: int = DEFAULT_MAX_EXAMPLES) -> list[str]:
    """The exception types of a run's no-crash findings (one operator, seed 1)."""
    (tmp_path / f"{module}.py").write_text(source)
    config = FuzzConfig(targets=[f"{module}:parse"], format=fmt, cwd=str(tmp_path),
                        abuses=[abuse], seed=1, max_examples=max_examples,
                        format_fit=False, replay_corpus=False, corpus=None)
    return [f.origin.exc_type for f in run_fuzz(config).findings
            if f.check == "no-crash" and f.origin is not None]


def test_deep_nesting_crashes_a_recursive_decoder_at_the_default_budget(tmp_path: Path) -> None:
    assert _crashes(tmp_path, "recursive_reader", RECURSIVE, "action-input-json",
                    "size.deep-nesting") == ["RecursionError"]


def test_deep_nesting_leaves_a_decoder_that_refuses_alone(tmp_path: Path) -> None:
    assert _crashes(tmp_path, "careful_reader", CAREFUL, "action-input-json",
                    "size.deep-nesting") == []


def test_the_nesting_depth_grows_with_the_budget() -> None:
    from hypothesis import find
    from hypothesis import strategies as st

    from reactfuzz.strategies.abuses.size import nesting_depth
    from reactfuzz.strategies.catalogue import Context

    def deepest(scale: float) -> int:
        @st.composite
        def depth(draw: st.DrawFn) -> int:
            ctx = Context(draw, None, None, None, Sizes(scale))  # type: ignore[arg-type]
            return nesting_depth(ctx)

        return find(depth(), lambda d: d > 64)

    # past C json's recursion (about a thousand levels) only at ten times the budget
    assert deepest(1.0) == NEST_DEPTH < sys.getrecursionlimit()
    assert deepest(10.0) == 10 * NEST_DEPTH > sys.getrecursionlimit()


def test_non_finite_number_crashes_a_float_then_int_reader(tmp_path: Path) -> None:
    assert _crashes(tmp_path, "number_reader", NUMBERS, "xml-invoke",
                    "malformed.non-finite-number") == ["OverflowError"]


def test_non_finite_number_leaves_a_reader_that_catches_the_overflow_alone(
        tmp_path: Path) -> None:
    assert _crashes(tmp_path, "safe_number_reader", SAFE_NUMBERS, "xml-invoke",
                    "malformed.non-finite-number") == []


def test_the_guided_phase_gets_more_bases_from_a_larger_budget() -> None:
    assert sample_size(FuzzConfig(targets=["classic-bracket"])) == SAMPLE
    assert sample_size(FuzzConfig(targets=["classic-bracket"],
                                  max_examples=10 * DEFAULT_MAX_EXAMPLES)) == 10 * SAMPLE


def test_a_recursion_error_is_keyed_by_the_call_into_the_library() -> None:
    # wherever the stack ran out inside the library, the key is where its recursion begins
    from lark import Tree

    def inner(depth: int) -> tuple[str | None, str | None]:
        tree = Tree("a", [])
        for _ in range(depth):
            tree = Tree("a", [tree])
        try:
            tree.pretty()
        except RecursionError as exc:
            found = origin_of_exception(exc)
            assert found.inner is not None and found.site is not None
            return found.inner.function, found.site.function
        raise AssertionError("no recursion error")

    assert inner(5_000) == inner(5_003) == ("_pretty", "inner")


def test_the_guided_phase_stacks_more_pieces_at_a_larger_budget() -> None:
    from reactfuzz.engine.guided import INSERTIONS, guided_insertions

    assert guided_insertions(FuzzConfig(targets=["classic-bracket"])) == INSERTIONS
    assert guided_insertions(FuzzConfig(targets=["classic-bracket"],
                                        max_examples=10 * DEFAULT_MAX_EXAMPLES)) == 6


def test_a_mixed_text_holds_more_pieces_at_a_larger_budget() -> None:
    from hypothesis import find
    from hypothesis import strategies as st

    from reactfuzz.formats import get_format
    from reactfuzz.strategies.abuses.content import mixed_text, most_pieces
    from reactfuzz.strategies.catalogue import Context

    fmt = get_format("tool-call")

    def longest(scale: float) -> int:
        @st.composite
        def pieces(draw: st.DrawFn) -> int:
            ctx = Context(draw, fmt, None, None, Sizes(scale))  # type: ignore[arg-type]
            return most_pieces(ctx)

        most = find(pieces(), lambda n: True)
        assert find(mixed_text(fmt, most), lambda t: True).count(" ") >= 1
        return most

    assert longest(1.0) == 4
    assert longest(10.0) == 10
