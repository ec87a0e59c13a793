#!/usr/bin/python3
"""Quantizes the bundled digits CNN (examples/digits) into a QDQ model, with its reference.

Written as ONNX's quantization tools write static int8 models, with numpy and onnx only:
each convolution reads its data through QuantizeLinear -> DequantizeLinear (u8, per tensor,
the range seen on the calibration images), its weight through DequantizeLinear (i8,
symmetric, one scale per output channel, axis 0) and its bias through DequantizeLinear (i32,
scale data_scale * weight_scale, zero point 0); its result goes through QuantizeLinear ->
DequantizeLinear before the float Relu. Pooling and the classifier stay float. The
calibration images are the held-out samples next to the model (never trained on).

The reference output is the QDQ graph's meaning evaluated in numpy: float arithmetic on the
dequantized values, rounding half to even at each QuantizeLinear. An int8 runtime sums the
same integers exactly but requantizes with one multiplier, so a value within rounding of a
half may land one quantum away; the test's tolerance allows for that.

Writes OUT/qdq_digits_op13/model.onnx, input_0.pb (sample 0) and output_0.pb.
usage: make_qdq_digits.py OUT
"""
import pathlib
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

DIGITS = pathlib.Path(__file__).resolve().parents[2] / "examples" / "digits"


def conv(x, w, b):
    """3x3 convolution, stride 1, padding 1, in float64."""
    n, c, h, width = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], h, width))
    for ky in range(3):
        for kx in range(3):
            window = padded[:, :, ky:ky + h, kx:kx + width]
            out += np.einsum("nchw,oc->nohw", window, w[:, :, ky, kx])
    return out + b[None, :, None, None]


def max_pool(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def quantize(x, scale, zero):
    return np.clip(np.round(x / scale) + zero, 0, 255).astype(np.uint8)


def dequantize(q, scale, zero):
    return ((q.astype(np.float32) - np.float32(zero)) * np.float32(scale)).astype(np.float32)


def u8_params(low, high):
    """Scale and zero point that map [min(low, 0), max(high, 0)] onto [0, 255]."""
    low, high = min(float(low), 0.0), max(float(high), 0.0)
    scale = np.float32((high - low) / 255.0)
    return scale, np.uint8(np.clip(np.round(-low / scale), 0, 255))


class Model:
    """The float digits CNN's weights, evaluated in float or with QDQ at the conv boundaries."""

    CONVS = ("features.0", "features.2", "features.5")

    def __init__(self, path):
        self.onnx = onnx.load(str(path))
        self.weights = {i.name: numpy_helper.to_array(i) for i in self.onnx.graph.initializer}

    def run(self, image, qdq=None):
        """Logits, and the values each QuantizeLinear sees (for calibration)."""
        seen = {}
        x = image.astype(np.float32)

        def boundary(name, value):
            seen[name] = value
            if qdq is None:
                return value
            scale, zero = qdq[name]
            return dequantize(quantize(value, scale, zero), scale, zero)

        for i, layer in enumerate(self.CONVS):
            x = boundary(f"{layer}.input", x)
            w, b = self.weights[f"{layer}.weight"], self.weights[f"{layer}.bias"]
            if qdq is not None:
                w, b = qdq[f"{layer}.weight"], qdq[f"{layer}.bias"]
            x = boundary(f"{layer}.output", conv(x, w, b).astype(np.float32))
            x = np.maximum(x, 0)
            if i == 1:
                x = max_pool(x)
        x = x.reshape(x.shape[0], -1)
        logits = x.astype(np.float64) @ self.weights["classifier.weight"].T.astype(np.float64)
        return (logits + self.weights["classifier.bias"]).astype(np.float32), seen

    def calibrate(self, images):
        """Per-tensor u8 parameters of every boundary, and the quantized weights and biases."""
        ranges = {}
        for image in images:
            _, seen = self.run(image)
            for name, value in seen.items():
                low, high = ranges.get(name, (0.0, 0.0))
                ranges[name] = (min(low, value.min()), max(high, value.max()))
        params = {name: u8_params(*r) for name, r in ranges.items()}
        for layer in self.CONVS:
            w = self.weights[f"{layer}.weight"]
            w_scale = (np.abs(w).reshape(w.shape[0], -1).max(axis=1) / 127).astype(np.float32)
            w_q = np.clip(np.round(w / w_scale[:, None, None, None]), -127, 127).astype(np.int8)
            b_scale = (params[f"{layer}.input"][0] * w_scale).astype(np.float32)
            b_q = np.round(self.weights[f"{layer}.bias"] / b_scale).astype(np.int32)
            params[f"{layer}.w"] = (w_q, w_scale)
            params[f"{layer}.b"] = (b_q, b_scale)
            # What the QDQ graph computes with: the dequantized weight and bias.
            params[f"{layer}.weight"] = w_q.astype(np.float32) * w_scale[:, None, None, None]
            params[f"{layer}.bias"] = b_q.astype(np.float32) * b_scale
        return params

    def qdq_graph(self, params):
        """The float graph with QuantizeLinear/DequantizeLinear around its convolutions."""
        graph = self.onnx.graph
        nodes, initializers = [], []

        def constant(name, array):
            initializers.append(numpy_helper.from_array(np.asarray(array), name))
            return name

        def qdq(value, key):
            scale, zero = params[key]
            s, z = constant(f"{key}.scale", scale), constant(f"{key}.zero_point", zero)
            nodes.append(helper.make_node("QuantizeLinear", [value, s, z], [f"{key}.q"]))
            nodes.append(helper.make_node("DequantizeLinear", [f"{key}.q", s, z], [f"{key}.dq"]))
            return f"{key}.dq"

        def dequantized(key, axis):
            values, scale = params[key]
            zero = np.zeros(scale.shape, values.dtype)
            inputs = [constant(key, values), constant(f"{key}.scale", scale),
                      constant(f"{key}.zero_point", zero)]
            nodes.append(helper.make_node("DequantizeLinear", inputs, [f"{key}.dq"], axis=axis))
            return f"{key}.dq"

        convs = iter(self.CONVS)
        renamed = {}
        for node in graph.node:
            inputs = [renamed.get(i, i) for i in node.input]
            if node.op_type != "Conv":
                nodes.append(helper.make_node(node.op_type, inputs, list(node.output),
                                              name=node.name))
                nodes[-1].attribute.extend(node.attribute)
                continue
            layer = next(convs)
            x = qdq(inputs[0], f"{layer}.input")
            w, b = dequantized(f"{layer}.w", 0), dequantized(f"{layer}.b", 0)
            conv_node = helper.make_node("Conv", [x, w, b], [f"{layer}.conv"], name=node.name)
            conv_node.attribute.extend(node.attribute)
            nodes.append(conv_node)
            renamed[node.output[0]] = qdq(f"{layer}.conv", f"{layer}.output")
        kept = [i for i in graph.initializer if i.name.startswith("classifier.")]
        out = helper.make_graph(nodes, "qdq_digits", list(graph.input), list(graph.output),
                                kept + initializers)
        model = helper.make_model(out, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def main():
    out = pathlib.Path(sys.argv[1]) / "qdq_digits_op13"
    out.mkdir(parents=True, exist_ok=True)
    images = [np.load(p) for p in sorted(DIGITS.glob("sample_*_label*.npy"))]
    model = Model(DIGITS / "digits_cnn.onnx")
    params = model.calibrate(images)
    onnx.save(model.qdq_graph(params), str(out / "model.onnx"))
    expected, _ = model.run(images[0], params)
    float_logits, _ = model.run(images[0])
    print(f"sample 0: float predicts {float_logits.argmax()}, QDQ predicts {expected.argmax()}")
    for name, array in (("input_0.pb", images[0]), ("output_0.pb", expected)):
        tensor = numpy_helper.from_array(np.ascontiguousarray(array))
        (out / name).write_bytes(tensor.SerializeToString())
    return 0


if __name__ == "__main__":
    sys.exit(main())
