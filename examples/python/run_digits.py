"""Runs the digits CNN (examples/digits/) on the Python vanilla backend and compares it with
the reference interpreter and with the C++ vanilla backend.

    PYTHONPATH=build/python python3 examples/python/run_digits.py
"""

import glob
import os
import sys

import numpy as np

import uma

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vanilla  # noqa: E402

DIGITS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "digits")
MODEL = os.path.join(DIGITS, "digits_cnn.onnx")

uma.register_backend(vanilla.Vanilla())
reference = uma.load(MODEL)
python_build = uma.build(uma.load(MODEL), targets=["py_vanilla --dimension=8"])
cpp_build = uma.build(uma.load(MODEL), targets=["vanilla --dimension=8"])
print(python_build.report)
for sample in sorted(glob.glob(os.path.join(DIGITS, "sample_*_label*.npy"))):
    image = np.load(sample)
    [expected] = uma.interpret(reference, image)
    [python_out] = python_build(image)
    [cpp_out] = cpp_build(image)
    print(f"{os.path.basename(sample)}: digit {python_out.argmax()}, "
          f"max |py_vanilla - reference| {np.abs(python_out - expected).max():.2e}, "
          f"bit-identical to C++ vanilla: {np.array_equal(python_out, cpp_out)}")
