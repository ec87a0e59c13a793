#!/usr/bin/python3
"""Runs every exported model through `uma run` and compares with torch's outputs.

A model passes when max|uma - torch| <= TOL * max|torch| over each output (TOL = 1e-4 by
default): the error is measured against the output's scale, so that tiny logits are not
held to an absolute bound they cannot meet in f32.

usage: check_models.py UMA MODELS_DIR [--tolerance 1e-4] [extra uma run flags...]
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnx.numpy_helper


def load_pb(path):
    tensor = onnx.TensorProto()
    tensor.ParseFromString(path.read_bytes())
    return onnx.numpy_helper.to_array(tensor)


def check(uma, folder, tolerance, extra):
    with tempfile.TemporaryDirectory() as out:
        start = time.monotonic()
        run = subprocess.run([uma, "run", str(folder / "model.onnx"), "--input",
                              str(folder / "input_0.pb"), "--output-dir", out, *extra],
                             capture_output=True, text=True)
        seconds = time.monotonic() - start
        if run.returncode != 0:
            # A --check or --expect mismatch is reported on standard output.
            why = run.stderr.strip() or " ".join(
                line for line in run.stdout.splitlines() if "MISMATCH" in line)
            return False, f"uma run failed: {why}", seconds
        expected = load_pb(folder / "output_0.pb")
        outputs = sorted(pathlib.Path(out).glob("*.npy"))
        if len(outputs) != 1:
            return False, f"expected one output, uma wrote {len(outputs)}", seconds
        actual = np.load(outputs[0])
        if actual.shape != expected.shape:
            return False, f"shape {actual.shape}, torch gives {expected.shape}", seconds
        scale = float(np.max(np.abs(expected)))
        error = float(np.max(np.abs(actual.astype(np.float64) - expected)))
        relative = error / scale if scale else error
        ok = relative <= tolerance
        return ok, f"max error {error:.3g} = {relative:.3g} of max |output| {scale:.3g}", seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("uma")
    parser.add_argument("models", type=pathlib.Path)
    parser.add_argument("--tolerance", type=float, default=1e-4)
    args, extra = parser.parse_known_args()
    passed = failed = 0
    for folder in sorted(p for p in args.models.iterdir() if (p / "model.onnx").exists()):
        ok, detail, seconds = check(args.uma, folder, args.tolerance, extra)
        print(f"{'PASS' if ok else 'FAIL'}: {folder.name}: {detail} ({seconds:.1f} s)", flush=True)
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
