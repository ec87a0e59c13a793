"""The examples' UltraTrail-like backend in Python: a conv1d model against the reference
interpreter, the layers it takes and refuses, its configuration registers and the
accelerator memories its buffers are placed in."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import uma
import ultra_trail
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


def test_the_configuration_pass_records_each_layers_registers(py_ultra_trail, model):
    module = uma.load(model)
    uma.partition(module, targets=[f"{py_ultra_trail} --dimension=4"])
    configs = [f.attrs["ut.config"] for f in module.functions if "ut.config" in f.attrs]
    fields = ultra_trail.FIELDS
    assert [dict(zip(fields, c)) for c in configs] == [
        dict(batch=2, dimension=4, channels_in=3, channels_out=8, kernel=3, stride=1,
             pad_left=1, length_in=16, length_out=16, relu=1),
        dict(batch=2, dimension=4, channels_in=8, channels_out=4, kernel=5, stride=2,
             pad_left=2, length_in=16, length_out=8, relu=0)]


def test_the_buffers_are_in_the_accelerators_memories(py_ultra_trail, model):
    compiled = uma.build(uma.load(model), targets=[py_ultra_trail])
    code = dict(compiled.c_sources)[f"{py_ultra_trail}_0"]
    # Each memory's buffers share it: the second layer's weights and bias reuse the first's,
    # its output the input's features.
    for declaration in ["float x_fmem[96];  // scope fmem", "float w1_wmem[160];  // scope wmem",
                        "float b1_bmem[8];  // scope bmem", "float r1_fmem[256];  // scope fmem"]:
        assert declaration in code
    assert ("ut_conv1d(&x_fmem[0], &w1_wmem[0], &b1_bmem[0], &r1_fmem[0], "
            "2, 8, 3, 8, 3, 1, 1, 16, 16, 1)") in code
    assert ("ut_conv1d(&r1_fmem[0], &w1_wmem[0], &b1_bmem[0], &x_fmem[0], "
            "2, 8, 8, 4, 5, 2, 2, 16, 8, 0)") in code
    assert "biased[ax0_7 * 32 + ax1_5 * 8 + ax2_5] = x_fmem[" in code


def wide_layer(path):
    """x [1, 16, 64] → conv1d, 16 channels of kernel 3: 8 KiB of features a sample."""
    w = numpy_helper.from_array(np.ones((16, 16, 3), np.float32), "w")
    conv = helper.make_node("Conv", ["x", "w"], ["y"], "wide", kernel_shape=[3], pads=[1, 1])
    graph = helper.make_graph(
        [conv], "wide", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def test_a_layer_that_does_not_fit_stays_on_the_host(py_ultra_trail, tmp_path):
    path = str(tmp_path / "wide.onnx")
    wide_layer(path)
    report = uma.partition(uma.load(path), targets=[f"{py_ultra_trail} --fmem_kb=4"])
    [record] = report.records
    assert record["target"] == "host"
    assert record["rejections"] == [{
        "target": py_ultra_trail, "kind": "PredicateRejected",
        "detail": "node 'wide' (nn.conv1d): takes 8192 bytes of fmem, which holds 4096"}]
    report = uma.partition(uma.load(path), targets=[f"{py_ultra_trail} --fmem_kb=8"])
    assert report.records[0]["target"] == py_ultra_trail


def test_the_target_check_refuses_empty_memories(py_ultra_trail, model):
    with pytest.raises(uma.Error, match="dimension and the memories' sizes must be positive"):
        uma.build(uma.load(model), targets=[f"{py_ultra_trail} --bmem_kb=0"])
