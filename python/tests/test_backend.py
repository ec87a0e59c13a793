"""Backends written in Python: declarations, callbacks, the errors of each callback, the
examples' vanilla bit-identical to the C++ one, and registration from two threads."""

import glob
import os
import threading

import numpy as np
import pytest

import uma
from conftest import DIGITS, DIGITS_MODEL, model_path, unique_name

SMALL = """module @small

func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>) {
  %0 = nn.relu(%x) : tensor<2x3xf32>
  %1 = negative(%0) : tensor<2x3xf32>
  return %1
}
"""

RELU_KERNEL = """#include <stdint.h>
int32_t py_relu(const float* x, float* y, int64_t n, float floor) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > floor ? x[i] : floor;
  return 0;
}
"""


def relu_call(call, target):
    relu = call.find("nn.relu")
    n = relu.result.shape[0] * relu.result.shape[1]
    return uma.ExternCall("py_relu", [call.address(relu.operands[0]),
                                      call.address(call.composite.outputs[0]), n,
                                      uma.const("f32", target.floor)])


class Relu(uma.Backend):
    """nn.relu as one call of a C kernel given as text."""

    def __init__(self, name, predicate=None, lower=relu_call):
        super().__init__(name)
        self.add_int_attr("floor", 0, "the least output")
        self.add_pattern("relu", uma.is_op("nn.relu", [uma.wildcard()]), predicate)
        self.add_composite_lowering("relu", lower)
        self.add_c_source("py_relu", RELU_KERNEL)
        self.set_extern_status(True)


def register(backend):
    uma.register_backend(backend)
    return backend.target_name


def test_a_python_backend_runs_its_c_kernel():
    name = register(Relu(unique_name("relu")))
    assert name in uma.backends() and name in uma.target_kinds()
    compiled = uma.build(uma.parse(SMALL), targets=[f"{name} --floor=1"])
    assert {t for _, t in compiled.functions} == {name, "c"}
    x = np.array([[-2, 0.5, 3], [4, -5, 1.5]], np.float32)
    [out] = compiled(x)
    np.testing.assert_array_equal(out, -np.maximum(x, 1))
    assert uma.Target(f"{name} --floor=1").floor == 1


def test_predicates_reject_with_their_reason():
    seen = []

    def predicate(match, target):
        seen.append((match.root.producer.op, [n.op for n in match.nodes], target.floor))
        return "relu is not wanted today"

    name = register(Relu(unique_name("relu"), predicate))
    report = uma.partition(uma.parse(SMALL), targets=[name])
    assert seen == [("nn.relu", ["nn.relu"], 0)]
    relu = next(r for r in report.records if r["op"] == "nn.relu")
    assert relu["target"] == "host"
    assert relu["rejections"] == [{"target": name, "kind": "PredicateRejected",
                                   "detail": "relu is not wanted today"}]


def test_pattern_vocabulary():
    conv = uma.is_op("nn.conv2d", [uma.wildcard(), uma.is_constant()])
    assert str(conv) == "nn.conv2d(*, const)"
    assert str(uma.is_op(["add", "multiply"])) == "{add, multiply}(...)"
    assert str(conv | uma.is_op("nn.relu")) == "(nn.conv2d(*, const) | nn.relu(...))"
    relu = uma.optional(conv, lambda p: uma.is_op("nn.relu", [p]))
    assert str(relu) == "(nn.relu(nn.conv2d(*, const)) | nn.conv2d(*, const))"
    assert "groups is 1" in str(conv.has_attr("groups", 1))
    assert "[dtype f32]" in str(conv.has_dtype("f32"))
    with pytest.raises(uma.Error, match="unknown dtype 'f33'"):
        conv.has_dtype("f33")


def test_attribute_and_type_predicates_in_python():
    name = unique_name("pool")
    backend = uma.Backend(name)
    small_pools = uma.is_op("nn.max_pool2d", [uma.wildcard()]).has_attr(
        "pool_size", lambda size: max(size) <= 1, "is at most 1x1")
    backend.add_pattern("pool", small_pools)
    register(backend)
    report = uma.partition(uma.load(DIGITS_MODEL), targets=[name])
    pool = next(r for r in report.records if r["op"] == "nn.max_pool2d")
    assert pool["target"] == "host"
    assert "attribute 'pool_size'" in pool["rejections"][0]["detail"]
    assert "is at most 1x1" in pool["rejections"][0]["detail"]


def test_graph_and_loop_ir_passes_run_at_their_phases():
    calls = []

    def graph_pass(phase):
        def run(module, target):
            calls.append((phase, isinstance(module, uma.Module), len(module.functions)))
            return False
        return run

    def tir_pass(func, target):
        calls.append(("TIR_PHASE_0", func.name, "py_relu" in str(func)))
        return None

    backend = Relu(unique_name("relu"))
    for phase in ["PRE_PARTITIONING", "POST_PARTITIONING_0", "POST_PARTITIONING_1"]:
        backend.add_graph_pass(phase, f"count-{phase}", graph_pass(phase))
    backend.add_tir_pass("TIR_PHASE_0", "look", tir_pass)
    name = register(backend)
    uma.build(uma.parse(SMALL), targets=[name])
    assert [c[0] for c in calls] == ["PRE_PARTITIONING", "POST_PARTITIONING_0",
                                     "POST_PARTITIONING_1", "TIR_PHASE_0"]
    assert calls[0][1:] == (True, 1) and calls[1][2] > 1
    assert calls[3][2]
    with pytest.raises(uma.Error, match="unknown graph phase 'LATER'"):
        uma.Backend("later").add_graph_pass("LATER", "x", graph_pass("x"))


def fail(*args):
    return 1 / 0


def test_an_exception_in_a_predicate_is_a_build_error():
    name = register(Relu(unique_name("relu"), fail))
    with pytest.raises(uma.Error) as error:
        uma.build(uma.parse(SMALL), targets=[name])
    message = str(error.value)
    assert message.startswith(f"backend '{name}': the predicate of pattern 'relu' raised an "
                              "exception:\nTraceback (most recent call last):\n")
    assert "in fail\n    return 1 / 0" in message
    assert message.endswith("ZeroDivisionError: division by zero")
    with pytest.raises(uma.Error, match="the predicate of pattern 'relu' raised"):
        uma.partition(uma.parse(SMALL), targets=[name])


def test_an_exception_in_a_graph_pass_is_a_build_error():
    backend = Relu(unique_name("relu"))
    backend.add_graph_pass("POST_PARTITIONING_0", "broken", fail)
    name = register(backend)
    with pytest.raises(uma.Error, match=f"backend '{name}': the graph pass 'broken' raised an "
                       "exception:\nTraceback(.|\n)*ZeroDivisionError: division by zero"):
        uma.build(uma.parse(SMALL), targets=[name])


def test_an_exception_in_a_lowering_is_a_build_error():
    name = register(Relu(unique_name("relu"), lower=fail))
    with pytest.raises(uma.Error, match=f"backend '{name}': the lowering of pattern 'relu' "
                       "raised an exception:\nTraceback(.|\n)*ZeroDivisionError"):
        uma.build(uma.parse(SMALL), targets=[name])


def test_callbacks_returning_the_wrong_kind_are_build_errors():
    name = register(Relu(unique_name("relu"), lambda match, target: 42))
    with pytest.raises(uma.Error, match=f"backend '{name}': the predicate of pattern 'relu' "
                       r"returned int, not None \(accept\) or a str"):
        uma.partition(uma.parse(SMALL), targets=[name])
    name = register(Relu(unique_name("relu"), lower=lambda call, target: "call"))
    with pytest.raises(uma.Error, match="the lowering of pattern 'relu' returned str, not a "
                       "uma.ExternCall"):
        uma.build(uma.parse(SMALL), targets=[name])


def test_an_extern_printer_prints_the_kernels_call(tmp_path):
    seen = []

    def print_call(name, args, target):
        seen.append((name, len(args)))
        # The kernel's last argument, the floor, raised by one where the call is printed.
        return f"{name}({', '.join(args[:-1])}, {args[-1]} + 1.0f)"

    backend = Relu(unique_name("relu"))
    backend.set_extern_printer(print_call)
    # A printed call gets no prototype of uma's: a header declares the kernel.
    (tmp_path / "py_relu.h").write_text(
        "#include <stdint.h>\nint32_t py_relu(const float*, float*, int64_t, float);\n")
    backend.add_include_dir(str(tmp_path))
    backend.add_include("py_relu.h")
    name = register(backend)
    compiled = uma.build(uma.parse(SMALL), targets=[f"{name} --floor=1"])
    assert seen == [("py_relu", 4)]
    x = np.array([[-2, 0.5, 3], [4, -5, 1.5]], np.float32)
    [out] = compiled(x)
    np.testing.assert_array_equal(out, -np.maximum(x, 2))


def test_an_extern_printer_returning_none_prints_the_default_call():
    backend = Relu(unique_name("relu"))
    backend.set_extern_printer(lambda name, args, target: None)
    name = register(backend)
    [out] = uma.build(uma.parse(SMALL), targets=[name])(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(out, -np.ones((2, 3), np.float32))


def test_an_exception_in_an_extern_printer_is_a_build_error():
    backend = Relu(unique_name("relu"))
    backend.set_extern_printer(fail)
    name = register(backend)
    with pytest.raises(uma.Error, match=f"backend '{name}': the extern-call printer raised an "
                       "exception:\nTraceback(.|\n)*ZeroDivisionError"):
        uma.build(uma.parse(SMALL), targets=[name])
    backend = Relu(unique_name("relu"))
    backend.set_extern_printer(lambda name, args, target: 42)
    name = register(backend)
    with pytest.raises(uma.Error, match=f"backend '{name}': the extern-call printer returned "
                       "int, not a str or None"):
        uma.build(uma.parse(SMALL), targets=[name])


def test_registration_errors():
    backend = Relu(unique_name("relu"))
    register(backend)
    with pytest.raises(uma.Error, match="was given to register_backend already"):
        uma.register_backend(backend)
    with pytest.raises(uma.Error, match="vanilla"):
        uma.register_backend(Relu("vanilla"))
    bad = uma.Backend(unique_name("bad"))
    bad.add_composite_lowering("nothing", relu_call)
    with pytest.raises(uma.Error, match="nothing"):
        uma.register_backend(bad)


def test_backends_register_from_two_threads():
    names = [unique_name("threaded") for _ in range(2)]
    errors = []

    def work(name):
        try:
            register(Relu(name))
            compiled = uma.build(uma.parse(SMALL), targets=[name])
            [out] = compiled(np.ones((2, 3), np.float32))
            np.testing.assert_array_equal(out, -np.ones((2, 3)))
        except Exception as e:  # reported below, with the thread's name
            errors.append((name, e))

    threads = [threading.Thread(target=work, args=(name,)) for name in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert set(names) <= set(uma.backends())


def run_both(path, python_target, cpp_target, inputs):
    python_build = uma.build(uma.load(path), targets=[python_target])
    cpp_build = uma.build(uma.load(path), targets=[cpp_target])
    assert ([t for _, t in python_build.functions] ==
            [t.replace("vanilla", "py_vanilla") for _, t in cpp_build.functions])
    for x in inputs:
        [py_out] = python_build(x)
        [cpp_out] = cpp_build(x)
        np.testing.assert_array_equal(py_out, cpp_out)  # bit-identical
    return python_build


def test_python_vanilla_is_bit_identical_to_cpp_vanilla_on_digits(py_vanilla):
    images = [np.load(p) for p in sorted(glob.glob(os.path.join(DIGITS, "sample_*_label*.npy")))]
    compiled = run_both(DIGITS_MODEL, "py_vanilla --dimension=8", "vanilla --dimension=8", images)
    assert sum(t == "py_vanilla" for _, t in compiled.functions) == 2


def test_python_vanilla_is_bit_identical_to_cpp_vanilla_on_resnet18(py_vanilla):
    path = model_path("resnet18_op17")
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    compiled = run_both(path, "py_vanilla", "vanilla", [x])
    assert sum(t == "py_vanilla" for _, t in compiled.functions) >= 10


LOOP_KERNEL = """#include <stdint.h>
int32_t py_relu_2d(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows * cols; ++i) y[i] = x[i] > 0 ? x[i] : 0;
  return 0;
}
"""


def test_a_loop_ir_pass_moves_a_buffer_to_sram_and_replaces_a_block_by_a_call():
    seen = {}

    def tensorize(func, target):
        schedule = uma.Schedule(func)
        block = schedule.get_block("relu")
        seen["block"] = schedule.block(block)
        seen["loops"] = schedule.get_loops(block)
        seen["params"] = func.params
        with pytest.raises(uma.Error, match="no_such_block"):
            schedule.get_block("no_such_block")
        copy = schedule.cache_read(block, seen["block"]["reads"][0]["name"], "sram")
        seen["copy"], seen["after"] = schedule.block(copy), schedule.block(block)
        schedule.replace_with_extern(block, "py_relu_2d")
        return schedule.func

    name = unique_name("relu_loops")
    backend = uma.Backend(name)
    backend.add_pattern("relu", uma.is_op("nn.relu", [uma.wildcard()]))
    backend.add_tir_pass("TIR_PHASE_0", "tensorize", tensorize)
    backend.add_c_source("py_relu_2d", LOOP_KERNEL)
    backend.set_extern_status(True)
    register(backend)
    compiled = uma.build(uma.parse(SMALL), targets=[name])
    x = np.array([[-2, 0.5, 3], [4, -5, 1.5]], np.float32)
    [out] = compiled(x)
    np.testing.assert_array_equal(out, -np.maximum(x, 0))
    code = "".join(c for _, c in compiled.c_sources)
    block = seen["block"]
    assert block["name"] == "relu" and len(seen["loops"]) == 2
    assert [(b["dtype"], b["shape"], b["scope"]) for b in block["reads"] + block["writes"]] == [
        ("f32", (2, 3), "global"), ("f32", (2, 3), "global")]
    assert [p["shape"] for p in seen["params"]] == [(2, 3), (2, 3)]
    sram = seen["block"]["reads"][0]["name"] + "_sram"
    assert seen["copy"]["writes"] == [{"name": sram, "dtype": "f32", "shape": (2, 3),
                                       "scope": "sram"}]
    assert seen["after"]["reads"] == seen["copy"]["writes"]
    assert f"float {sram}[6];  // scope sram" in code
    assert f"py_relu_2d(&{sram}[0], &out[0], 2, 3)" in code


def test_a_python_target_check_refuses_bad_attributes(py_vanilla):
    with pytest.raises(uma.Error, match="dimension must be between 1 and 64, not 0"):
        uma.build(uma.load(DIGITS_MODEL), targets=["py_vanilla --dimension=0"])


def test_op_support_takes_single_ops_with_its_reasons():
    name = unique_name("negate")
    backend = uma.Backend(name)
    backend.set_op_support(lambda node, target: None if node.op == "negative"
                           else f"{node.op} is not negative")
    register(backend)
    report = uma.partition(uma.parse(SMALL), targets=[name])
    targets = {r["op"]: r["target"] for r in report.records}
    assert targets == {"nn.relu": "host", "negative": name}
    relu = next(r for r in report.records if r["op"] == "nn.relu")
    assert relu["rejections"] == [{"target": name, "kind": "OpNotSupported",
                                   "detail": "nn.relu is not negative"}]


def test_a_block_schedule_changes_each_block_of_its_name():
    seen = []

    def to_sram(schedule, block, target):
        seen.append((schedule.block(block)["name"], target.kind))
        schedule.cache_read(block, schedule.block(block)["reads"][0]["name"], "sram")

    name = unique_name("relu_sram")
    backend = uma.Backend(name)
    backend.add_pattern("relu", uma.is_op("nn.relu", [uma.wildcard()]))
    backend.add_schedule("relu", to_sram)
    register(backend)
    compiled = uma.build(uma.parse(SMALL), targets=[name])
    assert seen == [("relu", name)]
    assert "float x_sram[6];  // scope sram" in "".join(c for _, c in compiled.c_sources)
    x = np.array([[-2, 0.5, 3], [4, -5, 1.5]], np.float32)
    np.testing.assert_array_equal(compiled(x)[0], -np.maximum(x, 0))


def test_a_block_schedules_errors_are_build_errors():
    for schedule, expected in [(fail, "raised an exception:\nTraceback(.|\n)*ZeroDivisionError"),
                               (lambda s, b, t: 42, "returned int, not None")]:
        name = unique_name("relu_sram")
        backend = uma.Backend(name)
        backend.add_pattern("relu", uma.is_op("nn.relu", [uma.wildcard()]))
        backend.add_schedule("relu", schedule)
        register(backend)
        with pytest.raises(uma.Error, match=f"backend '{name}': the schedule of block 'relu' "
                           + expected):
            uma.build(uma.parse(SMALL), targets=[name])
