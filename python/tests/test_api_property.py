"""A property of the Python API: any sequence of rewriter operations, builds and calls, on
handles live or erased, of this module or another, or kept from a callback that has returned,
either does what it says or raises uma.Error. The process never crashes (the sanitizer build
runs it too), a module that verifies interprets, and what it builds computes what the
interpreter computes."""

import random

import numpy as np
import pytest

import uma
from conftest import unique_name

MODELS = ["""module @first

func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>) {
  %0 = nn.relu(%x) : tensor<2x3xf32> loc("relu")
  %1 = add(%0, %y) : tensor<2x3xf32> loc("add")
  %2 = negative(%1) : tensor<2x3xf32> loc("neg")
  return %2
}
""", """module @second

func @main(%a: tensor<3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %0 = multiply(%a, %b) : tensor<2x3xf32>
  %1 = tanh(%a) : tensor<3xf32>
  return %0, %1
}
"""]

# Ops of one or two operands: most accept the values at hand, some (a shape that does not
# broadcast, a concatenation) are refused by the op's schema.
OPS = [("negative", 1), ("nn.relu", 1), ("abs", 1), ("tanh", 1), ("add", 2), ("multiply", 2),
       ("maximum", 2), ("subtract", 2), ("concatenate", 2)]


class Pool:
    """Every handle seen so far, live or not, of every module."""

    def __init__(self):
        self.nodes, self.values, self.functions = [], [], []

    def add_function(self, function):
        self.functions.append(function)
        self.values.extend(function.params)
        for node in function.nodes:
            self.nodes.append(node)
            self.values.extend(node.results)

    def add_module(self, module):
        for function in module.functions:
            self.add_function(function)


def stashing_backend(pool, rng):
    """A backend that claims nothing, whose callbacks keep what they are given and whose graph
    pass changes the module it is given, as a careless plugin would."""
    name = unique_name("prop")
    backend = uma.Backend(name)

    def graph_pass(module, target):
        pool.add_module(module)
        main = module.main
        if rng.random() < 0.5:
            main.insert("negative", [rng.choice(main.params)])  # dead code, which verifies
        return True

    def support(node, target):
        pool.nodes.append(node)
        pool.values.extend(node.operands)
        return "claims nothing"

    backend.add_graph_pass("PRE_PARTITIONING", "stash", graph_pass)
    backend.set_op_support(support)
    uma.register_backend(backend)
    return name


def inputs_of(module, rng):
    numbers = np.random.default_rng(rng.randrange(2**32))
    return [numbers.uniform(-2, 2, size=p.shape).astype(np.float32) for p in module.main.params]


def check_build(module, targets, rng, tmp_path):
    """Builds the module; its outputs must be the interpreter's on the module as it was."""
    before = uma.parse(str(module))
    inputs = inputs_of(before, rng)
    expected = uma.interpret(before, *inputs)
    compiled = uma.build(module, targets=targets, cache_dir=str(tmp_path))
    for out, ref in zip(compiled(*inputs), expected):
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    return compiled


def step(rng, modules, pool, targets, tmp_path, compiled):
    module = rng.choice(modules)
    function = rng.choice(pool.functions) if rng.random() < 0.3 else module.main
    kind = rng.choice(["insert", "insert", "erase", "replace", "set_operand", "build", "call",
                       "read"])
    if kind == "insert":
        op, arity = rng.choice(OPS)
        live = function.params + [r for n in function.nodes for r in n.results]
        operands = [rng.choice(live if rng.random() < 0.8 else pool.values) for _ in range(arity)]
        before = rng.choice(function.nodes + [None]) if rng.random() < 0.8 else rng.choice(pool.nodes)
        node = function.insert(op, operands, before=before)
        pool.nodes.append(node)
        pool.values.extend(node.results)
    elif kind == "erase":
        function.erase(rng.choice(function.nodes if rng.random() < 0.7 else pool.nodes))
    elif kind == "replace":
        function.replace_all_uses(rng.choice(pool.values), rng.choice(pool.values))
    elif kind == "set_operand":
        rng.choice(pool.nodes).set_operand(rng.randrange(3), rng.choice(pool.values))
    elif kind == "build":
        chosen = [t for t in targets if rng.random() < 0.5]
        compiled[0] = check_build(module, chosen, rng, tmp_path)
        pool.add_module(module)
    elif kind == "call" and compiled[0] is not None:
        shapes = [(2, 3)] * len(compiled[0].inputs)
        compiled[0](*[np.ones(s, np.float32) for s in shapes])
    else:
        handle = rng.choice(pool.nodes + pool.values + pool.functions)
        repr(handle)
        if isinstance(handle, uma.Node):
            [v.type for v in handle.operands + handle.results]


@pytest.mark.parametrize("seed", range(16))
def test_random_sequences_of_api_calls_do_what_they_say_or_raise(seed, tmp_path):
    rng = random.Random(seed)
    pool = Pool()
    targets = [stashing_backend(pool, rng)]
    modules = [uma.parse(text) for text in MODELS]
    for module in modules:
        pool.add_module(module)
    compiled = [None]
    outcomes = {"ok": 0, "error": 0}
    for _ in range(50):
        try:
            step(rng, modules, pool, targets, tmp_path, compiled)
            outcomes["ok"] += 1
        except uma.Error:
            outcomes["error"] += 1
        # Whatever happened, each module is either valid or says why not, and a valid one
        # interprets.
        for module in modules:
            try:
                module.verify()
            except uma.Error:
                continue
            if module.main.params:
                uma.interpret(module, *inputs_of(module, rng))
    assert outcomes["ok"] > 0 and outcomes["error"] > 0
