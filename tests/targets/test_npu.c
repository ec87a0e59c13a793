// test_npu's functional model (tests/targets/test_npu.cc): the kernels it runs on tiles in its
// memories, and its DMA engine.
//
// Each kernel computes every output of its tile in one sum, in the order the reference
// interpreter sums it (src/op/conv.cc, nn.cc, pool.cc, elementwise.cc): in double, from the
// bias operand (or zero), over input channels, then kernel rows, then kernel columns, skipping
// taps in the padding, rounded once to f32; a bias added after the layer is an f32 add of that
// result, and relu keeps NaN. A product of two floats is exact in double, so contracting it
// into a fused multiply-add changes nothing. So a tile's outputs are the same bits whatever
// the tile, and the same as the interpreter's.
//
// Data is f32: features (N, C, H, W) or (M, K), weights (O, C / groups, KH, KW) or (U, K),
// each tile dense in its own shape. Functions return 0, or NPU_BAD_ARGUMENTS (computing
// nothing) for sizes that do not agree.
//
// The DMA engine counts what it moves into `counters` (bytes, then transfers), a buffer of the
// calling function's load-time state: the tests compare the count with the plan's.
#include <math.h>
#include <stdint.h>
#include <string.h>

#define NPU_BAD_ARGUMENTS 3

int32_t npu_dma_start(int64_t queue, void* dst, const void* src, int64_t row_bytes, int64_t rows,
                      int64_t dst_stride, int64_t src_stride, int64_t* counters) {
  (void)queue;
  if (row_bytes < 0 || rows < 0) return NPU_BAD_ARGUMENTS;
  for (int64_t r = 0; r < rows; ++r)
    memcpy((char*)dst + r * dst_stride, (const char*)src + r * src_stride, (size_t)row_bytes);
  counters[0] += row_bytes * rows;
  counters[1] += 1;
  return 0;
}

int32_t npu_dma_wait(int64_t queue) {
  (void)queue;
  return 0;
}

static float npu_relu(float v) { return v > 0.0f || isnan(v) ? v : 0.0f; }

// The output size of a window along one axis, ceil_mode as the compiler's
// (src/op/nn_util.cc, window_output_size); 0 when there is no window.
static int64_t npu_windows(int64_t input, int64_t pad_before, int64_t pad_after, int64_t kernel,
                           int64_t dilation, int64_t stride, int64_t ceil_mode) {
  int64_t span = input + pad_before + pad_after - (dilation * (kernel - 1) + 1);
  if (span < 0 && !ceil_mode) return 0;
  int64_t size = (ceil_mode ? (span >= 0 ? (span + stride - 1) / stride : -((-span) / stride))
                            : span / stride) + 1;
  if (ceil_mode && size > 1 && (size - 1) * stride >= input + pad_before) --size;
  return size < 0 ? 0 : size;
}

// bias_mode: 0 none, 1 the convolution's bias operand (the sum starts from it), 2 a bias added
// to the convolution's result.
int32_t npu_conv2d(const float* x, const float* w, const float* bias, float* y, int64_t batch,
                   int64_t channels, int64_t height, int64_t width, int64_t out_channels,
                   int64_t kh, int64_t kw, int64_t out_h, int64_t out_w, int64_t stride_h,
                   int64_t stride_w, int64_t pad_top, int64_t pad_left, int64_t pad_bottom,
                   int64_t pad_right, int64_t dilation_h, int64_t dilation_w, int64_t groups,
                   int64_t bias_mode, int64_t relu) {
  if (batch < 1 || channels < 1 || out_channels < 1 || kh < 1 || kw < 1 || stride_h < 1 ||
      stride_w < 1 || dilation_h < 1 || dilation_w < 1 || groups < 1 ||
      channels % groups != 0 || out_channels % groups != 0 || bias_mode < 0 || bias_mode > 2 ||
      (bias_mode != 0 && bias == 0) ||
      out_h != npu_windows(height, pad_top, pad_bottom, kh, dilation_h, stride_h, 0) ||
      out_w != npu_windows(width, pad_left, pad_right, kw, dilation_w, stride_w, 0))
    return NPU_BAD_ARGUMENTS;
  const int64_t group_channels = channels / groups, group_outputs = out_channels / groups;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t o = 0; o < out_channels; ++o) {
      const int64_t first = o / group_outputs * group_channels;
      for (int64_t oy = 0; oy < out_h; ++oy)
        for (int64_t ox = 0; ox < out_w; ++ox) {
          double sum = bias_mode == 1 ? (double)bias[o] : 0.0;
          for (int64_t c = 0; c < group_channels; ++c) {
            const float* plane = x + ((n * channels) + first + c) * height * width;
            const float* taps = w + (o * group_channels + c) * kh * kw;
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t iy = oy * stride_h - pad_top + ky * dilation_h;
              if (iy < 0 || iy >= height) continue;
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t ix = ox * stride_w - pad_left + kx * dilation_w;
                if (ix < 0 || ix >= width) continue;
                sum += (double)taps[ky * kw + kx] * plane[iy * width + ix];
              }
            }
          }
          float v = (float)sum;
          if (bias_mode == 2) v = v + bias[o];
          y[((n * out_channels + o) * out_h + oy) * out_w + ox] = relu ? npu_relu(v) : v;
        }
    }
  return 0;
}

int32_t npu_dense(const float* x, const float* w, const float* bias, float* y, int64_t rows,
                  int64_t features, int64_t units, int64_t bias_mode, int64_t relu) {
  if (rows < 1 || features < 1 || units < 1 || bias_mode < 0 || bias_mode > 2 ||
      (bias_mode != 0 && bias == 0))
    return NPU_BAD_ARGUMENTS;
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t u = 0; u < units; ++u) {
      double sum = bias_mode == 1 ? (double)bias[u] : 0.0;
      for (int64_t k = 0; k < features; ++k)
        sum += (double)x[m * features + k] * w[u * features + k];
      float v = (float)sum;
      if (bias_mode == 2) v = v + bias[u];
      y[m * units + u] = relu ? npu_relu(v) : v;
    }
  return 0;
}

// mode: 0 max (NaN wins, as numpy's maximum), 1 average (of the taps inside the data, or with
// count_include_pad of those inside the padded data).
int32_t npu_pool2d(const float* x, float* y, int64_t planes, int64_t height, int64_t width,
                   int64_t out_h, int64_t out_w, int64_t kh, int64_t kw, int64_t stride_h,
                   int64_t stride_w, int64_t pad_top, int64_t pad_left, int64_t pad_bottom,
                   int64_t pad_right, int64_t dilation_h, int64_t dilation_w, int64_t ceil_mode,
                   int64_t mode, int64_t count_include_pad) {
  if (planes < 1 || kh < 1 || kw < 1 || stride_h < 1 || stride_w < 1 || dilation_h < 1 ||
      dilation_w < 1 || mode < 0 || mode > 1 ||
      out_h != npu_windows(height, pad_top, pad_bottom, kh, dilation_h, stride_h, ceil_mode) ||
      out_w != npu_windows(width, pad_left, pad_right, kw, dilation_w, stride_w, ceil_mode))
    return NPU_BAD_ARGUMENTS;
  const int64_t padded_h = height + pad_top + pad_bottom, padded_w = width + pad_left + pad_right;
  for (int64_t p = 0; p < planes; ++p) {
    const float* plane = x + p * height * width;
    for (int64_t oy = 0; oy < out_h; ++oy)
      for (int64_t ox = 0; ox < out_w; ++ox) {
        double max = -INFINITY, sum = 0.0;
        int64_t inside = 0, padded = 0;
        for (int64_t ky = 0; ky < kh; ++ky) {
          const int64_t py = oy * stride_h + ky * dilation_h;  // in the padded data
          const int64_t iy = py - pad_top;
          for (int64_t kx = 0; kx < kw; ++kx) {
            const int64_t px = ox * stride_w + kx * dilation_w;
            const int64_t ix = px - pad_left;
            if (py < padded_h && px < padded_w) ++padded;
            if (iy < 0 || iy >= height || ix < 0 || ix >= width) continue;
            const double v = plane[iy * width + ix];
            max = isnan(max) || max > v ? max : v;
            sum += v;
            ++inside;
          }
        }
        const int64_t count = count_include_pad ? padded : inside;
        y[(p * out_h + oy) * out_w + ox] = mode == 0 ? (float)max : (float)(sum / (double)count);
      }
  }
  return 0;
}

int32_t npu_add(const float* a, const float* b, float* y, int64_t elements, int64_t relu) {
  if (elements < 1) return NPU_BAD_ARGUMENTS;
  for (int64_t i = 0; i < elements; ++i) {
    const float v = a[i] + b[i];
    y[i] = relu ? npu_relu(v) : v;
  }
  return 0;
}
