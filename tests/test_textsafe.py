"""The one sanitiser: no control sequence, 8-bit CSI or bidi override from a parser, a file or
an argument reaches the terminal or a report, and nothing is lost on the way."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from reactfuzz.reporting.console import _ANSI
from reactfuzz.reporting.progress import ProgressPrinter
from reactfuzz.textsafe import (
    COLOURS,
    SafeStream,
    json_safe,
    said,
    terminal_safe,
    visible,
)

# A title change, a screen clear, an 8-bit CSI, a bidi override, a zero-width space, a BEL.
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202egnp.exe\u200b"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u200b")


def _clean(text: str) -> bool:
    return not any(c in text for c in RAW)


def test_terminal_safe_escapes_every_controlling_character_and_keeps_lines() -> None:
    out = terminal_safe("a\tb\n" + HOSTILE + "\\n")
    assert _clean(out)
    assert out.startswith("a\tb\n\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202egnp.exe\\u200b")
    assert out.endswith("\\n")  # the text's own backslash is not doubled: a message reads as is
    assert terminal_safe("héllo 中文 ✓") == "héllo 中文 ✓"
    assert visible("a\nb") == "a\\nb"


def test_terminal_safe_keeps_only_the_exact_colours_it_is_given() -> None:
    painted = "\x1b[31mHIGH\x1b[0m " + HOSTILE
    out = terminal_safe(painted, COLOURS)
    assert out.startswith("\x1b[31mHIGH\x1b[0m ")
    assert _clean(out[len("\x1b[31mHIGH\x1b[0m "):])
    assert {f"\x1b[{code}m" for code in _ANSI.values()} <= COLOURS  # the console's own


def test_json_safe_is_the_same_json_value() -> None:
    data = {"m": HOSTILE + "\x7f\U000e0041", "k": [1, "\u2028"]}
    for ascii_only in (False, True):
        text = json_safe(json.dumps(data, ensure_ascii=ascii_only))
        assert _clean(text) and "\x7f" not in text and "\u2028" not in text
        assert json.loads(text) == data


def test_said_quotes_made_visible_and_cut() -> None:
    assert _clean(said(HOSTILE, limit=1000))
    long = said("x" * 100_000)
    assert len(long) < 80 and "100002 characters" in long


def test_a_safe_stream_writes_through_the_sanitiser() -> None:
    raw = io.StringIO()
    stream = SafeStream(raw)
    print("found:", HOSTILE, file=stream)  # type: ignore[arg-type]
    assert _clean(raw.getvalue()) and raw.getvalue().endswith("\n")
    assert not stream.isatty()


def test_the_progress_printer_draws_on_the_raw_stream_and_sanitises_its_lines() -> None:
    raw = io.StringIO()
    printer = ProgressPrinter(SafeStream(raw))  # type: ignore[arg-type]
    assert printer.stream is raw
    printer._say("target " + HOSTILE)
    assert _clean(raw.getvalue()) and "\\x1b]0;pwned" in raw.getvalue()


PARSER = f'''
def parse(text):
    raise ValueError({HOSTILE!r} + text[:5])
'''


def test_a_hostile_parser_message_reaches_no_output_raw(tmp_path: Path) -> None:
    """A parser's exception message with terminal control codes: the console, the progress
    and every report carry it escaped, and the JSON reports still hold it whole."""
    (tmp_path / "hostile.py").write_text(PARSER)
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "-m", "reactfuzz", "fuzz", "--target", "hostile:parse", "--format",
         "bracket", "--seed", "1", "--max-examples", "3", "--abuse", "clean.render",
         "--no-corpus", "--no-fit-check", "--color", "never", "-v",
         "--json", str(out / "r.json"), "--markdown", str(out / "r.md"),
         "--html", str(out / "r.html"), "--junit", str(out / "r.xml"),
         "--sarif", str(out / "r.sarif"), "--events", str(out / "r.ndjson")],
        capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 1, r.stderr
    assert "pwned" in r.stdout and _clean(r.stdout), r.stdout
    assert _clean(r.stderr), r.stderr
    for name in ("r.json", "r.md", "r.html", "r.xml", "r.sarif", "r.ndjson"):
        text = (out / name).read_text(encoding="utf-8")
        assert "pwned" in text and _clean(text), name
    data = json.loads((out / "r.json").read_text(encoding="utf-8"))
    assert any(HOSTILE in s for s in _strings(data))  # escaped in the file, not lost


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_an_argument_argparse_echoes_is_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    from reactfuzz.cli import main

    assert main(["fuzz", "--parser", HOSTILE, "--no-corpus"]) == 2
    err = capsys.readouterr().err
    assert "pwned" in err and _clean(err), err
    assert "Traceback" not in err
