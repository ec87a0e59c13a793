#!/usr/bin/env python3
"""Loads `uma compile`'s report.html in headless Chromium and checks what a reader gets.

usage: check_report_html.py CHROMIUM REPORT_DIR [--max-bytes N] [--max-ms MS]

REPORT_DIR holds report.html and report.json (uma compile -o REPORT_DIR). The page must load
without a console message (an uncaught error is one), hold the graph as SVG with one node per
recorded node, and a click on a node must select its row and show it. The page's size and
its load time (from its request to its script's end, Chromium's start aside) are printed,
and must stay under the bounds: a large model's report stays usable.
"""
import argparse
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("chromium")
    parser.add_argument("report_dir")
    parser.add_argument("--max-bytes", type=int, default=8 << 20)
    parser.add_argument("--max-ms", type=int, default=5000)
    args = parser.parse_args()

    page = os.path.join(args.report_dir, "report.html")
    with open(os.path.join(args.report_dir, "report.json")) as f:
        nodes = len(json.load(f)["nodes"])
    size = os.path.getsize(page)
    failures = []
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

    print(f"{page}: {size} bytes, {nodes} node(s); loaded in {page_ms} ms "
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
