// Unit tests of the ONNX converters of signal ops (src/frontend/onnx/signal.cc): DFT and
// STFT against the transform's definition summed directly, their inverse, lengths and
// sides; the windows' edge cases; and every error with its message. ONNX's node tests
// check the default cases (tests/onnx/).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "onnx_model_builder.h"
#include "tensor_util.h"

namespace uma {
namespace {

using test::f32;
using test::make_tensor;
using test::OneNode;
using test::values_of;
using Values = std::vector<double>;

TensorPtr i64(std::int64_t value) {
  return make_tensor(DType::i64, {}, {static_cast<double>(value)});
}

// X[k] = sum_{n < min(N, L)} x[n] e^{-2 pi i k n / L} over a batch of real rows, as
// [rows, bins, 2] values.
Values direct_dft(const std::vector<Values>& rows, std::int64_t length, std::int64_t bins) {
  Values out;
  for (const Values& x : rows) {
    for (std::int64_t k = 0; k < bins; ++k) {
      std::complex<double> sum = 0;
      for (std::size_t n = 0; n < x.size() && static_cast<std::int64_t>(n) < length; ++n)
        sum += x[n] * std::polar(1.0, -2 * std::numbers::pi * static_cast<double>(k) *
                                          static_cast<double>(n) / static_cast<double>(length));
      out.push_back(sum.real());
      out.push_back(sum.imag());
    }
  }
  return out;
}

void expect_near(const Values& got, const Values& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-4) << i;
}

// Two real rows of 6 points, [2, 6, 1].
const std::vector<Values> kRows = {{1, -2, 3, 0.5, 4, -1}, {0, 1, 0, -1, 2, 2}};
TensorPtr rows_signal() {
  Values flat;
  for (const Values& row : kRows) flat.insert(flat.end(), row.begin(), row.end());
  return f32({2, 6, 1}, flat);
}

TEST(OnnxSignalConverters, DftCutsOrPadsToItsLengthAndKeepsOneSide) {
  for (std::int64_t length : {6, 4, 9}) {
    auto y = OneNode("DFT", 17).input(rows_signal()).constant(i64(length)).run1();
    EXPECT_EQ(y->shape(), (Shape{2, length, 2})) << length;
    expect_near(values_of(*y), direct_dft(kRows, length, length));
  }
  auto half = OneNode("DFT", 17).input(rows_signal()).attr("onesided", std::int64_t{1}).run1();
  EXPECT_EQ(half->shape(), (Shape{2, 4, 2}));
  expect_near(values_of(*half), direct_dft(kRows, 6, 4));
}

TEST(OnnxSignalConverters, InverseDftUndoesTheDftOnAnyAxis) {
  // A complex [3, 4, 2] signal, transformed along axis 0 (negative: -3), then back.
  Values x = {1, 0, 2, -1, 0, 3, -2, 1, 4, 4, 0, 0, 1, 1, -1, 2, 3, 0, 0, -3, 2, 2, 1, -1};
  auto forward = OneNode("DFT", 17).input(f32({3, 4, 2}, x)).attr("axis", std::int64_t{-3}).run1();
  EXPECT_EQ(forward->shape(), (Shape{3, 4, 2}));
  // Bin 0 along axis 0 is the sum over it: column 0 is 1+4+3 = 8, imaginary 0+4+0 = 4.
  EXPECT_NEAR(values_of(*forward)[0], 8, 1e-5);
  EXPECT_NEAR(values_of(*forward)[1], 4, 1e-5);
  auto back = OneNode("DFT", 17)
                  .input(forward)
                  .attr("axis", std::int64_t{0})
                  .attr("inverse", std::int64_t{1})
                  .run1();
  expect_near(values_of(*back), x);
}

TEST(OnnxSignalConverters, StftFramesWindowsAndTransforms) {
  // Frames of 4 points every 2 of a 9-point signal: 3 frames; the window weighs each.
  Values signal = {1, 2, -1, 0, 3, 1, -2, 4, 0.5};
  Values window = {0.5, 1, 1, 0.25};
  auto y = OneNode("STFT", 17)
               .input(f32({1, 9, 1}, signal))
               .constant(i64(2))
               .input(f32({4}, window))
               .run1();
  EXPECT_EQ(y->shape(), (Shape{1, 3, 3, 2}));
  std::vector<Values> frames;
  for (int f = 0; f < 3; ++f) {
    Values frame;
    for (int n = 0; n < 4; ++n) frame.push_back(signal[f * 2 + n] * window[n]);
    frames.push_back(frame);
  }
  expect_near(values_of(*y), direct_dft(frames, 4, 3));
  // Both sides, and a frame_length instead of a window.
  auto both = OneNode("STFT", 17)
                  .input(f32({1, 9, 1}, signal))
                  .constant(i64(2))
                  .skip()
                  .constant(i64(4))
                  .attr("onesided", std::int64_t{0})
                  .run1();
  EXPECT_EQ(both->shape(), (Shape{1, 3, 4, 2}));
  std::vector<Values> plain;
  for (int f = 0; f < 3; ++f)
    plain.emplace_back(signal.begin() + f * 2, signal.begin() + f * 2 + 4);
  expect_near(values_of(*both), direct_dft(plain, 4, 4));
}

TEST(OnnxSignalConverters, WindowsOfOnePointAndOtherTypes) {
  EXPECT_EQ(
      values_of(
          *OneNode("HannWindow", 17).constant(i64(1)).attr("periodic", std::int64_t{0}).run1()),
      (Values{1}));
  auto hamming = OneNode("HammingWindow", 17)
                     .constant(i64(4))
                     .attr("output_datatype", std::int64_t{onnx::TensorProto::DOUBLE})
                     .run1();
  EXPECT_EQ(hamming->dtype(), DType::f64);
  // 25/46 - 21/46 cos(2 pi n / 4): 4/46, 25/46, 46/46, 25/46.
  expect_near(values_of(*hamming), {4.0 / 46, 25.0 / 46, 1, 25.0 / 46});
}

TEST(OnnxSignalConverters, Errors) {
  auto complex = f32({1, 4, 2}, Values(8, 1));
  EXPECT_EQ(OneNode("DFT", 17).input(complex).attr("onesided", std::int64_t{1}).error(),
            "m.onnx: node 'n' (DFT): a one-sided DFT takes a real signal forward, not a complex "
            "one forward");
  EXPECT_EQ(OneNode("DFT", 17).input(complex).attr("axis", std::int64_t{2}).error(),
            "m.onnx: node 'n' (DFT): axis 2 is not a signal axis of a rank-3 signal (0 to 1)");
  EXPECT_EQ(OneNode("DFT", 17).input(f32({1, 4, 3}, Values(12, 1))).error(),
            "m.onnx: node 'n' (DFT): the signal is tensor<1x4x3xf32>, but its last dimension "
            "must be 1 (real) or 2 (complex)");
  // A scalar (what the fuzzer found: its last dimension was read before its rank was checked).
  EXPECT_EQ(OneNode("DFT", 17).input(f32({}, {1})).constant(i64(2)).error(),
            "m.onnx: node 'n' (DFT): the signal is tensor<f32>, but its last dimension must be 1 "
            "(real) or 2 (complex)");
  EXPECT_EQ(OneNode("DFT", 17).input(rows_signal()).constant(i64(0)).error(),
            "m.onnx: node 'n' (DFT): input 1 ('dft_length') is 0, but must be a whole number "
            "from 1 to 1000000000");
  EXPECT_EQ(OneNode("STFT", 17).input(rows_signal()).constant(i64(3000000000)).error(),
            "m.onnx: node 'n' (STFT): input 1 ('frame_step') is 3000000000, but must be a whole "
            "number from 1 to 1000000000");
  EXPECT_EQ(OneNode("DFT", 17).input(f32({1, 4096, 2}, Values(8192, 1))).error(),
            "m.onnx: node 'n' (DFT): the matrix of a 4096-point DFT of 4096 points would be a "
            "constant of 8192x8192 elements here, more than the 16777216 uma builds");
  EXPECT_EQ(OneNode("HannWindow", 17).constant(i64(100000000)).error(),
            "m.onnx: node 'n' (HannWindow): the window would be a constant of 100000000 elements "
            "here, more than the 16777216 uma builds");
  EXPECT_EQ(OneNode("STFT", 17).input(rows_signal()).constant(i64(2)).error(),
            "m.onnx: node 'n' (STFT): STFT needs a window or a frame_length");
  EXPECT_EQ(OneNode("STFT", 17)
                .input(rows_signal())
                .constant(i64(2))
                .input(f32({3}, {1, 1, 1}))
                .constant(i64(4))
                .error(),
            "m.onnx: node 'n' (STFT): the window is tensor<3xf32>, but must be 1-D of "
            "frame_length 4");
  EXPECT_EQ(
      OneNode("STFT", 17).input(rows_signal()).constant(i64(2)).skip().constant(i64(7)).error(),
      "m.onnx: node 'n' (STFT): frame_length 7 is longer than the signal (6 points)");
  EXPECT_EQ(OneNode("MelWeightMatrix", 17)
                .constant(i64(8))
                .constant(i64(16))
                .constant(i64(8192))
                .constant(f32({}, {0}))
                .constant(f32({}, {8000}))
                .error(),
            "m.onnx: node 'n' (MelWeightMatrix): upper_edge_hertz 8000 lies past the "
            "spectrogram's last bin (9 bins of a 16-point DFT at 8192 Hz)");
  EXPECT_EQ(
      OneNode("HannWindow", 17).constant(i64(4)).attr("output_datatype", std::int64_t{8}).error(),
      "m.onnx: node 'n' (HannWindow): attribute 'output_datatype' has element type STRING, "
      "which uma does not support (it supports FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, "
      "INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, BOOL)");
}

}  // namespace
}  // namespace uma
