"""The examples' UltraTrail-like backend in Python: a conv1d model against the reference
interpreter, the layers it takes and refuses, its configuration registers and the
accelerator memories its buffers are placed in."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import uma
import ultra_trail
from conftest import unique_name
from run_conv1d import conv1d_model


@pytest.fixture(scope="module")
def py_ultra_trail():
    uma.register_backend(ultra_trail.UltraTrail())
    return "py_ultra_trail"


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("conv1d") / "conv1d.onnx")
    conv1d_model(path)
    return path


def test_the_conv1d_model_runs_on_the_accelerator_as_the_interpreter_runs_it(py_ultra_trail,
                                                                             model):
    compiled = uma.build(uma.load(model), targets=[py_ultra_trail])
    targets = {r["name"]: r["target"] for r in compiled.report.records}
    assert targets == {"conv1": py_ultra_trail, "relu1": py_ultra_trail,
                       "conv2": py_ultra_trail, "bias2": py_ultra_trail, "plus42": "host"}
    assert [t for _, t in compiled.functions] == [py_ultra_trail, "c"]
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = rng.uniform(-1, 1, (2, 3, 16)).astype(np.float32)
        [expected] = uma.interpret(uma.load(model), x)
        [out] = compiled(x)
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_the_tiles_are_in_the_accelerators_memories(py_ultra_trail, model):
    compiled = uma.build(uma.load(model), targets=[f"{py_ultra_trail} --fmem_kb=1"])
    code = dict(compiled.c_sources)[f"{py_ultra_trail}_0"]
    # fmem of 1 KiB holds neither layer's features (2 x 3 x 16 in, 2 x 8 x 16 out): each is
    # cut into two stripes of time, both samples at once, moved in and out by DMA.
    for declaration in ["float x_fmem[54];  // scope fmem", "float w1_wmem[72];  // scope wmem",
                        "float b1_bmem[8];  // scope bmem", "float r1_fmem[128];  // scope fmem"]:
        assert declaration in code
    # The first stripe of 8 samples with the left padding, the second without.
    assert ("ut_conv1d(&x_fmem[0], &w1_wmem[0], &b1_bmem[0], &r1_fmem[0], "
            "2, 8, 3, 8, 3, 1, 1, 9, 8, 1)") in code
    assert ("ut_conv1d(&x_fmem[0], &w1_wmem[0], &b1_bmem[0], &r1_fmem[0], "
            "2, 8, 3, 8, 3, 1, 0, 9, 8, 1)") in code
    assert "uma_dma_start(" in code
    # The report's plan of each layer.
    [conv1, conv2] = compiled.report.tilings
    assert (conv1["layer"], conv1["tile"], conv1["tiles"]) == ("conv1", [2, 8, 8], 2)
    assert [m["name"] for m in conv1["memories"]] == ["wmem", "fmem", "bmem"]
    assert all(m["peak"] <= m["capacity"] for m in conv1["memories"] + conv2["memories"])
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (2, 3, 16)).astype(np.float32)
    [expected] = uma.interpret(uma.load(model), x)
    [out] = compiled(x)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def wide_layer(path, channels):
    """x [1, channels, 64] → conv1d, 16 channels of kernel 3."""
    w = numpy_helper.from_array(np.ones((16, channels, 3), np.float32), "w")
    conv = helper.make_node("Conv", ["x", "w"], ["y"], "wide", kernel_shape=[3], pads=[1, 1])
    graph = helper.make_graph(
        [conv], "wide",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def test_a_layer_whose_smallest_tile_does_not_fit_stays_on_the_host(py_ultra_trail, tmp_path):
    path = str(tmp_path / "wide.onnx")
    # 300 input channels: one output needs a window of 300 x 3 values, 3600 bytes.
    wide_layer(path, 300)
    report = uma.partition(uma.load(path), targets=[f"{py_ultra_trail} --fmem_kb=1"])
    [record] = report.records
    assert record["target"] == "host"
    assert record["rejections"] == [{
        "target": py_ultra_trail, "kind": "PredicateRejected",
        "detail": "needs 3604 bytes of fmem at its smallest tile (1x1x1), has 1024"}]
    report = uma.partition(uma.load(path), targets=[f"{py_ultra_trail} --fmem_kb=4"])
    assert report.records[0]["target"] == py_ultra_trail


def test_a_memory_of_no_size_is_an_error_naming_its_attribute(py_ultra_trail, model):
    with pytest.raises(uma.Error, match="attribute 'bmem_kb' must be in \\[1, 1048576\\], not 0"):
        uma.build(uma.load(model), targets=[f"{py_ultra_trail} --bmem_kb=0"])


class WithAccumulators(ultra_trail.UltraTrail):
    """The examples' backend with a memory for partial sums, so that the core may cut a layer's
    input channels into chunks; its kernel starts each sum afresh, so `whole` keeps them whole."""

    def __init__(self, name, whole):
        super().__init__(name)
        self.add_memory("amem", 16, ["accumulators"], alignment=4, help="partial sums, KiB")
        if whole:
            self.keep_reductions_whole("conv1d")


def test_keep_reductions_whole_tiles_the_outputs_instead(tmp_path):
    path = str(tmp_path / "wide.onnx")
    # 64 input channels: 16 x 64 x 3 weights, 12 KiB, in a weight memory of 4 KiB.
    wide_layer(path, 64)
    cut, whole = unique_name("ut_cut"), unique_name("ut_whole")
    uma.register_backend(WithAccumulators(cut, whole=False))
    uma.register_backend(WithAccumulators(whole, whole=True))
    [plan] = uma.build(uma.load(path), targets=[f"{cut} --wmem_kb=4"]).report.tilings
    assert (plan["reductions"], plan["chunks"], plan["tile"]) == ([64], [10], [1, 16, 64])
    assert "amem" in [m["name"] for m in plan["memories"]]
    compiled = uma.build(uma.load(path), targets=[f"{whole} --wmem_kb=4"])
    [plan] = compiled.report.tilings
    assert (plan["reductions"], plan["chunks"], plan["tile"]) == ([64], [64], [1, 2, 64])
    assert "amem" not in [m["name"] for m in plan["memories"]]
    x = np.random.default_rng(3).uniform(-1, 1, (1, 64, 64)).astype(np.float32)
    [expected] = uma.interpret(uma.load(path), x)
    [out] = compiled(x)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_keep_reductions_whole_names_a_lowered_pattern():
    backend = ultra_trail.UltraTrail(unique_name("ut"))
    backend.keep_reductions_whole("conv2d")
    with pytest.raises(uma.Error, match=r"keep_reductions_whole\('conv2d'\): no composite "
                                        r"lowering of that pattern"):
        uma.register_backend(backend)
