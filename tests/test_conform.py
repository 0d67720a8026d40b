"""``conform`` streams: it reads a record only after the one before is parsed, holds counts
and the records it shows, never the file, and writes the same report as when it held
everything.

The first two tests use only what ``conform`` has always offered, so that they can be run
against a ``conform`` that reads the whole file, and fail there.
"""

from __future__ import annotations

import contextlib
import json
import os
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import reactfuzz.conform as conform_module
from reactfuzz.cli import main
from reactfuzz.conform import ConformReport, Rejection, conform
from reactfuzz.errors import InputFileError
from reactfuzz.formats.grammars import parse_transcript

GOOD = "Question: q\nThought: a\nAnswer: b\n"


def _write_records(path: Path, texts: Iterator[str] | list[str]) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for i, text in enumerate(texts):
            fh.write(json.dumps({"id": f"r{i}", "text": text}) + "\n")
    return path


def test_a_record_is_parsed_before_the_next_is_read(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The grammar sees record k when k records have been read, not the whole file."""
    n = 2000
    path = _write_records(tmp_path / "logs.jsonl", ["x" if i % 2 else GOOD for i in range(n)])
    read = 0
    ahead: list[int] = []  # at each parse: records read and not yet parsed, besides this one
    real_load, real_parse = conform_module.load_json_text, conform_module.parse_transcript

    def load(*args: Any, **kwargs: Any) -> Any:
        nonlocal read
        read += 1
        return real_load(*args, **kwargs)

    def parse(text: str, fmt: Any) -> Any:
        ahead.append(read - len(ahead) - 1)
        return real_parse(text, fmt)

    monkeypatch.setattr(conform_module, "load_json_text", load)
    monkeypatch.setattr(conform_module, "parse_transcript", parse)
    report = conform(path, "bracket")
    assert (report.total, report.accepted, len(ahead)) == (n, n // 2, n)
    assert max(ahead) == 0, f"{max(ahead)} records were read before the first was parsed"


def _peak_bytes(path: Path, *options: str) -> int:
    """The most memory Python held while ``reactfuzz conform`` ran on ``path``."""
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        tracemalloc.start()
        try:
            assert main(["conform", "-f", "bracket", *options, str(path)]) == 1
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


@pytest.mark.parametrize(("options", "n"), [((), 10_000), (("--json",), 3000)],
                         ids=["text", "json"])
def test_memory_does_not_grow_with_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            options: tuple[str, ...], n: int) -> None:
    """Ten times the records, every one rejected, and the peak stays where it was. (The
    grammar's verdict is fixed here, so the test measures conform, not the parse.)"""
    refused = parse_transcript("x", "bracket")
    monkeypatch.setattr(conform_module, "parse_transcript", lambda text, fmt: refused)
    small, large = (_write_records(tmp_path / f"{k}.jsonl", ["x"] * k) for k in (n // 10, n))
    _peak_bytes(small, *options)  # warm: imports, the format, the grammar
    before, after = _peak_bytes(small, *options), _peak_bytes(large, *options)
    # holding the file or the rejections would add hundreds of bytes a record (megabytes)
    assert after - before < 64 * 1024, (before, after)


def test_show_bounds_what_is_kept_but_not_what_is_counted(tmp_path: Path, capsys) -> None:
    texts = ["x" if i % 3 else GOOD for i in range(90)]  # 60 rejected: unlabelled text
    path = _write_records(tmp_path / "logs.jsonl", texts)
    report = conform(path, "bracket", keep=2)
    assert report.counts == {"unlabelled-text": 60} and report.rejected == 60
    assert [r.record for r in report.rejections] == ["r1", "r2"]
    assert main(["conform", "-f", "bracket", "--show", "2", str(path)]) == 1
    out = capsys.readouterr().out
    assert "[unlabelled-text] 60 transcript(s)" in out and "... and 58 more" in out
    assert main(["conform", "-f", "bracket", "--json", "--min-rate", "30", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    listed = data["rejections"]["unlabelled-text"]
    assert [r["record"] for r in listed] == [f"r{i}" for i in range(90) if i % 3]
    assert data["rejected"] == 60


def _rejection(i: int, code: str) -> Rejection:
    return Rejection(f"r{i} é\x1b\udcff\n", i, i % 7, code, f"message {i}: 'x'\n\"y\"",
                     "line one\n  ^ \u202e")


@pytest.mark.parametrize("codes", [[], ["syntax"], ["syntax", "unlabelled-text", "syntax",
                                                    "bracket", "bracket", "syntax"]])
def test_the_streamed_json_is_the_json_of_the_whole_report(codes: list[str]) -> None:
    from reactfuzz.conform import RejectionSpill

    report = ConformReport("logs.jsonl", "bracket", "text", total=len(codes) + 3,
                           accepted=3, rejections=[_rejection(i, c) for i, c in enumerate(codes)])
    whole = json.dumps(report.to_dict(), indent=2, ensure_ascii=False)
    assert "".join(report.iter_json()) == whole
    kept = ConformReport("logs.jsonl", "bracket", "text", total=len(codes) + 3, accepted=3,
                         keep=0)
    with RejectionSpill() as spill:
        for i, c in enumerate(codes):
            r = _rejection(i, c)
            kept.reject(r)
            spill(r)
        assert kept.rejections == []
        assert "".join(kept.iter_json(spill.rejections)) == whole


def test_a_line_over_the_limit_is_one_error_naming_the_line(tmp_path: Path, capsys) -> None:
    from reactfuzz.limits import MAX_JSONL_LINE

    path = tmp_path / "logs.jsonl"
    with path.open("w") as fh:
        fh.write(json.dumps({"text": GOOD}) + "\n")
        fh.write('{"text": "' + "x" * MAX_JSONL_LINE + '"}\n')
    assert main(["conform", "-f", "bracket", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"reactfuzz: error: {path}:2: line longer than the limit of"
                   f" {MAX_JSONL_LINE:,} characters"]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_lines_end_as_before_and_blank_lines_are_skipped(tmp_path: Path, newline: str) -> None:
    path = tmp_path / "logs.jsonl"
    lines = [json.dumps({"text": GOOD}), "", "  ", json.dumps({"text": "x"}), ""]
    path.write_bytes(newline.join(lines).encode())
    report = conform(path, "bracket")
    assert (report.total, report.accepted) == (2, 1)
    assert [r.record for r in report.rejections] == ["line 4"]


def test_an_undecodable_line_is_named_after_the_lines_before_it(tmp_path: Path) -> None:
    path = tmp_path / "logs.jsonl"
    path.write_bytes(b'{"text": "x"}\n' * 3 + b'{"text": "\xe4"}\n')
    with pytest.raises(InputFileError, match=r"logs\.jsonl:4: not UTF-8 text"):
        conform(path, "bracket")
