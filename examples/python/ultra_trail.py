"""An UltraTrail-like 1-D CNN accelerator (backends/ultra_trail/) in Python: each conv1d
layer (conv1d, optional bias, optional relu) is one call of a C kernel, configured by a
configuration pass, its buffers placed in the accelerator's memories by a loop-IR pass.

    uma.register_backend(ultra_trail.UltraTrail())    # the target kind "py_ultra_trail"
    compiled = uma.build(uma.load("conv1d.onnx"), targets=["py_ultra_trail --wmem_kb=16"])
"""

import math

import uma

CONFIG = "ut.config"  # the composite's attribute the configuration pass sets
# The configuration registers, in ut_conv1d's order after its four pointers.
FIELDS = ["batch", "dimension", "channels_in", "channels_out", "kernel", "stride", "pad_left",
          "length_in", "length_out", "relu"]

KERNEL = """#include <stddef.h>
#include <stdint.h>
// One layer on the accelerator: features [batch][channels][length], weights
// [out][in][kernel]; output channels in blocks of the array's side.
int32_t ut_conv1d(const float* x, const float* w, const float* b, float* y, int64_t batch,
                  int64_t dim, int64_t cin, int64_t cout, int64_t k, int64_t stride,
                  int64_t pad, int64_t lin, int64_t lout, int64_t relu) {
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t block = 0; block < cout; block += dim)
      for (int64_t co = block; co < cout && co < block + dim; ++co)
        for (int64_t t = 0; t < lout; ++t) {
          float sum = 0.0f;
          for (int64_t ci = 0; ci < cin; ++ci)
            for (int64_t i = 0; i < k; ++i) {
              int64_t at = t * stride + i - pad;
              if (at >= 0 && at < lin) sum += x[(n * cin + ci) * lin + at] * w[(co * cin + ci) * k + i];
            }
          if (b != NULL) sum += b[co];
          y[(n * cout + co) * lout + t] = relu && sum < 0.0f ? 0.0f : sum;
        }
  return 0;
}
"""


def conv1d_pattern():
    """nn.conv1d with a constant weight (and maybe bias), an optional add of a constant in
    either order, an optional nn.relu."""
    conv = uma.alt(uma.is_op("nn.conv1d", [uma.wildcard(), uma.is_constant(), uma.is_constant()]),
                   uma.is_op("nn.conv1d", [uma.wildcard(), uma.is_constant()]))
    bias = lambda x: uma.is_op("add", [x, uma.is_constant()]) | uma.is_op("add", [uma.is_constant(), x])
    return uma.optional(uma.optional(conv, bias), lambda x: uma.is_op("nn.relu", [x]))


def layer(nodes):
    """The layer's conv1d node, its bias value (or None) and whether it ends in a relu."""
    conv = next(n for n in nodes if n.op == "nn.conv1d")
    bias = conv.operands[2] if len(conv.operands) == 3 else None
    for add in (n for n in nodes if n.op == "add"):
        bias = add.operands[1] if add.operands[0] == conv.result else add.operands[0]
    return conv, bias, any(n.op == "nn.relu" for n in nodes)


def is_per_channel(shape, channels):
    """Whether a bias of `shape`, broadcast against [batch, channels, length] (aligned at the
    right), holds one value per channel: the kernel reads b[channel]."""
    offset = 3 - len(shape)
    return (offset >= 0 and math.prod(shape) == channels and
            all(d == 1 or offset + i == 1 for i, d in enumerate(shape)))


def check_layer(nodes, target):
    """Why the accelerator cannot run the layer, or None: f32 only, one group, no dilation, a
    bias per output channel, and weights, bias and one sample's features fitting memory."""
    conv, bias, _ = layer(nodes)
    if conv.operands[0].dtype != "f32":
        return f"the data is {conv.operands[0].dtype}; py_ultra_trail runs f32"
    if conv.attrs["groups"] != 1 or conv.attrs["dilation"] != [1]:
        return "py_ultra_trail runs groups 1 and dilation 1 only"
    (_, cin, lin), (cout, _, k), (_, _, lout) = (conv.operands[0].shape, conv.operands[1].shape,
                                                 conv.result.shape)
    if any(n.op == "add" for n in nodes):
        if len(conv.operands) == 3:
            return "the kernel adds one bias, and the convolution has its own"
        if not is_per_channel(bias.shape, cout):
            return f"the bias has shape {list(bias.shape)}, not one value per output channel"
    for memory, size, kb in [("wmem", cout * cin * k * 4, target.wmem_kb),
                             ("bmem", cout * 4 if bias else 0, target.bmem_kb),
                             ("fmem", (cin * lin + cout * lout) * 4, target.fmem_kb)]:
        if size > kb * 1024:
            return f"{conv.location}: takes {size} bytes of {memory}, which holds {kb * 1024}"
    return None


def configure(module, target):
    """POST_PARTITIONING_0: each layer's configuration registers, as the composite's "ut.config";
    a layer the memories cannot hold (another partitioner may have let it in) fails the build."""
    for function in module.functions:
        if function.attrs.get("Compiler") != target.kind:
            continue
        for call in function.nodes:
            nodes = call.callee.nodes
            if reason := check_layer(nodes, target):
                raise uma.Error(f"@{function.name}: {reason}")
            conv, bias, relu = layer(nodes)
            (n, cin, lin), (cout, _, k) = conv.operands[0].shape, conv.operands[1].shape
            call.callee.set_attr(CONFIG, [n, target.dimension, cin, cout, k, conv.attrs["strides"][0],
                                          conv.attrs["padding"][0], lin, conv.result.shape[2], int(relu)])
    return True


def lower_conv1d(call, target):
    """One call of the kernel, configured by the configuration pass's registers."""
    conv, bias, _ = layer(call.composite.nodes)
    return uma.ExternCall("ut_conv1d", [
        call.address(conv.operands[0]), call.address(conv.operands[1]), call.address_or_null(bias),
        call.address(call.composite.outputs[0])] + call.composite.attrs[CONFIG])


def place_buffers(func, target):
    """TIR_PHASE_0: each layer reads its weights from "wmem", its bias from "bmem" and its
    input features from "fmem", and writes its output features to "fmem"."""
    schedule = uma.Schedule(func)
    for block in schedule.get_blocks(f"{target.kind}.conv1d"):
        x, w, *b = [buffer["name"] for buffer in schedule.block(block)["reads"]]
        for buffer, scope in [(x, "fmem"), (w, "wmem")] + [(name, "bmem") for name in b]:
            schedule.cache_read(block, buffer, scope)
        schedule.cache_write(block, schedule.block(block)["writes"][0]["name"], "fmem")
    return schedule.func


class UltraTrail(uma.Backend):
    def __init__(self, name="py_ultra_trail"):
        super().__init__(name)
        # 1. Target: the array's side and the memories' sizes.
        self.add_int_attr("dimension", 8, "the array's side: output channels in blocks of it")
        self.add_int_attr("wmem_kb", 64, "weight memory, KiB")
        self.add_int_attr("fmem_kb", 32, "feature memory, KiB: one sample's input and output")
        self.add_int_attr("bmem_kb", 2, "bias memory, KiB")
        self.set_target_check(lambda t: None if min(t.dimension, t.wmem_kb, t.fmem_kb, t.bmem_kb) > 0
                              else "dimension and the memories' sizes must be positive")
        # 2. Patterns: a conv1d layer the accelerator runs.
        self.add_pattern("conv1d", conv1d_pattern(), lambda match, target: check_layer(match.nodes, target))
        # 3. Graph passes: the configuration registers.
        self.add_graph_pass("POST_PARTITIONING_0", "py-ultra-trail-config", configure)
        # 4. Lowering: one kernel call per layer, every operand a buffer in memory.
        self.add_composite_lowering("conv1d", lower_conv1d)
        self.set_max_immediate_elements(0)
        # 5. Loop-IR passes: the buffers in the accelerator's memories.
        self.add_tir_pass("TIR_PHASE_0", "py-ultra-trail-scopes", place_buffers)
        # 6. Codegen: the kernel, compiled with the generated code.
        self.add_c_source("ut_conv1d", KERNEL)
        self.set_extern_status(True)


if __name__ == "__main__":  # run as a plugin: `uma run model.onnx --plugin ultra_trail.py`
    uma.register_backend(UltraTrail())
