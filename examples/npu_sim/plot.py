#!/usr/bin/python3
"""Cycles against energy per design of a sweep (sweep.py's rows), as SVG: a panel per model,
both axes logarithmic, a mark per design (its colour the array, its shape the dataflow, its
size the memories), and the designs no other beats on both (the Pareto front) joined by a line.

usage: plot.py sweep.csv sweep.svg   (to redraw a sweep's CSV)
"""
import csv
import math
import sys
from html import escape

PANEL_W, PANEL_H, MARGIN = 430, 330, 60
COLOURS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02"]
SHAPES = {"ws": "circle", "os": "square", "is": "triangle"}


def ticks(low, high):
    """Ticks covering [low, high] on a log axis: 1-2-5 per decade, or every digit on a narrow
    axis, or else round steps."""
    for mantissas, enough in (((1, 2, 5), 2), (range(1, 10), 3)):
        out = [m * 10.0 ** e for e in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
               for m in mantissas if low <= m * 10.0 ** e <= high]
        if len(out) >= enough:
            return out
    raw = (high - low) / 5
    step = min(m * 10.0 ** math.floor(math.log10(raw)) for m in (1, 2, 5, 10)
               if m * 10.0 ** math.floor(math.log10(raw)) >= raw)
    return [i * step for i in range(math.ceil(low / step), math.floor(high / step) + 1)]


def short(value):
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:g}{unit}"
    return f"{value:g}"


def mark(shape, x, y, r, colour, title):
    tip = f"<title>{escape(title)}</title>"
    if shape == "square":
        return (f'<rect class="design" x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r:.1f}" '
                f'height="{2 * r:.1f}" fill="{colour}">{tip}</rect>')
    if shape == "triangle":
        points = f"{x:.1f},{y - r * 1.2:.1f} {x - r * 1.1:.1f},{y + r:.1f} {x + r * 1.1:.1f},{y + r:.1f}"
        return f'<polygon class="design" points="{points}" fill="{colour}">{tip}</polygon>'
    return f'<circle class="design" cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{colour}">{tip}</circle>'


def front(rows):
    """The designs no other has both fewer cycles and less energy than, by cycles."""
    best, out = math.inf, []
    for r in sorted(rows, key=lambda r: (r["cycles"], r["energy"])):
        if r["energy"] < best:
            best = r["energy"]
            out.append(r)
    return out


def panel(model, rows, left, arrays, memories):
    xs, ys = [r["cycles"] for r in rows], [r["energy"] for r in rows]
    x0, x1 = min(xs) / 1.15, max(xs) * 1.15
    y0, y1 = min(ys) / 1.15, max(ys) * 1.15
    sx = lambda v: left + MARGIN + (math.log(v / x0) / math.log(x1 / x0)) * (PANEL_W - MARGIN - 10)
    sy = lambda v: 30 + (1 - math.log(v / y0) / math.log(y1 / y0)) * (PANEL_H - 30 - MARGIN)
    bottom = PANEL_H - MARGIN
    out = [f'<g class="panel"><text x="{left + PANEL_W / 2:.0f}" y="18" text-anchor="middle" '
           f'font-weight="bold">{escape(model)}</text>',
           f'<rect x="{left + MARGIN}" y="30" width="{PANEL_W - MARGIN - 10}" '
           f'height="{bottom - 30}" fill="none" stroke="#888"/>']
    for t in ticks(x0, x1):
        out.append(f'<line x1="{sx(t):.1f}" y1="30" x2="{sx(t):.1f}" y2="{bottom}" stroke="#eee"/>'
                   f'<text x="{sx(t):.1f}" y="{bottom + 14}" text-anchor="middle">{short(t)}</text>')
    for t in ticks(y0, y1):
        out.append(f'<line x1="{left + MARGIN}" y1="{sy(t):.1f}" x2="{left + PANEL_W - 10}" '
                   f'y2="{sy(t):.1f}" stroke="#eee"/><text x="{left + MARGIN - 4}" '
                   f'y="{sy(t) + 4:.1f}" text-anchor="end">{short(t)}</text>')
    out.append(f'<text x="{left + MARGIN + (PANEL_W - MARGIN) / 2:.0f}" y="{bottom + 32}" '
               f'text-anchor="middle">cycles</text><text transform="translate({left + 14},'
               f'{(30 + bottom) / 2:.0f}) rotate(-90)" text-anchor="middle">energy (mJ)</text>')
    line = " ".join(f"{sx(r['cycles']):.1f},{sy(r['energy']):.1f}" for r in front(rows))
    out.append(f'<polyline class="front" points="{line}" fill="none" stroke="#555" '
               f'stroke-dasharray="4 3"/>')
    for r in rows:
        colour = COLOURS[arrays.index(r["rows"]) % len(COLOURS)]
        size = 3 + 2 * memories.index(r["memory_kb"])
        title = (f"{model}: {r['rows']}x{r['cols']} {r['dataflow']} {r['memory_kb']} KiB: "
                 f"{r['cycles']} cycles, {r['energy']:.3f} mJ")
        out.append(mark(SHAPES.get(r["dataflow"], "circle"), sx(r["cycles"]), sy(r["energy"]),
                        size, colour, title))
    return out + ["</g>"]


def legend(arrays, memories, dataflows, top):
    out, x = [], 20
    for i, n in enumerate(arrays):
        out.append(mark("circle", x, top, 5, COLOURS[i % len(COLOURS)], f"{n}x{n}").replace(
            'class="design"', 'class="key"') + f'<text x="{x + 9}" y="{top + 4}">{n}x{n}</text>')
        x += 70
    for d in dataflows:
        out.append(mark(SHAPES.get(d, "circle"), x, top, 5, "#444", d).replace(
            'class="design"', 'class="key"') + f'<text x="{x + 9}" y="{top + 4}">{escape(d)}</text>')
        x += 50
    for i, kb in enumerate(memories):
        out.append(mark("circle", x, top, 3 + 2 * i, "#999", f"{kb} KiB").replace(
            'class="design"', 'class="key"') + f'<text x="{x + 10}" y="{top + 4}">{kb} KiB</text>')
        x += 75
    out.append(f'<line x1="{x}" y1="{top}" x2="{x + 24}" y2="{top}" stroke="#555" '
               f'stroke-dasharray="4 3"/><text x="{x + 30}" y="{top + 4}">Pareto front</text>')
    return out


def svg(results):
    """The plot of sweep.py's rows (their cycles, energy_uj, rows, cols, dataflow, memory_kb)."""
    rows = [dict(r, rows=int(r["rows"]), cols=int(r["cols"]), memory_kb=int(r["memory_kb"]),
                 cycles=int(r["cycles"]), energy=float(r["energy_uj"]) / 1e3) for r in results]
    models = list(dict.fromkeys(r["model"] for r in rows))
    arrays = sorted({r["rows"] for r in rows})
    memories = sorted({r["memory_kb"] for r in rows})
    dataflows = list(dict.fromkeys(r["dataflow"] for r in rows))
    width, height = max(PANEL_W * len(models) + 20, 820), PANEL_H + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="Helvetica, Arial, sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for i, model in enumerate(models):
        out += panel(model, [r for r in rows if r["model"] == model], 10 + i * PANEL_W, arrays,
                     memories)
    out += legend(arrays, memories, dataflows, PANEL_H + 20)
    return "\n".join(out + ["</svg>"]) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        drawn = svg(list(csv.DictReader(f)))
    with open(sys.argv[2], "w") as f:
        f.write(drawn)
