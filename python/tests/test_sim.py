"""A build's estimates from Python: each layer npu_sim runs in tiles has its performance model's
figures in report.tilings, the same that `uma sim --json` prints for it."""

import json
import os
import subprocess

import numpy as np
import pytest

import uma

TOOL = os.environ.get("UMA_TOOL", "")
TARGET = "npu_sim --rows=8 --cols=8 --ifmap_kb=1"


def values(rng, count):
    return ", ".join(f"{v:.2f}" for v in rng.uniform(-1, 1, count))


def small_cnn():
    """conv2d + relu (its input of 3 KiB cut into tiles of a 1 KiB ifmap memory), max pool."""
    rng = np.random.default_rng(5)
    return f"""func @main(%x: tensor<1x3x16x16xf32>) -> (tensor<1x8x8x8xf32>) {{
  %w = constant {{value = dense<[{values(rng, 216)}]> : tensor<8x3x3x3xf32>}} : tensor<8x3x3x3xf32>
  %c = nn.conv2d(%x, %w) {{padding = [1, 1, 1, 1]}} : tensor<1x8x16x16xf32> loc("conv")
  %r = nn.relu(%c) : tensor<1x8x16x16xf32> loc("relu")
  %p = nn.max_pool2d(%r) {{pool_size = [2, 2], strides = [2, 2]}} : tensor<1x8x8x8xf32> loc("pool")
  return %p
}}
"""


@pytest.fixture(scope="module")
def tilings():
    return uma.build(uma.parse(small_cnn()), targets=[TARGET]).report.tilings


def test_each_tiled_layer_has_its_estimate(tilings):
    assert [(t["layer"], t["composite"]) for t in tilings] == [("conv", "npu_sim.conv2d"),
                                                               ("pool", "npu_sim.pool2d")]
    conv = tilings[0]["estimate"]
    assert conv["macs"] == 8 * 16 * 16 * 3 * 3 * 3
    assert tilings[0]["tiles"] > 1
    for t in tilings:
        e = t["estimate"]
        assert e["cycles"] == e["compute_cycles"] + e["stall_cycles"]
        assert e["cycles"] >= e["roofline_cycles"] > 0
        assert e["bound"] in ("compute", "memory")
        assert e["utilisation"] == pytest.approx(e["macs"] / (e["cycles"] * 8 * 8))
        assert e["energy_pj"] == pytest.approx(e["compute_pj"] + e["sram_pj"] + e["dram_pj"])
        # Host memory's traffic is what the plan moves.
        assert e["dram_bytes"] == t["traffic"]
        assert [m["memory"] for m in e["memories"]] == [m["name"] for m in t["memories"]] + ["dram"]


@pytest.mark.skipif(not TOOL, reason="set UMA_TOOL to the uma tool to test")
def test_the_estimates_are_uma_sims(tilings, tmp_path):
    model = tmp_path / "small_cnn.uma"
    model.write_text(small_cnn())
    ran = subprocess.run([TOOL, "sim", str(model), "--target", TARGET, "--json", "-"],
                         capture_output=True, text=True, check=True)
    layers = json.loads(ran.stdout)["layers"]
    assert [layer["layer"] for layer in layers] == ["conv", "pool"]
    for layer, t in zip(layers, tilings):
        assert {k: layer[k] for k in t["estimate"]} == t["estimate"]
