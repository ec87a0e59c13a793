"""Writes the small ONNX models (and tensor files) the lit tests of `uma import` and `uma run`
use, generated at test time so that no binary model is checked in.

Usage: /usr/bin/python3 make_model.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper


def model(nodes, inputs, outputs, initializers=(), opset=13, name="m"):
    graph = h.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


def tensor(name, elem, shape):
    return h.make_tensor_value_info(name, elem, shape)


def save(out, name, m):
    # No checker: several of these models are broken on purpose.
    with open(os.path.join(out, name), "wb") as f:
        f.write(m.SerializeToString())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    x = tensor("x", T.FLOAT, [2, 3])
    y = tensor("y", T.FLOAT, None)

    save(out, "relu.onnx", model([h.make_node("Relu", ["x"], ["y"], name="relu")], [x], [y]))
    weight = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "w")
    save(out, "weights.onnx", model([h.make_node("Identity", ["w"], ["y"])], [], [y], [weight]))
    save(out, "symbolic.onnx",
         model([h.make_node("Relu", ["x"], ["y"])], [tensor("x", T.FLOAT, ["N", 3])], [y]))
    save(out, "flatten.onnx", model(
        [h.make_node("Shape", ["x"], ["s"]),
         h.make_node("Gather", ["s", "zero"], ["n"], axis=0),
         h.make_node("Concat", ["n", "minus_one"], ["shape"], axis=0),
         h.make_node("Reshape", ["x", "shape"], ["y"], name="flatten")],
        [tensor("x", T.FLOAT, ["N", 3, 4])], [y],
        [numpy_helper.from_array(np.array([0], np.int64), "zero"),
         numpy_helper.from_array(np.array([-1], np.int64), "minus_one")]))
    # The shape a Reshape needs at build time comes as a graph input, as ONNX's node tests give it.
    save(out, "reshape.onnx", model(
        [h.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
        [x, tensor("shape", T.INT64, [2])], [y]))
    save(out, "reshape_computed.onnx", model(
        [h.make_node("Add", ["shape", "offset"], ["s"]),
         h.make_node("Reshape", ["x", "s"], ["y"], name="reshape")],
        [x, tensor("shape", T.INT64, [2]), tensor("offset", T.INT64, [2])], [y]))
    save(out, "unsupported.onnx", model(
        [h.make_node("Foo", ["x"], ["a"], name="a"), h.make_node("Relu", ["a"], ["b"], name="b"),
         h.make_node("Foo", ["b"], ["c"], name="c"), h.make_node("Bar", ["c"], ["y"])],
        [x], [y]))
    save(out, "opset18.onnx", model([h.make_node("Relu", ["x"], ["y"])], [x], [y], opset=18))
    save(out, "missing.onnx", model([h.make_node("Add", ["x", "bias"], ["y"], name="add")], [x], [y]))
    save(out, "complex.onnx", model([h.make_node("Relu", ["x"], ["y"])],
                                    [tensor("x", T.COMPLEX64, [2])], [y]))
    with open(os.path.join(out, "garbage.onnx"), "wb") as f:
        f.write(b"\x0a\xff\xff\xff not a model")

    # External data: inside the model's folder, and a location that leaves it.
    os.makedirs(os.path.join(out, "ext"), exist_ok=True)
    np.arange(4, dtype=np.float32).tofile(os.path.join(out, "ext", "w.bin"))
    np.arange(4, dtype=np.float32).tofile(os.path.join(out, "secret.bin"))
    for name, location in (("inside.onnx", "w.bin"), ("outside.onnx", "../secret.bin")):
        w = T(name="w", data_type=T.FLOAT, dims=[4], data_location=T.EXTERNAL)
        entry = w.external_data.add()
        entry.key, entry.value = "location", location
        save(os.path.join(out, "ext"), name,
             model([h.make_node("Identity", ["w"], ["y"])], [], [y], [w]))

    # Tensor files for `uma run`.
    ones = np.ones((2, 3), np.float32)
    np.save(os.path.join(out, "ones.npy"), ones)
    np.save(os.path.join(out, "minus.npy"), -ones)
    np.save(os.path.join(out, "f64.npy"), ones.astype(np.float64))
    np.save(os.path.join(out, "shape3x2.npy"), np.array([3, 2], np.int64))
    np.save(os.path.join(out, "zero2.npy"), np.array([0, 0], np.int64))
    with open(os.path.join(out, "ones.pb"), "wb") as f:
        f.write(numpy_helper.from_array(ones).SerializeToString())


if __name__ == "__main__":
    main()
