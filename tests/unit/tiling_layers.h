// Layers for the tiling property tests (tiling_property_test.cc), each with its geometry
// written out from its op's definition: the region of each operand that an output tile needs
// (a convolution's input window, its group's channels, a weight's output-channel slice), so
// that a test counts what a plan moves without the core's region derivation
// (uma/tiling/region.h). Random ones from a generator, or made from given parameters.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tensor_util.h"
#include "test_npu.h"
#include "uma/graph/builder.h"
#include "uma/tiling/memory.h"

namespace uma::tiling_test {

// An operand's region on one dimension for the output tile [lo, hi] of the axis it follows:
// [first, last], before clamping to the operand.
using RegionOf = std::function<std::pair<std::int64_t, std::int64_t>(std::int64_t, std::int64_t)>;

struct Operand {
  std::string name;  // the value's (the output's is the layer's last node's)
  tiling::Role role = tiling::Role::kFeatures;
  bool output = false;
  Shape shape;
  std::vector<std::optional<std::size_t>> axis;  // per dimension: the output axis it follows
  std::vector<RegionOf> region;                  // per dimension that follows an axis
  std::int64_t bytes() const { return TensorType{DType::f32, shape}.num_elements() * 4; }
};

struct Layer {
  std::string description;  // for failure messages
  std::string target;       // the kind of the target that takes it
  // Adds the layer to `f`, its inputs as parameters, and returns its result.
  std::function<Value*(Function&)> emit;
  std::vector<Operand> operands;  // its inputs, then its output
};

inline std::int64_t pick(std::mt19937& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint32_t>(hi - lo + 1));
}

inline RegionOf same() {
  return [](std::int64_t lo, std::int64_t hi) { return std::pair{lo, hi}; };
}

// Windows of `kernel` taps `dilation` apart, one every `stride`, after `pad` of padding.
inline RegionOf window(std::int64_t stride, std::int64_t pad, std::int64_t kernel,
                       std::int64_t dilation) {
  return [=](std::int64_t lo, std::int64_t hi) {
    return std::pair{lo * stride - pad, hi * stride - pad + (kernel - 1) * dilation};
  };
}

inline void fixed(Operand& o, std::int64_t extent) {
  o.shape.push_back(extent);
  o.axis.push_back(std::nullopt);
  o.region.push_back(nullptr);
}

inline void follows(Operand& o, std::int64_t extent, std::size_t axis, RegionOf region) {
  o.shape.push_back(extent);
  o.axis.push_back(axis);
  o.region.push_back(std::move(region));
}

// An operand whose every dimension is the output's own.
inline Operand elementwise(const std::string& name, const Shape& shape, bool output) {
  Operand o{.name = name, .output = output};
  for (std::size_t a = 0; a < shape.size(); ++a) follows(o, shape[a], a, same());
  return o;
}

inline Value* constant(Builder& b, Shape shape, unsigned seed, const std::string& name) {
  Value* value = b.constant(test::random_tensor(std::move(shape), seed));
  value->set_name(name);
  return value;
}

enum class Bias { kNone, kOperand, kAdded };

// The windows along an axis of `input` (src/op/nn_util.cc's window_output_size).
inline std::int64_t windows(std::int64_t input, std::int64_t pad_before, std::int64_t pad_after,
                            std::int64_t kernel, std::int64_t dilation, std::int64_t stride,
                            bool ceil_mode) {
  std::int64_t span = input + pad_before + pad_after - ((kernel - 1) * dilation + 1);
  std::int64_t count = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // A last window that would start past the data and its leading padding is dropped.
  if (ceil_mode && count > 1 && (count - 1) * stride >= input + pad_before) --count;
  return count;
}

// ---- Convolutions ----

// A convolution of `rank` = size.size() spatial dimensions: conv1d for ultra_trail, conv2d
// for test_npu.
struct Conv {
  std::int64_t batch = 1, channels = 1, out_channels = 1, groups = 1;
  std::vector<std::int64_t> size, kernel, strides, dilation;  // per spatial dimension
  std::vector<std::int64_t> padding;                          // the begins, then the ends
  Bias bias = Bias::kNone;
  bool bias_leading_one = false;  // an added bias [1, O, 1...] rather than [O, 1...]
  bool relu = false;
  unsigned seed = 0;  // of the constants
};

inline Layer conv_layer(const Conv& c) {
  std::size_t rank = c.size.size();
  Shape x_shape{c.batch, c.channels}, w_shape{c.out_channels, c.channels / c.groups},
      y_shape{c.batch, c.out_channels};
  for (std::size_t s = 0; s < rank; ++s) {
    x_shape.push_back(c.size[s]);
    w_shape.push_back(c.kernel[s]);
    y_shape.push_back(windows(c.size[s], c.padding[s], c.padding[rank + s], c.kernel[s],
                              c.dilation[s], c.strides[s], false));
  }
  Shape b_shape{c.out_channels};
  if (c.bias == Bias::kAdded) {
    b_shape.insert(b_shape.end(), rank, 1);
    if (c.bias_leading_one) b_shape.insert(b_shape.begin(), 1);
  }
  std::string op = rank == 1 ? "nn.conv1d" : "nn.conv2d";
  Layer layer;
  layer.description =
      fmt::format("{} x {} w {} groups {} strides {} padding {} dilation {} bias {} relu {}", op,
                  to_string(x_shape), to_string(w_shape), c.groups, fmt::join(c.strides, ","),
                  fmt::join(c.padding, ","), fmt::join(c.dilation, ","),
                  c.bias == Bias::kNone ? "none" : to_string(b_shape), c.relu);
  layer.target = rank == 1 ? "ultra_trail" : std::string(kTestNpu);
  layer.emit = [=](Function& f) {
    Builder b(f);
    std::vector<Value*> operands{f.add_param(TensorType{DType::f32, x_shape}, "x"),
                                 constant(b, w_shape, c.seed, "w")};
    if (c.bias == Bias::kOperand) operands.push_back(constant(b, b_shape, c.seed + 1, "b"));
    AttrMap attrs;
    attrs.set("strides", c.strides);
    attrs.set("padding", c.padding);
    attrs.set("dilation", c.dilation);
    attrs.set("groups", c.groups);
    Value* y = b.create(op, operands, attrs, "conv")->result();
    if (c.bias == Bias::kAdded)
      y = b.create("add", {y, constant(b, b_shape, c.seed + 1, "b")}, {}, "bias")->result();
    if (c.relu) y = b.create("nn.relu", {y}, {}, "relu")->result();
    return y;
  };

  // Axes of the output: batch, output channels, then the spatial ones.
  Operand x{.name = "x"};
  follows(x, c.batch, 0, same());
  if (c.groups == 1) {
    fixed(x, c.channels);
  } else {
    // Output channel o reads the input channels of its group.
    std::int64_t group_outputs = c.out_channels / c.groups, group_channels = c.channels / c.groups;
    follows(x, c.channels, 1, [=](std::int64_t lo, std::int64_t hi) {
      return std::pair{lo / group_outputs * group_channels,
                       (hi / group_outputs + 1) * group_channels - 1};
    });
  }
  for (std::size_t s = 0; s < rank; ++s)
    follows(x, c.size[s], 2 + s, window(c.strides[s], c.padding[s], c.kernel[s], c.dilation[s]));
  Operand w{.name = "w", .role = tiling::Role::kWeights};
  follows(w, c.out_channels, 1, same());
  for (std::size_t d = 1; d < w_shape.size(); ++d) fixed(w, w_shape[d]);
  layer.operands = {x, w};
  if (c.bias != Bias::kNone) {
    Operand bias{.name = "b", .role = tiling::Role::kBias};
    std::size_t channel_dim = c.bias == Bias::kAdded && c.bias_leading_one ? 1 : 0;
    for (std::size_t d = 0; d < b_shape.size(); ++d)
      d == channel_dim ? follows(bias, b_shape[d], 1, same()) : fixed(bias, b_shape[d]);
    layer.operands.push_back(bias);
  }
  std::string out = c.relu ? "relu" : c.bias == Bias::kAdded ? "bias" : "conv";
  layer.operands.push_back(elementwise(out, y_shape, true));
  return layer;
}

// How a random convolution groups its channels.
enum class Grouping { kNone, kGroups, kDepthwise };

// A random convolution: conv1d of up to 8 x 96 inputs (ultra_trail runs no dilation nor
// groups), or conv2d of up to 12 x 20 x 20, any padding below the kernel's reach, strides up
// to 3, dilation 2 now and then; groups of 2 or 3, or depthwise with a channel multiplier of
// 1 or 2.
inline Conv random_conv(std::mt19937& rng, std::size_t rank, Grouping grouping) {
  Conv c;
  c.batch = pick(rng, 1, 2);
  switch (grouping) {
    case Grouping::kNone:
      c.channels = pick(rng, 1, 8);
      c.out_channels = pick(rng, 1, 12);
      break;
    case Grouping::kGroups:
      c.groups = pick(rng, 2, 3);
      c.channels = c.groups * pick(rng, 1, 3);
      c.out_channels = c.groups * pick(rng, 1, 4);
      break;
    case Grouping::kDepthwise:
      c.channels = c.groups = pick(rng, 2, 12);
      c.out_channels = c.channels * pick(rng, 1, 2);
      break;
  }
  c.padding.resize(2 * rank);
  for (std::size_t s = 0; s < rank; ++s) {
    c.kernel.push_back(pick(rng, 1, 5));
    c.strides.push_back(pick(rng, 1, 3));
    c.dilation.push_back(rank == 2 && c.kernel[s] > 1 && rng() % 3 == 0 ? 2 : 1);
    std::int64_t reach = (c.kernel[s] - 1) * c.dilation[s] + 1;
    c.padding[s] = pick(rng, 0, reach - 1);
    c.padding[rank + s] = pick(rng, 0, reach - 1);
    c.size.push_back(pick(rng,
                          std::max<std::int64_t>(reach - c.padding[s] - c.padding[rank + s], 1),
                          rank == 1 ? 96 : 20));
  }
  c.bias = static_cast<Bias>(rng() % 3);
  c.bias_leading_one = rng() % 2;
  c.relu = rng() % 2;
  c.seed = rng();
  return c;
}

// ---- Dense layers ----

// nn.dense of [rows, features] by [units, features], with a bias operand [units], an added
// bias ([units] or [1, units], added before the product as torch exports Linear) or none.
inline Layer random_dense(std::mt19937& rng) {
  std::int64_t rows = pick(rng, 1, 24), features = pick(rng, 1, 64), units = pick(rng, 1, 40);
  Bias bias = static_cast<Bias>(rng() % 3);
  Shape b_shape = bias == Bias::kAdded && rng() % 2 ? Shape{1, units} : Shape{units};
  bool relu = rng() % 2;
  unsigned seed = rng();
  Layer layer;
  layer.description = fmt::format("nn.dense x {}x{} units {} bias {} relu {}", rows, features,
                                  units, bias == Bias::kNone ? "none" : to_string(b_shape), relu);
  layer.target = std::string(kTestNpu);
  layer.emit = [=](Function& f) {
    Builder b(f);
    std::vector<Value*> operands{f.add_param(TensorType{DType::f32, {rows, features}}, "x"),
                                 constant(b, {units, features}, seed, "w")};
    if (bias == Bias::kOperand) operands.push_back(constant(b, b_shape, seed + 1, "b"));
    Value* y = b.create("nn.dense", operands, {}, "dense")->result();
    if (bias == Bias::kAdded)
      y = b.create("add", {constant(b, b_shape, seed + 1, "b"), y}, {}, "bias")->result();
    if (relu) y = b.create("nn.relu", {y}, {}, "relu")->result();
    return y;
  };
  // Axes of the output: rows, units.
  Operand x{.name = "x"};
  follows(x, rows, 0, same());
  fixed(x, features);
  Operand w{.name = "w", .role = tiling::Role::kWeights};
  follows(w, units, 1, same());
  fixed(w, features);
  layer.operands = {x, w};
  if (bias != Bias::kNone) {
    Operand b{.name = "b", .role = tiling::Role::kBias};
    if (b_shape.size() == 2) fixed(b, 1);
    follows(b, units, 1, same());
    layer.operands.push_back(b);
  }
  std::string out = relu ? "relu" : bias == Bias::kAdded ? "bias" : "dense";
  layer.operands.push_back(elementwise(out, {rows, units}, true));
  return layer;
}

// ---- Pooling ----

struct Pool {
  bool max = true;
  std::int64_t batch = 1, channels = 1;
  std::vector<std::int64_t> size, kernel, strides, dilation{1, 1};  // dilation: max only
  std::vector<std::int64_t> padding;  // top, left, bottom, right: each below the pool size
  bool ceil_mode = false, count_include_pad = false;  // count_include_pad: average only
};

inline Layer pool_layer(const Pool& p) {
  Shape x_shape{p.batch, p.channels, p.size[0], p.size[1]}, y_shape{p.batch, p.channels};
  for (std::size_t s = 0; s < 2; ++s)
    y_shape.push_back(windows(p.size[s], p.padding[s], p.padding[2 + s], p.kernel[s], p.dilation[s],
                              p.strides[s], p.ceil_mode));
  std::string op = p.max ? "nn.max_pool2d" : "nn.avg_pool2d";
  AttrMap attrs;
  attrs.set("pool_size", p.kernel);
  attrs.set("strides", p.strides);
  attrs.set("padding", p.padding);
  attrs.set("ceil_mode", std::int64_t{p.ceil_mode});
  if (p.max)
    attrs.set("dilation", p.dilation);
  else
    attrs.set("count_include_pad", std::int64_t{p.count_include_pad});
  Layer layer;
  layer.description = fmt::format(
      "{} x {} pool {} strides {} padding {} dilation {} ceil_mode {} count_include_pad {}", op,
      to_string(x_shape), fmt::join(p.kernel, ","), fmt::join(p.strides, ","),
      fmt::join(p.padding, ","), fmt::join(p.dilation, ","), p.ceil_mode, p.count_include_pad);
  layer.target = std::string(kTestNpu);
  layer.emit = [=](Function& f) {
    Value* x = f.add_param(TensorType{DType::f32, x_shape}, "x");
    return Builder(f).create(op, {x}, attrs, "pool")->result();
  };
  // Axes of the output: batch, channels, height, width. A ceil-mode window may reach past
  // the padding: the clamp takes it back.
  Operand x{.name = "x"};
  follows(x, p.batch, 0, same());
  follows(x, p.channels, 1, same());
  for (std::size_t s = 0; s < 2; ++s)
    follows(x, p.size[s], 2 + s, window(p.strides[s], p.padding[s], p.kernel[s], p.dilation[s]));
  layer.operands = {x, elementwise("pool", y_shape, true)};
  return layer;
}

inline Pool random_pool(std::mt19937& rng, bool max) {
  Pool p{.max = max, .batch = pick(rng, 1, 2), .channels = pick(rng, 1, 8)};
  p.ceil_mode = rng() % 2;
  p.count_include_pad = !max && rng() % 2;
  p.padding.resize(4);
  for (std::size_t s = 0; s < 2; ++s) {
    p.kernel.push_back(pick(rng, 1, 4));
    p.strides.push_back(pick(rng, 1, 3));
    if (max && p.kernel[s] > 1 && rng() % 3 == 0) p.dilation[s] = 2;
    p.padding[s] = pick(rng, 0, p.kernel[s] - 1);
    p.padding[2 + s] = pick(rng, 0, p.kernel[s] - 1);
    std::int64_t reach = (p.kernel[s] - 1) * p.dilation[s] + 1;
    p.size.push_back(
        pick(rng, std::max<std::int64_t>(reach - p.padding[s] - p.padding[2 + s], 1), 24));
  }
  return p;
}

// ---- Elementwise ----

// add of two tensors of one shape, maybe then relu.
inline Layer random_add(std::mt19937& rng) {
  Shape shape{pick(rng, 1, 2), pick(rng, 1, 8), pick(rng, 1, 24), pick(rng, 1, 24)};
  bool relu = rng() % 2;
  Layer layer;
  layer.description = fmt::format("add {} relu {}", to_string(shape), relu);
  layer.target = std::string(kTestNpu);
  layer.emit = [=](Function& f) {
    Builder b(f);
    Value* sum = b.create("add",
                          {f.add_param(TensorType{DType::f32, shape}, "x"),
                           f.add_param(TensorType{DType::f32, shape}, "y")},
                          {}, "add")
                     ->result();
    return relu ? b.create("nn.relu", {sum}, {}, "relu")->result() : sum;
  };
  layer.operands = {elementwise("x", shape, false), elementwise("y", shape, false),
                    elementwise(relu ? "relu" : "add", shape, true)};
  return layer;
}

}  // namespace uma::tiling_test
