#!/usr/bin/env python3
"""Loads `uma compile`'s report.html in headless Chromium and checks what a reader gets.

usage: check_report_html.py CHROMIUM REPORT_DIR [--max-bytes N] [--max-ms MS] [--tilings]

REPORT_DIR holds report.html and report.json (uma compile -o REPORT_DIR). The page must load
without a console message (an uncaught error is one), hold the graph as SVG with one node per
recorded node, and a click on a node must select its row and show it. The page's size and
its load time (from its request to its script's end, Chromium's start aside) are printed,
and must stay under the bounds: a large model's report stays usable.

Each tiled layer of report.json ("tilings") must have its section, with the plan's numbers,
a row per memory whose bar is drawn as long as its peak's share of the capacity, and a row per
operand. --tilings: report.json must have some (a build for a target with memories).
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
  // Each memory's bar as drawn: the filled width's share of the bar's.
  var bars = Array.prototype.map.call(document.querySelectorAll('div.bar'), function (bar) {
    var fill = bar.firstElementChild;
    return (fill.getBoundingClientRect().width / bar.getBoundingClientRect().width).toFixed(4);
  });
  document.body.setAttribute('data-bars', bars.join(' '));
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
        heading = html.unescape(re.sub(r"<[^>]*>", "", re.search(r"<h3>(.*?)</h3>", section).group(1)))
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("chromium")
    parser.add_argument("report_dir")
    parser.add_argument("--max-bytes", type=int, default=8 << 20)
    parser.add_argument("--max-ms", type=int, default=5000)
    parser.add_argument("--tilings", action="store_true",
                        help="report.json must have tiled layers")
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
        with open(page) as f:
            html = f.read()
        with open(clicked_page, "w") as f:
            f.write(html.replace("</body>", CLICK + "</body>"))
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
