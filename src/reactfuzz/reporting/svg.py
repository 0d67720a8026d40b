"""SVG charts written by hand: horizontal bar charts, stacked and grouped, with whiskers.

Inline SVG needs no dependency, no script and no network to be read.
"""

from __future__ import annotations

import html
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from .common import dark, hex_rgb, pct

__all__ = []

# --------------------------------------------------------------------------------------
# SVG charts.

_MONO = "DejaVu Sans Mono, Menlo, Consolas, ui-monospace, monospace"
_CW = 7.3  # advance of a 12 px monospace character (0.602 em), rounded up

def ramp_color(stops: Sequence[tuple[float, str]], x: float) -> str:
    x = min(1.0, max(0.0, x))
    for (x0, c0), (x1, c1) in itertools.pairwise(stops):
        if x <= x1:
            t = (x - x0) / (x1 - x0) if x1 > x0 else 0.0
            rgb = [round(a + (b - a) * t) for a, b in zip(hex_rgb(c0), hex_rgb(c1))]
            return "#{:02x}{:02x}{:02x}".format(*rgb)
    return stops[-1][1]


@dataclass
class Bar:
    segments: list[tuple[str, float]]  # (series, value), stacked left to right
    low: float | None = None  # whisker
    high: float | None = None
    note: str = ""  # written right of the plot


@dataclass
class Row:
    label: str
    bars: list[Bar] = field(default_factory=list)
    note: str = ""  # written right of the plot when there are no bars (e.g. skipped)
    header: bool = False  # a group heading, no bars


def _nice_step(xmax: float, ticks: int = 6) -> float:
    raw = xmax / ticks
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def _t(x: float, y: float, text: str, *, size: int = 12, anchor: str = "start",
       weight: str = "normal", fill: str = "#222", extra: str = "", tip: str = "") -> str:
    title = f"<title>{html.escape(tip)}</title>" if tip and tip != text else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}"{extra}>{title}{html.escape(text)}</text>')


def _cut(text: str, n: int, *, middle: bool = False) -> str:
    """At most ``n`` characters; ``middle`` keeps the end (``target: abuse``: the abuse)."""
    if len(text) <= n:
        return text
    if middle:
        tail = (n - 1) * 2 // 3
        return text[: n - 1 - tail] + "…" + text[len(text) - tail:]
    return text[: max(1, n - 1)] + "…"


def _legend(items: Sequence[tuple[str, str]], x0: float, y0: float, width: float,
            kind: str = "box") -> tuple[list[str], float]:
    """Swatches and names left to right, wrapping at ``width``; returns (svg, bottom)."""
    out, x, y = [], x0, y0
    for name, color in items:
        w = 18 + len(name) * _CW + 18
        if x > x0 and x + w > x0 + width:
            x, y = x0, y + 20
        if kind == "whisker":
            out.append(f'<line x1="{x:.1f}" y1="{y + 6}" x2="{x + 12:.1f}" y2="{y + 6}" '
                       f'stroke="{color}" stroke-width="1.5"/>'
                       f'<line x1="{x:.1f}" y1="{y + 1}" x2="{x:.1f}" y2="{y + 11}" '
                       f'stroke="{color}" stroke-width="1.5"/>'
                       f'<line x1="{x + 12:.1f}" y1="{y + 1}" x2="{x + 12:.1f}" y2="{y + 11}" '
                       f'stroke="{color}" stroke-width="1.5"/>')
        else:
            out.append(f'<rect x="{x:.1f}" y="{y}" width="12" height="12" fill="{color}" '
                       'stroke="#555" stroke-width="0.5"/>')
        out.append(_t(x + 18, y + 10.5, name))
        x += w
    return out, y + 14


def bar_chart(
    *,
    title: str,
    subtitle: str = "",
    ylabel: str,
    xlabel: str,
    rows: list[Row],
    series: Sequence[tuple[str, str]],
    whisker_label: str = "",
    xmax: float | None = None,
    percent: bool = False,
    inside_labels: bool = False,
    integer: bool = False,
    width: int = 1100,
) -> str:
    """A horizontal bar chart: one row per label, one or more bars per row (grouped), each
    bar stacked from segments; optional whiskers and right-hand notes."""
    pad, bar_h, bar_gap, row_pad = 14, 16, 3, 6
    colors = dict(series)
    # Long labels and notes are cut (full text in a tooltip) so the plot keeps its room.
    max_label, max_note = int(width * 0.38 / _CW), int(340 / _CW)
    label_w = min(max([len(r.label) for r in rows] + [8]), max_label) * _CW + 12
    notes = [b.note for r in rows for b in r.bars] + [r.note for r in rows]
    note_w = min(max([len(n) for n in notes] + [0]), max_note) * _CW + 14
    left = pad + 22 + label_w
    right = width - pad - note_w
    plot_w = right - left

    out: list[str] = []
    y: float = pad + 16
    out.append(_t(pad, y, title, size=16, weight="bold", extra=' font-family="sans-serif"'))
    if subtitle:
        y += 20
        out.append(_t(pad, y, subtitle, size=12, fill="#555",
                      extra=' font-family="sans-serif"'))
    items = list(series)
    leg, y = _legend(items, pad, y + 14, width - 2 * pad)
    out += leg
    if whisker_label:
        leg, y = _legend([(whisker_label, "#222")], pad, y + 6, width - 2 * pad, "whisker")
        out += leg
    top = y + 14

    if xmax is None:
        xmax = max([sum(v for _, v in b.segments) for r in rows for b in r.bars]
                   + [b.high or 0 for r in rows for b in r.bars] + [0])
        xmax = xmax or (0.1 if percent else 1.0)
    step = _nice_step(xmax)
    if integer:
        step = max(1.0, float(round(step)))
    xmax = math.ceil(xmax / step - 1e-9) * step
    if percent:
        xmax = min(xmax, 1.0)

    def sx(v: float) -> float:
        return left + plot_w * (v / xmax if xmax else 0)

    # Rows: backgrounds first, then the grid, then bars and text (else stripes hide the grid).
    back: list[str] = []
    body: list[str] = []
    yy = top
    zebra = False
    for r in rows:
        if r.header:
            h = 22
            body.append(f'<line x1="{pad + 22}" y1="{yy + 0.5:.1f}" x2="{right:.1f}" '
                        f'y2="{yy + 0.5:.1f}" stroke="#999" stroke-width="0.8"/>')
            body.append(_t(pad + 22, yy + 15, r.label, weight="bold",
                           extra=' font-family="sans-serif"'))
            yy += h
            zebra = False
            continue
        nb = max(1, len(r.bars))
        h = nb * bar_h + (nb - 1) * bar_gap + 2 * row_pad
        if zebra:
            back.append(f'<rect x="{pad + 22}" y="{yy:.1f}" width="{right - pad - 22:.1f}" '
                        f'height="{h}" fill="#f4f4f4"/>')
        zebra = not zebra
        label = _cut(r.label, max_label, middle=True)
        body.append(_t(left - 8, yy + h / 2 + 4, label, anchor="end", tip=r.label))
        for i, b in enumerate(r.bars):
            by = yy + row_pad + i * (bar_h + bar_gap)
            x = 0.0
            for name, v in b.segments:
                if v <= 0:
                    continue
                x0, x1 = sx(x), sx(x + v)
                color = colors.get(name, "#969696")
                tip = f"{r.label} · {name}: {pct(v) if percent else _num(v)}"
                body.append(f'<rect x="{x0:.1f}" y="{by:.1f}" width="{max(x1 - x0, 0.8):.1f}" '
                            f'height="{bar_h}" fill="{color}" stroke="#fff" stroke-width="0.5">'
                            f"<title>{html.escape(tip)}</title></rect>")
                if inside_labels:
                    txt = pct(v) if percent else _num(v)
                    if x1 - x0 >= len(txt) * _CW + 6:
                        body.append(_t((x0 + x1) / 2, by + bar_h - 4, txt, size=11,
                                       anchor="middle",
                                       fill="#fff" if dark(color) else "#111"))
                x += v
            if b.low is not None and b.high is not None and sx(b.high) - sx(b.low) >= 2:
                cy = by + bar_h / 2
                x0, x1 = sx(b.low), sx(b.high)
                caps = (x0, x1) if x1 - x0 >= 10 else (x1,)  # close caps read as an "H"
                body.append(f'<g stroke="#222" stroke-width="1.4"><line x1="{x0:.1f}" '
                            f'y1="{cy:.1f}" x2="{x1:.1f}" y2="{cy:.1f}"/>' + "".join(
                                f'<line x1="{x:.1f}" y1="{cy - 5:.1f}" x2="{x:.1f}" '
                                f'y2="{cy + 5:.1f}"/>' for x in caps) + "</g>")
            if b.note:
                body.append(_t(right + 8, by + bar_h - 4, _cut(b.note, max_note), size=12,
                               fill="#333", tip=b.note))
        if r.note:
            body.append(_t(right + 8, yy + h / 2 + 4, _cut(r.note, max_note), fill="#777",
                           extra=' font-style="italic"', tip=r.note))
        yy += h
    bottom = yy

    # Grid and axis (drawn under the bars: inserted before them).
    grid: list[str] = []
    v = 0.0
    while v <= xmax + 1e-9:
        gx = sx(v)
        grid.append(f'<line x1="{gx:.1f}" y1="{top}" x2="{gx:.1f}" y2="{bottom:.1f}" '
                    f'stroke="{"#888" if v == 0 else "#ddd"}" stroke-width="1"/>')
        grid.append(_t(gx, bottom + 16, pct(v) if percent else _num(v), size=11,
                       anchor="middle", fill="#444"))
        v += step
    grid.append(f'<line x1="{left}" y1="{bottom:.1f}" x2="{right:.1f}" y2="{bottom:.1f}" '
                'stroke="#888"/>')
    out += back + grid + body
    out.append(_t(left + plot_w / 2, bottom + 36, xlabel, anchor="middle",
                  extra=' font-family="sans-serif"'))
    cy = (top + bottom) / 2
    out.append(_t(pad + 10, cy, ylabel, anchor="middle",
                  extra=f' font-family="sans-serif" transform="rotate(-90 {pad + 10} {cy:.1f})"'))
    height = bottom + 50
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {width} '
            f'{height:.0f}" width="{width}" height="{height:.0f}" '
            f'font-family="{_MONO}" aria-label="{html.escape(title)}">'
            f"<title>{html.escape(title)}</title>" + "".join(out) + "</svg>")


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"
