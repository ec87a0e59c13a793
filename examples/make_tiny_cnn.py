#!/usr/bin/python3
"""Writes examples/tiny_cnn.uma: a small CNN (conv-relu-conv-relu-dense) in graph IR text.

The weights are fixed pseudo-random numbers (a seeded generator, no downloads), so the
file is reproducible: run this script again and the file comes out byte for byte the same.
"""
import pathlib
import random
import struct


def hex_f32(values):
    return "0x" + b"".join(struct.pack("<f", v) for v in values).hex().upper()


def weights(rng, count, scale):
    return [round(rng.uniform(-scale, scale), 4) for _ in range(count)]


def main():
    rng = random.Random(2026)
    w1 = weights(rng, 4 * 1 * 3 * 3, 0.5)
    b1 = weights(rng, 4, 0.1)
    w2 = weights(rng, 8 * 4 * 3 * 3, 0.3)
    d1 = weights(rng, 10 * 8 * 4 * 4, 0.2)
    text = f"""// A small CNN on an 8x8 one-channel image with 10 class scores; made by make_tiny_cnn.py.
module @tiny_cnn

func @main(%image: tensor<1x1x8x8xf32>) -> (tensor<1x10xf32>) {{
  %w1 = constant {{value = @conv1.weight}} : tensor<4x1x3x3xf32>
  %b1 = constant {{value = dense<[{", ".join(repr(v) for v in b1)}]> : tensor<4xf32>}} : tensor<4xf32>
  %conv1 = nn.conv2d(%image, %w1, %b1) {{padding = [1, 1, 1, 1]}} : tensor<1x4x8x8xf32> loc("conv1")
  %relu1 = nn.relu(%conv1) : tensor<1x4x8x8xf32> loc("relu1")
  %w2 = constant {{value = @conv2.weight}} : tensor<8x4x3x3xf32>
  %conv2 = nn.conv2d(%relu1, %w2) {{padding = [1, 1, 1, 1], strides = [2, 2]}} : tensor<1x8x4x4xf32> loc("conv2")
  %relu2 = nn.relu(%conv2) : tensor<1x8x4x4xf32> loc("relu2")
  %flat = reshape(%relu2) {{newshape = [1, 128]}} : tensor<1x128xf32> loc("flatten")
  %wd = constant {{value = @fc.weight}} : tensor<10x128xf32>
  %scores = nn.dense(%flat, %wd) : tensor<1x10xf32> loc("fc")
  return %scores
}}

data @conv1.weight : tensor<4x1x3x3xf32> = "{hex_f32(w1)}"
data @conv2.weight : tensor<8x4x3x3xf32> = "{hex_f32(w2)}"
data @fc.weight : tensor<10x128xf32> = "{hex_f32(d1)}"
"""
    out = pathlib.Path(__file__).with_name("tiny_cnn.uma")
    out.write_text(text)


if __name__ == "__main__":
    main()
