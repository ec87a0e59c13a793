"""Runs a conv1d model, the original UltraTrail example's (as backends/ultra_trail/tests build
it), on the Python ultra_trail backend and compares it with the reference interpreter.

    PYTHONPATH=build/python python3 examples/python/run_conv1d.py
"""

import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import uma

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ultra_trail  # noqa: E402


def conv1d_model(path, batch=2):
    """x [batch, 3, 16] → conv1 (8 channels, kernel 3, padding 1, a bias operand) → relu →
    conv2 (4 channels, kernel 5, stride 2, padding 2/1) + a [4, 1] bias → + 42 (the host's)."""
    rng = np.random.default_rng(0)
    weights = {"w1": (8, 3, 3), "b1": (8,), "w2": (4, 8, 5), "b2": (4, 1)}
    initializers = [numpy_helper.from_array(rng.uniform(-1, 1, shape).astype(np.float32), name)
                    for name, shape in weights.items()]
    initializers.append(numpy_helper.from_array(np.array(42, np.float32), "forty_two"))
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], "conv1", kernel_shape=[3], pads=[1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], "relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], "conv2", kernel_shape=[5], strides=[2],
                         pads=[2, 1]),
        helper.make_node("Add", ["c2", "b2"], ["biased"], "bias2"),
        helper.make_node("Add", ["biased", "forty_two"], ["y"], "plus42"),
    ]
    graph = helper.make_graph(
        nodes, "conv1d", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


if __name__ == "__main__":
    uma.register_backend(ultra_trail.UltraTrail())
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "conv1d.onnx")
        conv1d_model(path)
        compiled = uma.build(uma.load(path), targets=["py_ultra_trail"])
        x = np.random.default_rng(1).uniform(-1, 1, (2, 3, 16)).astype(np.float32)
        [expected] = uma.interpret(uma.load(path), x)
    [out] = compiled(x)
    print(compiled.report)
    print(f"max |py_ultra_trail - reference| {np.abs(out - expected).max():.2e}")
