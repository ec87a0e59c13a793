#!/usr/bin/python3
"""A design sweep on npu_sim: each model over array sizes, memory sizes and dataflows, with
`uma sim --json` per design (the model built for the design, run once by the functional model,
estimated by the performance model); the totals go to sweep.csv and a plot of cycles against
energy per design to sweep.svg (plot.py). See README.md.

usage: sweep.py [--models resnet18,mobilenet_v2] [--arrays 8,16,32,64] [--memories 32,64,256]
                [--dataflows ws,os,is] [--quick] [--jobs N] [--out DIR] [--uma PATH]
                [--models-dir DIR] [--cache-dir DIR]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import plot

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
COLUMNS = ["model", "rows", "cols", "dataflow", "memory_kb", "layers", "cycles",
           "compute_cycles", "dma_cycles", "stall_cycles", "utilisation", "dram_bytes",
           "energy_uj", "ms", "host_macs"]


def model_file(models_dir, name):
    """A model's ONNX file: a path, or the name of a model the test suite exports."""
    if name.endswith(".onnx"):
        return name
    return os.path.join(models_dir, f"{name}_op17", "model.onnx")


def target(rows, cols, dataflow, memory_kb):
    return (f"npu_sim --rows={rows} --cols={cols} --dataflow={dataflow} "
            f"--ifmap_kb={memory_kb} --filter_kb={memory_kb} --ofmap_kb={memory_kb}")


def simulate(args, model, design):
    """One row of the CSV: the totals `uma sim --json` prints for the model on the design."""
    rows, cols, dataflow, memory_kb = design
    command = [args.uma, "sim", model_file(args.models_dir, model),
               "--target", target(*design), "--json", "-"]
    if args.cache_dir:
        command += ["--cache-dir", args.cache_dir]
    ran = subprocess.run(command, capture_output=True, text=True)
    if ran.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({ran.returncode}):\n{ran.stderr}")
    result = json.loads(ran.stdout)
    total = result["total"]
    print(f"{model} {rows}x{cols} {dataflow} {memory_kb} KiB: {total['cycles']} cycles, "
          f"{total['energy_pj'] / 1e6:.1f} uJ", flush=True)
    return {"model": os.path.basename(model).removesuffix(".onnx"), "rows": rows, "cols": cols,
            "dataflow": dataflow, "memory_kb": memory_kb, "layers": len(result["layers"]),
            "cycles": total["cycles"], "compute_cycles": total["compute_cycles"],
            "dma_cycles": total["dma_cycles"], "stall_cycles": total["stall_cycles"],
            "utilisation": f"{total['utilisation']:.4f}", "dram_bytes": total["dram_bytes"],
            "energy_uj": f"{total['energy_pj'] / 1e6:.3f}", "ms": f"{total['seconds'] * 1e3:.4f}",
            "host_macs": result["host"]["macs"]}


def numbers(text):
    return [int(x) for x in text.split(",")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="resnet18,mobilenet_v2",
                        help="exported models (build/tests/models/<name>_op17) or .onnx files")
    parser.add_argument("--arrays", type=numbers, default=[8, 16, 32, 64],
                        help="square arrays' sides")
    parser.add_argument("--memories", type=numbers, default=[32, 64, 256],
                        help="KiB of each of the ifmap, filter and ofmap memories")
    parser.add_argument("--dataflows", default="ws,os,is")
    parser.add_argument("--quick", action="store_true",
                        help="the first model on two designs: 16x16 and 32x32, ws, 64 KiB")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="designs at once")
    parser.add_argument("--out", default=".", help="folder of sweep.csv and sweep.svg")
    parser.add_argument("--uma", default=os.path.join(ROOT, "build", "uma"))
    parser.add_argument("--models-dir", default=os.path.join(ROOT, "build", "tests", "models"))
    parser.add_argument("--cache-dir", help="the C compiler's object cache (uma's default)")
    args = parser.parse_args()

    models = args.models.split(",")
    designs = [(n, n, d, kb) for n in args.arrays for kb in args.memories
               for d in args.dataflows.split(",")]
    if args.quick:
        models, designs = models[:1], [(16, 16, "ws", 64), (32, 32, "ws", 64)]
    for model in models:
        if not os.path.exists(model_file(args.models_dir, model)):
            sys.exit(f"{model_file(args.models_dir, model)} is missing: the test suite's models "
                     "test exports it (ctest --test-dir build -R '^models$')")

    runs = [(model, design) for model in models for design in designs]
    with ThreadPoolExecutor(max(args.jobs, 1)) as pool:
        results = list(pool.map(lambda run: simulate(args, *run), runs))

    os.makedirs(args.out, exist_ok=True)
    csv_path, svg_path = os.path.join(args.out, "sweep.csv"), os.path.join(args.out, "sweep.svg")
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS)
        writer.writeheader()
        writer.writerows(results)
    with open(svg_path, "w") as f:
        f.write(plot.svg(results))
    print(f"wrote {csv_path} and {svg_path} ({len(results)} designs)")


if __name__ == "__main__":
    main()
