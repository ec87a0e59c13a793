"""The API end to end: load, print, inspect and change a module, interpret it, targets,
partition, build and run on numpy arrays, and the errors of each."""

import glob
import json
import os
import re
import sysconfig

import numpy as np
import pytest

import uma
from conftest import DIGITS, DIGITS_MODEL

SMALL = """module @small

func @main(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>) {
  %0 = nn.relu(%x) : tensor<1x4xf32>
  return %0
}
"""


def samples():
    return sorted(glob.glob(os.path.join(DIGITS, "sample_*_label*.npy")))


def test_uma_is_an_extension_of_this_python():
    extension = uma._uma.__file__
    assert os.path.dirname(extension) == os.path.dirname(uma.__file__)
    assert extension.endswith(sysconfig.get_config_var("EXT_SUFFIX"))


def test_module_prints_as_graph_ir_and_parses_back():
    module = uma.parse(SMALL)
    assert str(module) == SMALL
    assert str(uma.parse(str(module))) == SMALL
    assert [f.name for f in module.functions] == ["main"]


def test_nodes_ops_attributes_and_types():
    module = uma.load(DIGITS_MODEL)
    main = module.main
    assert [p.name for p in main.params] == ["image"]
    assert main.params[0].shape == (1, 1, 8, 8) and main.params[0].dtype == "f32"
    convs = [n for n in main.nodes if n.op == "nn.conv2d"]
    assert len(convs) == 3
    conv = convs[0]
    assert conv.name == "/features/features.0/Conv"
    assert conv.attrs["padding"] == [1, 1, 1, 1] and conv.attrs["groups"] == 1
    assert conv.operands[0] is main.params[0] or conv.operands[0].name == "image"
    assert conv.result.type == "tensor<1x8x8x8xf32>"
    assert conv.operands[1].producer.op == "constant"
    assert [u.op for u in conv.result.users] == ["nn.relu"]


def test_rewriter_operations_change_the_module():
    module = uma.parse(SMALL)
    main = module.main
    relu = main.nodes[0]
    neg = main.insert("negative", [relu.result])
    main.replace_all_uses(relu.result, neg.result)
    # The negative's own operand was a use too: it reads the relu again.
    neg.set_operand(0, relu.result)
    assert [n.op for n in main.nodes] == ["nn.relu", "negative"]
    module.verify()
    [out] = uma.interpret(module, np.array([[-1, 2, -3, 4]], np.float32))
    np.testing.assert_array_equal(out, [[0, -2, 0, -4]])
    with pytest.raises(uma.Error, match=r"cannot erase .*: its results are used"):
        main.erase(relu)


def test_insert_checks_the_op_schema():
    module = uma.parse(SMALL)
    with pytest.raises(uma.Error, match="no_such_op"):
        module.main.insert("no_such_op", [module.main.params[0]])


def test_interpret_matches_the_recorded_logits():
    module = uma.load(DIGITS_MODEL)
    for sample in samples():
        logits = np.load(re.sub(r"_label\d+", "_logits", sample))
        [out] = uma.interpret(module, image=np.load(sample))
        np.testing.assert_allclose(out, logits, rtol=1e-5, atol=1e-5)


def test_target_attributes_are_readable():
    target = uma.Target("vanilla --dimension=8")
    assert target.kind == "vanilla" and not target.is_host
    assert target.dimension == 8 and target["dimension"] == 8
    assert target.attrs["dimension"] == 8 and target.attrs["mcpu"] == ""
    assert str(target) == "vanilla --dimension=8"
    assert uma.Target("c").is_host
    assert "vanilla" in uma.target_kinds()


def test_bad_targets_raise_uma_errors():
    with pytest.raises(uma.Error, match="no_such_npu"):
        uma.Target("no_such_npu")
    with pytest.raises(uma.Error, match="'size'"):
        uma.Target("vanilla --size=3")
    with pytest.raises(uma.Error, match="dimension must be between 1 and 64, not 0"):
        uma.build(uma.load(DIGITS_MODEL), targets=["vanilla --dimension=0"])


def test_partition_report_as_data_json_and_table():
    module = uma.load(DIGITS_MODEL)
    report = uma.partition(module, targets=[uma.Target("vanilla")])
    assert report.targets == ["vanilla"]
    by_op = {}
    for record in report.records:
        by_op.setdefault(record["op"], set()).add(record["target"])
    assert by_op["nn.conv2d"] == {"vanilla"} and by_op["nn.dense"] == {"host"}
    pool = next(r for r in report.records if r["op"] == "nn.max_pool2d")
    assert pool["rejections"][0]["target"] == "vanilla"
    assert pool["rejections"][0]["kind"] == "NoPatternMatched"
    summary = {row["target"]: row for row in report.summary}
    assert summary["vanilla"]["nodes"] == 6 and summary["vanilla"]["regions"] == 2
    assert json.loads(report.to_json())
    assert "vanilla.conv2d" in str(report) and str(report) == report.to_table()
    assert any(f.attrs.get("Compiler") == "vanilla" for f in module.functions)


def test_build_and_run_on_numpy_arrays():
    module = uma.load(DIGITS_MODEL)
    reference = uma.load(DIGITS_MODEL)
    compiled = uma.build(module, targets=["vanilla --dimension=8"], threads=2)
    assert compiled.inputs == ["image"]
    assert {target for _, target in compiled.functions} == {"vanilla", "c"}
    assert compiled.report.targets == ["vanilla"]
    assert any("vanilla_conv2dnchw" in code for _, code in compiled.c_sources)
    for sample in samples():
        image = np.load(sample)
        [expected] = uma.interpret(reference, image)
        [out] = compiled(image=image)
        assert out.dtype == np.float32 and out.shape == (1, 10) and out.flags.writeable
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def test_inputs_that_are_not_contiguous_are_copied():
    compiled = uma.build(uma.parse(SMALL))
    x = np.array([[-1, 2, -3, 4, 5, -6, 7, -8]], np.float32)[:, ::2]
    assert not x.flags.c_contiguous
    [out] = compiled(x)
    np.testing.assert_array_equal(out, [[0, 0, 5, 7]])


def test_wrong_inputs_raise_uma_errors():
    compiled = uma.build(uma.parse(SMALL))
    with pytest.raises(uma.Error, match=r"^input 'x': dtype float64, expected float32 \(f32\)$"):
        compiled(np.zeros((1, 4)))
    with pytest.raises(uma.Error, match=r"^input 'x': shape \(4\), expected \(1, 4\)$"):
        compiled(np.zeros(4, np.float32))
    with pytest.raises(uma.Error, match=r"^the model takes 1 input\(s\), not 2$"):
        compiled(np.zeros((1, 4), np.float32), np.zeros((1, 4), np.float32))
    with pytest.raises(uma.Error, match=r"^input 'x' is not given$"):
        compiled(y=np.zeros((1, 4), np.float32))
    with pytest.raises(uma.Error, match=r"dtype int32, expected float32"):
        uma.interpret(uma.parse(SMALL), np.zeros((1, 4), np.int32))


def test_load_errors_raise_uma_errors():
    with pytest.raises(uma.Error, match="missing.onnx"):
        uma.load("missing.onnx")
    with pytest.raises(uma.Error, match="input_shapes apply to ONNX models"):
        uma.load("model.uma", input_shapes={"x": [1]})
