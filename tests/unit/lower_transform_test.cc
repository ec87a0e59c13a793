// Lowered data movement and shape ops: the transform family (reshape, squeeze, expand_dims,
// transpose, concatenate, split), the broadcast family (broadcast_to, tile, nn.pad), the index
// family (strided_slice, take, gather_elements, gather_nd, the scatters) and the shape family
// (shape_of, full, arange), compiled and compared with the reference interpreter bit for bit.
#include <limits>

#include "lower_test_util.h"
#include "tensor_util.h"

namespace uma::testing_lower {
namespace {

using Ints = std::vector<std::int64_t>;
using test::make_attrs;
using test::make_tensor;

TensorType typed(DType dtype, Shape shape) { return TensorType{dtype, std::move(shape)}; }

Case reshape(std::string label, Shape from, Ints to) {
  return op_case(std::move(label), "reshape", {f32(std::move(from))},
                 make_attrs({{"newshape", std::move(to)}}), 0.0);
}

TEST(LowerTransform, Reshape) {
  check_cases({
      reshape("flatten the tail", {2, 3, 4}, {2, 12}),
      reshape("flatten all", {2, 3, 4}, {24}),
      reshape("split a dimension", {6, 4}, {2, 3, 4}),
      reshape("regroup", {2, 3, 4}, {3, 8}),
      reshape("regroup both ways", {4, 6, 5}, {8, 15}),
      reshape("-1 and 0", {2, 3, 4}, {0, -1, 2}),
      reshape("unit dimensions", {1, 3, 1, 4}, {3, 1, 4, 1}),
      reshape("to a scalar", {1, 1}, {}),
      reshape("from a scalar", {}, {1, 1, 1}),
      op_case("squeeze all", "squeeze", {f32({1, 3, 1, 2})}, {}, 0.0),
      op_case("squeeze one", "squeeze", {f32({1, 3, 1, 2})}, make_attrs({{"axes", Ints{-2}}}), 0.0),
      op_case("expand_dims", "expand_dims", {f32({3, 2})}, make_attrs({{"axes", Ints{0, 3}}}), 0.0),
      op_case("i64 reshape", "reshape", {typed(DType::i64, {4, 3})},
              make_attrs({{"newshape", Ints{2, 6}}}), 0.0),
      op_case("bool squeeze", "squeeze", {typed(DType::boolean, {2, 1})}, {}, 0.0),
  });
}

TEST(LowerTransform, Transpose) {
  auto transpose = [](std::string label, Shape shape, Ints axes) {
    return op_case(std::move(label), "transpose", {f32(std::move(shape))},
                   make_attrs({{"axes", std::move(axes)}}), 0.0);
  };
  check_cases({
      transpose("reversed by default", {2, 3, 4}, {}),
      transpose("NCHW to NHWC", {2, 3, 4, 5}, {0, 2, 3, 1}),
      transpose("negative axes", {2, 3, 4}, {-1, 0, -2}),
      transpose("identity", {3, 2}, {0, 1}),
      op_case("f16", "transpose", {typed(DType::f16, {3, 5})}, {}, 0.0),
  });
}

TEST(LowerTransform, Concatenate) {
  auto axis = [](std::int64_t a) { return make_attrs({{"axis", a}}); };
  check_cases({
      op_case("axis 0", "concatenate", {f32({2, 3}), f32({4, 3})}, axis(0), 0.0),
      op_case("axis 1 of three", "concatenate", {f32({2, 1, 4}), f32({2, 3, 4}), f32({2, 2, 4})},
              axis(1), 0.0),
      op_case("last axis", "concatenate", {f32({2, 3}), f32({2, 2})}, axis(-1), 0.0),
      op_case("an empty operand", "concatenate", {f32({2, 0}), f32({2, 3}), f32({2, 0})}, axis(1),
              0.0),
      op_case("one operand", "concatenate", {f32({3, 2})}, axis(0), 0.0),
      op_case("u8", "concatenate", {typed(DType::u8, {3}), typed(DType::u8, {5})}, axis(0), 0.0),
  });
}

TEST(LowerTransform, Split) {
  check_cases({
      op_case("sections", "split", {f32({6, 4})}, make_attrs({{"sections", std::int64_t{3}}}), 0.0),
      op_case("sizes on the last axis", "split", {f32({2, 3, 7})},
              make_attrs({{"axis", std::int64_t{-1}}, {"sizes", Ints{2, 0, 5}}}), 0.0),
      op_case("i32 axis 1", "split", {typed(DType::i32, {2, 4, 3})},
              make_attrs({{"axis", std::int64_t{1}}, {"sizes", Ints{1, 3}}}), 0.0),
  });
}

TEST(LowerBroadcast, BroadcastToAndTile) {
  auto to = [](std::string label, Shape from, Ints shape) {
    return op_case(std::move(label), "broadcast_to", {f32(std::move(from))},
                   make_attrs({{"shape", std::move(shape)}}), 0.0);
  };
  auto tile = [](std::string label, TensorType from, Ints reps) {
    return op_case(std::move(label), "tile", {std::move(from)},
                   make_attrs({{"reps", std::move(reps)}}), 0.0);
  };
  check_cases({
      to("rows", {3, 1}, {3, 4}),
      to("new leading axes", {4}, {2, 3, 4}),
      to("a scalar", {}, {2, 2}),
      to("same shape", {2, 3}, {2, 3}),
      tile("2-d", f32({2, 3}), {2, 3}),
      tile("fewer reps than axes", f32({2, 3, 2}), {2}),
      tile("more reps than axes", f32({3}), {2, 1, 2}),
      tile("a zero rep", typed(DType::i64, {2, 2}), {0, 3}),
  });
}

// Negative widths crop; reflect mirrors without repeating the edge element, as numpy.pad.
TEST(LowerBroadcast, Pad) {
  auto pad = [](std::string label, TensorType from, Ints widths, std::string mode,
                double value = 0) {
    return op_case(
        std::move(label), "nn.pad", {std::move(from)},
        make_attrs(
            {{"pad_width", std::move(widths)}, {"mode", std::move(mode)}, {"pad_value", value}}),
        0.0);
  };
  std::vector<Case> cases;
  for (const char* mode : {"constant", "edge", "reflect"}) {
    std::string name(mode);
    cases.push_back(pad(name + " 2-d", f32({4, 5}), {1, 2, 3, 1}, mode, 1.5));
    cases.push_back(pad(name + " NCHW spatial", f32({1, 2, 4, 4}), {0, 0, 2, 1, 0, 0, 1, 3}, mode));
    cases.push_back(pad(name + " cropping", f32({5, 6}), {-1, 2, 1, -2}, mode));
    cases.push_back(pad(name + " i32", typed(DType::i32, {3, 4}), {2, 0, 1, 3}, mode, -7));
    cases.push_back(pad(name + " f16", typed(DType::f16, {4, 3}), {1, 1, 2, 2}, mode, 0.1));
  }
  check_cases(cases);
}

Case slice(std::string label, Shape shape, Ints begin, Ints end, Ints strides = {},
           Ints axes = {}) {
  return op_case(std::move(label), "strided_slice", {f32(std::move(shape))},
                 make_attrs({{"begin", std::move(begin)},
                             {"end", std::move(end)},
                             {"strides", std::move(strides)},
                             {"axes", std::move(axes)}}),
                 0.0);
}

TEST(LowerIndex, StridedSlice) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  check_cases({
      slice("leading axes", {5, 6, 3}, {1, 2}, {4, 6}),
      slice("steps", {9, 8}, {0, 1}, {9, 8}, {2, 3}),
      slice("backwards", {7, 5}, {-1, 4}, {kMin, 0}, {-1, -2}),
      slice("chosen axes, clamped", {4, 5, 6}, {-100, 2}, {100, kMax}, {1, 1}, {2, 0}),
      slice("empty", {4, 5}, {3}, {1}, {}, {1}),
  });
}

TEST(LowerIndex, Take) {
  auto take = [](std::string label, Shape data, TensorType indices, std::int64_t axis) {
    return op_case(std::move(label), "take", {f32(std::move(data)), std::move(indices)},
                   make_attrs({{"axis", axis}}), 0.0);
  };
  // Random indices lie in [-5, 5] ([0, 10] unsigned), within an axis of 11.
  check_cases({
      take("axis 0", {11, 3}, typed(DType::i64, {4}), 0),
      take("axis 1, indices 2-d", {2, 11, 3}, typed(DType::i32, {2, 3}), 1),
      take("last axis, a scalar index", {3, 11}, typed(DType::i64, {}), -1),
      take("u8 indices", {11}, typed(DType::u8, {6}), 0),
      take("i8 indices", {2, 11}, typed(DType::i8, {3, 1}), 1),
  });
}

TEST(LowerIndex, GatherElements) {
  auto gather = [](std::string label, Shape data, TensorType indices, std::int64_t axis) {
    return op_case(std::move(label), "gather_elements", {f32(std::move(data)), std::move(indices)},
                   make_attrs({{"axis", axis}}), 0.0);
  };
  // Random indices lie in [-5, 5] ([0, 10] unsigned), within an axis of 11.
  check_cases({
      gather("axis 0", {11, 3}, typed(DType::i64, {4, 3}), 0),
      gather("axis 1, fewer rows", {4, 11, 3}, typed(DType::i32, {2, 5, 3}), 1),
      gather("last axis, u8", {3, 11}, typed(DType::u8, {3, 6}), -1),
  });
}

TEST(LowerIndex, GatherNd) {
  auto gather = [](std::string label, Shape data, TensorType indices, std::int64_t batch) {
    return op_case(std::move(label), "gather_nd", {f32(std::move(data)), std::move(indices)},
                   make_attrs({{"batch_dims", batch}}), 0.0);
  };
  // Random indices lie in [-5, 5] ([0, 10] unsigned), within axes of 11.
  check_cases({
      gather("rows", {11, 11, 3}, typed(DType::i64, {4, 2}), 0),
      gather("elements", {11, 11}, typed(DType::i32, {2, 3, 2}), 0),
      gather("one batch dimension", {2, 11, 3}, typed(DType::i64, {2, 5, 1}), 1),
      gather("u8 indices", {11, 4}, typed(DType::u8, {3, 1}), 0),
  });
}

TEST(LowerIndex, Scatter) {
  auto scatter = [](std::string label, const char* op, TensorType data, Shape indices,
                    Shape updates, AttrMap attrs) {
    DType dtype = data.dtype;
    return op_case(
        std::move(label), op,
        {std::move(data), typed(DType::i64, std::move(indices)), typed(dtype, std::move(updates))},
        std::move(attrs), 1e-6);
  };
  auto along = [](std::int64_t axis, const char* reduction) {
    return make_attrs({{"axis", axis}, {"reduction", std::string(reduction)}});
  };
  auto reduced = [](const char* reduction) {
    return make_attrs({{"reduction", std::string(reduction)}});
  };
  // Random indices lie in [-5, 5] within axes of 11, and often repeat: updates collide.
  check_cases({
      scatter("elements, axis 0", "scatter_elements", f32({11, 3}), {6, 3}, {6, 3},
              along(0, "none")),
      scatter("elements, axis 1, fewer rows", "scatter_elements", f32({4, 11}), {2, 9}, {2, 9},
              along(1, "none")),
      scatter("elements add", "scatter_elements", f32({4, 11}), {3, 7}, {3, 7}, along(-1, "add")),
      scatter("elements mul", "scatter_elements", f32({11, 2}), {4, 2}, {4, 2}, along(0, "mul")),
      scatter("elements max, i32", "scatter_elements", typed(DType::i32, {11, 3}), {8, 3}, {8, 3},
              along(0, "max")),
      scatter("elements min", "scatter_elements", f32({11, 3}), {8, 2}, {8, 2}, along(0, "min")),
      scatter("nd rows", "scatter_nd", f32({11, 4}), {5, 1}, {5, 4}, reduced("none")),
      scatter("nd elements", "scatter_nd", f32({11, 11}), {3, 4, 2}, {3, 4}, reduced("none")),
      scatter("nd add", "scatter_nd", f32({11, 11, 2}), {6, 2}, {6, 2}, reduced("add")),
      scatter("nd mul, i32", "scatter_nd", typed(DType::i32, {11, 3}), {7, 1}, {7, 3},
              reduced("mul")),
      scatter("nd max", "scatter_nd", f32({11}), {9, 1}, {9}, reduced("max")),
      scatter("nd min", "scatter_nd", f32({11, 2}), {9, 1}, {9, 2}, reduced("min")),
  });
}

TEST(LowerShape, ShapeOfFullArange) {
  auto arange = [](std::string label, double start, double stop, double step, const char* dtype) {
    return Case{std::move(label),
                {},
                [=](Builder& b, const std::vector<Value*>&) {
                  return b
                      .create("arange", {},
                              make_attrs({{"start", start},
                                          {"stop", stop},
                                          {"step", step},
                                          {"dtype", std::string(dtype)}}))
                      ->results();
                },
                0.0};
  };
  auto full = [](std::string label, Ints shape, double value, const char* dtype) {
    return Case{
        std::move(label),
        {},
        [=](Builder& b, const std::vector<Value*>&) {
          return b
              .create(
                  "full", {},
                  make_attrs({{"shape", shape}, {"value", value}, {"dtype", std::string(dtype)}}))
              ->results();
        },
        0.0};
  };
  check_cases({
      op_case("shape_of", "shape_of", {f32({2, 3, 5})}, {}, 0.0),
      op_case("shape_of a scalar", "shape_of", {f32({})}, {}, 0.0),
      full("f32", {2, 3}, 0.1, "f32"),
      full("f16", {4}, 0.1, "f16"),
      full("i64", {3, 1}, -7, "i64"),
      full("bool", {2}, 1, "bool"),
      arange("f32", 0.5, 3.7, 0.3, "f32"),
      arange("f16 backwards", 2, -1, -0.1, "f16"),
      arange("f64", -1, 1, 0.1, "f64"),
      arange("i32", -5, 20, 3, "i32"),
      arange("i16 backwards", 200, -10, -7, "i16"),
      arange("u8", 10, 200, 7, "u8"),
  });
}

}  // namespace
}  // namespace uma::testing_lower
