// Converters of ONNX's signal ops (opset 17): the windows (HannWindow, HammingWindow,
// BlackmanWindow) and MelWeightMatrix, which depend only on sizes uma needs at build time
// and so become constants; DFT and STFT, lowered to one dense layer by a constant matrix of
// cosines and sines, so that whatever backend takes dense layers runs them.
#include <cmath>
#include <numbers>

#include "static_input.h"
#include "uma/frontend/onnx/tensor_proto.h"

namespace uma::onnx_import {
namespace {

using Ints = std::vector<std::int64_t>;
using Values = std::vector<Value*>;

// Constant scalar input `i` (a tensor of one element), as a number.
Expected<double> scalar_input(const NodeContext& ctx, std::size_t i, std::string_view what) {
  UMA_TRY_ASSIGN(TensorPtr tensor, ctx.require_constant_input(i, what));
  if (tensor->num_elements() != 1)
    return make_error("input {} ('{}') has {} elements, but must be a scalar", i, what,
                      tensor->num_elements());
  return tensor->get(0);
}

// Constant scalar input `i`, a whole number from `least` to 10^9 (a size or a step; larger
// ones would not fit in any constant these converters build anyway).
Expected<std::int64_t> count_input(const NodeContext& ctx, std::size_t i, std::string_view what,
                                   std::int64_t least) {
  constexpr double kMost = 1e9;
  UMA_TRY_ASSIGN(double value, scalar_input(ctx, i, what));
  if (value != std::floor(value) || value < static_cast<double>(least) || value > kMost)
    return make_error("input {} ('{}') is {}, but must be a whole number from {} to {}", i, what,
                      value, least, static_cast<std::int64_t>(kMost));
  return static_cast<std::int64_t>(value);
}

// The element type `output_datatype` names (a TensorProto data type; float by default).
Expected<DType> output_dtype(const NodeContext& ctx) {
  UMA_TRY_ASSIGN(std::int64_t onnx_type, ctx.attr_int("output_datatype", onnx::TensorProto::FLOAT));
  std::optional<DType> dtype = dtype_from_onnx(static_cast<int>(onnx_type));
  if (!dtype)
    return unsupported_onnx_type("attribute 'output_datatype'", static_cast<int>(onnx_type));
  return *dtype;
}

// A cosine-sum window: w[n] = sum_j (-1)^j a[j] cos(2 pi j n / N), N the size when periodic
// and the size less one when symmetric; a symmetric window of one point is 1, as numpy's.
Expected<Values> convert_window(NodeContext& ctx, std::vector<double> coefficients) {
  UMA_TRY_ASSIGN(std::int64_t size, count_input(ctx, 0, "size", 0));
  UMA_TRY_ASSIGN(std::int64_t periodic, ctx.attr_int("periodic", 1));
  UMA_TRY_ASSIGN(DType dtype, output_dtype(ctx));
  UMA_TRY(check_constant("the window", {size}));
  auto window = std::make_shared<Tensor>(TensorType{dtype, {size}});
  double period = static_cast<double>(periodic != 0 ? size : size - 1);
  if (period == 0) {
    window->set(0, 1);
    return Values{ctx.constant(std::move(window))};
  }
  for (std::int64_t n = 0; n < size; ++n) {
    double value = 0;
    for (std::size_t j = 0; j < coefficients.size(); ++j)
      value += (j % 2 == 0 ? 1 : -1) * coefficients[j] *
               std::cos(2 * std::numbers::pi * static_cast<double>(j * n) / period);
    window->set(n, value);
  }
  return Values{ctx.constant(std::move(window))};
}

// MelWeightMatrix as ONNX's reference computes it: num_mel_bins triangles over the
// spectrogram's bins, their corners at points evenly spaced in mel (2595 log10(1 + f / 700))
// between the edges, each point rounded down to a bin.
Expected<Values> convert_mel_weight_matrix(NodeContext& ctx) {
  UMA_TRY_ASSIGN(std::int64_t mel_bins, count_input(ctx, 0, "num_mel_bins", 1));
  UMA_TRY_ASSIGN(std::int64_t dft_length, count_input(ctx, 1, "dft_length", 1));
  UMA_TRY_ASSIGN(std::int64_t sample_rate, count_input(ctx, 2, "sample_rate", 1));
  UMA_TRY_ASSIGN(double lower_hertz, scalar_input(ctx, 3, "lower_edge_hertz"));
  UMA_TRY_ASSIGN(double upper_hertz, scalar_input(ctx, 4, "upper_edge_hertz"));
  if (!(lower_hertz >= 0 && lower_hertz < upper_hertz))
    return make_error("the edges {} Hz and {} Hz must satisfy 0 <= lower < upper", lower_hertz,
                      upper_hertz);
  UMA_TRY_ASSIGN(DType dtype, output_dtype(ctx));
  std::int64_t spectrogram_bins = dft_length / 2 + 1;
  auto mel = [](double hertz) { return 2595 * std::log10(1 + hertz / 700); };
  double low = mel(lower_hertz);
  double step = (mel(upper_hertz) - low) / static_cast<double>(mel_bins + 2);
  std::vector<std::int64_t> corner;
  for (std::int64_t i = 0; i < mel_bins + 2; ++i) {
    double hertz = 700 * (std::pow(10, (static_cast<double>(i) * step + low) / 2595) - 1);
    corner.push_back(static_cast<std::int64_t>(std::floor(
        static_cast<double>(dft_length + 1) * hertz / static_cast<double>(sample_rate))));
  }
  if (corner.back() >= spectrogram_bins)
    return make_error(
        "upper_edge_hertz {} lies past the spectrogram's last bin ({} bins of a {}-point DFT at "
        "{} Hz)",
        upper_hertz, spectrogram_bins, dft_length, sample_rate);
  UMA_TRY(check_constant("the matrix", {spectrogram_bins, mel_bins}));
  auto matrix = std::make_shared<Tensor>(TensorType{dtype, {spectrogram_bins, mel_bins}});
  for (std::int64_t i = 0; i < mel_bins; ++i) {
    auto [left, center, right] = std::tuple(corner[i], corner[i + 1], corner[i + 2]);
    if (center == left) {
      matrix->set(center * mel_bins + i, 1);
    } else {
      for (std::int64_t j = left; j <= center; ++j)
        matrix->set(j * mel_bins + i,
                    static_cast<double>(j - left) / static_cast<double>(center - left));
    }
    for (std::int64_t j = center; j < right; ++j)
      matrix->set(j * mel_bins + i,
                  static_cast<double>(right - j) / static_cast<double>(right - center));
  }
  return Values{ctx.constant(std::move(matrix))};
}

// The DFT of `signal` ([..., 1 or 2], real or complex in its last dimension) along `axis`:
// a `length`-point transform of the signal cut or padded with zeros to that length, its
// first length / 2 + 1 bins when `onesided`, scaled by 1 / length when `inverse`.
//
// The real and imaginary parts are moved to the end side by side ([..., 2N] for a complex
// signal of N points) and multiplied by one constant matrix that gives the real parts of the
// K bins, then the imaginary ones ([..., 2K]), put back to [..., K, 2] with the bins at `axis`.
Expected<Value*> dft(NodeContext& ctx, Value* signal, std::int64_t axis, std::int64_t length,
                     bool inverse, bool onesided) {
  const Shape shape = shape_of(signal);
  auto rank = static_cast<std::int64_t>(shape.size());
  std::int64_t parts = shape.empty() ? 0 : shape.back();  // a scalar has none
  if (rank < 2 || (parts != 1 && parts != 2))
    return make_error("the signal is {}, but its last dimension must be 1 (real) or 2 (complex)",
                      to_string(Type(signal->tensor_type())));
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank - 1)
    return make_error("axis {} is not a signal axis of a rank-{} signal (0 to {})", axis, rank,
                      rank - 2);
  if (onesided && (parts == 2 || inverse))
    return make_error("a one-sided DFT takes a real signal forward, not a {} one {}",
                      parts == 2 ? "complex" : "real", inverse ? "inverse" : "forward");
  std::int64_t points = shape[static_cast<std::size_t>(axis)];
  std::int64_t bins = onesided ? length / 2 + 1 : length;
  UMA_TRY(check_constant(fmt::format("the matrix of a {}-point DFT of {} points", length, points),
                         {2 * bins, parts * points}));

  // [..., points, parts] with the signal's axis next to last, then [..., parts * points].
  Ints perm;
  for (std::int64_t d = 0; d < rank - 1; ++d)
    if (d != axis) perm.push_back(d);
  perm.push_back(axis);
  Ints moved_perm = perm;
  moved_perm.insert(moved_perm.end() - 1, rank - 1);  // parts before points
  UMA_TRY_ASSIGN(Value * moved,
                 ctx.emit_value("transpose", {signal}, attrs_of({{"axes", moved_perm}})));
  Ints flat;
  for (std::size_t d = 0; d + 2 < moved_perm.size(); ++d)
    flat.push_back(shape[static_cast<std::size_t>(moved_perm[d])]);
  flat.push_back(parts * points);
  UMA_TRY_ASSIGN(Value * rows, ctx.emit_value("reshape", {moved}, attrs_of({{"newshape", flat}})));

  // weight[b * bins + k][p * points + n]: what part p of point n adds to part b (0 real,
  // 1 imaginary) of bin k. Forward: x e^{-i t} = (re cos t + im sin t) + i (im cos t - re sin t).
  DType dtype = signal->tensor_type().dtype;
  auto weight = std::make_shared<Tensor>(TensorType{dtype, {2 * bins, parts * points}});
  double scale = inverse ? 1 / static_cast<double>(length) : 1;
  double sign = inverse ? -1 : 1;
  for (std::int64_t k = 0; k < bins; ++k) {
    for (std::int64_t n = 0; n < std::min(points, length); ++n) {
      // The angle from k * n modulo the length, exactly, so that sines of multiples of pi
      // stay as near zero as a double can hold.
      double turn = static_cast<double>((k * n) % length) / static_cast<double>(length);
      double c = std::cos(2 * std::numbers::pi * turn) * scale;
      double s = std::sin(2 * std::numbers::pi * turn) * scale * sign;
      weight->set(k * parts * points + n, c);            // re -> re
      weight->set((bins + k) * parts * points + n, -s);  // re -> im
      if (parts == 2) {
        weight->set(k * parts * points + points + n, s);           // im -> re
        weight->set((bins + k) * parts * points + points + n, c);  // im -> im
      }
    }
  }
  UMA_TRY_ASSIGN(Value * product, ctx.emit_value("nn.dense", {rows, ctx.constant(weight)}));

  // [..., 2K] -> [..., 2, K] -> the signal's order with K at `axis` and the 2 last.
  Ints split(flat.begin(), flat.end() - 1);
  split.push_back(2);
  split.push_back(bins);
  UMA_TRY_ASSIGN(Value * halves,
                 ctx.emit_value("reshape", {product}, attrs_of({{"newshape", split}})));
  auto outer = static_cast<std::int64_t>(split.size()) - 2;  // the dimensions but axis
  Ints back;
  for (std::int64_t d = 0, kept = 0; d < rank - 1; ++d)
    back.push_back(d == axis ? outer + 1 : kept++);
  back.push_back(outer);
  return ctx.emit_value("transpose", {halves}, attrs_of({{"axes", back}}));
}

Expected<Values> convert_dft(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * signal, required_input(ctx, 0, "input"));
  UMA_TRY_ASSIGN(std::int64_t axis, ctx.attr_int("axis", 1));
  UMA_TRY_ASSIGN(std::int64_t inverse, ctx.attr_int("inverse", 0));
  UMA_TRY_ASSIGN(std::int64_t onesided, ctx.attr_int("onesided", 0));
  std::int64_t length = 0;
  if (ctx.has_input(1)) {
    UMA_TRY_ASSIGN(length, count_input(ctx, 1, "dft_length", 1));
  } else {
    auto rank = static_cast<std::int64_t>(shape_of(signal).size());
    std::int64_t at = axis < 0 ? axis + rank : axis;
    if (at >= 0 && at < rank) length = shape_of(signal)[static_cast<std::size_t>(at)];
    if (length < 1) return make_error("the signal along axis {} has no points", axis);
  }
  return single(dft(ctx, signal, axis, length, inverse != 0, onesided != 0));
}

// STFT: the frames of the signal ([batch, frames, frame_length, 1 or 2], gathered with
// constant positions), times the window if there is one, then their DFT.
Expected<Values> convert_stft(NodeContext& ctx) {
  UMA_TRY_ASSIGN(Value * signal, required_input(ctx, 0, "signal"));
  UMA_TRY_ASSIGN(std::int64_t step, count_input(ctx, 1, "frame_step", 1));
  Value* window = ctx.input(2);
  std::optional<std::int64_t> frame_length;
  if (ctx.has_input(3)) {
    UMA_TRY_ASSIGN(frame_length, count_input(ctx, 3, "frame_length", 1));
  }
  if (window != nullptr) {
    const Shape& w = shape_of(window);
    if (w.size() != 1 || (frame_length && w[0] != *frame_length))
      return make_error("the window is {}, but must be 1-D{}",
                        to_string(Type(window->tensor_type())),
                        frame_length ? fmt::format(" of frame_length {}", *frame_length) : "");
    frame_length = w[0];
  }
  if (!frame_length) return make_error("STFT needs a window or a frame_length");
  UMA_TRY_ASSIGN(std::int64_t onesided, ctx.attr_int("onesided", 1));
  const Shape& shape = shape_of(signal);
  if (shape.size() != 3)
    return make_error("the signal is {}, but must be [batch, length, 1 or 2]",
                      to_string(Type(signal->tensor_type())));
  if (*frame_length > shape[1])
    return make_error("frame_length {} is longer than the signal ({} points)", *frame_length,
                      shape[1]);
  std::int64_t frames = (shape[1] - *frame_length) / step + 1;
  UMA_TRY(check_constant("the frames' positions", {frames, *frame_length}));
  auto positions = std::make_shared<Tensor>(TensorType{DType::i64, {frames, *frame_length}});
  for (std::int64_t f = 0; f < frames; ++f)
    for (std::int64_t n = 0; n < *frame_length; ++n)
      positions->data<std::int64_t>()[f * *frame_length + n] = f * step + n;
  UMA_TRY_ASSIGN(Value * framed, ctx.emit_value("take", {signal, ctx.constant(positions)},
                                                attrs_of({{"axis", std::int64_t{1}}})));
  if (window != nullptr) {
    UMA_TRY_ASSIGN(
        Value * column,
        ctx.emit_value("reshape", {window}, attrs_of({{"newshape", Ints{*frame_length, 1}}})));
    UMA_TRY_ASSIGN(framed, ctx.emit_value("multiply", {framed, column}));
  }
  return single(dft(ctx, framed, 2, *frame_length, false, onesided != 0));
}

}  // namespace

void register_signal_converters(ConverterTable& table) {
  table.add("HannWindow", 17, [](NodeContext& ctx) { return convert_window(ctx, {0.5, 0.5}); });
  table.add("HammingWindow", 17, [](NodeContext& ctx) {
    return convert_window(ctx, {25.0 / 46, 21.0 / 46});
  });
  table.add("BlackmanWindow", 17, [](NodeContext& ctx) {
    return convert_window(ctx, {0.42, 0.5, 0.08});
  });
  table.add("MelWeightMatrix", 17, convert_mel_weight_matrix);
  table.add("DFT", 17, convert_dft);
  table.add("STFT", 17, convert_stft);
}

}  // namespace uma::onnx_import
