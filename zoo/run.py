"""Fuzz every zoo parser with reactfuzz and summarise the findings: ``python -m zoo.run``.

For each parser of :data:`zoo.ZOO` that has a format, it runs ``reactfuzz fuzz --target
zoo.<module>:parse --format <fmt> --seed 1 --no-corpus`` at the default budget and at ten
times it (``--max-examples 600``), keeps each run's JSON report under ``--out`` and prints
one Markdown table: time, findings by check, verdict and cause, ``clean.render`` failures,
and the distinct bugs the findings map to (:mod:`zoo.triage`). Run it from the checkout
root with the interpreter that has the ``zoo`` extra installed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import ZOO, ZooParser
from .triage import TRIAGE, classify

__all__ = ["RunResult", "format_path", "fuzz", "main", "parser_sections", "table",
           "triage_table"]

ROOT = Path(__file__).resolve().parent.parent
SCALES = {"default": [], "10x": ["--max-examples", "600"]}


@dataclass
class RunResult:
    """One fuzz run of one zoo parser, read back from its JSON report."""

    module: str
    scale: str
    format: str
    seconds: float
    exit_code: int
    report: dict[str, Any] = field(repr=False)

    @property
    def findings(self) -> list[dict[str, Any]]:
        """The run's findings (protocol notes excluded)."""
        return list(self.report.get("findings", []))

    def clean_failures(self) -> int:
        """How many clean renderings of the format the parser got wrong."""
        return sum(sum(op["failures"].values()) for op in self.report.get("operators", [])
                   if op["abuse"] == "clean.render")

    def by(self, key: str) -> Counter[str]:
        """Findings counted by one of their fields (``check``, ``verdict``, ``cause``)."""
        return Counter(str(f[key]) for f in self.findings)

    def classes(self) -> Counter[str]:
        """Findings counted by triage class (``defect``, ``judgement``, ``false-alarm``, ...)."""
        return Counter(classify(self.module, f)[0] for f in self.findings)

    def bugs(self) -> set[str]:
        """The distinct real defects the findings map to."""
        return {bug for f in self.findings for cls, bug in [classify(self.module, f)]
                if cls == "defect"}


def format_path(parser: ZooParser) -> str:
    """The ``--format`` value of a zoo parser: a built-in name or a file under zoo/formats."""
    assert parser.format is not None
    if parser.format.endswith(".toml"):
        return str(ROOT / "zoo" / "formats" / parser.format)
    return parser.format


def fuzz(parser: ZooParser, scale: str, out: Path, *, fmt: str | None = None,
         abuses: tuple[str, ...] = ()) -> RunResult:
    """Run ``reactfuzz fuzz`` on one zoo parser at one scale (only ``abuses``, when given)
    and read its JSON report."""
    fmt = fmt or format_path(parser)
    only = "".join(f"-{a}" for a in abuses)
    report = out / f"{parser.module}-{scale}{only}.json"
    cmd = [sys.executable, "-m", "reactfuzz", "fuzz", "--target", f"zoo.{parser.module}:parse",
           "--format", fmt, "--seed", "1", "--no-corpus", "--json", str(report), "-q",
           *SCALES[scale], *(x for a in abuses for x in ("--abuse", a))]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    report.with_suffix(".txt").write_text(proc.stdout + proc.stderr)
    if proc.returncode not in (0, 1) or not report.is_file():
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()}")
    data = json.loads(report.read_text())
    return RunResult(parser.module, scale, fmt, seconds, proc.returncode, data)


def installed(parser: ZooParser) -> bool:
    """Whether the parser's framework can be imported here."""
    return importlib.util.find_spec(parser.imports) is not None


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counter.items())) or "-"


def table(results: list[RunResult]) -> str:
    """The Markdown summary of a set of runs, one row per run."""
    rows = ["| parser | format | scale | time (s) | clean fails | findings | by check | by cause"
            " | by class | defects |", "|" + "---|" * 10]
    for r in results:
        rows.append(
            f"| {r.module} | {Path(r.format).name} | {r.scale} | {r.seconds:.0f} |"
            f" {r.clean_failures()} | {len(r.findings)} | {_counts(r.by('check'))} |"
            f" {_counts(r.by('cause'))} | {_counts(r.classes())} |"
            f" {', '.join(sorted(r.bugs())) or '-'} |")
    return "\n".join(rows)


def triage_table(results: list[RunResult]) -> str:
    """The triage rows as Markdown: one row per bug and parser, with its shortest completion."""
    seen: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in results:
        if r.scale != "default":
            continue
        for f in r.findings:
            _klass, bug = classify(r.module, f)
            seen.setdefault((r.module, bug or f"untriaged {f['check']}@{f['abuse']}"), []).append(f)
    rows = ["| parser | class | bug | findings | shortest completion | mechanism | tracker |",
            "|" + "---|" * 7]
    for (module, bug), found in seen.items():
        row = next((t for t in TRIAGE if t.module == module and t.bug == bug), None)
        shortest = min((f["completion"] for f in found), key=len)
        pairs = ", ".join(sorted({f"{f['check']}@{f['abuse']}" for f in found}))
        rows.append(
            f"| {module} | {row.klass if row else 'untriaged'} | {bug} | {pairs} |"
            f" `{json.dumps(shortest)[1:-1].replace('|', '&#124;')}` |"
            f" {row.mechanism if row else ''} | {row.ground_truth if row else ''} |")
    return "\n".join(rows)


def _cell(text: str) -> str:
    return text.replace("|", "&#124;")


SHOWN = 300
"""The most characters of a completion a docs table cell shows (a 160 kB size operator's
input is named by its length, not pasted)."""


def _shown(completion: str) -> str:
    """A completion as a table cell shows it: JSON-escaped, cut past :data:`SHOWN`."""
    text = json.dumps(completion)[1:-1]
    if len(text) <= SHOWN:
        return text
    return f"{text[:SHOWN - 60]}… ({len(completion):,} characters)"


def parser_sections(default: list[RunResult], tenx: list[RunResult]) -> str:
    """docs/zoo.md's triage sections: per parser, its default-run findings as bugs (each
    with the operators that reached it, the shortest completion, mechanism and tracker),
    then the bugs only the 10x run found."""
    names = {p.module: p for p in ZOO}
    out: list[str] = []
    big = {r.module: r for r in tenx}
    for r in default:
        parser = names[r.module]
        classes = r.classes()
        out += [f"### `{r.module}` ({parser.framework}, format `{Path(r.format).name}`)", "",
                f"Default run: {len(r.findings)} findings: {classes.get('defect', 0)} defect,"
                f" {classes.get('judgement', 0)} judgement,"
                f" {classes.get('false-alarm', 0)} false alarm.", "",
                "| class | bug | findings (check@abuse; the shortest first) | examples |"
                " shortest completion | where it decided | mechanism | tracker |",
                "|" + "---|" * 8]
        seen: set[str] = set()

        def rows(run: RunResult, tag: str = "", seen: set[str] = seen,
                 out: list[str] = out) -> None:
            for f in run.findings:
                klass, bug = classify(run.module, f)
                key = bug or f"untriaged {f['check']}@{f['abuse']}"
                if tag and key in seen:
                    continue
                seen.add(key)
                row = next((t for t in TRIAGE if t.module == run.module and t.bug == bug),
                           None)
                pairs = ", ".join(f"{f['check']}@{a}"
                                  for a in [f["abuse"], *f.get("also_reached", [])])
                origin = f.get("origin") or {}
                site = origin.get("site") or origin.get("inner") or {}
                where = f"`{site['file']}:{site['line']}`" if site else "-"
                out.append(
                    f"| {klass}{tag} | {bug or '-'} | {_cell(pairs)} | {f.get('count', 1)} |"
                    f" `{_cell(_shown(f['completion']))}` | {where} |"
                    f" {_cell(row.mechanism) if row else ''} |"
                    f" {_cell(row.ground_truth) if row and row.ground_truth else '-'} |")

        rows(r)
        if r.module in big:
            rows(big[r.module], " (10x run only)")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m zoo.run [--only MODULE,...] [--scale default|10x|both]``."""
    ap = argparse.ArgumentParser(prog="python -m zoo.run", description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="comma-separated zoo modules (default: all)")
    ap.add_argument("--scale", choices=["default", "10x", "both"], default="both")
    ap.add_argument("--format", dest="fmt", help="fuzz in this format instead of the parser's")
    ap.add_argument("--out", help="where the JSON reports go (default: a new temporary folder)")
    args = ap.parse_args(argv)
    only = {m for m in args.only.split(",") if m}
    out = Path(args.out or tempfile.mkdtemp(prefix="zoo-runs-"))
    out.mkdir(parents=True, exist_ok=True)
    scales = ["default", "10x"] if args.scale == "both" else [args.scale]
    results = []
    for parser in ZOO:
        if only and parser.module not in only:
            continue
        if not installed(parser):
            print(f"{parser.module}: skipped, {parser.framework} is not installed", file=sys.stderr)
            continue
        if (parser.format is None or parser.waiting) and args.fmt is None:
            print(f"{parser.module}: skipped, waiting for {parser.waiting}", file=sys.stderr)
            continue
        for scale in scales:
            result = fuzz(parser, scale, out, fmt=args.fmt)
            print(f"{parser.module} {scale}: {len(result.findings)} findings in"
                  f" {result.seconds:.0f}s", file=sys.stderr)
            results.append(result)
    (out / "summary.md").write_text(table(results) + "\n")
    (out / "triage.md").write_text(triage_table(results) + "\n")
    (out / "sections.md").write_text(parser_sections(
        [r for r in results if r.scale == "default"],
        [r for r in results if r.scale == "10x"]) + "\n")
    print(table(results))
    print(f"reports: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
