"""HTML: a self-contained page (inline CSS and SVG, no script, no external resource) for a run
or a study, written by hand with :func:`html.escape`."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..engine.advice import advice_for
from ..engine.corpus import Finding
from ..engine.results import RunSummary, StudyCell, StudyResult, wilson
from ..strategies import ABUSES
from .common import (
    AMBERS,
    DESIGN_COLOR,
    FAMILIES,
    FAULT_LEGEND,
    NA,
    PROTOCOL_COLOR,
    REDS,
    SEV_COLORS,
    SEVERITIES,
    STUDY_LEGEND,
    VERDICT_COLORS,
    VERDICTS,
    ZERO,
    by_family,
    checks_found,
    counts_line,
    dark,
    descriptions,
    design_blocks,
    exit_meaning,
    family_of,
    free_text,
    pct,
    plural,
    protocol_mark,
    rate_ci,
    rate_parts,
    reached_line,
    replay_command,
    seconds_text,
    study_conclusions,
    visible,
    where_line,
    worst_first,
    worst_verdicts,
    write_atomic,
)
from .conclusion import study_conclusion
from .svg import Bar, Row, bar_chart, ramp_color

__all__ = ["render_html", "write_html"]

# --------------------------------------------------------------------------------------
# HTML.

_CSS = """
body{margin:0;background:#fff;color:#1b1b1b;font:14px/1.45 system-ui,-apple-system,
 "Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:1140px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:24px;margin:0 0 6px}h2{font-size:19px;margin:34px 0 10px;
 border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:16px;margin:22px 0 8px}
code,pre,.mono{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
pre{background:#f6f8fa;border:1px solid #e1e4e8;border-radius:4px;padding:8px 10px;
 white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0}
.meta{color:#444;margin:4px 0 0}.meta span{margin-right:14px;white-space:nowrap}
.chart{margin:16px 0;overflow-x:auto}.chart svg{max-width:100%;height:auto}
table{border-collapse:collapse;margin:8px 0}
th,td{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top;text-align:left}
th{background:#f6f8fa}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.comp{max-width:420px;overflow-wrap:anywhere}
.sev{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;font-weight:600}
details{border:1px solid #d0d7de;border-radius:4px;margin:8px 0;padding:6px 10px}
details summary{cursor:pointer}
dl.kv{display:grid;grid-template-columns:110px minmax(0,1fr);gap:3px 10px;margin:8px 0}
dl.kv dt{color:#555;padding-top:1px}dl.kv dd{margin:0;overflow-wrap:anywhere}
dl.kv dd pre{margin:0}pre.code{white-space:pre;overflow-x:auto}
dl.kv dd.fix{background:#eef6ee;border-left:3px solid #3b873b;padding:2px 8px}
.badge{display:inline-block;padding:1px 10px;border-radius:4px;color:#fff;font-size:20px;
 vertical-align:2px;margin-right:6px}.badge.fail{background:#b31d28}
.badge.pass{background:#22863a}.badge.stop{background:#b08800}
.note{color:#555;font-size:13px}
table.matrix{table-layout:fixed;width:100%}
table.matrix th.op{width:270px;font-weight:normal;background:#fff}
table.matrix th.op code{font-weight:600}
table.matrix th.op .d{display:block;color:#666;font-size:11.5px;line-height:1.3}
table.matrix th.design{text-align:center;font-size:13px;vertical-align:bottom}
table.matrix th.design .d{display:block;font-weight:normal;color:#666;font-size:11px;
 line-height:1.25}
table.matrix tr.fam th{background:#e9edf1;text-align:left;font-size:13px}
table.matrix tr.fam th .d{font-weight:normal;color:#555;margin-left:8px}
table.matrix td.cell{text-align:center;padding:5px 4px;font-family:"DejaVu Sans Mono",
 Menlo,Consolas,monospace;line-height:1.25}
td.cell .r{font-size:14px;font-weight:700}td.cell .ci{font-size:11.5px}
td.cell .m{font-size:11px}
td.na{color:#888;background:#f0f0f0;font-style:italic}
.legend{display:flex;flex-wrap:wrap;gap:6px 22px;align-items:center;margin:8px 0;
 font-size:13px}
.sw{display:inline-block;width:26px;height:14px;border:1px solid #999;
 vertical-align:middle;margin-right:6px}
th .sw{width:12px;height:12px;margin-right:4px}
footer{margin-top:40px;color:#777;font-size:12px}
.conclusion{background:#f6f8fa;border:1px solid #d0d7de;border-left:5px solid #1b1b1b;
 border-radius:4px;padding:4px 16px;margin:14px 0 6px}
.conclusion h2{border:0;margin:8px 0 2px;padding:0;font-size:17px}
.conclusion p{margin:6px 0;font-size:14.5px}
.faults{border:1px solid #d0d7de;border-radius:4px;padding:4px 10px}
.faults b{white-space:nowrap}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _ticks(escaped: str) -> str:
    """Markdown-style `code` in already escaped text as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)


def _page(title: str, body: list[str], generated: str | None) -> str:
    foot = "reactfuzz report" + (f" · generated {_e(generated)}" if generated else "")
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body><main>",
        *body,
        f"<footer>{foot}</footer>",
        "</main></body>",
        "</html>",
        "",
    ])


def _deciding(f: Finding) -> str:
    """``file:line`` where the parser decided on a finding ("" when unknown)."""
    site = f.origin.deciding() if f.origin is not None else None
    return f"{site.file}:{site.line}" if site is not None else ""


def _sev_pill(sev: str) -> str:
    bg = SEV_COLORS.get(sev, "#d9d9d9")
    fg = "#fff" if dark(bg) else "#111"
    return f'<span class="sev" style="background:{bg};color:{fg}">{_e(sev)}</span>'


def _fault_legend() -> str:
    """The one colour rule, as every HTML report states it: design fault, protocol fault, ok."""
    return ('<div class="legend faults">' + "".join(
        f'<span><span class="sw" style="background:{color}"></span><b>{_e(name)}</b>: '
        f"{_e(meaning)}</span>" for name, color, meaning in FAULT_LEGEND) + "</div>")


def _sw(color: str) -> str:
    """A colour swatch (for a table header naming a verdict cause)."""
    return f'<span class="sw" style="background:{color}"></span>'


def _meta(pairs: Sequence[tuple[str, Any]]) -> str:
    # The spaces between spans are where the line may break.
    return '<p class="meta">' + " ".join(
        f"<span>{_e(k)} <b>{_e(v)}</b></span>" for k, v in pairs) + "</p>"


def _run_html(summary: RunSummary) -> tuple[str, list[str]]:
    n = len(summary.findings)
    # Not emoji: a machine without an emoji font would draw boxes.
    badge = (f'<span class="badge fail">✗ {plural(n, "finding")}</span>' if n
             else '<span class="badge pass">✓ no findings</span>')
    if summary.interrupted:
        badge += '<span class="badge stop">interrupted</span>'
    title = f"reactfuzz run: {plural(n, 'finding') if n else 'no findings'}"
    body = [f"<h1>{badge} reactfuzz run</h1>", _meta([
        ("seed", summary.seed), ("targets" if len(summary.targets) > 1 else "target",
                                 ", ".join(summary.targets)),
        ("format", summary.format), ("dispatcher", summary.dispatcher),
        ("tools", summary.tools), ("examples", summary.examples),
        ("elapsed", seconds_text(summary.elapsed)), ("replayed", summary.replayed),
        ("reproduced", summary.reproduced),
    ])]
    if summary.interrupted:
        body.append('<p class="note"><b>Interrupted:</b> the results are partial.</p>')
    body.append(f'<p class="meta">{_e(counts_line(summary))} · {_e(exit_meaning(summary))}'
                "</p>")

    # Findings by check, stacked by severity.
    body.append("<h2>Where the findings are</h2>")
    body.append(_fault_legend())
    checks = checks_found(summary)
    notes_by_check = {c: sum(f.check == c for f in summary.protocol_notes) for c in checks}
    if summary.findings or summary.protocol_notes:
        rows = []
        for c in checks:
            fs = [f for f in summary.findings if f.check == c]
            segs = [(f"{s} (design fault)", float(sum(f.severity == s for f in fs)))
                    for s in SEVERITIES]
            segs.append(("protocol note", float(notes_by_check[c])))
            note = plural(len(fs), "finding") + (
                f" + {notes_by_check[c]} protocol" if notes_by_check[c] else "")
            rows.append(Row(c, [Bar(segs, note=note)]))
        sevs = [s for s in SEVERITIES if any(f.severity == s for f in summary.findings)]
        series = [(f"{s} (design fault)", SEV_COLORS[s]) for s in sevs]
        if summary.protocol_notes:
            series.append(("protocol note", PROTOCOL_COLOR))
        body.append('<div class="chart">' + bar_chart(
            title="Findings by check", subtitle="distinct findings (shrunk and deduplicated): "
            "design faults in reds by severity, protocol notes in amber", ylabel="check",
            xlabel="distinct findings", rows=rows, integer=True, series=series) + "</div>")
    else:
        body.append('<p class="note">No findings: every check held on every example.</p>')

    # Failing examples per operator, stacked by check, grouped by family.
    if summary.operators:
        multi = len({o.target for o in summary.operators}) > 1
        order = {a: i for i, a in enumerate(
            by_family([*summary.abuses, *(o.abuse for o in summary.operators)]))}
        ops = sorted(summary.operators, key=lambda o: (order[o.abuse], o.target))
        rows = []
        fam = None
        for o in ops:
            if family_of(o.abuse) != fam:
                fam = family_of(o.abuse)
                rows.append(Row(fam, header=True))
            label = f"{o.target}: {o.abuse}" if multi else o.abuse
            if o.skipped:
                rows.append(Row(label, note=f"skipped: {o.skipped}"))
                continue
            segs = [("design fault", float(o.distinct_count("design"))),
                    ("protocol fault", float(o.distinct_count("protocol")))]
            rows.append(Row(label, [Bar(segs, note=f"{o.distinct_count()} distinct"
                                          f" / {o.generated or o.examples} examples")]))
        body.append('<div class="chart">' + bar_chart(
            title="Distinct failures per abuse operator",
            subtitle="distinct failures (check, verdict, cause, root cause) the search drew, "
            "shrink steps not counted. Right: distinct failures / examples searched",
            ylabel="abuse operator", xlabel="distinct failures", rows=rows, integer=True,
            series=[("design fault", DESIGN_COLOR), ("protocol fault", PROTOCOL_COLOR)])
            + "</div>")
    else:
        body.append('<p class="note">No per-operator statistics in this run.</p>')

    # Findings table and details.
    findings = worst_first(summary.findings)
    if findings:
        body.append("<h2>Findings</h2>")
        body.append("<table><tr><th>#</th><th>severity</th><th>verdict</th><th>check</th>"
                    "<th>abuse</th><th>target</th><th>where</th><th>examples</th>"
                    "<th>shortest completion</th></tr>")
        for i, f in enumerate(findings, 1):
            body.append(
                f'<tr><td class="num"><a href="#f-{f.id}">{i}</a></td>'
                f"<td>{_sev_pill(f.severity)}</td><td><code>{_e(f.failure)}</code></td>"
                f"<td><code>{_e(f.check)}</code></td><td><code>{_e(f.abuse)}</code></td>"
                f"<td><code>{_e(f.target)}</code></td>"
                f"<td><code>{_e(_deciding(f))}</code></td>"
                f'<td class="num">{f.count}</td>'
                f'<td class="comp"><code>{_e(visible(f.completion, limit=90))}</code></td></tr>')
        body.append("</table>")
        body.append("<h2>Details</h2>")
        opened = " open" if len(findings) <= 10 else ""
        for i, f in enumerate(findings, 1):
            body += [
                f'<details id="f-{f.id}"{opened}><summary><b>{i}.</b> {_sev_pill(f.severity)} '
                f"<code>{_e(f.failure)}</code> · <code>{_e(f.check)}</code> · "
                f"<code>{_e(f.abuse)}</code> · <code>{_e(f.target)}</code></summary>",
                '<dl class="kv">',
                f"<dt>completion</dt><dd><pre>{_e(visible(f.completion))}</pre></dd>",
                *([f"<dt>where</dt><dd><code>{_e(where_line(f))}</code></dd>"]
                  if where_line(f) else []),
                f"<dt>expected</dt><dd><code>{_e(free_text(f.expected))}</code></dd>",
                f"<dt>observed</dt><dd><code>{_e(free_text(f.observed))}</code></dd>",
                f"<dt>why</dt><dd>{_e(free_text(f.explanation))}</dd>",
                f'<dt>fix</dt><dd class="fix">{_ticks(_e(advice_for(f)))}</dd>',
                f"<dt>reached</dt><dd>{_e(reached_line(f))}</dd>",
                *(f"<dt>another</dt><dd><pre>{_e(visible(e, limit=400))}</pre></dd>"
                  for e in f.examples[:2]),
                f'<dt>replay</dt><dd><pre class="code">{_e(replay_command(summary, f))}</pre></dd>',
                f'<dt>reproduce</dt><dd><pre class="code">{_e(f.reproduction())}</pre></dd>',
                "</dl></details>",
            ]
    notes = worst_first(summary.protocol_notes)
    if notes:
        body.append(f"<h2>{_e(plural(len(notes), 'protocol note'))}</h2>")
        body.append('<p class="note">The format cannot carry these intents: the design did '
                    "what the text says. Not counted as failures.</p>")
        body.append("<table><tr><th>cause</th><th>verdict</th><th>abuse</th><th>target</th>"
                    "<th>completion</th><th>explanation</th></tr>")
        pill = (f'<span class="sev" style="background:{PROTOCOL_COLOR};color:'
                f'{"#fff" if dark(PROTOCOL_COLOR) else "#111"}">protocol</span>')
        for f in notes:
            body.append(f"<tr><td>{pill}</td>"
                        f"<td><code>{_e(f.failure)}</code></td><td><code>{_e(f.abuse)}"
                        f"</code></td><td><code>{_e(f.target)}</code></td>"
                        f'<td class="comp"><code>{_e(visible(f.completion, limit=90))}</code>'
                        f"</td><td>{_e(free_text(f.explanation))}</td></tr>")
        body.append("</table>")
    return title, body


def _cell_style(c: StudyCell) -> tuple[str, str]:
    """Background and text colour of a matrix cell."""
    if c.bad() == 0:
        bg = ZERO
    elif c.design_faults():
        bg = ramp_color(REDS, c.design_faults() / c.n)  # the protocol's share never reads red
    else:
        bg = ramp_color(AMBERS, c.protocol / c.n)
    return bg, "#fff" if dark(bg) else "#111"


def _matrix_legend() -> str:
    def ramp(stops: Sequence[tuple[float, str]]) -> str:
        grads = "".join(f'<stop offset="{x:.2f}" stop-color="{c}"/>' for x, c in stops)
        gid = "g" + stops[-1][1].lstrip("#")
        return (f'<svg width="150" height="28" viewBox="0 0 150 28" role="img">'
                f'<defs><linearGradient id="{gid}">{grads}</linearGradient></defs>'
                f'<rect x="1" y="1" width="148" height="12" fill="url(#{gid})" stroke="#999"/>'
                f'<text x="1" y="26" font-size="10" fill="#444">0%</text>'
                f'<text x="149" y="26" font-size="10" text-anchor="end" fill="#444">100%</text>'
                "</svg>")

    return ('<div class="legend">'
            f"<span>{ramp(REDS)} design-fault rate (protocol excluded)</span>"
            f"<span>{ramp(AMBERS)} † protocol-fault rate: every non-ok verdict caused by "
            "the protocol</span>"
            f'<span><span class="sw" style="background:{ZERO}"></span>0%: all ok</span>'
            f'<span><span class="sw" style="background:{NA}"></span>n/a: does not apply'
            "</span><span>‡ some non-ok verdicts caused by the protocol (the colour counts only "
            "the design's)</span></div>")


def _matrix_block(study: StudyResult, designs: list[str], descr: dict[str, str], *,
                  skip_na: bool) -> list[str]:
    """One table of the matrix: every operator's row for a block of designs (``skip_na``:
    leave out an operator that applies to none of them)."""
    body = ['<table class="matrix"><tr><th class="op">abuse operator</th>' + "".join(
        f'<th class="design"><code>{_e(d)}</code><span class="d">{_e(descr.get(d, ""))}'
        "</span></th>" for d in designs) + "</tr>"]
    fam = None
    for a in by_family(study.abuses):
        if skip_na and all((c := study.cell(d, a)) is None or c.n == 0 for d in designs):
            continue
        if family_of(a) != fam:
            fam = family_of(a)
            body.append(f'<tr class="fam"><th colspan="{len(designs) + 1}">{_e(fam)}'
                        f'<span class="d">{_e(FAMILIES.get(fam, ""))}</span></th></tr>')
        ab = ABUSES.get(a)
        cells = []
        for d in designs:
            c = study.cell(d, a)
            if c is None or c.n == 0:
                cells.append('<td class="cell na" title="the operator does not apply">n/a</td>')
                continue
            bg, fg = _cell_style(c)
            rate, ci = rate_parts(c.bad(), c.n)
            counts = ", ".join(f"{k} {v}" for k, v in sorted(
                c.counts.items(), key=lambda kv: (-kv[1], kv[0])) if v)
            tip = f"{d} × {a}: n={c.n}; {counts}"
            if c.protocol:
                tip += f"; {c.protocol} caused by the protocol"
            if c.example:
                tip += f"\nexample: {visible(c.example, limit=200)}"
            mark = protocol_mark(c)
            said = "† protocol" if mark == "†" else f"‡ {c.protocol} protocol"
            mark_html = f'<div class="m">{said}</div>' if mark else ""
            cells.append(f'<td class="cell" style="background:{bg};color:{fg}" title="{_e(tip)}">'
                         f'<div class="r">{_e(rate)}</div>'
                         f'<div class="ci">{_e(ci)}</div>{mark_html}</td>')
        desc = f'<span class="d">{_ticks(_e(ab.description))}</span>' if ab else ""
        body.append(f'<tr><th class="op"><code>{_e(a)}</code>{desc}</th>{"".join(cells)}</tr>')
    body.append("</table>")
    return body


def _study_html(study: StudyResult) -> tuple[str, list[str]]:
    title = "reactfuzz study: verdict rates by design and abuse operator"
    descr = descriptions(study)
    body = [f"<h1>{_e(title)}</h1>", _meta([
        ("seed", study.seed), ("examples per cell", study.examples_per_cell),
        ("designs", len(study.designs)), ("operators", len(study.abuses)),
        ("elapsed", seconds_text(study.elapsed)),
    ])]
    body.append('<section class="conclusion"><h2>Conclusion</h2>' + "".join(
        f"<p>{_ticks(_e(line))}</p>" for line in study_conclusion(study)) + "</section>")
    body.append(_fault_legend())
    body.append("<h2>Non-ok rate by design and operator</h2>")
    body.append('<p class="note">Each cell: the share of examples whose verdict is not '
                "<code>ok</code>, and its 95 % Wilson interval (percent). Hover a cell for the "
                "verdict counts and an example.</p>")
    body.append(_matrix_legend())
    for n, designs in enumerate(design_blocks(study.designs)):
        body.extend(_matrix_block(study, designs, descr, skip_na=n > 0))

    totals = study.design_totals()
    body.append("<h2>Per design, all operators pooled</h2>")
    rows = []
    for d in study.designs:
        t = totals.get(d, StudyCell(d, "all"))
        design_bad = t.design_faults()
        dlo, dhi = wilson(design_bad, t.n)
        def share(k: int, n: int = t.n) -> float:
            return k / n if n else 0.0

        rows.append(Row(d, [
            Bar([("design fault", share(design_bad)), ("protocol fault", share(t.protocol))],
                 dlo, dhi, note=f"design {rate_ci(design_bad, t.n)}"
                 + (f" + protocol {pct(share(t.protocol))}" if t.protocol else "")),
        ]))
    body.append('<div class="chart">' + bar_chart(
        title="Non-ok rate per design", subtitle="all operators pooled, design faults then "
        "protocol faults; whisker: 95 % Wilson interval of the design-fault rate (pooled "
        "examples treated as one sample)", ylabel="design",
        xlabel="share of examples", rows=rows, percent=True,
        series=[("design fault", DESIGN_COLOR), ("protocol fault", PROTOCOL_COLOR)],
        whisker_label="95 % interval, design faults") + "</div>")

    kinds = list(VERDICTS) + sorted({k for t in totals.values() for k in t.counts}
                                     - set(VERDICTS))

    def by_design(t: StudyCell, k: str) -> int:
        """Verdicts of kind ``k`` the design caused (the protocol's are drawn apart)."""
        return t.counts.get(k, 0) - (0 if k == "ok" else t.protocol_counts.get(k, 0))

    present = [k for k in kinds if any(by_design(t, k) for t in totals.values())]
    protocol = any(t.protocol for t in totals.values())
    vrows = []
    for d in study.designs:
        t = totals.get(d, StudyCell(d, "all"))
        segs = [(k if k == "ok" else f"{k} (design)", by_design(t, k) / t.n if t.n else 0.0)
                for k in present]
        segs.append(("protocol fault (any verdict)", t.protocol / t.n if t.n else 0.0))
        vrows.append(Row(d, [Bar(segs, note=f"n={t.n}")]))
    series = [(k if k == "ok" else f"{k} (design)", VERDICT_COLORS.get(k, DESIGN_COLOR))
              for k in present]
    if protocol:
        series.append(("protocol fault (any verdict)", PROTOCOL_COLOR))
    body.append('<div class="chart">' + bar_chart(
        title="Verdicts per design", subtitle="share of each verdict, all operators pooled: "
        "ok in green, design-caused verdicts in reds (by severity), every protocol-caused "
        "verdict in amber", ylabel="design", xlabel="share of examples",
        rows=vrows, percent=True, xmax=1.0, inside_labels=True, series=series) + "</div>")

    body.append("<h3>Totals</h3>")
    body.append("<table><tr><th>design</th><th>what it is</th><th>examples</th>"
                f"<th>not ok</th><th>{_sw(DESIGN_COLOR)}design faults</th>"
                f"<th>{_sw(PROTOCOL_COLOR)}protocol</th><th>most frequent</th></tr>")
    for d in study.designs:
        t = totals.get(d, StudyCell(d, "all"))
        design_bad = t.design_faults()
        body.append(f"<tr><td><code>{_e(d)}</code></td><td>{_e(descr.get(d, ''))}</td>"
                    f'<td class="num">{t.n}</td><td class="num">{_e(rate_ci(t.bad(), t.n))}'
                    f'</td><td class="num">{_e(rate_ci(design_bad, t.n))}</td>'
                    f'<td class="num">{t.protocol}</td><td>{_e(worst_verdicts(t))}</td></tr>')
    body.append("</table>")
    body.append("<h2>Conclusions by format</h2>")
    body.append('<p class="note">Per format, each design\'s design faults (non-ok verdicts the '
                "protocol does not explain) and the operators it fails on most.</p>")
    body.append(f"<table><tr><th>format</th><th>design</th><th>{_sw(DESIGN_COLOR)}design "
                "faults</th><th>fails most on</th></tr>")
    for fmt, verdicts in study_conclusions(study):
        for i, (d, rate, where) in enumerate(verdicts):
            head = (f'<td rowspan="{len(verdicts)}"><code>{_e(fmt)}</code></td>' if i == 0
                    else "")
            worst = "<br>".join(f"<code>{_e(a)}</code> {_e(v)}" for a, v in where) or "none"
            body.append(f"<tr>{head}<td><code>{_e(d)}</code></td>"
                        f'<td class="num">{_e(rate)}</td><td>{worst}</td></tr>')
    body.append("</table>")
    body.append('<ul class="note">' + "".join(
        f"<li>{_e(line.replace('`', '').replace('**', ''))}</li>" for line in STUDY_LEGEND)
        + "</ul>")
    return title, body


def render_html(result: RunSummary | StudyResult, *, generated: str | None = None) -> str:
    """A self-contained HTML page (inline CSS and SVG, no script, no external resource) for a
    run or a study; ``generated`` (e.g. a timestamp) is printed in the footer if given."""
    if isinstance(result, StudyResult):
        title, body = _study_html(result)
    elif isinstance(result, RunSummary):
        title, body = _run_html(result)
    else:
        raise TypeError(f"render_html takes a RunSummary or a StudyResult, not "
                        f"{type(result).__name__}")
    return _page(title, body, generated)


def write_html(result: RunSummary | StudyResult, path: str | Path, *,
               generated: str | None = None) -> Path:
    """Write :func:`render_html` to ``path``."""
    return write_atomic(path, render_html(result, generated=generated))
