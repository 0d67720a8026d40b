"""``parse`` (one completion or transcript through a parser) and ``conform`` (logs through a
format's grammar)."""

from __future__ import annotations

import argparse
import json
import sys

from ..conform import RejectionSpill, conform
from ..errors import InputFileError
from ..formats import get_format
from ..formats.grammars import parse_transcript
from ..limits import MAX_FILE_BYTES, read_user_file
from ..textsafe import json_safe


def _read_input(name: str) -> str:
    """Read a completion exactly as written (no newline translation)."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise InputFileError(f"stdin: over the limit of {MAX_FILE_BYTES:,} bytes")
    else:
        data = read_user_file(name, "completion file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(f"{name}: not UTF-8 text ({e.reason} at byte {e.start})") from None



def _cmd_parse(args: argparse.Namespace) -> int:
    from ..targets import load_target

    fmt = get_format(args.format)
    parser = load_target(args.parser, fmt)  # a built-in, module:function, regex: or grammar:
    text = _read_input(args.file)
    if args.transcript:
        parser.close()
        t = parse_transcript(text, fmt)
        out = {
            "ok": t.ok,
            "blocks": [
                {"role": b.role, "number": b.number, "line": b.line, "text": b.text}
                for b in t.blocks
            ],
            "invalid": None if t.invalid is None else {
                "code": t.invalid.code, "message": t.invalid.message, "line": t.invalid.line,
                "column": t.invalid.column, "expected": list(t.invalid.expected),
                "context": t.invalid.context,
            },
        }
        print(json_safe(json.dumps(out, indent=2, ensure_ascii=False)))
        return 0 if t.ok else 1
    try:
        step = parser.parse(text)
    finally:
        parser.close()
    print(json_safe(json.dumps(step.to_dict(), indent=2, ensure_ascii=False)))
    return 0 if step.kind != "invalid" else 1


def _cmd_conform(args: argparse.Namespace) -> int:
    # The file is read a record at a time and the report holds counts and the records it
    # shows, so memory stays flat however long the file; --json lists every rejection, so
    # those wait on disk until the report is written.
    fmt = get_format(args.format)
    if args.json:
        with RejectionSpill() as spill:
            report = conform(args.file, fmt, args.field, keep=0, on_rejection=spill)
            for piece in report.iter_json(spill.rejections):
                sys.stdout.write(json_safe(piece))
            sys.stdout.write("\n")
    else:
        report = conform(args.file, fmt, args.field, keep=args.show)
        print(report.render_text(show=args.show))
    return 0 if report.rate >= args.min_rate else 1
