"""The vanilla backend (backends/vanilla/) in Python: 2-D convolutions, with an optional bias
and relu or clip, offloaded to the C kernel backends/vanilla/kernels/vanilla_conv2d.c, one
call per composite. It declares what the C++ class declares, in the same order.

    import uma, vanilla
    uma.register_backend(vanilla.Vanilla())          # the target kind "py_vanilla"
    compiled = uma.build(uma.load("model.onnx"), targets=["py_vanilla --dimension=8"])
"""

import math
import os

import uma

KERNEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "backends",
                      "vanilla", "kernels", "vanilla_conv2d.c")
MAX_DIMENSION = 64  # VANILLA_MAX_DIMENSION in the kernel


def check_target(target):
    if not 1 <= target.dimension <= MAX_DIMENSION:
        return f"dimension must be between 1 and {MAX_DIMENSION}, not {target.dimension}"
    return None


def conv2d_pattern():
    """nn.conv2d with a constant weight (and maybe bias), an optional add of a constant in
    either order, an optional nn.relu or clip."""
    conv = uma.alt(uma.is_op("nn.conv2d", [uma.wildcard(), uma.is_constant(), uma.is_constant()]),
                   uma.is_op("nn.conv2d", [uma.wildcard(), uma.is_constant()]))
    bias = lambda x: (uma.is_op("add", [x, uma.is_constant()]) |
                      uma.is_op("add", [uma.is_constant(), x]))
    activation = lambda x: uma.is_op(["nn.relu", "clip"], [x])
    return uma.optional(uma.optional(conv, bias), activation)


def is_per_channel(bias, out):
    """Whether `bias`, broadcast against `out` (aligned at the right), holds one value per
    output channel in order: what the kernel reads."""
    if len(bias) > len(out) or math.prod(bias) != out[1]:
        return False
    offset = len(out) - len(bias)
    return all(d == 1 or offset + i == 1 for i, d in enumerate(bias))


def check_conv2d(match, target):
    """What the kernel cannot do, as the reason to reject the match."""
    conv = match.find("nn.conv2d")
    for operand in conv.operands:
        if operand.dtype != "f32":
            return f"vanilla.conv2d: {operand.dtype} is not supported; the kernel computes f32"
    if conv.attrs["groups"] != 1:
        return f"vanilla.conv2d: grouped convolutions (groups={conv.attrs['groups']}) are not supported"
    if any(d != 1 for d in conv.attrs["dilation"]):
        return "vanilla.conv2d: dilated convolutions are not supported"
    out = conv.result
    for node in match.nodes:
        if node.op != "add":
            continue
        if len(conv.operands) == 3:
            return "vanilla.conv2d: the kernel adds one bias, and the convolution has its own"
        if node.result.type != out.type:
            return f"vanilla.conv2d: the add broadcasts the convolution's result to {node.result.type}"
        for operand in node.operands:
            if operand.producer is None or operand.producer.op != "constant":
                continue
            if operand.dtype != "f32":
                return f"vanilla.conv2d: a {operand.dtype} bias is not supported"
            if not is_per_channel(operand.shape, out.shape):
                return "vanilla.conv2d: the added bias is not one value per output channel"
    return None


def lower_conv2d(call, target):
    """One call of the kernel with the composite's sizes, bias and clamp."""
    conv = call.find("nn.conv2d")
    data, weight = conv.operands[0].shape, conv.operands[1].shape
    strides, padding = conv.attrs["strides"], conv.attrs["padding"]
    bias = conv.operands[2] if len(conv.operands) == 3 else None
    if add := call.find("add"):
        bias = add.operands[1] if add.operands[0] == conv.result else add.operands[0]
    act_min, act_max = -math.inf, math.inf
    if call.find("nn.relu"):
        act_min = 0.0
    if clip := call.find("clip"):
        act_min, act_max = clip.attrs["a_min"], clip.attrs["a_max"]
    out = call.composite.outputs[0]
    return uma.ExternCall("vanilla_conv2dnchw", [
        call.address(conv.operands[0]), call.address(conv.operands[1]), call.address(out),
        weight[0], data[3], data[2], data[1], weight[2], weight[3], strides[0], strides[1],
        padding[0], padding[1], padding[2], padding[3], data[0], call.address_or_null(bias),
        uma.const("f32", act_min), uma.const("f32", act_max), target.dimension])


class Vanilla(uma.Backend):
    def __init__(self, name="py_vanilla"):
        super().__init__(name)
        # 1. Target: the kernel's output-channel tile.
        self.add_int_attr("dimension", 16, "output channels the kernel computes at once, 1 to 64")
        self.set_target_check(check_target)
        # 2. Patterns, each composite lowered to one call of the kernel.
        self.add_pattern("conv2d", conv2d_pattern(), check_conv2d)
        self.add_composite_lowering("conv2d", lower_conv2d)
        # 4. Lowering: the kernel reads every operand from memory.
        self.set_max_immediate_elements(0)
        # 6. Codegen: the kernel, compiled with the generated code; it returns nonzero for
        # arguments it refuses.
        self.add_c_source_file(KERNEL)
        self.set_extern_status(True)


if __name__ == "__main__":  # run as a plugin: `uma run model.onnx --plugin vanilla.py`
    uma.register_backend(Vanilla())
