"""Handles that cannot dangle, and operations that check what they are given: a node erased, a
module a build changed, what a callback was given once it returned, values and insertion points
of another function or module, uses before definitions, changes while a module is built, a
callback that re-enters the compiler, and the messages of inputs Python gives the wrong way."""

import gc
import pathlib

import numpy as np
import pytest

import uma
from conftest import DIGITS_MODEL, unique_name

NAMED = """module @named

func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>) {
  %0 = nn.relu(%x) : tensor<2x3xf32> loc("relu1")
  %1 = add(%0, %y) : tensor<2x3xf32> loc("add1")
  return %1
}
"""

OTHER = NAMED.replace("@named", "@other")


def raises(pattern):
    """uma.Error with exactly this message."""
    return pytest.raises(uma.Error, match="^" + pattern + "$")


def escaped(text):
    return "".join("\\" + c if c in ".()[]{}*+?^$|\\" else c for c in text)


def test_an_erased_node_and_its_results_raise():
    module = uma.parse(NAMED)
    main = module.main
    neg = main.insert("negative", [main.params[0]], name="neg")
    unnamed = main.insert("negative", [main.params[1]])
    result = neg.result
    main.erase(neg)
    main.erase(unnamed)
    with raises(escaped("node 'neg' (negative) of @main was erased")):
        neg.op
    with raises(escaped("result 0 of node 'neg' (negative) of @main was erased")):
        result.type
    with raises(escaped("a negative node of @main was erased")):
        repr(unnamed)
    with raises(escaped("node 'neg' (negative) of @main was erased")):
        main.erase(neg)
    with raises(escaped("result 0 of node 'neg' (negative) of @main was erased")):
        main.insert("negative", [result])
    # What was not erased is untouched, and the module still verifies.
    assert [n.op for n in main.nodes] == ["nn.relu", "add"]
    module.verify()


def test_handles_into_a_module_a_build_changed():
    module = uma.load(DIGITS_MODEL)
    main = module.main
    convs = [n for n in main.nodes if n.op == "nn.conv2d"]
    dense = next(n for n in main.nodes if n.op == "nn.dense")
    uma.build(module, targets=["vanilla --dimension=8"])
    # The convolutions moved into vanilla's functions; the dense layer into a fused function.
    with raises(escaped("node '/features/features.0/Conv' (nn.conv2d) of @main was erased")):
        convs[0].attrs
    with raises(escaped("node '/classifier/Gemm' (nn.dense) of @main was erased")):
        dense.operands
    # The same handles still read what the build made.
    assert "nn.conv2d" not in [n.op for n in main.nodes]
    assert any(f.attrs.get("Compiler") == "vanilla" for f in module.functions)


def test_handles_keep_their_module_alive():
    main = uma.parse(NAMED).main
    relu = main.nodes[0]
    del main
    gc.collect()
    assert relu.op == "nn.relu" and relu.result.users[0].name == "add1"


def relu_backend(name, **callbacks):
    backend = uma.Backend(name)
    backend.add_pattern("relu", uma.is_op("nn.relu", [uma.wildcard()]),
                        callbacks.get("predicate"))
    for phase, run in callbacks.get("passes", []):
        backend.add_graph_pass(phase, "pass", run)
    uma.register_backend(backend)
    return name


def test_what_a_callback_was_given_is_refused_after_it_returns():
    kept = {}

    def predicate(match, target):
        kept["match"], kept["node"] = match, match.root.producer
        return None

    def graph_pass(module, target):
        kept["module"], kept["main"] = module, module.main
        return False

    name = relu_backend(unique_name("keep"), predicate=predicate,
                        passes=[("PRE_PARTITIONING", graph_pass)])
    uma.partition(uma.parse(NAMED), targets=[name])
    predicate = f"backend '{name}': the predicate of pattern 'relu'"
    graph_pass = f"backend '{name}': the graph pass 'pass'"
    after = "which has returned; what a callback is given is valid only while it runs"
    with raises(escaped(f"uma.Match: module 'named' was given to {predicate}, {after}")):
        kept["match"].nodes
    with raises(escaped(f"node 'relu1' (nn.relu) of @main: module 'named' was given to "
                        f"{predicate}, {after}")):
        kept["node"].op
    with raises(escaped(f"uma.Module: module 'named' was given to {graph_pass}, {after}")):
        kept["module"].functions
    with raises(escaped(f"function @main: module 'named' was given to {graph_pass}, {after}")):
        kept["main"].insert("negative", [])


def test_a_lowerings_call_is_refused_after_it_returns():
    kept = {}
    kernel = "#include <stdint.h>\nint32_t kr(const float* x, float* y) { return 0; }\n"

    def lower(call, target):
        kept["call"] = call
        return uma.ExternCall("kr", [call.address(call.composite.params[0]),
                                     call.address(call.composite.outputs[0])])

    name = unique_name("lowered")
    backend = uma.Backend(name)
    backend.add_pattern("relu", uma.is_op("nn.relu", [uma.wildcard()]))
    backend.add_composite_lowering("relu", lower)
    backend.add_c_source("kr", kernel)
    backend.set_extern_status(True)
    uma.register_backend(backend)
    uma.build(uma.parse(NAMED), targets=[name])
    with raises(escaped(f"uma.CompositeCall: module 'named' was given to backend '{name}': the "
                        "lowering of pattern 'relu', which has returned; what a callback is given "
                        "is valid only while it runs")):
        kept["call"].find("nn.relu")


def test_a_predicate_may_only_read_the_module():
    errors = []

    def predicate(match, target):
        relu = match.root.producer
        try:
            relu.set_operand(0, relu.operands[0])
        except uma.Error as e:
            errors.append(str(e))
        return None

    name = relu_backend(unique_name("reader"), predicate=predicate)
    uma.partition(uma.parse(NAMED), targets=[name])
    assert errors == [f"node 'relu1' (nn.relu) of @main: module 'named' was given to backend "
                      f"'{name}': the predicate of pattern 'relu', which may only read it; a "
                      "graph pass may change the module it is given"]


def test_a_graph_pass_changes_its_module_but_builds_none_of_the_compilers():
    module = uma.parse(NAMED)
    errors = []

    def graph_pass(given, target):
        given.main.insert("negative", [given.main.params[0]], name="by_pass")
        for attempt in (lambda: uma.build(given), lambda: uma.build(module),
                        lambda: module.main.insert("negative", [module.main.params[0]])):
            try:
                attempt()
            except uma.Error as e:
                errors.append(str(e))
        return True

    name = relu_backend(unique_name("builder"), passes=[("PRE_PARTITIONING", graph_pass)])
    compiled = uma.build(module, targets=[name])
    assert errors == [
        f"uma.build: module 'named' was given to backend '{name}': the graph pass 'pass': the "
        "compiler is working on it, and it cannot be built or partitioned again meanwhile; build "
        "a module of your own (uma.parse, uma.load)",
        "uma.build: module 'named' is being built; only a graph pass may change it, through the "
        "module it is given",
        "function @main: module 'named' is being built; only a graph pass may change it, "
        "through the module it is given"]
    # What the pass did to its module stands; the build itself succeeded.
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(compiled(x, x)[0], np.full((2, 3), 2, np.float32))


def test_a_graph_pass_that_breaks_the_module_fails_the_build():
    def graph_pass(module, target):
        main = module.main
        wide = main.insert("concatenate", [main.params[0], main.params[1]], before=main.nodes[0])
        main.nodes[1].set_operand(0, wide.result)  # a relu of another shape: invalid
        return True

    name = relu_backend(unique_name("breaker"), passes=[("PRE_PARTITIONING", graph_pass)])
    with pytest.raises(uma.Error) as error:
        uma.build(uma.parse(NAMED), targets=[name])
    assert str(error.value) == (
        "the module is invalid after pass 'pass' (a bug in that pass): function @main: node "
        "'relu1' (nn.relu): result 0 has type tensor<2x3xf32>, inference gives tensor<4x3xf32>")


def test_values_and_insertion_points_of_another_module_raise():
    module, other = uma.parse(NAMED), uma.parse(OTHER)
    main, foreign = module.main, other.main
    with raises(escaped("@main: operand 1 is parameter 'x' of @main of module 'other', not a "
                        "value of this function")):
        main.insert("add", [main.params[0], foreign.params[0]])
    with raises(escaped("@main: the insertion point is node 'relu1' (nn.relu) of @main of "
                        "module 'other', not a node of this function")):
        main.insert("negative", [main.params[0]], before=foreign.nodes[0])
    with raises(escaped("@main: the replacement is result 0 of node 'relu1' (nn.relu) of @main "
                        "of module 'other', not a value of this function")):
        main.replace_all_uses(main.nodes[0].result, foreign.nodes[0].result)
    with raises(escaped("@main: operand 0 is parameter 'y' of @main of module 'other', not a "
                        "value of this function")):
        main.nodes[0].set_operand(0, foreign.params[1])
    with raises(escaped("@main: cannot erase node 'add1' (add) of @main of module 'other': it "
                        "is not a node of this function")):
        main.erase(foreign.nodes[1])
    assert str(module) == NAMED and str(other) == OTHER


def test_uses_before_definitions_raise():
    module = uma.parse(NAMED)
    main = module.main
    relu, add = main.nodes
    with raises(escaped("@main: operand 0 is result 0 of node 'add1' (add) of @main, which does "
                        "not come before the insertion point, node 'relu1' (nn.relu) of @main")):
        main.insert("negative", [add.result], before=relu)
    with raises(escaped("node 'relu1' (nn.relu): operand 0 cannot be result 0 of node 'relu1' "
                        "(nn.relu) of @main, which does not come before the node")):
        relu.set_operand(0, relu.result)
    neg = main.insert("negative", [add.result], name="late")
    with raises(escaped("@main: cannot replace result 0 of node 'relu1' (nn.relu) of @main by "
                        "result 0 of node 'late' (negative) of @main: node 'add1' (add) of @main "
                        "uses it and comes before the replacement")):
        main.replace_all_uses(relu.result, neg.result)
    main.erase(neg)
    assert str(module) == NAMED


def test_a_module_changed_to_break_its_types_is_refused_by_interpret_and_build():
    module = uma.parse(NAMED)
    main = module.main
    wide = main.insert("concatenate", [main.params[0], main.params[1]], before=main.nodes[0])
    main.nodes[1].set_operand(0, wide.result)
    message = ("function @main: node 'relu1' (nn.relu): result 0 has type tensor<2x3xf32>, "
               "inference gives tensor<4x3xf32>")
    x = np.ones((2, 3), np.float32)
    with raises(escaped(message)):
        uma.interpret(module, x, x)
    with raises(escaped(message)):
        uma.build(module)


def reentrant(name):
    def graph_pass(module, target):
        uma.build(uma.parse(NAMED), targets=[name])
        return False
    return relu_backend(name, passes=[("PRE_PARTITIONING", graph_pass)])


def test_a_callback_that_builds_for_its_own_backend_stops_at_a_depth_limit():
    name = reentrant(unique_name("recursive"))
    with pytest.raises(uma.Error) as error:
        uma.build(uma.parse(NAMED), targets=[name])
    message = str(error.value)
    assert message.startswith(f"pass 'pass': backend '{name}': the graph pass 'pass' raised an "
                              "exception:\n")
    assert (f"uma.Error: pass 'pass': backend '{name}': the graph pass 'pass' would run 17 "
            "callbacks deep: a "
            "callback that builds or partitions re-enters the compiler, and at most 16 callbacks "
            "may nest (does a backend's callback build for that backend?)") in message
    assert message.count("raised an exception") == 16


def test_big_endian_arrays_name_their_byte_order():
    module = uma.parse(NAMED)
    x = np.ones((2, 3), ">f4")
    hint = "; uma takes the machine's byte order (little-endian): astype('float32') converts the array"
    with raises(escaped("@main input 'x': dtype float32 in big-endian byte order, expected "
                        "float32 (f32)" + hint)):
        uma.interpret(module, x, x)
    with raises(escaped("input 'x': dtype float32 in big-endian byte order, expected float32 "
                        "(f32)" + hint)):
        uma.build(uma.parse(NAMED))(x, x)
    with raises(escaped("attribute: numpy dtype float32 in big-endian byte order has no uma "
                        "dtype" + hint)):
        module.main.set_attr("weights", x)
    [out] = uma.interpret(module, x.astype("float32"), x.astype("float32"))
    np.testing.assert_array_equal(out, np.full((2, 3), 2, np.float32))


def test_load_takes_paths_not_bytes(tmp_path):
    data = pathlib.Path(DIGITS_MODEL).read_bytes()
    with raises(escaped("uma.load takes a path (a str or os.PathLike), not bytes; to load a model "
                        "held in memory, write it to a file first")):
        uma.load(data)
    assert uma.load(pathlib.Path(DIGITS_MODEL)).main.name == "main"
    with raises(escaped(f"{tmp_path}/no\\x01such\\xFF.onnx: cannot open: No such file or "
                        "directory")):
        uma.load(tmp_path / "no\x01such\udcff.onnx")


def test_a_schedule_a_callback_kept_is_a_copy_of_its_own():
    kept = []
    name = unique_name("scheduled")
    backend = uma.Backend(name)
    backend.add_pattern("relu", uma.is_op("nn.relu", [uma.wildcard()]))
    backend.add_schedule("relu", lambda sched, block, target: kept.append((sched, block)))
    uma.register_backend(backend)
    uma.build(uma.parse(NAMED), targets=[name])
    sched, block = kept[0]
    assert sched.block(block)["name"] == "relu"
    sched.cache_read(block, sched.block(block)["reads"][0]["name"], "sram")  # changes only it
