#!/usr/bin/python3
"""uma's host build against ONNX Runtime's CPU provider, model by model.

For each model, rounds alternate a batch of `uma bench` runs and a batch of ONNX Runtime
runs (bench/ort/run_ort.js), which goes first alternating too, so that both see the same
machine load; then prints the median and minimum latency of each over all their runs, the
ratios uma/ORT, uma's GFLOP/s and its fraction of the machine's FP32 peak (bench_peak), and
the load average at the start and the end. With --target (a backend's, repeated in priority
order), each round also runs a batch of the build for those targets and the host, and a
second table compares it with the host's build and ONNX Runtime, its load time (primitives
made, weights reordered: the functions' inits) apart. Not a test: run by hand
(bench/README.md).

usage: bench/compare_ort.py [--threads 2] [--rounds 5] [--runs 10] [--models resnet18,...]
                            [--target dnnl]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The models of the model tests (tests/models/export_models.py), exported at opset 17.
MODELS = ["resnet18", "resnet50", "mobilenet_v2", "efficientnet_b0", "transformer_text"]


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run_json(command, what):
    """Runs `command`, which prints one JSON object on its last line of output."""
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {result.returncode}): {result.stderr.strip()}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def uma_batch(args, model, threads, targets=()):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        command = [args.uma, "bench", model, "--threads", str(threads), "--runs", str(args.runs),
                   "--warmup", str(args.warmup), "--json", report.name]
        for target in targets:
            command += ["--target", target]
        if args.profile:
            command.append("--profile")
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"uma bench failed (exit {result.returncode}): "
                               f"{result.stderr.strip()}")
        with open(report.name) as f:
            return json.load(f)


def ort_batch(args, model, threads):
    return run_json(["node", args.ort, model, "--threads", str(threads), "--runs", str(args.runs),
                     "--warmup", str(args.warmup)], "run_ort.js")


def merge_profiles(batches):
    """The per-run milliseconds of each family, averaged over the batches."""
    families = {}
    for batch in batches:
        for row in batch.get("profile", []):
            entry = families.setdefault(row["family"], {"calls": row["calls"], "ms": 0.0,
                                                        "macs": row["macs"]})
            entry["ms"] += row["ms"] / len(batches)
    return families


def print_profile(name, families):
    total = sum(entry["ms"] for entry in families.values()) or 1.0
    print(f"\numa profile of {name}, mean per run (the table above gives medians):")
    print(f"  {'family':<14} {'calls':>6} {'ms':>10} {'share':>7} {'GFLOP/s':>8}")
    for family, entry in sorted(families.items(), key=lambda item: -item[1]["ms"]):
        rate = f"{2 * entry['macs'] / (entry['ms'] * 1e6):.2f}" if entry["macs"] else "-"
        print(f"  {family:<14} {entry['calls']:>6} {entry['ms']:>10.2f} "
              f"{100 * entry['ms'] / total:>6.1f}% {rate:>8}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2, help="threads of both (default 2)")
    parser.add_argument("--rounds", type=int, default=5, help="batches of each (default 5)")
    parser.add_argument("--runs", type=int, default=10, help="timed runs per batch (default 10)")
    parser.add_argument("--warmup", type=int, default=2,
                        help="untimed runs before each batch (default 2)")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated model names (default: %(default)s)")
    parser.add_argument("--models-dir", default=os.path.join(ROOT, "build/tests/models"),
                        help="where <name>_op17/model.onnx are (ctest -R '^models' exports them)")
    parser.add_argument("--uma", default=os.path.join(ROOT, "build/uma"))
    parser.add_argument("--peak", default=os.path.join(ROOT, "build/bench/bench_peak"))
    parser.add_argument("--ort", default=os.path.join(ROOT, "bench/ort/run_ort.js"))
    parser.add_argument("--target", action="append", default=[],
                        help="also time the build for this backend's target and the host "
                             "(repeat for several, in priority order): --target dnnl")
    parser.add_argument("--profile", action="store_true",
                        help="also print uma's time per op family (uma bench --profile)")
    args = parser.parse_args()

    if not os.path.isdir(os.path.join(os.path.dirname(args.ort), "node_modules",
                                      "onnxruntime-node")):
        sys.exit("compare_ort.py: onnxruntime-node is not installed; see bench/README.md")
    print(f"load average at start: {load_average()}")
    peak = run_json([args.peak, "--threads", str(args.threads), "--json"], "bench_peak")
    peak_gflops = peak["gflops"][-1]
    print("peak (independent FMAs): " + ", ".join(
        f"{g:.1f} GFLOP/s on {t} thread(s)" for t, g in zip(peak["threads"], peak["gflops"])))

    rows, target_rows, profiles = [], [], []
    version = "?"
    for name in args.models.split(","):
        model = os.path.join(args.models_dir, f"{name}_op17", "model.onnx")
        uma_runs, ort_runs, uma_batches, macs = [], [], [], 0
        target_runs, target_loads, host_loads = [], [], []
        kinds = [0, 1, 2] if args.target else [0, 1]
        try:
            for round_index in range(args.rounds):
                order = kinds if round_index % 2 == 0 else kinds[::-1]
                for which in order:
                    if which == 2:
                        batch = uma_batch(args, model, args.threads, args.target)
                        target_runs += batch["runs_ms"]
                        target_loads.append(batch["load_ms"])
                    elif which == 0:
                        batch = uma_batch(args, model, args.threads)
                        uma_runs += batch["runs_ms"]
                        host_loads.append(batch["load_ms"])
                        uma_batches.append(batch)
                        macs = batch["macs"]
                    else:
                        batch = ort_batch(args, model, args.threads)
                        ort_runs += batch["runs_ms"]
                        version = batch["onnxruntime"]
                print(f"{name}: round {round_index + 1} of {args.rounds} done", file=sys.stderr)
        except RuntimeError as error:
            print(f"{name}: {error}")
            continue
        uma_median, ort_median = statistics.median(uma_runs), statistics.median(ort_runs)
        uma_min, ort_min = min(uma_runs), min(ort_runs)
        gflops = 2 * macs / (uma_median * 1e6)
        rows.append((name, uma_median, uma_min, ort_median, ort_min, uma_median / ort_median,
                     uma_min / ort_min, gflops, 100 * gflops / peak_gflops))
        if target_runs:
            target_median = statistics.median(target_runs)
            target_rows.append((name, target_median, min(target_runs), uma_median, ort_median,
                                target_median / uma_median, target_median / ort_median,
                                min(target_runs) / ort_min, statistics.median(target_loads),
                                statistics.median(host_loads)))
        if args.profile:
            profiles.append((name, merge_profiles(uma_batches)))

    print(f"\n{args.threads} thread(s), {args.rounds} rounds x {args.runs} runs of each "
          f"(ONNX Runtime {version}, CPU provider); times in ms")
    print(f"{'model':<18} {'uma med':>9} {'uma min':>9} {'ORT med':>9} {'ORT min':>9} "
          f"{'ratio med':>9} {'ratio min':>9} {'GFLOP/s':>8} {'of peak':>8}")
    for name, um, un, om, on, rm, rn, gf, frac in rows:
        print(f"{name:<18} {um:>9.2f} {un:>9.2f} {om:>9.2f} {on:>9.2f} {rm:>8.1f}x {rn:>8.1f}x "
              f"{gf:>8.2f} {frac:>7.1f}%")
    if target_rows:
        built = " + ".join(args.target) + " + host"
        print(f"\n{built} against the host alone and ONNX Runtime ({args.threads} thread(s)); "
              "run times in ms, medians but for 'min'; load = library + inits, median per batch")
        print(f"{'model':<18} {'med':>9} {'min':>9} {'host med':>9} {'ORT med':>9} "
              f"{'/host':>7} {'/ORT':>7} {'/ORT min':>8} {'load':>9} {'host load':>9}")
        for name, tm, tn, hm, om, rh, ro, rn, tl, hl in target_rows:
            print(f"{name:<18} {tm:>9.2f} {tn:>9.2f} {hm:>9.2f} {om:>9.2f} {rh:>6.2f}x "
                  f"{ro:>6.2f}x {rn:>7.2f}x {tl:>9.1f} {hl:>9.1f}")
    for name, families in profiles:
        print_profile(name, families)
    print(f"\nload average at end: {load_average()}")


if __name__ == "__main__":
    main()
