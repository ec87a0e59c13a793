// The kernel on its own, compiled as a build compiles it: a convolution worked out by hand
// (asymmetric padding, unequal strides, bias, clamp), for several tiles, a window over nothing
// but padding, and the arguments it refuses.
#include <cmath>

#include "backends/vanilla/tests/vanilla_test_util.h"
#include "uma/runtime/c_compiler.h"
#include "uma/runtime/library.h"

namespace uma::backends {
extern const char uma_embedded_vanilla_vanilla_conv2d_c[];
}  // namespace uma::backends

namespace uma::backends::vanilla::testing {
namespace {

using Kernel = std::int32_t (*)(const float*, const float*, float*, std::int64_t, std::int64_t,
                                std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                std::int64_t, std::int64_t, std::int64_t, const float*, float,
                                float, std::int64_t);

class VanillaKernelTest : public VanillaTest {
 protected:
  void SetUp() override {
    runtime::CCompiler compiler(options().compiler);
    auto path =
        compiler.build_shared_library({{"vanilla_conv2d", uma_embedded_vanilla_vanilla_conv2d_c}});
    ASSERT_TRUE(path.ok()) << path.error().message();
    auto library = runtime::Library::open(*path);
    ASSERT_TRUE(library.ok()) << library.error().message();
    library_ = std::make_unique<runtime::Library>(std::move(*library));
    auto symbol = library_->symbol("vanilla_conv2dnchw");
    ASSERT_TRUE(symbol.ok()) << symbol.error().message();
    kernel_ = reinterpret_cast<Kernel>(*symbol);
  }

  std::unique_ptr<runtime::Library> library_;
  Kernel kernel_ = nullptr;
};

// data 1x1x3x3 = 1..9, padded 1 above and 1 to the right; weights 2x1x2x2: a diagonal and a
// box; strides 1 down, 2 across: a 1x2x3x2 result, then bias (-5, 1) and clamp to [0, 20].
TEST_F(VanillaKernelTest, ComputesAConvolutionWorkedOutByHand) {
  const float data[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const float weights[] = {1, 0, 0, 1, 1, 1, 1, 1};
  const float bias[] = {-5, 1};
  for (std::int64_t dimension : {1, 2, 64}) {
    float result[12];
    std::fill(std::begin(result), std::end(result), -1.0f);
    ASSERT_EQ(kernel_(data, weights, result, 2, 3, 3, 1, 2, 2, 1, 2, 1, 0, 0, 1, 1, bias, 0.0f,
                      20.0f, dimension),
              0);
    EXPECT_EQ(std::vector<float>(std::begin(result), std::end(result)),
              (std::vector<float>{0, 0, 1, 0, 7, 1, 4, 4, 13, 10, 20, 16}))
        << "dimension " << dimension;
    // No bias, no clamp: the sums themselves.
    ASSERT_EQ(kernel_(data, weights, result, 2, 3, 3, 1, 2, 2, 1, 2, 1, 0, 0, 1, 1, nullptr,
                      -INFINITY, INFINITY, dimension),
              0);
    EXPECT_EQ(std::vector<float>(std::begin(result), std::end(result)),
              (std::vector<float>{2, 0, 6, 3, 12, 6, 3, 3, 12, 9, 24, 15}))
        << "dimension " << dimension;
  }
}

// A tile of a layer tiled into the on-chip memory may read nothing but padding on a side:
// its region of the data is empty (here iw is 0, the window 3 wide over padding 1 and 2), and
// each output is the bias, clamped.
TEST_F(VanillaKernelTest, EmptyDataInThePaddingGivesTheBias) {
  const float data[] = {0};  // not read
  const float weights[] = {1, 1, 1, 2, 2, 2};
  const float bias[] = {-5, 1};
  float result[4] = {-1, -1, -1, -1};
  // oc 2, iw 0, ih 2, ic 1, kh 1, kw 3, strides 1, pads top 0, left 1, bottom 0, right 2.
  ASSERT_EQ(
      kernel_(data, weights, result, 2, 0, 2, 1, 1, 3, 1, 1, 0, 1, 0, 2, 1, bias, 0.0f, 20.0f, 16),
      0);
  EXPECT_EQ(std::vector<float>(std::begin(result), std::end(result)),
            (std::vector<float>{0, 0, 1, 1}));
  ASSERT_EQ(kernel_(data, weights, result, 2, 0, 2, 1, 1, 3, 1, 1, 0, 1, 0, 2, 1, bias, -INFINITY,
                    INFINITY, 16),
            0);
  EXPECT_EQ(std::vector<float>(std::begin(result), std::end(result)),
            (std::vector<float>{-5, -5, 1, 1}));
  // Padding narrower than the window over empty data: nothing to compute.
  EXPECT_EQ(kernel_(data, weights, result, 2, 0, 2, 1, 1, 3, 1, 1, 0, 1, 0, 1, 1, bias, -INFINITY,
                    INFINITY, 16),
            1);
}

TEST_F(VanillaKernelTest, RefusesSizesOutOfRange) {
  const float data[] = {1, 2, 3, 4};
  const float weights[] = {1, 1, 1, 1};
  float result[] = {-1};
  // oc, iw, ih, ic, kh, kw, stride_h, stride_w, pads, batch, dimension as a good call has them.
  std::int64_t good[] = {1, 2, 2, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, 16};
  ASSERT_EQ(kernel_(data, weights, result, good[0], good[1], good[2], good[3], good[4], good[5],
                    good[6], good[7], good[8], good[9], good[10], good[11], good[12], nullptr,
                    -INFINITY, INFINITY, good[13]),
            0);
  EXPECT_EQ(result[0], 10.0f);
  for (std::size_t bad = 0; bad < 14; ++bad) {
    std::int64_t a[14];
    std::copy(std::begin(good), std::end(good), a);
    // A negative padding or data size (the data may be empty, as above), else a zero size.
    a[bad] = (bad >= 8 && bad < 12) || bad == 1 || bad == 2 ? -1 : 0;
    result[0] = -1;
    EXPECT_EQ(kernel_(data, weights, result, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
                      a[9], a[10], a[11], a[12], nullptr, -INFINITY, INFINITY, a[13]),
              1)
        << "argument " << bad;
    EXPECT_EQ(result[0], -1.0f) << "argument " << bad;
  }
  // A kernel larger than the padded data, and a tile larger than the kernel holds.
  EXPECT_EQ(kernel_(data, weights, result, 1, 1, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, nullptr,
                    -INFINITY, INFINITY, 16),
            1);
  EXPECT_EQ(kernel_(data, weights, result, 1, 2, 2, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, nullptr,
                    -INFINITY, INFINITY, 65),
            1);
}

}  // namespace
}  // namespace uma::backends::vanilla::testing
