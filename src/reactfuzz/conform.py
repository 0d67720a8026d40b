"""Conformance: run real transcripts (a JSONL file) through a format's grammar.

This is how a user checks a format against production logs: the acceptance rate, and
for every rejection the record, the line and the reason, grouped by reason.

The file is read a record at a time and each record is parsed before the next is read, so
memory does not grow with the file: a report holds counts, and the rejections it keeps
(all of them unless ``keep`` bounds each reason's list). A report that lists every
rejection of a large file (``--json``) takes them from a :class:`RejectionSpill`, which
holds them on disk.
"""

from __future__ import annotations

import io
import json
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field  # 'field' is also a report attribute
from pathlib import Path
from typing import IO, Any

from .errors import InputFileError, UsageError
from .formats import Format, get_format
from .formats.grammars import parse_transcript
from .limits import MAX_JSONL_LINE, load_json_text, open_user_file

__all__ = [
    "ConformReport",
    "Rejection",
    "RejectionSpill",
    "conform",
    "iter_jsonl_texts",
    "read_jsonl_texts",
]


@dataclass(frozen=True, slots=True)
class Rejection:
    """One transcript the grammar refused, and where and why."""

    record: str
    line: int
    column: int
    code: str
    message: str
    context: str


_FIELDS = Rejection.__slots__
_encode = json.JSONEncoder(ensure_ascii=False).encode


@dataclass
class ConformReport:
    """Acceptance of a JSONL file's transcripts by one format's grammar.

    ``counts`` holds the number of rejections of each reason; ``rejections`` the ones kept,
    in file order: every one when ``keep`` is ``None``, else the first ``keep`` of each
    reason.
    """

    path: str
    format: str
    field: str
    total: int = 0
    accepted: int = 0
    rejections: list[Rejection] = dataclass_field(default_factory=list)
    counts: dict[str, int] = dataclass_field(default_factory=dict)
    keep: int | None = None

    def __post_init__(self) -> None:
        if self.rejections and not self.counts:  # built from a list of rejections
            self.counts = dict(Counter(r.code for r in self.rejections))

    def reject(self, r: Rejection) -> None:
        """Count a rejection, and keep it unless its reason already has ``keep`` kept."""
        n = self.counts.get(r.code, 0)
        self.counts[r.code] = n + 1
        if self.keep is None or n < self.keep:
            self.rejections.append(r)

    @property
    def rejected(self) -> int:
        """How many transcripts the grammar refused."""
        return self.total - self.accepted

    @property
    def rate(self) -> float:
        """Accepted share in percent (100 for an empty file)."""
        return 100.0 * self.accepted / self.total if self.total else 100.0

    def codes(self) -> list[str]:
        """The reason codes, the most frequent first (ties by name)."""
        return sorted(self.counts, key=lambda code: (-self.counts[code], code))

    def by_code(self) -> dict[str, list[Rejection]]:
        """The kept rejections grouped by reason code, largest group first."""
        groups: dict[str, list[Rejection]] = {code: [] for code in self.codes()}
        for r in self.rejections:
            groups.setdefault(r.code, []).append(r)
        return groups

    def _head(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "format": self.format,
            "field": self.field,
            "total": self.total,
            "accepted": self.accepted,
            "rejected": self.rejected,
            "rate": round(self.rate, 2),
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (with the kept rejections)."""
        return {
            **self._head(),
            "rejections": {
                code: [_as_dict(r) for r in rs]
                for code, rs in self.by_code().items()
            },
        }

    def iter_json(self, rejections: Callable[[str], Iterable[Rejection]] | None = None,
                  ) -> Iterator[str]:
        """``json.dumps(self.to_dict(), indent=2, ensure_ascii=False)`` in pieces, with
        each reason's list taken from ``rejections(code)`` (default: the kept ones), so
        that a report listing every rejection of a large file is written, never held."""
        if rejections is None:
            groups = self.by_code()
            rejections = groups.__getitem__
        head = json.dumps(self._head(), indent=2, ensure_ascii=False)
        yield head[:-2] + ',\n  "rejections": '
        codes = self.codes()
        if not codes:
            yield "{}\n}"
            return
        yield "{"
        for i, code in enumerate(codes):
            yield ("," if i else "") + "\n    " + json.dumps(code, ensure_ascii=False) + ": "
            listed = 0
            for r in rejections(code):
                yield ("[" if not listed else ",") + _json_item(r)
                listed += 1
            yield "\n    ]" if listed else "[]"
        yield "\n  }\n}"

    def render_text(self, *, show: int = 20) -> str:
        """The human report: totals, then each reason group with its records."""
        out = [
            f"{self.path}: format {self.format}, field {self.field!r}",
            f"accepted {self.accepted} of {self.total} transcripts ({self.rate:.1f}%),"
            f" rejected {self.rejected}",
        ]
        for code, rs in self.by_code().items():
            count = self.counts.get(code, len(rs))
            shown = rs[:show]
            out.append("")
            out.append(f"[{code}] {count} transcript(s)")
            for r in shown:
                out.append(f"  {r.record}: line {r.line}, column {r.column}: {r.message}")
                for ctx_line in r.context.split("\n"):
                    cut = ctx_line if len(ctx_line) <= 110 else ctx_line[:107] + "..."
                    out.append(f"      {cut}")
            if count > len(shown):
                out.append(f"  ... and {count - len(shown)} more")
        return "\n".join(out)


def _as_dict(r: Rejection) -> dict[str, Any]:
    return {k: getattr(r, k) for k in _FIELDS}


def _json_item(r: Rejection) -> str:
    """A rejection as ``json.dumps(indent=2)`` writes it as an item of a reason's list,
    written field by field (``indent`` makes ``json`` build a new encoder per call, whose
    reference cycles would wait for the garbage collector)."""
    fields = ",\n        ".join(f'"{k}": {_encode(getattr(r, k))}' for k in _FIELDS)
    return f"\n      {{\n        {fields}\n      }}"


class RejectionSpill:
    """Every rejection of a run, written to a temporary file per reason as it comes (one
    JSON array a line), and read back in file order by :meth:`rejections`: how a report
    lists every rejection without holding them. Pass it to :func:`conform` as
    ``on_rejection``; close it (or use it as a context manager) to remove the files."""

    def __init__(self) -> None:
        self._files: dict[str, IO[str]] = {}

    def __call__(self, r: Rejection) -> None:
        try:
            fh = self._files.get(r.code)
            if fh is None:
                fh = self._files[r.code] = tempfile.TemporaryFile(
                    "w+", encoding="ascii", newline="\n")
            fh.write(json.dumps([getattr(r, k) for k in _FIELDS]) + "\n")  # ASCII: \u escapes
        except OSError as e:
            raise UsageError(
                f"cannot write a temporary file in {tempfile.gettempdir()}:"
                f" {e.strerror or e}") from None

    def rejections(self, code: str) -> Iterator[Rejection]:
        """The rejections of reason ``code``, in file order."""
        fh = self._files.get(code)
        if fh is None:
            return
        fh.flush()
        fh.seek(0)
        for line in fh:
            yield Rejection(*json.loads(line))

    def close(self) -> None:
        for fh in self._files.values():
            fh.close()
        self._files.clear()

    def __enter__(self) -> RejectionSpill:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def iter_jsonl_texts(path: str | Path, field_name: str = "text", *,
                     line_limit: int = MAX_JSONL_LINE) -> Iterator[tuple[str, str]]:
    """(record id, text) for each record of a JSONL file, read a line at a time; errors
    name the file and line. A line longer than ``line_limit`` characters is an error (it
    is never read whole)."""
    p = Path(path)
    raw = open_user_file(p, "JSON Lines file")
    # newline="": a line ends at \n, \r or \r\n, and its ending is kept
    with io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline="") as fh:
        n = 0
        while True:
            try:
                line = fh.readline(line_limit + 1)
            except OSError as e:
                raise InputFileError(f"{p}: cannot read JSON Lines file:"
                                     f" {e.strerror or e}") from None
            if not line:
                return
            n += 1
            if len(line) > line_limit:
                raise InputFileError(
                    f"{p}:{n}: line longer than the limit of {line_limit:,} characters")
            if line.strip():
                yield _record(p, n, line, field_name)


def _record(p: Path, n: int, line: str, field_name: str) -> tuple[str, str]:
    """One line's (record id, text), or the error naming the file and line."""
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
    return (str(rid) if rid is not None else f"line {n}", text)


def read_jsonl_texts(path: str | Path, field_name: str = "text") -> list[tuple[str, str]]:
    """(record id, text) for every record of a JSONL file, as a list (this holds the whole
    file: :func:`iter_jsonl_texts` reads a record at a time)."""
    return list(iter_jsonl_texts(path, field_name))


def conform(path: str | Path, fmt: Format | str, field_name: str = "text", *,
            keep: int | None = None,
            on_rejection: Callable[[Rejection], object] | None = None) -> ConformReport:
    """Parse every transcript of a JSONL file with the format's grammar and report.

    Records are read and parsed one at a time. The report keeps every rejection, or with
    ``keep`` the first ``keep`` of each reason (memory then stays flat however long the
    file); ``on_rejection`` is called with each rejection as it is found.
    """
    fmt = get_format(fmt)
    report = ConformReport(str(path), fmt.name, field_name, keep=keep)
    for rid, text in iter_jsonl_texts(path, field_name):
        report.total += 1
        t = parse_transcript(text, fmt)
        if t.ok:
            report.accepted += 1
            continue
        inv = t.invalid
        assert inv is not None
        r = Rejection(rid, inv.line, inv.column, inv.code, str(inv.message), inv.context)
        report.reject(r)
        if on_rejection is not None:
            on_rejection(r)
    if not report.total:
        raise InputFileError(f"{path}: no records (a JSONL file holds one JSON object per line)")
    return report
