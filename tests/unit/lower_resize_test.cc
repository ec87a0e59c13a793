// Lowered image.resize, compiled and compared with the reference interpreter: every method,
// coordinate transformation mode and nearest rounding mode, cubic options, tf_crop_and_resize
// with extrapolation, given scales, 1 to 3 spatial dimensions and several dtypes. The lowered
// code repeats the reference's double arithmetic operation for operation, so results agree
// bit for bit.
#include "lower_test_util.h"
#include "tensor_util.h"

namespace uma::testing_lower {
namespace {

using Ints = std::vector<std::int64_t>;
using Floats = std::vector<double>;
using test::make_attrs;

const char* const kModes[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                              "tf_half_pixel_for_nn"};

AttrMap resize_attrs(Ints size, std::string method, std::string mode,
                     std::string nearest = "round_prefer_floor") {
  return make_attrs({{"size", std::move(size)},
                     {"method", std::move(method)},
                     {"coordinate_transformation_mode", std::move(mode)},
                     {"nearest_mode", std::move(nearest)}});
}

TEST(LowerResize, NearestEveryModeAndRounding) {
  std::vector<Case> cases;
  for (const char* mode : kModes)
    for (const char* rounding : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
      cases.push_back(op_case(fmt::format("up {} {}", mode, rounding), "image.resize",
                              {f32({1, 2, 3, 4})}, resize_attrs({5, 7}, "nearest", mode, rounding),
                              0.0));
      cases.push_back(op_case(fmt::format("down {} {}", mode, rounding), "image.resize",
                              {f32({2, 1, 7, 9})}, resize_attrs({3, 4}, "nearest", mode, rounding),
                              0.0));
    }
  check_cases(cases);
}

TEST(LowerResize, LinearAndCubicEveryMode) {
  std::vector<Case> cases;
  for (const char* mode : kModes)
    for (const char* method : {"linear", "cubic"}) {
      cases.push_back(op_case(fmt::format("{} up {}", method, mode), "image.resize",
                              {f32({1, 2, 4, 5})}, resize_attrs({7, 9}, method, mode), 0.0));
      // One dimension shrinks, the other grows: the reference sums the shrinking one first.
      cases.push_back(op_case(fmt::format("{} mixed {}", method, mode), "image.resize",
                              {f32({1, 2, 6, 3})}, resize_attrs({4, 5}, method, mode), 0.0));
      cases.push_back(op_case(fmt::format("{} to one {}", method, mode), "image.resize",
                              {f32({1, 1, 5, 4})}, resize_attrs({1, 3}, method, mode), 0.0));
    }
  check_cases(cases);
}

TEST(LowerResize, CubicOptions) {
  auto cubic = [](Ints size, double a, std::int64_t exclude) {
    AttrMap attrs = resize_attrs(std::move(size), "cubic", "half_pixel");
    attrs.set("cubic_coeff_a", a);
    attrs.set("exclude_outside", exclude);
    return attrs;
  };
  check_cases({
      op_case("a -0.5", "image.resize", {f32({1, 2, 4, 4})}, cubic({6, 7}, -0.5, 0), 0.0),
      op_case("exclude outside", "image.resize", {f32({1, 2, 4, 4})}, cubic({6, 7}, -0.75, 1), 0.0),
      op_case("exclude outside, shrinking", "image.resize", {f32({1, 1, 9, 8})},
              cubic({4, 3}, -0.5, 1), 0.0),
  });
}

// Given scales map coordinates by themselves, not by size / input.
TEST(LowerResize, GivenScales) {
  std::vector<Case> cases;
  for (const char* method : {"nearest", "linear", "cubic"})
    for (const char* mode : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
      AttrMap attrs = resize_attrs({2, 5}, method, mode);
      attrs.set("scales", Floats{0.6, 1.7});
      cases.push_back(op_case(fmt::format("{} {}", method, mode), "image.resize",
                              {f32({1, 2, 4, 3})}, attrs, 0.0));
    }
  check_cases(cases);
}

TEST(LowerResize, CropAndResizeExtrapolates) {
  std::vector<Case> cases;
  for (const char* method : {"nearest", "linear", "cubic"}) {
    AttrMap attrs = resize_attrs({5, 6}, method, "tf_crop_and_resize");
    attrs.set("roi", Floats{-0.2, 0.1, 0.9, 1.3});
    attrs.set("extrapolation_value", 2.5);
    cases.push_back(
        op_case(fmt::format("{}", method), "image.resize", {f32({1, 2, 4, 5})}, attrs, 0.0));
    AttrMap single = resize_attrs({1, 3}, method, "tf_crop_and_resize");
    single.set("roi", Floats{0.25, 0.0, 0.5, 1.0});
    cases.push_back(op_case(fmt::format("{} to one", method), "image.resize", {f32({1, 1, 4, 5})},
                            single, 0.0));
  }
  AttrMap ints = resize_attrs({5, 6}, "nearest", "tf_crop_and_resize");
  ints.set("roi", Floats{-0.2, 0.1, 0.9, 1.3});
  ints.set("extrapolation_value", 300.0);  // stored as u8 wraps, as the reference stores it
  cases.push_back(
      op_case("u8 nearest", "image.resize", {TensorType{DType::u8, {1, 2, 4, 5}}}, ints, 0.0));
  check_cases(cases);
}

TEST(LowerResize, SpatialRanksAndDTypes) {
  std::vector<Case> cases = {
      op_case("1-d linear", "image.resize", {f32({2, 3, 5})},
              resize_attrs({8}, "linear", "half_pixel"), 0.0),
      op_case("3-d cubic", "image.resize", {f32({1, 1, 3, 4, 3})},
              resize_attrs({4, 2, 5}, "cubic", "asymmetric"), 0.0),
      op_case("3-d nearest", "image.resize", {f32({1, 2, 2, 3, 4})},
              resize_attrs({3, 5, 2}, "nearest", "align_corners", "ceil"), 0.0),
  };
  for (DType dtype : {DType::f16, DType::bf16, DType::f64})
    for (const char* method : {"nearest", "linear", "cubic"})
      cases.push_back(op_case(fmt::format("{} {}", dtype_name(dtype), method), "image.resize",
                              {TensorType{dtype, {1, 2, 3, 4}}},
                              resize_attrs({5, 6}, method, "half_pixel"), 0.0));
  for (DType dtype : {DType::i32, DType::u8, DType::boolean, DType::i64})
    cases.push_back(op_case(fmt::format("{} nearest", dtype_name(dtype)), "image.resize",
                            {TensorType{dtype, {1, 2, 3, 4}}},
                            resize_attrs({5, 6}, "nearest", "asymmetric"), 0.0));
  check_cases(cases);
}

}  // namespace
}  // namespace uma::testing_lower
