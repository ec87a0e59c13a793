#!/usr/bin/python3
"""Checks from the partition reports of builds (`uma run --report=json`) that a backend runs
at least a share of a model's multiply-accumulates of one op.

Each report (REPORTS/<model>.json) records every node of the model as it was imported, with
its MACs and the target that got it. The share counts the MACs of the nodes of OP alone: the
report's summary adds every op's MACs (a classifier's dense layer, say), which a backend
built for OP is not meant to take.

usage: check_offload.py REPORTS --target ultra_trail --op nn.conv1d --min-share 0.99
"""
import argparse
import json
import pathlib
import sys


def share(report, target, op):
    """(MACs of `op` that `target` got, MACs of `op` in all)."""
    nodes = [node for node in report["nodes"] if node["op"] == op]
    return (sum(node["macs"] for node in nodes if node["target"] == target),
            sum(node["macs"] for node in nodes))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reports", type=pathlib.Path)
    parser.add_argument("--target", required=True, help="the target kind, as the report names it")
    parser.add_argument("--op", required=True)
    parser.add_argument("--min-share", type=float, required=True)
    args = parser.parse_args()
    passed = failed = 0
    for path in sorted(args.reports.glob("*.json")):
        taken, total = share(json.loads(path.read_text()), args.target, args.op)
        ok = total > 0 and taken >= args.min_share * total
        percent = 100.0 * taken / total if total else 0.0
        print(f"{'PASS' if ok else 'FAIL'}: {path.stem}: {args.target} runs {taken} of {total} "
              f"{args.op} MACs ({percent:.2f}%, at least {100 * args.min_share:g}% wanted)",
              flush=True)
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
