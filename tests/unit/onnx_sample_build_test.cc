// The sampling ops (src/frontend/onnx/sample.cc) compiled for the host against the reference
// interpreter, over random shapes, modes, paddings and coordinates, some of them on pixel
// edges and halves (where rounding and the taps' bounds are decided).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "build_check.h"
#include "c_test_util.h"
#include "onnx_model_builder.h"
#include "uma/uma/build.h"

namespace uma {
namespace {

using test::OnnxModel;

class SampleBuildTest : public ::testing::Test {
 protected:
  std::int64_t uniform(std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
  }
  double real(double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(rng);
  }

  // Values uniform over [low, high]; with `quarters`, rounded to multiples of 0.25.
  TensorPtr reals(Shape shape, double low, double high, bool quarters = false) {
    auto t = std::make_shared<Tensor>(TensorType{DType::f32, std::move(shape)});
    for (std::int64_t i = 0; i < t->num_elements(); ++i) {
      double v = real(low, high);
      t->set(i, quarters ? std::round(v * 4) / 4 : v);
    }
    return t;
  }

  // Imports the model, interprets it on `inputs`, builds it for the host, runs it there and
  // expects the same output: the compiled code rounds f32 arithmetic op by op as the
  // interpreter does, but may sum in another order.
  void check(const OnnxModel& model, const std::vector<TensorPtr>& inputs) {
    auto module = model.import(ctx);
    ASSERT_TRUE(module.ok()) << module.error().message();
    testing_build::check_host_build(**module, inputs, 1e-5, 1e-6);
  }

  Context ctx;
  std::mt19937 rng{16};
};

TEST_F(SampleBuildTest, GridSampleMatchesTheInterpreter) {
  for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
    for (const char* padding : {"zeros", "border", "reflection"}) {
      SCOPED_TRACE(fmt::format("{}, {}", mode, padding));
      const std::int64_t n = uniform(1, 2);
      const Shape x = {n, uniform(1, 3), uniform(1, 6), uniform(1, 6)};
      const Shape grid = {n, uniform(1, 5), uniform(1, 5), 2};
      OnnxModel model("GridSample", 16);
      model.input("x", DType::f32, x)
          .input("grid", DType::f32, grid)
          .string_attr("mode", mode)
          .string_attr("padding_mode", padding)
          .int_attr("align_corners", uniform(0, 1))
          .output("y");
      // Beyond [-1, 1]: outside the image, where padding decides.
      check(model, {reals(x, -2, 2), reals(grid, -2.5, 2.5, uniform(0, 1) == 1)});
    }
  }
}

TEST_F(SampleBuildTest, RoiAlignMatchesTheInterpreter) {
  for (const char* mode : {"avg", "max"}) {
    for (int opset : {10, 16}) {
      for (std::int64_t ratio : {0, 2}) {
        SCOPED_TRACE(fmt::format("{}, opset {}, sampling_ratio {}", mode, opset, ratio));
        const std::int64_t n = uniform(1, 2), regions = uniform(1, 4);
        const Shape x = {n, uniform(1, 3), uniform(2, 8), uniform(2, 8)};
        // Corners from before the image to past it; some regions empty or inverted.
        auto rois = std::make_shared<Tensor>(TensorType{DType::f32, {regions, 4}});
        for (std::int64_t r = 0; r < regions; ++r) {
          const double x1 = real(-2, 8), y1 = real(-2, 8);
          rois->set(r * 4, x1);
          rois->set(r * 4 + 1, y1);
          rois->set(r * 4 + 2, x1 + real(-1, 8));
          rois->set(r * 4 + 3, y1 + real(-1, 8));
        }
        auto images = std::make_shared<Tensor>(TensorType{DType::i64, {regions}});
        for (std::int64_t r = 0; r < regions; ++r) images->set(r, uniform(0, n - 1));
        OnnxModel model("RoiAlign", opset);
        model.input("x", DType::f32, x);
        // Adaptive grids (sampling_ratio 0) need the regions at build time.
        if (ratio == 0)
          model.constant("rois", *rois);
        else
          model.input("rois", DType::f32, {regions, 4});
        model.input("batch_indices", DType::i64, {regions})
            .string_attr("mode", mode)
            .int_attr("output_height", uniform(1, 3))
            .int_attr("output_width", uniform(1, 3))
            .int_attr("sampling_ratio", ratio)
            .attr("spatial_scale", real(0.5, 1.5))
            .output("y");
        if (ratio == 0)
          check(model, {reals(x, -2, 2), images});
        else
          check(model, {reals(x, -2, 2), rois, images});
      }
    }
  }
}

}  // namespace
}  // namespace uma
