"""Writes ONNX's node conformance tests (model.onnx + test_data_set_N/*.pb) into a folder.

Usage: /usr/bin/python3 generate_node_tests.py OUT_DIR

onnx 1.12's generator still uses numpy aliases that numpy removed (np.float, np.bool,
np.object, np.int); they are restored before it is imported.
"""
import os
import shutil
import sys
import warnings

import numpy as np

for alias, value in (("float", float), ("bool", bool), ("object", object), ("int", int)):
    if not hasattr(np, alias):
        setattr(np, alias, value)

warnings.simplefilter("ignore")
from onnx.backend.test.cmd_tools import main  # noqa: E402

out = sys.argv[1]
# A fresh folder, so that tests ONNX no longer generates do not linger.
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
sys.argv = ["generate_node_tests", "generate-data", "-o", out]
main()
