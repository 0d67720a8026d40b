"""Markdown: a run as a pull-request comment, and the study's design × operator matrix."""

from __future__ import annotations

import html
import re
from pathlib import Path

from ..engine.advice import advice_for
from ..engine.corpus import Finding
from ..engine.results import RunSummary, StudyCell, StudyResult
from .common import (
    STUDY_LEGEND,
    by_family,
    count_table,
    counts_line,
    descriptions,
    design_blocks,
    exit_meaning,
    free_text,
    known_line,
    plural,
    protocol_mark,
    rate_ci,
    reached_line,
    replay_command,
    seconds_text,
    study_conclusions,
    targets_found,
    visible,
    where_line,
    worst_first,
    worst_verdicts,
    write_atomic,
)
from .conclusion import study_conclusion

__all__ = ["render_markdown", "render_study_markdown", "write_markdown"]

# --------------------------------------------------------------------------------------
# Markdown.

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|<>#])")


def _md(text: str) -> str:
    """Free text safe in Markdown (and in a table cell): specials escaped, one line."""
    return _MD_SPECIAL.sub(r"\\\1", free_text(text).replace("&", "&amp;"))


def _code(text: str, *, cell: bool = False) -> str:
    """An inline code span that holds any backticks in ``text`` (``cell``: inside a table,
    where even a code span needs its ``|`` escaped)."""
    if cell:
        text = text.replace("|", "\\|")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fence(text: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def _md_table(header: list[str], rows: list[list[str]], align: str = "") -> list[str]:
    aligns = align or "l" + "r" * (len(header) - 1)
    sep = ["---:" if a == "r" else ":---:" if a == "c" else "---" for a in aligns]
    return ["| " + " | ".join(r) + " |" for r in [header, sep, *rows]]


MARKDOWN_LIMIT = 60_000
"""The most characters a pull-request comment holds (GitHub takes 65,536): findings that
do not fit are counted, with a pointer to the full report."""


def _finding_section(summary: RunSummary, f: Finding, multi: bool) -> list[str]:
    where = f" · `{f.target}`" if multi else ""
    decided = where_line(f)
    others = [f"- **another example:** {_code(visible(e, limit=300))}" for e in f.examples[:2]]
    return [
        "<details>",
        f"<summary><b>{html.escape(f.severity)}</b> · <code>{html.escape(f.failure)}</code>"
        f" · <code>{html.escape(f.check)}</code> · <code>{html.escape(f.abuse)}</code>"
        f"{html.escape(where).replace('`', '')}</summary>",
        "",
        "Shortest completion (invisible characters written as escapes):",
        "",
        _fence(visible(f.completion, limit=4000), "text"),
        "",
        *([f"- **where:** {_md(decided)}"] if decided else []),
        f"- **expected:** {_code(free_text(f.expected)[:500])}",
        f"- **observed:** {_code(free_text(f.observed)[:500])}",
        f"- **why:** {_md(f.explanation[:800])}",
        f"- **fix:** {advice_for(f)}",
        f"- **reached:** {_md(reached_line(f))}",
        *others,
        "",
        _fence(replay_command(summary, f), "sh"),
        "",
        "</details>",
        "",
    ]


def render_markdown(summary: RunSummary, *, limit: int = MARKDOWN_LIMIT,
                    full_report: str | None = None) -> str:
    """A pull-request comment: headline, findings by check × family, one collapsed section
    per finding (its bug's shortest completion, where the parser decided, the fix, how
    often it was met, the replay command). It never exceeds ``limit`` characters: what
    does not fit is counted, pointing at ``full_report`` (or the corpus)."""
    n = len(summary.findings)
    head = f"❌ {plural(n, 'finding')}" if n else \
        "✅ no new findings" if summary.known else "✅ no findings"
    if summary.interrupted:
        head += " (interrupted: partial results)"
    meta = " · ".join(f"{k} `{v}`" for k, v in [
        ("seed", summary.seed), ("target", ", ".join(summary.targets)),
        ("format", summary.format), ("dispatcher", summary.dispatcher),
    ]) + f" · {summary.examples} examples in {seconds_text(summary.elapsed)}" \
        + f" · corpus: {summary.replayed} replayed, {summary.reproduced} reproduced" \
        + f" · **{known_line(summary)}**"
    out = [f"## reactfuzz: {head}", "", meta, ""]
    for cov in summary.coverage:
        out += [f"Coverage of `{cov.target}`: {cov.text} (guided phase: {cov.scenarios:,}"
                f" scenarios).", ""]
    header, rows = count_table(summary)
    rows = [[_code(r[0], cell=True) if r[0] != "total" else "**total**", *r[1:]] for r in rows]
    out += _md_table(header, [[c.replace(".", "·") if c == "." else c for c in r]
                              for r in rows])
    out.append("")
    multi = len(targets_found(summary)) > 1
    notes = worst_first(summary.protocol_notes)
    notes_block = [
        "<details>",
        f"<summary>{plural(len(notes), 'protocol note')}: the format cannot carry these "
        "intents; not counted as failures</summary>",
        "",
        *(f"- `{f.failure}` · `{f.abuse}` · `{f.target}`:"
          f" {_code(visible(f.completion, limit=300))}" for f in notes),
        "",
        "</details>",
        "",
    ] if notes else []
    footer = [f"**{counts_line(summary)}** · {exit_meaning(summary)}"]
    pointer = (f"`{full_report}`" if full_report else
               f"the corpus in `{summary.corpus_dir}`" if summary.corpus_dir else
               "the full report (`--json` or `--html`)")
    reserve = 600  # the line that counts what did not fit, and the footer's margin
    used = sum(len(line) + 1 for line in [*out, *footer]) + reserve
    findings = worst_first(summary.findings)
    left_out = 0
    for i, f in enumerate(findings):
        section = _finding_section(summary, f, multi)
        size = sum(len(line) + 1 for line in section)
        if used + size > limit:
            left_out = len(findings) - i
            break
        out += section
        used += size
    if left_out:
        out += [f"**{plural(left_out, 'more finding')} not shown here** (this comment keeps"
                f" under {limit:,} characters): see {_md(pointer)}.", ""]
    notes_size = sum(len(line) + 1 for line in notes_block)
    if notes_block and used + notes_size <= limit:
        out += notes_block
    elif notes_block:
        out += [f"{plural(len(notes), 'protocol note')} not shown here: see {_md(pointer)}.",
                ""]
    out += footer
    text = "\n".join(out) + "\n"
    return text if len(text) <= limit else text[: limit - 40] + "\n\n(cut at the size limit)\n"


def write_markdown(result: RunSummary | StudyResult, path: str | Path) -> Path:
    """Write :func:`render_markdown` (or :func:`render_study_markdown`) to ``path``."""
    text = (render_study_markdown(result) if isinstance(result, StudyResult)
            else render_markdown(result))
    return write_atomic(path, text)



def render_study_markdown(study: StudyResult) -> str:
    """The study as Markdown: its conclusion in words first, then the design × operator
    matrix (rate and 95 % interval; one table per block of at most eight designs), the
    per-design totals, the conclusions by format and a legend."""
    out = [
        "## reactfuzz study: verdict rates by design and abuse operator",
        "",
        "**Conclusion**",
        "",
        *(f"- {line}" for line in study_conclusion(study)),
        "",
        f"seed `{study.seed}` · {study.examples_per_cell} examples per cell · "
        f"{len(study.designs)} designs × {len(study.abuses)} operators · "
        f"{seconds_text(study.elapsed)}",
        "",
    ]
    for n, designs in enumerate(design_blocks(study.designs)):
        rows = []
        for a in by_family(study.abuses):
            row = [_code(a, cell=True)]
            for d in designs:
                c = study.cell(d, a)
                if c is None or c.n == 0:
                    row.append("n/a")
                else:
                    mark = protocol_mark(c)
                    row.append(rate_ci(c.bad(), c.n) + (f" {mark}" if mark else ""))
            if n and all(cell == "n/a" for cell in row[1:]):
                continue
            rows.append(row)
        out += [""] if n else []
        out += _md_table(["abuse", *(_code(d, cell=True) for d in designs)], rows,
                         "l" + "c" * len(designs))
    out += ["", "### Per design, all operators pooled", ""]
    totals = study.design_totals()
    descr = descriptions(study)
    trows = []
    for d in study.designs:
        t = totals.get(d, StudyCell(d, "all"))
        design_bad = max(0, t.bad() - t.protocol)
        trows.append([_code(d, cell=True), _md(descr.get(d, "")), str(t.n), rate_ci(t.bad(), t.n),
                      rate_ci(design_bad, t.n), str(t.protocol), worst_verdicts(t)])
    out += _md_table(["design", "what it is", "examples", "not ok", "design faults",
                      "protocol", "most frequent"], trows, "llrrrrl")
    out += ["", "### Conclusions by format", "",
            "Per format, each design's design faults (non-ok verdicts the protocol does not "
            "explain) and the operators it fails on most.", ""]
    for fmt, verdicts in study_conclusions(study):
        said = []
        for d, rate, where in verdicts:
            worst = " · ".join(f"{_code(a)} {_md(v)}" for a, v in where)
            said.append(f"{_code(d)} {rate}" + (f", most on {worst}" if worst else ", none"))
        out.append(f"- **{_code(fmt)}**: " + "; ".join(said))
    out += ["", "Legend:", "", *(f"- {line}" for line in STUDY_LEGEND)]
    return "\n".join(out) + "\n"
