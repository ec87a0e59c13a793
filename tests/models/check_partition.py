#!/usr/bin/python3
"""Partitions every exported model for the test targets and checks the outputs' bits.

One `uma partition --check` per model: it runs the reference interpreter on @main before
and after partitioning (composite and region functions interpreted through their calls) and
fails unless every output is bit-identical. Prints, per model, how many nodes each target
got, from the partition report.

usage: check_partition.py UMA MODELS_DIR --plugin=libuma_test_targets_plugin.so [--opsets 13,17]
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
import time

TARGETS = "test_conv,test_dense,test_elem"


def placement(report):
    """'test_conv 53 in 20 regions, ..., host 12; 99.8% of MACs off the host'."""
    parts = []
    total_macs = sum(s["macs"] for s in report["summary"])
    host_macs = 0
    for s in report["summary"]:
        if s["target"] is None:
            parts.append(f"host {s['nodes']}")
            host_macs = s["macs"]
        else:
            parts.append(f"{s['target']} {s['nodes']} in {s['regions']} regions")
    offloaded = 100.0 * (total_macs - host_macs) / total_macs if total_macs else 0.0
    return f"{', '.join(parts)}; {offloaded:.1f}% of MACs off the host"


def check(uma, plugin, folder):
    with tempfile.TemporaryDirectory() as out:
        report_file = pathlib.Path(out) / "report.json"
        start = time.monotonic()
        run = subprocess.run([uma, "partition", str(folder / "model.onnx"), f"--plugin={plugin}",
                              f"--targets={TARGETS}", "--check", "--report=json",
                              "--report-file", str(report_file)],
                             capture_output=True, text=True)
        seconds = time.monotonic() - start
        if run.returncode != 0:
            detail = (run.stdout + run.stderr).strip().replace("\n", "; ")
            return False, f"uma partition failed: {detail}", seconds
        report = json.loads(report_file.read_text())
        outputs = run.stdout.count("bit-identical")
        return True, f"{outputs} output(s) bit-identical; {placement(report)}", seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("uma")
    parser.add_argument("models", type=pathlib.Path)
    parser.add_argument("--opsets", default="13,17")
    parser.add_argument("--plugin", required=True,
                        help="the tests' targets plugin (libuma_test_targets_plugin.so)")
    args = parser.parse_args()
    suffixes = tuple(f"_op{opset}" for opset in args.opsets.split(","))
    folders = sorted(p for p in args.models.iterdir()
                     if (p / "model.onnx").exists() and p.name.endswith(suffixes))
    passed = failed = 0
    total = time.monotonic()
    for folder in folders:
        ok, detail, seconds = check(args.uma, args.plugin, folder)
        print(f"{'PASS' if ok else 'FAIL'}: {folder.name}: {detail} ({seconds:.1f} s)", flush=True)
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed ({time.monotonic() - total:.1f} s)")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
