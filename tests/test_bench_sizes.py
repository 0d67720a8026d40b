"""The size benchmark: exponents are fitted right, and a quadratic parser is caught."""

from __future__ import annotations

import pytest

from reactfuzz.bench.sizes import (
    EXPONENT_LIMIT,
    fit_exponent,
    growth,
    long_argument,
    long_thought,
    render_sizes,
    transcript,
)


@pytest.mark.parametrize("k", [0.5, 1.0, 2.0])
def test_fit_exponent_recovers_a_power_law(k: float) -> None:
    sizes = [1e3, 1e4, 1e5]
    assert fit_exponent(sizes, [3e-6 * n ** k for n in sizes]) == pytest.approx(k)


def test_fit_exponent_needs_two_points() -> None:
    with pytest.raises(ValueError):
        fit_exponent([1.0], [1.0])


def _quadratic(text: str) -> int:
    """A parser that rebuilds the whole line list for every line: the bug the grammar's
    numbering check once had."""
    lines = text.split("\n")
    return sum(len(text.split("\n")) for _ in lines)


def _linear(text: str) -> int:
    return sum(len(line) for line in text.split("\n"))


def test_a_quadratic_parser_fails_its_exponent_and_a_linear_one_passes() -> None:
    # best of five, at sizes where each call takes long enough to time; a loaded machine
    # can still spoil one measurement, so the verdict is the best of three attempts
    for _attempt in range(3):
        bad = growth("quadratic", _quadratic, "long thought", long_thought,
                     [4_000, 8_000, 16_000])
        good = growth("linear", _linear, "long thought", long_thought,
                      [32_000, 128_000, 512_000])
        if bad.relative_exponent > 1.6 and good.relative_exponent < EXPONENT_LIMIT + 0.3:
            break
    assert bad.relative_exponent > 1.6 and bad.met is False
    assert good.relative_exponent < EXPONENT_LIMIT + 0.3
    table = render_sizes([bad, good])
    assert "quadratic" in table and "NO" in table


def test_workloads_have_the_size_and_the_steps_they_claim() -> None:
    from reactfuzz.formats.grammars import grammar_parse, parse_transcript

    for make in (long_thought, long_argument):
        text = make(5_000)
        assert abs(len(text) - 5_000) < 80
        step = grammar_parse(text, "bracket")
        assert step.action is not None and step.action.tool == "search"
    t = parse_transcript(transcript(30), "bracket")
    assert t.ok and t.steps() == 30


@pytest.mark.slow
def test_bench_sizes_cli_prints_every_exponent(tmp_path, capsys) -> None:
    from reactfuzz.cli import main

    md = tmp_path / "sizes.md"
    assert main(["bench", "--sizes", "--quick", "-q", "--markdown", str(md)]) == 0
    out = capsys.readouterr().out
    assert "grammar transcript" in out and "relative exponent" in out
    assert md.read_text().startswith("| parser |")


def test_sizes_table_prints_cpu_times_and_the_wall_time_beside() -> None:
    from reactfuzz.bench.sizes import SizeSeries

    s = SizeSeries("grammar", "long thought", "bytes", [1_000, 10_000, 100_000],
                   [1e-5, 1e-4, 1e-3], [1e-6, 1e-5, 1e-4], True, [3e-5, 3e-4, 4.5e-3])
    md = render_sizes([s], markdown=True).splitlines()
    header = [c.strip() for c in md[0].strip("|").split("|")]
    row = [c.strip() for c in md[2].strip("|").split("|")]
    assert header[2:4] == ["cpu time at each size", "wall, largest"]
    assert row[2].endswith("100 kB 1.0 ms") and row[3] == "4.5 ms"
    assert row[4] == "1.00" and row[-1] == "yes"
