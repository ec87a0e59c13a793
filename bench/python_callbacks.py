#!/usr/bin/env python3
"""The cost of Python callbacks in partitioning: ResNet-50 partitioned for the C++ `vanilla`
backend, for the same backend written in Python (examples/python/vanilla.py: its pattern is
matched in C++, its predicate is a Python function), and for that pattern without a
predicate. Prints the median and minimum time of each over the runs, the predicate's calls,
and the Python predicate's cost per call.

    PYTHONPATH=build/python python3 bench/python_callbacks.py build/tests/models/resnet50_op17/model.onnx
"""

import argparse
import os
import statistics
import sys
import time

import uma

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                                "python"))
import vanilla  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    calls = 0

    def counted(match, target):
        nonlocal calls
        calls += 1
        return vanilla.check_conv2d(match, target)

    python_backend = vanilla.Vanilla("bench_py_vanilla")
    uma.register_backend(python_backend)
    counting = uma.Backend("bench_py_counted")
    counting.add_pattern("conv2d", vanilla.conv2d_pattern(), counted)
    uma.register_backend(counting)
    pattern_only = uma.Backend("bench_py_pattern_only")
    pattern_only.add_pattern("conv2d", vanilla.conv2d_pattern())
    uma.register_backend(pattern_only)

    nodes = len(uma.load(args.model).main.nodes)
    targets = ["vanilla", "bench_py_vanilla", "bench_py_pattern_only", "bench_py_counted"]
    times = {target: [] for target in targets}
    for _ in range(args.runs):
        for target in targets:  # interleaved, so that each sees the same machine load
            module = uma.load(args.model)
            start = time.perf_counter()
            uma.partition(module, targets=[target])
            times[target].append(time.perf_counter() - start)
    calls //= args.runs

    print(f"{os.path.basename(os.path.dirname(args.model)) or args.model}: {nodes} nodes, "
          f"{args.runs} runs, load average {os.getloadavg()[0]:.2f}")
    print(f"{'backend':<40} {'median ms':>10} {'min ms':>10}")
    labels = {"vanilla": "C++ vanilla",
              "bench_py_vanilla": "Python vanilla (Python predicate)",
              "bench_py_pattern_only": "Python pattern, no predicate",
              "bench_py_counted": "Python vanilla, predicate counted"}
    for target in targets:
        print(f"{labels[target]:<40} {statistics.median(times[target]) * 1e3:10.2f} "
              f"{min(times[target]) * 1e3:10.2f}")
    cpp = statistics.median(times["vanilla"])
    python = statistics.median(times["bench_py_vanilla"])
    print(f"predicate calls per partitioning: {calls}")
    print(f"Python vanilla / C++ vanilla: {python / cpp:.2f}x; "
          f"{(python - cpp) / max(calls, 1) * 1e6:.1f} us per predicate call over C++")


if __name__ == "__main__":
    main()
