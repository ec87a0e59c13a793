#!/usr/bin/env python3
"""Loads `uma compile`'s report.html in headless Chromium and checks what a reader gets.

usage: check_report_html.py CHROMIUM REPORT_DIR [--max-bytes N] [--max-ms MS] [--tilings]
                            [--estimates]

REPORT_DIR holds report.html and report.json (uma compile -o REPORT_DIR). The page must load
without a console message (an uncaught error is one), hold the graph as SVG with one node per
recorded node, and a click on a node must select its row and show it. The page's size and
its load time (from its request to its script's end, Chromium's start aside) are printed,
and must stay under the bounds: a large model's report stays usable.

Each tiled layer of report.json ("tilings") must have its section, with the plan's numbers,
a row per memory whose bar is drawn as long as its peak's share of the capacity, and a row per
operand. --tilings: report.json must have some (a build for a target with memories).

The page must be valid UTF-8, whatever bytes the model's names hold. Each tiled layer with an
estimate (a backend with a performance model, as npu_sim) must have its row of simulated cycles
with the estimate's figures, its name escaped, and bars drawn as long as its compute, stall
and DMA cycles' share of the longest layer's; then a row of the totals. --estimates: every
tiled layer of report.json must have an estimate.
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# Appended to a copy of the page: clicks the first node of the graph, the way a reader does,
# and leaves what the page shows, and the milliseconds from the page's request to the end of
# its script, in attributes that --dump-dom prints.
CLICK = """
<script>
(function () {
  var node = document.querySelector('#graph g.node');
  if (node) node.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  var selected = document.querySelector('tr.selected');
  document.body.setAttribute('data-clicked',
      (selected ? selected.id : 'none') + '|' + document.getElementById('details').textContent);
  document.body.setAttribute('data-ms', String(Math.round(performance.now())));
  // Each memory's bar as drawn: the filled width's share of the bar's inside its border.
  var bars = Array.prototype.map.call(document.querySelectorAll('div.bar'), function (bar) {
    var fill = bar.firstElementChild;
    return (fill.getBoundingClientRect().width / bar.clientWidth).toFixed(4);
  });
  document.body.setAttribute('data-bars', bars.join(' '));
  // Each layer's bars of simulated cycles as drawn: compute, stall and DMA, each filled
  // width's share of the bar's.
  var cycles = Array.prototype.map.call(document.querySelectorAll('#cycles tr.layer'), function (row) {
    var scale = row.querySelector('div.cycles').getBoundingClientRect().width;
    return ['div.cycles > .compute', 'div.cycles > .stall', 'div.dma > div'].map(function (part) {
      return (row.querySelector(part).getBoundingClientRect().width / scale).toFixed(4);
    }).join(',');
  });
  document.body.setAttribute('data-cycle-bars', cycles.join(' '));
})();
</script>
"""

# Chromium logs each console message of a page as "INFO:CONSOLE:<line>] ..." (older versions
# "CONSOLE(<line>)"); uncaught errors are console messages.
CONSOLE = re.compile(r"CONSOLE[:(]|Uncaught")


def load(chromium, page, profile):
    """Chromium's DOM after loading `page`, its log, and the seconds it took."""
    command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
               "--dump-dom", "file://" + os.path.abspath(page)]
    start = time.monotonic()
    ran = subprocess.run(command, capture_output=True, text=True, timeout=300)
    seconds = time.monotonic() - start
    if ran.returncode != 0:
        sys.exit(f"{page}: chromium failed ({ran.returncode}):\n{ran.stderr}")
    return ran.stdout, ran.stderr, seconds


def cells(row):
    """The texts of a table row's cells, tags dropped and entities decoded."""
    return [html.unescape(re.sub(r"<[^>]*>", "", cell)).strip()
            for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]


def check_tilings(dom, tilings):
    """What the page's tiles sections get wrong against report.json's tilings."""
    failures = []
    sections = re.findall(r'<section class="tiling" id="tiling-(\d+)">(.*?)</section>', dom, re.S)
    if len(sections) != len(tilings):
        return [f"{len(sections)} tiles section(s), report.json has {len(tilings)} tiling(s)"]
    for (index, section), t in zip(sections, tilings):
        where = f"tiling-{index} ({t['layer']})"
        heading = as_json(html.unescape(
            re.sub(r"<[^>]*>", "", re.search(r"<h3>(.*?)</h3>", section).group(1))))
        if heading != f"{t['layer'] or '-'} ({t['composite']} in @{t['function']})":
            failures.append(f"{where}: heading {heading!r}")
        shape = lambda dims: "x".join(map(str, dims))
        cut = any(c < r for c, r in zip(t["chunks"], t["reductions"]))
        chunks = f" (reductions in chunks of {shape(t['chunks'])})" if cut else ""
        plan = (f"output {shape(t['output'])}, tile {shape(t['tile'])}{chunks}, {t['tiles']} "
                f"tile{'' if t['tiles'] == 1 else 's'}, "
                f"{'double' if t['double_buffered'] else 'single'} buffered; "
                f"{t['traffic']} bytes moved")
        shown = html.unescape(re.search(r"<p>(.*?)</p>", section).group(1))
        if shown != plan:
            failures.append(f"{where}: the plan reads {shown!r}, not {plan!r}")
        memories = [cells(row)[:3] for row in re.findall(r'<tr class="memory">.*?</tr>', section, re.S)]
        expected = [[m["name"], str(m["peak"]), str(m["capacity"])] for m in t["memories"]]
        if memories != expected:
            failures.append(f"{where}: memories {memories}, report.json has {expected}")
        operands = [cells(row) for row in re.findall(r'<tr class="operand">.*?</tr>', section, re.S)]
        expected = [[o["name"], o["role"] + (" (out)" if o["output"] else ""), o["memory"],
                     shape(o["tile"])] +
                    [str(o[k]) for k in ("buffers", "moves", "transfers", "bytes", "halo_bytes")]
                    for o in t["operands"]]
        if operands != expected:
            failures.append(f"{where}: operands {operands}, report.json has {expected}")
    return failures


def check_bars(dom, tilings):
    """Whether each memory's bar, as Chromium drew it, is its peak's share of the capacity."""
    drawn = re.search(r'data-bars="([^"]*)"', dom)
    drawn = [float(x) for x in drawn.group(1).split()] if drawn else []
    shares = [min(m["peak"] / m["capacity"], 1.0) for t in tilings for m in t["memories"]]
    if len(drawn) != len(shares):
        return [f"{len(drawn)} memory bar(s) drawn, report.json has {len(shares)} memories"]
    # A bar is 12em wide: a pixel off is under 1%.
    return [f"a memory bar is drawn {d:.3f} full for a share of {s:.3f}"
            for d, s in zip(drawn, shares) if abs(d - s) > 0.01]


def estimate_cells(e):
    """A row's figures as the page prints them: cycles, compute, DMA, stall, utilisation, bound,
    energy in nJ."""
    return [str(e["cycles"]), str(e["compute_cycles"]), str(e["dma_cycles"]),
            str(e["stall_cycles"]), f"{100.0 * e['utilisation']:.1f}%", e["bound"],
            f"{e['energy_pj'] / 1e3:.1f}"]


def total_estimate(estimates):
    """The layers' figures added as uma sim adds them: energies per kind, utilisation over
    every layer's cycles times its array's PEs."""
    total = {k: sum(e[k] for e in estimates)
             for k in ("macs", "cycles", "compute_cycles", "dma_cycles", "stall_cycles")}
    pj = [0.0, 0.0, 0.0]
    for e in estimates:
        pj = [pj[0] + e["compute_pj"], pj[1] + e["sram_pj"], pj[2] + e["dram_pj"]]
    pe_cycles = 0.0
    for e in estimates:
        pe_cycles += float(e["cycles"]) * float(e["pes"])
    total["utilisation"] = total["macs"] / pe_cycles if pe_cycles else 0.0
    total["energy_pj"] = pj[0] + pj[1] + pj[2]
    total["bound"] = ""
    return total


def as_json(text):
    """A name as the page writes it, as report.json writes it: the page writes a byte that is
    not UTF-8 as \\xNN (printable_utf8, as on a terminal), report.json as U+FFFD."""
    return re.sub(r"\\x[89A-F][0-9A-F]", "\ufffd", text)


def escaped(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def check_cycles(page_text, dom, tilings):
    """What the page's simulated cycles get wrong against report.json's estimates."""
    layers = [t for t in tilings if "estimate" in t]
    rows = [cells(row) for row in re.findall(r'<tr class="layer">.*?</tr>', dom, re.S)]
    rows = [[as_json(row[0])] + row[1:] for row in rows if row]
    if not layers:
        return [f"{len(rows)} row(s) of simulated cycles without estimates"] if rows else []
    expected = [[t["layer"] or "-", t["composite"], ""] + estimate_cells(t["estimate"])
                for t in layers]
    failures = [] if rows == expected else [f"cycles rows {rows}, report.json has {expected}"]
    total = [cells(row) for row in re.findall(r'<tr class="total">.*?</tr>', dom, re.S)]
    count = f"{len(layers)} layer{'' if len(layers) == 1 else 's'}"
    estimates = [t["estimate"] for t in layers]
    if total != [["total", count, ""] + estimate_cells(total_estimate(estimates))]:
        failures.append(f"cycles total {total}")
    # Names are escaped in the page's text, row by row (a browser forgives some lapses).
    table = re.search(r'<table id="cycles">.*?</table>', page_text, re.S)
    written = re.findall(r'<tr class="layer"><td>(.*?)</td>', table.group(0) if table else "")
    if [as_json(w) for w in written] != [escaped(t["layer"] or "-") for t in layers]:
        failures.append(f"the cycles table's names are written {written}")

    drawn = re.search(r'data-cycle-bars="([^"]*)"', dom)
    drawn = [[float(x) for x in bar.split(",")] for bar in drawn.group(1).split()] if drawn else []
    longest = max(max(e["cycles"], e["dma_cycles"]) for e in estimates)
    shares = [[e[k] / longest for k in ("compute_cycles", "stall_cycles", "dma_cycles")]
              for e in estimates]
    if len(drawn) != len(shares):
        return failures + [f"{len(drawn)} cycle bar(s) drawn, report.json has {len(shares)} estimates"]
    # A bar is 16em wide: a pixel off is under 1%.
    return failures + [f"cycle bars drawn {d}, for shares {s}" for d, s in zip(drawn, shares)
                       if any(abs(a - b) > 0.01 for a, b in zip(d, s))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("chromium")
    parser.add_argument("report_dir")
    parser.add_argument("--max-bytes", type=int, default=8 << 20)
    parser.add_argument("--max-ms", type=int, default=5000)
    parser.add_argument("--tilings", action="store_true",
                        help="report.json must have tiled layers")
    parser.add_argument("--estimates", action="store_true",
                        help="report.json's tiled layers must have estimates")
    args = parser.parse_args()

    page = os.path.join(args.report_dir, "report.html")
    with open(os.path.join(args.report_dir, "report.json")) as f:
        report = json.load(f)
    nodes = len(report["nodes"])
    tilings = report.get("tilings", [])
    size = os.path.getsize(page)
    failures = []
    if args.tilings and not tilings:
        failures.append("report.json has no tilings")
    if args.estimates and (not tilings or not all("estimate" in t for t in tilings)):
        failures.append("report.json has tiled layers without an estimate, or none")
    with open(page, "rb") as f:
        try:
            page_text = f.read().decode("utf-8")
        except UnicodeDecodeError as error:
            page_text = ""
            failures.append(f"the page is not UTF-8: {error}")
    with tempfile.TemporaryDirectory() as scratch:
        dom, log, seconds = load(args.chromium, page, os.path.join(scratch, "profile"))
        # Console messages of the page (the page logs none: each is an error it raised).
        console = [line for line in log.splitlines() if CONSOLE.search(line)]
        failures += [f"console: {line}" for line in console]
        if "<svg" not in dom:
            failures.append("the DOM holds no <svg>: the graph is missing")
        # dot titles the model's nodes n<id>; the legend's are named otherwise.
        drawn = len(re.findall(r'class="node"[^>]*>\s*<title>n\d+</title>', dom))
        if drawn != nodes:
            failures.append(f"the graph draws {drawn} node(s), report.json records {nodes}")
        rows = len(re.findall(r'<tr id="node-\d+"', dom))
        if rows != nodes:
            failures.append(f"the table has {rows} node row(s), report.json records {nodes}")
        failures += check_tilings(dom, tilings)

        clicked_page = os.path.join(scratch, "clicked.html")
        with open(clicked_page, "w", encoding="utf-8") as f:
            f.write(page_text.replace("</body>", CLICK + "</body>"))
        dom, log, _ = load(args.chromium, clicked_page, os.path.join(scratch, "profile"))
        page_ms = re.search(r'data-ms="(\d+)"', dom)
        page_ms = int(page_ms.group(1)) if page_ms else None
        clicked = re.search(r'data-clicked="([^"]*)"', dom)
        if clicked is None or not re.match(r"node-\d+\|node \d+ ", clicked.group(1)):
            failures.append("a click on a node shows nothing: " +
                            (clicked.group(1) if clicked else "the test script did not run"))
        failures += [f"console after a click: {line}" for line in log.splitlines()
                     if CONSOLE.search(line)]
        failures += check_bars(dom, tilings)
        failures += check_cycles(page_text, dom, tilings)

    print(f"{page}: {size} bytes, {nodes} node(s), {len(tilings)} tiled layer(s); loaded in {page_ms} ms "
          f"({seconds:.1f} s with chromium's start)")
    if size > args.max_bytes:
        failures.append(f"{size} bytes, more than {args.max_bytes}")
    if page_ms is None or page_ms > args.max_ms:
        failures.append(f"loads in {page_ms} ms, more than {args.max_ms}")
    for failure in failures:
        print(f"{page}: FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
