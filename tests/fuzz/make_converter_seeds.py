#!/usr/bin/python3
"""Writes the ONNX importer fuzzer's seeds for the converters of control flow (If, Loop, Scan),
of data-dependent ops (NonZero, Unique, NonMaxSuppression), GridSample and RoiAlign, Det and
MaxUnpool, and TfIdfVectorizer: one small model per file, each valid and importing, into the
folder given (tests/fuzz/corpus/onnx). Run with Debian's python3, which has python3-onnx."""
import os
import sys

import numpy as np
import onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def vi(name, dtype, shape):
    return h.make_tensor_value_info(name, dtype, shape)


def save(name, nodes, inputs, outputs, inits=(), opset=17):
    g = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)], producer_name="")
    m.ir_version = 8
    onnx.checker.check_model(m)
    data = m.SerializeToString()
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def i64(name, values):
    return nh.from_array(np.array(values, np.int64), name)


def f32(name, values):
    return nh.from_array(np.array(values, np.float32), name)


def b(name, values):
    return nh.from_array(np.array(values, np.bool_), name)


# If with a constant condition; Loop with a constant trip count and a carried state;
# Scan over the first axis with a running sum.
then_g = h.make_graph([h.make_node("Relu", ["x"], ["t"])], "then", [], [vi("t", T.FLOAT, [2])])
else_g = h.make_graph([h.make_node("Neg", ["x"], ["e"])], "else", [], [vi("e", T.FLOAT, [2])])
loop_body = h.make_graph(
    [h.make_node("Identity", ["c"], ["c2"]), h.make_node("Add", ["s", "x"], ["s2"]),
     h.make_node("Mul", ["s2", "x"], ["y"])],
    "body", [vi("i", T.INT64, []), vi("c", T.BOOL, []), vi("s", T.FLOAT, [2])],
    [vi("c2", T.BOOL, []), vi("s2", T.FLOAT, [2]), vi("y", T.FLOAT, [2])])
scan_body = h.make_graph(
    [h.make_node("Add", ["acc", "row"], ["acc2"]), h.make_node("Identity", ["acc2"], ["o"])],
    "scan", [vi("acc", T.FLOAT, [2]), vi("row", T.FLOAT, [2])],
    [vi("acc2", T.FLOAT, [2]), vi("o", T.FLOAT, [2])])
save("control_flow",
     [h.make_node("If", ["cond"], ["r"], then_branch=then_g, else_branch=else_g),
      h.make_node("Loop", ["n", "c", "r"], ["s", "ys"], body=loop_body),
      h.make_node("Scan", ["s", "m"], ["acc", "os"], body=scan_body, num_scan_inputs=1)],
     [vi("x", T.FLOAT, [2]), vi("m", T.FLOAT, [3, 2])],
     [vi("acc", T.FLOAT, [2]), vi("os", T.FLOAT, [3, 2]), vi("ys", T.FLOAT, [3, 2])],
     [b("cond", True), i64("n", 3), b("c", True)])

# NonZero, Unique and NonMaxSuppression on constants (they are decided at import).
save("data_dependent",
     [h.make_node("NonZero", ["z"], ["nz"]),
      h.make_node("Unique", ["u"], ["uy", "ui", "uinv", "uc"], axis=0, sorted=1),
      h.make_node("NonMaxSuppression", ["boxes", "scores", "mo", "iou", "st"], ["sel"],
                  center_point_box=0)],
     [], [vi("nz", T.INT64, ["a", "b"]), vi("uy", T.FLOAT, ["c", 2]), vi("ui", T.INT64, ["c"]),
          vi("uinv", T.INT64, [3]), vi("uc", T.INT64, ["c"]), vi("sel", T.INT64, ["d", 3])],
     [f32("z", [[0, 1, 0], [2, 0, 3]]), f32("u", [[1, 2], [1, 2], [0, 5]]),
      f32("boxes", [[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]]),
      f32("scores", [[[0.9, 0.8, 0.7]]]), i64("mo", [2]), f32("iou", [0.5]), f32("st", [0.1])])

# GridSample (bilinear, border) and RoiAlign.
save("sample",
     [h.make_node("GridSample", ["x", "grid"], ["g"], mode="bilinear", padding_mode="border",
                  align_corners=0),
      h.make_node("RoiAlign", ["x", "rois", "bi"], ["r"], output_height=2, output_width=2,
                  sampling_ratio=2, spatial_scale=1.0, mode="avg")],
     [vi("x", T.FLOAT, [1, 1, 3, 3]), vi("grid", T.FLOAT, [1, 2, 2, 2])],
     [vi("g", T.FLOAT, [1, 1, 2, 2]), vi("r", T.FLOAT, [1, 1, 2, 2])],
     [f32("rois", [[0, 0, 2, 2]]), i64("bi", [0])], opset=16)

# Det of a batch of 3x3 matrices; MaxUnpool from MaxPool's indices.
save("det_unpool",
     [h.make_node("Det", ["a"], ["d"]),
      h.make_node("MaxPool", ["x"], ["p", "pi"], kernel_shape=[2, 2], strides=[2, 2]),
      h.make_node("MaxUnpool", ["p", "pi"], ["u"], kernel_shape=[2, 2], strides=[2, 2])],
     [vi("a", T.FLOAT, [2, 3, 3]), vi("x", T.FLOAT, [1, 1, 4, 4])],
     [vi("d", T.FLOAT, [2]), vi("u", T.FLOAT, [1, 1, 4, 4])])

# TfIdfVectorizer: unigrams and bigrams with skips, TFIDF weights.
save("tfidf",
     [h.make_node("TfIdfVectorizer", ["t"], ["v"], mode="TFIDF", min_gram_length=1,
                  max_gram_length=2, max_skip_count=1, ngram_counts=[0, 3],
                  ngram_indexes=[0, 1, 2, 3, 4], pool_int64s=[2, 3, 5, 2, 3, 5, 7],
                  weights=[1.0, 0.5, 2.0, 1.5, 1.0])],
     [vi("t", T.INT64, [2, 6])], [vi("v", T.FLOAT, [2, 5])], opset=9)
