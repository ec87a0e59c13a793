#!/usr/bin/python3
"""Import time and peak memory of `uma import` on an ONNX model, against the file size.

Peak RSS is the child's maximum resident set (getrusage), so it includes the process's
own baseline; the ratio to the file size is what the budget (< 1.5x) is about. Each model
is imported REPEAT times and the median time reported.

usage: onnx_import.py UMA MODEL.onnx [MODEL.onnx ...] [--repeat 5]
"""
import argparse
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import time


def import_once(uma, model):
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execv(uma, [uma, "import", str(model), "--elide-data", "-o", os.devnull])
    _, status, usage = os.wait4(pid, 0)
    seconds = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"uma import {model} failed")
    return seconds, usage.ru_maxrss * 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("uma")
    parser.add_argument("models", nargs="+", type=pathlib.Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'model':<28} {'file MB':>8} {'import s':>9} {'peak RSS MB':>12} {'RSS / file':>10}")
    for model in args.models:
        runs = [import_once(args.uma, model) for _ in range(args.repeat)]
        seconds = statistics.median(r[0] for r in runs)
        peak = max(r[1] for r in runs)
        size = model.stat().st_size
        print(f"{model.parent.name + '/' + model.name:<28} {size / 2**20:8.1f} {seconds:9.3f} "
              f"{peak / 2**20:12.1f} {peak / size:10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
