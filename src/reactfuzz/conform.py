"""Conformance: run real transcripts (a JSONL file) through a format's grammar.

This is how a user checks a format against production logs: the acceptance rate, and
for every rejection the record, the line and the reason, grouped by reason.
"""

from __future__ import annotations

import io
import json
from collections import defaultdict
from dataclasses import dataclass
from dataclasses import field as dataclass_field  # 'field' is also a report attribute
from pathlib import Path
from typing import Any

from .errors import InputFileError
from .formats import Format, get_format
from .grammars import parse_transcript
from .limits import MAX_JSONL_BYTES, load_json_text, read_user_file

__all__ = ["ConformReport", "Rejection", "conform", "read_jsonl_texts"]


@dataclass(frozen=True, slots=True)
class Rejection:
    """One transcript the grammar refused, and where and why."""

    record: str
    line: int
    column: int
    code: str
    message: str
    context: str


@dataclass
class ConformReport:
    """Acceptance of a JSONL file's transcripts by one format's grammar."""

    path: str
    format: str
    field: str
    total: int = 0
    accepted: int = 0
    rejections: list[Rejection] = dataclass_field(default_factory=list)

    @property
    def rate(self) -> float:
        """Accepted share in percent (100 for an empty file)."""
        return 100.0 * self.accepted / self.total if self.total else 100.0

    def by_code(self) -> dict[str, list[Rejection]]:
        """Rejections grouped by reason code, largest group first."""
        groups: dict[str, list[Rejection]] = defaultdict(list)
        for r in self.rejections:
            groups[r.code].append(r)
        return dict(sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view."""
        return {
            "path": self.path,
            "format": self.format,
            "field": self.field,
            "total": self.total,
            "accepted": self.accepted,
            "rejected": self.total - self.accepted,
            "rate": round(self.rate, 2),
            "rejections": {
                code: [_as_dict(r) for r in rs]
                for code, rs in self.by_code().items()
            },
        }

    def render_text(self, *, show: int = 20) -> str:
        """The human report: totals, then each reason group with its records."""
        out = [
            f"{self.path}: format {self.format}, field {self.field!r}",
            f"accepted {self.accepted} of {self.total} transcripts ({self.rate:.1f}%),"
            f" rejected {self.total - self.accepted}",
        ]
        for code, rs in self.by_code().items():
            out.append("")
            out.append(f"[{code}] {len(rs)} transcript(s)")
            for r in rs[:show]:
                out.append(f"  {r.record}: line {r.line}, column {r.column}: {r.message}")
                for ctx_line in r.context.split("\n"):
                    shown = ctx_line if len(ctx_line) <= 110 else ctx_line[:107] + "..."
                    out.append(f"      {shown}")
            if len(rs) > show:
                out.append(f"  ... and {len(rs) - show} more")
        return "\n".join(out)


def _as_dict(r: Rejection) -> dict[str, Any]:
    return {k: getattr(r, k) for k in Rejection.__slots__}


def read_jsonl_texts(path: str | Path, field_name: str = "text") -> list[tuple[str, str]]:
    """(record id, text) for every record of a JSONL file; errors name the file and line."""
    p = Path(path)
    raw = read_user_file(p, "JSON Lines file", limit=MAX_JSONL_BYTES)
    out: list[tuple[str, str]] = []
    with io.StringIO(raw.decode("utf-8", errors="surrogateescape"), newline="") as fh:
        try:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    line.encode("utf-8")  # an undecodable byte is held as a lone surrogate
                except UnicodeEncodeError:
                    raise InputFileError(f"{p}:{n}: not UTF-8 text") from None
                try:
                    rec = load_json_text(line, f"{p}:{n}", allow_nan=True)
                except json.JSONDecodeError as e:
                    raise InputFileError(
                        f"{p}:{n}: not valid JSON ({e.msg} at column {e.colno});"
                        " a JSONL file holds one JSON object per line"
                    ) from None
                if not isinstance(rec, dict):
                    raise InputFileError(f"{p}:{n}: a record must be a JSON object")
                if field_name not in rec:
                    fields = ", ".join(sorted(rec)[:12])
                    raise InputFileError(
                        f"{p}:{n}: record has no field {field_name!r}"
                        f" (it has: {fields}); choose one with --field"
                    )
                text = rec[field_name]
                if not isinstance(text, str):
                    raise InputFileError(f"{p}:{n}: field {field_name!r} is not a string")
                rid = rec.get("id")
                out.append((str(rid) if rid is not None else f"line {n}", text))
        except UnicodeDecodeError as e:
            raise InputFileError(f"{p}: not UTF-8 text ({e.reason})") from None
    return out


def conform(path: str | Path, fmt: Format | str, field_name: str = "text") -> ConformReport:
    """Parse every transcript of a JSONL file with the format's grammar and report."""
    fmt = get_format(fmt)
    report = ConformReport(str(path), fmt.name, field_name)
    records = read_jsonl_texts(path, field_name)
    if not records:
        raise InputFileError(f"{path}: no records (a JSONL file holds one JSON object per line)")
    for rid, text in records:
        report.total += 1
        t = parse_transcript(text, fmt)
        if t.ok:
            report.accepted += 1
        else:
            inv = t.invalid
            assert inv is not None
            report.rejections.append(
                Rejection(rid, inv.line, inv.column, inv.code, str(inv.message), inv.context)
            )
    return report
