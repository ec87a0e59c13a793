// Helpers shared by the neural-network op families (private to src/op): conv.cc, nn.cc and
// pool.cc. Operand and attribute checks with their exact messages, sliding-window
// geometry, and the float conversions of the reference kernels.
//
// Kernels of these families read f16 and bf16 as f32, accumulate in double (a stricter
// reference than any backend that accumulates in f32) and round once to the result dtype.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "uma/graph/attribute.h"
#include "uma/graph/tensor.h"
#include "uma/graph/type.h"
#include "uma/support/error.h"

namespace uma::nn {

// ---- spatial layouts (1 to 3 spatial dimensions after N and C) ----

// "width" for rank 1; "height", "width" for rank 2; "depth", "height", "width" for rank 3.
const char* spatial_name(std::size_t rank, std::size_t dim);
// The letters of the spatial dimensions: "W", "HW", "DHW".
const char* spatial_letters(std::size_t rank);
// What the 2 * rank values of a padding attribute mean: "(top, left, bottom, right)".
const char* padding_meaning(std::size_t rank);

// ---- checks ----

// The operands share one of f32, f16 and bf16 (or i32 when `allow_i32`); `names` names them
// in messages ("data", "weight", "bias"), and only as many operands as there are are checked.
Status check_float_dtypes(const std::vector<Type>& inputs, std::initializer_list<const char*> names,
                          bool allow_i32 = false);

// The optional third operand (bias) holds one value per output channel or unit.
Status check_bias(const std::vector<Type>& inputs, std::int64_t count, const char* per);

// An ints attribute has `count` values, each at least `min` (0 or 1). `meaning` follows the
// count in the message, e.g. " (top, left, bottom, right)", or is "".
Status check_ints_attr(const AttrMap& attrs, const char* name, std::size_t count,
                       const char* meaning, std::int64_t min);

// The output size of a sliding window along one spatial dimension (named `what`, e.g.
// "height"): floor((input + padding - extent) / stride) + 1, where the window's extent is
// dilation * (kernel - 1) + 1. In ceil mode the division rounds up, but (as in ONNX and
// PyTorch) the last window must still start inside the input or its leading padding. A
// too-small input reports the size it would give, which tells the user by how much it misses.
Expected<std::int64_t> window_output_size(const char* what, std::int64_t input,
                                          std::int64_t pad_before, std::int64_t pad_after,
                                          std::int64_t kernel, std::int64_t dilation,
                                          std::int64_t stride, bool ceil_mode = false);

// ---- kernels ----

// Every element as a float (f16 and bf16 widened; small integers exactly).
std::vector<float> to_floats(const Tensor& t);
// Every element as a double (i32 exactly).
std::vector<double> to_doubles(const Tensor& t);
// A tensor of `type` from row-major values, each rounded once to the dtype.
TensorPtr from_doubles(const std::vector<double>& values, const TensorType& type);

// One spatial axis of a sliding window: output position o reads input positions
// o * stride - pad_before + k * dilation for the taps k in [0, kernel).
struct WindowAxis {
  std::int64_t input = 1, output = 1, kernel = 1, stride = 1, dilation = 1, pad_before = 0;
};

// The axes of a 1-, 2- or 3-D window as three, the missing leading ones of size 1, so that
// one loop nest serves every rank.
using Window3 = std::array<WindowAxis, 3>;

// The window over the spatial dimensions of `data` (N, C, spatial...) that gives `out`, with
// `kernel` the spatial window sizes and the strides, padding and dilation attributes
// (dilation may be empty, meaning all 1).
Window3 make_window(const Shape& data, const Shape& out, const Shape& kernel,
                    const std::vector<std::int64_t>& strides,
                    const std::vector<std::int64_t>& padding,
                    const std::vector<std::int64_t>& dilation);

// The x in [0, count) for which x * step + offset lies in [0, limit), as [begin, end)
// (empty when begin >= end). Lets loops visit only the taps or positions that land inside
// the input, instead of testing each.
struct Range {
  std::int64_t begin, end;
};
Range inside_range(std::int64_t count, std::int64_t limit, std::int64_t step, std::int64_t offset);

// Where tap k of a window axis reads: output position o reads input o * stride + offset, for
// the outputs in `outputs` (the others read padding). Per tap, so that kernels compute it
// once rather than per channel.
struct TapSpan {
  std::int64_t offset;
  Range outputs;
};
std::vector<TapSpan> tap_spans(const WindowAxis& axis);

}  // namespace uma::nn
