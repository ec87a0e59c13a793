"""An UltraTrail-like 1-D CNN accelerator (backends/ultra_trail/) in Python: each conv1d
layer (conv1d, optional bias, optional relu) is one call of a C kernel per tile. The backend
declares its memories; the core tiles each layer to fit them and moves the tiles by DMA.

    uma.register_backend(ultra_trail.UltraTrail())    # the target kind "py_ultra_trail"
    compiled = uma.build(uma.load("conv1d.onnx"), targets=["py_ultra_trail --fmem_kb=4"])
"""

import math

import uma

KERNEL = """#include <stddef.h>
#include <stdint.h>
// One tile of a layer on the accelerator, its operands in the accelerator's memories: features
// [batch][channels][length], weights [out][in][kernel]; output channels in blocks of the
// array's side. Padding on the left is `pad`; on the right, what lies past `lin`.
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
    bias per output channel. Whether it fits the memories is the core's question: they hold
    tiles of it."""
    conv, bias, _ = layer(nodes)
    if conv.operands[0].dtype != "f32":
        return f"the data is {conv.operands[0].dtype}; py_ultra_trail runs f32"
    if conv.attrs["groups"] != 1 or conv.attrs["dilation"] != [1]:
        return "py_ultra_trail runs groups 1 and dilation 1 only"
    if any(n.op == "add" for n in nodes):
        if len(conv.operands) == 3:
            return "the kernel adds one bias, and the convolution has its own"
        if not is_per_channel(bias.shape, conv.result.shape[1]):
            return f"the bias has shape {list(bias.shape)}, not one value per output channel"
    return None


def lower_conv1d(call, target):
    """One call of the kernel for a tile: the core calls this on a copy of the layer with the
    tile's shapes and padding, its operands the tile's buffers in the memories."""
    conv, bias, relu = layer(call.composite.nodes)
    (n, cin, lin), (cout, _, k), (_, _, lout) = (conv.operands[0].shape, conv.operands[1].shape,
                                                 conv.result.shape)
    return uma.ExternCall("ut_conv1d", [
        call.address(conv.operands[0]), call.address(conv.operands[1]), call.address_or_null(bias),
        call.address(call.composite.outputs[0]), n, target.dimension, cin, cout, k,
        conv.attrs["strides"][0], conv.attrs["padding"][0], lin, lout, int(relu)])


class UltraTrail(uma.Backend):
    def __init__(self, name="py_ultra_trail"):
        super().__init__(name)
        # 1. Target: the array's side, the memories (attributes wmem_kb, fmem_kb, bmem_kb) and
        # the DMA engine that fills them (the core's: a memcpy per row).
        self.add_int_attr("dimension", 8, "the array's side: output channels in blocks of it")
        self.set_target_check(lambda t: None if t.dimension > 0 else "dimension must be positive")
        self.add_memory("wmem", 64, ["weights"], alignment=4, help="weight memory, KiB")
        self.add_memory("fmem", 32, ["features"], alignment=4, help="feature memory, KiB")
        self.add_memory("bmem", 2, ["bias"], alignment=4, help="bias memory, KiB")
        self.set_dma(bytes_per_cycle=8, setup_cycles=16)
        # 2. Patterns: a conv1d layer the accelerator runs.
        self.add_pattern("conv1d", conv1d_pattern(), lambda match, target: check_layer(match.nodes, target))
        # 4. Lowering: one kernel call per tile, every operand a buffer in memory.
        self.add_composite_lowering("conv1d", lower_conv1d)
        self.set_max_immediate_elements(0)
        # 6. Codegen: the kernel, compiled with the generated code.
        self.add_c_source("ut_conv1d", KERNEL)
        self.set_extern_status(True)


if __name__ == "__main__":  # run as a plugin: `uma run model.onnx --plugin ultra_trail.py`
    uma.register_backend(UltraTrail())
